"""fabvote's canonical encodings: manifest (PROTOCOL 3.1), ballot (3.2),
signed digests and pseudonyms (3.3), ledger keys and records (3.4), result
(3.5): manifest version 5 (contests and ballot styles, and how the key
was made: keyOrigin, keyCeremony), token version 3 (the style), ballot version 3 (the contests
it answers), result version 2 (per contest).  Every decoder is strict: it re-encodes what it decoded and compares
with the input byte for byte."""

from __future__ import annotations

import hashlib
import hmac
import re
import unicodedata
from dataclasses import dataclass, replace
from itertools import accumulate

from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import load_der_public_key

from . import canonjson as cj
from .layout import KINDS, MAX_BRANCHES, PACKED, PER_OPTION, Layout, LayoutError, Shape
from . import pimod
from .paillier import KeyError_, PublicKey, ThresholdParams, parse_partial, parse_public_key, parse_threshold_params
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
    return hashlib.sha256(lp(b"fabvote/manifest/v5") + lp(identity)).digest()


def token_digest(mdigest: bytes, election_id: str, pseudonym_: bytes, style: int, voter_pub: bytes) -> bytes:
    """The EA's token digest (version 3): the style is the index of the
    voter's ballot style in the manifest's styles, one byte."""
    return hashlib.sha256(lp(b"fabvote/token/v3") + lp(mdigest) + lp(election_id.encode()) + lp(pseudonym_)
                          + lp(bytes([style])) + lp(voter_pub)).digest()


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

MANIFEST_VERSION = 5
MANIFEST_FIELDS = ["version", "electionID", "channel", "title", "contests", "styles", "encodingBits", "maxVoters",
                   "paillierKey", "threshold", "keyOrigin", "tokenKey", "pseudonymKeyCommitment", "authorityMSP",
                   "trusteeMSPs", "start", "end", "maxClockSkewSeconds", "challengeBits"]
# boothDigest is optional: absent when empty, else last (Go's omitempty).
MANIFEST_OPTIONAL = "boothDigest"
# keyCeremony is present exactly for a distributed key, after keyOrigin.
KEY_CEREMONY = "keyCeremony"
KEY_CEREMONY_FIELDS = ["id", "modulusProof", "selfTest"]
KEY_ORIGIN_DEALER, KEY_ORIGIN_DISTRIBUTED = "dealer", "distributed"
CEREMONY_ID_LEN = 16
BOOTH_DIGEST_RE = re.compile(r"sha256:[0-9a-f]{64}")
CONTEST_FIELDS = ["id", "title", "options", "minSelections", "maxSelections", "blank", "encoding"]
STYLE_FIELDS = ["id", "contests"]
MAX_MANIFEST_SIZE = 256 * 1024
MAX_CONTESTS = 32
MAX_STYLES = 64


@dataclass(frozen=True)
class Contest:
    """One question of the manifest (contests spec): its options, min..max
    of them to select, blank allowed or not, and its layout kind."""
    id: str
    title: str
    options: tuple
    min: int
    max: int
    blank: bool
    encoding: str

    def marshal(self) -> str:
        return _object([
            ("id", cj.encode_string(self.id)),
            ("title", cj.encode_string(self.title)),
            ("options", cj.encode_str_list(list(self.options))),
            ("minSelections", str(self.min)),
            ("maxSelections", str(self.max)),
            ("blank", "true" if self.blank else "false"),
            ("encoding", cj.encode_string(self.encoding)),
        ])


@dataclass(frozen=True)
class Style:
    """A ballot style: the ids of the contests its voters answer, in the
    manifest's contest order."""
    id: str
    contests: tuple

    def marshal(self) -> str:
        return _object([("id", cj.encode_string(self.id)), ("contests", cj.encode_str_list(list(self.contests)))])


@dataclass(frozen=True)
class KeyCeremony:
    """The public record of a dealer-free key ceremony (PROTOCOL 3.1): its
    id, the Πmod proof that N is a Paillier–Blum modulus ("FVPM"), and each
    trustee's self-test partial decryption ("FVPD"), trustee j's at j−1."""
    id: bytes
    modulus_proof: bytes
    self_test: tuple

    def marshal(self) -> str:
        return _object([
            ("id", cj.encode_bytes(self.id)),
            ("modulusProof", cj.encode_bytes(self.modulus_proof)),
            ("selfTest", "[" + ",".join(cj.encode_bytes(b) for b in self.self_test) + "]"),
        ])


def _object(parts) -> str:
    return "{" + ",".join('"%s":%s' % kv for kv in parts) + "}"


@dataclass(frozen=True)
class Manifest:
    version: int
    election_id: str
    channel: str
    title: str
    contests: tuple
    styles: tuple
    encoding_bits: int
    max_voters: int
    paillier_key: bytes
    threshold: bytes
    key_origin: str
    token_key: bytes
    pseudonym_key_commitment: bytes
    authority_msp: str
    trustee_msps: tuple
    start: tuple
    end: tuple
    max_clock_skew_seconds: int
    challenge_bits: int
    booth_digest: str = ""
    key_ceremony: KeyCeremony | None = None

    def marshal(self) -> bytes:
        parts = [
            ("version", str(self.version)),
            ("electionID", cj.encode_string(self.election_id)),
            ("channel", cj.encode_string(self.channel)),
            ("title", cj.encode_string(self.title)),
            ("contests", "[" + ",".join(c.marshal() for c in self.contests) + "]"),
            ("styles", "[" + ",".join(s.marshal() for s in self.styles) + "]"),
            ("encodingBits", str(self.encoding_bits)),
            ("maxVoters", str(self.max_voters)),
            ("paillierKey", cj.encode_bytes(self.paillier_key)),
            ("threshold", cj.encode_bytes(self.threshold)),
            ("keyOrigin", cj.encode_string(self.key_origin)),
        ]
        if self.key_ceremony is not None:
            parts.append((KEY_CEREMONY, self.key_ceremony.marshal()))
        parts += [
            ("tokenKey", cj.encode_bytes(self.token_key)),
            ("pseudonymKeyCommitment", cj.encode_bytes(self.pseudonym_key_commitment)),
            ("authorityMSP", cj.encode_string(self.authority_msp)),
            ("trusteeMSPs", cj.encode_str_list(list(self.trustee_msps))),
            ("start", '"' + cj.format_time(self.start) + '"'),
            ("end", '"' + cj.format_time(self.end) + '"'),
            ("maxClockSkewSeconds", str(self.max_clock_skew_seconds)),
            ("challengeBits", str(self.challenge_bits)),
        ]
        if self.booth_digest:
            parts.append((MANIFEST_OPTIONAL, cj.encode_string(self.booth_digest)))
        return _object(parts).encode("utf-8", "surrogatepass")

    def digest(self) -> bytes:
        return manifest_digest(replace(self, start=cj.ZERO_TIME, end=cj.ZERO_TIME).marshal())

    def contest_index(self, cid: str) -> int:
        """The index of the contest with id cid, or -1."""
        return next((i for i, c in enumerate(self.contests) if c.id == cid), -1)


@dataclass(frozen=True)
class StatementAt:
    """One statement of the layout (layout.Statement), where a ballot that
    answers its contest holds it: its ciphertexts begin at the contest's
    first ciphertext; is_sum marks a per-option contest's sum statement,
    whose failure is LIMIT (contests spec, ballot)."""
    contest: int
    index: int
    statement: object
    proof_len: int
    is_sum: bool


@dataclass
class Prepared:
    """A validated manifest with everything a ballot check needs: the
    layout over all contests, each contest's statements (with their proof
    lengths) and ciphertext count, and each style's contest indices."""
    manifest: Manifest
    raw: bytes
    pk: PublicKey
    threshold: ThresholdParams | None
    token_key: ec.EllipticCurvePublicKey
    digest: bytes
    layout: Layout
    statements: list  # per contest: [StatementAt] in the layout's order
    style_contests: list  # per style: tuple of contest indices, in manifest order

    def __post_init__(self):
        # What every ballot's check uses, fixed for the election: made once.
        # weights: every slot's tally weight, the slots of all contests in
        # order; first_slots: each contest's first slot among them;
        # contexts: per contest, each statement's zkp context.
        self.weights = [w for c in self.layout.contests for w in c.tally_weights]
        self.first_slots = list(accumulate((c.ciphertexts for c in self.layout.contests[:-1]), initial=0))
        self.contexts = [[self.context(st.statement.messages) for st in sts] for sts in self.statements]

    def context(self, messages) -> Context:
        """The zkp context of a statement with these messages."""
        m = self.manifest
        return Context(self.digest, m.election_id, self.pk, list(messages), m.challenge_bits)

    def first_slot(self, ci: int) -> int:
        """The slot of contest ci's first ciphertext among all contests'."""
        return self.first_slots[ci]

    def ciphertext_len(self, contests) -> int:
        """The ciphertext field's length for a ballot answering contests."""
        return sum(self.layout.contests[ci].ciphertexts for ci in contests) * self.pk.ciphertext_len

    def proof_len(self, contests) -> int:
        """The proof field's length for a ballot answering contests."""
        return sum(st.proof_len for ci in contests for st in self.statements[ci])

    def ballot_len(self, contests) -> int:
        """The length of every encoded ballot answering contests."""
        m = self.manifest
        fixed = 1 + 7 * 4 + len(m.election_id.encode()) + VOTER_PUB_LEN + TOKEN_LEN + SIGNATURE_LEN
        return fixed + len(contests) + self.ciphertext_len(contests) + self.proof_len(contests)


def decode_manifest(raw: bytes) -> Manifest:
    """Canonical decoding only (DECODE / SIZE)."""
    if len(raw) > MAX_MANIFEST_SIZE:
        raise ElectionError("SIZE", f"manifest has {len(raw)} bytes")
    try:
        pairs = cj.load_object(raw, "manifest")
        f = cj.check_fields(pairs, _manifest_names(pairs), "manifest")
        m = Manifest(
            version=_int(f["version"], "version"),
            election_id=cj.string(f["electionID"], "electionID"),
            channel=cj.string(f["channel"], "channel"),
            title=cj.string(f["title"], "title"),
            contests=tuple(_decode_contest(v, f"contests[{i}]") for i, v in enumerate(_list(f["contests"], "contests"))),
            styles=tuple(_decode_style(v, f"styles[{i}]") for i, v in enumerate(_list(f["styles"], "styles"))),
            encoding_bits=cj.uint(f["encodingBits"], "encodingBits"),
            max_voters=cj.uint(f["maxVoters"], "maxVoters"),
            paillier_key=cj.decode_b64(f["paillierKey"], "paillierKey"),
            threshold=cj.decode_b64(f["threshold"], "threshold"),
            key_origin=cj.string(f["keyOrigin"], "keyOrigin"),
            key_ceremony=_decode_key_ceremony(f[KEY_CEREMONY]) if KEY_CEREMONY in f else None,
            token_key=cj.decode_b64(f["tokenKey"], "tokenKey"),
            pseudonym_key_commitment=cj.decode_b64(f["pseudonymKeyCommitment"], "pseudonymKeyCommitment"),
            authority_msp=cj.string(f["authorityMSP"], "authorityMSP"),
            trustee_msps=tuple(cj.str_list(f["trusteeMSPs"], "trusteeMSPs")),
            start=cj.parse_time(f["start"], "start"),
            end=cj.parse_time(f["end"], "end"),
            max_clock_skew_seconds=cj.uint(f["maxClockSkewSeconds"], "maxClockSkewSeconds", 32),
            challenge_bits=_int(f["challengeBits"], "challengeBits"),
            booth_digest=cj.string(f.get(MANIFEST_OPTIONAL, ""), MANIFEST_OPTIONAL),
        )
    except cj.CanonError as e:
        raise ElectionError("DECODE", f"manifest: {e}") from None
    if m.marshal() != raw:
        raise ElectionError("DECODE", "manifest: not the canonical encoding")
    return m


def _manifest_names(pairs) -> list:
    """The fields a manifest with these keys must have, in order: the
    optional ones where they go when present."""
    keys = [k for k, _ in pairs]
    names = list(MANIFEST_FIELDS)
    if KEY_CEREMONY in keys:
        names.insert(names.index("keyOrigin") + 1, KEY_CEREMONY)
    if keys and keys[-1] == MANIFEST_OPTIONAL:
        names.append(MANIFEST_OPTIONAL)
    return names


def _decode_key_ceremony(v) -> KeyCeremony:
    f = _members(v, KEY_CEREMONY_FIELDS, KEY_CEREMONY)
    return KeyCeremony(
        id=cj.decode_b64(f["id"], "keyCeremony.id"),
        modulus_proof=cj.decode_b64(f["modulusProof"], "keyCeremony.modulusProof"),
        self_test=tuple(cj.decode_b64(b, f"keyCeremony.selfTest[{i}]")
                        for i, b in enumerate(_list(f["selfTest"], "keyCeremony.selfTest"))),
    )


def _list(v, field) -> list:
    """A JSON array (a JSON object decodes to a list of pairs: refused by
    the canonical comparison, or by the member decoder)."""
    if not isinstance(v, list):
        raise cj.CanonError(f"field {field}: not a list")
    return v


def _members(v, names, field) -> dict:
    """A nested JSON object's members, exactly names in order."""
    if not isinstance(v, list) or not all(isinstance(kv, tuple) for kv in v):
        raise cj.CanonError(f"field {field}: not an object")
    return cj.check_fields(v, names, field)


def _bool(v, field) -> bool:
    if type(v) is not bool:
        raise cj.CanonError(f"field {field}: not a bool")
    return v


def _decode_contest(v, field) -> Contest:
    f = _members(v, CONTEST_FIELDS, field)
    return Contest(
        id=cj.string(f["id"], f"{field}.id"),
        title=cj.string(f["title"], f"{field}.title"),
        options=tuple(cj.str_list(f["options"], f"{field}.options")),
        min=_int(f["minSelections"], f"{field}.minSelections"),
        max=_int(f["maxSelections"], f"{field}.maxSelections"),
        blank=_bool(f["blank"], f"{field}.blank"),
        encoding=cj.string(f["encoding"], f"{field}.encoding"),
    )


def _decode_style(v, field) -> Style:
    f = _members(v, STYLE_FIELDS, field)
    return Style(id=cj.string(f["id"], f"{field}.id"), contests=tuple(cj.str_list(f["contests"], f"{field}.contests")))


def _int(v, field):
    if type(v) is not int or not -(1 << 63) <= v < 1 << 63:
        raise cj.CanonError(f"field {field}: not an int")
    return v


def _bad(field, why):
    raise ElectionError("MANIFEST", f"manifest field {field}: {why}")


def prepare_manifest(raw: bytes) -> Prepared:
    """Decode and validate every field (MANIFEST, naming the field), in the
    Go verifier's order: the election's names, the contests and styles,
    encodingBits, the keys, the parties, the window, the proof's parameters,
    then the layout of all contests (manifest version 5)."""
    m = decode_manifest(raw)
    _check_names(m)
    _check_contests(m)
    _check_styles(m)
    _check_encoding_bits(m)
    pk, tp, tk = _check_keys(m)
    _check_parties_and_window(m)
    t = m.challenge_bits
    if t % 8 or not 128 <= t <= 256:
        _bad("challengeBits", "not a multiple of 8 in 128..256")
    if t + RHO_BITS + 2 >= pk.n.bit_length() // 2:
        _bad("challengeBits", "too long for the modulus")
    if m.booth_digest and not BOOTH_DIGEST_RE.fullmatch(m.booth_digest):
        _bad("boothDigest", "not sha256: and 64 lowercase hex digits")
    layout, statements = _layout(m, pk)
    styles = [tuple(m.contest_index(cid) for cid in s.contests) for s in m.styles]
    prep = Prepared(m, raw, pk, tp, tk, m.digest(), layout, statements, styles)
    _check_ballot_size(prep)
    return prep


def _check_names(m) -> None:
    """The version and the election's names."""
    if m.version != MANIFEST_VERSION:
        _bad("version", f"{m.version}, want {MANIFEST_VERSION}")
    if not valid_election_id(m.election_id):
        _bad("electionID", "not 1..64 of [A-Za-z0-9._-] starting with a letter or digit")
    if not _CHANNEL.fullmatch(m.channel):
        _bad("channel", "not 1..249 of [a-z0-9.-] starting with a letter")
    if not _name_ok(m.title):
        _bad("title", "not 1..200 bytes of UTF-8 without control characters")


def _check_contests(m) -> None:
    """1..32 contests: distinct ids, titles and options like the title,
    options distinct, a valid shape, a known encoding, and packed only
    with at most 1024 valid selections."""
    if not 1 <= len(m.contests) <= MAX_CONTESTS:
        _bad("contests", f"{len(m.contests)} contests, want 1..{MAX_CONTESTS}")
    seen = {}
    for i, c in enumerate(m.contests):
        field = f"contests[{i}]"
        if not valid_election_id(c.id):
            _bad(f"{field}.id", "not 1..64 of [A-Za-z0-9._-] starting with a letter or digit")
        if c.id in seen:
            _bad(f"{field}.id", f"{c.id!r} repeats contests[{seen[c.id]}]")
        seen[c.id] = i
        if not _name_ok(c.title):
            _bad(f"{field}.title", "not 1..200 bytes of UTF-8 without control characters")
        names = {}
        for j, o in enumerate(c.options):
            if not _name_ok(o):
                _bad(f"{field}.options[{j}]", "not 1..200 bytes of UTF-8 without control characters")
            if o in names:
                _bad(f"{field}.options[{j}]", f"repeats {field}.options[{names[o]}]")
            names[o] = j
        try:
            shape = Shape(len(c.options), c.min, c.max, c.blank)
        except LayoutError as e:
            _bad(field + _SHAPE_FIELDS.get(e.field, "." + e.field), e.msg)
        if c.encoding not in KINDS:
            _bad(f"{field}.encoding", f"{c.encoding!r} is neither {PACKED!r} nor {PER_OPTION!r}")
        if c.encoding == PACKED and shape.selections > MAX_BRANCHES:
            _bad(f"{field}.encoding", f"packed with {shape.selections} valid selections, more than {MAX_BRANCHES}")


# layout.Shape's field names as the manifest's
_SHAPE_FIELDS = {"min": ".minSelections", "max": ".maxSelections", "shape": ""}


def _check_styles(m) -> None:
    """1..64 styles: distinct ids like a contest's, each listing at least
    one contest of the manifest, strictly in the manifest's contest order;
    every contest in some style."""
    if not 1 <= len(m.styles) <= MAX_STYLES:
        _bad("styles", f"{len(m.styles)} styles, want 1..{MAX_STYLES}")
    seen, used = {}, set()
    for i, s in enumerate(m.styles):
        field = f"styles[{i}]"
        if not valid_election_id(s.id):
            _bad(f"{field}.id", "not 1..64 of [A-Za-z0-9._-] starting with a letter or digit")
        if s.id in seen:
            _bad(f"{field}.id", f"{s.id!r} repeats styles[{seen[s.id]}]")
        seen[s.id] = i
        if not s.contests:
            _bad(f"{field}.contests", "lists no contest")
        last = -1
        for k, cid in enumerate(s.contests):
            ci = m.contest_index(cid)
            if ci < 0:
                _bad(f"{field}.contests[{k}]", f"{cid!r} is no contest of the election")
            if ci <= last:
                _bad(f"{field}.contests[{k}]", f"{cid!r} is listed twice or out of the contests' order")
            last = ci
            used.add(ci)
    for ci, c in enumerate(m.contests):
        if ci not in used:
            _bad(f"contests[{ci}]", f"{c.id!r} is in no style")


def _check_encoding_bits(m) -> None:
    if m.max_voters < 1:
        _bad("maxVoters", "must be at least 1")
    if not (m.max_voters.bit_length() <= m.encoding_bits <= 64):
        _bad("encodingBits", "need 2^encodingBits > maxVoters and encodingBits ≤ 64")


def _layout(m, pk):
    """The layout of all contests, each in its stated encoding: the packed
    tally below N (FitsModulus) and every statement's proof context sound
    (zkp Context.Check). Returns it with each contest's statements."""
    try:
        layout = Layout.build(m.encoding_bits, [Shape(len(c.options), c.min, c.max, c.blank) for c in m.contests],
                              [c.encoding for c in m.contests])
    except LayoutError as e:
        _bad(e.field, e.msg)
    if not layout.fits_modulus(pk.n):
        _bad("contests", f"encodingBits · {layout.digits} digits = {m.encoding_bits * layout.digits} bits "
                         f"does not fit below N ({pk.n.bit_length()} bits)")
    branch = pk.ciphertext_len + m.challenge_bits // 8 + pk.modulus_len
    statements = []
    for ci, cl in enumerate(layout.contests):
        sts = cl.statements
        out = []
        for k, st in enumerate(sts):
            _check_context(f"contests[{ci}]", k, st.messages, pk.n)
            is_sum = cl.kind == PER_OPTION and cl.shape.has_sum_proof and k == len(sts) - 1
            out.append(StatementAt(ci, k, st, len(st.messages) * branch, is_sum))
        statements.append(out)
    return layout, statements


def _check_context(field, k, messages, n) -> None:
    """A proof context's messages: 1..1024 of them, distinct, in [0, N)."""
    if not 1 <= len(messages) <= MAX_BRANCHES:
        _bad(field, f"statement {k} has {len(messages)} messages, want 1..{MAX_BRANCHES}")
    if len(set(messages)) != len(messages) or not all(0 <= x < n for x in messages):
        _bad(field, f"statement {k}: messages not distinct and in [0, N)")


def _check_ballot_size(prep) -> None:
    """The largest style's ballot fits MaxBallotSize."""
    for i, cs in enumerate(prep.style_contests):
        n = prep.ballot_len(cs)
        if n > MAX_BALLOT_SIZE:
            _bad(f"styles[{i}]", f"a ballot of the style would have {n} bytes, more than the {MAX_BALLOT_SIZE} a ballot may have")


def _check_keys(m):
    """The Paillier key (and threshold parameters) and the token key."""
    try:
        pk = parse_public_key(m.paillier_key)
    except KeyError_ as e:
        _bad("paillierKey", str(e))
    tp = None
    if m.threshold:
        try:
            tp = parse_threshold_params(m.threshold, pk)
        except KeyError_ as e:
            _bad("threshold", str(e))
    _check_key_origin(m, tp)
    try:
        tk = load_der_public_key(m.token_key)
    except (ValueError, TypeError):
        _bad("tokenKey", "not a PKIX DER public key")
    if not isinstance(tk, ec.EllipticCurvePublicKey) or not isinstance(tk.curve, ec.SECP256R1):
        _bad("tokenKey", "not an ECDSA P-256 key")
    if len(m.pseudonym_key_commitment) != 32:
        _bad("pseudonymKeyCommitment", "not 32 bytes")
    return pk, tp, tk


def _check_key_origin(m, tp) -> None:
    """keyOrigin and keyCeremony's form (PROTOCOL 3.1): decodings, lengths
    and counts under the threshold parameters tp, not the proofs (V33)."""
    kc = m.key_ceremony
    if m.key_origin == KEY_ORIGIN_DEALER:
        if kc is not None:
            _bad(KEY_CEREMONY, "set, but a dealt key has no ceremony")
        return
    if m.key_origin != KEY_ORIGIN_DISTRIBUTED:
        _bad("keyOrigin", f"{m.key_origin[:80]!r}, want {KEY_ORIGIN_DEALER!r} or {KEY_ORIGIN_DISTRIBUTED!r}")
    if kc is None:
        _bad(KEY_CEREMONY, "missing: a distributed key needs the ceremony's public result")
    if tp is None:
        _bad("threshold", "empty: a distributed key needs the trustees' parameters")
    if tp.version != 2:
        _bad("threshold", "version 1 (a dealer's shares): a distributed key needs version 2")
    if len(kc.id) != CEREMONY_ID_LEN:
        _bad("keyCeremony.id", f"{len(kc.id)} bytes, want {CEREMONY_ID_LEN}")
    if len(kc.self_test) != tp.l:
        _bad("keyCeremony.selfTest", f"{len(kc.self_test)} partials, want one per trustee: {tp.l}")
    try:
        pimod.parse(tp.pk.n, kc.modulus_proof)
    except pimod.PimodError as e:
        _bad("keyCeremony.modulusProof", str(e))
    for i, b in enumerate(kc.self_test):
        try:
            parse_partial(b, tp)
        except KeyError_ as e:
            _bad(f"keyCeremony.selfTest[{i}]", str(e))


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

BALLOT_VERSION = 3
MAX_BALLOT_SIZE = 104 * 1024
PSEUDONYM_LEN = 32
VOTER_PUB_LEN = 65
SIGNATURE_LEN = 64
TOKEN_LEN = PSEUDONYM_LEN + 1 + SIGNATURE_LEN  # pseudonym ‖ style ‖ r ‖ s


@dataclass(frozen=True)
class Ballot:
    election_id: str
    voter_pub: bytes
    token: bytes
    contests: bytes  # each byte a contest's index in the manifest's contests
    ciphertext: bytes
    proof: bytes
    signature: bytes

    @property
    def pseudonym(self) -> bytes:
        return self.token[:PSEUDONYM_LEN]

    @property
    def style(self) -> int:
        """The token's style: the index of a style of the manifest."""
        return self.token[PSEUDONYM_LEN]

    @property
    def token_sig(self) -> bytes:
        return self.token[PSEUDONYM_LEN + 1:]

    def marshal(self) -> bytes:
        return (bytes([BALLOT_VERSION]) + lp(self.election_id.encode()) + lp(self.voter_pub) + lp(self.token)
                + lp(self.contests) + lp(self.ciphertext) + lp(self.proof) + lp(self.signature))

    def signing_digest(self) -> bytes:
        return hashlib.sha256(lp(b"fabvote/ballot/v3") + lp(self.election_id.encode()) + lp(self.voter_pub)
                              + lp(self.token) + lp(self.contests) + lp(self.ciphertext) + lp(self.proof)).digest()


def parse_ballot(raw: bytes) -> Ballot:
    if len(raw) > MAX_BALLOT_SIZE:
        raise ElectionError("SIZE", f"ballot has {len(raw)} bytes")
    if not raw or raw[0] != BALLOT_VERSION:
        raise ElectionError("DECODE", "ballot: unknown version")
    pos = 1
    fields = []
    # (name, exact length or 0, maximum length)
    for name, exact, mx in (("electionID", 0, 64), ("voterPub", VOTER_PUB_LEN, VOTER_PUB_LEN),
                            ("token", TOKEN_LEN, TOKEN_LEN), ("contests", 0, MAX_CONTESTS),
                            ("ciphertext", 0, MAX_BALLOT_SIZE), ("proof", 0, MAX_BALLOT_SIZE),
                            ("signature", SIGNATURE_LEN, SIGNATURE_LEN)):
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
    if not fields[3]:
        raise ElectionError("DECODE", "ballot: empty contests")
    if not fields[4] or not fields[5]:
        raise ElectionError("DECODE", "ballot: empty ciphertext or proof")
    try:
        p256_point(fields[1])
        canonical_rs(fields[2][PSEUDONYM_LEN + 1:])
        canonical_rs(fields[6])
    except SigError as e:
        raise ElectionError("DECODE", f"ballot: {e}") from None
    b = Ballot(eid, *fields[1:])
    assert b.marshal() == raw
    return b


def check_style(prep: Prepared, b: Ballot) -> None:
    """The token names a style of the manifest (TOKEN otherwise)."""
    n = len(prep.manifest.styles)
    if b.style >= n:
        raise ElectionError("TOKEN", f"token names style {b.style}; the election has {n}")


def check_ballot_contests(prep: Prepared, b: Ballot) -> tuple:
    """The ballot's contests against its token's style S (contests spec,
    ballot), in order: for each byte, a contest not in S (or no contest)
    NOT_IN_STYLE, one listed before CONTEST_REPEAT, one below the previous
    CONTEST_ORDER; then fewer than S's CONTEST_MISSING. Returns them: S's
    contests exactly, in manifest order."""
    style = prep.style_contests[b.style]
    sid = prep.manifest.styles[b.style].id
    listed = []
    for k, ci in enumerate(b.contests):
        if ci >= len(prep.manifest.contests):
            raise ElectionError("NOT_IN_STYLE", f"contests[{k}] is {ci}, but the election has {len(prep.manifest.contests)} contests")
        if ci not in style:
            raise ElectionError("NOT_IN_STYLE", f"contests[{k}] is contest {ci}, which is not in the token's style {sid!r}")
        if ci in listed:
            raise ElectionError("CONTEST_REPEAT", f"contests[{k}] lists contest {ci} again")
        if listed and ci < listed[-1]:
            raise ElectionError("CONTEST_ORDER", f"contests[{k}] is contest {ci}, after contest {listed[-1]}")
        listed.append(ci)
    if len(listed) < len(style):
        missing = [ci for ci in style if ci not in listed]
        raise ElectionError("CONTEST_MISSING", f"the ballot answers {len(listed)} of the {len(style)} contests of "
                                               f"its style {sid!r}: contest {missing[0]} is missing")
    return tuple(listed)


# ---------------------------------------------------------------- 3.5 result

RESULT_VERSION = 2
RESULT_FIELDS = ["version", "electionID", "ballotCount", "product", "tally", "contests", "decryptionNonce", "partials"]
CONTEST_RESULT_FIELDS = ["id", "ballots", "counts", "blank", "undervotes"]
MAX_RESULT_SIZE = 512 * 1024


@dataclass(frozen=True)
class ContestResult:
    """One contest's count (result version 2): of the ballots that answer
    it, blank voted blank, the others selected option j counts[j] times and
    left undervotes selections unused."""
    id: str
    ballots: int
    counts: tuple
    blank: int
    undervotes: int

    def marshal(self) -> str:
        return _object([
            ("id", cj.encode_string(self.id)),
            ("ballots", str(self.ballots)),
            ("counts", cj.encode_uint_list(list(self.counts))),
            ("blank", str(self.blank)),
            ("undervotes", str(self.undervotes)),
        ])


@dataclass(frozen=True)
class Result:
    version: int
    election_id: str
    ballot_count: int
    product: bytes
    tally: bytes
    contests: tuple
    decryption_nonce: bytes
    partials: tuple

    def marshal(self) -> bytes:
        parts = [
            ("version", str(self.version)),
            ("electionID", cj.encode_string(self.election_id)),
            ("ballotCount", str(self.ballot_count)),
            ("product", cj.encode_bytes(self.product)),
            ("tally", cj.encode_bytes(self.tally)),
            ("contests", "[" + ",".join(c.marshal() for c in self.contests) + "]"),
            ("decryptionNonce", cj.encode_bytes(self.decryption_nonce)),
            ("partials", cj.encode_bytes_list(list(self.partials))),
        ]
        return _object(parts).encode("utf-8", "surrogatepass")


def _decode_contest_result(v, field) -> ContestResult:
    f = _members(v, CONTEST_RESULT_FIELDS, field)
    return ContestResult(
        id=cj.string(f["id"], f"{field}.id"),
        ballots=cj.uint(f["ballots"], f"{field}.ballots"),
        counts=tuple(cj.uint(c, f"{field}.counts") for c in _list(f["counts"], f"{field}.counts")),
        blank=cj.uint(f["blank"], f"{field}.blank"),
        undervotes=cj.uint(f["undervotes"], f"{field}.undervotes"),
    )


def decode_result(raw: bytes) -> Result:
    if len(raw) > MAX_RESULT_SIZE:
        raise ElectionError("SIZE", f"result has {len(raw)} bytes")
    try:
        f = cj.check_fields(cj.load_object(raw, "result"), RESULT_FIELDS, "result")
        r = Result(
            version=_int(f["version"], "version"),
            election_id=cj.string(f["electionID"], "electionID"),
            ballot_count=cj.uint(f["ballotCount"], "ballotCount"),
            product=cj.decode_b64(f["product"], "product"),
            tally=cj.decode_b64(f["tally"], "tally"),
            contests=tuple(_decode_contest_result(v, f"contests[{i}]") for i, v in enumerate(_list(f["contests"], "contests"))),
            decryption_nonce=cj.decode_b64(f["decryptionNonce"], "decryptionNonce"),
            partials=tuple(cj.decode_b64(p, "partials") for p in _list(f["partials"], "partials")),
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
