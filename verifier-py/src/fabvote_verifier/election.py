"""fabvote's canonical encodings: manifest (PROTOCOL 3.1), ballot (3.2),
signed digests and pseudonyms (3.3), ledger keys and records (3.4), result
(3.5).  Every decoder is strict: it re-encodes what it decoded and compares
with the input byte for byte."""

from __future__ import annotations

import hashlib
import hmac
import re
import unicodedata
from dataclasses import dataclass, replace

from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import load_der_public_key

from . import canonjson as cj
from .layout import Layout, Shape
from .paillier import KeyError_, PublicKey, ThresholdParams, parse_public_key, parse_threshold_params
from .sigs import SigError, canonical_rs, p256_point
from .zkp import RHO_BITS, Context


class ElectionError(ValueError):
    """code: the protocol's error code (PROTOCOL 4.4)."""

    def __init__(self, code: str, msg: str):
        super().__init__(msg)
        self.code = code


def lp(b: bytes) -> bytes:
    return len(b).to_bytes(4, "big") + b


# ---------------------------------------------------------------- identifiers

_ELECTION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_CHANNEL = re.compile(r"[a-z][a-z0-9.-]{0,248}")
_MSPID = re.compile(r"[A-Za-z0-9._-]{1,128}")


def valid_election_id(s: str) -> bool:
    return bool(_ELECTION_ID.fullmatch(s))


def _name_ok(s: str) -> bool:
    b = s.encode("utf-8", "surrogatepass")
    if not 1 <= len(b) <= 200:
        return False
    return not any(unicodedata.category(ch) == "Cc" for ch in s) and not any(0xD800 <= ord(ch) <= 0xDFFF for ch in s)


# ---------------------------------------------------------------- 3.3

def pseudonym(k_pseud: bytes, election_id: str, voter_id: str) -> bytes:
    return hmac.new(k_pseud, lp(b"fabvote/pseudonym/v1") + lp(election_id.encode()) + lp(voter_id.encode()),
                    hashlib.sha256).digest()


def pseudonym_key_commitment(k_pseud: bytes) -> bytes:
    return hashlib.sha256(lp(b"fabvote/pseudonym-key-commitment/v1") + lp(k_pseud)).digest()


def manifest_digest(identity: bytes) -> bytes:
    return hashlib.sha256(lp(b"fabvote/manifest/v3") + lp(identity)).digest()


def token_digest(mdigest: bytes, election_id: str, pseudonym_: bytes, voter_pub: bytes) -> bytes:
    return hashlib.sha256(lp(b"fabvote/token/v2") + lp(mdigest) + lp(election_id.encode()) + lp(pseudonym_)
                          + lp(voter_pub)).digest()


# ---------------------------------------------------------------- 3.4

def ledger_key(obj: str, *attrs: str) -> str:
    return "\0" + obj + "\0" + "".join(a + "\0" for a in attrs)


def ballot_prefix(election_id: str) -> str:
    return ledger_key("ballot", election_id)


MAX_TXID_LEN = 128


def parse_record(b: bytes) -> tuple[str, bytes]:
    """0x01 ‖ u16 len(txID) ‖ txID ‖ ballot -> (txID, ballot bytes)."""
    if len(b) > MAX_BALLOT_SIZE + 3 + MAX_TXID_LEN:
        raise ElectionError("SIZE", f"ballot record has {len(b)} bytes")
    if len(b) < 3 or b[0] != 1:
        raise ElectionError("DECODE", "ballot record: bad header")
    n = int.from_bytes(b[1:3], "big")
    if n > MAX_TXID_LEN or len(b) < 3 + n:
        raise ElectionError("DECODE", f"ballot record: bad txID length {n}")
    try:
        txid = b[3:3 + n].decode("utf-8")
    except UnicodeDecodeError:
        raise ElectionError("DECODE", "ballot record: txID is not UTF-8") from None
    return txid, b[3 + n:]


# ---------------------------------------------------------------- 3.1 manifest

MANIFEST_FIELDS = ["version", "electionID", "channel", "title", "candidates", "encodingBits", "maxVoters",
                   "paillierKey", "threshold", "tokenKey", "pseudonymKeyCommitment", "authorityMSP",
                   "trusteeMSPs", "start", "end", "maxClockSkewSeconds", "challengeBits"]
MAX_MANIFEST_SIZE = 256 * 1024


@dataclass(frozen=True)
class Manifest:
    version: int
    election_id: str
    channel: str
    title: str
    candidates: tuple
    encoding_bits: int
    max_voters: int
    paillier_key: bytes
    threshold: bytes
    token_key: bytes
    pseudonym_key_commitment: bytes
    authority_msp: str
    trustee_msps: tuple
    start: tuple
    end: tuple
    max_clock_skew_seconds: int
    challenge_bits: int

    def marshal(self) -> bytes:
        parts = [
            ("version", str(self.version)),
            ("electionID", cj.encode_string(self.election_id)),
            ("channel", cj.encode_string(self.channel)),
            ("title", cj.encode_string(self.title)),
            ("candidates", cj.encode_str_list(list(self.candidates))),
            ("encodingBits", str(self.encoding_bits)),
            ("maxVoters", str(self.max_voters)),
            ("paillierKey", cj.encode_bytes(self.paillier_key)),
            ("threshold", cj.encode_bytes(self.threshold)),
            ("tokenKey", cj.encode_bytes(self.token_key)),
            ("pseudonymKeyCommitment", cj.encode_bytes(self.pseudonym_key_commitment)),
            ("authorityMSP", cj.encode_string(self.authority_msp)),
            ("trusteeMSPs", cj.encode_str_list(list(self.trustee_msps))),
            ("start", '"' + cj.format_time(self.start) + '"'),
            ("end", '"' + cj.format_time(self.end) + '"'),
            ("maxClockSkewSeconds", str(self.max_clock_skew_seconds)),
            ("challengeBits", str(self.challenge_bits)),
        ]
        return ("{" + ",".join('"%s":%s' % kv for kv in parts) + "}").encode("utf-8", "surrogatepass")

    def digest(self) -> bytes:
        return manifest_digest(replace(self, start=cj.ZERO_TIME, end=cj.ZERO_TIME).marshal())


@dataclass
class Prepared:
    """A validated manifest with everything a ballot check needs."""
    manifest: Manifest
    raw: bytes
    pk: PublicKey
    threshold: ThresholdParams | None
    token_key: ec.EllipticCurvePublicKey
    digest: bytes
    messages: list

    @property
    def zkp_context(self) -> Context:
        m = self.manifest
        return Context(self.digest, m.election_id, self.pk, self.messages, m.challenge_bits)


def decode_manifest(raw: bytes) -> Manifest:
    """Canonical decoding only (DECODE / SIZE)."""
    if len(raw) > MAX_MANIFEST_SIZE:
        raise ElectionError("SIZE", f"manifest has {len(raw)} bytes")
    try:
        f = cj.check_fields(cj.load_object(raw, "manifest"), MANIFEST_FIELDS, "manifest")
        m = Manifest(
            version=_int(f["version"], "version"),
            election_id=cj.string(f["electionID"], "electionID"),
            channel=cj.string(f["channel"], "channel"),
            title=cj.string(f["title"], "title"),
            candidates=tuple(cj.str_list(f["candidates"], "candidates")),
            encoding_bits=cj.uint(f["encodingBits"], "encodingBits"),
            max_voters=cj.uint(f["maxVoters"], "maxVoters"),
            paillier_key=cj.decode_b64(f["paillierKey"], "paillierKey"),
            threshold=cj.decode_b64(f["threshold"], "threshold"),
            token_key=cj.decode_b64(f["tokenKey"], "tokenKey"),
            pseudonym_key_commitment=cj.decode_b64(f["pseudonymKeyCommitment"], "pseudonymKeyCommitment"),
            authority_msp=cj.string(f["authorityMSP"], "authorityMSP"),
            trustee_msps=tuple(cj.str_list(f["trusteeMSPs"], "trusteeMSPs")),
            start=cj.parse_time(f["start"], "start"),
            end=cj.parse_time(f["end"], "end"),
            max_clock_skew_seconds=cj.uint(f["maxClockSkewSeconds"], "maxClockSkewSeconds", 32),
            challenge_bits=_int(f["challengeBits"], "challengeBits"),
        )
    except cj.CanonError as e:
        raise ElectionError("DECODE", f"manifest: {e}") from None
    if m.marshal() != raw:
        raise ElectionError("DECODE", "manifest: not the canonical encoding")
    return m


def _int(v, field):
    if type(v) is not int or not -(1 << 63) <= v < 1 << 63:
        raise cj.CanonError(f"field {field}: not an int")
    return v


def _bad(field, why):
    raise ElectionError("MANIFEST", f"manifest field {field}: {why}")


def prepare_manifest(raw: bytes) -> Prepared:
    """Decode and validate every field (MANIFEST, naming the field), in the
    Go verifier's order: the election's names, the ballot's shape, the keys,
    the parties, the window and the proof's parameters."""
    m = decode_manifest(raw)
    _check_names(m)
    pk, tp, tk = _check_keys(m)
    _check_parties_and_window(m)
    t = m.challenge_bits
    if t % 8 or not 128 <= t <= 256:
        _bad("challengeBits", "not a multiple of 8 in 128..256")
    if t + RHO_BITS + 2 >= pk.n.bit_length() // 2:
        _bad("challengeBits", "too long for the modulus")
    return Prepared(m, raw, pk, tp, tk, m.digest(), _proof_messages(m))


def _proof_messages(m) -> list:
    """The validity proof's messages: those of the one statement of the
    manifest's single contest, choose 1 of the candidates, in the layout of
    PROTOCOL 3.7 (packed: M^j for candidate j, in candidate order)."""
    layout = Layout.build(m.encoding_bits, [Shape(len(m.candidates), 1, 1, False)])
    (statement,) = layout.contests[0].statements
    return list(statement.messages)


def _check_names(m) -> None:
    """The version, the election's names and the ballot's shape."""
    if m.version != 3:
        _bad("version", f"{m.version}, want 3")
    if not valid_election_id(m.election_id):
        _bad("electionID", "not 1..64 of [A-Za-z0-9._-] starting with a letter or digit")
    if not _CHANNEL.fullmatch(m.channel):
        _bad("channel", "not 1..249 of [a-z0-9.-] starting with a letter")
    if not _name_ok(m.title):
        _bad("title", "not 1..200 bytes of UTF-8 without control characters")
    if not 2 <= len(m.candidates) <= 64:
        _bad("candidates", f"{len(m.candidates)} candidates, want 2..64")
    for i, c in enumerate(m.candidates):
        if not _name_ok(c):
            _bad(f"candidates[{i}]", "not 1..200 bytes of UTF-8 without control characters")
    if len(set(m.candidates)) != len(m.candidates):
        _bad("candidates", "names are not pairwise distinct")
    if m.max_voters < 1:
        _bad("maxVoters", "must be at least 1")
    if not (m.max_voters.bit_length() <= m.encoding_bits <= 64):
        _bad("encodingBits", "need 2^encodingBits > maxVoters and encodingBits ≤ 64")


def _check_keys(m):
    """The Paillier key (and threshold parameters) and the token key."""
    try:
        pk = parse_public_key(m.paillier_key)
    except KeyError_ as e:
        _bad("paillierKey", str(e))
    if m.encoding_bits * len(m.candidates) >= pk.n.bit_length():
        _bad("encodingBits", "encodingBits · candidates does not fit below N")
    tp = None
    if m.threshold:
        try:
            tp = parse_threshold_params(m.threshold, pk)
        except KeyError_ as e:
            _bad("threshold", str(e))
    try:
        tk = load_der_public_key(m.token_key)
    except (ValueError, TypeError):
        _bad("tokenKey", "not a PKIX DER public key")
    if not isinstance(tk, ec.EllipticCurvePublicKey) or not isinstance(tk.curve, ec.SECP256R1):
        _bad("tokenKey", "not an ECDSA P-256 key")
    if len(m.pseudonym_key_commitment) != 32:
        _bad("pseudonymKeyCommitment", "not 32 bytes")
    return pk, tp, tk


def _check_parties_and_window(m) -> None:
    if not _MSPID.fullmatch(m.authority_msp):
        _bad("authorityMSP", "not 1..128 of [A-Za-z0-9._-]")
    if len(m.trustee_msps) > 64:
        _bad("trusteeMSPs", "more than 64")
    for i, t in enumerate(m.trustee_msps):
        if not _MSPID.fullmatch(t):
            _bad(f"trusteeMSPs[{i}]", "not 1..128 of [A-Za-z0-9._-]")
    if len(set(m.trustee_msps)) != len(m.trustee_msps):
        _bad("trusteeMSPs", "not distinct")
    if not m.start < m.end:
        _bad("end", "not after start")
    if not 1 <= m.max_clock_skew_seconds <= 3600:
        _bad("maxClockSkewSeconds", "not in 1..3600")


# ---------------------------------------------------------------- 3.2 ballot

MAX_BALLOT_SIZE = 104 * 1024
PSEUDONYM_LEN = 32


@dataclass(frozen=True)
class Ballot:
    election_id: str
    voter_pub: bytes
    token: bytes
    ciphertext: bytes
    proof: bytes
    signature: bytes

    @property
    def pseudonym(self) -> bytes:
        return self.token[:PSEUDONYM_LEN]

    def marshal(self) -> bytes:
        return (b"\x02" + lp(self.election_id.encode()) + lp(self.voter_pub) + lp(self.token) + lp(self.ciphertext)
                + lp(self.proof) + lp(self.signature))

    def signing_digest(self) -> bytes:
        return hashlib.sha256(lp(b"fabvote/ballot/v2") + lp(self.election_id.encode()) + lp(self.voter_pub)
                              + lp(self.token) + lp(self.ciphertext) + lp(self.proof)).digest()


def parse_ballot(raw: bytes) -> Ballot:
    if len(raw) > MAX_BALLOT_SIZE:
        raise ElectionError("SIZE", f"ballot has {len(raw)} bytes")
    if not raw or raw[0] != 2:
        raise ElectionError("DECODE", "ballot: unknown version")
    pos = 1
    fields = []
    # (name, exact length or 0, maximum length)
    for name, exact, mx in (("electionID", 0, 64), ("voterPub", 65, 65), ("token", 96, 96),
                            ("ciphertext", 0, MAX_BALLOT_SIZE), ("proof", 0, MAX_BALLOT_SIZE),
                            ("signature", 64, 64)):
        if len(raw) - pos < 4:
            raise ElectionError("DECODE", f"ballot: truncated before {name}")
        n = int.from_bytes(raw[pos:pos + 4], "big")
        pos += 4
        if n > mx or n > len(raw) - pos or (exact and n != exact):
            raise ElectionError("DECODE", f"ballot: bad length {n} of {name}")
        fields.append(raw[pos:pos + n])
        pos += n
    if pos != len(raw):
        raise ElectionError("DECODE", "ballot: trailing bytes")
    eid = fields[0].decode("ascii", "replace")
    if not valid_election_id(eid) or eid.encode() != fields[0]:
        raise ElectionError("DECODE", "ballot: malformed election id")
    if not fields[3] or not fields[4]:
        raise ElectionError("DECODE", "ballot: empty ciphertext or proof")
    try:
        p256_point(fields[1])
        canonical_rs(fields[2][PSEUDONYM_LEN:])
        canonical_rs(fields[5])
    except SigError as e:
        raise ElectionError("DECODE", f"ballot: {e}") from None
    b = Ballot(eid, *fields[1:])
    assert b.marshal() == raw
    return b


# ---------------------------------------------------------------- 3.5 result

RESULT_FIELDS = ["electionID", "ballotCount", "product", "tally", "counts", "decryptionNonce", "partials"]
MAX_RESULT_SIZE = 512 * 1024


@dataclass(frozen=True)
class Result:
    election_id: str
    ballot_count: int
    product: bytes
    tally: bytes
    counts: tuple
    decryption_nonce: bytes
    partials: tuple

    def marshal(self) -> bytes:
        parts = [
            ("electionID", cj.encode_string(self.election_id)),
            ("ballotCount", str(self.ballot_count)),
            ("product", cj.encode_bytes(self.product)),
            ("tally", cj.encode_bytes(self.tally)),
            ("counts", cj.encode_uint_list(list(self.counts))),
            ("decryptionNonce", cj.encode_bytes(self.decryption_nonce)),
            ("partials", cj.encode_bytes_list(list(self.partials))),
        ]
        return ("{" + ",".join('"%s":%s' % kv for kv in parts) + "}").encode("utf-8", "surrogatepass")


def decode_result(raw: bytes) -> Result:
    if len(raw) > MAX_RESULT_SIZE:
        raise ElectionError("SIZE", f"result has {len(raw)} bytes")
    try:
        f = cj.check_fields(cj.load_object(raw, "result"), RESULT_FIELDS, "result")
        counts = f["counts"]
        if not isinstance(counts, list):
            raise cj.CanonError("field counts: not a list")
        partials = f["partials"]
        if not isinstance(partials, list):
            raise cj.CanonError("field partials: not a list")
        r = Result(
            election_id=cj.string(f["electionID"], "electionID"),
            ballot_count=cj.uint(f["ballotCount"], "ballotCount"),
            product=cj.decode_b64(f["product"], "product"),
            tally=cj.decode_b64(f["tally"], "tally"),
            counts=tuple(cj.uint(c, "counts") for c in counts),
            decryption_nonce=cj.decode_b64(f["decryptionNonce"], "decryptionNonce"),
            partials=tuple(cj.decode_b64(p, "partials") for p in partials),
        )
    except cj.CanonError as e:
        raise ElectionError("DECODE", f"result: {e}") from None
    if r.marshal() != raw:
        raise ElectionError("DECODE", "result: not the canonical encoding")
    return r


def decode_minimal(b: bytes, field: str) -> int:
    if b and b[0] == 0:
        raise ElectionError("DECODE", f"result field {field}: not minimal")
    return int.from_bytes(b, "big")
