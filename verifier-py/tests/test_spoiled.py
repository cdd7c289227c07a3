"""Spoiled ballots (docs/VERIFY.md V32): the strict decoding, the tracker
and the check of an opening, on gen_record's three-contest election,
written from docs/PROTOCOL.md and docs/VERIFY.md."""

import argparse
import hashlib
import os
import secrets
import sys
from dataclasses import replace

import pytest

from fabvote_verifier import election
from fabvote_verifier.election import ElectionError
from fabvote_verifier.layout import BLANK
from fabvote_verifier.spoiled import (Spoiled, check_spoiled, ciphertext_digest, parse_claim, parse_spoiled, tracker)

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import gen_record  # noqa: E402


@pytest.fixture(scope="module")
def prep():
    mraw, _ = gen_record.make_election(argparse.Namespace(contests="multi", nonce_pool=1))
    return election.prepare_manifest(mraw)


def _spoil(prep, style, sels):
    """A spoiled ballot of style encrypting sels (one per contest of the
    style: option indices or BLANK), with fresh nonces."""
    pk, contests = prep.pk, prep.style_contests[style]
    cts, ms, rs = [], [], []
    for ci, sel in zip(contests, sels):
        enc = prep.layout.contests[ci].encode((), True) if sel is BLANK else prep.layout.contests[ci].encode(sel)
        for m in enc.plaintexts:
            r = secrets.randbelow(pk.n - 2) + 2
            c = (1 + m * pk.n) * pow(r, pk.n, pk.n2) % pk.n2
            cts.append(c.to_bytes(pk.ciphertext_len, "big"))
            ms.append(m)
            rs.append(r)
    return Spoiled(prep.manifest.election_id, tuple(contests), tuple(cts), tuple(ms), tuple(rs))


def test_tracker_is_the_length_prefixed_digest():
    want = hashlib.sha256(b"\0\0\0\x12fabvote/tracker/v1" + b"\0\0\0\x01e" + b"\0\0\0\x02\x00\x02" + b"\0\0\0\x01\xff").digest()
    assert tracker("e", b"\x00\x02", b"\xff") == want


@pytest.mark.parametrize("style,sels", [(0, ((1,), (0, 3), (1,))), (0, ((0,), BLANK, (0,))), (1, ((3,), (1,)))])
def test_opening_reveals_the_choice(prep, style, sels):
    s = _spoil(prep, style, sels)
    assert parse_spoiled(s.marshal()) == s
    assert check_spoiled(prep, s) == list(sels)


def _with(s, **kw):
    return replace(s, **kw)


def _bump(t, i, f):
    return tuple(f(x) if k == i else x for k, x in enumerate(t))


# Each kind of bad spoiled ballot, with the code CheckSpoiled gives it.
BAD = {
    "plaintext changed": (lambda p, s: _with(s, plaintexts=_bump(s.plaintexts, 0, lambda m: m << p.layout.bits)), "OPENING"),
    "nonce changed": (lambda p, s: _with(s, nonces=_bump(s.nonces, 0, lambda r: r + 1)), "OPENING"),
    "nonce zero": (lambda p, s: _with(s, nonces=_bump(s.nonces, 0, lambda r: 0)), "OPENING"),
    "nonce not below N": (lambda p, s: _with(s, nonces=_bump(s.nonces, 0, lambda r: r + p.pk.n)), "OPENING"),
    "ciphertext not in range": (lambda p, s: _with(s, ciphertexts=_bump(s.ciphertexts, 1, lambda c: b"\0" * len(c))), "CIPHERTEXT"),
    "ciphertexts short": (lambda p, s: _with(s, ciphertexts=tuple(c[1:] for c in s.ciphertexts)), "CIPHERTEXT"),
    "a ciphertext less": (lambda p, s: _with(s, ciphertexts=s.ciphertexts[:-1], plaintexts=s.plaintexts[:-1], nonces=s.nonces[:-1]), "CIPHERTEXT"),
    "other election": (lambda p, s: _with(s, election_id="other"), "NO_ELECTION"),
    "contest missing": (lambda p, s: _with(s, contests=s.contests[:2]), "CONTEST_MISSING"),
    "contest order": (lambda p, s: _with(s, contests=(1, 0, 2)), "CONTEST_ORDER"),
    "contest repeat": (lambda p, s: _with(s, contests=(0, 0, 2)), "CONTEST_REPEAT"),
    "contest unknown": (lambda p, s: _with(s, contests=(0, 1, 9)), "NOT_IN_STYLE"),
    "contest beyond the limit": (lambda p, s: _with(s, contests=(0, 1, 32)), "DECODE"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_spoiled_refused(prep, name):
    mut, code = BAD[name]
    s = mut(prep, _spoil(prep, 0, ((2,), (1, 4), (0,))))
    with pytest.raises(ElectionError) as e:
        check_spoiled(prep, parse_spoiled(s.marshal()))
    assert e.value.code == code, e.value


def test_invalid_selection_with_a_true_opening_refused(prep):
    """A plaintext that is no valid selection (two options of a 1-of-4
    contest) is refused even though it opens its ciphertext."""
    s = _spoil(prep, 1, ((0,), (1,)))
    pk, m = prep.pk, s.plaintexts[0] | s.plaintexts[0] << prep.layout.bits
    c = (1 + m * pk.n) * pow(s.nonces[0], pk.n, pk.n2) % pk.n2
    s = _with(s, plaintexts=_bump(s.plaintexts, 0, lambda _: m), ciphertexts=_bump(s.ciphertexts, 0, lambda _: c.to_bytes(pk.ciphertext_len, "big")))
    with pytest.raises(ElectionError) as e:
        check_spoiled(prep, s)
    assert e.value.code == "OPENING" and "no valid selection" in str(e.value)


DECODE = {
    "a key twice": lambda b: b.replace(b'"version":1,', b'"version":1,"version":1,'),
    "keys reordered": lambda b: b.replace(b'"format":"fabvote/spoiled-ballot","version":1', b'"version":1,"format":"fabvote/spoiled-ballot"'),
    "unknown key": lambda b: b[:-1] + b',"x":1}',
    "version 2": lambda b: b.replace(b'"version":1', b'"version":2'),
    "format": lambda b: b.replace(b"fabvote/spoiled-ballot", b"fabvote/spoiled-ballots"),
    "upper-case hex": lambda b: b.replace(b'"ciphertexts":["', b'"ciphertexts":["A', 1).replace(b'","', b'0","', 1),
    "leading zero": lambda b: b.replace(b'"plaintext":"', b'"plaintext":"0', 1),
    "a space": lambda b: b.replace(b'"version":1', b'"version": 1'),
    "not JSON": lambda b: b[:-1],
    "ciphertexts of two lengths": lambda b: b.replace(b'"ciphertexts":["', b'"ciphertexts":["00', 1),
    "version as a float": lambda b: b.replace(b'"version":1', b'"version":1.0'),
}


@pytest.mark.parametrize("name", sorted(DECODE))
def test_decode_refused(prep, name):
    raw = DECODE[name](_spoil(prep, 1, ((0,), (1,))).marshal())
    with pytest.raises(ElectionError) as e:
        parse_spoiled(raw)
    assert e.value.code == "DECODE"


def test_opening_count_refused(prep):
    """An opening of fewer ciphertexts than the ballot has is refused by
    the decoding already."""
    s = _spoil(prep, 1, ((0,), (1,)))
    with pytest.raises(ElectionError) as e:
        parse_spoiled(replace(s, plaintexts=s.plaintexts[:-1], nonces=s.nonces[:-1]).marshal())
    assert e.value.code == "DECODE" and "opened" in str(e.value)


def test_size_refused():
    with pytest.raises(ElectionError) as e:
        parse_spoiled(b" " * (64 * 1024 + 1))
    assert e.value.code == "SIZE"


CLAIM = b'{"format":"fabvote/ciphertext-claim","version":1,'


@pytest.mark.parametrize("raw,want", [
    (CLAIM + b'"cast":"' + b"ab" * 32 + b'"}', ("cast", "ab" * 32)),
    (CLAIM + b'"spoiled":"' + b"cd" * 32 + b'"}', ("spoiled", "cd" * 32)),
    (CLAIM + b'"cast":"' + b"AB" * 32 + b'"}', None),  # upper-case hex
    (CLAIM.replace(b",", b", ", 1) + b'"cast":"' + b"ab" * 32 + b'"}', None),  # a space
    (CLAIM + b'"cast":"' + b"ab" * 31 + b'"}', None),  # a short holder
    (CLAIM + b'"cast":"' + b"ab" * 32 + b'","spoiled":"' + b"cd" * 32 + b'"}', None),  # both
    (CLAIM[:-1] + b'}', None),  # neither
    (b'{"format":"fabvote/tracker-claim","version":1,"cast":"' + b"ab" * 32 + b'"}', None),  # the old format
])
def test_claim(raw, want):
    assert parse_claim(raw) == want


def test_ciphertext_digest():
    """The claim key's attribute: SHA-256 of the length-prefixed tag and
    ciphertext."""
    import hashlib
    c = bytes(range(7))
    want = hashlib.sha256(b"\0\0\0\x15fabvote/ciphertext/v1\0\0\0\x07" + c).digest()
    assert ciphertext_digest(c) == want


def test_go_vector():
    """election/testdata/spoiled-ballot.json, written by the Go code: this
    decoder takes its spoiled ballot as canonical, computes the same
    tracker and reveals the same selections."""
    import json
    from conftest import ROOT
    with open(os.path.join(ROOT, "election", "testdata", "spoiled-ballot.json")) as f:
        v = json.load(f)
    compact = lambda x: json.dumps(x, separators=(",", ":"), ensure_ascii=False).encode()  # noqa: E731
    p = election.prepare_manifest(compact(v["manifest"]))
    s = parse_spoiled(compact(v["spoiled"]))
    assert s.tracker().hex() == v["tracker"]
    want = [BLANK if sel["Blank"] else tuple(sel["Options"] or ()) for sel in v["selections"]]
    assert check_spoiled(p, s) == want
