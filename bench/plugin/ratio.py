"""Ratios of the plugin's CPU per ballot (cpu-ns/unit) from the raw output
of bench/plugin/contests.sh: head's one-question ballot against base's, and
head's three-contest ballot against head's one-question ballot, as the
geometric mean of the paired trials' ratios with a 95 % t interval on the
log ratios."""

import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "report"))
from report import paired_ratio  # noqa: E402


def cpu(path, name):
    for line in pathlib.Path(path).read_text().splitlines():
        m = re.match(rf"^{name}-\d+\s.*?\s([\d.]+) cpu-ns/unit", line)
        if m:
            return float(m.group(1))
    raise SystemExit(f"{path}: no {name} line")


def ratio(pairs):
    """The geometric mean of a/b over the pairs, with its 95 % interval (report.paired_ratio)."""
    return paired_ratio([a / b for a, b in pairs])


def main(out):
    out = pathlib.Path(out)
    trials = sorted(int(p.stem.split("-")[1]) for p in out.glob("head-*.txt"))
    rows = []
    for t in trials:
        base = cpu(out / f"base-{t}.txt", "BenchmarkCheckBlock500")
        one = cpu(out / f"head-{t}.txt", "BenchmarkCheckBlock500")
        three = cpu(out / f"head-{t}.txt", "BenchmarkCheckBlock500Contests")
        rows.append((t, base, one, three))
        print(f"trial {t}: base 1-of-4 {base / 1e6:.3f} ms, head 1-of-4 {one / 1e6:.3f} ms, head 3 contests {three / 1e6:.3f} ms CPU/ballot")
    for label, pairs in (("head 1-of-4 / base 1-of-4", [(r[2], r[1]) for r in rows]),
                         ("head 3 contests / head 1-of-4", [(r[3], r[2]) for r in rows])):
        g, lo, hi = ratio(pairs)
        print(f"{label}: {g:.3f} (95 % interval {lo:.3f} .. {hi:.3f}, {len(pairs)} paired trials)")


if __name__ == "__main__":
    main(sys.argv[1])
