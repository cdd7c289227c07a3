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
    sys.argv = ["gen_record", out, "--ballots", "12", "--per-block", "5", "--concurrency", "1", "--nonce-pool", "4", *args]
    try:
        gen_record.main()
    finally:
        sys.argv = argv
    return out


def test_generated_good(tmp_path):
    rep = verify_record(make(tmp_path), workers=2)
    assert rep.ok, rep.human()
    assert rep.ballots == {"recorded": 12, "valid": 12, "counted": 12, "late": 0}
    [c] = rep.result["contests"]
    assert (c["id"], c["options"], c["ballots"], sum(c["counts"])) == ("main", ["Alice", "Bob", "Carol", "Dave"], 12, 12)
    assert rep.result["ballotCount"] == 12


def test_generated_multi_contest(tmp_path):
    """Three contests (packed, per-option with blank, packed yes/no), two
    styles, ballots of both; late ballots are not counted."""
    rep = verify_record(make(tmp_path, "--contests", "multi", "--late", "2"), workers=2)
    assert rep.ok, rep.human()
    assert rep.ballots == {"recorded": 12, "valid": 12, "counted": 10, "late": 2}
    cs = rep.result["contests"]
    assert [(c["id"], len(c["options"]), len(c["counts"])) for c in cs] == [("mayor", 4, 4), ("council", 5, 5), ("measure", 2, 2)]
    assert rep.result["ballotCount"] == 10 and cs[0]["ballots"] == cs[2]["ballots"] == 10
    assert sum(cs[0]["counts"]) == 10 and 0 < cs[1]["ballots"] < 10


def test_generated_multi_bad(tmp_path):
    rep = verify_record(make(tmp_path, "--contests", "multi", "--bad-proof", "1", "--bad-token", "1", "--bad-limit", "2"),
                        workers=1)
    assert rep.kinds() == ["BALLOT_INVALID"], rep.human()
    assert sorted(f["code"] for f in rep.failures) == ["LIMIT", "LIMIT", "PROOF", "TOKEN"]
    assert sorted(f["check"] for f in rep.failures) == ["V17", "V19", "V19", "V19"]


@pytest.mark.parametrize("variant,code", [
    ("contest-not-in-style", "NOT_IN_STYLE"), ("contest-unknown", "NOT_IN_STYLE"), ("contest-repeat", "CONTEST_REPEAT"),
    ("contest-order", "CONTEST_ORDER"), ("contest-missing", "CONTEST_MISSING"), ("bad-style", "TOKEN"),
])
def test_generated_contest_variants(tmp_path, variant, code):
    """Ballot 0's contest list, or its token's style, refused with its
    code; the other ballots counted."""
    rep = verify_record(make(tmp_path, "--contests", "multi", "--variant", variant), workers=1)
    assert rep.kinds() == ["BALLOT_INVALID"], rep.human()
    assert [(f["code"], f["check"]) for f in rep.failures] == [(code, "V17" if code == "TOKEN" else "V31")]
    assert rep.ballots == {"recorded": 12, "valid": 11, "counted": 11, "late": 0}


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


def test_generated_spoiled(tmp_path):
    """Audited ballots beside cast ones, each cast with its claim: the
    record passes V32 and counts the cast ballots alone."""
    rep = verify_record(make(tmp_path, "--contests", "multi", "--spoiled", "3"), workers=1)
    assert rep.ok, rep.failures
    assert rep.ballots == {"recorded": 12, "valid": 12, "counted": 12, "late": 0}
    assert rep.result["ballotCount"] == 12


# Each kind of tracker and claim tampering (docs/VERIFY.md V32): its kind,
# its code, and whose subject it has: the tracker's, the ballot's or the
# ciphertext's.
TRACKER_TAMPER = {
    "spoiled-opening": ("SPOILED_INVALID", "OPENING", "tracker "),
    "spoiled-wrong-key": ("SPOILED_INVALID", None, "tracker "),
    "cast-spoiled": ("TRACKER", "SPOILED", "ballot "),
    "cast-no-claim": ("TRACKER", None, "ballot "),
    "claim-other": ("TRACKER", "DUPLICATE", "ballot "),
    "spoiled-cast-claim": ("TRACKER", "CAST_OPENED", "tracker "),
    "spoil-no-claim": ("TRACKER", None, "tracker "),
    "claim-other-tracker": ("TRACKER", "EXISTS", "tracker "),
    "claim-rewrite": ("TRACKER", None, "ciphertext "),
    "claim-junk": ("TRACKER", "DECODE", "ciphertext "),
}


@pytest.mark.parametrize("variant", sorted(TRACKER_TAMPER))
def test_generated_tracker_tampering(tmp_path, variant):
    kind, code, subject = TRACKER_TAMPER[variant]
    rep = verify_record(make(tmp_path, "--contests", "multi", "--spoiled", "2", "--variant", variant), workers=1)
    assert [(f["kind"], f.get("code"), f["check"]) for f in rep.failures] == [(kind, code, "V32")], rep.failures
    assert rep.failures[0]["subject"].startswith(subject)
    assert rep.ballots["counted"] == 12 and rep.result["ballotCount"] == 12  # a spoiled ballot never counts


def test_generated_orphan_claim(tmp_path):
    """A spoiled ballot that does not decode holds no ciphertext: each of
    its claims names a ballot that is not there, beside its own failure."""
    rep = verify_record(make(tmp_path, "--contests", "multi", "--spoiled", "2", "--variant", "tracker-junk"), workers=1)
    got = sorted({(f["kind"], f.get("code", ""), f["subject"].split()[0]) for f in rep.failures})
    assert got == [("SPOILED_INVALID", "DECODE", "tracker"), ("TRACKER", "", "ciphertext")], rep.failures


def test_no_tracker_write_no_claim_needed(tmp_path):
    """Blocks of a contract without ciphertext claims: no claim is asked for."""
    rep = verify_record(make(tmp_path), workers=1)
    assert rep.ok and {c["check"]: c["ok"] for c in rep.to_json()["checks"]}["V32"]
