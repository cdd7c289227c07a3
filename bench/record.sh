#!/usr/bin/env bash
# record.sh — the cost of an election record (docs/BENCHMARKS.md, "The
# election record at the thesis's size"): its size, and the time and memory of each verifier on it.
#
#   bench/record.sh RECORD OUT [TRIALS]
#
# RECORD is a record directory (`fabvote record export`); OUT receives the
# raw results: size.txt, one go-N.time / py-N.time (GNU time -v) and
# go-N.json / py-N.json (the --json reports) per trial, and summary.tsv.
# The Go and Python verifiers alternate, trial by trial, on the same record.
# Run nothing else meanwhile. Variables: BIN (bin), PYVERIFY (the Python that
# has verifier-py installed; without it only the Go verifier runs).
set -euo pipefail

ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BIN=${BIN:-$ROOT/bin}
RECORD=${1:?usage: bench/record.sh RECORD OUT [TRIALS]}
OUT=${2:?usage: bench/record.sh RECORD OUT [TRIALS]}
TRIALS=${3:-3}
[[ -f $RECORD/record.json ]] || { echo "record.sh: $RECORD is not an election record" >&2; exit 2; }
mkdir -p "$OUT"

{
	echo "record: $RECORD"
	echo "machine: $(nproc) cores, $(sed -n 's/^model name\t: //p' /proc/cpuinfo | head -1), $(free -g | awk '/^Mem:/ {print $2}') GiB"
	echo "ballots: $(jq length "$RECORD/ballots.json")"
	echo "blocks: $(find "$RECORD/blocks" -name '*.block.gz' | wc -l)"
	echo "bytes on disk (du -sb): $(du -sb "$RECORD" | cut -f1)"
	echo "bytes of blocks/ (du -sb): $(du -sb "$RECORD/blocks" | cut -f1)"
	echo "bytes of ballots.json: $(stat -c %s "$RECORD/ballots.json")"
} | tee "$OUT/size.txt"

# run NAME TRIAL CMD...: GNU time's report in NAME-TRIAL.time, the JSON report
# in NAME-TRIAL.json; a verifier that does not PASS stops the benchmark.
run() {
	local name=$1 trial=$2
	shift 2
	/usr/bin/time -v -o "$OUT/$name-$trial.time" "$@" --json >"$OUT/$name-$trial.json"
	jq -e .ok "$OUT/$name-$trial.json" >/dev/null || { echo "record.sh: $name did not pass" >&2; exit 1; }
	local wall cpu rss
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$OUT/$name-$trial.time")
	cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {printf "%.1f", s}' "$OUT/$name-$trial.time")
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$OUT/$name-$trial.time")
	printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$trial" "$wall" "$cpu" "$rss" | tee -a "$OUT/summary.tsv"
}

printf 'verifier\ttrial\twall\tcpu_s\tmax_rss_kb\n' | tee "$OUT/summary.tsv"
for ((i = 1; i <= TRIALS; i++)); do
	run go "$i" "$BIN/fabvote" verify --record "$RECORD"
	if [[ -n ${PYVERIFY:-} ]]; then
		run py "$i" "$PYVERIFY" -m fabvote_verifier --record "$RECORD"
	fi
done
