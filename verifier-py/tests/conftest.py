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
LAYOUTS = os.path.join(ROOT, "crypto", "votecode", "testdata", "layouts.json")
THRESHOLD_V2 = os.path.join(ROOT, "crypto", "paillier", "threshold", "testdata", "v2_vector.json")
DISTRIBUTED_KEY = os.path.join(ROOT, "crypto", "dkg", "keygen", "keygentest", "testdata", "distributed-key.json")

# How each committed fixture is written again, from the repository root.
# No make target writes them: the Go tests that check them rewrite them
# with -update; the fixed test keys are never generated, only restored.
_RECORDS_HOW = "write it with `go test ./internal/record -run TestFixtures -update`"
_KEY_HOW = "a fixed test key (crypto/zkp/testdata/README), never generated: restore it with `git checkout`"
FIXTURES = {
    os.path.join(RECORDS, "good"): _RECORDS_HOW,
    os.path.join(RECORDS, "expected.json"): _RECORDS_HOW,
    os.path.join(ZKP_DATA, "vectors.json"): "write it with `go test ./crypto/zkp -run TestKnownAnswerVectors -update`",
    os.path.join(ZKP_DATA, "key2048.pem"): _KEY_HOW,
    os.path.join(ZKP_DATA, "key3072.pem"): _KEY_HOW,
    LAYOUTS: "write it with `go test ./crypto/votecode -run TestLayoutVectors -update`",
    THRESHOLD_V2: "write it with `go test ./crypto/paillier/threshold -run TestVersion2Vector -update`",
    DISTRIBUTED_KEY: "write it with `go test ./crypto/dkg/keygen/keygentest -update`",
}


def missing_fixture(path: str) -> str:
    """The message for a fixture that is not there: the file, and how it is
    written again (a file of a record fixture: as its record is)."""
    how = FIXTURES.get(path) or (_RECORDS_HOW if path.startswith(RECORDS + os.sep) else "restore it with `git checkout`")
    return f"missing test fixture {os.path.relpath(path, ROOT)}: {how}"


def pytest_sessionstart(session):
    """The committed fixtures are the tests' inputs: without them the run
    fails at once, so that no test passes for want of its input."""
    missing = [missing_fixture(p) for p in FIXTURES if not os.path.exists(p)]
    if missing:
        pytest.exit("\n".join(missing), returncode=1)


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
    """The validity-proof vectors: none at all fails, or a test that loops
    over them would pass on nothing."""
    path = os.path.join(ZKP_DATA, "vectors.json")
    with open(path) as f:
        vs = json.load(f)["vectors"]
    assert vs, f"no vector in {os.path.relpath(path, ROOT)}: {FIXTURES[path]}"
    return vs


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
