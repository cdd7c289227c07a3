"""Verification of an election record (docs/RECORD.md section 6)."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import re
import zlib

from . import checks, gzipread
from .chain import BlockScan
from .electioncheck import check_election
from .report import Report


class Unreadable(Exception):
    """The record cannot be read at all (exit status 2)."""


# Version 2: manifest v5 (contests, styles, the key's origin), ballot v3, result v2.
RECORD_VERSION = 2
RECORD_FIELDS = ["format", "version", "electionID", "channel", "chaincode", "lastBlock"]
BALLOT_FIELDS = {"pseudonym", "ballotHash", "txID", "block", "index"}
_HEX64 = re.compile(r"[0-9a-f]{64}")
_BLOCK_NAME = re.compile(r"[0-9]{10}\.block\.gz")


DIGEST_TAG = b"fabvote/record-digest/v1\n"
MAX_RECORD_JSON = 1 << 20  # record.json: a few short fields (RECORD.md 2)


def record_digest(path: str, last_block: int) -> str:
    """RECORD.md 7.1: SHA-256 of the tag and, for each file of the record in
    its order, its path, a newline, the hex SHA-256 of its bytes, a newline;
    None when a block file is larger than a block file may be."""
    names = ["record.json", "manifest.json", "result.json", "ballots.json"]
    names += ["blocks/%010d.block.gz" % n for n in range(last_block + 1)]
    h = hashlib.sha256(DIGEST_TAG)
    for name in names:
        p = os.path.join(path, *name.split("/"))
        if name == "result.json" and not os.path.lexists(p):
            continue
        if name.startswith("blocks/") and os.stat(p).st_size > gzipread.MAX_FILE:
            return None  # RECORD.md 5: no digest for a record with an oversized block file
        fh = hashlib.sha256()
        with open(p, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                fh.update(chunk)
        h.update(f"{name}\n{fh.hexdigest()}\n".encode())
    return h.hexdigest()


def _no_key_twice(pairs) -> dict:
    """RECORD.md 1: an object with a key twice is refused (a ValueError, so a
    RECORD failure); two decoders could each take another of the values."""
    d = {}
    for k, v in pairs:
        if k in d:
            raise ValueError(f"field {k!r} appears twice")
        d[k] = v
    return d


def _regular(p: str) -> bool:
    """A regular file itself, not a symbolic link to one (RECORD.md 1): a
    record is exactly its own files, never one outside it."""
    try:
        return stat.S_ISREG(os.lstat(p).st_mode)
    except OSError:
        return False


def _directory(p: str) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(p).st_mode)
    except OSError:
        return False


def _nat(v, bound: int = 1 << 64) -> bool:
    """A whole number below bound (RECORD.md 2 and 4: block numbers are
    unsigned 64-bit, a position in a block a signed 64-bit one)."""
    return type(v) is int and 0 <= v < bound


def verify_record(path: str, genesis_hash: str | None = None, workers: int = 1,
                  manifest: bytes | None = None) -> Report:
    """manifest: the election's published manifest (--manifest FILE); when
    given, manifest.json must be exactly these bytes (MANIFEST otherwise).
    The report's failures are in the order of RECORD.md 7."""
    rep = Report(source="record")
    _verify_record(path, genesis_hash, workers, manifest, rep)
    rep.sort_failures()
    return rep


def _verify_record(path: str, genesis_hash: str | None, workers: int, manifest: bytes | None, rep: Report) -> Report:
    rep.anchors = {"genesisHash": genesis_hash.lower() if genesis_hash is not None else None,
                   "manifestSHA256": hashlib.sha256(manifest).hexdigest() if manifest is not None else None}
    rj = os.path.join(path, "record.json")
    if not os.path.lexists(rj):
        raise Unreadable(f"{path}: no record.json")
    # Read only a regular file of the record, and not without bound.
    if not _regular(rj) or os.lstat(rj).st_size > MAX_RECORD_JSON:
        rep.step("record")
        rep.fail("RECORD", "record.json", f"not a regular file of at most {MAX_RECORD_JSON} bytes")
        return rep
    # ---------------------------------------------------------------- 1. record
    rep.step("record")
    rec = _check_record(path, rep)
    if rec is None or rep.failed_steps():
        return rep
    try:
        rep.record_digest = record_digest(path, rec["lastBlock"])
    except OSError as e:
        rep.fail("RECORD", "files", f"cannot read: {e}")
        return rep
    # ---------------------------------------------------------------- 2. blocks
    rep.step("blocks")
    rep.step("block-signatures")
    scan = BlockScan(rec["channel"], rep.fail)
    txs = []
    for n in range(rec["lastBlock"] + 1):
        raw, err = _read_block(path, n)
        t = scan.block(n, raw, err)
        if t is not None:
            for tx in t:  # keep only the writes a verifier reads
                tx.writes = [w for w in tx.writes if w.namespace == rec["chaincode"]]
        txs.append(t)
    if scan.genesis is not None:
        rep.genesis_hash = scan.genesis.hex()
    if genesis_hash is not None and genesis_hash.lower() != rep.genesis_hash:
        rep.fail("BLOCK_CHAIN", "block 0", f"genesis hash is {rep.genesis_hash}, want {genesis_hash.lower()}", check=checks.GENESIS_ANCHOR)
    if rep.failed_steps():
        return rep
    # ---------------------------------------------------------------- 3 and 4
    check_election(rec, txs, rep, workers, manifest)
    return rep


def _read_block(path: str, n: int):
    """Block n's bytes and None, or None and why they cannot be read."""
    fn = os.path.join(path, "blocks", "%010d.block.gz" % n)
    try:
        with open(fn, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size > gzipread.MAX_FILE:
                raise gzipread.GzipError(f"{size} bytes, more than the {gzipread.MAX_FILE >> 20} MiB a block file may have")
            gz = f.read()
        return gzipread.decompress(gz), None
    except (OSError, gzipread.GzipError, zlib.error) as e:
        return None, f"{fn}: {e}"


def _check_record(path: str, rep: Report):
    """Step 1. Its first failure stops it (RECORD.md 6), with the file it is
    about as its subject: record.json, files (the set of files and their
    types), ballots.json, manifest.json, result.json."""
    def bad(msg, subject="record.json"):
        rep.fail("RECORD", subject, msg)

    try:
        with open(os.path.join(path, "record.json"), "rb") as f:
            rec = json.loads(f.read().decode("utf-8"), object_pairs_hook=_no_key_twice)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:  # RecursionError: nested too deeply
        bad(f"record.json does not decode: {e}")
        return None
    if not isinstance(rec, dict) or set(rec) != set(RECORD_FIELDS):
        bad("record.json does not have exactly the fields " + ", ".join(RECORD_FIELDS))
        return None
    if rec["format"] != "fabvote-election-record":
        bad(f"record.json format is {rec['format']!r}")
        return None
    if type(rec["version"]) is not int or rec["version"] != RECORD_VERSION:
        if type(rec["version"]) is int and rec["version"] == 1:
            bad(f"this is a version-1 record (single-contest manifest, ballots and result); this verifier reads "
                f"record format version {RECORD_VERSION} only")
        else:
            bad(f"record format version {rec['version']!r} is not {RECORD_VERSION}")
        return None
    if not all(isinstance(rec[k], str) and rec[k] for k in ("electionID", "channel", "chaincode")) \
            or not _nat(rec["lastBlock"]):
        bad("record.json has a field of the wrong type")
        return None
    rep.election_id = rec["electionID"]
    problem = _files_problem(path, rec["lastBlock"])
    if problem is not None:
        bad(problem, "files")
        return None
    rec["_index"] = _read_index(path, bad)
    if rec["_index"] is None:
        return None
    # manifest.json, then result.json (absent: no result is published).
    for name in ("manifest.json", "result.json"):
        p = os.path.join(path, name)
        if name == "result.json" and not os.path.lexists(p):
            rec["_result"] = None
            continue
        try:
            with open(p, "rb") as f:
                rec["_" + name[:-5]] = f.read()
        except OSError as e:
            bad(f"cannot read {name}: {e.strerror}", name)
            return None
    return rec


def _read_index(path: str, bad):
    """ballots.json's entries (RECORD.md 4), or None after its RECORD failure."""
    try:
        with open(os.path.join(path, "ballots.json"), "rb") as f:
            raw = f.read()
        idx = json.loads(raw.decode("utf-8"), object_pairs_hook=_no_key_twice)
    except OSError as e:
        bad(f"cannot read ballots.json: {e.strerror}", "ballots.json")
        return None
    except (ValueError, UnicodeDecodeError, RecursionError) as e:  # RecursionError: nested too deeply
        bad(f"ballots.json does not decode: {e}", "ballots.json")
        return None
    if not isinstance(idx, list):
        bad("ballots.json is not an array", "ballots.json")
        return None
    prev = None
    for i, e in enumerate(idx):
        if not isinstance(e, dict) or set(e) != BALLOT_FIELDS:
            bad(f"ballots.json entry {i} does not have exactly the fields pseudonym, ballotHash, txID, block, index", "ballots.json")
            return None
        if not (isinstance(e["pseudonym"], str) and _HEX64.fullmatch(e["pseudonym"])
                and isinstance(e["ballotHash"], str) and _HEX64.fullmatch(e["ballotHash"])
                and isinstance(e["txID"], str) and e["txID"]
                and _nat(e["block"]) and _nat(e["index"], 1 << 63)):
            bad(f"ballots.json entry {i} has a field of the wrong form", "ballots.json")
            return None
        if prev is not None and not prev < e["pseudonym"]:
            bad(f"ballots.json is not sorted by pseudonym or names {e['pseudonym']} twice", "ballots.json")
            return None
        prev = e["pseudonym"]
    return idx


def _files_problem(path: str, last: int):
    """The first thing wrong with the record's set of files, or None."""
    want = {"record.json", "manifest.json", "ballots.json", "blocks"}
    have = set(os.listdir(path))
    for extra in sorted(have - want - {"result.json"}):
        return f"unknown file {extra}"
    for missing in sorted(want - have):
        return f"missing {missing}"
    for name in ("record.json", "manifest.json", "ballots.json", "result.json"):
        if name in have and not _regular(os.path.join(path, name)):
            return f"{name} is not a regular file (a symbolic link or a special file is refused)"
    bdir = os.path.join(path, "blocks")
    if not _directory(bdir):
        return "blocks is not a directory (a symbolic link is refused)"
    names = set(os.listdir(bdir))
    present = {nm for nm in names if _BLOCK_NAME.fullmatch(nm) and int(nm[:10]) <= last}
    for extra in sorted(names - present):
        return f"unknown file blocks/{extra}"
    if len(present) != last + 1:  # (lastBlock may be huge: never list every name)
        missing = next(k for k in range(last + 1) if "%010d.block.gz" % k not in present)
        return f"missing blocks/{missing:010d}.block.gz ({last + 1 - len(present)} block file(s) missing)"
    for nm in sorted(present):
        if not _regular(os.path.join(bdir, nm)):
            return f"blocks/{nm} is not a regular file (a symbolic link or a special file is refused)"
    return None
