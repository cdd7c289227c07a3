"""Verification of an election record (docs/RECORD.md section 6)."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import re
import zlib
from dataclasses import dataclass, field

from . import ballots as ballotcheck
from . import gzipread
from .election import (ElectionError, ballot_prefix, decode_minimal, decode_result, ledger_key,
                       parse_record, prepare_manifest)
from .chain import BlockScan
from .paillier import KeyError_, combine, parse_partial, verify_decryption, verify_partial
from .report import Report


class Unreadable(Exception):
    """The record cannot be read at all (exit status 2)."""


RECORD_FIELDS = ["format", "version", "electionID", "channel", "chaincode", "lastBlock"]
BALLOT_FIELDS = {"pseudonym", "ballotHash", "txID", "block", "index"}
_HEX64 = re.compile(r"[0-9a-f]{64}")
_BLOCK_NAME = re.compile(r"[0-9]{10}\.block\.gz")


DIGEST_TAG = b"fabvote/record-digest/v1\n"
MAX_RECORD_JSON = 1 << 20  # record.json: a few short fields (RECORD.md 2)


def record_digest(path: str, last_block: int) -> str:
    """RECORD.md 7.1: SHA-256 of the tag and, for each file of the record in
    its order, its path, a newline, the hex SHA-256 of its bytes, a newline;
    None when a block file is larger than a block file may be."""
    names = ["record.json", "manifest.json", "result.json", "ballots.json"]
    names += ["blocks/%010d.block.gz" % n for n in range(last_block + 1)]
    h = hashlib.sha256(DIGEST_TAG)
    for name in names:
        p = os.path.join(path, *name.split("/"))
        if name == "result.json" and not os.path.lexists(p):
            continue
        if name.startswith("blocks/") and os.stat(p).st_size > gzipread.MAX_FILE:
            return None  # RECORD.md 5: no digest for a record with an oversized block file
        fh = hashlib.sha256()
        with open(p, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                fh.update(chunk)
        h.update(f"{name}\n{fh.hexdigest()}\n".encode())
    return h.hexdigest()


def _no_key_twice(pairs) -> dict:
    """RECORD.md 1: an object with a key twice is refused (a ValueError, so a
    RECORD failure); two decoders could each take another of the values."""
    d = {}
    for k, v in pairs:
        if k in d:
            raise ValueError(f"field {k!r} appears twice")
        d[k] = v
    return d


def _regular(p: str) -> bool:
    """A regular file itself, not a symbolic link to one (RECORD.md 1): a
    record is exactly its own files, never one outside it."""
    try:
        return stat.S_ISREG(os.lstat(p).st_mode)
    except OSError:
        return False


def _directory(p: str) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(p).st_mode)
    except OSError:
        return False


def _nat(v, bound: int = 1 << 64) -> bool:
    """A whole number below bound (RECORD.md 2 and 4: block numbers are
    unsigned 64-bit, a position in a block a signed 64-bit one)."""
    return type(v) is int and 0 <= v < bound


def verify_record(path: str, genesis_hash: str | None = None, workers: int = 1,
                  manifest: bytes | None = None) -> Report:
    """manifest: the election's published manifest (--manifest FILE); when
    given, manifest.json must be exactly these bytes (MANIFEST otherwise).
    The report's failures are in the order of RECORD.md 7."""
    rep = Report(source="record")
    _verify_record(path, genesis_hash, workers, manifest, rep)
    rep.sort_failures()
    return rep


def _verify_record(path: str, genesis_hash: str | None, workers: int, manifest: bytes | None, rep: Report) -> Report:
    rep.anchors = {"genesisHash": genesis_hash.lower() if genesis_hash is not None else None,
                   "manifestSHA256": hashlib.sha256(manifest).hexdigest() if manifest is not None else None}
    rj = os.path.join(path, "record.json")
    if not os.path.lexists(rj):
        raise Unreadable(f"{path}: no record.json")
    # Read only a regular file of the record, and not without bound.
    if not _regular(rj) or os.lstat(rj).st_size > MAX_RECORD_JSON:
        rep.step("record")
        rep.fail("RECORD", "record.json", f"not a regular file of at most {MAX_RECORD_JSON} bytes")
        return rep
    # ---------------------------------------------------------------- 1. record
    rep.step("record")
    rec = _check_record(path, rep)
    if rec is None or rep.failed_steps():
        return rep
    try:
        rep.record_digest = record_digest(path, rec["lastBlock"])
    except OSError as e:
        rep.fail("RECORD", "files", f"cannot read: {e}")
        return rep
    # ---------------------------------------------------------------- 2. blocks
    rep.step("blocks")
    rep.step("block-signatures")
    scan = BlockScan(rec["channel"], rep.fail)
    txs = []
    for n in range(rec["lastBlock"] + 1):
        raw, err = _read_block(path, n)
        t = scan.block(n, raw, err)
        if t is not None:
            for tx in t:  # keep only the writes a verifier reads
                tx.writes = [w for w in tx.writes if w.namespace == rec["chaincode"]]
        txs.append(t)
    if scan.genesis is not None:
        rep.genesis_hash = scan.genesis.hex()
    if genesis_hash is not None and genesis_hash.lower() != rep.genesis_hash:
        rep.fail("BLOCK_CHAIN", "block 0", f"genesis hash is {rep.genesis_hash}, want {genesis_hash.lower()}")
    if rep.failed_steps():
        return rep
    # ---------------------------------------------------------------- 3 and 4
    _check_election(path, rec, txs, rep, workers, manifest)
    return rep


def _read_block(path: str, n: int):
    """Block n's bytes and None, or None and why they cannot be read."""
    fn = os.path.join(path, "blocks", "%010d.block.gz" % n)
    try:
        with open(fn, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size > gzipread.MAX_FILE:
                raise gzipread.GzipError(f"{size} bytes, more than the {gzipread.MAX_FILE >> 20} MiB a block file may have")
            gz = f.read()
        return gzipread.decompress(gz), None
    except (OSError, gzipread.GzipError, zlib.error) as e:
        return None, f"{fn}: {e}"


def _check_record(path: str, rep: Report):
    """Step 1. Its first failure stops it (RECORD.md 6), with the file it is
    about as its subject: record.json, files (the set of files and their
    types), ballots.json."""
    def bad(msg, subject="record.json"):
        rep.fail("RECORD", subject, msg)

    try:
        with open(os.path.join(path, "record.json"), "rb") as f:
            rec = json.loads(f.read().decode("utf-8"), object_pairs_hook=_no_key_twice)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:  # RecursionError: nested too deeply
        bad(f"record.json does not decode: {e}")
        return None
    if not isinstance(rec, dict) or set(rec) != set(RECORD_FIELDS):
        bad("record.json does not have exactly the fields " + ", ".join(RECORD_FIELDS))
        return None
    if rec["format"] != "fabvote-election-record":
        bad(f"record.json format is {rec['format']!r}")
        return None
    if type(rec["version"]) is not int or rec["version"] != 1:
        bad(f"record format version {rec['version']!r} is not 1")
        return None
    if not all(isinstance(rec[k], str) and rec[k] for k in ("electionID", "channel", "chaincode")) \
            or not _nat(rec["lastBlock"]):
        bad("record.json has a field of the wrong type")
        return None
    rep.election_id = rec["electionID"]
    problem = _files_problem(path, rec["lastBlock"])
    if problem is not None:
        bad(problem, "files")
        return None
    # ballots.json
    try:
        with open(os.path.join(path, "ballots.json"), "rb") as f:
            raw = f.read()
        idx = json.loads(raw.decode("utf-8"), object_pairs_hook=_no_key_twice)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:  # RecursionError: nested too deeply
        bad(f"ballots.json does not decode: {e}", "ballots.json")
        return None
    if not isinstance(idx, list):
        bad("ballots.json is not an array", "ballots.json")
        return None
    prev = None
    for i, e in enumerate(idx):
        if not isinstance(e, dict) or set(e) != BALLOT_FIELDS:
            bad(f"ballots.json entry {i} does not have exactly the fields pseudonym, ballotHash, txID, block, index", "ballots.json")
            return None
        if not (isinstance(e["pseudonym"], str) and _HEX64.fullmatch(e["pseudonym"])
                and isinstance(e["ballotHash"], str) and _HEX64.fullmatch(e["ballotHash"])
                and isinstance(e["txID"], str) and e["txID"]
                and _nat(e["block"]) and _nat(e["index"], 1 << 63)):
            bad(f"ballots.json entry {i} has a field of the wrong form", "ballots.json")
            return None
        if prev is not None and not prev < e["pseudonym"]:
            bad(f"ballots.json is not sorted by pseudonym or names {e['pseudonym']} twice", "ballots.json")
            return None
        prev = e["pseudonym"]
    rec["_index"] = idx
    return rec


def _files_problem(path: str, last: int):
    """The first thing wrong with the record's set of files, or None."""
    want = {"record.json", "manifest.json", "ballots.json", "blocks"}
    have = set(os.listdir(path))
    for extra in sorted(have - want - {"result.json"}):
        return f"unknown file {extra}"
    for missing in sorted(want - have):
        return f"missing {missing}"
    for name in ("record.json", "manifest.json", "ballots.json", "result.json"):
        if name in have and not _regular(os.path.join(path, name)):
            return f"{name} is not a regular file (a symbolic link or a special file is refused)"
    bdir = os.path.join(path, "blocks")
    if not _directory(bdir):
        return "blocks is not a directory (a symbolic link is refused)"
    names = set(os.listdir(bdir))
    present = {nm for nm in names if _BLOCK_NAME.fullmatch(nm) and int(nm[:10]) <= last}
    for extra in sorted(names - present):
        return f"unknown file blocks/{extra}"
    if len(present) != last + 1:  # (lastBlock may be huge: never list every name)
        missing = next(k for k in range(last + 1) if "%010d.block.gz" % k not in present)
        return f"missing blocks/{missing:010d}.block.gz ({last + 1 - len(present)} block file(s) missing)"
    for nm in sorted(present):
        if not _regular(os.path.join(bdir, nm)):
            return f"blocks/{nm} is not a regular file (a symbolic link or a special file is refused)"
    return None


@dataclass
class KeyWrites:
    writes: list = field(default_factory=list)  # (block, txindex, txid, is_delete, value)


def _check_election(path: str, rec: dict, txs: list, rep: Report, workers: int,
                    published_manifest: bytes | None = None) -> None:
    eid, ns = rec["electionID"], rec["chaincode"]
    mkey = ledger_key("manifest", eid)
    rkey = ledger_key("result", eid)
    bprefix = ballot_prefix(eid)
    rep.step("ballot-index")
    rep.step("ballots")
    rep.step("commit-order")
    rep.step("result")
    rep.ballots = {"recorded": 0, "valid": 0, "counted": 0, "late": 0}

    # Every valid write in the chaincode's namespace, in commit order.
    opening = None
    mwrites, rwrites = [], []
    bwrites: dict[str, list] = {}
    for n, tl in enumerate(txs):
        for t in tl or ():
            if not t.valid:
                continue
            for w in t.writes:
                if w.namespace != ns:
                    continue
                pos = (n, t.index)
                if w.key == mkey:
                    # The opening is the manifest key's first valid write,
                    # a deletion included (a deletion is a write too).
                    if opening is None:
                        opening = (pos, t.tx_id, None if w.is_delete else w.value)
                    else:
                        mwrites.append((pos, t.tx_id, w))
                elif opening is None:
                    continue
                elif w.key == rkey:
                    rwrites.append((pos, t.tx_id, w))
                elif w.key.startswith(bprefix):
                    bwrites.setdefault(w.key[len(bprefix):], []).append((pos, t.tx_id, w))

    with open(os.path.join(path, "manifest.json"), "rb") as f:
        manifest_raw = f.read()
    if opening is None:
        # No opening: no ballot write is in range (every index entry is then a
        # RECORD_BALLOTS failure) and the result is checked against no ballots.
        rep.fail("COMMIT_ORDER", "manifest", f"no valid transaction in the blocks writes election {eid!r}'s manifest")
    else:
        for pos, txid, w in mwrites:
            rep.fail("COMMIT_ORDER", f"manifest (tx {txid})",
                     "the manifest key is deleted" if w.is_delete else "the manifest key is written again")
        if opening[2] != manifest_raw:
            rep.fail("COMMIT_ORDER", f"manifest (tx {opening[1]})",
                     "the election's opening deletes the manifest key" if opening[2] is None
                     else "the election's opening did not write manifest.json")
    if published_manifest is not None and published_manifest != manifest_raw:
        rep.fail("MANIFEST", "manifest", "manifest.json is not the published manifest (--manifest)")
    try:
        prep = prepare_manifest(manifest_raw)
    except ElectionError as e:
        rep.fail("MANIFEST", "manifest", str(e), code=e.code)
        prep = None
    if prep is not None:
        if prep.manifest.election_id != eid:
            rep.fail("MANIFEST", "manifest", f"manifest is for election {prep.manifest.election_id!r}, record for {eid!r}")
        if prep.manifest.channel != rec["channel"]:
            rep.fail("MANIFEST", "manifest", f"manifest names channel {prep.manifest.channel!r}, the blocks {rec['channel']!r}")

    # The result's first write.
    result_pos = None
    result_value = None
    for pos, txid, w in rwrites:
        if w.is_delete:
            rep.fail("COMMIT_ORDER", f"result (tx {txid})", f"the result key is deleted (block {pos[0]})")
        elif result_pos is None:
            result_pos, result_value = pos, w.value
        else:
            same = ", with the same bytes," if w.value == result_value else ""
            rep.fail("COMMIT_ORDER", f"result (tx {txid})", f"the result key is written again{same} (block {pos[0]})")

    # 3. The ballot index.
    index = {e["pseudonym"]: e for e in rec["_index"]}
    first = {}
    for attr, ws in sorted(bwrites.items()):
        subj_pseud = attr if _HEX64.fullmatch(attr.rstrip("\0")) else None
        for k, (pos, txid, w) in enumerate(ws):
            if w.is_delete:
                rep.fail("COMMIT_ORDER", f"ballot key {attr!r} (tx {txid}, block {pos[0]})", "the ballot key is deleted",
                         pseudonym=subj_pseud and subj_pseud.rstrip("\0"))
            elif attr in first:
                rep.fail("COMMIT_ORDER", f"ballot key {attr!r} (tx {txid}, block {pos[0]})", "the ballot key is written again",
                         pseudonym=subj_pseud and subj_pseud.rstrip("\0"))
            else:
                first[attr] = (pos, txid, w.value)
    keys = {}  # pseudonym attribute (without the trailing \0) -> first write
    for attr, v in first.items():
        if not attr.endswith("\0") or "\0" in attr[:-1]:
            rep.fail("BALLOT_KEY", f"ballot key {attr!r}", "not a ballot key of one attribute")
            continue
        keys[attr[:-1]] = v
    for p in sorted(set(keys) - set(index)):
        pos, txid, _ = keys[p]
        rep.fail("RECORD_BALLOTS", f"ballot {p} (tx {txid})", f"written in block {pos[0]} but not in ballots.json", pseudonym=_ph(p))
    for p in sorted(set(index) - set(keys)):
        rep.fail("RECORD_BALLOTS", f"ballot {p} (tx {index[p]['txID']})", "in ballots.json but no valid transaction writes it", pseudonym=_ph(p))
    for p in sorted(set(index) & set(keys)):  # one failure per entry that is not the blocks'
        pos, txid, value = keys[p]
        e, h = index[p], _ballot_hash(value)
        if (e["block"], e["index"]) != pos or e["txID"] != txid or e["ballotHash"] != h:
            rep.fail("RECORD_BALLOTS", f"ballot {p} (tx {txid})",
                     f"ballots.json says block {e['block']} index {e['index']} tx {e['txID']} ballotHash {e['ballotHash']}, "
                     f"the blocks block {pos[0]} index {pos[1]} tx {txid} ballotHash {h}", pseudonym=_ph(p))

    items = []
    meta = {}
    # Every ballot key the blocks write is checked, whether or not the index
    # lists it: the blocks, not the index, are what the orderers signed.
    for seq, p in enumerate(sorted(keys)):
        pos, txid, value = keys[p]
        subj = f"ballot {p} (tx {txid})"
        late = result_pos is not None and pos > result_pos
        meta[seq] = (p, txid, pos, late)
        try:
            rtx, ballot = parse_record(value)
        except ElectionError as err:
            rep.fail("BALLOT_DECODE", subj, f"record: {err}", code=err.code, pseudonym=_ph(p))
            continue
        if rtx != txid:
            rep.fail("COMMIT_ORDER", subj, f"the stored record names transaction {rtx!r}, not the one that wrote it", pseudonym=_ph(p))
        items.append((seq, p, ballot))
    rep.ballots["recorded"] = len(keys)

    if prep is None:
        rep.ballots = None
        rep.result = None
        return

    # 4. Every ballot.
    verdicts = ballotcheck.check_all(manifest_raw, prep, items, workers)
    n2 = prep.pk.n2
    product = 1
    counted = 0
    seen = {}
    for v in verdicts:
        p, txid, pos, late = meta[v.seq]
        subj = f"ballot {p} (tx {txid})"
        if late:
            rep.ballots["late"] += 1
            rep.late_ballots.append({"pseudonym": p, "txID": txid, "block": pos[0]})
        if v.kind:
            rep.fail(v.kind, subj, v.error, code=v.code, pseudonym=_ph(p))
            continue
        if v.pseudonym_hex in seen:
            rep.fail("DUPLICATE", subj, f"pseudonym already has ballot {seen[v.pseudonym_hex]}", code="DUPLICATE", pseudonym=_ph(p))
            continue
        seen[v.pseudonym_hex] = p
        rep.ballots["valid"] += 1
        if not late:
            counted += 1
            product = product * v.ciphertext % n2
    rep.ballots["counted"] = counted

    # The result.
    rpath = os.path.join(path, "result.json")
    result_raw = None
    if os.path.isfile(rpath):
        with open(rpath, "rb") as f:
            result_raw = f.read()
    if result_raw is None:
        rep.ballots["counted"] = 0  # RECORD.md 7: the count a result must carry, 0 with none
        rep.fail("RESULT_MISSING", "result", "no result is published" if result_pos is None else
                 "the blocks write the result key but the record has no result.json")
        rep.result = None
        return
    if result_pos is None:
        if opening is not None:
            rep.fail("SOURCE", "blocks", "result.json is present but no valid transaction since the opening writes the result key")
    elif result_raw != result_value:
        rep.fail("COMMIT_ORDER", "result", f"the result written in block {result_pos[0]} is not result.json")
    _check_result(prep, result_raw, product, counted, rep)


def _ballot_hash(value: bytes) -> str:
    """An index entry's ballotHash of a ballot key's value: the SHA-256 of
    the ballot inside the record encoding, or of the whole value when it is
    no record encoding (RECORD.md 4)."""
    try:
        _, ballot = parse_record(value)
    except ElectionError:
        ballot = value
    return hashlib.sha256(ballot).hexdigest()


def _ph(p):
    return p if _HEX64.fullmatch(p) else None


def _check_result(prep, raw: bytes, product: int, counted: int, rep: Report) -> None:
    """RECORD.md 6 step 4: RESULT_COUNT and RESULT_PRODUCT against the
    ballots, then at most one RESULT failure, the result's first own check
    that fails, as the Go verifier reports them."""
    try:
        r = decode_result(raw)
    except ElectionError as e:
        rep.fail("RESULT_DECODE", "result", str(e), code=e.code)
        rep.result = None
        return
    m = prep.manifest
    pk = prep.pk
    rep.result = {"ballotCount": r.ballot_count, "candidates": list(m.candidates), "counts": list(r.counts)}
    if r.ballot_count != counted:
        rep.fail("RESULT_COUNT", "result", f"ballotCount is {r.ballot_count}, but {counted} valid ballot(s) committed before the result")
    if len(r.product) != pk.ciphertext_len or int.from_bytes(r.product, "big") != product:
        rep.fail("RESULT_PRODUCT", "result", "the product is not the product of the ballots committed before the result")
    problem = _result_problem(prep, r)
    if problem is not None:
        rep.fail("RESULT", "result", problem, code="RESULT")


def _result_problem(prep, r):
    """The first of the result's own checks that fails, in the Go
    verifier's order (election.VerifyResult), or None."""
    m, pk = prep.manifest, prep.pk
    if r.election_id != m.election_id:
        return f"result is for election {r.election_id!r}"
    p = len(m.candidates)
    mm = 1 << m.encoding_bits
    if len(r.counts) != p:
        return f"{len(r.counts)} counts for {p} candidates"
    if sum(r.counts) != r.ballot_count:
        return "the counts do not sum to ballotCount"
    if r.ballot_count * mm ** (p - 1) >= pk.n:
        return "ballotCount · M^(p-1) is not below N"
    c = int.from_bytes(r.product, "big")
    if len(r.product) != pk.ciphertext_len or not pk.in_zstar_n2(c):
        return "product is not a ciphertext in Z*_{N²}"
    try:
        t = decode_minimal(r.tally, "tally")
        nonce = decode_minimal(r.decryption_nonce, "decryptionNonce")
    except ElectionError as e:
        return str(e)
    problem = _decryption_problem(prep, r, c, t, nonce)
    if problem is not None:
        return problem
    if t >= mm ** p:
        return "the tally is not below M^p"
    digits = [(t >> (m.encoding_bits * j)) & (mm - 1) for j in range(p)]
    if digits != list(r.counts):
        return "the counts are not the base-M digits of the tally"
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
