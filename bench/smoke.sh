#!/usr/bin/env bash
# smoke.sh — `make bench-smoke`: both load generators on a short run, so that
# neither rots. On one fresh benchmark network (configuration SMOKE_CONFIG,
# default "all+writers": every fork switch on, and the channel's Writers the
# signature policy of the tuned baseline), 500 cached ballots through
# `fabvote bench` (fixed rate), then the next 500 through Caliper; asserts that
# every transaction committed, that both JSON summaries parse and say so, and
# that the ledger holds exactly 1000 ballots afterwards. On the same network,
# 100 transactions of the delaywork chaincode (`fabvote bench --work-delay`,
# the commit gate's benchmark) must commit, and with the lockless gate
# (SMOKE_CONFIG all) run without the commit lock: the peer's gate counters
# show no escalation. Then bench/verify-count.sh runs once on a fresh network
# of its own.
set -euo pipefail
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BIN=${BIN:-$ROOT/bin}
RUN=${RUN:-$ROOT/run}
BENCH_CHAINCODES="ballot=./chaincode/ballot/cmd/ballot-cc delaywork=./chaincode/delaywork/cmd/delaywork-cc"
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
SMOKE_CONFIG=${SMOKE_CONFIG:-all+writers}
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
# 1 when the configuration's channel has the signature Writers policy, as bench/lib.sh sets it.
WRITERS_SIGNATURE=$(bench_config_env "$SMOKE_CONFIG" | grep -c '^CHANNEL_WRITERS=signature$' || true)

bench_log "fabvote bench: 500 ballots at $SMOKE_RATE tx/s"
"$BIN/fabvote" bench --network "$BENCH_NETWORK" --ballots "$SET/ballots.bin" --rate "$SMOKE_RATE" --count 500 \
	--max-duration 5m --label "$SMOKE_CONFIG" --json "$OUT/fabvote-bench.json" --quiet
python3 - "$OUT/fabvote-bench.json" "$WRITERS_SIGNATURE" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
want = "signature" if sys.argv[2] == "1" else "implicit"
assert r["network"].get("writers") == want, f"the network's Writers policy is {r['network'].get('writers')!r}, want {want!r}"
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
bench_log "fabvote bench --work-delay: 100 delaywork transactions of 20 ms"
# Upstream's peer (stock) has no gate and no gate counters.
gate_counters() { if [[ $SMOKE_CONFIG == stock* ]]; then echo null; else bench_gate_counters; fi; }
gate0=$(gate_counters)
"$BIN/fabvote" bench --network "$BENCH_NETWORK" --work-delay 20ms --count 100 --concurrency 50 \
	--max-duration 2m --label "$SMOKE_CONFIG" --json "$OUT/delaywork.json" --quiet >"$OUT/delaywork.log" 2>&1 ||
	{ tail -n 20 "$OUT/delaywork.log" >&2; bench_die "fabvote bench --work-delay failed"; }
python3 - "$OUT/delaywork.json" "$gate0" "$(gate_counters)" "$(bench_config_env "$SMOKE_CONFIG" | grep -c '^FABVOTE_COMMIT_GATE=lockless$' || true)" <<'PY'
import json, sys
r, before, after, lockless = json.load(open(sys.argv[1])), json.loads(sys.argv[2]), json.loads(sys.argv[3]), sys.argv[4] == "1"
assert r["succeeded"] == 100 and r["failed"] == 0, f"delaywork: {r['succeeded']}/{r['sent']} committed, failures {r['failures']}"
assert r["endorseLatencyMs"]["min"] >= 20, f"an endorsement took less than the chaincode's 20 ms sleep: {r['endorseLatencyMs']}"
d = {k: after[k] - before[k] for k in after} if after else "none (upstream peer)"
assert not after or d["sessions"] >= 100, f"gate sessions grew by {d['sessions']} for 100 transactions"
if lockless:
    # (a retry, rare, is the locked re-run of a session whose peer-only reads overlapped a commit: not an escalation)
    assert d["escalations"] == 0, f"lockless gate: a delaywork simulation escalated to the lock: {d}"
print(f"delaywork smoke: 100/100 committed, endorsement p50 {r['endorseLatencyMs']['p50']} ms, gate counters moved {d}")
PY
# bench/verify-count.sh on one fresh network: Fabric's own debug lines still
# count what docs/bench/2026-11-26-ecdsa-under-load.md says (under the ImplicitMeta Writers policy
# the orderer verifies a ballot's signature once or twice, under the
# signature policy exactly once; the peer four times).
bench_net_down
CONFIG=$SMOKE_CONFIG TRIALS=1 COUNT=30 OUT=$OUT/verify-count "$ROOT/bench/verify-count.sh" >"$OUT/verify-count.log" 2>&1 ||
	{ tail -n 20 "$OUT/verify-count.log" >&2; bench_die "verify-count.sh failed"; }
python3 - "$OUT/verify-count/counts.txt" "$WRITERS_SIGNATURE" <<'PY'
import re, sys
rows = [l.split() for l in open(sys.argv[1]).read().splitlines()[1:]]
per = {re.match(r"[a-z]+", r[1]).group(): (float(r[4]), float(r[6]), r[7]) for r in rows}
assert set(per) == {"orderer", "peer"}, rows
o, p = per["orderer"], per["peer"]
if sys.argv[2] == "1":
    # One signature policy: no ImplicitMeta evaluation, one verification.
    assert o == (1.0, 1.0, "-"), f"orderer under the signature Writers policy: {o}"
else:
    assert o[0] == o[1] and o[0] in (1.0, 2.0) and o[2] in ("Orderer", "Application"), f"orderer: {o}"
    assert (o[0] == 2.0) == (o[2] == "Orderer"), f"orderer: {o[0]} verifications per ballot with {o[2]} first"
assert 4.0 <= p[0] < 4.2 and 2.0 <= p[1] < 2.2, f"peer: {p}"
print(f"verify-count smoke: orderer {o[0]} per ballot ({o[2]} first), peer {p[0]} ({p[1]} for policies)")
PY
bench_log "bench-smoke passed in $((SECONDS - T0)) s"
