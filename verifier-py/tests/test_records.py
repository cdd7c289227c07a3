"""Every committed record fixture, and tampering with a copy of the good one."""

import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys

import jsonschema
import pytest

from conftest import RECORDS, ROOT, missing_fixture
from fabvote_verifier import protowire, verify_record
from fabvote_verifier.cli import main

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
from gen_record import fb  # noqa: E402  the tools' protobuf writer

EXPECTED = os.path.join(RECORDS, "expected.json")


def _expected():
    """expected.json, every fixture's verdict: a missing one fails the
    collection instead of leaving test_fixture no case to run."""
    assert os.path.isfile(EXPECTED), missing_fixture(EXPECTED)
    with open(EXPECTED) as f:
        return json.load(f)


@pytest.mark.parametrize("name", sorted(_expected()))
def test_fixture(name):
    want = _expected()[name]
    for workers in (1, 2):
        rep = verify_record(os.path.join(RECORDS, name), workers=workers)
        assert (rep.ok, rep.kinds()) == (want["ok"], sorted(set(want["kinds"]))), rep.human()
        # RECORD.md 7.1: the same record digest as the Go verifier's (the vector in expected.json)
        assert rep.record_digest == want["recordDigest"]


def test_every_fixture_listed():
    names = {d for d in os.listdir(RECORDS) if os.path.isdir(os.path.join(RECORDS, d))}
    assert names == set(_expected())


GOOD = os.path.join(RECORDS, "good")


@pytest.fixture
def good(tmp_path):
    d = tmp_path / "rec"
    shutil.copytree(GOOD, d)
    return str(d)


def _read_block(rec, n):
    with open(os.path.join(rec, "blocks", "%010d.block.gz" % n), "rb") as f:
        return gzip.decompress(f.read())


def _write_block(rec, n, raw):
    with open(os.path.join(rec, "blocks", "%010d.block.gz" % n), "wb") as f:
        f.write(gzip.compress(raw, mtime=0))


def _index(rec):
    with open(os.path.join(rec, "ballots.json")) as f:
        return json.load(f)


def _write_index(rec, idx):
    with open(os.path.join(rec, "ballots.json"), "w") as f:
        json.dump(idx, f, separators=(",", ":"))


REPORT_SCHEMA = os.path.join(ROOT, "docs", "record", "report.schema.json")


def _kinds(rec):
    rep = verify_record(rec, workers=1)
    _valid_report(rep)
    return rep.ok, rep.kinds()


def _valid_report(rep):
    """Every report, failing ones too, follows docs/record/report.schema.json
    (jsonschema is in the [test] extra and the schema is committed: without
    either the test fails, never skips the check)."""
    with open(REPORT_SCHEMA) as f:
        validator = jsonschema.Draft202012Validator(json.load(f))
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
              for e in validator.iter_errors(json.loads(rep.dumps_json()))]
    assert errors == [], rep.human()


def test_good_passes(good):
    assert _kinds(good) == (True, [])


def test_byte_flipped_in_a_ballot(good):
    e = _index(good)[0]
    raw = bytearray(_read_block(good, e["block"]))
    marker = b"\x01\x00" + bytes([len(e["txID"])]) + e["txID"].encode() + b"\x03"  # record value, ballot v3
    at = raw.find(marker)
    assert at >= 0
    raw[at + len(marker) + 300] ^= 0x01  # inside the ballot's ciphertext
    _write_block(good, e["block"], bytes(raw))
    assert _kinds(good) == (False, ["BLOCK_CHAIN"])


def test_ballot_removed_from_index(good):
    idx = _index(good)
    _write_index(good, idx[1:])
    assert _kinds(good) == (False, ["RECORD_BALLOTS"])


def test_ballot_added_to_index(good):
    idx = _index(good)
    extra = dict(idx[0], pseudonym="f" * 64)
    _write_index(good, idx + [extra])
    assert _kinds(good) == (False, ["RECORD_BALLOTS"])


def test_ballot_hash_changed_in_index(good):
    idx = _index(good)
    idx[0]["ballotHash"] = "0" * 64
    _write_index(good, idx)
    assert _kinds(good) == (False, ["RECORD_BALLOTS"])


def test_index_unsorted(good):
    idx = _index(good)
    _write_index(good, idx[::-1])
    assert _kinds(good) == (False, ["RECORD"])


def test_blocks_swapped(good):
    a, b = _read_block(good, 1), _read_block(good, 2)
    _write_block(good, 1, b)
    _write_block(good, 2, a)
    assert _kinds(good) == (False, ["BLOCK_CHAIN"])


def _block_with_metadata(raw, metadata):
    f = protowire.parse(raw)
    header, data = f[1][0][1], f[2][0][1]
    md = b"".join(fb(1, m) for m in metadata)
    return fb(1, header) + fb(2, data) + fb(3, md)


def _metadata(raw):
    f = protowire.parse(raw)
    return [v for _, v in protowire.parse(f[3][0][1]).get(1, [])]


def test_reencoded_block_is_identical(good):
    raw = _read_block(good, 2)
    assert _block_with_metadata(raw, _metadata(raw)) == raw


def test_signature_of_another_block(good):
    b2, b3 = _read_block(good, 2), _read_block(good, 3)
    md2, md3 = _metadata(b2), _metadata(b3)
    md2[0] = md3[0]
    _write_block(good, 2, _block_with_metadata(b2, md2))
    assert _kinds(good) == (False, ["BLOCK_SIGNATURE"])


def test_signature_removed(good):
    b2 = _read_block(good, 2)
    md2 = _metadata(b2)
    md2[0] = b""
    _write_block(good, 2, _block_with_metadata(b2, md2))
    assert _kinds(good) == (False, ["BLOCK_SIGNATURE"])


def test_extra_file(good):
    with open(os.path.join(good, "notes.txt"), "w") as f:
        f.write("x")
    assert _kinds(good) == (False, ["RECORD"])


def test_extra_block_file(good):
    shutil.copy(os.path.join(good, "blocks", "0000000001.block.gz"), os.path.join(good, "blocks", "0000000099.block.gz"))
    assert _kinds(good) == (False, ["RECORD"])


def test_missing_block(good):
    os.remove(os.path.join(good, "blocks", "0000000002.block.gz"))
    assert _kinds(good) == (False, ["RECORD"])


def test_record_version(good):
    p = os.path.join(good, "record.json")
    rec = json.load(open(p))
    rec["version"] = 3
    json.dump(rec, open(p, "w"))
    assert _kinds(good) == (False, ["RECORD"])


def test_result_json_changed(good):
    p = os.path.join(good, "result.json")
    raw = open(p, "rb").read()
    open(p, "wb").write(raw.replace(b'"ballotCount":5', b'"ballotCount":6'))
    # not the result the blocks hold (COMMIT_ORDER), and not consistent either
    assert _kinds(good) == (False, ["COMMIT_ORDER", "RESULT", "RESULT_COUNT"])


def test_manifest_json_changed(good):
    p = os.path.join(good, "manifest.json")
    raw = open(p, "rb").read()
    open(p, "wb").write(raw.replace(b"Test election", b"Test Election"))
    # not the manifest the opening wrote, and the tokens bind the other one
    assert _kinds(good) == (False, ["BALLOT_INVALID", "COMMIT_ORDER", "RESULT_COUNT", "RESULT_PRODUCT"])


def test_record_ends_before_the_result(good):
    p = os.path.join(good, "record.json")
    rec = json.load(open(p))
    rec["lastBlock"] = 3
    json.dump(rec, open(p, "w"))
    os.remove(os.path.join(good, "blocks", "0000000004.block.gz"))
    assert _kinds(good) == (False, ["SOURCE"])


def test_empty_block_file(good):
    open(os.path.join(good, "blocks", "0000000003.block.gz"), "wb").close()
    assert _kinds(good) == (False, ["BLOCK_CHAIN"])


def test_invalidated_by_filter(good):
    b = _read_block(good, 2)
    md = _metadata(b)
    md[2] = b"\x00\x0b\x00"
    _write_block(good, 2, _block_with_metadata(b, md))
    assert _kinds(good) == (False, ["RECORD_BALLOTS", "RESULT_COUNT", "RESULT_PRODUCT"])


def test_genesis_hash(good, capsys):
    rep = verify_record(good)
    assert main(["--record", good, "--genesis-hash", rep.genesis_hash]) == 0
    assert main(["--record", good, "--genesis-hash", "0" * 64]) == 1
    capsys.readouterr()


@pytest.mark.parametrize("flag", ["--genesis-hash", "--manifest", "--record"])
def test_empty_anchor_is_a_usage_error(good, flag, capsys):
    """An unset shell variable: an empty anchor is never taken for none."""
    args = {"--record": ["--record", good], flag: [flag, ""]}
    assert main([a for v in args.values() for a in v]) == 2
    assert f"{flag} was given an empty value" in capsys.readouterr().err


@pytest.mark.parametrize("args,code,err", [
    (["--concurrency", "1"], 0, ""),
    (["--workers", "1"], 0, "--workers is deprecated, use --concurrency"),
    (["--workers", "1", "--concurrency", "1"], 2, "not both"),
    (["--concurrency", "0"], 2, "--concurrency must be at least 1"),
])
def test_concurrency_flag(good, args, code, err, capsys):
    """--concurrency, fabvote's name; its old name --workers works for one release, with a notice."""
    assert main(["--record", good, *args]) == code
    assert err in capsys.readouterr().err


def test_anchors_reported(good, capsys):
    """Both reports say which anchors were checked, as the Go verifier's do."""
    assert main(["--record", good, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["anchors"] == {"genesisHash": None, "manifestSHA256": None}
    assert main(["--record", good]) == 0
    assert "anchors: none given: only the record's internal consistency was checked" in capsys.readouterr().out
    manifest = os.path.join(good, "manifest.json")
    with open(manifest, "rb") as f:
        want = hashlib.sha256(f.read()).hexdigest()
    args = ["--record", good, "--genesis-hash", out["genesisHash"], "--manifest", manifest]
    assert main(args + ["--json"]) == 0
    anchored = json.loads(capsys.readouterr().out)
    assert anchored["anchors"] == {"genesisHash": out["genesisHash"], "manifestSHA256": want}
    assert main(args) == 0
    human = capsys.readouterr().out
    assert f"SHA-256 {want} (--manifest): checked" in human and "none given" not in human


@pytest.mark.parametrize("name", ["blocks/0000000001.block.gz", "manifest.json", "result.json", "blocks", "record.json"])
def test_symbolic_link_refused(good, tmp_path, name):
    """RECORD.md 1: a file of the record replaced by a symbolic link to an
    identical copy outside it is a RECORD failure; nothing outside is read."""
    inside = os.path.join(good, name)
    outside = str(tmp_path / "outside")
    shutil.move(inside, outside)
    os.symlink(outside, inside)
    ok, kinds = _kinds(good)
    assert not ok and kinds == ["RECORD"]


@pytest.mark.parametrize("name", ["ballots.json", "record.json"])
def test_deep_json_is_a_record_failure(good, name):
    """A JSON file nested 200,000 deep is a RECORD failure, not a crash."""
    with open(os.path.join(good, name), "w") as f:
        f.write("[" * 200_000 + "]" * 200_000)
    assert _kinds(good) == (False, ["RECORD"])


def test_block_file_too_large(good):
    """A block file past 256 MiB (here a sparse tail) is refused before it is
    read, and the record has no digest (RECORD.md 5 and 7.1)."""
    os.truncate(os.path.join(good, "blocks", "0000000002.block.gz"), 300 << 20)
    assert _kinds(good) == (False, ["BLOCK_CHAIN"])
    assert verify_record(good).record_digest is None


def test_record_json_a_pipe(good):
    os.remove(os.path.join(good, "record.json"))
    os.mkfifo(os.path.join(good, "record.json"))
    assert _kinds(good) == (False, ["RECORD"])


def test_special_file_refused(good):
    os.remove(os.path.join(good, "result.json"))
    os.mkfifo(os.path.join(good, "result.json"))
    assert _kinds(good) == (False, ["RECORD"])


def test_cli_json_and_exit_codes(good, tmp_path, capsys):
    assert main(["--record", good, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["format"] == "fabvote-verify-report" and out["ok"] is True
    assert [s["step"] for s in out["steps"]] == ["record", "blocks", "block-signatures", "ballot-index", "ballots",
                                                "commit-order", "result"]
    assert main(["--record", str(tmp_path / "nothing")]) == 2
    assert main([]) == 2
    capsys.readouterr()


def test_module_entry_point(good):
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(__file__), "..", "src"))
    r = subprocess.run([sys.executable, "-m", "fabvote_verifier", "--record", good, "--json", "--concurrency", "2"],
                       capture_output=True, env=env, text=True)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["ok"] is True


def test_huge_last_block(good):
    p = os.path.join(good, "record.json")
    rec = json.load(open(p))
    rec["lastBlock"] = 10 ** 15
    json.dump(rec, open(p, "w"))
    assert _kinds(good) == (False, ["RECORD"])


def test_receipt(good, tmp_path, capsys):
    """A voter's receipt checks out against the record alone; another
    ballot under the voter's pseudonym is named as not theirs."""
    idx = _index(good)
    with open(os.path.join(good, "record.json")) as f:
        eid = json.load(f)["electionID"]
    rc = {"electionID": eid, "pseudonym": idx[0]["pseudonym"], "ballotHash": idx[0]["ballotHash"], "txID": idx[0]["txID"]}
    p = tmp_path / "receipt.json"
    p.write_text(json.dumps(rc))
    assert main(["--record", good, "--receipt", str(p)]) == 0
    assert "the result counts it" in capsys.readouterr().out
    p.write_text(json.dumps(dict(rc, ballotHash=idx[1]["ballotHash"])))
    assert main(["--record", good, "--receipt", str(p)]) == 1
    assert "not yours" in capsys.readouterr().out
    p.write_text(json.dumps(dict(rc, pseudonym="ab" * 32)))
    assert main(["--record", good, "--receipt", str(p)]) == 1
    assert "was not recorded" in capsys.readouterr().out
    p.write_text("{}")
    assert main(["--record", good, "--receipt", str(p)]) == 2


def test_empty_group_numbered_3(good):
    """RECORD.md 5.1: a group is an unknown field, skipped, even one numbered
    as metadata [3]; the Go verifier agrees (TestTamper)."""
    _write_block(good, 2, _read_block(good, 2) + b"\x1b\x1c")
    assert _kinds(good) == (True, [])


def test_index_past_int64(good):
    """RECORD.md 4: an index of 2^63 or more does not decode, a RECORD
    failure, as in the Go verifier (TestTamper)."""
    idx = _index(good)
    idx[0]["index"] = 1 << 63
    _write_index(good, idx)
    assert _kinds(good) == (False, ["RECORD"])


def test_another_channel_one_failure_per_block(good):
    """RECORD.md 5.2: a record.json naming another channel fails once per
    block, the block's first transaction, as in the Go verifier (TestTamper)."""
    p = os.path.join(good, "record.json")
    with open(p) as f:
        rec = json.load(f)
    rec["channel"] = "other"
    with open(p, "w") as f:
        json.dump(rec, f, separators=(",", ":"))
    rep = verify_record(good)
    assert [f["subject"] for f in rep.failures] == [f"block {n}" for n in range(rec["lastBlock"] + 1)]


@pytest.mark.parametrize("depth,ok", [(10001, True), (10002, False)])
def test_nested_groups(good, depth, ok):
    """Groups nest as deep as protobuf-go allows, as in the Go verifier (TestTamper)."""
    _write_block(good, 2, _read_block(good, 2) + bytes([5 << 3 | 3]) * depth + bytes([5 << 3 | 4]) * depth)
    assert _kinds(good) == (ok, [] if ok else ["BLOCK_CHAIN"])


@pytest.mark.parametrize("name,old,new", [
    ("record.json", '"channel":"fabvote"', '"channel":"fabvote","channel":"fabvote"'),
    ("ballots.json", '"index":', '"index":0,"index":'),
    ("ballots.json", '"index":0', '"index":0.0'),
])
def test_json_read_alike(good, name, old, new):
    """RECORD.md 1: a key twice, or an integer written with a fraction, is a
    RECORD failure, as in the Go verifier (TestTamper)."""
    p = os.path.join(good, name)
    with open(p) as f:
        text = f.read()
    assert old in text
    with open(p, "w") as f:
        f.write(text.replace(old, new, 1))
    assert _kinds(good) == (False, ["RECORD"])


def test_failures_sorted_as_the_go_verifier_sorts_them():
    """RECORD.md 7: kinds in the steps' order, then subject, pseudonym and
    code byte by byte; equal ones keep their order (the Go verifier's
    TestSortFailures, the same vector)."""
    from fabvote_verifier.report import Report
    rep = Report()
    for kind, subject, code, err in [
            ("RESULT", "result", None, "1"), ("BALLOT_INVALID", "ballot b", "TOKEN", ""),
            ("COMMIT_ORDER", "manifest (tx 1)", None, ""), ("BALLOT_INVALID", "ballot b", "PROOF", ""),
            ("RECORD_BALLOTS", "ballot a", None, ""), ("SOMETHING_NEW", "x", None, ""),
            ("BLOCK_CHAIN", "block 10", None, ""), ("BLOCK_CHAIN", "block 2", None, ""),
            ("RESULT", "result", None, "2"), ("MANIFEST", "manifest", None, "")]:
        rep.fail(kind, subject, err, code=code)
    rep.sort_failures()
    got = [f"{f['kind']} {f['subject']} {f.get('code') or ''}{f['error']}" for f in rep.failures]
    assert got == ["BLOCK_CHAIN block 10 ", "BLOCK_CHAIN block 2 ", "RECORD_BALLOTS ballot a ", "MANIFEST manifest ",
                   "BALLOT_INVALID ballot b PROOF", "BALLOT_INVALID ballot b TOKEN", "COMMIT_ORDER manifest (tx 1) ",
                   "RESULT result 1", "RESULT result 2", "SOMETHING_NEW x "]


def test_contests_fixture_result():
    """The 3-contest, 2-style record passes, and the report's result names
    every contest with the manifest's title and options beside the result's
    numbers (RECORD.md 7; the Go verifier's jsonContests)."""
    rep = verify_record(os.path.join(RECORDS, "contests"), workers=1)
    _valid_report(rep)
    assert rep.ok, rep.human()
    assert rep.ballots == {"recorded": 5, "valid": 5, "counted": 5, "late": 0}
    assert rep.result == {"ballotCount": 5, "contests": [
        {"id": "mayor", "title": "Mayor", "options": ["Ana", "Ben", "Cleo", "Dev"],
         "ballots": 5, "counts": [1, 1, 3, 0], "blank": 0, "undervotes": 0},
        {"id": "council", "title": "Council", "options": ["Eli", "Fay", "Gus", "Hal", "Ida"],
         "ballots": 3, "counts": [1, 0, 0, 1, 0], "blank": 1, "undervotes": 2},
        {"id": "referendum", "title": "Referendum", "options": ["Yes", "No"],
         "ballots": 5, "counts": [2, 3], "blank": 0, "undervotes": 0},
    ]}
    human = rep.human()
    assert "contest council (Council): 3 ballot(s), 2 undervote(s), 1 blank" in human
    out = json.loads(rep.dumps_json())
    assert [c["check"] for c in out["checks"]].index("V31") == [c["check"] for c in out["checks"]].index("V20") + 1
    assert all(c["ok"] for c in out["checks"])


def test_contests_bad_ballots_fixture():
    """The five ballots that break a rule of contests or selections, stored
    as valid, each refused with its own code and check (V31 for the contest
    list, V19 for the sum proof's LIMIT); the others counted (the Go
    verifier's TestContestBallotFailures)."""
    rep = verify_record(os.path.join(RECORDS, "contests-bad-ballots"), workers=1)
    _valid_report(rep)
    assert not rep.ok and rep.kinds() == ["BALLOT_INVALID"]
    got = sorted((f["code"], f["check"]) for f in rep.failures)
    assert got == [("CONTEST_MISSING", "V31"), ("CONTEST_ORDER", "V31"), ("CONTEST_REPEAT", "V31"),
                   ("LIMIT", "V19"), ("NOT_IN_STYLE", "V31")]
    assert all(f["pseudonym"] and f["subject"].startswith("ballot " + f["pseudonym"]) for f in rep.failures)
    assert rep.ballots == {"recorded": 10, "valid": 5, "counted": 5, "late": 0}
    assert rep.result["ballotCount"] == 5 and [c["ballots"] for c in rep.result["contests"]] == [5, 3, 5]
    checks = {c["check"]: c["ok"] for c in json.loads(rep.dumps_json())["checks"]}
    assert checks["V19"] is False and checks["V31"] is False and checks["V16"] and checks["V17"]
