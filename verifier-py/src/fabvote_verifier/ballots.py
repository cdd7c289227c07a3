"""Checking ballots against a manifest, in parallel chunks: decoding, key,
election, style and contests, ciphertexts, token, voter signature,
validity proofs (batched, every statement of every ballot)."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

from . import zkp
from .election import (ElectionError, Prepared, check_ballot_contests, check_style, parse_ballot, prepare_manifest,
                       token_digest)
from .sigs import p256_point, verify_digest_rs

CHUNK = 1024


@dataclass
class BallotVerdict:
    seq: int
    kind: str | None = None  # None: valid
    code: str | None = None
    error: str | None = None
    ciphertexts: list | None = None  # a valid ballot's ciphertexts, contest after contest
    contests: tuple | None = None  # the contests it answers (manifest indices, in order)
    pseudonym_hex: str | None = None

    def invalid(self, code: str, error: str) -> None:
        self.kind, self.code, self.error = "BALLOT_INVALID", code, error
        self.ciphertexts = self.contests = None


_PREP: Prepared | None = None


def _init(manifest_raw: bytes):
    global _PREP
    _PREP = prepare_manifest(manifest_raw)


def _ciphertexts(prep: Prepared, b) -> list:
    """The ballot's ciphertexts, each in Z*_{N²} (CIPHERTEXT otherwise)."""
    w = prep.pk.ciphertext_len
    cs = [int.from_bytes(b.ciphertext[i:i + w], "big") for i in range(0, len(b.ciphertext), w)]
    for i, c in enumerate(cs):
        if not prep.pk.in_zstar_n2(c):
            what = "ciphertext" if len(cs) == 1 else f"ciphertext {i}"
            raise ElectionError("CIPHERTEXT", f"{what} not in Z*_{{N²}}")
    return cs


def _statement_ciphertext(prep: Prepared, st, cs: list, first: int) -> int:
    """Π cs[first+slot]^exp over the statement's slots mod N²: the
    ciphertext its proof is about (the contest's own for a statement on one
    ciphertext)."""
    x = 1
    for slot, e in zip(st.statement.slots, st.statement.exps):
        x = x * pow(cs[first + slot], e, prep.pk.n2) % prep.pk.n2
    return x


def _proof_items(prep: Prepared, b, contests: tuple, cs: list) -> list:
    """(StatementAt, context, ciphertext, Proof) per statement of the
    ballot's contests, in ballot order; a proof that does not decode is
    PROOF (ProofError), whatever its statement."""
    items, first, off = [], 0, 0
    for ci in contests:
        for st, ctx in zip(prep.statements[ci], prep.contexts[ci]):
            pr = zkp.parse_proof(ctx, b.proof[off:off + st.proof_len])
            items.append((st, ctx, _statement_ciphertext(prep, st, cs, first), pr))
            off += st.proof_len
        first += prep.layout.contests[ci].ciphertexts
    return items


def _proof_failure(st, n: int, i: int, why: str) -> tuple:
    """The code and error of a ballot whose statement i (of n) fails: LIMIT
    for a per-option contest's sum proof, PROOF for any other."""
    where = "" if n == 1 else f" (proof {i}, contest {st.contest} statement {st.index})"
    if st.is_sum:
        return "LIMIT", f"the sum proof of contest {st.contest} does not verify: its selections break the contest's limits{where}"
    return "PROOF", f"validity proof {why}{where}"


def _check_one(prep: Prepared, key_attr: str, raw: bytes, v: BallotVerdict):
    """The checks up to the proofs, in the order of docs/VERIFY.md's ballot
    step and the contests spec: decoding, key, election, style, contests,
    lengths, ciphertexts, token, signature, proof decoding. Returns the
    ballot's proof items and ciphertexts, or None after setting v."""
    m = prep.manifest
    try:
        b = parse_ballot(raw)
    except ElectionError as e:
        v.kind, v.code, v.error = "BALLOT_DECODE", e.code, str(e)
        return None
    ph = b.pseudonym.hex()
    v.pseudonym_hex = ph
    if key_attr != ph:
        v.kind, v.error = "BALLOT_KEY", f"stored under {key_attr!r}, but its token's pseudonym is {ph}"
        return None
    if b.election_id != m.election_id:
        # as the contract answers a ballot for an election it does not hold
        v.invalid("NO_ELECTION", f"ballot is for election {b.election_id!r}, not {m.election_id!r}")
        return None
    try:
        check_style(prep, b)
        contests = check_ballot_contests(prep, b)
        if len(b.ciphertext) != prep.ciphertext_len(contests):
            raise ElectionError("CIPHERTEXT", f"ciphertext has {len(b.ciphertext)} bytes, want {prep.ciphertext_len(contests)}")
        if len(b.proof) != prep.proof_len(contests):
            raise ElectionError("PROOF", f"proof has {len(b.proof)} bytes, want {prep.proof_len(contests)}")
        cs = _ciphertexts(prep, b)
    except ElectionError as e:
        v.invalid(e.code, str(e))
        return None
    td = token_digest(prep.digest, m.election_id, b.pseudonym, b.style, b.voter_pub)
    if not verify_digest_rs(prep.token_key, td, b.token_sig):
        v.invalid("TOKEN", "the EA token does not verify")
        return None
    if not verify_digest_rs(p256_point(b.voter_pub), b.signing_digest(), b.signature):
        v.invalid("SIGNATURE", "the voter signature does not verify")
        return None
    try:
        items = _proof_items(prep, b, contests, cs)
    except zkp.ProofError as e:
        v.invalid("PROOF", f"validity proof: {e}")
        return None
    v.ciphertexts, v.contests = cs, contests
    return b, items


def check_chunk(items: list, prep: Prepared | None = None) -> list:
    """items: [(seq, key_pseudonym_attr, ballot_bytes)]. A ballot's verdict
    on its proofs is its first statement that fails (ballot order): the
    statements before the first whose challenge fails go to one batch."""
    prep = prep or _PREP
    out = []
    pending = []  # (verdict, [(statement index, StatementAt)], first failing (i, StatementAt, why) or None)
    batch = []  # (c, Proof, Context)
    for seq, key_attr, raw in items:
        v = BallotVerdict(seq)
        out.append(v)
        got = _check_one(prep, key_attr, raw, v)
        if got is None:
            continue
        b, its = got
        vkh = hashlib.sha256(b.voter_pub).digest()
        batched, failed = [], None
        for i, (st, ctx, c, pr) in enumerate(its):
            try:
                zkp.check_structure(ctx, c, b.pseudonym, vkh, pr)
            except zkp.ProofError as e:
                failed = (i, st, f"does not verify: {e}")
                break
            batched.append((i, st, len(batch)))
            batch.append((c, pr, ctx))
        pending.append((v, len(its), batched, failed))
    bad = set(zkp.verify_batch(prep.context([]), batch)) if batch else set()
    for v, n, batched, failed in pending:
        first = next(((i, st, "does not verify") for i, st, pos in batched if pos in bad), failed)
        if first is not None:
            v.invalid(*_proof_failure(first[1], n, first[0], first[2]))
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
