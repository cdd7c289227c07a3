#!/usr/bin/env bash
# gate.sh — the commit gate end to end, in the shape of Paneru 2021, Table 6.1
# (`make bench-gate`): a chaincode whose execution takes D (it sleeps, as in
# the thesis; chaincode/delaywork), run on the real benchmark network with
# Fabric's commit lock (configuration fork-off) and with the lockless gate
# (o3), everything else equal.
#
# For trial 1..TRIALS, for each configuration (the order rotates by one each
# trial): start a fresh benchmark network running the delaywork chaincode,
# then for each D in DELAYS
#   - a closed loop: COUNT transactions with CONCURRENCY in flight (throughput);
#   - an open loop: OPEN_COUNT transactions sent at RATE tx/s (latency below
#     saturation);
# each with `fabvote bench --work-delay D`, keeping its JSON report and the
# peer's commit gate counters (sessions, escalations, retries, commits) read
# before and after from its /metrics. Then stop the network.
#
# Variables (defaults in brackets):
#   DELAYS       the chaincode's execution time per transaction [50ms 200ms 500ms]
#   TRIALS       trials per configuration [5]
#   CONCURRENCY  closed-loop transactions in flight [200]
#   COUNT        transactions per closed-loop run [2000]
#   RATE         open-loop send rate, tx/s [50]
#   OPEN_COUNT   transactions per open-loop run [1000]
#   OUT          results directory [.cache/bench/gate/UTC-STAMP]
#   BENCH_BATCH_SIZE, BENCH_BATCH_TIMEOUT  blocks [100 transactions, 100ms]
# bench/report/gate.py OUT turns the results into the tables of
# docs/BENCHMARKS.md ("Commit gate (O-III)", "End to end on the network");
# run it from the repository root.
set -euo pipefail
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BIN=${BIN:-$ROOT/bin}
RUN=${RUN:-$ROOT/run}
BENCH_CHAINCODES=delaywork=./chaincode/delaywork/cmd/delaywork-cc
# Blocks of 100 transactions or 100 ms: a commit comes more often than a
# simulation ends, the regime where the commit lock matters (with blocks of
# 500 or 2 s, a closed loop of fewer than 500 waits for the timeout instead).
BENCH_BATCH_SIZE=${BENCH_BATCH_SIZE:-100}
BENCH_BATCH_TIMEOUT=${BENCH_BATCH_TIMEOUT:-100ms}
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"

CONFIGS=(fork-off o3)
DELAYS=${DELAYS:-50ms 200ms 500ms}
TRIALS=${TRIALS:-5}
CONCURRENCY=${CONCURRENCY:-200}
COUNT=${COUNT:-2000}
RATE=${RATE:-50}
OPEN_COUNT=${OPEN_COUNT:-1000}
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
OUT=${OUT:-$ROOT/.cache/bench/gate/$STAMP}
FV=$BIN/fabvote

for v in TRIALS CONCURRENCY COUNT RATE OPEN_COUNT; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || bench_die "$v=${!v}: want a positive number"
done
read -r -a DS <<<"$DELAYS"
((${#DS[@]} > 0)) || bench_die "DELAYS is empty"
for d in "${DS[@]}"; do
	[[ $d =~ ^[0-9]+(ms|s)$ ]] || bench_die "DELAYS: '$d': want a duration such as 50ms or 1s"
	ms=${d%ms}
	[[ $d == *ms ]] || ms=$((${d%s} * 1000))
	((ms <= 10000)) || bench_die "DELAYS: '$d': the delaywork chaincode sleeps at most 10s"
done
[[ -x $BIN/peer ]] || bench_die "$BIN/peer missing: make fabric"
[[ -x $FV ]] || bench_die "$FV missing: make fabvote"
mkdir -p "$OUT/runs" "$OUT/logs"
trap 'bench_net_down' EXIT
trap 'exit 130' INT TERM

# run CONFIG TRIAL DELAY LOOP: one fabvote bench run and the gate counters it moved.
run() {
	local c=$1 t=$2 d=$3 loop=$4 name before
	name=$c-d$d-$loop-t$t
	local -a load=(--concurrency "$CONCURRENCY" --count "$COUNT")
	[[ $loop == open ]] && load=(--rate "$RATE" --count "$OPEN_COUNT")
	bench_log "trial $t/$TRIALS: $c, D = $d, $loop loop (${load[*]})"
	before=$(bench_gate_counters)
	local rc=0
	"$FV" bench --network "$BENCH_NETWORK" --work-delay "$d" "${load[@]}" --max-duration 20m \
		--label "$c" --trial "$t" --quiet --json "$OUT/runs/$name.json" >"$OUT/logs/$name.log" 2>&1 || rc=$?
	# Exit 2 is a refused command line: no run to keep, and every other would be refused too.
	((rc != 2)) || { cat "$OUT/logs/$name.log" >&2; bench_die "fabvote bench refused the run"; }
	((rc == 0)) || bench_log "  $name: not every transaction succeeded (see $OUT/logs/$name.log)"
	jq -n --argjson before "$before" --argjson after "$(bench_gate_counters)" '{before: $before, after: $after}' >"$OUT/runs/$name.gate.json"
	sed -n '/loop):/,/latency/p' "$OUT/logs/$name.log" | sed 's/^/    /' >&2 || true
}

python3 - "$OUT/meta.json" "$STAMP" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" "$(nproc)" \
	"$(uname -r)" "$(${GO:-go} version 2>/dev/null | cut -d' ' -f3 || true)" "$(awk '/MemTotal/ {printf "%.1f", $2/1048576}' /proc/meminfo)" "$(cut -d' ' -f1-3 /proc/loadavg)" \
	"$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)" "$TRIALS" "$DELAYS" "$CONCURRENCY" "$COUNT" "$RATE" "$OPEN_COUNT" \
	"$BENCH_BATCH_SIZE" "$BENCH_BATCH_TIMEOUT" "$(bench_config_env fork-off | grep COMMIT_GATE)" "$(bench_config_env o3 | grep COMMIT_GATE)" <<'PY'
import json, sys
out, stamp, cpu, cpus, kernel, go, mem, load, commit, trials, delays, conc, count, rate, ocount, bs, bt, g0, g1 = sys.argv[1:]
meta = {"started": stamp, "cpu": cpu, "cpus": int(cpus), "kernel": kernel, "go": go, "memGiB": float(mem),
        "loadAverageAtStart": load, "commit": commit, "trials": int(trials),
        "delays": delays.split(), "concurrency": int(conc), "count": int(count), "rate": int(rate), "openCount": int(ocount),
        "batchSize": int(bs), "batchTimeout": bt,
        "gates": {"fork-off": g0.split("=")[1], "o3": g1.split("=")[1]},
        "command": f'BENCH_BATCH_SIZE={bs} BENCH_BATCH_TIMEOUT={bt} make bench-gate TRIALS={trials} DELAYS="{delays}" CONCURRENCY={conc} COUNT={count} RATE={rate} OPEN_COUNT={ocount}'}
json.dump(meta, open(out + ".tmp", "w"), indent=1)
PY
mv "$OUT/meta.json.tmp" "$OUT/meta.json"

n=${#CONFIGS[@]}
for ((t = 1; t <= TRIALS; t++)); do
	for ((k = 0; k < n; k++)); do
		c=${CONFIGS[$(((k + t - 1) % n))]}
		bench_net_up "$c"
		for d in "${DS[@]}"; do
			run "$c" "$t" "$d" closed
			run "$c" "$t" "$d" open
		done
		bench_net_down
	done
done
bench_log "results in $OUT; python3 bench/report/gate.py $OUT prints the tables (--doc docs/BENCHMARKS.md writes them there)"
