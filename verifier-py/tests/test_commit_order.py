"""Commit order, late ballots and the ballot index on synthetic transaction
lists built from the good fixture's blocks (no orderer signature needed: the
election checks run after the block checks)."""

import copy
import gzip
import hashlib
import os

import pytest

from conftest import RECORDS
from fabvote_verifier.election import parse_record
from fabvote_verifier.fabric import Tx, Write, parse_block, parse_transactions
from fabvote_verifier.report import Report
from fabvote_verifier.electioncheck import check_election

GOOD = os.path.join(RECORDS, "good")
EID = "record-e1"
MKEY = "\0manifest\0record-e1\0"
RKEY = "\0result\0record-e1\0"
BPREFIX = "\0ballot\0record-e1\0"


def good_txs():
    out = []
    for n in range(5):
        with open(os.path.join(GOOD, "blocks", "%010d.block.gz" % n), "rb") as f:
            out.append(parse_transactions(parse_block(gzip.decompress(f.read()))))
    return out


def index_of(txs, ns="ballot"):
    first = {}
    for n, tl in enumerate(txs):
        for t in tl:
            if not t.valid:
                continue
            for w in t.writes:
                if w.namespace == ns and w.key.startswith(BPREFIX) and not w.is_delete and w.key not in first:
                    first[w.key] = {"pseudonym": w.key[len(BPREFIX):-1],
                                    "ballotHash": hashlib.sha256(parse_record(w.value)[1]).hexdigest(),
                                    "txID": t.tx_id, "block": n, "index": t.index}
    return sorted(first.values(), key=lambda e: e["pseudonym"])


def run(tmp_path, txs, index=None, result=True):
    with open(os.path.join(GOOD, "manifest.json"), "rb") as f:
        manifest = f.read()
    with open(os.path.join(GOOD, "result.json"), "rb") as f:
        result_json = f.read() if result else None
    rec = {"electionID": EID, "channel": "fabvote", "chaincode": "ballot", "lastBlock": len(txs) - 1,
           "_index": index_of(txs) if index is None else index, "_manifest": manifest, "_result": result_json}
    rep = Report()
    check_election(rec, txs, rep, 1)
    return rep


def tx(block_txs, tx_id, writes, valid=True):
    return Tx(len(block_txs), 3, "fabvote", tx_id, valid, 0 if valid else 11, writes)


def ballot_writes(txs):
    return [(n, t, w) for n, tl in enumerate(txs) for t in tl for w in t.writes if w.key.startswith(BPREFIX)]


def test_good(tmp_path):
    rep = run(tmp_path, good_txs())
    assert rep.ok, rep.human()
    assert rep.ballots == {"recorded": 5, "valid": 5, "counted": 5, "late": 0}


def test_ballot_written_twice(tmp_path):
    txs = good_txs()
    n, t, w = ballot_writes(txs)[0]
    txs.append([])
    txs[5].append(tx(txs[5], "again", [copy.copy(w)]))
    rep = run(tmp_path, txs)
    assert rep.kinds() == ["COMMIT_ORDER"], rep.human()


def test_ballot_deleted_before_result(tmp_path):
    txs = good_txs()
    n, t, w = ballot_writes(txs)[0]
    txs[3].append(tx(txs[3], "del", [Write("ballot", w.key, True, b"")]))
    rep = run(tmp_path, txs)
    assert rep.kinds() == ["COMMIT_ORDER"], rep.human()


def test_manifest_rewritten_and_deleted(tmp_path):
    txs = good_txs()
    m = txs[1][0].writes[0]
    txs.append([])
    txs[5].append(tx(txs[5], "m2", [copy.copy(m)]))
    rep = run(tmp_path, txs)
    assert rep.kinds() == ["COMMIT_ORDER"]
    txs[5][0] = tx([], "m3", [Write("ballot", MKEY, True, b"")])
    rep = run(tmp_path, txs)
    assert rep.kinds() == ["COMMIT_ORDER"]


def test_result_rewritten(tmp_path):
    txs = good_txs()
    r = txs[4][0].writes[0]
    txs.append([])
    txs[5].append(tx(txs[5], "r2", [copy.copy(r)]))
    rep = run(tmp_path, txs)
    assert rep.kinds() == ["COMMIT_ORDER"]
    assert "with the same bytes" in rep.failures[0]["error"]


def test_result_deleted(tmp_path):
    txs = good_txs()
    txs.append([])
    txs[5].append(tx(txs[5], "rd", [Write("ballot", RKEY, True, b"")]))
    rep = run(tmp_path, txs)
    assert rep.kinds() == ["COMMIT_ORDER"]


def test_late_ballot_not_counted(tmp_path):
    txs = good_txs()
    moved = txs[3].pop(2)  # a counted ballot commits after the result instead
    txs.append([Tx(0, 3, "fabvote", moved.tx_id, True, 0, moved.writes)])
    rep = run(tmp_path, txs)
    assert [lb["txID"] for lb in rep.late_ballots] == [moved.tx_id]
    assert rep.ballots == {"recorded": 5, "valid": 5, "counted": 4, "late": 1}
    assert rep.kinds() == ["RESULT_COUNT", "RESULT_PRODUCT"], rep.human()


def test_late_in_the_results_block(tmp_path):
    txs = good_txs()
    moved = txs[3].pop(2)
    txs[4].append(Tx(1, 3, "fabvote", moved.tx_id, True, 0, moved.writes))
    rep = run(tmp_path, txs)
    assert rep.ballots["late"] == 1


def test_invalid_transaction_ignored(tmp_path):
    txs = good_txs()
    t = txs[3][2]
    t.valid, t.filter_code = False, 11
    rep = run(tmp_path, txs)
    assert rep.ballots["recorded"] == 4
    assert rep.kinds() == ["RESULT_COUNT", "RESULT_PRODUCT"]


def test_other_namespace_ignored(tmp_path):
    txs = good_txs()
    n, t, w = ballot_writes(txs)[0]
    txs[3].append(tx(txs[3], "other", [Write("othercc", w.key, True, b"")]))
    assert run(tmp_path, txs).ok


def test_record_names_another_transaction(tmp_path):
    txs = good_txs()
    n, t, w = ballot_writes(txs)[0]
    txid, ballot = parse_record(w.value)
    other = "f" * len(txid)
    w.value = b"\x01" + len(other).to_bytes(2, "big") + other.encode() + ballot
    rep = run(tmp_path, txs)
    assert rep.kinds() == ["COMMIT_ORDER"], rep.human()


def test_not_a_ballot_key(tmp_path):
    """A key under the ballot prefix that is no pseudonym (upper-case hex)
    is no ballot: one RECORD_BALLOTS failure for the write, one for the
    entry the index then lacks the write of."""
    txs = good_txs()
    n, t, w = ballot_writes(txs)[0]
    w.key = BPREFIX + w.key[len(BPREFIX):-1].upper() + "\0"
    rep = run(tmp_path, txs, index=[e for e in index_of(good_txs())])
    subjects = sorted(f["subject"] for f in rep.failures if f["kind"] == "RECORD_BALLOTS")
    assert len(subjects) == 2 and subjects[1] == "ballots.json", rep.human()


def test_invalid_ballot_named(tmp_path):
    txs = good_txs()
    n, t, w = ballot_writes(txs)[0]
    v = bytearray(w.value)
    v[-100] ^= 1  # inside the voter's signature
    w.value = bytes(v)
    rep = run(tmp_path, txs)
    bad = [f for f in rep.failures if f["kind"] == "BALLOT_INVALID"]
    assert len(bad) == 1 and bad[0]["code"] == "SIGNATURE"
    assert bad[0]["pseudonym"] == w.key[len(BPREFIX):-1]


def test_no_result(tmp_path):
    txs = good_txs()[:4]
    rep = run(tmp_path, txs, result=False)
    assert rep.kinds() == ["RESULT_MISSING"]
    assert rep.ballots["counted"] == 0  # RECORD.md 7: 0 when there is no result


def test_no_manifest_write(tmp_path):
    txs = good_txs()
    index = index_of(txs)
    txs[1] = []
    rep = run(tmp_path, txs, index=index)
    # every index entry is out of range, and the result counts no ballot
    assert rep.kinds() == ["COMMIT_ORDER", "RECORD_BALLOTS", "RESULT_COUNT", "RESULT_PRODUCT"], rep.human()
    assert rep.ballots["recorded"] == 0


def test_result_json_but_no_result_write(tmp_path):
    txs = good_txs()[:4]
    rep = run(tmp_path, txs)
    assert rep.kinds() == ["SOURCE"], rep.human()
