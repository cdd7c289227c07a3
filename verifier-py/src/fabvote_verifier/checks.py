"""The numbered checks of docs/VERIFY.md, and the check of each failure.

This verifier's own list (test_verify_spec keeps it docs/VERIFY.md's): a
failure names its check, and the JSON report lists the outcome of every
check that ran, as the Go verifier's does."""

from __future__ import annotations

# (id, title, step, record only, optional: made only when asked for, an anchor)
CHECKS = [
    ("V1", "record.json", "record", True, False),
    ("V2", "The record's files", "record", True, False),
    ("V3", "ballots.json", "record", True, False),
    ("V4", "manifest.json and result.json readable", "record", True, False),
    ("V5", "The blocks form one chain of the record's channel", "blocks", True, False),
    ("V6", "The genesis hash anchor", "blocks", True, True),
    ("V7", "The genesis configuration", "block-signatures", True, False),
    ("V8", "Every block signed by an orderer of the configuration in force", "block-signatures", True, False),
    ("V9", "Only ballot keys under the ballot prefix", "ballot-index", True, False),
    ("V10", "The index is the ballot keys' first writes", "ballot-index", True, False),
    ("V11", "The manifest is sound", "ballots", False, False),
    ("V12", "The manifest is the record's election and channel", "ballots", True, False),
    ("V13", "The published manifest anchor", "ballots", False, True),
    ("V33", "The key's origin", "ballots", False, False),
    ("V14", "Each ballot decodes", "ballots", False, False),
    ("V15", "Each ballot is stored under its pseudonym", "ballots", False, False),
    ("V16", "Each ballot is of this election, with its ciphertexts in range", "ballots", False, False),
    ("V17", "Each ballot's token", "ballots", False, False),
    ("V18", "Each ballot's voter signature", "ballots", False, False),
    ("V19", "Each ballot's validity proofs", "ballots", False, False),
    ("V20", "One ballot per pseudonym", "ballots", False, False),
    ("V31", "Each ballot answers its style's contests", "ballots", False, False),
    ("V32", "Spoiled ballots and ciphertext claims", "ballots", False, False),
    ("V21", "The opening wrote the manifest", "commit-order", False, False),
    ("V22", "Each key written once, never deleted", "commit-order", False, False),
    ("V23", "Each ballot stored with the transaction that wrote it", "commit-order", False, False),
    ("V24", "The result's first write is the published result", "commit-order", False, False),
    ("V25", "A result is published", "result", False, False),
    ("V26", "The result decodes", "result", False, False),
    ("V27", "The result counts the ballots committed before it", "result", False, False),
    ("V28", "The result's product is theirs", "result", False, False),
    ("V29", "The result's decryption and counts", "result", False, False),
    ("V30", "The counts expected", "result", False, True),
]

# The input a check runs on beyond its step (docs/VERIFY.md): a sound
# manifest, the ballots checked, the commit order, the result looked for,
# present, checked against the ballots. Every other check needs its step.
MANIFEST, BALLOTS, ORDER = "manifest", "ballots", "order"
RESULT_READ, RESULT, RESULT_CHECKED = "result-read", "result", "result-checked"
NEEDS = {"V12": MANIFEST, "V33": MANIFEST, **{f"V{n}": BALLOTS for n in (*range(14, 21), 31, 32)}, **{f"V{n}": ORDER for n in range(22, 25)},
         "V25": RESULT_READ, "V26": RESULT, **{f"V{n}": RESULT_CHECKED for n in range(27, 30)}}

# The checks whose failures share a kind and subject with another's: the
# finder names them.
GENESIS_ANCHOR, MANIFEST_IS_OWN, PUBLISHED_ANCHOR = "V6", "V12", "V13"
OPENING, STORED_TXID, RESULT_WRITE = "V21", "V23", "V24"

_BY_KIND = {"MANIFEST": "V11", "KEY_ORIGIN": "V33", "BALLOT_DECODE": "V14", "BALLOT_KEY": "V15", "DUPLICATE": "V20",
            "SPOILED_INVALID": "V32", "TRACKER": "V32",
            "RESULT_MISSING": "V25", "RESULT_DECODE": "V26", "RESULT_COUNT": "V27", "RESULT_PRODUCT": "V28",
            "RESULT": "V29", "EXPECTED_COUNTS": "V30", "COMMIT_ORDER": "V22", "BLOCK_CHAIN": "V5"}
_RECORD_FILES = {"record.json": "V1", "files": "V2", "ballots.json": "V3"}
# LIMIT (a per-option contest's sum proof) is a validity proof's failure;
# the ballot's contest list against its style (NOT_IN_STYLE, CONTEST_REPEAT,
# CONTEST_ORDER, CONTEST_MISSING) is V31's; NO_ELECTION and CIPHERTEXT V16's.
_BALLOT_CODES = {"TOKEN": "V17", "SIGNATURE": "V18", "PROOF": "V19", "LIMIT": "V19",
                 "NOT_IN_STYLE": "V31", "CONTEST_REPEAT": "V31", "CONTEST_ORDER": "V31", "CONTEST_MISSING": "V31"}


def check_of(kind: str, code: str | None, subject: str) -> str | None:
    """The check a failure its finder did not name belongs to; None for a
    failure to read the source."""
    if kind == "RECORD":
        return _RECORD_FILES.get(subject, "V4")
    if kind == "BLOCK_SIGNATURE":
        return "V7" if subject == "block 0" else "V8"
    if kind == "RECORD_BALLOTS":
        return "V10" if subject.startswith("ballot ") else "V9"
    if kind == "BALLOT_INVALID":
        return _BALLOT_CODES.get(code, "V16")
    return _BY_KIND.get(kind)


def checks_run(steps: list, failures: list, optional: list, inputs: set) -> list:
    """The outcome of every check of the steps reached (a record's) that
    had its input (NEEDS), or failed; the optional ones only when asked for."""
    failed = {f.get("check") for f in failures}
    return [{"check": cid, "ok": cid not in failed} for cid, _, step, _, opt in CHECKS
            if step in steps and (not opt or cid in optional) and (cid in failed or NEEDS.get(cid, "step") in inputs | {"step"})]
