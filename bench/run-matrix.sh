#!/usr/bin/env bash
# run-matrix.sh — every benchmark configuration side by side (`make bench`).
#
# For trial 1..TRIALS, for every configuration in BENCH_CONFIGS (the order
# rotates by one each trial, so no configuration always runs first or last on a
# warming machine): start a fresh benchmark network for it (bench/lib.sh), open
# the benchmark election, cast the same cached ballots with `fabvote bench`,
# keep the JSON report, stop the network. Every configuration therefore casts
# exactly the same ballots onto an empty ledger. Before and after each main
# run, `fabvote calibrate` times a fixed exponentiation and verification and
# reads the CPU steal (probe/), so that the report can read each trial
# against the machine's state at the time.
#
# Variables (defaults in brackets):
#   BENCH_CONFIGS   configurations [stock fork-off o1 o2 o3 o4 o5 o6 o7 all all-o4 fork stock-nobatch all-nobatch];
#                   CONFIG+SETTING adds a stock setting (bench/lib.sh, BENCH_TUNINGS)
#   TRIALS          trials per configuration [3]
#   VOTERS          size of the cached ballot set to use (make ballots) [40000]
#   COUNT           ballots cast per main run, the first COUNT of the set [VOTERS]
#   RATE            fixed send rate, tx/s; 0 = closed loop [300]
#   CONCURRENCY     closed-loop workers [64]
#   MODE            full | skip-commit | skip-endorsement [full]
#   SWEEP_RATES     if set, also a send-rate sweep: every configuration gets
#                   the same rates ("max" = closed loop), each point on a fresh
#                   network casting the same first ballots of the set for
#                   SWEEP_SECONDS, configurations alternating at each point
#                   [empty]
#   SWEEP_SECONDS   seconds per sweep point [15]
#   SWEEP_TRIALS    trials of the sweep [1]
#   PROFILE_CONFIGS configurations to CPU-profile (peer, orderer, chaincode:
#                   pprof during trial 1's main run, then as text by
#                   bench/report/profiles.py) [empty]
#   PROFILE_DELAY   seconds from the start of the run to the profile [10]
#   PROFILE_SECONDS length of the profile [30]
#   OUT             results directory [.cache/bench/results/UTC-STAMP]; .cache/bench/results/latest links to it
#   MAX_DURATION    bound on one fabvote bench run [30m]
set -euo pipefail
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BIN=${BIN:-$ROOT/bin}
RUN=${RUN:-$ROOT/run}
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"

BENCH_CONFIGS=${BENCH_CONFIGS:-$BENCH_ALL_CONFIGS}
TRIALS=${TRIALS:-3}
VOTERS=${VOTERS:-40000}
COUNT=${COUNT:-$VOTERS}
RATE=${RATE:-300}
CONCURRENCY=${CONCURRENCY:-64}
MODE=${MODE:-full}
SWEEP_RATES=${SWEEP_RATES:-}
SWEEP_SECONDS=${SWEEP_SECONDS:-15}
SWEEP_TRIALS=${SWEEP_TRIALS:-1}
PROFILE_CONFIGS=${PROFILE_CONFIGS:-}
PROFILE_DELAY=${PROFILE_DELAY:-10}
PROFILE_SECONDS=${PROFILE_SECONDS:-30}
MAX_DURATION=${MAX_DURATION:-30m}
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
OUT=${OUT:-$ROOT/.cache/bench/results/$STAMP}
FV=$BIN/fabvote

[[ $TRIALS =~ ^[1-9][0-9]*$ ]] || bench_die "TRIALS=$TRIALS: want a positive number"
[[ $COUNT =~ ^[1-9][0-9]*$ ]] && ((COUNT <= VOTERS)) || bench_die "COUNT=$COUNT: want 1..VOTERS ($VOTERS)"
case $MODE in full | skip-commit | skip-endorsement) ;; *) bench_die "MODE=$MODE: want full, skip-commit or skip-endorsement" ;; esac
# The numbers meta.json carries are checked here, before the ballots are made.
for v in CONCURRENCY PROFILE_DELAY PROFILE_SECONDS SWEEP_SECONDS BENCH_BATCH_SIZE BENCH_GATEWAY_LIMIT; do
	[[ ${!v} =~ ^[0-9]+$ ]] || bench_die "$v=${!v}: want a number"
done
read -r -a CONFIGS <<<"$BENCH_CONFIGS"
for c in "${CONFIGS[@]}"; do bench_config_env "$c" >/dev/null; done
for c in "${CONFIGS[@]}"; do
	case $c in stock*) [[ -x $BIN/stock/peer && -f $ROOT/build/config-stock/core.yaml ]] || bench_die "$BIN/stock/peer or build/config-stock missing: make fabric-stock" ;;
	*) [[ -x $BIN/peer ]] || bench_die "$BIN/peer missing: make fabric" ;; esac
done
[[ -x $FV ]] || bench_die "$FV missing: make fabvote"

SET=$(bench_ballots "$VOTERS" | tail -n1)
BALLOTS=$SET/ballots.bin
mkdir -p "$OUT/main" "$OUT/sweep" "$OUT/profiles" "$OUT/logs"
ln -sfn "$OUT" "$(dirname "$OUT")/latest"
trap 'bench_net_down' EXIT
trap 'exit 130' INT TERM

mode_flags=()
case $MODE in skip-commit) mode_flags=(--skip-commit) ;; skip-endorsement) mode_flags=(--skip-endorsement --store "$OUT/prepared") ;; esac

# meta.json: what the report prints about the run, written by jq's encoder
# (a number that is not one stops the run here instead of breaking the JSON).
command="BENCH_BATCH_SIZE=$BENCH_BATCH_SIZE BENCH_BATCH_TIMEOUT=$BENCH_BATCH_TIMEOUT make bench BENCH_CONFIGS=\"$BENCH_CONFIGS\" TRIALS=$TRIALS VOTERS=$VOTERS COUNT=$COUNT RATE=$RATE CONCURRENCY=$CONCURRENCY MODE=$MODE SWEEP_RATES=\"$SWEEP_RATES\" SWEEP_SECONDS=$SWEEP_SECONDS${PROFILE_CONFIGS:+ PROFILE_CONFIGS=\"$PROFILE_CONFIGS\" PROFILE_DELAY=$PROFILE_DELAY PROFILE_SECONDS=$PROFILE_SECONDS}"
jq -n --arg started "$STAMP" --arg host "$(hostname)" --arg cpu "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" \
	--argjson cpus "$(nproc)" --argjson memGiB "$(awk '/MemTotal/ {printf "%.1f", $2/1048576}' /proc/meminfo)" \
	--arg kernel "$(uname -r)" --arg go "$(${GO:-go} version 2>/dev/null | cut -d' ' -f3 || true)" \
	--arg commit "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)" --arg configs "$BENCH_CONFIGS" \
	--argjson trials "$TRIALS" --argjson voters "$COUNT" --arg rate "$RATE" --argjson concurrency "$CONCURRENCY" --arg mode "$MODE" \
	--argjson ballotSet "$VOTERS" --argjson profileDelay "$PROFILE_DELAY" --argjson profileSeconds "$PROFILE_SECONDS" \
	--arg sweepRates "$SWEEP_RATES" --argjson sweepSeconds "$SWEEP_SECONDS" --argjson batchSize "$BENCH_BATCH_SIZE" \
	--arg batchTimeout "$BENCH_BATCH_TIMEOUT" --argjson gatewayLimit "$BENCH_GATEWAY_LIMIT" --arg command "$command" \
	'{started: $started, host: $host, cpu: $cpu, cpus: $cpus, memGiB: $memGiB, kernel: $kernel, go: $go, commit: $commit,
	  configs: $configs, trials: $trials, voters: $voters, rate: $rate, concurrency: $concurrency, mode: $mode,
	  ballotSet: $ballotSet, profileDelay: $profileDelay, profileSeconds: $profileSeconds, sweepRates: $sweepRates,
	  sweepSeconds: $sweepSeconds, sweepFreshNetworks: true, batchSize: $batchSize, batchTimeout: $batchTimeout,
	  gatewayLimit: $gatewayLimit, command: $command}' >"$OUT/meta.json.tmp"
mv "$OUT/meta.json.tmp" "$OUT/meta.json"

profile_during() { # CONFIG DIR: pprof of peer, orderer, chaincode for PROFILE_SECONDS, after PROFILE_DELAY
	local c=$1 dir=$2 s=$PROFILE_SECONDS
	sleep "$PROFILE_DELAY"
	jq -n --argjson delay "$PROFILE_DELAY" --argjson seconds "$s" '{delay: $delay, seconds: $seconds}' >"$dir/$c.window.json"
	curl -sf -o "$dir/$c-peer.pprof" "http://$BENCH_PPROF_PEER/debug/pprof/profile?seconds=$s" &
	curl -sf -o "$dir/$c-orderer.pprof" "http://$BENCH_PPROF_ORDERER/debug/pprof/profile?seconds=$s" &
	curl -sf -o "$dir/$c-chaincode.pprof" "http://$BENCH_PPROF_CC/debug/pprof/profile?seconds=$s" ||
		echo "$c: chaincode pprof not reachable at $BENCH_PPROF_CC (ballot-cc has no pprof listener yet: FABVOTE_PPROF_ADDR)" >"$dir/$c-chaincode.missing"
	wait
}

# cpu_snapshot: "node cpu-seconds" for every process of the benchmark network (from /proc).
CLK_TCK=$(getconf CLK_TCK)
cpu_snapshot() {
	local node pid st
	while read -r node pid; do
		st=$(cut -d' ' -f14,15 "/proc/$pid/stat" 2>/dev/null) || continue
		echo "$node $(((${st% *} + ${st#* })))"
	done < <("$BENCH_RUN_DIR/tools/fabnet" node pids --home "$BENCH_RUN_DIR")
}
# cpu_delta BEFORE AFTER OUT: JSON {node: cpu seconds used between the snapshots}
cpu_delta() {
	python3 - "$1" "$2" "$CLK_TCK" >"$3" <<'PY'
import json, sys
def rd(s):
    return {l.split()[0]: int(l.split()[1]) for l in s.strip().splitlines() if l.strip()}
a, b, tck = rd(sys.argv[1]), rd(sys.argv[2]), int(sys.argv[3])
print(json.dumps({k: round((b[k] - a.get(k, 0)) / tck, 2) for k in b}, indent=1))
PY
}

# probe WHEN C T: the calibration probe (fabvote calibrate) beside trial T of
# configuration C, into probe/C-tT-WHEN.json: report.py normalises the paired
# ratios by the machine's speed around each trial and shows the steal.
probe() {
	"$FV" calibrate --json "$OUT/probe/$2-t$3-$1.json" >>"$OUT/logs/probe.log" 2>&1 ||
		bench_log "  $2 trial $3: the calibration probe failed (see $OUT/logs/probe.log)"
}

n=${#CONFIGS[@]}
mkdir -p "$OUT/cpu" "$OUT/probe"
for ((t = 1; t <= TRIALS; t++)); do
	for ((k = 0; k < n; k++)); do
		c=${CONFIGS[$(((k + t - 1) % n))]}
		profiling=0
		[[ $t == 1 && " $PROFILE_CONFIGS " == *" $c "* ]] && profiling=1
		BENCH_PROFILE=$profiling bench_net_up "$c"
		bench_open "$SET"
		# Binaries for pprof symbolisation.
		if ((profiling)); then
			while IFS= read -r kv; do [[ $kv == FABRIC_BIN=* ]] && fb=${kv#FABRIC_BIN=}; done < <(bench_config_env "$c")
			printf '%s\n' "$fb/peer" "$fb/orderer" "$BENCH_RUN_DIR/ccbin/ballot" >"$OUT/profiles/$c.binaries"
			cp "$BENCH_RUN_DIR/ccbin/ballot" "$OUT/profiles/$c-ballot-cc.bin" 2>/dev/null || true
			profile_during "$c" "$OUT/profiles" &
			ppid=$!
		fi
		bench_log "trial $t/$TRIALS: $c, $COUNT ballots, $MODE, $(bench_load_flags "$RATE")"
		probe before "$c" "$t"
		cpu0=$(cpu_snapshot)
		# shellcheck disable=SC2046
		"$FV" bench --network "$BENCH_NETWORK" --ballots "$BALLOTS" $(bench_load_flags "$RATE") --count "$COUNT" \
			"${mode_flags[@]}" --max-duration "$MAX_DURATION" --label "$c" --trial "$t" \
			--json "$OUT/main/$c-t$t.json" >"$OUT/logs/main-$c-t$t.log" 2>&1 ||
			bench_log "  $c trial $t: not every transaction succeeded (see $OUT/logs/main-$c-t$t.log)"
		cpu_delta "$cpu0" "$(cpu_snapshot)" "$OUT/cpu/$c-t$t.json"
		sed -n '/loop):/,$p' "$OUT/logs/main-$c-t$t.log" | grep -v '^report written' | sed 's/^/    /' >&2 || true
		if ((profiling)); then wait "$ppid" || true; fi
		probe after "$c" "$t"
		bench_net_down
	done
done

# sweep_count RATE: the ballots a sweep point casts in SWEEP_SECONDS.
sweep_count() { if [[ $1 == max ]]; then echo $((200 * SWEEP_SECONDS)); else echo $(($1 * SWEEP_SECONDS)); fi; }

# The sweep: each point of each configuration on a fresh network (an empty
# ledger) with the same first ballots of the set, so a point's figure depends
# on neither the points before it nor the ledger they left; at each point the
# configurations run one after the other, their order rotating.
if [[ -n $SWEEP_RATES ]]; then
	read -r -a RATES <<<"$SWEEP_RATES"
	need=0
	for r in "${RATES[@]}"; do
		cnt=$(sweep_count "$r")
		((cnt > need)) && need=$cnt
	done
	((need <= VOTERS)) || bench_die "the sweep's largest point needs $need ballots (rate x SWEEP_SECONDS), the set has $VOTERS"
	for ((t = 1; t <= SWEEP_TRIALS; t++)); do
		for i in "${!RATES[@]}"; do
			r=${RATES[$i]}
			cnt=$(sweep_count "$r")
			for ((k = 0; k < n; k++)); do
				c=${CONFIGS[$(((k + t - 1 + i) % n))]}
				bench_net_up "$c"
				bench_open "$SET"
				bench_log "sweep trial $t: $c at $r tx/s, the first $cnt ballots on a fresh network"
				# shellcheck disable=SC2046
				"$FV" bench --network "$BENCH_NETWORK" --ballots "$BALLOTS" $(bench_load_flags "$r") --count "$cnt" \
					--max-duration "$MAX_DURATION" --label "$c" --trial "$t" --quiet \
					--json "$OUT/sweep/$c-r$r-t$t.json" >"$OUT/logs/sweep-$c-r$r-t$t.log" 2>&1 ||
					bench_log "  $c at $r: not every transaction succeeded"
				sed -n '/loop):/,/latency/p' "$OUT/logs/sweep-$c-r$r-t$t.log" | sed 's/^/    /' >&2 || true
				bench_net_down
			done
		done
	done
fi
if [[ -n $PROFILE_CONFIGS ]]; then
	# The profiles as text (pprof -top -cum, the peer's phases) and the
	# summaries bench/report reads: what docs/bench/raw keeps of them.
	GO=${GO:-go} python3 "$ROOT/bench/report/profiles.py" "$OUT" || bench_log "  the profiles' text views failed (see above)"
fi
bench_log "results in $OUT; make bench-report RESULTS=$OUT writes docs/bench/end-to-end.md"
