"""Steps 3 and 4 of a record's verification (docs/RECORD.md section 6): the
ballot index and the election, read from the blocks that steps 1 and 2
accepted. Every decision here is the Go verifier's (internal/record,
internal/audit), so that both print the same report."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from . import ballots as ballotcheck
from . import checks, keyorigin, trackercheck
from .election import (RESULT_VERSION, ElectionError, ballot_prefix, decode_minimal, decode_result, ledger_key,
                       parse_record, prepare_manifest)
from .paillier import KeyError_, combine, parse_partial, verify_decryption, verify_partial
from .report import Report

_HEX64 = re.compile(r"[0-9a-f]{64}")
# A ballot key's one attribute: the pseudonym, 64 lower-case hex digits.
_BALLOT_ATTR = re.compile(r"([0-9a-f]{64})\0")


@dataclass
class Writes:
    """The election's valid writes in the chaincode's namespace, in commit
    order; a position is (block, transaction index). A transaction's writes
    are all at its position, and the opening transaction's are the
    election's."""
    opening: tuple | None = None  # (pos, txid, value; None for a deletion)
    manifest_rewrites: list = field(default_factory=list)  # (pos, txid, Write)
    result_writes: list = field(default_factory=list)  # (pos, txid, Write)
    ballot_writes: dict = field(default_factory=dict)  # pseudonym -> [(pos, txid, Write)]
    first_seq: dict = field(default_factory=dict)  # pseudonym -> its first write's place among all writes
    not_ballot_keys: list = field(default_factory=list)  # why each write under the prefix is no ballot key
    tracker_writes: dict = field(default_factory=dict)  # the key after the tracker prefix -> [(pos, txid, Write)]
    claim_writes: dict = field(default_factory=dict)  # the key after the ciphertext prefix -> [(pos, txid, Write)]

    def index(self) -> dict:
        """RECORD.md 4: each ballot key's first write, a deletion included,
        when it is no deletion: pseudonym -> (pos, txid, value)."""
        out = {}
        for p, ws in self.ballot_writes.items():
            pos, txid, w = ws[0]
            if not w.is_delete:
                out[p] = (pos, txid, w.value)
        return out


def collect_writes(txs: list, ns: str, eid: str) -> Writes:
    """The election's writes in chaincode namespace ns."""
    mkey, rkey, bprefix = ledger_key("manifest", eid), ledger_key("result", eid), ballot_prefix(eid)
    tprefix, cprefix = ledger_key("tracker", eid), ledger_key("ciphertext", eid)
    ws = Writes()
    for n, tl in enumerate(txs):
        for t in tl or ():
            if not t.valid:
                continue
            pos = (n, t.index)
            writes = [w for w in t.writes if w.namespace == ns]
            opening = None
            if ws.opening is None:
                opening = next((w for w in writes if w.key == mkey), None)
                if opening is None:
                    continue
                ws.opening = (pos, t.tx_id, None if opening.is_delete else opening.value)
            for w in writes:
                if w.key == mkey:
                    if w is not opening:  # a second write in the opening's own transaction too
                        ws.manifest_rewrites.append((pos, t.tx_id, w))
                elif w.key == rkey:
                    ws.result_writes.append((pos, t.tx_id, w))
                elif w.key.startswith(tprefix):
                    ws.tracker_writes.setdefault(w.key[len(tprefix):], []).append((pos, t.tx_id, w))
                elif w.key.startswith(cprefix):
                    ws.claim_writes.setdefault(w.key[len(cprefix):], []).append((pos, t.tx_id, w))
                elif w.key.startswith(bprefix):
                    m = _BALLOT_ATTR.fullmatch(w.key[len(bprefix):])
                    if m is None:
                        ws.not_ballot_keys.append(f"block {n}, tx {t.tx_id} writes key {w.key!r}, which is not a ballot key")
                    else:
                        ws.first_seq.setdefault(m.group(1), len(ws.first_seq))
                        ws.ballot_writes.setdefault(m.group(1), []).append((pos, t.tx_id, w))
    return ws


def check_election(rec: dict, txs: list, rep: Report, workers: int, published_manifest: bytes | None = None) -> None:
    """Steps 3 and 4. rec is record.json with what step 1 read: _index (the
    entries of ballots.json), _manifest and _result (None: no result.json)."""
    for s in ("ballot-index", "ballots", "commit-order", "result"):
        rep.step(s)
    rep.ballots = {"recorded": 0, "valid": 0, "counted": 0, "late": 0}
    ws = collect_writes(txs, rec["chaincode"], rec["electionID"])
    keys = ws.index()
    _check_index(ws, keys, rec["_index"], rep)
    prep = _check_manifest(rec, published_manifest, rep)
    if prep is not None:
        _check_key_origin(prep, rep)
    result_raw = rec["_result"]
    # The commit order is read (RECORD.md 6 step 4) with a result, a
    # manifest that prepares and an opening in the blocks; with no write of
    # the result since the opening, the blocks cannot say which ballots the
    # result counts.
    ordered = result_raw is not None and prep is not None and ws.opening is not None
    unordered = ordered and not ws.result_writes
    if unordered:
        rep.fail("SOURCE", "blocks", "result.json is present but no valid transaction since the opening writes the result key",
                 check=checks.RESULT_WRITE)
    _check_opening(ws, rec["electionID"], rec["_manifest"], rep)
    result_pos = None
    if ordered and not unordered:
        rep.inputs.add(checks.ORDER)
        _check_manifest_writes(ws, rep)
        result_pos = _check_result_writes(ws, result_raw, rep)
        _check_ballot_writes(ws, result_pos, rep)
    rep.ballots["recorded"] = len(keys)
    if prep is None:
        rep.ballots = None
        rep.result = None
        return
    rep.inputs |= {checks.MANIFEST, checks.BALLOTS, checks.RESULT_READ}
    tally, counted = _check_ballots(prep, rec["_manifest"], ws, keys, result_pos, workers, rep)
    # Without the result's place in the blocks, nothing can be counted
    # against it: the result is only decoded.
    _result_step(prep, result_raw, not unordered, ws, tally, counted, rep)


def _subject(p: str, txid: str) -> str:
    """A ballot failure's subject: `ballot P (tx T)`, or `ballot P` when the
    transaction id is empty (as the Go verifier's)."""
    return f"ballot {p} (tx {txid})" if txid else f"ballot {p}"


def _check_index(ws: Writes, keys: dict, index: list, rep: Report) -> None:
    """Step 3: ballots.json is the first writes of the ballot keys, one
    RECORD_BALLOTS failure per pseudonym that is not the blocks'."""
    for msg in ws.not_ballot_keys:
        rep.fail("RECORD_BALLOTS", "ballots.json", msg)
    entries = {e["pseudonym"]: e for e in index}
    for p in sorted(set(keys) - set(entries)):
        pos, txid, _ = keys[p]
        rep.fail("RECORD_BALLOTS", f"ballot {p} (tx {txid})", f"written in block {pos[0]} but not in ballots.json", pseudonym=p)
    for p in sorted(set(entries) - set(keys)):
        rep.fail("RECORD_BALLOTS", f"ballot {p} (tx {entries[p]['txID']})", "in ballots.json but no valid transaction writes it", pseudonym=p)
    for p in sorted(set(entries) & set(keys)):
        pos, txid, value = keys[p]
        e, h = entries[p], ballot_hash(value)
        if (e["block"], e["index"]) != pos or e["txID"] != txid or e["ballotHash"] != h:
            rep.fail("RECORD_BALLOTS", f"ballot {p} (tx {txid})",
                     f"ballots.json says block {e['block']} index {e['index']} tx {e['txID']} ballotHash {e['ballotHash']}, "
                     f"the blocks block {pos[0]} index {pos[1]} tx {txid} ballotHash {h}", pseudonym=p)


def _check_manifest(rec: dict, published: bytes | None, rep: Report):
    """The manifest's own checks; its prepared form, or None."""
    raw = rec["_manifest"]
    if published is not None and published != raw:
        rep.fail("MANIFEST", "manifest", "manifest.json is not the published manifest (--manifest)", check=checks.PUBLISHED_ANCHOR)
    try:
        prep = prepare_manifest(raw)
    except ElectionError as e:
        rep.fail("MANIFEST", "manifest", str(e), code=e.code)
        return None
    m = prep.manifest
    if m.election_id != rec["electionID"] or m.channel != rec["channel"]:
        rep.fail("MANIFEST", "manifest", f"the manifest is of election {m.election_id!r} on channel {m.channel!r}, "
                 f"record.json says election {rec['electionID']!r} on channel {rec['channel']!r}", check=checks.MANIFEST_IS_OWN)
    return prep


def _check_key_origin(prep, rep: Report) -> None:
    """V33: a distributed key's ceremony verifies. A failure does not stop
    the checks: the ballots and the result are checked under the key."""
    try:
        keyorigin.check_key_origin(prep)
    except ElectionError as e:
        rep.fail("KEY_ORIGIN", "manifest", str(e), code=e.code)


def _check_opening(ws: Writes, eid: str, manifest: bytes, rep: Report) -> None:
    """manifest.json is what the election's opening wrote."""
    if ws.opening is None:
        rep.fail("COMMIT_ORDER", "manifest", f"no valid transaction in the blocks writes election {eid!r}'s manifest", check=checks.OPENING)
    elif ws.opening[2] != manifest:
        rep.fail("COMMIT_ORDER", f"manifest (tx {ws.opening[1]})", "manifest.json is not the manifest the election's opening wrote",
                 check=checks.OPENING)


def _check_manifest_writes(ws: Writes, rep: Report) -> None:
    """The contract writes the manifest key once, at the opening."""
    for pos, txid, w in ws.manifest_rewrites:
        what = "deleted" if w.is_delete else "written again"
        if not w.is_delete and w.value == ws.opening[2]:
            what += ", with the same bytes,"
        rep.fail("COMMIT_ORDER", f"manifest (tx {txid})", f"the manifest key is {what} after the opening (block {pos[0]})")


def _check_result_writes(ws: Writes, result_raw: bytes, rep: Report):
    """The result's first write since the opening, a deletion included,
    orders the ballots; every later write is tampering. Its position."""
    (pos, txid, first), rest = ws.result_writes[0], ws.result_writes[1:]
    if first.is_delete:
        rep.fail("COMMIT_ORDER", f"result (tx {txid})", f"the result key's first write (block {pos[0]}) deletes it", check=checks.RESULT_WRITE)
    elif first.value != result_raw:
        rep.fail("COMMIT_ORDER", "result", f"the result written in block {pos[0]} is not result.json", check=checks.RESULT_WRITE)
    for p, t, w in rest:
        what = "deleted" if w.is_delete else "written again"
        if not first.is_delete and not w.is_delete and w.value == first.value:
            what += ", with the same bytes,"
        rep.fail("COMMIT_ORDER", f"result (tx {t})", f"the result key is {what} after its first write (block {p[0]})")
    return pos


def _check_ballot_writes(ws: Writes, result_pos: tuple, rep: Report) -> None:
    """A ballot key is written once and never deleted, and the transaction
    stored with a ballot is the one that wrote it. As the Go verifier does,
    the stored transaction is compared for a key written once before the
    result, and for a key first written after it."""
    for p, writes in sorted(ws.ballot_writes.items()):
        for k, (pos, txid, w) in enumerate(writes):
            if w.is_delete or k > 0:
                what = "deleted" if w.is_delete else "written again"
                rep.fail("COMMIT_ORDER", _subject(p, txid), f"the ballot key is {what} (block {pos[0]})", pseudonym=p)
        pos, txid, w = writes[0]
        late = pos > result_pos
        if w.is_delete or (not late and len(writes) > 1):
            continue
        try:
            rtx, _ = parse_record(w.value)
        except ElectionError:
            continue  # BALLOT_DECODE
        if rtx != txid:
            rep.fail("COMMIT_ORDER", _subject(p, txid), f"the stored record names transaction {rtx!r}, not the one that wrote it",
                     pseudonym=p, check=checks.STORED_TXID)


def _check_ballots(prep, manifest_raw: bytes, ws: Writes, keys: dict, result_pos, workers: int, rep: Report):
    """Every ballot of the index, as a listing gives it: each failure names
    the transaction stored with the ballot. The product and number of the
    valid ballots committed before the result (a Tally)."""
    items, meta = [], {}
    for seq, p in enumerate(sorted(keys)):
        pos, txid, value = keys[p]
        late = result_pos is not None and pos > result_pos
        try:
            rtx, ballot = parse_record(value)
        except ElectionError as err:
            rep.fail("BALLOT_DECODE", _subject(p, txid), f"record: {err}", code=err.code, pseudonym=p)
            _note_late(rep, late, p, txid, pos[0], ws.first_seq[p])
            continue
        meta[seq] = (p, rtx, txid, pos, late)
        items.append((seq, p, ballot))
    tally, counted, seen, cast = Tally(prep), 0, {}, []
    for v in ballotcheck.check_all(manifest_raw, prep, items, workers):
        p, rtx, txid, pos, late = meta[v.seq]
        _note_late(rep, late, p, txid, pos[0], ws.first_seq[p])
        subj = _subject(p, rtx)
        if v.kind:
            rep.fail(v.kind, subj, v.error, code=v.code, pseudonym=p)
            continue
        if v.pseudonym_hex in seen:
            rep.fail("DUPLICATE", subj, f"pseudonym already has ballot {seen[v.pseudonym_hex]}", code="DUPLICATE", pseudonym=p)
            continue
        seen[v.pseudonym_hex] = p
        rep.ballots["valid"] += 1
        cast.append(trackercheck.Cast(p, subj, trackercheck.ballot_digests(prep, v.ciphertexts)))
        if not late:
            counted += 1
            tally.add(v.contests, v.ciphertexts)
    rep.late_ballots.sort(key=lambda lb: lb.pop("_seq"))  # commit order, as the blocks list them
    trackercheck.check_trackers(prep, ws.tracker_writes, ws.claim_writes, cast, rep)
    return tally, counted


class Tally:
    """The product of the counted ballots, slot by slot: slot i is the
    product of ciphertext i of every ballot that answers slot i's contest
    (a contest a ballot does not answer contributes nothing), and the
    number of ballots that answer each contest."""

    def __init__(self, prep):
        self.prep = prep
        self.slots = [1] * len(prep.weights)
        self.ballots = [0] * len(prep.manifest.contests)

    def add(self, contests: tuple, cs: list) -> None:
        n2, k = self.prep.pk.n2, 0
        for ci in contests:
            first = self.prep.first_slot(ci)
            for j in range(self.prep.layout.contests[ci].ciphertexts):
                self.slots[first + j] = self.slots[first + j] * cs[k] % n2
                k += 1
            self.ballots[ci] += 1

    def product(self) -> int:
        """Π slot_i^weight_i mod N²: the ciphertext of the packed tally."""
        n2, x = self.prep.pk.n2, 1
        for s, w in zip(self.slots, self.prep.weights):
            x = x * (s if w == 1 else pow(s, w, n2)) % n2
        return x


def _note_late(rep: Report, late: bool, p: str, txid: str, block: int, seq: int) -> None:
    """A late ballot, listed in commit order (seq: its key's first write's
    place among the writes, within a transaction too)."""
    if late:
        rep.ballots["late"] += 1
        rep.late_ballots.append({"pseudonym": p, "txID": txid, "block": block, "_seq": seq})


def _result_step(prep, result_raw, check: bool, ws: Writes, tally: "Tally", counted: int, rep: Report) -> None:
    """The result: missing, or decoded and, when check, checked against the
    ballots committed before it."""
    if result_raw is None:
        rep.ballots["counted"] = 0  # RECORD.md 7: the count a result must carry, 0 with none
        rep.fail("RESULT_MISSING", "result", "the blocks write the result key but the record has no result.json"
                 if ws.result_writes else "no result is published")
        rep.result = None
        return
    rep.inputs.add(checks.RESULT)
    rep.ballots["counted"] = counted
    try:
        r = decode_result(result_raw)
    except ElectionError as e:
        rep.fail("RESULT_DECODE", "result", str(e), code=e.code)
        rep.result = None
        return
    rep.result = report_result(prep, r)
    if check:
        rep.inputs.add(checks.RESULT_CHECKED)
        _check_result(prep, r, tally, counted, rep)


def report_result(prep, r) -> dict:
    """The report's result (RECORD.md 7): ballotCount, and one entry per
    manifest contest with the manifest's id, title and option names beside
    the result's numbers; no entry at all when the result does not have one
    per contest or a contest's counts do not have one per option (a result
    failure of its own), as the Go verifier's jsonContests."""
    m = prep.manifest
    contests = []
    if len(r.contests) == len(m.contests):
        for c, cr in zip(m.contests, r.contests):
            if len(cr.counts) != len(c.options):
                contests = []
                break
            contests.append({"id": c.id, "title": c.title, "options": list(c.options), "ballots": cr.ballots,
                             "counts": list(cr.counts), "blank": cr.blank, "undervotes": cr.undervotes})
    return {"ballotCount": r.ballot_count, "contests": contests}


def ballot_hash(value: bytes) -> str:
    """An index entry's ballotHash of a ballot key's value: the SHA-256 of
    the ballot inside the record encoding, or of the whole value when it is
    no record encoding (RECORD.md 4)."""
    try:
        _, ballot = parse_record(value)
    except ElectionError:
        ballot = value
    return hashlib.sha256(ballot).hexdigest()


def _check_result(prep, r, tally: Tally, counted: int, rep: Report) -> None:
    """RECORD.md 6 step 4: RESULT_COUNT (ballotCount, then each contest's
    ballots) and RESULT_PRODUCT against the ballots, then at most one RESULT
    failure, the result's first own check that fails, as the Go verifier
    reports them."""
    pk = prep.pk
    if r.ballot_count != counted:
        rep.fail("RESULT_COUNT", "result", f"ballotCount is {r.ballot_count}, but {counted} valid ballot(s) committed before the result")
    # Each contest's ballots (docs/VERIFY.md V27): one failure per contest
    # that differs; a result without one entry per contest is one failure
    # (as the Go verifier's CheckContestBallots), and RESULT's too.
    if len(r.contests) != len(tally.ballots):
        rep.fail("RESULT_COUNT", "result", f"contests has {len(r.contests)} entries, want {len(tally.ballots)}")
    else:
        for i, cr in enumerate(r.contests):
            if cr.ballots != tally.ballots[i]:
                rep.fail("RESULT_COUNT", "result", f"contests[{i}] ({prep.manifest.contests[i].id}) counts {cr.ballots} ballot(s), "
                         f"but {tally.ballots[i]} valid ballot(s) committed before the result answer it")
    if len(r.product) != pk.ciphertext_len or int.from_bytes(r.product, "big") != tally.product():
        rep.fail("RESULT_PRODUCT", "result", "the product is not the product of the ballots committed before the result")
    problem = result_problem(prep, r)
    if problem is not None:
        rep.fail("RESULT", "result", problem, code="RESULT")


def result_problem(prep, r):
    """The first of the result's own checks that fails, in the order of
    VerifyResult (result version 2), or None."""
    m, pk = prep.manifest, prep.pk
    if r.version != RESULT_VERSION:
        return f"version is {r.version}, want {RESULT_VERSION}"
    if r.election_id != m.election_id:
        return f"result is for election {r.election_id!r}"
    problem = _contests_problem(prep, r)
    if problem is not None:
        return problem
    c = int.from_bytes(r.product, "big")
    if len(r.product) != pk.ciphertext_len or not pk.in_zstar_n2(c):
        return "product is not a ciphertext in Z*_{N²}"
    try:
        t = decode_minimal(r.tally, "tally")
        nonce = decode_minimal(r.decryption_nonce, "decryptionNonce")
    except ElectionError as e:
        return str(e)
    if t >= pk.n:
        return "the tally is not below N"
    problem = _decryption_problem(prep, r, c, t, nonce)
    if problem is not None:
        return problem
    return _digits_problem(prep, r, t)


def _contests_problem(prep, r):
    """One entry per manifest contest, in order, each consistent with the
    contest's limits, then ballotCount against them; None when they hold."""
    m = prep.manifest
    if len(r.contests) != len(m.contests):
        return f"contests has {len(r.contests)} entries, want one per contest ({len(m.contests)})"
    for i, (c, cr) in enumerate(zip(m.contests, r.contests)):
        problem = _contest_problem(f"contests[{i}]", c, cr, r.ballot_count, m.encoding_bits)
        if problem is not None:
            return problem
    # ballotCount against the contests: a contest of every style counts
    # every ballot, and every ballot answers some contest.
    for i, cr in enumerate(r.contests):
        if all(i in sc for sc in prep.style_contests) and cr.ballots != r.ballot_count:
            return f"contests[{i}] counts {cr.ballots} ballots, but every ballot answers it and ballotCount is {r.ballot_count}"
    answers = sum(cr.ballots for cr in r.contests)
    if r.ballot_count > answers:
        return (f"ballotCount {r.ballot_count} is more than the ballots the contests count together ({answers}): "
                "every ballot answers a contest")
    return None


def _contest_problem(field, c, cr, ballot_count: int, bits: int):
    """A contest's entry against its contest (the rules in the spec's
    order): its id, ballots ≤ ballotCount and < M (no digit can reach M),
    a count per option, blank only where allowed and ≤ ballots, every
    count ≤ ballots − blank, min·v ≤ Σcounts ≤ max·v for v = ballots −
    blank, and undervotes = max·v − Σcounts."""
    if cr.id != c.id:
        return f"{field} is {cr.id!r}, want contest {c.id!r}"
    if cr.ballots > ballot_count:
        return f"{field} counts {cr.ballots} ballots, more than ballotCount {ballot_count}"
    if cr.ballots >> bits:
        return f"{field} counts {cr.ballots} ballots: a count could reach 2^{bits} and overflow its digit"
    if len(cr.counts) != len(c.options):
        return f"{field} has {len(cr.counts)} counts, want one per option ({len(c.options)})"
    if cr.blank and not c.blank:
        return f"{field} counts {cr.blank} blank votes, but the contest allows none"
    if cr.blank > cr.ballots:
        return f"{field} counts {cr.blank} blank votes of {cr.ballots} ballots"
    voted = cr.ballots - cr.blank
    for j, n in enumerate(cr.counts):
        if n > voted:
            return f"{field}.counts[{j}] is {n}, more than the {voted} ballots that did not vote blank"
    total, lo, hi = sum(cr.counts), c.min * voted, c.max * voted
    if not lo <= total <= hi:
        return f"{field} has {total} selections in all, outside {lo}..{hi} for {voted} ballots of {c.min} to {c.max} selections"
    if cr.undervotes != hi - total:
        return f"{field} has undervotes {cr.undervotes}, want {hi - total} (maxSelections × {voted} ballots − {total} selections)"
    return None


def _digits_problem(prep, r, t: int):
    """The tally's digits per the layout are every contest's counts, then
    its blank votes; None when they are."""
    m = prep.manifest
    if t >> (m.encoding_bits * prep.layout.digits):
        return f"the tally is not below M^{prep.layout.digits}"
    for i, (digits, c, cr) in enumerate(zip(prep.layout.decode_tally(t), m.contests, r.contests)):
        for j, n in enumerate(cr.counts):
            if digits[j] != n:
                return f"contests[{i}].counts[{j}] is {n}, but the tally says {digits[j]}"
        if c.blank and digits[len(c.options)] != cr.blank:
            return f"contests[{i}].blank is {cr.blank}, but the tally says {digits[len(c.options)]}"
    return None


def _decryption_problem(prep, r, c: int, t: int, nonce: int):
    """What is wrong with the result's decryption of the product c to the
    tally t, or None."""
    pk, tp = prep.pk, prep.threshold
    if tp is None:
        if r.partials:
            return "partial decryptions with a single key"
        if not verify_decryption(pk, c, t, nonce):
            return "the decryption proof does not verify"
        return None
    if r.decryption_nonce:
        return "a decryption nonce with threshold keys"
    if not tp.k <= len(r.partials) <= tp.l:
        return f"{len(r.partials)} partial decryptions, want {tp.k}..{tp.l}"
    parts = []
    for i, pb in enumerate(r.partials):
        try:
            pd = parse_partial(pb, tp)
        except KeyError_ as e:
            return f"partial {i}: {e}"
        if any(q.index == pd.index for q in parts):
            return f"partial {i}: trustee {pd.index} twice"
        parts.append(pd)
    for pd in parts:
        if not verify_partial(tp, c, pd):
            return f"trustee {pd.index}'s partial decryption proof does not verify"
    if combine(tp, parts) != t:
        return "the partial decryptions combine to another tally"
    return None
