#!/usr/bin/env python3
"""Unit tests of box.py (run by `make bench-report-unit`)."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import box  # noqa: E402


def write_run(d, target, trial, p50, started, failed=0):
    rep = {"trial": trial, "started": started, "sent": 100, "failed": failed, "latencyMs": {"p50": p50, "p95": 2 * p50}}
    with open(os.path.join(d, f"{target}-t{trial}.json"), "w") as f:
        json.dump(rep, f)


class BoxSummary(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def pairs(self, diffs, baseline="client"):
        """Trials whose box − baseline p50 differences are diffs, the order alternating each pair."""
        for t, diff in enumerate(diffs, 1):
            early, late = "2026-11-29T10:00:05Z", "2026-11-29T10:00:05.123456789Z"
            write_run(self.dir, baseline, t, 1000.0, early if t % 2 else late)
            write_run(self.dir, "box", t, 1000.0 + diff, late if t % 2 else early)
        return box.load_pairs(self.dir)

    def test_verdicts(self):
        for what, diffs, want in [
            ("interval below the target", [1.0, 2.0, 1.5, 1.0, 2.0], "holds"),
            ("interval above the target", [9.0, 10.0, 11.0, 9.5, 10.5], "missed"),
            ("interval across the target", [-20.0, 30.0, 2.0, 10.0, -5.0], "noise"),
            ("one pair", [1.0], "undecided"),
        ]:
            with self.subTest(what):
                for f in os.listdir(self.dir):
                    os.remove(os.path.join(self.dir, f))
                s = box.summarize(self.pairs(diffs), 5.0)
                self.assertEqual(s["verdict"], want, s)

    def test_interval_is_students_t(self):
        s = box.summarize(self.pairs([1.0, 3.0]), 5.0)
        # mean 2, sd √2, t(1) = 12.706: half-width 12.706·√2/√2.
        self.assertAlmostEqual(s["diffP50"]["mean"], 2.0)
        self.assertAlmostEqual(s["diffP50"]["low"], 2.0 - 12.706, places=3)
        self.assertAlmostEqual(s["diffP50"]["high"], 2.0 + 12.706, places=3)

    def test_rows_name_which_ran_first(self):
        for baseline in box.BASELINES:
            with self.subTest(baseline):
                for f in os.listdir(self.dir):
                    os.remove(os.path.join(self.dir, f))
                s = box.summarize(self.pairs([1.0, 2.0], baseline), 5.0)
                self.assertEqual(s["baselineName"], baseline)
                self.assertEqual([r["first"] for r in s["trials"]], [baseline, "box"])
                self.assertEqual([r["diffP50"] for r in s["trials"]], [1.0, 2.0])
                self.assertIn(f"box − {baseline} p50", box.markdown(s, {}))

    def test_two_baselines_are_refused(self):
        self.pairs([1.0], "client")
        write_run(self.dir, "direct", 2, 1000.0, "2026-11-29T10:00:00Z")
        with self.assertRaisesRegex(ValueError, "two baselines"):
            box.load_pairs(self.dir)

    def test_failures_leave_the_target_undecided(self):
        for what, failed in [("the box failed every ballot", {"box": 100}), ("the baseline failed one", {"client": 1})]:
            with self.subTest(what):
                for f in os.listdir(self.dir):
                    os.remove(os.path.join(self.dir, f))
                for t in (1, 2, 3):
                    write_run(self.dir, "client", t, 130.0, "2026-11-29T10:00:00Z", failed=failed.get("client", 0))
                    write_run(self.dir, "box", t, 0.0 if failed.get("box") else 131.0, "2026-11-29T10:01:00Z", failed=failed.get("box", 0))
                s = box.summarize(box.load_pairs(self.dir), 5.0)
                self.assertEqual(s["verdict"], "undecided", s)

    def test_meta_baseline_must_be_the_runs(self):
        with self.assertRaisesRegex(ValueError, "meta.json names the baseline direct"):
            box.summarize(self.pairs([1.0, 2.0], "client"), 5.0, "direct")

    def test_failures_are_named(self):
        write_run(self.dir, "client", 1, 1000.0, "2026-11-29T10:00:00Z", failed=3)
        write_run(self.dir, "box", 1, 1001.0, "2026-11-29T10:01:00Z")
        text = box.markdown(box.summarize(box.load_pairs(self.dir), 5.0), {})
        self.assertIn("3/100 / 0/100", text)
        self.assertIn("committed ballots only", text)

    def test_a_trial_without_its_partner_is_refused(self):
        write_run(self.dir, "client", 1, 1000.0, "2026-11-29T10:00:00Z")
        with self.assertRaisesRegex(ValueError, "trial 1 has no box report"):
            box.load_pairs(self.dir)

    def test_no_runs_is_refused(self):
        with self.assertRaisesRegex(ValueError, "no client-tN.json"):
            box.load_pairs(self.dir)


if __name__ == "__main__":
    unittest.main()
