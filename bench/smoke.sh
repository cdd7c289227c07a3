#!/usr/bin/env bash
# smoke.sh — `make bench-smoke`: both load generators on a short run, so that
# neither rots. On one fresh benchmark network (configuration SMOKE_CONFIG,
# default "all": every fork switch on), 500 cached ballots through
# `fabvote bench` (fixed rate), then the next 500 through Caliper; asserts that
# every transaction committed, that both JSON summaries parse and say so, and
# that the ledger holds exactly 1000 ballots afterwards.
set -euo pipefail
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BIN=${BIN:-$ROOT/bin}
RUN=${RUN:-$ROOT/run}
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
SMOKE_CONFIG=${SMOKE_CONFIG:-all}
SMOKE_RATE=${SMOKE_RATE:-100}
OUT=${OUT:-$ROOT/.cache/bench/smoke}
CAL_DIR=$ROOT/caliper-bench
rm -rf "$OUT"
mkdir -p "$OUT"
T0=$SECONDS

SET=$(bench_ballots 1000 | tail -n1)
trap 'bench_net_down' EXIT
trap 'exit 130' INT TERM
bench_net_up "$SMOKE_CONFIG"
bench_open "$SET"

bench_log "fabvote bench: 500 ballots at $SMOKE_RATE tx/s"
"$BIN/fabvote" bench --network "$BENCH_NETWORK" --ballots "$SET/ballots.bin" --rate "$SMOKE_RATE" --count 500 \
	--max-duration 5m --label "$SMOKE_CONFIG" --json "$OUT/fabvote-bench.json" --quiet
python3 - "$OUT/fabvote-bench.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["sent"] == 500 and r["succeeded"] == 500 and r["failed"] == 0, f"fabvote bench: {r['succeeded']}/{r['sent']} committed, failures {r['failures']}"
assert r["latencyMs"]["n"] == 500 and 0 < r["latencyMs"]["p50"] <= r["latencyMs"]["p99"], r["latencyMs"]
assert r["tps"] > 0 and r["steady"]["txs"] > 0, (r["tps"], r["steady"])
print(f"fabvote bench smoke: 500/500 committed, {r['tps']} tx/s, p50 {r['latencyMs']['p50']} ms")
PY

bench_log "Caliper: the next 500 ballots"
node "$CAL_DIR/scripts/network-config.js" "$BENCH_NETWORK" "$OUT/caliper" >/dev/null
rc=0
(cd "$CAL_DIR" && FABVOTE_BALLOTS=$SET/ballots.bin FABVOTE_BALLOTS_OFFSET=500 ./node_modules/.bin/caliper launch manager \
	--caliper-workspace "$CAL_DIR" --caliper-networkconfig "$OUT/caliper/caliper-network.yaml" \
	--caliper-benchconfig benchmarks/smoke.yaml --caliper-flow-only-test \
	--caliper-report-path "$OUT/caliper/report.html" --caliper-logging-targets-file-enabled false) >"$OUT/caliper/caliper.log" 2>&1 || rc=$?
node "$CAL_DIR/scripts/summary.js" "$OUT/caliper/caliper.log" "$OUT/caliper/summary.json" --label "$SMOKE_CONFIG" ||
	{ tail -n 40 "$OUT/caliper/caliper.log" >&2; bench_die "no Caliper result table (exit $rc)"; }
((rc == 0)) || { tail -n 40 "$OUT/caliper/caliper.log" >&2; bench_die "Caliper exited with $rc"; }
python3 - "$OUT/caliper/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
r = s["rounds"][0]
assert r["succ"] == 500 and r["fail"] == 0, f"Caliper: {r['succ']} succeeded, {r['fail']} failed"
print(f"Caliper smoke: 500/500 succeeded, {r['throughput']} tx/s, avg latency {r['avgLatencyS']} s")
PY

# Both tools' ballots are on the ledger, and nothing else: ask the chaincode.
# (`fabvote verify` also re-checks every ballot; with no result published yet it
# reports that as a failure, so only its ballot line is used here.)
line=$("$BIN/fabvote" verify --network "$BENCH_NETWORK" --manifest "$SET/manifest.json" 2>&1 | grep -m1 'ballots:' || true)
[[ $line =~ ballots:\ +1000\ on\ the\ ledger,\ 1000\ valid ]] || bench_die "the ledger should hold 1000 valid ballots; fabvote verify says: ${line:-nothing}"
bench_log "ledger: $line"
bench_log "bench-smoke passed in $((SECONDS - T0)) s"
