"""A voter's receipt against a verified record (docs/RECORD.md section 4):
no identity, no network, the record's own files only."""

from __future__ import annotations

import json
import os


class ReceiptError(ValueError):
    pass


def load_receipt(path: str) -> dict:
    try:
        with open(path, "rb") as f:
            rc = json.loads(f.read().decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError) as e:
        raise ReceiptError(f"--receipt {path}: {e}") from None
    if not isinstance(rc, dict) or not all(isinstance(rc.get(k), str) and rc.get(k)
                                           for k in ("electionID", "pseudonym", "ballotHash")):
        raise ReceiptError(f"--receipt {path}: missing electionID, pseudonym or ballotHash")
    return rc


def check_receipt(record: str, rep, rc: dict) -> str:
    """Returns what the record says of the receipt's ballot; raises
    ReceiptError with the reason when it does not check out."""
    if rep.election_id and rep.election_id != rc["electionID"]:
        raise ReceiptError(f"the receipt is for election {rc['electionID']!r}, the record for {rep.election_id!r}")
    if not rep.ok:
        f = rep.failures[0]
        raise ReceiptError(f"the record does not verify ({len(rep.failures)} failure(s), the first: "
                           f"{f['kind']} {f['subject']}: {f['error']}): it cannot vouch for any ballot")
    with open(os.path.join(record, "ballots.json"), "rb") as f:
        index = json.loads(f.read().decode("utf-8"))
    for e in index:
        if e["pseudonym"] != rc["pseudonym"]:
            continue
        if e["ballotHash"] != rc["ballotHash"]:
            raise ReceiptError(f"the record holds ballot hash {e['ballotHash']} for voter {rc['pseudonym']}, "
                               f"the receipt says {rc['ballotHash']}: the ballot on the ledger is not yours")
        if rc.get("txID") and e["txID"] != rc["txID"]:
            raise ReceiptError(f"the record says tx {e['txID']} for voter {rc['pseudonym']}, the receipt says {rc['txID']}")
        for lb in rep.late_ballots:
            if lb["pseudonym"] == e["pseudonym"]:
                return f"in the record (tx {e['txID']}, block {e['block']}); it committed in block {lb['block']}, after the result: not counted"
        counted = "the result counts it" if rep.result is not None else "no result is published yet"
        return f"in the record (tx {e['txID']}, block {e['block']}); {counted}"
    raise ReceiptError(f"the record holds no ballot of voter {rc['pseudonym']}: your ballot was not recorded")
