#!/usr/bin/env python3
"""Unit tests of against.py (run by `make bench-report-unit`)."""
import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import against  # noqa: E402


def write_trial(d, side, t, wall, tps, cpu_total, failed=0):
    with open(os.path.join(d, f"ballots-{side}-{t}.time"), "w") as f:
        f.write(f"{wall} {wall * 1.8} {wall * 0.1}\n")
    b = os.path.join(d, f"bench-{side}-{t}")
    os.makedirs(os.path.join(b, "main")), os.makedirs(os.path.join(b, "cpu"))
    with open(os.path.join(b, "main", f"fork-t{t}.json"), "w") as f:
        json.dump({"sent": 1000, "succeeded": 1000 - failed, "failed": failed, "steady": {"tps": tps}}, f)
    with open(os.path.join(b, "cpu", f"fork-t{t}.json"), "w") as f:
        json.dump({"orderer0": cpu_total / 4, "peer0.ea": cpu_total / 2, "cc.ballot.peer0.ea": cpu_total / 4}, f)


def summary(d):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        against.main(d)
    return out.getvalue()


class Against(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        with open(os.path.join(self.dir, "meta.txt"), "w") as f:
            f.write("base x, head y\nballots per make-ballots trial: 100; make bench: fork, 1000 ballots\n")

    def tearDown(self):
        self.tmp.cleanup()

    def test_head_slower_in_every_trial(self):
        for t in range(1, 6):
            # Head takes 10 % longer to make ballots and commits 20 % fewer a second, in every trial.
            write_trial(self.dir, "base", t, 10 + t, 400 + t, 4.0)
            write_trial(self.dir, "head", t, 1.1 * (10 + t), 0.8 * (400 + t), 5.0)
        s = summary(self.dir)
        self.assertIn("make ballots: ballots/s, head / base: 0.909 (95 % interval 0.909 .. 0.909, 5 pairs", s)
        self.assertIn("make bench: steady TPS, head / base: 0.800", s)
        self.assertIn("make bench: network CPU-ms a ballot, head / base: 1.250", s)
        self.assertIn("trial 1: make ballots base 9.1 / head 8.3 ballots/s (209.0 / 229.9 CPU-ms a ballot)", s)
        self.assertEqual(s.count("1 outside the interval"), 4)

    def test_noise_is_named(self):
        for t, f in zip(range(1, 6), (1.05, 0.95, 1.04, 0.96, 1.0)):
            write_trial(self.dir, "base", t, 10, 400, 4.0)
            write_trial(self.dir, "head", t, 10, 400 * f, 4.0)
        self.assertIn("make bench: steady TPS, head / base: 0.999 (95 % interval 0.945 .. 1.057", summary(self.dir))
        self.assertIn("interval 0.945 .. 1.057, 5 pairs; higher is better; 1 inside the interval: no difference beyond the noise", summary(self.dir))

    def test_failed_ballots_refused(self):
        write_trial(self.dir, "base", 1, 10, 400, 4.0)
        write_trial(self.dir, "head", 1, 10, 400, 4.0, failed=3)
        with self.assertRaisesRegex(SystemExit, "3 of 1000 ballots failed"):
            summary(self.dir)


if __name__ == "__main__":
    unittest.main()
