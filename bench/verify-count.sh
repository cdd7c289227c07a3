#!/usr/bin/env bash
# verify-count.sh — how many signature verifications the orderer and the peer
# make per ballot, on a fresh benchmark network per trial (`make bench-verify-count`).
#
# Fabric logs, at debug level, every signature an MSP identity verifies
# (logger msp.identity: "Verify: signer identity ...") and every one that a
# policy evaluation verifies (logger policies: "signature for identity N
# validated"). Each trial starts the benchmark network of CONFIG with both
# loggers at debug, opens the benchmark election, casts COUNT ballots, and
# divides the lines each node logged during the cast by the ballots
# committed. `counts.txt` has a row per node and trial; the orderer's row also
# names the group whose Writers policy it evaluated first for /Channel/Writers
# during the cast.
#
# Variables (defaults in brackets):
#   CONFIG   a configuration of bench/lib.sh [stock]
#   TRIALS   networks started, one after the other [8]
#   COUNT    ballots cast per trial, at most 1000 [300]
#   RATE     send rate, tx/s; 0 = closed loop [0]
#   CONCURRENCY  closed-loop workers when RATE=0 [1200]
#   OUT      results directory [.cache/bench/verify-count/UTC-STAMP]
set -euo pipefail
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BIN=${BIN:-$ROOT/bin}
RUN=${RUN:-$ROOT/run}
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"

CONFIG=${CONFIG:-stock}
TRIALS=${TRIALS:-8}
COUNT=${COUNT:-300}
RATE=${RATE:-0}
CONCURRENCY=${CONCURRENCY:-1200}
OUT=${OUT:-$ROOT/.cache/bench/verify-count/$(date -u +%Y%m%dT%H%M%SZ)}
[[ $TRIALS =~ ^[1-9][0-9]*$ ]] || bench_die "TRIALS=$TRIALS: want a positive number"
[[ $COUNT =~ ^[1-9][0-9]*$ ]] || bench_die "COUNT=$COUNT: want a positive number"
[[ $RATE =~ ^[0-9]+$ ]] || bench_die "RATE=$RATE: want a number of tx/s, or 0 for a closed loop"
[[ $CONCURRENCY =~ ^[1-9][0-9]*$ ]] || bench_die "CONCURRENCY=$CONCURRENCY: want a positive number"
((COUNT <= 1000)) || bench_die "COUNT=$COUNT: the ballot set has 1000"
bench_config_env "$CONFIG" >/dev/null
SET=$(bench_ballots 1000 | tail -n1)
mkdir -p "$OUT"
trap 'bench_net_down' EXIT
trap 'exit 130' INT TERM

# log NODE FROM: NODE's log from line FROM on.
log() { tail -n "+$2" "$BENCH_RUN_DIR/logs/$1.log"; }
# count NODE FROM PATTERN: the lines of NODE's log from line FROM on that match PATTERN.
count() { log "$1" "$2" | grep -c "$3" || true; }
IDENTITY='Verify: signer identity'
POLICY='signature for identity [0-9]* validated'
# first_writers NODE FROM: the group whose Writers the /Channel/Writers
# evaluations from line FROM on tried first, or - if there were none. With the
# Application group first, ANY is met before the Orderer group's Writers is
# evaluated at all; counting those evaluations needs no line order, which
# concurrent evaluations interleave.
first_writers() {
	local all orderer
	all=$(count "$1" "$2" 'Evaluating \*policies.ImplicitMetaPolicy Policy /Channel/Writers ==')
	orderer=$(count "$1" "$2" 'Evaluating \*policies.ImplicitMetaPolicy Policy /Channel/Orderer/Writers ==')
	if ((all == 0)); then echo -; elif ((2 * orderer >= all)); then echo Orderer; else echo Application; fi
}
per() { awk -v v="$1" -v n="$2" 'BEGIN {printf "%.2f", v / n}'; }

{
	printf 'started %s on %s, %s CPUs, commit %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
		"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" "$(nproc)" "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "command: make bench-verify-count CONFIG=$CONFIG TRIALS=$TRIALS COUNT=$COUNT RATE=$RATE CONCURRENCY=$CONCURRENCY"
} >"$OUT/meta.txt"
export NET_LOG_SPEC='info:policies,msp.identity=debug'
echo "trial node ballots identity-verifications per-ballot policy-verifications per-ballot channel-writers-first" >"$OUT/counts.txt"
for ((t = 1; t <= TRIALS; t++)); do
	bench_net_up "$CONFIG"
	bench_open "$SET"
	mapfile -t nodes < <("$BENCH_RUN_DIR/tools/fabnet" node pids --home "$BENCH_RUN_DIR" | awk '$1 ~ /^(orderer|peer)/ {print $1}')
	((${#nodes[@]} >= 2)) || bench_die "trial $t: no orderer and peer found running (fabnet node pids)"
	declare -A from=()
	for n in "${nodes[@]}"; do from[$n]=$(($(wc -l <"$BENCH_RUN_DIR/logs/$n.log") + 1)); done
	# shellcheck disable=SC2046
	"$BIN/fabvote" bench --network "$BENCH_NETWORK" --ballots "$SET/ballots.bin" $(bench_load_flags "$RATE") --count "$COUNT" \
		--label "$CONFIG" --trial "$t" --json "$OUT/$CONFIG-t$t.json" >"$OUT/$CONFIG-t$t.log" 2>&1 ||
		bench_die "trial $t: not every ballot committed (see $OUT/$CONFIG-t$t.log)"
	ok=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["succeeded"])' "$OUT/$CONFIG-t$t.json")
	for n in "${nodes[@]}"; do
		id=$(count "$n" "${from[$n]}" "$IDENTITY")
		pol=$(count "$n" "${from[$n]}" "$POLICY")
		first=$(first_writers "$n" "${from[$n]}")
		echo "$t $n $ok $id $(per "$id" "$ok") $pol $(per "$pol" "$ok") $first" >>"$OUT/counts.txt"
	done
	bench_net_down
done
column -t "$OUT/counts.txt"
bench_log "results in $OUT"
