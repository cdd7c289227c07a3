import base64
import hashlib
import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(HERE, "..", "src"))

from fabvote_verifier import paillier, zkp  # noqa: E402

ZKP_DATA = os.path.join(ROOT, "crypto", "zkp", "testdata")
RECORDS = os.path.join(ROOT, "internal", "record", "testdata", "records")


def pytest_sessionstart(session):
    """The committed fixtures are the tests' inputs: without them the run
    fails at once, so that no test passes for want of its input."""
    for d in (os.path.join(RECORDS, "good"), ZKP_DATA):
        if not os.path.isdir(d):
            pytest.exit(f"missing test fixtures: {d}", returncode=1)


def read_test_key(name):
    """N from a FIXED TEST KEY file: "FVSK" 0x01 ‖ u16 len ‖ p ‖ u16 len ‖ q."""
    lines = open(os.path.join(ZKP_DATA, name)).read().splitlines()
    b = base64.b64decode("".join(l for l in lines if l and not l.startswith("-----")))
    assert b[:5] == b"FVSK\x01"
    lp_ = int.from_bytes(b[5:7], "big")
    p = int.from_bytes(b[7:7 + lp_], "big")
    o = 7 + lp_
    lq = int.from_bytes(b[o:o + 2], "big")
    q = int.from_bytes(b[o + 2:o + 2 + lq], "big")
    return p, q


def load_vectors():
    with open(os.path.join(ZKP_DATA, "vectors.json")) as f:
        return json.load(f)["vectors"]


class KAT:
    """One validity-proof vector, decoded: the test inputs are hashed with
    SHA-256 into the manifest digest, the pseudonym and the voter-key hash
    (crypto/zkp/testdata; encodingBits = bit length of max_voters)."""

    def __init__(self, v):
        self.v = v
        p, q = read_test_key(v["key_file"])
        self.p, self.q = p, q
        self.pk = paillier.PublicKey(p * q)
        bits = int(v["max_voters"]).bit_length()
        msgs = [1 << (bits * k) for k in range(int(v["candidates"]))]
        self.ctx = zkp.Context(hashlib.sha256(v["manifest"].encode()).digest(), v["election_id"], self.pk, msgs,
                               int(v["challenge_bits"]))
        self.c = int(v["ciphertext"], 16)
        self.proof_bytes = bytes.fromhex(v["proof"])
        self.pseudonym = hashlib.sha256(v["pseudonym"].encode()).digest()
        self.vkh = hashlib.sha256(v["voter_key"].encode()).digest()

    def proof(self):
        return zkp.parse_proof(self.ctx, self.proof_bytes)


@pytest.fixture(scope="session")
def kats():
    return [KAT(v) for v in load_vectors()]
