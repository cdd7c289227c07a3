#!/usr/bin/env bash
# box.sh — the ballot box's latency overhead (`make bench-box`): how much
# `fabvote box serve` adds to a ballot's latency over a submission without
# it, at a fixed rate. Target: at most BOX_TARGET_MS (5 ms) on the p50 at
# 100 ballots/s.
#
# On one benchmark network (bench/lib.sh: the bench stack, solo-org,
# configuration BOX_CONFIG) with the benchmark election (bench/ballots.sh:
# N = 2048, 4 candidates) open, and a ballot box serving it at the port
# plan's address with the same organisation's gateway identity (user1), run
# BOX_TRIALS pairs of runs: the baseline and `fabvote bench --box` through
# the box (box), the pair's order alternating (baseline first in odd
# trials, box first in even ones). The baseline (BOX_BASELINE) is
#   client  `fabvote bench --client`: the CLI's gateway client, which is
#           the box's own path to the ledger (Submit, then one commit-status
#           call per ballot), so the difference is what the box adds: HTTPS,
#           its checks and its queueing;
#   direct  `fabvote bench`: the load generator's own path (endorse and
#           submit, commits read from one block-event stream), which learns
#           a commit sooner than a commit-status call does.
# Each run sends BOX_COUNT ballots at BOX_RATE ballots/s (open loop) and
# each run has ballots of its own, since a voter casts once: the runs'
# inputs are the same shape, not the same ballots. A sample spans the
# ballot's submission to the news of its commit (for the box: its answer,
# which comes after the commit).
#
# Writes OUT/runs/{BASELINE,box}-tN.json (the raw reports), OUT/logs/ and
# OUT/summary.md (bench/report/box.py: each trial's p50 and p95, the pairs'
# p50 difference box − baseline with its mean and 95 % interval, and the
# verdict on the target). The network and the box are stopped whatever
# happens.
#
# Variables (defaults in brackets):
#   BOX_TRIALS     pairs of runs [5]
#   BOX_COUNT      ballots per run [1000: 10 s at 100/s]
#   BOX_RATE       ballots per second [100]
#   BOX_TARGET_MS  the target on the p50 difference [5]
#   BOX_BASELINE   client or direct (above) [client]
#   BOX_CONFIG     the network's configuration (bench/lib.sh) [all]
#   BOX_ADDR       the box's address [the port plan's, bench stack]
#   OUT            results directory [.cache/bench/box/UTC-STAMP]
set -euo pipefail
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BIN=${BIN:-$ROOT/bin}
RUN=${RUN:-$ROOT/run}
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"

BOX_TRIALS=${BOX_TRIALS:-5}
BOX_COUNT=${BOX_COUNT:-1000}
BOX_RATE=${BOX_RATE:-100}
BOX_TARGET_MS=${BOX_TARGET_MS:-5}
BOX_BASELINE=${BOX_BASELINE:-client}
BOX_CONFIG=${BOX_CONFIG:-all}
BOX_ADDR=${BOX_ADDR:-$PLAN_BOX_ADDR}
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
OUT=${OUT:-$ROOT/.cache/bench/box/$STAMP}
FV=$BIN/fabvote

for v in BOX_TRIALS BOX_COUNT BOX_RATE BOX_TARGET_MS; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || bench_die "$v=${!v}: want a positive number"
done
[[ $BOX_BASELINE == client || $BOX_BASELINE == direct ]] || bench_die "BOX_BASELINE=$BOX_BASELINE: want client or direct"
[[ -x $BIN/peer ]] || bench_die "$BIN/peer missing: make fabric"
[[ -x $FV ]] || bench_die "$FV missing: make fabvote"
mkdir -p "$OUT/runs" "$OUT/logs" "$OUT/tls"

BOX_PID=
cleanup() {
	if [[ -n $BOX_PID ]]; then
		kill "$BOX_PID" 2>/dev/null || true
		wait "$BOX_PID" 2>/dev/null || true
	fi
	bench_net_down
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start_box ELECTION: the ballot box of ELECTION on the benchmark network,
# with a TLS certificate of its own CA. Its per-client limit is ten times the
# rate: every ballot comes from this host, one client address.
start_box() {
	"$FV" ea tls-cert --ca-cert "$OUT/tls/ca.crt" --ca-key "$OUT/tls/ca.key" \
		--tls-cert "$OUT/tls/box.crt" --tls-key "$OUT/tls/box.key" >"$OUT/logs/tls-cert.log"
	"$FV" box serve --election "$1" --network "$BENCH_NETWORK" --addr "$BOX_ADDR" --ops-addr "$PLAN_BOX_OPS_ADDR" \
		--tls-cert "$OUT/tls/box.crt" --tls-key "$OUT/tls/box.key" \
		--ballot-rate "$((10 * BOX_RATE))" --ballot-burst "$((10 * BOX_RATE))" 2>"$OUT/logs/box-serve.log" &
	BOX_PID=$!
	for _ in $(seq 100); do
		grep -q "taking ballots of election" "$OUT/logs/box-serve.log" && return 0
		kill -0 "$BOX_PID" 2>/dev/null || { cat "$OUT/logs/box-serve.log" >&2; bench_die "box serve exited"; }
		sleep 0.1
	done
	cat "$OUT/logs/box-serve.log" >&2
	bench_die "box serve did not start in 10 s"
}

# run TARGET TRIAL RUN: one fabvote bench run of TARGET (box, client or
# direct) on the ballots of run number RUN.
run() {
	local target=$1 t=$2 k=$3 name=$1-t$2 rc=0
	local -a via=()
	case $target in
	box) via=(--box "https://$BOX_ADDR" --ca-cert "$OUT/tls/ca.crt") ;;
	client) via=(--client) ;;
	esac
	bench_log "trial $t/$BOX_TRIALS: $target, ballots $((k * BOX_COUNT + 1))–$(((k + 1) * BOX_COUNT)) at $BOX_RATE/s"
	"$FV" bench --network "$BENCH_NETWORK" --ballots "$SET/ballots.bin" --offset "$((k * BOX_COUNT))" --count "$BOX_COUNT" \
		--rate "$BOX_RATE" "${via[@]}" --max-duration 20m --label "$target" --trial "$t" --quiet \
		--json "$OUT/runs/$name.json" >"$OUT/logs/$name.log" 2>&1 || rc=$?
	# Exit 2 is a refused command line: no run to keep, and every other would be refused too.
	((rc != 2)) || { cat "$OUT/logs/$name.log" >&2; bench_die "fabvote bench refused the run"; }
	((rc == 0)) || bench_log "  $name: not every ballot committed (see $OUT/logs/$name.log)"
	[[ -f $OUT/runs/$name.json ]] || { cat "$OUT/logs/$name.log" >&2; bench_die "$name wrote no report"; }
	sed -n '/loop):/,/latency/p' "$OUT/logs/$name.log" | sed 's/^/    /' >&2 || true
}

jq -n --arg started "$STAMP" --arg cpu "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" \
	--argjson cpus "$(nproc)" --arg load "$(cut -d' ' -f1-3 /proc/loadavg)" \
	--arg commit "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
	--argjson trials "$BOX_TRIALS" --argjson count "$BOX_COUNT" --argjson rate "$BOX_RATE" --argjson targetMs "$BOX_TARGET_MS" \
	--arg config "$BOX_CONFIG" --arg box "$BOX_ADDR" --arg baseline "$BOX_BASELINE" \
	'{started: $started, cpu: $cpu, cpus: $cpus, loadAverageAtStart: $load, commit: $commit, trials: $trials, count: $count,
	  rate: $rate, targetMs: $targetMs, config: $config, box: $box, baseline: $baseline,
	  command: "make bench-box BOX_TRIALS=\($trials) BOX_COUNT=\($count) BOX_RATE=\($rate) BOX_BASELINE=\($baseline) BOX_CONFIG=\($config)"}' >"$OUT/meta.json"

SET=$(bench_ballots "$((2 * BOX_TRIALS * BOX_COUNT))" | tail -n1)
ELECTION=$(jq -r .electionID "$SET/manifest.json")
bench_net_down
"$FABNET" ports check --stack bench --base-port "$BENCH_BASE_PORT" --profile solo-org --chaincodes 1 --box "$BOX_ADDR" ||
	bench_die "a port the benchmark needs is taken (above); nothing was started"
bench_net_up "$BOX_CONFIG"
bench_open "$SET"
start_box "$ELECTION"

k=0
for ((t = 1; t <= BOX_TRIALS; t++)); do
	order=("$BOX_BASELINE" box)
	((t % 2)) || order=(box "$BOX_BASELINE")
	for target in "${order[@]}"; do
		run "$target" "$t" "$k"
		k=$((k + 1))
	done
done
curl -fsS "http://$PLAN_BOX_OPS_ADDR/metrics" >"$OUT/logs/box-metrics.txt" 2>/dev/null || bench_log "warning: the box's /metrics could not be read"
python3 "$ROOT/bench/report/box.py" "$OUT"
bench_log "results in $OUT (summary.md, runs/, logs/)"
