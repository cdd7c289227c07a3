"""The verification report (docs/RECORD.md section 7): human-readable and JSON."""

from __future__ import annotations

import json

from .checks import check_of, checks_run

STEPS = ["record", "blocks", "block-signatures", "ballot-index", "ballots", "commit-order", "result"]
STEP_KINDS = {
    "record": {"RECORD", "SOURCE"},
    "blocks": {"BLOCK_CHAIN"},
    "block-signatures": {"BLOCK_SIGNATURE"},
    "ballot-index": {"RECORD_BALLOTS"},
    "ballots": {"MANIFEST", "KEY_ORIGIN", "BALLOT_DECODE", "BALLOT_KEY", "BALLOT_INVALID", "DUPLICATE", "SPOILED_INVALID", "TRACKER"},
    "commit-order": {"COMMIT_ORDER"},
    "result": {"RESULT_MISSING", "RESULT_DECODE", "RESULT_COUNT", "RESULT_PRODUCT", "RESULT"},
}
KIND_STEP = {k: s for s, ks in STEP_KINDS.items() for k in ks}
# The kinds in the order of RECORD.md 7's table, which orders a report's
# failures (sort_failures).
REPORT_KINDS = ["RECORD", "SOURCE", "BLOCK_CHAIN", "BLOCK_SIGNATURE", "RECORD_BALLOTS",
                "MANIFEST", "KEY_ORIGIN", "BALLOT_DECODE", "BALLOT_KEY", "BALLOT_INVALID", "DUPLICATE", "SPOILED_INVALID", "TRACKER",
                "COMMIT_ORDER",
                "RESULT_MISSING", "RESULT_DECODE", "RESULT_COUNT", "RESULT_PRODUCT", "RESULT", "EXPECTED_COUNTS"]


def _utf8(s) -> bytes:
    return (s or "").encode("utf-8", "surrogatepass")


class Report:
    def __init__(self, source: str = "record"):
        self.source = source
        self.election_id = ""
        self.genesis_hash = None
        # The anchors given (docs/RECORD.md section 9): None for a live
        # network, else {"genesisHash": hex or None, "manifestSHA256": hex or None}.
        self.anchors = None
        self.record_digest = None  # RECORD.md 7.1, once step 1 found every file
        self.steps = []
        self.failures = []
        self.ballots = None
        self.result = None
        self.late_ballots = []
        # The inputs the verification had (checks.NEEDS): a check whose
        # input is missing is not listed unless it failed.
        self.inputs = set()

    def optional_checks(self) -> list:
        """The optional checks asked for: the anchors given."""
        a = self.anchors or {}
        return [cid for cid, key in (("V6", "genesisHash"), ("V13", "manifestSHA256")) if a.get(key)]

    def step(self, name: str) -> None:
        if name not in self.steps:
            self.steps.append(name)

    def fail(self, kind, subject, error, code=None, pseudonym=None, check=None):
        """check: the docs/VERIFY.md check, where kind, code and subject do
        not tell it (checks.check_of)."""
        f = {"kind": kind}
        check = check or check_of(kind, code, subject)
        if check:
            f["check"] = check
        if code:
            f["code"] = code
        f["subject"] = subject
        if pseudonym:
            f["pseudonym"] = pseudonym
        f["error"] = error
        self.failures.append(f)

    def sort_failures(self) -> None:
        """RECORD.md 7: by kind in REPORT_KINDS' order, then by subject,
        pseudonym and code compared byte by byte (UTF-8), as the Go
        verifier sorts them; equal ones keep the order they were found in."""
        def key(f):
            k = f["kind"]
            rank = REPORT_KINDS.index(k) if k in REPORT_KINDS else len(REPORT_KINDS)
            return (rank, _utf8(f["subject"]), _utf8(f.get("pseudonym")), _utf8(f.get("code")))
        self.failures.sort(key=key)

    def failed_steps(self) -> set:
        return {KIND_STEP[f["kind"]] for f in self.failures}

    @property
    def ok(self) -> bool:
        return not self.failures

    def kinds(self) -> list:
        return sorted({f["kind"] for f in self.failures})

    def to_json(self) -> dict:
        bad = self.failed_steps()
        out = {"format": "fabvote-verify-report", "version": 1, "electionID": self.election_id,
               "source": self.source, "ok": self.ok}
        if self.source == "record" and self.genesis_hash:
            out["genesisHash"] = self.genesis_hash
        if self.source == "record" and self.anchors is not None:
            out["anchors"] = self.anchors
        if self.source == "record" and self.record_digest:
            out["recordDigest"] = self.record_digest
        out["steps"] = [{"step": s, "ok": s not in bad} for s in STEPS if s in self.steps]
        out["checks"] = checks_run(self.steps, self.failures, self.optional_checks(), self.inputs)
        out["ballots"] = self.ballots
        out["result"] = self.result
        out["lateBallots"] = self.late_ballots
        out["failures"] = self.failures
        return out

    def dumps_json(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False, separators=(",", ":"))

    def _anchor_lines(self) -> list:
        """Which anchors were checked, and what a record could show without each."""
        a = self.anchors
        if a is None:
            return []
        g, m = a["genesisHash"], a["manifestSHA256"]
        lines = [f"anchor: genesis hash {g} (--genesis-hash): checked" if g else
                 "anchor: no --genesis-hash: a record of another channel would pass too",
                 f"anchor: published manifest, SHA-256 {m} (--manifest): checked" if m else
                 "anchor: no --manifest: a record showing another election of this id would pass too"]
        if not g and not m:
            lines.append("anchors: none given: only the record's internal consistency was checked (docs/RECORD.md section 9)")
        return lines

    def human(self) -> str:
        lines = []
        lines.append(f"election {self.election_id or '?'} (source: {self.source})")
        lines.extend(self._anchor_lines())
        if self.genesis_hash:
            lines.append(f"genesis block hash: {self.genesis_hash}")
        bad = self.failed_steps()
        for s in STEPS:
            if s in self.steps:
                lines.append(f"  {s:<17} {'FAIL' if s in bad else 'ok'}")
        if self.ballots:
            b = self.ballots
            lines.append(f"ballots: {b['recorded']} recorded, {b['valid']} valid, {b['counted']} counted, {b['late']} late")
        if self.result:
            lines.append(f"result: {self.result['ballotCount']} ballot(s) counted")
            for c in self.result["contests"]:
                lines.append(f"  contest {c['id']} ({c['title']}): {c['ballots']} ballot(s), "
                             f"{c['undervotes']} undervote(s), {c['blank']} blank")
                for name, n in zip(c["options"], c["counts"]):
                    lines.append(f"    {n:>10}  {name}")
        for lb in self.late_ballots:
            lines.append(f"LATE {lb['pseudonym']} (tx {lb['txID']}, block {lb['block']}): committed after the result, not counted")
        run = checks_run(self.steps, self.failures, self.optional_checks(), self.inputs)
        failed = [c["check"] for c in run if not c["ok"]]
        if self.steps:
            ran = len(run)
            lines.append(f"checks (docs/VERIFY.md): {ran - len(failed)} of {ran} passed" + (f"; failed: {', '.join(failed)}" if failed else ""))
        for f in self.failures:
            code = f" {f['code']}" if "code" in f else ""
            check = f"{f['check']} " if "check" in f else ""
            lines.append(f"{check}{f['kind']}{code} {f['subject']}: {f['error']}")
        if self.ok:
            late = len(self.late_ballots)
            tail = f" ({late} ballot(s) committed after the result, not counted)" if late else ""
            lines.append("RESULT: PASS" + tail)
        else:
            lines.append("RESULT: FAIL")
        return "\n".join(lines) + "\n"
