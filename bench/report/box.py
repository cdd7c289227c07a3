#!/usr/bin/env python3
"""box.py OUT — the summary of bench/box.sh's trials (`make bench-box`).

OUT/runs holds one `fabvote bench` report per run: the baseline's,
client-tN.json (the CLI's gateway client) or direct-tN.json (the load
generator's own gateway path), and box-tN.json (through the ballot box), a
pair per trial N. The summary gives each trial's p50 and p95 of both, the
pair's p50 difference box − baseline, the differences' mean with its 95 % interval
(Student's t over the pairs) and whether the target (box adds at most
OUT/meta.json's targetMs to the p50) holds, is missed, or is inside the
noise. It is written to OUT/summary.md and OUT/summary.json and printed.
"""
from datetime import datetime
import json
import math
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402

BASELINES = ("client", "direct")
RUN_NAME = re.compile(r"^(client|direct|box)-t([0-9]+)\.json$")


def load_pairs(runs_dir):
    """The baseline's name and the trials' pairs, by trial number: (baseline, [(trial, baseline report, box
    report)]). Runs of two baselines, or a trial without both runs, are an error naming them."""
    runs = {}
    for name in sorted(os.listdir(runs_dir)):
        m = RUN_NAME.match(name)
        if m:
            with open(os.path.join(runs_dir, name)) as f:
                runs.setdefault(int(m.group(2)), {})[m.group(1)] = json.load(f)
    if not runs:
        raise ValueError(f"{runs_dir}: no client-tN.json, direct-tN.json or box-tN.json reports")
    found = sorted({name for r in runs.values() for name in r if name in BASELINES})
    if len(found) > 1:
        raise ValueError(f"{runs_dir}: runs of two baselines ({' and '.join(found)}): keep one per results directory")
    baseline = found[0] if found else BASELINES[0]
    pairs = []
    for t in sorted(runs):
        missing = {baseline, "box"} - set(runs[t])
        if missing:
            raise ValueError(f"{runs_dir}: trial {t} has no {' and no '.join(sorted(missing))} report")
        pairs.append((t, runs[t][baseline], runs[t]["box"]))
    return baseline, pairs


def interval(diffs):
    """The mean of diffs and its two-sided 95 % t-interval, or (mean, None, None) under 2 pairs."""
    m = statistics.fmean(diffs)
    if len(diffs) < 2:
        return m, None, None
    half = report.T975.get(len(diffs) - 1, 1.96) * statistics.stdev(diffs) / math.sqrt(len(diffs))
    return m, m - half, m + half


def verdict(mean, low, high, target, failed=False):
    """Whether the box's p50 overhead is at most target ms: the interval wholly below it holds, wholly above it
    misses, across it is inside the noise. A run with failed ballots decides nothing: its percentiles are of the
    committed ballots only, and a box that fails its slow ballots (or all of them) would look fast."""
    if failed:
        return "undecided", "ballots failed in some runs: the p50s are of the committed ballots only, so the pairs do not compare"
    if low is None:
        return "undecided", f"one pair gives no interval: run at least 2 trials (the mean {mean:+.1f} ms alone decides nothing)"
    if high <= target:
        return "holds", f"the whole interval is at most {target:g} ms"
    if low > target:
        return "missed", f"the whole interval is above {target:g} ms"
    return "noise", f"the interval spans {target:g} ms: inside the noise; run more trials, or on a quieter machine"


def started(rep):
    """A report's start as seconds since the epoch (Go writes RFC 3339 with up to nine fractional digits)."""
    m = re.fullmatch(r"(.*?)(\.[0-9]+)?(Z|[+-][0-9:]+)", rep["started"])
    base = datetime.fromisoformat(m.group(1) + ("+00:00" if m.group(3) == "Z" else m.group(3)))
    return base.timestamp() + float(m.group(2) or 0)


def summarize(loaded, target, want_baseline=None):
    """The summary as a dict, from load_pairs' answer: per trial, the pairs' differences, their interval and the
    verdict. want_baseline, when given (meta.json's), must be the runs' baseline."""
    baseline, pairs = loaded
    if want_baseline is not None and want_baseline != baseline:
        raise ValueError(f"meta.json names the baseline {want_baseline}, the runs are {baseline}'s")
    rows = []
    for t, d, b in pairs:
        rows.append({"trial": t, "first": "box" if started(b) < started(d) else baseline,
                     "baseline": {k: d["latencyMs"][k] for k in ("p50", "p95")}, "box": {k: b["latencyMs"][k] for k in ("p50", "p95")},
                     "diffP50": round(b["latencyMs"]["p50"] - d["latencyMs"]["p50"], 3),
                     "failed": {"baseline": d["failed"], "box": b["failed"]}, "sent": {"baseline": d["sent"], "box": b["sent"]}})
    mean, low, high = interval([r["diffP50"] for r in rows])
    word, why = verdict(mean, low, high, target, any(r["failed"]["baseline"] or r["failed"]["box"] for r in rows))
    return {"baselineName": baseline, "trials": rows,
            "diffP50": {"mean": round(mean, 3), "low": low and round(low, 3), "high": high and round(high, 3), "pairs": len(rows)},
            "targetMs": target, "verdict": word, "why": why}


BASELINE_TEXT = {
    "client": "the CLI's gateway client, the box's own path to the ledger (Submit, then a commit-status call per ballot)",
    "direct": "the load generator's own gateway path (endorse and submit, commits from one block-event stream)",
}


def markdown(s, meta):
    """The summary as the text printed and written to summary.md."""
    b = s["baselineName"]
    out = [f"Ballot box overhead: {meta.get('command', '')}",
           f"{meta.get('count', '?')} ballots a run at {meta.get('rate', '?')} ballots/s, configuration {meta.get('config', '?')}. "
           "Each run casts ballots of its own (every voter casts once): the runs' inputs are the same shape, not the same ballots.",
           f"Baseline ({b}): {BASELINE_TEXT[b]}.",
           "",
           f"| trial | first | {b} p50 ms | {b} p95 ms | box p50 ms | box p95 ms | box − {b} p50 ms | failed {b} / box |",
           "|---|---|---|---|---|---|---|---|"]
    for r in s["trials"]:
        out.append(f"| {r['trial']} | {r['first']} | {r['baseline']['p50']:.1f} | {r['baseline']['p95']:.1f} | {r['box']['p50']:.1f} | "
                   f"{r['box']['p95']:.1f} | {r['diffP50']:+.1f} | {r['failed']['baseline']}/{r['sent']['baseline']} / {r['failed']['box']}/{r['sent']['box']} |")
    d = s["diffP50"]
    ci = f"95 % interval [{d['low']:+.1f}, {d['high']:+.1f}] ms (Student's t over {d['pairs']} pairs)" if d["low"] is not None else "no interval (one pair)"
    out += ["", f"box − {b} p50: mean {d['mean']:+.1f} ms, {ci}.",
            f"Target: the box adds at most {s['targetMs']:g} ms to the p50: {s['verdict']} ({s['why']})."]
    if any(r["failed"]["baseline"] or r["failed"]["box"] for r in s["trials"]):
        out.append("Some ballots failed (see the runs' failures): the percentiles are of the committed ballots only.")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: box.py OUT (bench/box.sh's results directory)")
    out = sys.argv[1]
    with open(os.path.join(out, "meta.json")) as f:
        meta = json.load(f)
    try:
        s = summarize(load_pairs(os.path.join(out, "runs")), float(meta["targetMs"]), meta.get("baseline"))
    except ValueError as e:
        sys.exit(f"box.py: {e}")
    text = markdown(s, meta)
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(s, f, indent=1)
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(text)
    print(text, end="")


if __name__ == "__main__":
    main()
