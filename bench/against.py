"""Summary of bench/against.sh's raw results: per trial, each side's ballots
made per second (make ballots) and its steady throughput and network CPU per
committed ballot (make bench); then head against base, as the geometric mean
of the paired trials' ratios with a 95 % t interval on their logarithms."""

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "report"))
from report import paired_ratio  # noqa: E402


def ballots_per_second(out, side, t, n):
    wall, user, sys_ = (float(x) for x in (out / f"ballots-{side}-{t}.time").read_text().split()[-3:])
    return n / wall, (user + sys_) / n * 1e3


def bench(out, side, t):
    d = out / f"bench-{side}-{t}"
    (main,) = (d / "main").glob("*.json")
    (cpu,) = (d / "cpu").glob("*.json")
    r = json.loads(main.read_text())
    if r["failed"] or r["succeeded"] != r["sent"]:
        raise SystemExit(f"{main}: {r['failed']} of {r['sent']} ballots failed")
    return r["steady"]["tps"], sum(json.loads(cpu.read_text()).values()) / r["succeeded"] * 1e3


def line(label, pairs, unit_higher_is_better):
    r = paired_ratio([h / b for b, h in pairs])
    better = "higher is better" if unit_higher_is_better else "lower is better"
    inside = "1 inside the interval: no difference beyond the noise" if r[1] <= 1 <= r[2] else "1 outside the interval"
    return f"{label}, head / base: {r[0]:.3f} (95 % interval {r[1]:.3f} .. {r[2]:.3f}, {len(pairs)} pairs; {better}; {inside})"


def main(out):
    out = pathlib.Path(out)
    meta = (out / "meta.txt").read_text()
    n = int(meta.split("ballots per make-ballots trial: ")[1].split(";")[0])
    trials = sorted(int(p.name.split("-")[2].split(".")[0]) for p in out.glob("ballots-head-*.time"))
    rate, cpu_b, tps, cpu_n = [], [], [], []
    for t in trials:
        (bb, bc), (hb, hc) = ballots_per_second(out, "base", t, n), ballots_per_second(out, "head", t, n)
        (bt, bn), (ht, hn) = bench(out, "base", t), bench(out, "head", t)
        rate.append((bb, hb)), cpu_b.append((bc, hc)), tps.append((bt, ht)), cpu_n.append((bn, hn))
        print(f"trial {t}: make ballots base {bb:.1f} / head {hb:.1f} ballots/s ({bc:.1f} / {hc:.1f} CPU-ms a ballot); "
              f"make bench base {bt:.1f} / head {ht:.1f} TPS steady ({bn:.2f} / {hn:.2f} network CPU-ms a ballot)")
    print(line("make ballots: ballots/s", rate, True))
    print(line("make ballots: CPU-ms a ballot", cpu_b, False))
    print(line("make bench: steady TPS", tps, True))
    print(line("make bench: network CPU-ms a ballot", cpu_n, False))


if __name__ == "__main__":
    main(sys.argv[1])
