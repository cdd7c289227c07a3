# lib.sh — shared by bench/run-matrix.sh, bench/smoke.sh and caliper-bench/run.sh:
# the benchmark configurations and the benchmark network's lifecycle.
# Source it; it needs ROOT, BIN, RUN.
#
# The benchmark network is its own instance, apart from whatever else runs on
# the machine: run dir $BENCH_RUN_DIR ($RUN/bench), the port plan's stack
# bench (network/portplan; BENCH_BASE_PORT moves it), profile solo-org (one peer, one orderer, the chaincodes of
# $BENCH_CHAINCODES: the ballot chaincode unless set),
# blocks of $BENCH_BATCH_SIZE (500) transactions or $BENCH_BATCH_TIMEOUT (2s).

BENCH_RUN_DIR=${BENCH_RUN_DIR:-$RUN/bench}
# shellcheck source=scripts/ports.sh
. "$ROOT/scripts/ports.sh"
# shellcheck source=scripts/topology.sh
. "$ROOT/scripts/topology.sh"
plan_ports bench "${BENCH_BASE_PORT:-}" || { echo "bench: the port plan refused BENCH_BASE_PORT=${BENCH_BASE_PORT:-}" >&2; exit 1; }
BENCH_BASE_PORT=$PLAN_BASE_PORT
BENCH_BATCH_SIZE=${BENCH_BATCH_SIZE:-500}
BENCH_BATCH_TIMEOUT=${BENCH_BATCH_TIMEOUT:-2s}
# The peer accepts this many concurrent gateway requests (upstream default 500).
# Caliper holds one open per transaction until its commit, so at 300 tx/s with
# a few seconds of latency it needs more; the same value for every configuration.
BENCH_GATEWAY_LIMIT=${BENCH_GATEWAY_LIMIT:-10000}
# pprof listeners (only while profiling: BENCH_PROFILE=1).
BENCH_PPROF_PEER=${BENCH_PPROF_PEER:-$PLAN_PPROF_PEER}
BENCH_PPROF_ORDERER=${BENCH_PPROF_ORDERER:-$PLAN_PPROF_ORDERER}
BENCH_PPROF_CC=${BENCH_PPROF_CC:-$PLAN_PPROF_CC}
# The chaincodes the network runs (net.sh's CHAINCODES: name=./go/package ...).
BENCH_CHAINCODES=${BENCH_CHAINCODES:-ballot=./chaincode/ballot/cmd/ballot-cc}
NET_SH=$ROOT/network/net.sh

# Every configuration the matrix knows; BENCH_CONFIGS picks a subset.
#   stock        upstream Fabric 2.5 (bin/stock), no patches
#   fork-off     the fork with every switch off
#   o1 o2 o3     one optimisation alone (SHA-256 simd, OpenSSL ECDSA, lockless commit gate)
#   o4           the ballot validation plugin alone (proof checked by every peer
#                at validation, cheap endorsement)
#   o5           the verified-signature memo alone (FABVOTE_SIG_MEMO=on)
#   o6           the decode memo alone (FABVOTE_DECODE_MEMO=on)
#   o7           the tuned LevelDB options alone (FABVOTE_LEVELDB=tuned)
#   all          O-I to O-III together
#   all-o4       O-I to O-IV together
#   fork         every switch of the fork on (O-I to O-VII)
#   *-nobatch    the same with the chaincode's cross-transaction proof batching off
# The fork's configurations (fork-off to fork) and their switches come from
# bench/configs.tsv, generated from fabric/switches' table (make docs):
# name<TAB>description<TAB>VAR=value ..., after '#' comment lines.
BENCH_CONFIGS_TSV=$ROOT/bench/configs.tsv
[[ -r $BENCH_CONFIGS_TSV ]] || { echo "bench: no $BENCH_CONFIGS_TSV (make docs writes it)" >&2; exit 1; }
BENCH_ALL_CONFIGS="stock $(grep -v '^#' "$BENCH_CONFIGS_TSV" | cut -f1 | tr '\n' ' ')stock-nobatch all-nobatch"

# Settings a stock Fabric operator can make without our code (the tuned-stock
# baseline): CONFIG+TUNING[+TUNING...] adds them to any configuration, e.g.
# stock+gogc200 or fork+gogc200+nohistory.
#   gogc200 gogc400  Go's GC target of every node (GOGC; Go's default is 100)
#   nohistory        the peer's history database off: fabvote never reads a
#                    key's history (no GetHistoryForKey), audits read blocks
#   blocks8mb        blocks may grow to 8 MB (PreferredMaxBytes) instead of
#                    4 MB, which a block of 500 ballots of ≈ 11 KB needs
#   batch128         the ballot chaincode batches up to 128 proofs (its
#                    default is 64; FABVOTE_PROOF_BATCH)
#   writers          the channel's /Channel/Writers as one signature policy
#                    over the same principals (CHANNEL_WRITERS=signature), so
#                    that the orderer checks a transaction's signature once,
#                    not once per ImplicitMeta sub-policy
#   tuned            the settings kept for the tuned-stock baseline
#                    (docs/bench/2026-11-26-tuned-stock.md, "A tuned stock baseline"): gogc200,
#                    blocks8mb, batch128 and writers
BENCH_TUNINGS="gogc200 gogc400 nohistory blocks8mb batch128 writers tuned"
bench_tuning_env() {
	case $1 in
	gogc200) echo GOGC=200 ;;
	gogc400) echo GOGC=400 ;;
	nohistory) echo CORE_LEDGER_HISTORY_ENABLEHISTORYDATABASE=false ;;
	blocks8mb) echo "BATCH_PREFERRED_BYTES=8 MB" ;;
	batch128) echo FABVOTE_PROOF_BATCH=128 ;;
	writers) echo CHANNEL_WRITERS=signature ;;
	tuned) bench_tuning_env gogc200 && bench_tuning_env blocks8mb && bench_tuning_env batch128 && bench_tuning_env writers ;;
	*) bench_die "unknown tuning '$1' (known: $BENCH_TUNINGS)" ;;
	esac
}

bench_die() { printf 'bench: ERROR: %s\n' "$*" >&2; exit 1; }
bench_log() { printf '[bench %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# bench_load_flags RATE: fabvote bench's load flags, a fixed send rate or,
# for RATE 0 or max, a closed loop of CONCURRENCY workers.
bench_load_flags() {
	if [[ $1 == max || $1 == 0 ]]; then echo "--concurrency $CONCURRENCY"; else echo "--rate $1"; fi
}

# bench_switch_env NAME prints the environment of fork configuration NAME of
# bench/configs.tsv, one VAR=value a line after FABRIC_BIN; fails for a name
# the file does not have.
bench_switch_env() {
	local name desc vars
	local -a kv
	while IFS=$'\t' read -r name desc vars; do
		[[ $name == "$1" && $name != "#"* ]] || continue
		read -r -a kv <<<"$vars"
		printf '%s\n' "FABRIC_BIN=$BIN" "${kv[@]}"
		return 0
	done <"$BENCH_CONFIGS_TSV"
	return 1
}

# bench_config_env CONFIG prints the environment of CONFIG, one VAR=value a line.
bench_config_env() {
	local c=${1%%+*} base t
	local -a tunings=()
	[[ $1 == *+* ]] && IFS=+ read -r -a tunings <<<"${1#*+}"
	base=${c%-nobatch}
	case $base in
	stock) printf '%s\n' "FABRIC_BIN=$BIN/stock" "FABRIC_CFG_SRC=$ROOT/build/config-stock" ;;
	*) bench_switch_env "$base" || bench_die "unknown configuration '$c' (known: $BENCH_ALL_CONFIGS)" ;;
	esac
	# BENCH_PROOF_BATCH (unset: the chaincode's default) sets the proof batch
	# cap of every batching configuration alike.
	if [[ $c == *-nobatch ]]; then
		echo FABVOTE_PROOF_BATCH=off
	elif [[ -n ${BENCH_PROOF_BATCH:-} ]]; then
		echo "FABVOTE_PROOF_BATCH=$BENCH_PROOF_BATCH"
	fi
	# Settings last: in env, the last value of a variable wins.
	for t in "${tunings[@]}"; do bench_tuning_env "$t"; done
	return 0
}

# bench_net_up CONFIG starts the benchmark network for CONFIG (stopping a
# previous one first).
bench_net_up() {
	local c=$1 kv
	bench_config_env "$c" >/dev/null # dies here on an unknown configuration or setting, not in a subshell below
	bench_net_down
	local -a envs=(
		"ROOT=$ROOT" "RUN=$RUN" "NET_RUN_DIR=$BENCH_RUN_DIR" "PROFILE=solo-org" "NET_STACK=bench" "BASE_PORT=$BENCH_BASE_PORT"
		"BATCH_SIZE=$BENCH_BATCH_SIZE" "BATCH_TIMEOUT=$BENCH_BATCH_TIMEOUT"
		"CHAINCODES=$BENCH_CHAINCODES"
		"CORE_PEER_LIMITS_CONCURRENCY_GATEWAYSERVICE=$BENCH_GATEWAY_LIMIT"
	)
	local pass="FABVOTE_SHA256 FABVOTE_ECDSA FABVOTE_COMMIT_GATE FABVOTE_VALIDATION_PLUGIN FABVOTE_PROOF_BATCH FABVOTE_PROOF_BATCH_WAIT GOMAXPROCS GOGC GOMEMLIMIT GODEBUG CORE_PEER_LIMITS_CONCURRENCY_GATEWAYSERVICE CORE_LEDGER_HISTORY_ENABLEHISTORYDATABASE"
	if [[ ${BENCH_PROFILE:-0} == 1 ]]; then
		envs+=("CORE_PEER_PROFILE_ENABLED=true" "CORE_PEER_PROFILE_LISTENADDRESS=$BENCH_PPROF_PEER"
			"ORDERER_GENERAL_PROFILE_ENABLED=true" "ORDERER_GENERAL_PROFILE_ADDRESS=$BENCH_PPROF_ORDERER"
			"FABVOTE_PPROF_ADDR=$BENCH_PPROF_CC")
		pass+=" CORE_PEER_PROFILE_ENABLED CORE_PEER_PROFILE_LISTENADDRESS ORDERER_GENERAL_PROFILE_ENABLED ORDERER_GENERAL_PROFILE_ADDRESS FABVOTE_PPROF_ADDR"
	fi
	while IFS= read -r kv; do envs+=("$kv"); done < <(bench_config_env "$c")
	envs+=("NET_PASS_ENV=$pass")
	# cryptogen's identities unless asked otherwise: a benchmark starts a
	# network per trial, and where the certificates come from costs the
	# ballots nothing (both are ECDSA P-256).
	envs+=("NET_IDENTITIES=${NET_IDENTITIES:-cryptogen}")
	bench_log "network up: configuration $c ($(bench_config_env "$c" | tr '\n' ' '))"
	mkdir -p "$(dirname "$BENCH_RUN_DIR")" # the up log sits beside the run directory, which a fresh clone lacks
	env -u FABVOTE_SHA256 -u FABVOTE_ECDSA -u FABVOTE_COMMIT_GATE -u FABVOTE_VALIDATION_PLUGIN -u FABVOTE_PROOF_BATCH -u CHANNEL_WRITERS "${envs[@]}" "$NET_SH" up >"$BENCH_RUN_DIR.up.log" 2>&1 ||
		{ tail -n 40 "$BENCH_RUN_DIR.up.log" >&2; bench_die "network up failed for $c (log: $BENCH_RUN_DIR.up.log)"; }
	BENCH_NETWORK=$BENCH_RUN_DIR/network.json
	[[ -f $BENCH_NETWORK ]] || bench_die "no $BENCH_NETWORK after network up"
}

# bench_net_down stops the benchmark network if one is up.
bench_net_down() {
	if [[ -f $BENCH_RUN_DIR/state.env ]]; then
		ROOT=$ROOT RUN=$RUN NET_RUN_DIR=$BENCH_RUN_DIR "$NET_SH" down >/dev/null 2>&1 ||
			bench_log "warning: network down reported an error"
	fi
	return 0
}

# bench_ballots N prints the directory of the cached set of N ballots, making it if needed.
bench_ballots() {
	ROOT=$ROOT BIN=$BIN VOTERS=$1 "$ROOT/bench/ballots.sh"
}

# bench_gate_counters: the commit gate counters (fabric/patches/0007) of the
# first organisation's peer, as one JSON object {sessions, escalations,
# retries, commits}. The peer's node name is the running network's topology's.
bench_gate_counters() {
	local peer
	fabnet_tool && read_topology BENCH_TOPO_ "$FABNET" --home "$BENCH_RUN_DIR" || bench_die "no topology for the network in $BENCH_RUN_DIR"
	peer=${BENCH_TOPO_PEER_NODES[0]}
	NET_RUN_DIR=$BENCH_RUN_DIR "$NET_SH" ops "$peer" /metrics | python3 -c '
import json, re, sys
c = {m.group(1): int(float(m.group(2))) for m in re.finditer(r"^fabvote_commit_gate_(\w+)_total\{channel=\"[^\"]*\"\} (\S+)$", sys.stdin.read(), re.M)}
assert {"sessions", "escalations", "retries", "commits"} <= set(c), f"the peer exports no commit gate counters: {c}"
print(json.dumps(c))'
}

# bench_open SETDIR opens the benchmark election on the benchmark network.
bench_open() {
	"$BIN/fabvote" election open --network "$BENCH_NETWORK" --manifest "$1/manifest.json" >&2
}
