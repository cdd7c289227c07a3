"""docs/VERIFY.md V32: the tracker keys' writes (docs/RECORD.md 4.1) are
spoiled ballots whose openings check, and every ciphertext is claimed
once: by the valid cast ballot that holds it or by the spoiled ballot
that opened it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .election import ElectionError
from .spoiled import check_spoiled, ciphertext_digest, parse_claim, parse_spoiled

# A ciphertext claim longer than this is refused for its size (SIZE)
# rather than as a wrong encoding (docs/VERIFY.md V32).
MAX_CLAIM_SIZE = 256
# A tracker or claim key's one attribute: 64 lower-case hex digits.
_ATTR = re.compile(r"([0-9a-f]{64})\0")


@dataclass(frozen=True)
class Cast:
    """A ballot that passed V14–V19: its pseudonym, the subject of its
    failures and its ciphertexts' digests (hex), in ballot order."""
    pseudonym: str
    subject: str
    digests: tuple


def ballot_digests(prep, ciphertexts: list) -> tuple:
    """The digests of a valid ballot's ciphertexts (each in range, so its
    fixed-length bytes are the ballot's)."""
    w = prep.pk.ciphertext_len
    return tuple(ciphertext_digest(c.to_bytes(w, "big")).hex() for c in ciphertexts)


@dataclass(frozen=True)
class _Spoiled:
    """A tracker key's first write that passed rule 3."""
    tracker: str
    subject: str
    digests: tuple


def _name(rest: str) -> str:
    """K of a subject `tracker K (tx T)`: the key after the prefix, without
    the separator that ends a composite key's attribute."""
    return rest[:-1] if rest.endswith("\0") else rest


def _first_writes(what: str, writes: dict, rep) -> dict:
    """Rule 1 on the keys under one prefix (what: "tracker" or
    "ciphertext"): attribute -> (txid, value of its first write, None for
    a deletion), for the keys whose attribute is well formed."""
    first = {}
    for rest, ws in sorted(writes.items()):
        m = _ATTR.fullmatch(rest)
        for k, (pos, txid, w) in enumerate(ws):
            subj = f"{what} {_name(rest)} (tx {txid})"
            if m is None:
                rep.fail("TRACKER", subj, f"block {pos[0]} writes a key under the {what} prefix that is no {what} key")
            elif k > 0 or w.is_delete:
                rep.fail("TRACKER", subj, f"the {what} key is {'deleted' if w.is_delete else 'written again'} (block {pos[0]})")
        if m is not None:
            pos, txid, w = ws[0]
            first[m.group(1)] = (txid, None if w.is_delete else w.value)
    return first


def check_trackers(prep, writes: dict, claim_writes: dict, cast: list, rep) -> None:
    """writes, claim_writes: the key after the tracker, the ciphertext
    prefix -> [(pos, txid, Write)] in commit order; cast: the Cast of every
    ballot that passed V14–V19."""
    held, valid = set(), []
    for k_hex, (txid, value) in sorted(_first_writes("tracker", writes, rep).items()):
        if value is not None:
            _check_spoiled_value(prep, k_hex, f"tracker {k_hex} (tx {txid})", value, held, valid, rep)
    held.update(d for x in cast for d in x.digests)
    claims = {}
    for d, (txid, value) in sorted(_first_writes("ciphertext", claim_writes, rep).items()):
        if value is None:
            continue
        c = parse_claim(value)
        subj = f"ciphertext {d} (tx {txid})"
        if c is None:
            rep.fail("TRACKER", subj, "the ciphertext claim does not decode",
                     code="SIZE" if len(value) > MAX_CLAIM_SIZE else "DECODE")
            claims[d] = None
            continue
        claims[d] = c
        if d not in held:
            rep.fail("TRACKER", subj, f"the {c[0]} claim names {c[1]}, but no valid ballot and no spoiled ballot holds the ciphertext",
                     pseudonym=c[1] if c[0] == "cast" else None)
    if claim_writes:  # blocks with no claim write are of a contract without ciphertext claims
        for x in cast:
            _check_held(x.subject, x.digests, ("cast", x.pseudonym), claims, rep, x.pseudonym)
    for s in valid:
        _check_held(s.subject, s.digests, ("spoiled", s.tracker), claims, rep, None)


def _check_spoiled_value(prep, k_hex: str, subj: str, value: bytes, held: set, valid: list, rep) -> None:
    """Rule 3: the value is a spoiled ballot of tracker K whose opening
    checks. The ciphertexts of one that decodes are held; one that passes
    is valid."""
    try:
        s = parse_spoiled(value)
    except ElectionError as e:
        rep.fail("SPOILED_INVALID", subj, str(e), code=e.code)
        return
    digests = tuple(ciphertext_digest(c).hex() for c in s.ciphertexts)
    held.update(digests)
    if s.tracker().hex() != k_hex:
        rep.fail("SPOILED_INVALID", subj, f"the spoiled ballot's tracker is {s.tracker().hex()}, not its key's")
        return
    try:
        check_spoiled(prep, s)
    except ElectionError as e:
        rep.fail("SPOILED_INVALID", subj, str(e), code=e.code)
        return
    valid.append(_Spoiled(k_hex, subj, digests))


# The code of a holder's failure when its ciphertext's claim is the other
# kind's, or its own kind's naming another holder.
_OTHER_KIND = {"cast": "SPOILED", "spoiled": "CAST_OPENED"}
_OTHER_HOLDER = {"cast": "DUPLICATE", "spoiled": "EXISTS"}


def _check_held(subj: str, digests: tuple, want: tuple, claims: dict, rep, pseudonym) -> None:
    """Rule 5: each of a holder's ciphertexts carries its claim naming it;
    the first that does not fails, once."""
    for i, d in enumerate(digests):
        if d not in claims:
            rep.fail("TRACKER", subj, f"no claim on its ciphertext {i} ({d})", pseudonym=pseudonym)
            return
        c = claims[d]
        if c is None or c == want:  # a claim that does not decode failed rule 2
            continue
        code = _OTHER_KIND[want[0]] if c[0] != want[0] else _OTHER_HOLDER[want[0]]
        rep.fail("TRACKER", subj, f"its ciphertext {i} ({d}) is claimed by the {c[0]} ballot {c[1]}", code=code, pseudonym=pseudonym)
        return
