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
# names the group whose Writers policy it evaluated first for /Channel/Writers.
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
bench_config_env "$CONFIG" >/dev/null
SET=$(bench_ballots 1000 | tail -n1)
((COUNT <= 1000)) || bench_die "COUNT=$COUNT: the ballot set has 1000"
mkdir -p "$OUT"
trap 'bench_net_down' EXIT
trap 'exit 130' INT TERM

# lines NODE PATTERN: the lines of NODE's log so far that match PATTERN.
lines() { grep -c "$2" "$BENCH_RUN_DIR/logs/$1.log" || true; }
IDENTITY='Verify: signer identity'
POLICY='signature for identity [0-9]* validated'
# first_writers NODE: the group whose Writers the first /Channel/Writers evaluation tried first
# (the chaincode deployment's, made one at a time: no other evaluation interleaves).
first_writers() {
	grep -A3 'Evaluating \*policies.ImplicitMetaPolicy Policy /Channel/Writers ==' "$BENCH_RUN_DIR/logs/$1.log" |
		grep -o "Policy /Channel/[A-Za-z]*/Writers" | head -n1 | cut -d/ -f3 || true
}
per() { awk -v v="$1" -v n="$2" 'BEGIN {printf "%.2f", v / n}'; }

{
	printf 'started %s on %s, %s CPUs, commit %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
		"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" "$(nproc)" "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "command: make bench-verify-count CONFIG=$CONFIG TRIALS=$TRIALS COUNT=$COUNT RATE=$RATE CONCURRENCY=$CONCURRENCY"
} >"$OUT/meta.txt"
export NET_LOG_SPEC='info:policies,msp.identity=debug'
if ((RATE == 0)); then load="--concurrency $CONCURRENCY"; else load="--rate $RATE"; fi
echo "trial node ballots identity-verifications per-ballot policy-verifications per-ballot channel-writers-first" >"$OUT/counts.txt"
for ((t = 1; t <= TRIALS; t++)); do
	bench_net_up "$CONFIG"
	bench_open "$SET"
	mapfile -t nodes < <("$BENCH_RUN_DIR/tools/fabnet" node pids --home "$BENCH_RUN_DIR" | awk '$1 ~ /^(orderer|peer)/ {print $1}')
	declare -A id0=() pol0=()
	for n in "${nodes[@]}"; do
		id0[$n]=$(lines "$n" "$IDENTITY")
		pol0[$n]=$(lines "$n" "$POLICY")
	done
	# shellcheck disable=SC2086
	"$BIN/fabvote" bench --network "$BENCH_NETWORK" --ballots "$SET/ballots.bin" $load --count "$COUNT" \
		--label "$CONFIG" --trial "$t" --json "$OUT/$CONFIG-t$t.json" >"$OUT/$CONFIG-t$t.log" 2>&1 ||
		bench_die "trial $t: not every ballot committed (see $OUT/$CONFIG-t$t.log)"
	ok=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["succeeded"])' "$OUT/$CONFIG-t$t.json")
	for n in "${nodes[@]}"; do
		id=$(($(lines "$n" "$IDENTITY") - id0[$n]))
		pol=$(($(lines "$n" "$POLICY") - pol0[$n]))
		first=$(first_writers "$n")
		echo "$t $n $ok $id $(per "$id" "$ok") $pol $(per "$pol" "$ok") ${first:--}" >>"$OUT/counts.txt"
	done
	bench_net_down
done
column -t "$OUT/counts.txt"
bench_log "results in $OUT"
