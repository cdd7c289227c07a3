"""Checking ballots against a manifest, in parallel chunks: decoding, key,
ciphertext, token, voter signature, validity proof (batched)."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

from . import zkp
from .election import ElectionError, Prepared, parse_ballot, prepare_manifest, token_digest
from .sigs import p256_point, verify_digest_rs

CHUNK = 1024


@dataclass
class BallotVerdict:
    seq: int
    kind: str | None = None  # None: valid
    code: str | None = None
    error: str | None = None
    ciphertext: int | None = None
    pseudonym_hex: str | None = None


_PREP: Prepared | None = None


def _init(manifest_raw: bytes):
    global _PREP
    _PREP = prepare_manifest(manifest_raw)


def check_chunk(items: list, prep: Prepared | None = None) -> list:
    """items: [(seq, key_pseudonym_attr, ballot_bytes)]."""
    prep = prep or _PREP
    ctx = prep.zkp_context
    m = prep.manifest
    out = []
    pending = []  # (verdict, c, proof)
    for seq, key_attr, raw in items:
        v = BallotVerdict(seq)
        out.append(v)
        try:
            b = parse_ballot(raw)
        except ElectionError as e:
            v.kind, v.code, v.error = "BALLOT_DECODE", e.code, str(e)
            continue
        ph = b.pseudonym.hex()
        v.pseudonym_hex = ph
        # The order of docs/VERIFY.md's ballot step: the key, then the shape.
        if key_attr != ph:
            v.kind, v.error = "BALLOT_KEY", f"stored under {key_attr!r}, but its token's pseudonym is {ph}"
            continue
        if b.election_id != m.election_id:
            # as the contract answers a ballot for an election it does not hold
            v.kind, v.code = "BALLOT_INVALID", "NO_ELECTION"
            v.error = f"ballot is for election {b.election_id!r}, not {m.election_id!r}"
            continue
        if len(b.ciphertext) != prep.pk.ciphertext_len:
            v.kind, v.code, v.error = "BALLOT_INVALID", "CIPHERTEXT", f"ciphertext has {len(b.ciphertext)} bytes, want {prep.pk.ciphertext_len}"
            continue
        if len(b.proof) != ctx.proof_len():
            v.kind, v.code, v.error = "BALLOT_INVALID", "PROOF", f"proof has {len(b.proof)} bytes, want {ctx.proof_len()}"
            continue
        c = int.from_bytes(b.ciphertext, "big")
        if not prep.pk.in_zstar_n2(c):
            v.kind, v.code, v.error = "BALLOT_INVALID", "CIPHERTEXT", "ciphertext not in Z*_{N²}"
            continue
        td = token_digest(prep.digest, m.election_id, b.pseudonym, b.voter_pub)
        if not verify_digest_rs(prep.token_key, td, b.token[32:]):
            v.kind, v.code, v.error = "BALLOT_INVALID", "TOKEN", "the EA token does not verify"
            continue
        if not verify_digest_rs(p256_point(b.voter_pub), b.signing_digest(), b.signature):
            v.kind, v.code, v.error = "BALLOT_INVALID", "SIGNATURE", "the voter signature does not verify"
            continue
        try:
            pr = zkp.parse_proof(ctx, b.proof)
            zkp.check_structure(ctx, c, b.pseudonym, hashlib.sha256(b.voter_pub).digest(), pr)
        except zkp.ProofError as e:
            v.kind, v.code, v.error = "BALLOT_INVALID", "PROOF", f"validity proof: {e}"
            continue
        v.ciphertext = c
        pending.append((v, c, pr))
    if pending:
        bad = zkp.verify_batch(ctx, [(c, pr) for _, c, pr in pending])
        for i in bad:
            v = pending[i][0]
            v.kind, v.code, v.error = "BALLOT_INVALID", "PROOF", "validity proof does not verify"
            v.ciphertext = None
    return out


def check_all(manifest_raw: bytes, prep: Prepared, items: list, workers: int) -> list:
    chunks = [items[i:i + CHUNK] for i in range(0, len(items), CHUNK)]
    if workers <= 1 or len(chunks) <= 1:
        res = []
        for ch in chunks:
            res.extend(check_chunk(ch, prep))
        return res
    import multiprocessing as mp
    ctx = mp.get_context("fork") if hasattr(os, "fork") else mp.get_context()
    with ctx.Pool(workers, initializer=_init, initargs=(manifest_raw,)) as pool:
        res = []
        for part in pool.imap(check_chunk, chunks):
            res.extend(part)
    return res
