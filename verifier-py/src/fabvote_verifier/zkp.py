"""The 1-out-of-p validity proof of a fabvote ballot: decoding, the
Fiat–Shamir challenge, and batch verification with random small exponents.

Statement, for c and candidate encodings M^0 … M^(p-1): some
u_k = c·(1+N)^(-M^k) = c·(1 - M^k·N) mod N² is an N-th residue.
A proof is p branches (a_k, e_k, z_k); it is valid when

  (1) c, a_k ∈ Z*_{N²};  z_k ∈ Z*_N, z_k < N/2;  e_k < 2^t,
  (2) Σ e_k ≡ e (mod 2^t), e the Fiat–Shamir challenge,
  (3) w_k² = 1 for every k, w_k = z_k^N · a_k^(-1) · u_k^(-e_k) mod N².

Batch verification (verify_batch)
---------------------------------
For a set B of ballots under one N whose proofs passed (1) and (2), draw
independent uniform weights ρ_{ik} ∈ [0, 2^64) with `secrets` *after* the
ballots are fixed and check the single equation

  ((∏ z_{ik}^{ρ_{ik}} mod N)^N)²
      ≡ (∏ a_{ik}^{ρ_{ik}} · ∏_i c_i^{Σ_k e_{ik}ρ_{ik}} · (1 − N·Σ e_{ik}ρ_{ik}M^k))²   (mod N²),

i.e. ∏_{i,k} w_{ik}^{2ρ_{ik}} = 1, using (x mod N)^N ≡ x^N (mod N²) and
(1+N)^y ≡ 1 + yN (mod N²).

Completeness: a valid proof has w_{ik}² = 1 exactly, so a batch of valid
proofs passes for every choice of weights; in particular a check of a single
ballot (|B| = 1) fails only for an invalid ballot, so the ballot this module
names is always one whose proof is invalid.

Soundness (of the statement): write Z*_{N²} ≅ C_N × R with C_N = ⟨1+N⟩ and
μ the projection onto Z_N (every x = (1+N)^{μ(x)} s^N).  μ is a homomorphism
killing every N-th power and every element of order 2, so applying it to the
equation gives 2·Σ ρ_{ik}·δ_{ik} ≡ 0 (mod N) with δ_{ik} = μ(a_{ik}) +
e_{ik}·μ(u_{ik}) (mod N), because μ(z^N) = N·μ(z) ≡ 0; 2 is invertible mod N.
A ballot whose proof is wrong in the C_N component has some δ_{jm} ≢ 0.  Fix
every weight but ρ_{jm}: two passing values ρ ≠ ρ' would give
(ρ − ρ')·δ_{jm} ≡ 0 (mod N) with 0 < |ρ − ρ'| < 2^64 < min(p, q) (N's prime
factors have |N|/2 ≥ 1024 bits), so at most one of the 2^64 values passes:
the batch accepts with probability ≤ 2^-64, and the weights are unknown to
whoever made the ballots.  A failing batch is split in halves with fresh
weights down to single ballots; a bad ballot meets at most ⌈log2 |B|⌉ + 1
checks, so it escapes with probability ≤ (⌈log2 |B|⌉+1)·2^-64.  Elements of
small order lie in R and are killed by μ, so they cannot help a cheater get
a wrong vote counted.  (A proof altered only in the R component by someone
who can factor N — e.g. z multiplied by a non-trivial square root of 1 —
proves a true statement; the deterministic check (3) rejects it while a
weighted check may accept it with probability 1/d, d its order: see
crypto/zkp's documentation.  Finding such an element is as hard as factoring
N.)
"""

from __future__ import annotations

import hashlib
import math
import secrets
from dataclasses import dataclass

from .paillier import PublicKey, fixed, minimal_bytes

VALIDITY_TAG = b"fabvote/zkp/validity/v2"
RHO_BITS = 64


class ProofError(ValueError):
    pass


@dataclass
class Context:
    manifest_digest: bytes
    election_id: str
    pk: PublicKey
    messages: list  # M^k
    challenge_bits: int

    def proof_len(self) -> int:
        return len(self.messages) * (self.pk.ciphertext_len + self.challenge_bits // 8 + self.pk.modulus_len)


def lp(b: bytes) -> bytes:
    return len(b).to_bytes(4, "big") + b


def challenge(ctx: Context, pseudonym: bytes, voter_key_hash: bytes, c: int, a: list) -> int:
    w = ctx.pk.ciphertext_len
    t = ctx.challenge_bits
    h = hashlib.sha256()
    h.update(lp(VALIDITY_TAG))
    h.update(lp(t.to_bytes(4, "big")))
    h.update(lp(ctx.manifest_digest))
    h.update(lp(ctx.election_id.encode()))
    h.update(lp(minimal_bytes(ctx.pk.n)))
    h.update(lp(len(ctx.messages).to_bytes(4, "big")))
    for m in ctx.messages:
        h.update(lp(minimal_bytes(m)))
    h.update(lp(pseudonym))
    h.update(lp(voter_key_hash))
    h.update(lp(fixed(c, w)))
    for ak in a:
        h.update(lp(fixed(ak, w)))
    return int.from_bytes(h.digest()[: t // 8], "big")


@dataclass
class Proof:
    a: list
    e: list
    z: list


def parse_proof(ctx: Context, b: bytes) -> Proof:
    if len(b) != ctx.proof_len():
        raise ProofError(f"proof has {len(b)} bytes, want {ctx.proof_len()}")
    n, n2 = ctx.pk.n, ctx.pk.n2
    wa, we, wz = ctx.pk.ciphertext_len, ctx.challenge_bits // 8, ctx.pk.modulus_len
    a, e, z = [], [], []
    pos = 0
    for k in range(len(ctx.messages)):
        ak = int.from_bytes(b[pos:pos + wa], "big"); pos += wa
        ek = int.from_bytes(b[pos:pos + we], "big"); pos += we
        zk = int.from_bytes(b[pos:pos + wz], "big"); pos += wz
        if not (0 < ak < n2 and math.gcd(ak, n) == 1):
            raise ProofError(f"a_{k} not in Z*_{{N²}}")
        if not (0 < zk and 2 * zk < n and math.gcd(zk, n) == 1):
            raise ProofError(f"z_{k} not in Z*_N below N/2")
        a.append(ak); e.append(ek); z.append(zk)
    return Proof(a, e, z)


def check_structure(ctx: Context, c: int, pseudonym: bytes, voter_key_hash: bytes, pr: Proof) -> None:
    """Checks (1) for c and (2); raises ProofError."""
    if not ctx.pk.in_zstar_n2(c):
        raise ProofError("ciphertext not in Z*_{N²}")
    t = ctx.challenge_bits
    e = challenge(ctx, pseudonym, voter_key_hash, c, pr.a)
    if sum(pr.e) % (1 << t) != e:
        raise ProofError("challenges e_k do not sum to the Fiat–Shamir challenge")


def multiexp(bases: list, exps: list, mod: int) -> int:
    """∏ bases[i]^exps[i] mod `mod` (exponents ≥ 0) by the bucket method:
    shared squarings, about (n + 2^(w+1)) multiplications per w-bit window."""
    n = len(bases)
    if n == 0:
        return 1 % mod
    maxbits = max(e.bit_length() for e in exps)
    if maxbits == 0:
        return 1 % mod
    if n < 8:
        r = 1
        for b, e in zip(bases, exps):
            r = r * pow(b, e, mod) % mod
        return r
    # window width minimising ⌈b/w⌉·(n + 2^(w+1)) multiplications
    w = min(range(1, 17), key=lambda w: ((maxbits + w - 1) // w) * (n + (2 << w)))
    mask = (1 << w) - 1
    nwin = (maxbits + w - 1) // w
    result = None
    for j in range(nwin - 1, -1, -1):
        if result is not None:
            for _ in range(w):
                result = result * result % mod
        shift = j * w
        buckets = {}
        for b, e in zip(bases, exps):
            d = (e >> shift) & mask
            if d:
                prev = buckets.get(d)
                buckets[d] = b if prev is None else prev * b % mod
        if not buckets:
            continue
        acc = None
        tot = None
        top = max(buckets)
        for d in range(top, 0, -1):
            bd = buckets.get(d)
            if bd is not None:
                acc = bd if acc is None else acc * bd % mod
            if acc is not None:
                tot = acc if tot is None else tot * acc % mod
        result = tot if result is None else result * tot % mod
    return 1 % mod if result is None else result


def weighted_check(ctx: Context, items: list) -> bool:
    """One combined check over items [(c, Proof)] with fresh weights; an
    item (c, Proof, Context) has its own context (its statement's messages)
    under the same key, manifest and election."""
    n, n2 = ctx.pk.n, ctx.pk.n2
    zs, zr = [], []
    bs, be = [], []
    cs, ce_ = [], []
    s = 0
    for item in items:
        c, pr = item[0], item[1]
        msgs = item[2].messages if len(item) > 2 else ctx.messages
        ce = 0
        for k, (ak, ek, zk) in enumerate(zip(pr.a, pr.e, pr.z)):
            rho = secrets.randbits(RHO_BITS)
            zs.append(zk); zr.append(rho)
            bs.append(ak); be.append(rho)
            er = ek * rho
            ce += er
            s += er * msgs[k]
        cs.append(c); ce_.append(ce)
    zprod = multiexp(zs, zr, n)
    lhs = pow(zprod, n, n2)
    lhs = lhs * lhs % n2
    # The a_k (64-bit exponents) and the c (t+66-bit exponents) separately:
    # each multi-exponentiation then picks its own window width.
    rhs = multiexp(bs, be, n2) * multiexp(cs, ce_, n2) % n2
    rhs = rhs * ((1 - n * (s % n)) % n2) % n2
    rhs = rhs * rhs % n2
    return lhs == rhs


def verify_batch(ctx: Context, items: list) -> list:
    """Return the positions (into items, as weighted_check takes them) of the
    proofs that fail; bisects a failing batch with fresh weights down to single items."""
    bad = []

    def rec(lo, hi):
        if lo >= hi:
            return
        if weighted_check(ctx, items[lo:hi]):
            return
        if hi - lo == 1:
            bad.append(lo)
            return
        mid = (lo + hi) // 2
        rec(lo, mid)
        rec(mid, hi)

    rec(0, len(items))
    return sorted(bad)


def verify_naive(ctx: Context, c: int, pr: Proof) -> bool:
    """Check (3) one branch at a time, deterministically (slow: p
    exponentiations by N).  For tests and cross-checks."""
    n, n2 = ctx.pk.n, ctx.pk.n2
    for k, m in enumerate(ctx.messages):
        u = c * ((1 - m * n) % n2) % n2
        lhs = pow(pr.z[k], n, n2)
        rhs = pr.a[k] * pow(u, pr.e[k], n2) % n2
        if lhs * lhs % n2 != rhs * rhs % n2:
            return False
    return True
