"""docs/VERIFY.md and this verifier's checks: the same numbered list, and
every check one that some failure belongs to (the Go side has
TestVerifySpec and TestCheckOf)."""

import os
import re

from conftest import ROOT
from fabvote_verifier import checks
from fabvote_verifier.checks import CHECKS, check_of

SRC = os.path.join(ROOT, "verifier-py", "src", "fabvote_verifier")


def spec_checks():
    """(id, title, step, record only, optional) per heading of VERIFY.md."""
    out, step, prev = [], None, None
    with open(os.path.join(ROOT, "docs", "VERIFY.md"), encoding="utf-8") as f:
        for line in f.read().splitlines():
            m = re.match(r"^## Step `([a-z-]+)`", line)
            if m:
                step = m.group(1)
            m = re.match(r"^### (V[0-9]+) (.+)$", line)
            if m:
                out.append([m.group(1), m.group(2), step, False, False])
                prev = len(out)
                continue
            if prev == len(out) and out and line.startswith("*"):
                flags = line[1:].split("*", 1)[0]
                out[-1][3], out[-1][4] = "record" in flags, "optional" in flags
            prev = None
    return [tuple(c) for c in out]


def test_verify_spec():
    assert spec_checks() == CHECKS


def test_every_check_has_a_failure():
    found = {
        check_of("RECORD", None, "record.json"), check_of("RECORD", None, "files"), check_of("RECORD", None, "ballots.json"),
        check_of("RECORD", None, "manifest.json"), check_of("BLOCK_CHAIN", None, "block 3"),
        check_of("BLOCK_SIGNATURE", None, "block 0"), check_of("BLOCK_SIGNATURE", None, "block 2"),
        check_of("RECORD_BALLOTS", None, "ballots.json"), check_of("RECORD_BALLOTS", None, "ballot ab (tx t)"),
        check_of("MANIFEST", "MANIFEST", "manifest"), check_of("KEY_ORIGIN", "MANIFEST", "manifest"),
        check_of("BALLOT_DECODE", "DECODE", "ballot"),
        check_of("BALLOT_KEY", None, "ballot"), check_of("BALLOT_INVALID", "CIPHERTEXT", "ballot"),
        check_of("BALLOT_INVALID", "TOKEN", "ballot"), check_of("BALLOT_INVALID", "SIGNATURE", "ballot"),
        check_of("BALLOT_INVALID", "PROOF", "ballot"), check_of("BALLOT_INVALID", "NOT_IN_STYLE", "ballot"),
        check_of("DUPLICATE", "DUPLICATE", "ballot"), check_of("SPOILED_INVALID", "OPENING", "tracker ab (tx t)"),
        check_of("TRACKER", None, "tracker ab (tx t)"), check_of("TRACKER", "SPOILED", "ballot ab (tx t)"),
        check_of("COMMIT_ORDER", None, "ballot"), check_of("RESULT_MISSING", None, "result"),
        check_of("RESULT_DECODE", "DECODE", "result"), check_of("RESULT_COUNT", None, "result"),
        check_of("RESULT_PRODUCT", None, "result"), check_of("RESULT", "RESULT", "result"),
        check_of("EXPECTED_COUNTS", None, "result"),
    }
    # The checks a finder names, each named in this verifier's sources.
    sources = "".join(open(os.path.join(SRC, f), encoding="utf-8").read() for f in os.listdir(SRC)
                      if f.endswith(".py") and f != "checks.py")
    named = {"GENESIS_ANCHOR": checks.GENESIS_ANCHOR, "MANIFEST_IS_OWN": checks.MANIFEST_IS_OWN,
             "PUBLISHED_ANCHOR": checks.PUBLISHED_ANCHOR, "OPENING": checks.OPENING,
             "STORED_TXID": checks.STORED_TXID, "RESULT_WRITE": checks.RESULT_WRITE}
    for name, cid in named.items():
        assert f"checks.{name}" in sources, f"{name} is named by no finder"
        found.add(cid)
    assert check_of("SOURCE", None, "ballots") is None
    assert {c[0] for c in CHECKS} - found == set()
