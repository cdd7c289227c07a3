"""Πmod (fabvote_verifier.pimod) on the proofs committed by the Go package
crypto/dkg/wellformed: they verify; tampered ones and other moduli are
refused. Runs under pytest and under `python -m unittest`."""

import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(HERE, "..", "src"))

from fabvote_verifier import pimod  # noqa: E402

VECTORS = os.path.join(ROOT, "crypto", "dkg", "wellformed", "testdata", "vectors.json")


def load():
    with open(VECTORS) as f:
        vs = json.load(f)["vectors"]
    assert vs, f"no vector in {VECTORS}: write it with `go test ./crypto/dkg/wellformed -run TestVectors -update`"
    return [(v["name"], int(v["p"], 16), int(v["q"], 16), int(v["n"], 16),
             bytes.fromhex(v["ceremony"]), bytes.fromhex(v["proof"])) for v in vs]


class PimodVectors(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.vectors = load()
        # the smallest vector, for the refusals
        cls.small = min(cls.vectors, key=lambda v: v[3])

    def test_go_vectors_verify(self):
        for name, p, q, n, cer, proof in self.vectors:
            with self.subTest(name):
                self.assertEqual(p * q, n)
                pimod.verify(n, cer, proof)

    def refused(self, n, cer, proof, msg):
        with self.assertRaises(pimod.PimodError) as cm:
            pimod.verify(n, cer, proof)
        self.assertIn(msg, str(cm.exception))

    def test_tampered_proofs_refused(self):
        _, p, q, n, cer, proof = self.small
        w = (n.bit_length() + 7) // 8
        x1 = 5 + w + 1          # offset of x_1
        z1 = x1 + w             # offset of z_1

        def bump(b, off):       # add 1 to the element at off (stays below N here)
            v = int.from_bytes(b[off:off + w], "big") + 1
            return b[:off] + v.to_bytes(w, "big") + b[off + w:]

        flags = 5 + w
        cases = [
            ("x_1 + 1", bump(proof, x1), "challenge 1: x^4"),
            ("z_1 + 1", bump(proof, z1), "challenge 1: z^N"),
            ("a_1 flipped", proof[:flags] + bytes([proof[flags] ^ 1]) + proof[flags + 1:], "challenge 1: x^4"),
            ("b_1 flipped", proof[:flags] + bytes([proof[flags] ^ 2]) + proof[flags + 1:], "challenge 1: b"),
            ("unknown flag bit", proof[:flags] + bytes([proof[flags] | 4]) + proof[flags + 1:], "unknown bits"),
            ("truncated", proof[:-1], "length"),
            ("oversized", proof + b"\0", "length"),
            ("version 2", proof[:4] + b"\2" + proof[5:], "version"),
        ]
        for name, bad, msg in cases:
            with self.subTest(name):
                self.refused(n, cer, bad, msg)

    def test_wrong_ceremony_refused(self):
        _, _, _, n, cer, proof = self.small
        self.refused(n, cer + b"x", proof, "not the one derived")

    def test_other_moduli_refused(self):
        _, p, q, n, cer, proof = self.small
        for name, m, msg in [("a prime", p, "prime"), ("even", 2 * n, "odd"),
                             ("factor below 2^20", 1048573 * p, "below 2^20")]:
            with self.subTest(name):
                self.refused(m, cer, proof, msg)

    def test_stream_and_jacobi_match_go(self):
        # crypto/internal/zn TestStreamVector and crypto/dkg/biprime TestBaseVector
        self.assertEqual(next(pimod.stream(0xfffffffb, b"fabvote", (7).to_bytes(4, "big"))), 3501834796)
        self.assertEqual(pimod.jacobi(2, 7), 1)
        self.assertEqual(pimod.jacobi(3, 7), -1)
        self.assertEqual(pimod.jacobi(7, 21), 0)


if __name__ == "__main__":
    unittest.main()
