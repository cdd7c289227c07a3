"""The proof that a jointly generated Paillier modulus N is well formed
(Πmod, the Paillier–Blum modulus proof of Canetti, Gennaro, Goldfeder,
Makriyannis and Peled, 2020): N = pq with p, q distinct primes ≡ 3 (mod 4)
and gcd(N, φ(N)) = 1. It mirrors Verify of the Go package
crypto/dkg/wellformed, with Python integers only.

Hash stream (crypto/internal/zn): prefix = ‖ over parts of
u32be(len(part)) ‖ part; candidate c is the first |N|+16 bytes of
SHA-256(prefix ‖ u32be(c) ‖ u32be(0)) ‖ SHA-256(prefix ‖ u32be(c) ‖ u32be(1)) ‖ …,
big-endian, mod N (|N| in bytes).

  w   = first candidate with Jacobi symbol (w/N) = −1 of the stream over
        (TAG, ceremony, N, b"w")
  y_k = first candidate in Z*_N (non-zero, coprime to N) of the stream over
        (TAG, ceremony, N, w, u32be(k)), k = 1..80
N is written as its minimal bytes, w with the width of N.

Encoding, relative to N, every element W = byte length of N bytes:
  "FVPM" 0x01 ‖ w ‖ 80 × (flags:u8 ‖ x ‖ z)      flags: bit 0 a_k, bit 1 b_k

Checks: N odd, no prime factor below 2^20, not prime; w the derived one;
for every k, x and z in [1, N) and coprime to N, b_k = [(y_k/N) = −1],
x^4 ≡ (−1)^a_k · w^b_k · y_k and z^N ≡ y_k (mod N).
"""

from __future__ import annotations

import functools
import hashlib
import math
from dataclasses import dataclass

TAG = b"fabvote/dkg/pimod/v1"
CHALLENGES = 80
TRIAL_BOUND = 1 << 20
MAGIC = b"FVPM"
VERSION = 1
_MAX_CANDIDATES = 256
_EXTRA_BYTES = 16


class PimodError(ValueError):
    """The modulus or its proof is refused; the message names the check."""


@dataclass(frozen=True)
class Response:
    a: bool
    b: bool
    x: int
    z: int


@dataclass(frozen=True)
class Proof:
    w: int
    responses: tuple  # CHALLENGES × Response


def _byte_len(x: int) -> int:
    return (x.bit_length() + 7) // 8


def encoded_len(n: int) -> int:
    w = _byte_len(n)
    return len(MAGIC) + 1 + w + CHALLENGES * (1 + 2 * w)


def parse(n: int, b: bytes) -> Proof:
    """Decode a proof for N, strictly: exact length, magic, version, flags,
    every element below N."""
    if len(b) != encoded_len(n):
        raise PimodError(f"proof: length {len(b)}, want {encoded_len(n)} for a {n.bit_length()}-bit N")
    if b[:4] != MAGIC:
        raise PimodError(f"proof: magic {b[:4]!r}, want {MAGIC!r}")
    if b[4] != VERSION:
        raise PimodError(f"proof: version {b[4]}, want {VERSION}")
    w = _byte_len(n)
    pos = 5

    def elem(name):
        nonlocal pos
        x = int.from_bytes(b[pos:pos + w], "big")
        pos += w
        if x >= n:
            raise PimodError(f"proof: {name} not below N")
        return x

    wval = elem("w")
    responses = []
    for k in range(1, CHALLENGES + 1):
        flags = b[pos]
        pos += 1
        if flags & ~3:
            raise PimodError(f"proof: flags of challenge {k}: unknown bits")
        responses.append(Response(bool(flags & 1), bool(flags & 2), elem(f"x_{k}"), elem(f"z_{k}")))
    return Proof(wval, tuple(responses))


def jacobi(a: int, n: int) -> int:
    """Jacobi symbol (a/n) for odd n > 0."""
    a %= n
    result = 1
    while a:
        while a % 2 == 0:
            a //= 2
            if n % 8 in (3, 5):
                result = -result
        a, n = n, a
        if a % 4 == 3 and n % 4 == 3:
            result = -result
        a %= n
    return result if n == 1 else 0


def stream(n: int, *parts: bytes):
    """The candidates of the hash stream over parts, in [0, N)."""
    prefix = b"".join(len(p).to_bytes(4, "big") + p for p in parts)
    want = _byte_len(n) + _EXTRA_BYTES
    c = 0
    while True:
        buf = b""
        block = 0
        while len(buf) < want:
            buf += hashlib.sha256(prefix + c.to_bytes(4, "big") + block.to_bytes(4, "big")).digest()
            block += 1
        c += 1
        yield int.from_bytes(buf[:want], "big") % n


def _first(candidates, accept, what: str) -> int:
    for _, x in zip(range(_MAX_CANDIDATES), candidates):
        if accept(x):
            return x
    raise PimodError(f"modulus: no {what} among {_MAX_CANDIDATES} candidates")


def derive_w(n: int, ceremony: bytes) -> int:
    nb = n.to_bytes(_byte_len(n), "big")
    return _first(stream(n, TAG, ceremony, nb, b"w"), lambda x: jacobi(x, n) == -1,
                  "w with Jacobi symbol −1 (N is a square?)")


def derive_challenges(n: int, ceremony: bytes, w: int) -> list:
    nb = n.to_bytes(_byte_len(n), "big")
    wb = w.to_bytes(_byte_len(n), "big")
    return [_first(stream(n, TAG, ceremony, nb, wb, k.to_bytes(4, "big")),
                   lambda x: x > 0 and math.gcd(x, n) == 1, f"challenge {k} in Z*_N")
            for k in range(1, CHALLENGES + 1)]


@functools.cache
def _odd_primes_below_bound() -> tuple:
    sieve = bytearray([1]) * TRIAL_BOUND
    sieve[0:2] = b"\0\0"
    for i in range(2, math.isqrt(TRIAL_BOUND) + 1):
        if sieve[i]:
            sieve[i * i::i] = bytes(len(range(i * i, TRIAL_BOUND, i)))
    return tuple(i for i in range(3, TRIAL_BOUND, 2) if sieve[i])


def _probably_prime(n: int) -> bool:
    """Miller–Rabin to the first 20 prime bases. It never calls a prime
    composite, so no prime N gets through; a composite it calls prime is
    refused, which is safe."""
    bases = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71]
    if n < 2:
        return False
    for p in bases:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in bases:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def check_modulus(n: int) -> None:
    """N odd, no prime factor below 2^20, not prime."""
    if n <= 0 or n % 2 == 0:
        raise PimodError("modulus: N is not a positive odd integer")
    acc = 1
    for p in _odd_primes_below_bound():
        acc = acc * p % n
    g = math.gcd(acc, n)
    if g != 1:
        raise PimodError("modulus: N has a prime factor below 2^20")
    if _probably_prime(n):
        raise PimodError("modulus: N is prime")


def verify(n: int, ceremony: bytes, proof: bytes) -> None:
    """Verify the encoded Πmod proof that N is a Paillier–Blum modulus, for
    the ceremony id. Raises PimodError naming the failed check."""
    check_modulus(n)
    w = derive_w(n, ceremony)
    pr = parse(n, proof)
    if jacobi(pr.w, n) != -1:
        raise PimodError("proof: w is not an element of Z_N with Jacobi symbol −1")
    if pr.w != w:
        raise PimodError("proof: w is not the one derived from this ceremony and N")
    for k, (y, r) in enumerate(zip(derive_challenges(n, ceremony, w), pr.responses), start=1):
        _check_response(n, w, y, r, k)


def _check_response(n: int, w: int, y: int, r: Response, k: int) -> None:
    for name, v in (("x", r.x), ("z", r.z)):
        if not (0 < v < n):
            raise PimodError(f"proof: challenge {k}: {name} not in [1, N)")
        if math.gcd(v, n) != 1:
            raise PimodError(f"proof: challenge {k}: {name} not coprime to N")
    if r.b != (jacobi(y, n) == -1):
        raise PimodError(f"proof: challenge {k}: b is not [(y/N) = −1]")
    want = y * (w if r.b else 1) % n
    if r.a:
        want = n - want
    if pow(r.x, 4, n) != want:
        raise PimodError(f"proof: challenge {k}: x^4 ≢ (−1)^a·w^b·y (mod N)")
    if pow(r.z, n, n) != y:
        raise PimodError(f"proof: challenge {k}: z^N ≢ y (mod N)")
