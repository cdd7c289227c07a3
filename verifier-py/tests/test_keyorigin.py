"""V33, the key's origin (fabvote_verifier.keyorigin), on the distributed
key committed by the Go package crypto/dkg/keygen/keygentest (a 2-of-3
ceremony, N of 2048 bits) in a manifest: it verifies; a tampered proof,
swapped self-test partials and a wrong ceremony id fail V33; a manifest
whose keyOrigin and keyCeremony disagree, or whose keyCeremony is
malformed, is refused by the manifest's own check (V11)."""

import base64
import json
import os
from dataclasses import replace

import pytest

from conftest import DISTRIBUTED_KEY as KEY
from conftest import RECORDS, missing_fixture
from fabvote_verifier import election, keyorigin
from fabvote_verifier.election import ElectionError, KeyCeremony



@pytest.fixture(scope="module")
def dist():
    """The manifest of the good record with the committed distributed key."""
    path = os.path.join(RECORDS, "good", "manifest.json")
    for f in (KEY, path):
        if not os.path.exists(f):
            pytest.fail(missing_fixture(f))
    with open(KEY) as f:
        k = {n: v if n in ("comment", "selfTest", "keyShares") else base64.b64decode(v) for n, v in json.load(f).items()}
    with open(path, "rb") as f:
        m = election.decode_manifest(f.read())
    return replace(m, paillier_key=k["paillierKey"], threshold=k["threshold"], key_origin="distributed",
                   key_ceremony=KeyCeremony(k["ceremony"], k["modulusProof"], tuple(base64.b64decode(b) for b in k["selfTest"])))


def _ceremony(m, **kw):
    return replace(m, key_ceremony=replace(m.key_ceremony, **kw))


def _flip_last(b: bytes) -> bytes:
    return b[:-1] + bytes([b[-1] ^ 1])


def test_distributed_key_verifies(dist):
    prep = election.prepare_manifest(dist.marshal())
    keyorigin.check_key_origin(prep)
    c, m = keyorigin.selftest_ciphertext(prep.threshold, dist.key_ceremony.id, dist.threshold)
    assert 0 < m < prep.pk.n and 0 < c < prep.pk.n2


def test_dealt_key_passes():
    with open(os.path.join(RECORDS, "good", "manifest.json"), "rb") as f:
        prep = election.prepare_manifest(f.read())
    assert prep.manifest.key_origin == "dealer" and prep.manifest.key_ceremony is None
    keyorigin.check_key_origin(prep)


@pytest.mark.parametrize("name,mut", [
    ("tampered modulus proof", lambda m: _ceremony(m, modulus_proof=_flip_last(m.key_ceremony.modulus_proof))),
    ("swapped self-test partials", lambda m: _ceremony(m, self_test=(m.key_ceremony.self_test[1], m.key_ceremony.self_test[0],
                                                                     *m.key_ceremony.self_test[2:]))),
    ("wrong ceremony id", lambda m: _ceremony(m, id=_flip_last(m.key_ceremony.id))),
])
def test_ceremony_that_does_not_verify(dist, name, mut):
    prep = election.prepare_manifest(mut(dist).marshal())  # well formed: V11 passes
    with pytest.raises(ElectionError) as e:
        keyorigin.check_key_origin(prep)
    assert e.value.code == "MANIFEST", name


@pytest.mark.parametrize("name,field,mut", [
    ("unknown keyOrigin", "keyOrigin", lambda m: replace(m, key_origin="trusted")),
    ("keyCeremony with dealer", "keyCeremony", lambda m: replace(m, key_origin="dealer")),
    ("distributed without keyCeremony", "keyCeremony", lambda m: replace(m, key_ceremony=None)),
    ("distributed without threshold", "threshold", lambda m: replace(m, threshold=b"")),
    ("short ceremony id", "keyCeremony.id", lambda m: _ceremony(m, id=m.key_ceremony.id[1:])),
    ("truncated modulus proof", "keyCeremony.modulusProof", lambda m: _ceremony(m, modulus_proof=m.key_ceremony.modulus_proof[:-1])),
    ("missing self-test partial", "keyCeremony.selfTest", lambda m: _ceremony(m, self_test=m.key_ceremony.self_test[1:])),
    ("malformed self-test partial", "keyCeremony.selfTest[1]", lambda m: _ceremony(
        m, self_test=(m.key_ceremony.self_test[0], m.key_ceremony.self_test[1][:10], *m.key_ceremony.self_test[2:]))),
])
def test_malformed_key_origin_refused(dist, name, field, mut):
    with pytest.raises(ElectionError) as e:
        election.prepare_manifest(mut(dist).marshal())
    assert e.value.code == "MANIFEST" and f"field {field}:" in str(e.value), (name, str(e.value))


def test_key_ceremony_null_not_canonical(dist):
    raw = replace(dist, key_origin="dealer", key_ceremony=None).marshal()
    bad = raw.replace(b'"keyOrigin":"dealer",', b'"keyOrigin":"dealer","keyCeremony":null,')
    with pytest.raises(ElectionError) as e:
        election.prepare_manifest(bad)
    assert e.value.code == "DECODE"
