"""docs/VERIFY.md V32: the tracker keys' writes (docs/RECORD.md 4.1) hold
spoiled ballots whose openings check, and the claims of the cast ballots,
each valid ballot's own."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .election import ElectionError
from .spoiled import check_spoiled, is_claim_like, parse_claim, parse_spoiled, tracker

# A cast claim longer than this is refused for its size (SIZE) before it
# is decoded (docs/VERIFY.md V32).
MAX_CLAIM_SIZE = 256
# A tracker key's one attribute: 64 lower-case hex digits.
_TRACKER_ATTR = re.compile(r"([0-9a-f]{64})\0")


@dataclass(frozen=True)
class Cast:
    """A ballot that passed V14–V19: its pseudonym, the subject of its
    failures and its tracker (hex)."""
    pseudonym: str
    subject: str
    tracker: str


def ballot_tracker(prep, contests: tuple, ciphertexts: list) -> str:
    """The tracker of a valid ballot, from its contests and its
    ciphertexts (each in range, so its fixed-length bytes are the ballot's)."""
    w = prep.pk.ciphertext_len
    return tracker(prep.manifest.election_id, bytes(contests), b"".join(c.to_bytes(w, "big") for c in ciphertexts)).hex()


def _name(rest: str) -> str:
    """K of a subject `tracker K (tx T)`: the key after the prefix, without
    the separator that ends a composite key's attribute."""
    return rest[:-1] if rest.endswith("\0") else rest


def check_trackers(prep, writes: dict, cast: list, rep) -> None:
    """writes: the key after the tracker prefix -> [(pos, txid, Write)] in
    commit order; cast: the Cast of every ballot that passed V14–V19."""
    by_pseudonym = {c.pseudonym: c for c in cast}
    first = {}  # tracker hex -> the value of its first write (None: a deletion)
    for rest, ws in sorted(writes.items()):
        m = _TRACKER_ATTR.fullmatch(rest)
        for k, (pos, txid, w) in enumerate(ws):
            subj = f"tracker {_name(rest)} (tx {txid})"
            if m is None:
                rep.fail("TRACKER", subj, f"block {pos[0]} writes a key under the tracker prefix that is no tracker key")
            elif k > 0 or w.is_delete:
                rep.fail("TRACKER", subj, f"the tracker key is {'deleted' if w.is_delete else 'written again'} (block {pos[0]})")
        if m is None:
            continue
        k_hex = m.group(1)
        pos, txid, w = ws[0]
        first[k_hex] = None if w.is_delete else w.value
        if not w.is_delete:
            _check_value(prep, k_hex, f"tracker {k_hex} (tx {txid})", w.value, by_pseudonym, rep)
    if writes:  # blocks with no tracker write are of a contract without trackers
        for c in cast:
            _check_claimed(c, first, rep)


def _check_value(prep, k_hex: str, subj: str, value: bytes, by_pseudonym: dict, rep) -> None:
    """Rules 2 and 3: a cast claim names a valid ballot of tracker K; any
    other value is a spoiled ballot of tracker K whose opening checks."""
    if is_claim_like(value):
        p = parse_claim(value)
        if p is None:
            code = "SIZE" if len(value) > MAX_CLAIM_SIZE else "DECODE"
            rep.fail("TRACKER", subj, "the cast claim does not decode", code=code)
        elif p not in by_pseudonym:
            rep.fail("TRACKER", subj, f"the cast claim names {p}, which has no valid ballot", pseudonym=p)
        elif by_pseudonym[p].tracker != k_hex:
            rep.fail("TRACKER", subj, f"the cast claim names {p}, whose ballot has tracker {by_pseudonym[p].tracker}", pseudonym=p)
        return
    try:
        s = parse_spoiled(value)
    except ElectionError as e:
        rep.fail("SPOILED_INVALID", subj, str(e), code=e.code)
        return
    if s.tracker().hex() != k_hex:
        rep.fail("SPOILED_INVALID", subj, f"the spoiled ballot's tracker is {s.tracker().hex()}, not its key's")
        return
    try:
        check_spoiled(prep, s)
    except ElectionError as e:
        rep.fail("SPOILED_INVALID", subj, str(e), code=e.code)


def _check_claimed(c: Cast, first: dict, rep) -> None:
    """Rule 4: the ballot's tracker key holds its own cast claim."""
    value = first.get(c.tracker)
    if value is None:
        rep.fail("TRACKER", c.subject, f"no cast claim under its tracker {c.tracker}", pseudonym=c.pseudonym)
    elif not is_claim_like(value):
        rep.fail("TRACKER", c.subject, f"its tracker {c.tracker} is a spoiled ballot's: an opened ballot was cast",
                 code="SPOILED", pseudonym=c.pseudonym)
    else:
        p = parse_claim(value)
        if p is not None and p != c.pseudonym:
            rep.fail("TRACKER", c.subject, f"its tracker {c.tracker} is claimed by {p}", code="DUPLICATE", pseudonym=c.pseudonym)
