"""Spoiled ballots and ciphertext claims (docs/PROTOCOL.md 4.5;
docs/VERIFY.md V32): the tracker of a ballot, the digest of a ciphertext,
the strict decoding of a spoiled ballot and of a ciphertext claim, and the check
of a spoiled ballot's opening against its ciphertexts: in range,
re-encrypted, and each contest's plaintexts one valid selection, which
the check returns (the revealed choice)."""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass

from .election import ElectionError, Prepared, lp, valid_election_id
from .layout import BLANK, PACKED

TRACKER_TAG = b"fabvote/tracker/v1"
CIPHERTEXT_TAG = b"fabvote/ciphertext/v1"
SPOILED_FORMAT, SPOILED_VERSION = "fabvote/spoiled-ballot", 1
CLAIM_FORMAT, CLAIM_VERSION = "fabvote/ciphertext-claim", 1
MAX_SPOILED_SIZE = 64 * 1024
MAX_CONTESTS = 32

_HEX = re.compile(r"[0-9a-f]+")
_INT_HEX = re.compile(r"0|[1-9a-f][0-9a-f]*")
_HEX64 = re.compile(r"[0-9a-f]{64}")


def tracker(election_id: str, contests: bytes, ciphertext: bytes) -> bytes:
    """SHA-256 of lp(tag) ‖ lp(electionID) ‖ lp(contests) ‖ lp(ciphertext):
    it commits to the vote and to nothing that names the voter."""
    return hashlib.sha256(lp(TRACKER_TAG) + lp(election_id.encode()) + lp(contests) + lp(ciphertext)).digest()


def ciphertext_digest(c: bytes) -> bytes:
    """SHA-256 of lp(tag) ‖ lp(c), c one ciphertext's fixed-length bytes:
    the attribute of its claim key."""
    return hashlib.sha256(lp(CIPHERTEXT_TAG) + lp(c)).digest()


@dataclass(frozen=True)
class Spoiled:
    election_id: str
    contests: tuple  # manifest contest indices
    ciphertexts: tuple  # bytes, each as written (fixed length when valid)
    plaintexts: tuple  # ints, one per ciphertext
    nonces: tuple  # ints, one per ciphertext

    def tracker(self) -> bytes:
        return tracker(self.election_id, bytes(self.contests), b"".join(self.ciphertexts))

    def marshal(self) -> bytes:
        """The canonical JSON: keys in order, no space, lower-case hex,
        integers of the opening with no leading zero."""
        opened = ",".join(f'{{"plaintext":"{m:x}","nonce":"{r:x}"}}' for m, r in zip(self.plaintexts, self.nonces))
        return (f'{{"format":"{SPOILED_FORMAT}","version":{SPOILED_VERSION},"electionID":"{self.election_id}",'
                f'"contests":[{",".join(str(c) for c in self.contests)}],'
                f'"ciphertexts":[{",".join(chr(34) + c.hex() + chr(34) for c in self.ciphertexts)}],'
                f'"opening":{{"ciphertexts":[{opened}]}}}}').encode()


def _pairs(pairs):
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ElectionError("DECODE", f"spoiled ballot: a key twice in {keys}")
    return pairs  # a list of pairs: the key order is checked by the caller


def _object(v, keys: list, field: str) -> dict:
    if not isinstance(v, list) or [k for k, _ in v] != keys:
        got = [k for k, _ in v] if isinstance(v, list) else type(v).__name__
        raise ElectionError("DECODE", f"spoiled ballot: {field} has keys {got}, want exactly {keys} in this order")
    return dict(v)


def _decode_json(raw: bytes, what: str):
    try:
        return json.loads(raw.decode("utf-8"), object_pairs_hook=_pairs)
    except ElectionError:
        raise
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise ElectionError("DECODE", f"{what}: not JSON: {e}") from None


def parse_spoiled(raw: bytes) -> Spoiled:
    """Strict: at most 64 KiB (SIZE), exactly the keys of the format in its
    order, its format and version, canonical lower-case hex, and the bytes
    the canonical encoding of what they hold (DECODE)."""
    if len(raw) > MAX_SPOILED_SIZE:
        raise ElectionError("SIZE", f"spoiled ballot has {len(raw)} bytes, more than {MAX_SPOILED_SIZE}")
    top = _object(_decode_json(raw, "spoiled ballot"), ["format", "version", "electionID", "contests", "ciphertexts", "opening"], "the object")
    if top["format"] != SPOILED_FORMAT or type(top["version"]) is not int or top["version"] != SPOILED_VERSION:
        raise ElectionError("DECODE", f"spoiled ballot: format {top['format']!r} version {top['version']!r}, want {SPOILED_FORMAT!r} version {SPOILED_VERSION}")
    eid = top["electionID"]
    if not isinstance(eid, str) or not valid_election_id(eid):
        raise ElectionError("DECODE", f"spoiled ballot: electionID {eid!r} is no election id")
    contests = top["contests"]
    if (not isinstance(contests, list) or not 1 <= len(contests) <= MAX_CONTESTS
            or any(type(c) is not int or not 0 <= c < MAX_CONTESTS for c in contests)):
        raise ElectionError("DECODE", f"spoiled ballot: contests {contests!r}, want 1..{MAX_CONTESTS} indices below {MAX_CONTESTS}")
    cts = top["ciphertexts"]
    if not isinstance(cts, list) or not cts or any(not isinstance(c, str) or not _HEX.fullmatch(c) or len(c) % 2 for c in cts):
        raise ElectionError("DECODE", "spoiled ballot: ciphertexts must be a non-empty list of lower-case hex strings")
    if any(len(c) != len(cts[0]) for c in cts):
        raise ElectionError("DECODE", "spoiled ballot: the ciphertexts are not all of one length")
    opened = _object(top["opening"], ["ciphertexts"], "opening")["ciphertexts"]
    if not isinstance(opened, list):
        raise ElectionError("DECODE", "spoiled ballot: opening.ciphertexts is not a list")
    ms, rs = [], []
    for i, o in enumerate(opened):
        o = _object(o, ["plaintext", "nonce"], f"opening.ciphertexts[{i}]")
        for name, out in (("plaintext", ms), ("nonce", rs)):
            v = o[name]
            if not isinstance(v, str) or not _INT_HEX.fullmatch(v):
                raise ElectionError("DECODE", f"spoiled ballot: opening.ciphertexts[{i}].{name} {v!r} is not canonical lower-case hex")
            out.append(int(v, 16))
    if len(ms) != len(cts):
        raise ElectionError("DECODE", f"spoiled ballot: {len(cts)} ciphertexts, {len(ms)} opened: want as many")
    s = Spoiled(eid, tuple(contests), tuple(bytes.fromhex(c) for c in cts), tuple(ms), tuple(rs))
    if s.marshal() != raw:
        raise ElectionError("DECODE", "spoiled ballot: not its canonical encoding (spaces, escapes or a number written otherwise)")
    return s


_CLAIM = re.compile(rb'\{"format":"' + re.escape(CLAIM_FORMAT.encode()) + rb'","version":' + str(CLAIM_VERSION).encode()
                    + rb',"(cast|spoiled)":"([0-9a-f]{64})"\}')


def parse_claim(raw: bytes) -> tuple[str, str] | None:
    """A ciphertext claim's kind ("cast" or "spoiled") and holder (the
    pseudonym or the tracker, hex), or None when raw is not exactly a
    claim's bytes: {"format":…,"version":1,"cast"|"spoiled":"<64 hex>"}."""
    m = _CLAIM.fullmatch(raw)
    return (m.group(1).decode(), m.group(2).decode()) if m else None


def check_contests(prep: Prepared, contests: tuple) -> None:
    """The contests are one style's, in the manifest's order. When no
    style's are exactly the list, the error is the one a cast ballot of
    the style holding most of the listed contests (the first such style)
    gets from V31's rule; NOT_IN_STYLE should that rule find nothing."""
    styles = [tuple(st) for st in prep.style_contests]
    if tuple(contests) in styles:
        return
    best = max(range(len(styles)), key=lambda i: (sum(ci in styles[i] for ci in contests), -i))
    style, n, listed = styles[best], len(prep.manifest.contests), []
    for k, ci in enumerate(contests):
        if ci >= n or ci not in style:
            raise ElectionError("NOT_IN_STYLE", f"contests[{k}] is contest {ci}, which is not in style {best}")
        if ci in listed:
            raise ElectionError("CONTEST_REPEAT", f"contests[{k}] lists contest {ci} again")
        if k > 0 and ci < contests[k - 1]:
            raise ElectionError("CONTEST_ORDER", f"contests[{k}] is contest {ci}, after contest {contests[k - 1]}")
        listed.append(ci)
    missing = [ci for ci in style if ci not in listed]
    if missing:
        raise ElectionError("CONTEST_MISSING", f"contest {missing[0]} of style {best} is missing")
    raise ElectionError("NOT_IN_STYLE", "the contests are no style's")


def _selection(cl, xs: list):
    """The selection the contest's plaintexts encode (options, or BLANK),
    or None when they encode no valid one."""
    if not all(st.holds(xs) for st in cl.statements):
        return None
    if cl.kind == PACKED:
        mask = (1 << cl.bits) - 1
        digits = [(xs[0] >> (cl.bits * (cl.offset + j))) & mask for j in range(cl.shape.digits)]
    else:
        digits = xs
    if cl.shape.blank and digits[cl.shape.options]:
        return BLANK
    return tuple(j for j in range(cl.shape.options) if digits[j])


def check_spoiled(prep: Prepared, s: Spoiled) -> list:
    """CheckSpoiled: election (NO_ELECTION), contests (V31's codes),
    ciphertexts (CIPHERTEXT), opening (OPENING). Returns the revealed
    selection of each contest: a tuple of option indices, or BLANK."""
    pk, eid = prep.pk, prep.manifest.election_id
    if s.election_id != eid:
        raise ElectionError("NO_ELECTION", f"spoiled ballot of election {s.election_id!r}, not {eid!r}")
    check_contests(prep, s.contests)
    want = sum(prep.layout.contests[ci].ciphertexts for ci in s.contests)
    if len(s.ciphertexts) != want or any(len(c) != pk.ciphertext_len for c in s.ciphertexts):
        raise ElectionError("CIPHERTEXT", f"{len(s.ciphertexts)} ciphertext(s), want {want} of {pk.ciphertext_len} bytes each")
    cs = [int.from_bytes(c, "big") for c in s.ciphertexts]
    for i, c in enumerate(cs):
        if not pk.in_zstar_n2(c):
            raise ElectionError("CIPHERTEXT", f"ciphertext {i} not in Z*_{{N²}}")
    if len(s.plaintexts) != len(cs):  # parse_spoiled refuses it (DECODE); kept for a Spoiled built otherwise
        raise ElectionError("OPENING", f"the opening opens {len(s.plaintexts)} ciphertext(s), the ballot has {len(cs)}")
    for i, r in enumerate(s.nonces):
        if not 0 < r < pk.n or math.gcd(r, pk.n) != 1:
            raise ElectionError("OPENING", f"nonce {i} is not in Z*_N")
    out, slot = [], 0
    for ci in s.contests:
        cl = prep.layout.contests[ci]
        xs = list(s.plaintexts[slot:slot + cl.ciphertexts])
        sel = _selection(cl, xs)
        if sel is None:
            raise ElectionError("OPENING", f"contest {ci}: the plaintexts {[hex(x) for x in xs]} encode no valid selection")
        out.append(sel)
        slot += cl.ciphertexts
    for i, (c, m, r) in enumerate(zip(cs, s.plaintexts, s.nonces)):
        if (1 + m * pk.n) * pow(r, pk.n, pk.n2) % pk.n2 != c:
            raise ElectionError("OPENING", f"ciphertext {i} is not the encryption of its plaintext with its nonce")
    return out
