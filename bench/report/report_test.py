#!/usr/bin/env python3
"""Unit tests of report.py's statistics (run by `make bench-report-unit`)."""
import json
import math
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402


def rep(label, trial, tps, p50, n=40000):
    return {"label": label, "trial": trial, "mode": "full", "loop": "closed", "sent": n,
            "steady": {"tps": tps}, "latencyMs": {"p50": p50}}


class PairedRatio(unittest.TestCase):
    def test_interval_of_known_ratios(self):
        m, lo, hi = report.paired_ratio([1.0, 1.2, 1.1, 1.3, 0.9])
        # On logarithms: mean 0.08693, sd 0.14533, t(4) = 2.776.
        self.assertAlmostEqual(m, 1.0908, places=4)
        self.assertAlmostEqual(math.log(hi / m), 2.776 * 0.145327 / 5 ** 0.5, places=4)
        self.assertAlmostEqual(math.log(m / lo), math.log(hi / m))

    def test_inverse_ratios_mirror(self):
        a, b = report.paired_ratio([1.5, 2.0, 1.2]), report.paired_ratio([1 / 1.5, 1 / 2.0, 1 / 1.2])
        self.assertAlmostEqual(a[0] * b[0], 1.0)
        self.assertAlmostEqual(a[1] * b[2], 1.0)

    def test_one_pair_has_no_interval(self):
        self.assertIsNone(report.paired_ratio([1.3]))

    def test_table_pairs_by_trial_and_says_noise(self):
        reps = [rep("stock", t, 400 + 10 * t, 1000) for t in range(1, 6)]
        # fork 1.5x stock in every trial: a tight interval above 1.
        reps += [rep("all-o4", t, 1.5 * (400 + 10 * t), 600) for t in range(1, 6)]
        # o3: 1.1x in odd trials, 0.9x in even ones: inside the noise.
        reps += [rep("o3", t, (1.1 if t % 2 else 0.9) * (400 + 10 * t), 1000) for t in range(1, 6)]
        rows = {r.split("|")[3].strip(): r for r in report.paired_table(reps)[2:]}
        self.assertIn("| `stock` | 5 |", rows["`all-o4`"])
        self.assertIn("×1.50 [1.50–1.50]", rows["`all-o4`"])
        self.assertIn("×0.60 [0.60–0.60]", rows["`all-o4`"])
        self.assertIn("| faster |", rows["`all-o4`"])
        self.assertIn("inside the noise", rows["`o3`"])

    def test_pooled_runs_pair_within_each_run(self):
        reps = []
        for run, ratio in (("/r/a", 1.2), ("/r/b", 0.8)):
            for t in (1, 2):
                for label, tps in (("stock", 400.0), ("o1", 400.0 * ratio)):
                    r = rep(label, t, tps, 1000)
                    r["_file"] = f"{run}/main/{label}-t{t}.json"
                    reps.append(r)
        rows = report.paired_table(reps)
        self.assertIn("| `o1` | `stock` | 4 | ×0.98 [", rows[2])  # four pairs: 1.2, 1.2, 0.8, 0.8; √0.96 = 0.98

    def test_unpaired_trials_are_left_out(self):
        reps = [rep("stock", 1, 400, 1000), rep("stock", 2, 400, 1000), rep("o1", 2, 440, 1000), rep("o1", 3, 440, 1000)]
        self.assertEqual(report.paired_table(reps), [])


class Calibration(unittest.TestCase):
    def write_probes(self, run, label, t, slow, steal):
        os.makedirs(os.path.join(run, "probe"), exist_ok=True)
        for when, ticks, time in (("before", 100, "2026-11-29T04:00:00Z"), ("after", 100 + steal, "2026-11-29T04:00:10Z")):
            with open(os.path.join(run, "probe", f"{label}-t{t}-{when}.json"), "w") as f:
                json.dump({"time": time, "expNsPerOp": 1e6 * slow, "verifyNsPerOp": 1e5 * slow, "stealTicks": ticks}, f)

    def test_calibrated_ratio_and_steal(self):
        with tempfile.TemporaryDirectory() as run:
            reps = []
            for t in (1, 2, 3):
                for label, slow, steal in (("stock", 1.0, 0), ("o1", 1.1, 20 * t)):
                    r = rep(label, t, 400.0, 1000)  # the same TPS: the raw ratio is ×1.00
                    r["_file"] = os.path.join(run, "main", f"{label}-t{t}.json")
                    r["_config"], r["succeeded"] = label, 1000
                    reps.append(r)
                    self.write_probes(run, label, t, slow, steal)
                    os.makedirs(os.path.join(run, "cpu"), exist_ok=True)
                    with open(os.path.join(run, "cpu", f"{label}-t{t}.json"), "w") as f:
                        json.dump({"peer0.org1": 8.0 if label == "o1" else 10.0, "orderer0": 2.0, "cc.ballot": 0.0}, f)
            row = report.paired_table(reps)[2]
            # o1 ran on a machine 10 % slower in every trial: calibrated, it is 10 % faster.
            self.assertIn("| ×1.00 [1.00–1.00] | ×1.10 [1.10–1.10] |", row)
            # 60 ticks over 10 s on 2 cores: 3 % of the cores' time.
            self.assertIn("| 3.0 % |", row)
            # Network CPU per ballot: (8 + 2) / (10 + 2) in every pair.
            self.assertIn("| 3.0 % | ×0.83 [0.83–0.83] |", row)

    def test_missing_probe_leaves_the_column_empty(self):
        with tempfile.TemporaryDirectory() as run:
            reps = []
            for t in (1, 2):
                for label in ("stock", "o1"):
                    r = rep(label, t, 400.0, 1000)
                    r["_file"] = os.path.join(run, "main", f"{label}-t{t}.json")
                    reps.append(r)
                    if (label, t) != ("o1", 2):
                        self.write_probes(run, label, t, 1.0, 0)
            self.assertIn("| ×1.00 [1.00–1.00] | – | – |", report.paired_table(reps)[2])


class EraLabel(unittest.TestCase):
    def test_tuned_without_a_recorded_writers_policy_is_tuned0(self):
        old = {"label": "fork+tuned", "network": {"profile": "solo-org", "peer0 FABVOTE_DECODE_MEMO": "on"}}
        new = {"label": "fork+tuned", "network": {"profile": "solo-org", "writers": "signature", "peer0 FABVOTE_DECODE_MEMO": "on"}}
        self.assertEqual(report.era_label(old), "fork+tuned0")
        self.assertEqual(report.era_label(new), "fork+tuned")
        self.assertEqual(report.era_label({"label": "stock+gogc200+tuned", "network": {"profile": "x"}}), "stock+gogc200+tuned0")
        self.assertEqual(report.era_label({"label": "stock+tuned"}), "stock+tuned")  # built in memory: no network

    def test_tuned0_pairs_with_stock_tuned0(self):
        self.assertEqual(report.baseline("fork+tuned0", {"stock", "stock+tuned0", "fork+tuned0"}), "stock+tuned0")


class Baseline(unittest.TestCase):
    def test_tuned_configurations_compare_with_tuned_stock(self):
        present = {"stock", "stock+tuned", "fork+tuned", "fork", "o1+gogc200"}
        self.assertEqual(report.baseline("fork+tuned", present), "stock+tuned")
        self.assertEqual(report.baseline("stock+tuned", present), "stock")
        self.assertEqual(report.baseline("fork", present), "stock")
        self.assertEqual(report.baseline("o1+gogc200", present), "stock")  # no stock+gogc200 in the results
        self.assertIsNone(report.baseline("stock", present))
        self.assertIsNone(report.baseline("fork", {"fork", "all-o4"}))  # no stock at all

    def test_main_table_compares_only_runs_of_one_results_directory(self):
        reps = []
        for d, label, tps in (("/r/xeon", "stock", 470.0), ("/r/epyc", "stock+tuned", 300.0), ("/r/epyc", "fork+tuned", 339.0)):
            r = rep(label, 1, tps, 1000)
            r.update(tps=tps, failed=0, rate=0, concurrency=1200, _file=f"{d}/main/{label}-t1.json")
            r["latencyMs"].update(p90=1, p99=1)
            reps.append(r)
        rows = {ln.split("|")[4].strip().split(":")[0]: ln for ln in report.main_table(reps)[0][2:]}
        self.assertIn("| – | – |", rows["`stock+tuned`"])  # stock ran in another directory: no ratio
        self.assertIn("| ×1.13 |", rows["`fork+tuned`"])

    def test_paired_table_pairs_fork_tuned_with_stock_tuned(self):
        reps = [rep("stock+tuned", t, 400, 1000) for t in range(1, 4)] + [rep("fork+tuned", t, 600, 800) for t in range(1, 4)]
        rows = report.paired_table(reps)
        self.assertEqual(len(rows), 3)
        self.assertIn("| `fork+tuned` | `stock+tuned` | 3 | ×1.50 [1.50–1.50] | – | – | – | ×0.80 [0.80–0.80] | faster |", rows[2])


class BlockTable(unittest.TestCase):
    def test_rows_pool_trials_and_count_full_blocks(self):
        reps = []
        for t, (count, mean) in enumerate([(80, 500.0), (100, 400.0)], 1):
            r = rep("stock", t, 400, 1000)
            r.update(rate=0, concurrency=1200, blocks={"count": count, "txs": int(count * mean), "meanTxs": mean,
                                                       "medianTxs": 500, "minTxs": 12, "maxTxs": 500, "intendedTxs": 500, "full": 70})
            reps.append(r)
        reps.append(rep("o1", 1, 400, 1000))  # no block summary: no row
        rows = report.block_table(reps)
        self.assertEqual(len(rows), 3)
        self.assertIn("| `stock` | 2 | 90 ± 14 [80–100] | 450.0 ± 70.7 [400.0–500.0] |", rows[2])
        self.assertIn("| 12–500 | 140 of 180 | 500 |", rows[2])

    def test_no_summaries_no_table(self):
        self.assertEqual(report.block_table([rep("stock", 1, 400, 1000)]), [])


class Tunings(unittest.TestCase):
    def test_tuned_configurations_describe_and_sort_after_their_base(self):
        self.assertEqual(report.desc("stock+gogc200+nohistory"),
                         "upstream Fabric 2.5 (bin/stock); tuned: GOGC=200; tuned: history database off")
        self.assertEqual(report.desc("all-nobatch"), "fork, O-I + O-II + O-III, chaincode proof batching off")
        order = sorted(["fork", "stock+nohistory", "all-o4", "stock", "stock+gogc200"], key=report.order_key)
        self.assertEqual(order, ["stock", "stock+gogc200", "stock+nohistory", "all-o4", "fork"])


class Eras(unittest.TestCase):
    def test_fork_runs_from_before_o6_are_named_apart(self):
        before = {"label": "fork+tuned", "network": {"writers": "signature", "peer0.ea FABVOTE_SIG_MEMO": "on"}}
        after = {"label": "fork+tuned", "network": {"writers": "signature", "peer0.ea FABVOTE_SIG_MEMO": "on", "peer0.ea FABVOTE_DECODE_MEMO": "on"}}
        self.assertEqual(report.era_label(before), "fork-no-o6+tuned")
        self.assertEqual(report.era_label(after), "fork+tuned")
        self.assertEqual(report.era_label({"label": "o5", "network": {"peer0.ea FABVOTE_SIG_MEMO": "on"}}), "o5")
        self.assertEqual(report.era_label({"label": "fork"}), "fork", "a report without a network record keeps its name")
        self.assertEqual(report.desc("fork-no-o6"), report.DESC["fork-no-o6"])

    def test_profiles_are_shown_under_their_run_name(self):
        with tempfile.TemporaryDirectory() as d:
            os.mkdir(os.path.join(d, "main"))
            with open(os.path.join(d, "main", "fork-t1.json"), "w") as f:
                json.dump({"label": "fork", "network": {"peer0.ea FABVOTE_SIG_MEMO": "on"}}, f)
            self.assertEqual(report.shown_name(d, "fork"), "fork-no-o6")
            self.assertEqual(report.shown_name(d, "stock"), "stock", "no main report: the file's name")


class Configurations(unittest.TestCase):
    """The order and descriptions read from bench/configs.tsv are the ones report.py wrote out before."""

    def test_order_and_descriptions(self):
        self.assertEqual(report.ORDER, [
            "stock", "fork-off", "o1", "o2", "o3", "o4", "o5", "o6", "o7", "all", "all-o4", "fork-no-o6", "fork",
            "stock-nobatch", "fork-off-nobatch", "o1-nobatch", "o2-nobatch", "o3-nobatch", "all-nobatch"])
        self.assertEqual(report.DESC, {
            "stock": "upstream Fabric 2.5 (bin/stock)",
            "fork-off": "fork, every switch off",
            "o1": "fork, O-I (SHA-256 simd)",
            "o2": "fork, O-II (OpenSSL ECDSA)",
            "o3": "fork, O-III (lockless commit gate)",
            "o4": "fork, O-IV (proof checked by every peer at validation, cheap endorsement)",
            "all": "fork, O-I + O-II + O-III",
            "all-o4": "fork, O-I + O-II + O-III + O-IV",
            "o5": "fork, O-V (verified-signature memo)",
            "o6": "fork, O-VI (each transaction decoded once for the whole commit)",
            "o7": "fork, O-VII (tuned LevelDB options)",
            "fork-no-o6": "fork, every switch on but O-VI (O-I to O-V, O-VII): runs from before O-VI existed",
            "fork": "fork, every switch on (O-I to O-VII)",
        })

    def test_comment_and_blank_lines_skipped(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "configs.tsv")
            with open(path, "w", encoding="utf-8") as f:
                f.write("# name\tdescription\tenv\n\nx\tfork, X\tA=1 B=2\n")
            self.assertEqual(report.read_configs(path), [("x", "fork, X")])


class Sweep(unittest.TestCase):
    def test_method_says_how_the_points_were_run(self):
        fresh = report.sweep_method({"sweepSeconds": 20, "sweepFreshNetworks": True})
        self.assertIn("each point on a fresh network", fresh)
        self.assertIn("about 20 s", fresh)
        old = report.sweep_method({"sweepSeconds": 15})
        self.assertIn("One network per configuration", old, "runs from before fresh networks per point")
        self.assertNotIn("fresh", old)


if __name__ == "__main__":
    unittest.main()
