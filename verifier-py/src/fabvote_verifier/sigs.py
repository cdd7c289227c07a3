"""ECDSA P-256 signatures: Fabric's DER signatures (orderer block
signatures, low S required) and fabvote's fixed r‖s signatures (tokens and
ballots), and certificate chains to an MSP's roots (expiry ignored)."""

from __future__ import annotations

import hashlib

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, utils

P256_N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
HALF_N = P256_N // 2


class SigError(ValueError):
    pass


def canonical_rs(sig: bytes) -> tuple[int, int]:
    """Decode a fabvote r‖s signature: 64 bytes, 1 ≤ r < n, 1 ≤ s ≤ n/2."""
    if len(sig) != 64:
        raise SigError("signature is not 64 bytes")
    r = int.from_bytes(sig[:32], "big")
    s = int.from_bytes(sig[32:], "big")
    if not (1 <= r < P256_N):
        raise SigError("signature r out of range")
    if not (1 <= s <= HALF_N):
        raise SigError("signature s out of range or not low-S")
    return r, s


def p256_point(pub: bytes) -> ec.EllipticCurvePublicKey:
    """An uncompressed P-256 point 0x04‖X‖Y on the curve."""
    if len(pub) != 65 or pub[0] != 4:
        raise SigError("voter key is not an uncompressed P-256 point")
    try:
        return ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), pub)
    except ValueError:
        raise SigError("voter key is not a point on P-256") from None


def verify_digest_rs(pub: ec.EllipticCurvePublicKey, digest: bytes, sig: bytes) -> bool:
    """Verify a canonical r‖s signature over a 32-byte digest (the digest is
    the message representative, as Go's ecdsa.Verify(pub, digest, r, s))."""
    r, s = canonical_rs(sig)
    try:
        pub.verify(utils.encode_dss_signature(r, s), digest, ec.ECDSA(utils.Prehashed(hashes.SHA256())))
        return True
    except InvalidSignature:
        return False


def verify_der_low_s(pub, message: bytes, der: bytes) -> bool:
    """Fabric's rule: ASN.1 DER ECDSA signature, low S, over SHA-256(message)."""
    try:
        r, s = utils.decode_dss_signature(der)
    except ValueError:
        return False
    if utils.encode_dss_signature(r, s) != der:  # strict DER only
        return False
    if not (1 <= r < P256_N and 1 <= s <= HALF_N):
        return False
    try:
        pub.verify(der, message, ec.ECDSA(hashes.SHA256()))
        return True
    except InvalidSignature:
        return False


def load_pem_certs(pems: list) -> list:
    """One certificate per entry: its first PEM certificate (as an MSP
    reads it)."""
    out = []
    for p in pems:
        try:
            out.append(x509.load_pem_x509_certificates(p)[0])
        except ValueError as e:
            raise SigError(f"MSP certificate does not parse: {e}") from None
    return out


def _issued_by(cert: x509.Certificate, issuer: x509.Certificate) -> bool:
    try:
        cert.verify_directly_issued_by(issuer)
        return True
    except (ValueError, TypeError, InvalidSignature):
        return False


def chains_to(leaf: x509.Certificate, roots: list, intermediates: list, max_depth: int = 8) -> bool:
    """Whether leaf chains through intermediates to one of roots.  Validity
    periods are not checked (a record is verified long after)."""
    def walk(cert, depth, used):
        if depth >= max_depth:
            return False
        for r in roots:
            if _issued_by(cert, r):
                return True
        for i, ic in enumerate(intermediates):
            if i in used:
                continue
            if _issued_by(cert, ic) and walk(ic, depth + 1, used | {i}):
                return True
        return False

    return walk(leaf, 0, frozenset())


def serialization_der():
    from cryptography.hazmat.primitives.serialization import Encoding
    return Encoding.DER


def sha256(*parts: bytes) -> bytes:
    h = hashlib.sha256()
    for p in parts:
        h.update(p)
    return h.digest()
