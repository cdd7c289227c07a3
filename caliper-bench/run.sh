#!/usr/bin/env bash
# run.sh — run a Caliper benchmark of this workspace against the fabvote
# benchmark network (`make caliper`, `make caliper-smoke`).
#
#   caliper-bench/run.sh BENCHMARK        (smoke | fixed-40k | sweep | endorse-only)
#
# For trial 1..TRIALS and every configuration in CALIPER_CONFIGS (see
# bench/lib.sh: stock, and the fork's configurations of bench/configs.tsv,
# each also as *-nobatch), it starts a
# fresh benchmark network, opens the benchmark election, generates Caliper's
# network configuration from the network's network.json, runs Caliper with
# benchmarks/BENCHMARK.yaml on the cached ballots, keeps the HTML report, the
# log and a JSON summary, and stops the network. With CALIPER_NETWORK=path/to/network.json
# it instead uses a network that is already up (the Docker network, say),
# opens the benchmark election there unless it is open already, and does not
# start or stop anything.
#
# Variables: CALIPER_CONFIGS [all], TRIALS [1], VOTERS [40000; smoke 1000],
# BALLOTS_OFFSET [0; ballots to skip], OUT [.cache/bench/caliper/STAMP], CALIPER_NETWORK.
set -euo pipefail
CAL_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=${ROOT:-$(cd "$CAL_DIR/.." && pwd)}
BIN=${BIN:-$ROOT/bin}
RUN=${RUN:-$ROOT/run}
# shellcheck source=../bench/lib.sh
. "$ROOT/bench/lib.sh"

BENCHMARK=${1:-fixed-40k}
CONF=$CAL_DIR/benchmarks/$BENCHMARK.yaml
[[ -f $CONF ]] || bench_die "no benchmark $CONF (have: $(cd "$CAL_DIR/benchmarks" && ls | sed 's/\.yaml$//' | tr '\n' ' '))"
CALIPER_CONFIGS=${CALIPER_CONFIGS:-all}
TRIALS=${TRIALS:-1}
case $BENCHMARK in smoke) VOTERS=${VOTERS:-1000} ;; *) VOTERS=${VOTERS:-40000} ;; esac
BALLOTS_OFFSET=${BALLOTS_OFFSET:-0}
OUT=${OUT:-$ROOT/.cache/bench/caliper/$(date -u +%Y%m%dT%H%M%SZ)-$BENCHMARK}
[[ -x $CAL_DIR/node_modules/.bin/caliper ]] || bench_die "Caliper is not installed: make caliper-install (npm ci)"
mkdir -p "$OUT"

SET=$(bench_ballots "$VOTERS" | tail -n1)
export FABVOTE_BALLOTS=$SET/ballots.bin FABVOTE_BALLOTS_OFFSET=$BALLOTS_OFFSET

run_caliper() { # CONFIG TRIAL NETWORK_JSON
	local c=$1 t=$2 net=$3 dir=$OUT/$1-t$2
	mkdir -p "$dir"
	node "$CAL_DIR/scripts/network-config.js" "$net" "$dir" >/dev/null
	bench_log "caliper $BENCHMARK: $c trial $t (ballots $FABVOTE_BALLOTS from $BALLOTS_OFFSET)"
	local rc=0
	(cd "$CAL_DIR" && ./node_modules/.bin/caliper launch manager \
		--caliper-workspace "$CAL_DIR" \
		--caliper-networkconfig "$dir/caliper-network.yaml" \
		--caliper-benchconfig "$CONF" \
		--caliper-flow-only-test \
		--caliper-report-path "$dir/report.html" \
		--caliper-logging-targets-file-enabled false) >"$dir/caliper.log" 2>&1 || rc=$?
	node "$CAL_DIR/scripts/summary.js" "$dir/caliper.log" "$dir/summary.json" --label "$c" --trial "$t" >&2 ||
		{ tail -n 30 "$dir/caliper.log" >&2; bench_die "Caliper produced no result table (exit $rc); log: $dir/caliper.log"; }
	((rc == 0)) || bench_die "Caliper exited with $rc; log: $dir/caliper.log"
}

if [[ -n ${CALIPER_NETWORK:-} ]]; then
	# The benchmark election must be open on that network too; it may be
	# already (an earlier run, or `fabvote bench --open` on the same set).
	out=$("$BIN/fabvote" election open --network "$CALIPER_NETWORK" --manifest "$SET/manifest.json" 2>&1) ||
		[[ $out == *"already open on the ledger"* ]] || bench_die "opening the benchmark election on $CALIPER_NETWORK failed: $out"
	run_caliper external 1 "$CALIPER_NETWORK"
else
	trap 'bench_net_down' EXIT
	trap 'exit 130' INT TERM
	read -r -a CONFIGS <<<"$CALIPER_CONFIGS"
	n=${#CONFIGS[@]}
	for ((t = 1; t <= TRIALS; t++)); do
		for ((k = 0; k < n; k++)); do
			c=${CONFIGS[$(((k + t - 1) % n))]}
			bench_net_up "$c"
			bench_open "$SET"
			run_caliper "$c" "$t" "$BENCH_NETWORK"
			bench_net_down
		done
	done
fi
bench_log "Caliper results in $OUT"
echo "$OUT"
