"""Paillier public keys, threshold public parameters, partial decryptions
and their combination, with Python integers only.

Encodings (docs/PROTOCOL.md 3.6):
  public key         "FVPK" 0x01 ‖ u16 nLen ‖ N                      (N minimal)
  threshold params   "FVTP" 0x01 ‖ K:u16 ‖ L:u16 ‖ nLen:u16 ‖ N ‖ V ‖ V_1 … V_L
                     "FVTP" 0x02 ‖ K:u16 ‖ L:u16 ‖ S:u16 ‖ nLen:u16 ‖ N ‖ V ‖ V_1 … V_L
  partial decryption "FVPD" ver ‖ Index:u16 ‖ c_i ‖ E (32 bytes) ‖ Z (zLen bytes)
elements of Z_{N²} take exactly |N²| bytes (byte length of N²), big-endian.
Version 2 parameters carry S, the bound on integer shares (s_i < 2^S, a
distributed key generation's); their partials carry version 2 and their
proofs hash THRESHOLD_TAG_V2 and S.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

MIN_MODULUS_BITS = 2048
MAX_MODULUS_BITS = 4096
MAX_TRUSTEES = 64
THRESHOLD_TAG = b"fabvote/threshold/partial/v1"
THRESHOLD_TAG_V2 = b"fabvote/threshold/partial/v2"

# Odd primes below 1000: a modulus with one of them as a factor is refused.
_SMALL_PRIMES = [p for p in range(3, 1000, 2) if all(p % q for q in range(3, int(p ** 0.5) + 1, 2))]
_SMALL_PRIMES_PRODUCT = math.prod(_SMALL_PRIMES)


class KeyError_(ValueError):
    pass


def byte_len(x: int) -> int:
    return (x.bit_length() + 7) // 8


def minimal_bytes(x: int) -> bytes:
    return x.to_bytes(byte_len(x), "big")


def fixed(x: int, width: int) -> bytes:
    return x.to_bytes(width, "big")


@dataclass(frozen=True)
class PublicKey:
    n: int

    @property
    def n2(self) -> int:
        return self.n * self.n

    @property
    def modulus_len(self) -> int:
        return byte_len(self.n)

    @property
    def ciphertext_len(self) -> int:
        return byte_len(self.n2)

    def in_zstar_n2(self, x: int) -> bool:
        return 0 < x < self.n2 and math.gcd(x, self.n) == 1

    def marshal(self) -> bytes:
        nb = minimal_bytes(self.n)
        return b"FVPK\x01" + len(nb).to_bytes(2, "big") + nb


def check_modulus(n: int) -> None:
    if n <= 0 or n % 2 == 0:
        raise KeyError_("modulus N must be a positive odd integer")
    if not (MIN_MODULUS_BITS <= n.bit_length() <= MAX_MODULUS_BITS):
        raise KeyError_(f"modulus N has {n.bit_length()} bits, want {MIN_MODULUS_BITS}..{MAX_MODULUS_BITS}")
    if math.gcd(n, _SMALL_PRIMES_PRODUCT) != 1:
        raise KeyError_("modulus N has a small prime factor")
    if math.isqrt(n) ** 2 == n:
        raise KeyError_("modulus N is a perfect square")


def parse_public_key(b: bytes) -> PublicKey:
    if len(b) < 7 or b[:5] != b"FVPK\x01":
        raise KeyError_("public key: bad magic or version")
    ln = int.from_bytes(b[5:7], "big")
    if len(b) != 7 + ln:
        raise KeyError_("public key: length mismatch")
    nb = b[7:]
    if ln == 0 or nb[0] == 0:
        raise KeyError_("public key: N is not minimal")
    n = int.from_bytes(nb, "big")
    check_modulus(n)
    return PublicKey(n)


@dataclass(frozen=True)
class ThresholdParams:
    pk: PublicKey
    k: int
    l: int
    v: int
    vks: tuple  # V_1 … V_L
    share_bits: int = 0  # S of version 2; 0 for version 1 (shares below N²)

    @property
    def version(self) -> int:
        return 2 if self.share_bits else 1

    @property
    def delta(self) -> int:
        return math.factorial(self.l)

    @property
    def z_bits(self) -> int:
        # response bound: z < 2^(|s| + |Δ| + 513), |x| the bit length of x,
        # |s| = S (version 2) or |N²| (version 1)
        s = self.share_bits or self.pk.n2.bit_length()
        return s + self.delta.bit_length() + 2 * 256 + 1

    @property
    def z_len(self) -> int:
        return (self.z_bits + 7) // 8

    @property
    def partial_len(self) -> int:
        return 7 + self.pk.ciphertext_len + 32 + self.z_len


def parse_threshold_params(b: bytes, pk: PublicKey) -> ThresholdParams:
    if len(b) < 11 or b[:4] != b"FVTP" or b[4] not in (1, 2):
        raise KeyError_("threshold: bad magic or version")
    k = int.from_bytes(b[5:7], "big")
    l = int.from_bytes(b[7:9], "big")
    share_bits, pos = 0, 9
    if b[4] == 2:
        share_bits, pos = int.from_bytes(b[9:11], "big"), 11
        n2_bits = pk.n2.bit_length()
        if not (n2_bits <= share_bits <= 2 * n2_bits):
            raise KeyError_(f"threshold: share bound S = {share_bits}, want {n2_bits}..{2 * n2_bits} in version 2")
    nlen = int.from_bytes(b[pos:pos + 2], "big")
    pos += 2
    if not (1 <= l <= MAX_TRUSTEES):
        raise KeyError_(f"threshold: L = {l}, want 1..{MAX_TRUSTEES}")
    if not (1 <= k <= l):
        raise KeyError_(f"threshold: K = {k}, want 1..L")
    if nlen == 0 or pos + nlen > len(b) or b[pos] == 0:
        raise KeyError_("threshold: N is missing or not minimal")
    n = int.from_bytes(b[pos:pos + nlen], "big")
    if n != pk.n:
        raise KeyError_("threshold: N differs from the manifest's Paillier key")
    w = pk.ciphertext_len
    if len(b) != pos + nlen + (l + 1) * w:
        raise KeyError_("threshold: length mismatch")
    pos += nlen
    vals = []
    for _ in range(l + 1):
        x = int.from_bytes(b[pos:pos + w], "big")
        if not pk.in_zstar_n2(x):
            raise KeyError_("threshold: V or a verification key is not in Z*_{N²}")
        vals.append(x)
        pos += w
    tp = ThresholdParams(pk, k, l, vals[0], tuple(vals[1:]), share_bits)
    if math.gcd(n, 2 * tp.delta) != 1:
        raise KeyError_("threshold: N has a factor not larger than L")
    return tp


@dataclass(frozen=True)
class Partial:
    index: int
    ci: int
    e: int
    z: int


def parse_partial(b: bytes, tp: ThresholdParams) -> Partial:
    if len(b) != tp.partial_len:
        raise KeyError_(f"partial decryption: {len(b)} bytes, want {tp.partial_len}")
    if b[:4] != b"FVPD" or b[4] != tp.version:
        raise KeyError_(f"partial decryption: bad magic or version (want version {tp.version}, the parameters')")
    idx = int.from_bytes(b[5:7], "big")
    if not (1 <= idx <= tp.l):
        raise KeyError_(f"partial decryption: index {idx} not in 1..{tp.l}")
    w = tp.pk.ciphertext_len
    ci = int.from_bytes(b[7:7 + w], "big")
    if not tp.pk.in_zstar_n2(ci):
        raise KeyError_(f"partial decryption {idx}: c_i not in Z*_{{N²}}")
    e = int.from_bytes(b[7 + w:39 + w], "big")
    z = int.from_bytes(b[39 + w:], "big")
    if z.bit_length() > tp.z_bits:
        raise KeyError_(f"partial decryption {idx}: Z out of range")
    return Partial(idx, ci, e, z)


def partial_challenge(tp: ThresholdParams, i: int, c: int, ci: int, a: int, b: int) -> int:
    w = tp.pk.ciphertext_len
    nb = minimal_bytes(tp.pk.n)
    h = hashlib.sha256()
    if tp.version == 1:
        h.update(THRESHOLD_TAG)
    else:
        h.update(THRESHOLD_TAG_V2)
        h.update(tp.share_bits.to_bytes(4, "big"))
    h.update(len(nb).to_bytes(4, "big"))
    h.update(nb)
    h.update(i.to_bytes(4, "big"))
    for x in (tp.v, tp.vks[i - 1], c, ci, a, b):
        h.update(fixed(x, w))
    return int.from_bytes(h.digest(), "big")


def verify_partial(tp: ThresholdParams, c: int, pd: Partial) -> bool:
    """Check the proof that log_{c⁴}(c_i²) = log_V(V_i)."""
    n2 = tp.pk.n2
    if not tp.pk.in_zstar_n2(c):
        return False
    a = pow(c, 4 * pd.z, n2) * pow(pd.ci, -2 * pd.e, n2) % n2
    b = pow(tp.v, pd.z, n2) * pow(tp.vks[pd.index - 1], -pd.e, n2) % n2
    return partial_challenge(tp, pd.index, c, pd.ci, a, b) == pd.e


def combine(tp: ThresholdParams, parts: list) -> int:
    """Plaintext from K or more verified, distinct partials (the first K are
    used): c' = ∏ c_i^{2μ_i} = 1 + 4Δ²M·N mod N², M = L(c')·(4Δ²)⁻¹ mod N."""
    n, n2, delta = tp.pk.n, tp.pk.n2, tp.delta
    use = parts[:tp.k]
    idx = [p.index for p in use]
    cp = 1
    for p in use:
        num, den = delta, 1
        for j in idx:
            if j != p.index:
                num *= j
                den *= j - p.index
        assert num % den == 0
        mu = num // den
        cp = cp * pow(p.ci, 2 * mu, n2) % n2
    if (cp - 1) % n != 0:
        raise KeyError_("combination is not of the form 1 + xN")
    return (cp - 1) // n * pow(4 * delta * delta, -1, n) % n


def verify_decryption(pk: PublicKey, c: int, t: int, r: int) -> bool:
    """Single key: C = (1+N)^T · R^N mod N², T in [0, N), R in Z*_N."""
    n, n2 = pk.n, pk.n2
    if not (0 <= t < n and 0 < r < n and math.gcd(r, n) == 1 and pk.in_zstar_n2(c)):
        return False
    return (1 + t * n) * pow(r, n, n2) % n2 == c
