"""Command line: fabvote-verify-record / python -m fabvote_verifier."""

from __future__ import annotations

import argparse
import os
import re
import sys

from .receipt import ReceiptError, check_receipt, load_receipt
from .verify import Unreadable, verify_record


def _receipt(record, rep, receipt) -> int:
    try:
        where = check_receipt(record, rep, receipt)
    except ReceiptError as e:
        print(f"receipt does NOT check out against the record {record}: {e}")
        return 1
    print(f"OK: the ballot {receipt['ballotHash']} of voter {receipt['pseudonym']} is {where}")
    return 0 if "not counted" not in where else 1


def _concurrency(args) -> bool:
    """Sets args.concurrency from --concurrency or its old name --workers
    (kept for one release, with a notice); False, with a message, for both."""
    if args.workers is not None:
        if args.concurrency is not None:
            print("fabvote-verify-record: give --concurrency or its old name --workers, not both", file=sys.stderr)
            return False
        print("fabvote-verify-record: --workers is deprecated, use --concurrency", file=sys.stderr)
        args.concurrency = args.workers
    if args.concurrency is None:
        args.concurrency = os.cpu_count() or 1
    return True


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="fabvote-verify-record",
                                 description="Independently verify a fabvote election record (docs/RECORD.md).")
    ap.add_argument("--record", required=True, metavar="DIR", help="the election record directory")
    ap.add_argument("--json", action="store_true", help="print the JSON report instead of the text report")
    ap.add_argument("--genesis-hash", metavar="HEX", help="require this genesis block header hash")
    ap.add_argument("--manifest", metavar="FILE",
                    help="require manifest.json to be this file, the election's published manifest, byte for byte")
    ap.add_argument("--receipt", metavar="FILE",
                    help="check this voter's receipt (from fabvote cast) against the verified record")
    ap.add_argument("--concurrency", type=int, default=None, metavar="N",
                    help="processes for the ballot checks (default: the number of CPUs)")
    # The old name, as fabvote keeps its old flag names: for one release.
    ap.add_argument("--workers", type=int, default=None, help=argparse.SUPPRESS)
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    if not _concurrency(args):
        return 2
    for flag, value in (("--record", args.record), ("--genesis-hash", args.genesis_hash), ("--manifest", args.manifest),
                        ("--receipt", args.receipt)):
        if value == "":
            # An unset shell variable: an empty anchor is never taken for none.
            print(f"fabvote-verify-record: {flag} was given an empty value (an unset variable?): "
                  "give it a value, or leave the flag out", file=sys.stderr)
            return 2
    if args.genesis_hash is not None and not re.fullmatch(r"[0-9a-fA-F]{64}", args.genesis_hash):
        print("fabvote-verify-record: --genesis-hash must be 64 hex digits", file=sys.stderr)
        return 2
    if args.concurrency < 1:
        print("fabvote-verify-record: --concurrency must be at least 1", file=sys.stderr)
        return 2
    published = None
    if args.manifest is not None:
        try:
            with open(args.manifest, "rb") as f:
                published = f.read()
        except OSError as e:
            print(f"fabvote-verify-record: --manifest: {e}", file=sys.stderr)
            return 2
    receipt = None
    if args.receipt is not None:
        try:
            receipt = load_receipt(args.receipt)
        except ReceiptError as e:
            print(f"fabvote-verify-record: {e}", file=sys.stderr)
            return 2
    try:
        rep = verify_record(args.record, args.genesis_hash, args.concurrency, published)
    except Unreadable as e:
        print(f"fabvote-verify-record: {e}", file=sys.stderr)
        return 2
    if receipt is not None:
        return _receipt(args.record, rep, receipt)
    if args.json:
        sys.stdout.write(rep.dumps_json() + "\n")
    else:
        sys.stdout.write(rep.human())
    return 0 if rep.ok else 1
