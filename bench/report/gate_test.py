#!/usr/bin/env python3
"""Unit tests of gate.py (run by `make bench-report-unit`)."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gate  # noqa: E402


def write_run(d, config, delay, loop, trial, tps, p50, sessions=3, escalations=0):
    rep = {"label": config, "trial": trial, "loop": loop, "sent": 100, "failed": 0, "seconds": 5.0,
           "steady": {"tps": tps}, "latencyMs": {"p50": p50, "p90": 1.5 * p50}, "endorseLatencyMs": {"p50": p50 / 2}}
    name = f"{config}-d{delay}-{loop}-t{trial}"
    with open(os.path.join(d, "runs", name + ".json"), "w") as f:
        json.dump(rep, f)
    # Counters carry over from earlier runs on the same network: only the difference is this run's.
    before = {"sessions": 1000, "escalations": 4, "retries": 2, "commits": 50}
    after = {"sessions": 1000 + sessions * 100, "escalations": 4 + escalations, "retries": 2, "commits": 60}
    with open(os.path.join(d, "runs", name + ".gate.json"), "w") as f:
        json.dump({"before": before, "after": after}, f)


class GateReport(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.dir = self.tmp.name
        os.mkdir(os.path.join(d, "runs"))
        meta = {"cpu": "test CPU", "cpus": 2, "commit": "abc", "started": "now", "command": "make bench-gate",
                "batchSize": 100, "batchTimeout": "100ms", "gates": {"fork-off": "locked", "o3": "lockless"},
                "concurrency": 200, "count": 100, "rate": 50, "openCount": 100}
        with open(os.path.join(d, "meta.json"), "w") as f:
            json.dump(meta, f)
        for t in range(1, 6):
            # 500ms: lockless doubles the throughput and halves the latency in every trial.
            write_run(d, "fork-off", "500ms", "closed", t, 100 + t, 2000)
            write_run(d, "o3", "500ms", "closed", t, 2 * (100 + t), 800)
            write_run(d, "fork-off", "500ms", "open", t, 50, 1000 + t)
            write_run(d, "o3", "500ms", "open", t, 50, (1000 + t) / 2, escalations=1 if t == 1 else 0)
            # 50ms: ±10 % alternating, inside the noise.
            write_run(d, "fork-off", "50ms", "closed", t, 400, 500)
            write_run(d, "o3", "50ms", "closed", t, 400 * (1.1 if t % 2 else 0.9), 500)

    def tearDown(self):
        self.tmp.cleanup()

    def rows(self, lines):
        return {(c[1].strip(), c[2].strip()): c for c in (ln.split("|") for ln in lines[2:])}

    def test_closed_ratio_and_verdict(self):
        rows = self.rows(gate.closed_table(gate.load_runs([self.dir])))
        self.assertIn("×2.00 [2.00–2.00]", rows[("500ms", "lockless")][10])
        self.assertEqual(rows[("500ms", "lockless")][11].strip(), "lockless better")
        self.assertEqual(rows[("50ms", "lockless")][11].strip(), "inside the noise")
        self.assertEqual(rows[("500ms", "locked")][10].strip(), "")
        self.assertEqual(rows[("500ms", "locked")][9].strip(), "0 / 500")
        self.assertEqual(rows[("500ms", "locked")][7].strip(), "2.0")  # 10 commits in 5 s per run
        # Delays in increasing order, locked before lockless.
        self.assertEqual(list(rows), [("50ms", "locked"), ("50ms", "lockless"), ("500ms", "locked"), ("500ms", "lockless")])

    def test_open_ratio_is_of_latency(self):
        rows = self.rows(gate.open_table(gate.load_runs([self.dir])))
        self.assertIn("×0.50 [0.50–0.50]", rows[("500ms", "lockless")][11])
        self.assertEqual(rows[("500ms", "lockless")][12].strip(), "lockless better")
        self.assertEqual(rows[("500ms", "lockless")][9].strip(), "3.0 / 1 / 0")

    def test_counters_are_per_run_deltas(self):
        runs = [r for r in gate.load_runs([self.dir]) if r["loop"] == "open" and r["gate"] == "lockless"]
        self.assertEqual(gate.counters_cell(runs), "3.0 / 1 / 0")

    def test_unknown_configuration_is_named(self):
        write_run(self.dir, "o7", "50ms", "closed", 1, 400, 500)
        with self.assertRaises(SystemExit) as e:
            gate.load_runs([self.dir])
        self.assertIn("configuration o7", str(e.exception))

    def test_pooling_needs_the_same_parameters(self):
        with tempfile.TemporaryDirectory() as other:
            os.mkdir(os.path.join(other, "runs"))
            with open(os.path.join(self.dir, "meta.json")) as f:
                meta = json.load(f)
            meta["rate"] = 100
            with open(os.path.join(other, "meta.json"), "w") as f:
                json.dump(meta, f)
            with self.assertRaises(SystemExit) as e:
                gate.section([self.dir, other], gate.load_runs([self.dir]))
            self.assertIn("other rate", str(e.exception))

    def test_doc_markers(self):
        doc = os.path.join(self.dir, "doc.md")
        with open(doc, "w") as f:
            f.write(f"# x\n\nbefore\n{gate.BEGIN}\nold\n{gate.END}\nafter\n")
        gate.write_doc(doc, gate.section([self.dir], gate.load_runs([self.dir])))
        text = open(doc).read()
        self.assertTrue(text.startswith("# x\n\nbefore\n" + gate.BEGIN) and text.endswith(gate.END + "\nafter\n"))
        self.assertNotIn("old", text)


if __name__ == "__main__":
    unittest.main()
