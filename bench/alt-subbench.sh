#!/usr/bin/env bash
# alt-subbench.sh PKG BENCH BASE VARIANT... — the sub-benchmarks BENCH/BASE and
# BENCH/VARIANT of one Go package, in alternating trials on the same machine
# (base, variant1, variant2, …, base, …), TRIALS rounds [5].
#
# Builds PKG's test binary once (with the gmp tag when libgmp links) and runs
# each sub-benchmark alone per trial. Prints every raw benchmark line prefixed
# with the trial number, then, for each variant, the ratio of its ns/op to the
# base's in the same round: the mean of the per-round ratios with a 95 %
# t-interval (bench/report/report.py's paired_ratio).
# BENCHTIME sets -test.benchtime [1x].
#
#   bench/alt-subbench.sh fabric/ext/leveldbopts Ballots stock bloom nocompress memtable16 cache32 tuned
set -euo pipefail
[[ $# -ge 4 ]] || { echo "usage: $0 PKG BENCH BASE VARIANT..." >&2; exit 2; }
PKG=$1 BENCH=$2
shift 2
TRIALS=${TRIALS:-5}
[[ $TRIALS =~ ^[1-9][0-9]*$ ]] || { echo "alt-subbench: TRIALS=$TRIALS: want a positive number" >&2; exit 2; }
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TAGS=$("$ROOT/chaincode/gotags.sh" 2>/dev/null || true)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
(cd "$ROOT" && go test -c -tags "$TAGS" -o "$WORK/pkg.test" "./$PKG")
echo "# $(date -u +%FT%TZ) $(git -C "$ROOT" rev-parse --short HEAD),$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), $(nproc) CPUs, $(go version | cut -d' ' -f3), tags '$TAGS'"
echo "# $PKG $BENCH/{$*}, $TRIALS alternating rounds, -test.benchtime ${BENCHTIME:-1x}"
for ((i = 1; i <= TRIALS; i++)); do
	for v in "$@"; do
		(cd "$ROOT/$PKG" && "$WORK/pkg.test" -test.run '^$' -test.bench "^Benchmark$BENCH\$/^$v\$" -test.benchtime "${BENCHTIME:-1x}") |
			grep '^Benchmark' | sed "s/^/$i /"
	done
done | tee "$WORK/raw.txt"
ROOT_DIR=$ROOT python3 - "$WORK/raw.txt" "$@" <<'PY'
import os, re, sys
sys.path.insert(0, os.path.join(os.environ["ROOT_DIR"], "bench/report"))
from report import paired_ratio
raw, base, variants = sys.argv[1], sys.argv[2], sys.argv[3:]
ns = {}
for line in open(raw):
    m = re.match(r"(\d+) Benchmark\w+/(\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op", line)
    if m:
        ns.setdefault(m[2], {})[int(m[1])] = float(m[3])
for v in variants:
    rounds = sorted(set(ns.get(v, {})) & set(ns.get(base, {})))
    r = paired_ratio([ns[v][i] / ns[base][i] for i in rounds])
    if r is None:
        print(f"# {v} / {base}: fewer than 2 rounds")
    else:
        print(f"# {v} / {base} ns/op: ×{r[0]:.2f}, 95 % CI [{r[1]:.2f}–{r[2]:.2f}] over {len(rounds)} rounds")
PY
