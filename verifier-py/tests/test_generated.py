"""Records written by tools/gen_record.py — this package's own, independent
record writer (fresh orderer CA, single Paillier key, its own blocks and
signatures) — so that the single-key decryption, rejected proofs and
tokens, late ballots and rewrites are covered without the Go fixtures.
The orderer certificate has expired: validity periods are not checked."""

import os
import sys

import pytest

from fabvote_verifier import verify_record

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import gen_record  # noqa: E402


def make(tmp_path, *args):
    out = str(tmp_path / "rec")
    argv = sys.argv
    sys.argv = ["gen_record", out, "--ballots", "12", "--per-block", "5", "--workers", "1", "--nonce-pool", "4", *args]
    try:
        gen_record.main()
    finally:
        sys.argv = argv
    return out


def test_generated_good(tmp_path):
    rep = verify_record(make(tmp_path), workers=2)
    assert rep.ok, rep.human()
    assert rep.ballots == {"recorded": 12, "valid": 12, "counted": 12, "late": 0}
    assert sum(rep.result["counts"]) == 12


def test_generated_bad_proofs_and_token(tmp_path):
    rep = verify_record(make(tmp_path, "--bad-proof", "2", "--bad-token", "1"), workers=1)
    assert rep.kinds() == ["BALLOT_INVALID"], rep.human()
    codes = sorted(f["code"] for f in rep.failures)
    assert codes == ["PROOF", "PROOF", "TOKEN"]
    assert all(len(f["pseudonym"]) == 64 for f in rep.failures)
    assert rep.ballots == {"recorded": 12, "valid": 9, "counted": 9, "late": 0}


def test_generated_late(tmp_path):
    rep = verify_record(make(tmp_path, "--late", "3"), workers=1)
    assert rep.ok, rep.human()
    assert rep.ballots == {"recorded": 12, "valid": 12, "counted": 9, "late": 3}
    assert len(rep.late_ballots) == 3


def test_generated_rewrite(tmp_path):
    rep = verify_record(make(tmp_path, "--rewrite-ballot"), workers=1)
    assert rep.kinds() == ["COMMIT_ORDER"], rep.human()


@pytest.mark.parametrize("variant,kinds,codes", [
    ("txid-mismatch", ["COMMIT_ORDER"], []),
    ("foreign-ballot", ["BALLOT_INVALID"], ["NO_ELECTION"]),
    ("bad-last-config", ["BLOCK_SIGNATURE"], []),
    ("ballot-before-opening", [], []),
    ("manifest-delete-first", ["COMMIT_ORDER"], []),
    ("result-delete-first", ["COMMIT_ORDER"], []),
    ("ca-signs", [], []),
    ("multi-gzip", [], []),
])
def test_generated_variants(tmp_path, variant, kinds, codes):
    """The cases the specification leaves open, decided as the Go verifier
    decides them (cross-checked by hand with `fabvote verify --record`)."""
    rep = verify_record(make(tmp_path, "--variant", variant), workers=1)
    assert rep.kinds() == kinds, rep.human()
    assert sorted(f["code"] for f in rep.failures if "code" in f) == codes
