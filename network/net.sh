#!/usr/bin/env bash
# net.sh — fabvote's single-host Fabric network as native processes (no Docker).
#
#   net.sh up [PROFILE]          start a network (refuses if one is already up in its run dir)
#   net.sh down                  stop every process it started and remove the run dir
#   net.sh status                list nodes, pids, ports
#   net.sh kill NODE             SIGKILL one node (fault injection); ledgers stay
#   net.sh stop NODE             SIGTERM (then SIGKILL after NET_STOP_TIMEOUT s) one node
#   net.sh start NODE            start one stopped node again and wait until it is ready
#   net.sh restart NODE          stop + start
#   net.sh nodes                 print node names, one a line
#   net.sh pid NODE              print the pid of a running node
#   net.sh logs NODE [N]         last N (50) lines of a node's log
#   net.sh peer ORG ARGS...      run the peer CLI as ORG's admin against ORG's peer
#   net.sh invoke CC JSON        submit a transaction endorsed by every peer; waits for commit
#   net.sh query CC JSON [ORG]   evaluate on ORG's peer (default: the first org)
#   net.sh height [ORG]          channel height on ORG's peer
#   net.sh leader                the orderer that leads the channel's Raft cluster
#   net.sh ops NODE PATH         GET PATH (/healthz, /metrics) from NODE's operations endpoint (https)
#   net.sh env [ORG]             export lines for using the peer CLI as ORG's admin: eval "$(net.sh env ea)"
#
# Node names: orderer0..2, peer0.ea, peer0.party1, peer0.party2, cc.<chaincode>.<peer>.
# Everything is configured by environment variables; see network/README.md.
set -euo pipefail

NET_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=${ROOT:-$(cd "$NET_DIR/.." && pwd)}
FABRIC_BIN=${FABRIC_BIN:-$ROOT/bin}
FABRIC_CFG_SRC=${FABRIC_CFG_SRC:-$ROOT/build/config}
RUN=${RUN:-$ROOT/run}
GO=${GO:-go}
CHANNEL=${CHANNEL:-fabvote}
BASE_PORT=${BASE_PORT:-7050}
BATCH_SIZE=${BATCH_SIZE:-500}
BATCH_TIMEOUT=${BATCH_TIMEOUT:-250ms}
BATCH_PREFERRED_BYTES=${BATCH_PREFERRED_BYTES:-4 MB}
BATCH_ABSOLUTE_BYTES=${BATCH_ABSOLUTE_BYTES:-10 MB}
CHAINCODES=${CHAINCODES-ballot=./chaincode/ballot/cmd/ballot-cc}
CC_VERSION=${CC_VERSION:-1.0}
NET_LOG_SPEC=${NET_LOG_SPEC:-info}
NET_WAIT=${NET_WAIT:-90}
NET_STOP_TIMEOUT=${NET_STOP_TIMEOUT:-10}
# Variables passed from the caller's environment to every node, besides every
# FABVOTE_* variable (the fork's switches FABVOTE_SHA256, FABVOTE_ECDSA,
# FABVOTE_COMMIT_GATE, ...): Go runtime knobs and the loader path.
NET_PASS_ENV=${NET_PASS_ENV:-GOMAXPROCS GOGC GOMEMLIMIT GODEBUG LD_LIBRARY_PATH}
# Only the election authority's MSP may open elections on this network's ballot
# chaincode services (package ballot: FABVOTE_AUTHORITY_MSPS). Without it any
# channel member could open a new election id naming itself the authority.
# Set FABVOTE_AUTHORITY_MSPS= (empty) to lift the restriction.
export FABVOTE_AUTHORITY_MSPS=${FABVOTE_AUTHORITY_MSPS-EAMSP}
# O-IV: FABVOTE_VALIDATION_PLUGIN=ballotvscc names the fork's ballot
# validation plugin in the definition of every chaincode built from the
# ballot contract (--validation-plugin), and, being a FABVOTE_* variable,
# reaches those chaincode services too, which then leave the proof check to
# validation (package ballot: EnvValidationPlugin). Unset or "off": Fabric's
# default plugin and the full check at endorsement. Needs the fork's peer and
# its core.yaml (make fabric): a stock peer cannot load the plugin.
FABVOTE_VALIDATION_PLUGIN=${FABVOTE_VALIDATION_PLUGIN:-off}
BALLOT_CC_PATH=./chaincode/ballot/cmd/ballot-cc
# Extra KEY=VALUE settings (space-separated) for every node, e.g.
# NET_NODE_ENV="CORE_PEER_LIMITS_CONCURRENCY_ENDORSERSERVICE=5000 ORDERER_GENERAL_MAXRECVMSGSIZE=209715200"
NET_NODE_ENV=${NET_NODE_ENV:-}
# Where every organisation's keys and certificates come from: ca (the
# default): each organisation runs its own two Fabric CA servers (MSP and
# TLS) as nodes of the network, in its own crypto directory, and enrolls its
# nodes and users from them (network/fabca); or cryptogen: one step, every
# organisation's keys made in one place, about 12 s faster for three orgs:
# the quick option for development and for the test harnesses that start
# many networks. FABRIC_CA_BIN holds fabric-ca-server and fabric-ca-client
# (make fabric-ca).
NET_IDENTITIES=${NET_IDENTITIES:-ca}
FABRIC_CA_BIN=${FABRIC_CA_BIN:-$ROOT/bin}
# NET_PEER_ENV_<org> (e.g. NET_PEER_ENV_party2="FABVOTE_SIG_MEMO=off"): extra
# KEY=VALUE settings for that org's peers only, after every other setting, so
# that one network can run peers with different switches (the end-to-end test
# compares their blocks and state).

log() { printf '[net %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { printf '[net] ERROR: %s\n' "$*" >&2; exit 1; }

# ---------------------------------------------------------------- run dir

# resolve_run_dir sets PROFILE and RUN_DIR. Precedence: NET_RUN_DIR, PROFILE,
# the run/current link, solo-org.
resolve_run_dir() {
	if [[ -n ${NET_RUN_DIR:-} ]]; then
		RUN_DIR=$NET_RUN_DIR
		[[ -z ${PROFILE:-} && -f $RUN_DIR/profile ]] && PROFILE=$(<"$RUN_DIR/profile")
		PROFILE=${PROFILE:-solo-org}
	elif [[ -n ${PROFILE:-} ]]; then
		RUN_DIR=$RUN/$PROFILE
	elif [[ -e $RUN/current ]]; then
		RUN_DIR=$(readlink -f "$RUN/current")
		PROFILE=$(<"$RUN_DIR/profile")
	else
		PROFILE=solo-org
		RUN_DIR=$RUN/$PROFILE
	fi
	case $PROFILE in
	solo-org | three-orgs) ;;
	*) die "PROFILE=$PROFILE: want solo-org or three-orgs" ;;
	esac
	RUN_DIR=$(realpath -m "$RUN_DIR")
	RUN=$(realpath -m "$RUN")
	# A run dir of an older net.sh records its nodes in files this one does
	# not read: say so rather than take its running nodes for stopped ones.
	if compgen -G "$RUN_DIR/nodes/*/cmd" >/dev/null; then
		die "$RUN_DIR was made by an older net.sh (nodes/<node>/cmd): stop its processes (kill \$(cat $RUN_DIR/pids/*.pid)), then remove it"
	fi
}

# load_state reads the settings the network was started with.
load_state() {
	[[ -f $RUN_DIR/state.env ]] || die "no network in $RUN_DIR (run 'make network-up' first)"
	# shellcheck disable=SC1091
	. "$RUN_DIR/state.env"
}

# ---------------------------------------------------------------- topology

# set_topology defines the orgs and orderers of $PROFILE and the port plan:
#   orderer i:  BASE_PORT+10i (gRPC), +1 (admin / channel participation), +2 (operations)
#   peer j:     BASE_PORT+100+10j (gRPC, gateway), +1 (chaincode callback), +2 (operations),
#               +3.. (one chaincode service per chaincode, at most 7)
#   peer j's chaincode services' operations endpoints: BASE_PORT+200+10j+index
#               (the ballot chaincode's /metrics and /healthz, plain HTTP)
set_topology() {
	case $PROFILE in
	solo-org) ORGS=(ea) ORDERERS=(orderer0) ;;
	three-orgs) ORGS=(ea party1 party2) ORDERERS=(orderer0 orderer1 orderer2) ;;
	esac
	ORDERER_DOMAIN=orderer.fabvote.local
	ORDERER_MSPID=OrdererMSP
}
org_mspid() {
	case $1 in
	ea) echo EAMSP ;; party1) echo Party1MSP ;; party2) echo Party2MSP ;;
	*) die "unknown org $1" ;;
	esac
}
org_domain() { echo "$1.fabvote.local"; }
org_index() {
	local i
	for i in "${!ORGS[@]}"; do [[ ${ORGS[$i]} == "$1" ]] && { echo "$i"; return; }; done
	die "org $1 is not in profile $PROFILE (orgs: ${ORGS[*]})"
}
orderer_index() { echo "${1#orderer}"; }
orderer_port() { echo $((BASE_PORT + 10 * $(orderer_index "$1"))); }
orderer_admin_port() { echo $(($(orderer_port "$1") + 1)); }
orderer_ops_port() { echo $(($(orderer_port "$1") + 2)); }
peer_port() { echo $((BASE_PORT + 100 + 10 * $(org_index "$1"))); }
peer_cc_port() { echo $(($(peer_port "$1") + 1)); }
peer_ops_port() { echo $(($(peer_port "$1") + 2)); }
peer_name() { echo "peer0.$1"; }
ccaas_port() { echo $(($(peer_port "$1") + 3 + $2)); } # org, chaincode index
ccaas_ops_port() { echo $((BASE_PORT + 200 + 10 * $(org_index "$1") + $2)); } # org, chaincode index
# Fabric CA servers (NET_IDENTITIES=ca): peer org j at BASE_PORT+300+10j, the
# orderer org at BASE_PORT+390: +0 MSP CA, +1 TLS CA, +2/+3 their operations.
ca_base_port() { if [[ $1 == orderer ]]; then echo $((BASE_PORT + 390)); else echo $((BASE_PORT + 300 + 10 * $(org_index "$1"))); fi; }

crypto_peer_org() { echo "$RUN_DIR/crypto/peerOrganizations/$(org_domain "$1")"; }
crypto_peer() { echo "$(crypto_peer_org "$1")/peers/peer0.$(org_domain "$1")"; }
crypto_ccaas() { echo "$(crypto_peer_org "$1")/peers/ccaas0.$(org_domain "$1")"; }
crypto_user() { echo "$(crypto_peer_org "$1")/users/$2@$(org_domain "$1")"; }
org_tlsca() { echo "$(crypto_peer_org "$1")/tlsca/tlsca.$(org_domain "$1")-cert.pem"; }
crypto_orderer_org() { echo "$RUN_DIR/crypto/ordererOrganizations/$ORDERER_DOMAIN"; }
crypto_orderer() { echo "$(crypto_orderer_org)/orderers/$1.$ORDERER_DOMAIN"; }
orderer_tlsca() { echo "$(crypto_orderer_org)/tlsca/tlsca.$ORDERER_DOMAIN-cert.pem"; }
orderer_admin_tls() { echo "$(crypto_orderer_org)/users/Admin@$ORDERER_DOMAIN/tls"; }

# parse_chaincodes fills CC_NAMES and CC_PATHS from CHAINCODES ("name=./go/pkg ...").
parse_chaincodes() {
	CC_NAMES=() CC_PATHS=()
	local entry
	for entry in ${CHAINCODES//,/ }; do
		[[ $entry == *=* ]] || die "CHAINCODES entry '$entry': want name=./go/package/path"
		local name=${entry%%=*} path=${entry#*=}
		[[ $name =~ ^[a-z][a-z0-9_-]*$ ]] || die "CHAINCODES entry '$entry': name must match [a-z][a-z0-9_-]*"
		[[ -n $path ]] || die "CHAINCODES entry '$entry': empty package path"
		CC_NAMES+=("$name") CC_PATHS+=("$path")
	done
	((${#CC_NAMES[@]} <= 7)) || die "CHAINCODES: at most 7 chaincodes (ports per peer)"
}

# ---------------------------------------------------------------- processes

node_dir() { echo "$RUN_DIR/nodes/$1"; }

# nodectl SUBCOMMAND ARGS...: the run dir's nodes through fabnet (network/fabnet,
# defined.go and proc.go): each node is defined once (nodes/NAME/node.json:
# binary, arguments, environment, directory, address) and then started,
# stopped, killed or looked up by name; pids/NAME.pid names the process,
# its binary and its directory, so that a recycled pid is never taken for a node.
nodectl() {
	local sub=$1
	shift
	"$RUN_DIR/tools/fabnet" node "$sub" --home "$RUN_DIR" "$@"
}

# node_pid prints the pid of NODE if that process is alive and still runs the
# node's binary in the node's directory.
node_pid() { nodectl pid "$1" 2>/dev/null; }

all_nodes() { [[ -f $RUN_DIR/nodes.list ]] && cat "$RUN_DIR/nodes.list"; return 0; }

show_log() { nodectl log --lines "${2:-50}" "$1" || true; }

# fail_node prints the node's log tail and exits.
fail_node() {
	show_log "$1"
	die "$2"
}

# define_node NAME PORT BINARY ARGS...: the node's environment is, from the
# caller, PATH, HOME, TMPDIR, every FABVOTE_* variable and those named in
# NET_PASS_ENV; then NET_NODE_ENV's KEY=VALUE entries, then NODE_ENV (array).
define_node() {
	local name=$1 port=$2 v envs=()
	shift 2
	# shellcheck disable=SC2086 # NET_NODE_ENV is a space-separated list
	for v in $NET_NODE_ENV "${NODE_ENV[@]}"; do envs+=(--env "$v"); done
	nodectl define --name "$name" --ready "127.0.0.1:$port" --pass-env "$NET_PASS_ENV" "${envs[@]}" -- "$@" ||
		die "defining node $name failed (NET_NODE_ENV, NET_PEER_ENV_*: KEY=VALUE entries)"
}

# peer_env_overrides ORG appends NET_PEER_ENV_<ORG>'s entries to NODE_ENV.
peer_env_overrides() {
	local var="NET_PEER_ENV_$1" v
	for v in ${!var:-}; do NODE_ENV+=("$v"); done
	[[ -z ${!var:-} ]] || log "peer of $1: ${!var}"
	return 0
}

# interruptible BINARY ARGS...: run BINARY as a child and wait for it. Bash
# runs a trap only once its foreground command has ended, and a start may
# wait NET_WAIT s: waiting on a child instead lets an interrupted up stop at
# once (up_exit passes SIGTERM on to FG_PID; fabnet node start, so
# interrupted, stops the node it was starting).
FG_PID=
interruptible() {
	local rc=0
	"$@" &
	FG_PID=$!
	wait "$FG_PID" || rc=$?
	FG_PID=
	return "$rc"
}

# start_node NAME: start it and wait until it listens (at most NET_WAIT s).
start_node() {
	interruptible "$RUN_DIR/tools/fabnet" node start --home "$RUN_DIR" --wait "${NET_WAIT}s" "$1" || die "starting $1 failed"
}

# stop_node NAME [TERM|KILL]
stop_node() {
	if [[ ${2:-TERM} == KILL ]]; then
		nodectl kill "$1" || die "killing $1 failed"
	else
		nodectl stop --timeout "${NET_STOP_TIMEOUT}s" "$1" || die "stopping $1 failed"
	fi
}

# port_listening PORT: some socket listens on PORT (read from /proc, so the
# check does not open a connection that the node would log as a failed TLS handshake).
port_listening() {
	local hex
	hex=$(printf '%04X' "$1")
	grep -qE "^ *[0-9]+: [0-9A-F]+:$hex [0-9A-F]+:0000 0A " /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

ports_free() {
	local p busy=()
	for p in "$@"; do
		port_listening "$p" && busy+=("$p")
	done
	((${#busy[@]} == 0)) || die "ports in use on 127.0.0.1: ${busy[*]} (another network? set BASE_PORT)"
}

# ---------------------------------------------------------------- CLI helpers

# peer_cli ORG ARGS...: the peer CLI as ORG's admin, against ORG's peer.
peer_cli() {
	local org=$1
	shift
	env -i PATH="$PATH" HOME="${HOME:-/root}" \
		FABRIC_CFG_PATH="$(node_dir "$(peer_name "${ORGS[0]}")")" \
		FABRIC_LOGGING_SPEC="${NET_CLI_LOG_SPEC:-warning}" \
		CORE_PEER_LOCALMSPID="$(org_mspid "$org")" \
		CORE_PEER_MSPCONFIGPATH="$(crypto_user "$org" Admin)/msp" \
		CORE_PEER_ADDRESS="127.0.0.1:$(peer_port "$org")" \
		CORE_PEER_TLS_ENABLED=true \
		CORE_PEER_TLS_ROOTCERT_FILE="$(org_tlsca "$org")" \
		"$FABRIC_BIN/peer" "$@"
}

# orderer_flags: the first running orderer (so the CLI still works while one is down).
orderer_flags() {
	local o use=${ORDERERS[0]}
	for o in "${ORDERERS[@]}"; do
		if node_pid "$o" >/dev/null; then
			use=$o
			break
		fi
	done
	echo -o "127.0.0.1:$(orderer_port "$use")" --tls --cafile "$(orderer_tlsca)"
}

all_peer_flags() {
	local org
	for org in "${ORGS[@]}"; do
		echo --peerAddresses "127.0.0.1:$(peer_port "$org")" --tlsRootCertFiles "$(org_tlsca "$org")"
	done
}

# retry N CMD...: run CMD up to N times, 2 s apart (the orderer may still be electing a leader).
retry() {
	local n=$1 i out
	shift
	for ((i = 1; i <= n; i++)); do
		if out=$("$@" 2>&1); then
			[[ -n $out ]] && printf '%s\n' "$out"
			return 0
		fi
		((i < n)) && sleep 2
	done
	printf '%s\n' "$out" >&2
	return 1
}

# netops STEP ARGS...: fabnet's view of this network's operations endpoints
# (https, with the node's own TLS pair as the client certificate).
netops() {
	local step=$1
	shift
	"$RUN_DIR/tools/fabnet" "$step" --topology "$RUN_DIR/topology.json" --crypto "$RUN_DIR/crypto" "$@"
}

# ops_get NODE PATH: GET PATH from NODE's operations endpoint and print the body.
ops_get() { netops ops "$1" "$2" 2>/dev/null; }

# raft_leader prints the running orderer that leads the channel's Raft cluster.
raft_leader() { netops raft-leader 2>/dev/null; }

# wait_orderer_ready ORDERER: the channel has a Raft leader and ORDERER has
# heard from it.
wait_orderer_ready() {
	interruptible "$RUN_DIR/tools/fabnet" wait-orderer --topology "$RUN_DIR/topology.json" --crypto "$RUN_DIR/crypto" \
		--home "$RUN_DIR" --wait "${NET_WAIT}s" "$1" || fail_node "$1" "$1 did not rejoin the Raft cluster of $CHANNEL"
}

channel_height() { # ORG
	local out
	out=$(peer_cli "$1" channel getinfo -c "$CHANNEL" 2>/dev/null) || return 1
	out=${out#*\"height\":}
	echo "${out%%,*}"
}

# ---------------------------------------------------------------- up

abs_dir() {
	if [[ -d $1 ]]; then
		(cd "$1" && pwd)
	elif [[ $1 != /* && -d $ROOT/$1 ]]; then
		(cd "$ROOT/$1" && pwd)
	else
		return 1
	fi
}

# gen_topology writes the profile's typed topology (network/fabnet): the
# organisations, orderers, chaincode services and the port plan from
# BASE_PORT. Every generated file below comes from it.
gen_topology() {
	local i ccs=()
	for i in "${!CC_NAMES[@]}"; do
		if [[ ${CC_PATHS[$i]} == "$BALLOT_CC_PATH" ]]; then ccs+=(--chaincode "${CC_NAMES[$i]}:ballot"); else ccs+=(--chaincode "${CC_NAMES[$i]}"); fi
	done
	"$RUN_DIR/tools/fabnet" topology --profile "$PROFILE" --base-port "$BASE_PORT" --batch-size "$BATCH_SIZE" \
		--batch-timeout "$BATCH_TIMEOUT" --batch-preferred-bytes "$BATCH_PREFERRED_BYTES" \
		--batch-absolute-bytes "$BATCH_ABSOLUTE_BYTES" "${ccs[@]}" --out "$RUN_DIR/topology.json" || die "fabnet topology failed"
}

gen_crypto_config() {
	"$RUN_DIR/tools/fabnet" cryptogen-config --topology "$RUN_DIR/topology.json" --out "$RUN_DIR/crypto-config.yaml" ||
		die "fabnet cryptogen-config failed"
}

# gen_configtx writes configtx.yaml with network/fabnet's renderer (the one
# the multi-host procedure uses), from the topology and this run dir's MSP
# directories and orderer certificates.
gen_configtx() {
	"$RUN_DIR/tools/fabnet" configtx --topology "$RUN_DIR/topology.json" --crypto "$RUN_DIR/crypto" \
		--out "$RUN_DIR/configtx/configtx.yaml" || die "fabnet configtx failed"
}

# merge_config KIND(core|orderer) NODE: node's config dir with the merged yaml.
merge_config() {
	local kind=$1 name=$2 dir
	dir=$(node_dir "$name")
	mkdir -p "$dir"
	NODE_HOST=127.0.0.1 NODE_LISTEN_HOST=127.0.0.1 "$RUN_DIR/tools/cfgmerge" -base "$FABRIC_CFG_SRC/$kind.yaml" \
		-override "$NET_DIR/config/$kind.yaml" -out "$dir/$kind.yaml" ||
		die "cfgmerge of $kind.yaml for $name failed"
}

define_orderer() {
	local o=$1 tls
	tls=$(crypto_orderer "$o")/tls
	NODE_NAME=$o NODE_HOME=$(node_dir "$o") NODE_PORT=$(orderer_port "$o") \
		NODE_ADMIN_PORT=$(orderer_admin_port "$o") NODE_OPS_PORT=$(orderer_ops_port "$o") \
		NODE_TLS_DIR=$tls NODE_MSP_DIR=$(crypto_orderer "$o")/msp NODE_MSPID=$ORDERER_MSPID \
		merge_config orderer "$o"
	mkdir -p "$(node_dir "$o")/data"
	NODE_ENV=("FABRIC_CFG_PATH=$(node_dir "$o")" "FABRIC_LOGGING_SPEC=$NET_LOG_SPEC")
	define_node "$o" "$(orderer_port "$o")" "$FABRIC_BIN/orderer"
}

define_peer() {
	local org=$1 name
	name=$(peer_name "$org")
	NODE_NAME=$name NODE_HOME=$(node_dir "$name") NODE_PORT=$(peer_port "$org") \
		NODE_CC_PORT=$(peer_cc_port "$org") NODE_OPS_PORT=$(peer_ops_port "$org") \
		NODE_TLS_DIR=$(crypto_peer "$org")/tls NODE_MSP_DIR=$(crypto_peer "$org")/msp \
		NODE_MSPID=$(org_mspid "$org") FABVOTE_CCAAS_BUILDER=$RUN_DIR/builder \
		merge_config core "$name"
	mkdir -p "$(node_dir "$name")/data"
	NODE_ENV=("FABRIC_CFG_PATH=$(node_dir "$name")" "FABRIC_LOGGING_SPEC=$NET_LOG_SPEC")
	peer_env_overrides "$org"
	define_node "$name" "$(peer_port "$org")" "$FABRIC_BIN/peer" node start
}

build_tools() {
	mkdir -p "$RUN_DIR/tools" "$RUN_DIR/builder/bin" "$RUN_DIR/ccbin"
	(cd "$ROOT" && "$GO" build -o "$RUN_DIR/tools/" ./network/cmd/cfgmerge ./network/cmd/ccaas-builder ./network/cmd/netready ./network/cmd/fabca ./network/cmd/fabnet) ||
		die "building network/cmd tools failed"
	cp "$RUN_DIR/tools/ccaas-builder" "$RUN_DIR/builder/bin/ccaas-builder"
	local step
	for step in detect build release; do ln -sf ccaas-builder "$RUN_DIR/builder/bin/$step"; done
}

# gen_identities makes every organisation's keys and certificates in
# cryptogen's layout, by NET_IDENTITIES.
gen_identities() {
	case $NET_IDENTITIES in
	cryptogen)
		log "generating crypto material (cryptogen)"
		"$FABRIC_BIN/cryptogen" generate --config="$RUN_DIR/crypto-config.yaml" --output="$RUN_DIR/crypto" >/dev/null ||
			die "cryptogen failed"
		;;
	ca)
		# The organisations enroll at the same time, each from its own CA
		# servers into its own directory: nothing is shared between them.
		# ENROLL_PIDS: up_exit stops them if up is interrupted meanwhile.
		# Each enrollment is a process group of its own (set -m), which
		# up_exit ends whole: the enrollment and whatever it runs.
		local org nodes=() o failed=0
		for o in "${ORDERERS[@]}"; do nodes+=("$o"); done
		set -m
		enroll_org orderer "$ORDERER_DOMAIN" "$(crypto_orderer_org)" "$(IFS=,; echo "${nodes[*]}")" Admin &
		ENROLL_PIDS+=($!)
		for org in "${ORGS[@]}"; do
			enroll_org "$org" "$(org_domain "$org")" "$(crypto_peer_org "$org")" peer0,ccaas0 Admin,User1,User2 &
			ENROLL_PIDS+=($!)
		done
		set +m
		for o in "${ENROLL_PIDS[@]}"; do wait "$o" || failed=1; done
		ENROLL_PIDS=()
		((failed == 0)) || die "enrolling the organisations' identities failed (above)"
		;;
	*) die "NET_IDENTITIES=$NET_IDENTITIES: want cryptogen or ca" ;;
	esac
}

# enroll_org ORG DOMAIN DIR NODES USERS: starts ORG's MSP CA and TLS CA as
# nodes, then enrolls NODES and USERS from them into DIR. The servers' homes
# (their keys and databases) and their registrars' secrets are in
# DIR/fabric-ca (0700), apart from the MSP and TLS directories handed to the
# nodes. Each server has its own random registrar secret, given to
# `fabric-ca-server init` through the environment (never a command line);
# the servers listen on 127.0.0.1 only.
enroll_org() {
	local org=$1 domain=$2 dir=$3 nodes=$4 users=$5 base which port pw
	log "$org: Fabric CA servers (MSP and TLS CA) and enrollment of $nodes, $users"
	mkdir -p "$dir/fabric-ca" && chmod 700 "$dir/fabric-ca"
	base=$(ca_base_port "$org")
	for which in ca tlsca; do
		port=$base
		[[ $which == tlsca ]] && port=$((base + 1))
		pw=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
		(umask 077 && printf 'registrar:%s\n' "$pw" >"$dir/fabric-ca/$which-registrar")
		local args=(-H "$dir/fabric-ca/$which-server" --address 127.0.0.1 --port "$port" --tls.enabled
			--csr.cn "$which.$domain" --csr.hosts localhost,127.0.0.1 --operations.listenaddress "127.0.0.1:$((port + 2))")
		(export FABRIC_CA_SERVER_BOOT="registrar:$pw" && "$FABRIC_CA_BIN/fabric-ca-server" init "${args[@]}" \
			>"$RUN_DIR/logs/$which.$org-init.log" 2>&1) || die "fabric-ca-server init of $which.$org failed: $RUN_DIR/logs/$which.$org-init.log"
		NODE_ENV=()
		define_node "$which.$org" "$port" "$FABRIC_CA_BIN/fabric-ca-server" start "${args[@]}"
		start_node "$which.$org"
	done
	local kind=()
	[[ $org == orderer ]] && kind=(--orderer)
	"$RUN_DIR/tools/fabca" --client "$FABRIC_CA_BIN/fabric-ca-client" --domain "$domain" --dir "$dir" "${kind[@]}" \
		--nodes "$nodes" --users "$users" \
		--ca "127.0.0.1:$base" --ca-tls-cert "$dir/fabric-ca/ca-server/ca-cert.pem" --ca-registrar-file "$dir/fabric-ca/ca-registrar" \
		--tlsca "127.0.0.1:$((base + 1))" --tlsca-tls-cert "$dir/fabric-ca/tlsca-server/ca-cert.pem" \
		--tlsca-registrar-file "$dir/fabric-ca/tlsca-registrar" ||
		fail_node "ca.$org" "enrolling $org's identities from its Fabric CA failed"
}

create_channel() {
	log "generating the channel genesis block"
	mkdir -p "$RUN_DIR/configtx"
	gen_configtx
	"$FABRIC_BIN/configtxgen" -configPath "$RUN_DIR/configtx" -profile FabvoteChannel \
		-channelID "$CHANNEL" -outputBlock "$RUN_DIR/configtx/$CHANNEL.block" 2>"$RUN_DIR/configtx/configtxgen.log" || {
		cat "$RUN_DIR/configtx/configtxgen.log" >&2
		die "configtxgen failed"
	}
}

join_orderers() {
	local o admin
	admin=$(orderer_admin_tls)
	for o in "${ORDERERS[@]}"; do
		log "joining $o to channel $CHANNEL (channel participation API)"
		retry 5 "$FABRIC_BIN/osnadmin" channel join --channelID "$CHANNEL" \
			--config-block "$RUN_DIR/configtx/$CHANNEL.block" -o "127.0.0.1:$(orderer_admin_port "$o")" \
			--ca-file "$(orderer_tlsca)" --client-cert "$admin/client.crt" --client-key "$admin/client.key" >/dev/null ||
			fail_node "$o" "osnadmin channel join failed on $o"
	done
	# Wait until the channel has a Raft leader: an orderer answers
	# status=active, consensusRelation=consenter once it is part of the cluster.
	local deadline=$((SECONDS + NET_WAIT)) out
	for o in "${ORDERERS[@]}"; do
		while :; do
			out=$("$FABRIC_BIN/osnadmin" channel list --channelID "$CHANNEL" -o "127.0.0.1:$(orderer_admin_port "$o")" \
				--ca-file "$(orderer_tlsca)" --client-cert "$admin/client.crt" --client-key "$admin/client.key" 2>&1) || true
			[[ $out == *'"status": "active"'* ]] && break
			((SECONDS < deadline)) || fail_node "$o" "$o did not become active on $CHANNEL: $out"
			sleep 0.5
		done
	done
	for o in "${ORDERERS[@]}"; do wait_orderer_ready "$o"; done
}

join_peers() {
	local org h deadline
	for org in "${ORGS[@]}"; do
		log "joining $(peer_name "$org") to channel $CHANNEL"
		retry 5 peer_cli "$org" channel join -b "$RUN_DIR/configtx/$CHANNEL.block" >/dev/null ||
			fail_node "$(peer_name "$org")" "peer channel join failed on $(peer_name "$org")"
	done
	for org in "${ORGS[@]}"; do
		deadline=$((SECONDS + NET_WAIT))
		until h=$(channel_height "$org") && [[ $h =~ ^[0-9]+$ ]] && ((h >= 1)); do
			((SECONDS < deadline)) || fail_node "$(peer_name "$org")" "$(peer_name "$org") has no ledger for $CHANNEL"
			sleep 0.5
		done
	done
}

# ---------------------------------------------------------------- chaincode

# package_cc NAME ORG INDEX: a ccaas package whose connection.json points ORG's
# peer at ORG's chaincode service (fabnet package); prints its path.
package_cc() {
	local name=$1 org=$2 idx=$3 dir peer_tls
	dir=$RUN_DIR/packages/$name.$org
	mkdir -p "$dir"
	peer_tls=$(crypto_peer "$org")/tls
	"$RUN_DIR/tools/fabnet" package --label "${name}_$CC_VERSION" --address "127.0.0.1:$(ccaas_port "$org" "$idx")" \
		--root-cert "$(org_tlsca "$org")" --client-cert "$peer_tls/server.crt" --client-key "$peer_tls/server.key" \
		--out "$dir/$name.tgz" || die "packaging $name for $org failed"
	echo "$dir/$name.tgz"
}

deploy_cc() { # INDEX
	local idx=$1 name=${CC_NAMES[$1]} path=${CC_PATHS[$1]} org pkg pid ccnode
	log "deploying chaincode $name ($path)"
	# CHAINCODE_GO_TAGS (chaincode/chaincode.mk: "gmp" when libgmp links) picks
	# the chaincode's arithmetic backend; unset means probe here the same way.
	local tags=${CHAINCODE_GO_TAGS-$("$ROOT/chaincode/gotags.sh" "$GO")}
	(cd "$ROOT" && "$GO" build ${tags:+-tags "$tags"} -o "$RUN_DIR/ccbin/$name" "$path") || die "go build $path failed (CHAINCODES entry $name)"
	declare -A pkgid
	for org in "${ORGS[@]}"; do
		pkg=$(package_cc "$name" "$org" "$idx")
		pid=$(peer_cli "$org" lifecycle chaincode calculatepackageid "$pkg") || die "calculatepackageid failed for $pkg"
		pkgid[$org]=$pid
		ccnode=cc.$name.$(peer_name "$org")
		local tls
		tls=$(crypto_ccaas "$org")/tls
		NODE_ENV=("CHAINCODE_ID=$pid" "CHAINCODE_SERVER_ADDRESS=127.0.0.1:$(ccaas_port "$org" "$idx")"
			"CHAINCODE_TLS_CERT_FILE=$tls/server.crt" "CHAINCODE_TLS_KEY_FILE=$tls/server.key"
			"CHAINCODE_TLS_CLIENT_CA_FILE=$(org_tlsca "$org")")
		if [[ $path == "$BALLOT_CC_PATH" ]]; then
			NODE_ENV+=("FABVOTE_OPS_ADDR=127.0.0.1:$(ccaas_ops_port "$org" "$idx")")
		fi
		define_node "$ccnode" "$(ccaas_port "$org" "$idx")" "$RUN_DIR/ccbin/$name"
		start_node "$ccnode"
		retry 3 peer_cli "$org" lifecycle chaincode install "$pkg" >/dev/null ||
			fail_node "$(peer_name "$org")" "install of $name on $(peer_name "$org") failed"
	done
	local common=(--channelID "$CHANNEL" --name "$name" --version "$CC_VERSION" --sequence 1)
	if [[ $FABVOTE_VALIDATION_PLUGIN == ballotvscc && $path == "$BALLOT_CC_PATH" ]]; then
		common+=(--validation-plugin ballotvscc)
	fi
	for org in "${ORGS[@]}"; do
		# shellcheck disable=SC2046
		retry 5 peer_cli "$org" lifecycle chaincode approveformyorg $(orderer_flags) "${common[@]}" \
			--package-id "${pkgid[$org]}" >/dev/null ||
			fail_node "$(peer_name "$org")" "approveformyorg of $name by $(org_mspid "$org") failed"
	done
	local ready
	ready=$(peer_cli "${ORGS[0]}" lifecycle chaincode checkcommitreadiness "${common[@]}" --output json) ||
		die "checkcommitreadiness of $name failed"
	[[ $ready != *false* ]] || die "chaincode $name not approved by every org: $ready"
	# shellcheck disable=SC2046
	retry 5 peer_cli "${ORGS[0]}" lifecycle chaincode commit $(orderer_flags) "${common[@]}" $(all_peer_flags) >/dev/null ||
		fail_node "$(peer_name "${ORGS[0]}")" "commit of chaincode $name failed"
	for org in "${ORGS[@]}"; do
		local deadline=$((SECONDS + NET_WAIT))
		until peer_cli "$org" lifecycle chaincode querycommitted --channelID "$CHANNEL" --name "$name" >/dev/null 2>&1; do
			((SECONDS < deadline)) || fail_node "$(peer_name "$org")" "$name not committed on $(peer_name "$org")"
			sleep 0.5
		done
	done
	echo "$name" >>"$RUN_DIR/chaincodes.list"
}

# ---------------------------------------------------------------- network.json

write_network_json() {
	"$RUN_DIR/tools/fabnet" local-connection --topology "$RUN_DIR/topology.json" --crypto "$RUN_DIR/crypto" \
		--run-dir "$RUN_DIR" --profile "$PROFILE" --base-port "$BASE_PORT" --out "$RUN_DIR/network.json" ||
		die "fabnet local-connection failed"
}

# ---------------------------------------------------------------- commands

cmd_up() {
	[[ -n ${1:-} ]] && PROFILE=$1
	PROFILE=${PROFILE:-solo-org}
	resolve_run_dir
	set_topology
	parse_chaincodes
	if [[ -x $RUN_DIR/tools/fabnet ]]; then
		local running
		running=$(nodectl running) || die "cannot tell whether the nodes of $RUN_DIR run"
		[[ -z $running ]] || die "a $PROFILE network is already up in $RUN_DIR (${running%%$'\n'*} is running); run 'make network-down' first"
	fi
	# Nodes run in their own directories: make the paths absolute (relative
	# paths are taken from the current directory, else from the repository root).
	FABRIC_BIN=$(abs_dir "$FABRIC_BIN") || die "FABRIC_BIN=$FABRIC_BIN: no such directory: run 'make fabric' (or set FABRIC_BIN)"
	FABRIC_CFG_SRC=$(abs_dir "$FABRIC_CFG_SRC") || die "FABRIC_CFG_SRC=$FABRIC_CFG_SRC: no such directory: run 'make fabric' (or set FABRIC_CFG_SRC)"
	local tool
	local tools=(peer orderer configtxgen osnadmin)
	[[ $NET_IDENTITIES == cryptogen ]] && tools+=(cryptogen)
	for tool in "${tools[@]}"; do
		[[ -x $FABRIC_BIN/$tool ]] || die "$FABRIC_BIN/$tool not found: run 'make fabric' (or set FABRIC_BIN)"
	done
	for tool in core.yaml orderer.yaml; do
		[[ -f $FABRIC_CFG_SRC/$tool ]] || die "$FABRIC_CFG_SRC/$tool not found: run 'make fabric' (or set FABRIC_CFG_SRC)"
	done
	# The fork's core.yaml registers its compiled-in ballot validation
	# handler; a stock peer panics on it at start, so refuse the pair here.
	if grep -q 'name: BallotValidation' "$FABRIC_CFG_SRC/core.yaml" &&
		! "$FABRIC_BIN/peer" version 2>/dev/null | grep -q 'fabvote patch series'; then
		die "$FABRIC_BIN/peer is not the fork's peer, but $FABRIC_CFG_SRC/core.yaml is the fork's configuration: give a stock peer its own (FABRIC_CFG_SRC=$ROOT/build/config-stock, made by make fabric-stock)"
	fi
	case $FABVOTE_VALIDATION_PLUGIN in
	off | vscc) ;;
	ballotvscc)
		grep -q 'name: BallotValidation' "$FABRIC_CFG_SRC/core.yaml" ||
			die "FABVOTE_VALIDATION_PLUGIN=ballotvscc: $FABRIC_CFG_SRC/core.yaml registers no ballotvscc validator; the plugin needs the fork (make fabric)" ;;
	*) die "FABVOTE_VALIDATION_PLUGIN=$FABVOTE_VALIDATION_PLUGIN: want ballotvscc, vscc or off" ;;
	esac
	export FABVOTE_VALIDATION_PLUGIN
	local v
	for v in $NET_PASS_ENV; do # fabnet reads the nodes' variables from its environment
		[[ $v =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || die "NET_PASS_ENV entry '$v': want a variable name"
		[[ -z ${!v+x} ]] || export "${v?}"
	done
	local ports=() o org i
	for o in "${ORDERERS[@]}"; do ports+=("$(orderer_port "$o")" "$(orderer_admin_port "$o")" "$(orderer_ops_port "$o")"); done
	for org in "${ORGS[@]}"; do
		ports+=("$(peer_port "$org")" "$(peer_cc_port "$org")" "$(peer_ops_port "$org")")
		for i in "${!CC_NAMES[@]}"; do ports+=("$(ccaas_port "$org" "$i")" "$(ccaas_ops_port "$org" "$i")"); done
	done
	if [[ $NET_IDENTITIES == ca ]]; then
		for tool in fabric-ca-server fabric-ca-client; do
			[[ -x $FABRIC_CA_BIN/$tool ]] || die "NET_IDENTITIES=ca: $FABRIC_CA_BIN/$tool not found: run 'make fabric-ca'"
		done
		for org in orderer "${ORGS[@]}"; do
			i=$(ca_base_port "$org")
			ports+=("$i" "$((i + 1))" "$((i + 2))" "$((i + 3))")
		done
	fi
	ports_free "${ports[@]}"

	# Stale leftovers of a network whose processes are gone are removed; a
	# non-empty directory that is not a run dir is never touched.
	if [[ -d $RUN_DIR && -n $(ls -A "$RUN_DIR") && ! -f $RUN_DIR/profile ]]; then
		die "$RUN_DIR exists and is not a network run dir; choose another NET_RUN_DIR"
	fi
	rm -rf "$RUN_DIR"
	mkdir -p "$RUN_DIR"/{nodes,logs,pids,configtx}
	UP_DONE=0 ENROLL_PIDS=()
	trap up_exit EXIT
	trap 'exit 130' INT TERM # through up_exit
	echo "$PROFILE" >"$RUN_DIR/profile"
	: >"$RUN_DIR/nodes.list"
	# Everything net.sh needs later (down, kill, start) without the caller's environment.
	{
		printf 'PROFILE=%q\nFABRIC_BIN=%q\nFABRIC_CFG_SRC=%q\nCHANNEL=%q\nBASE_PORT=%q\n' \
			"$PROFILE" "$FABRIC_BIN" "$FABRIC_CFG_SRC" "$CHANNEL" "$BASE_PORT"
		printf 'BATCH_SIZE=%q\nBATCH_TIMEOUT=%q\nBATCH_PREFERRED_BYTES=%q\nCHAINCODES=%q\n' \
			"$BATCH_SIZE" "$BATCH_TIMEOUT" "$BATCH_PREFERRED_BYTES" "$CHAINCODES"
	} >"$RUN_DIR/state.env"
	log "profile $PROFILE in $RUN_DIR, binaries $FABRIC_BIN, base port $BASE_PORT"

	build_tools
	gen_topology
	gen_crypto_config
	gen_identities
	create_channel
	for o in "${ORDERERS[@]}"; do define_orderer "$o"; done
	for org in "${ORGS[@]}"; do define_peer "$org"; done
	for o in "${ORDERERS[@]}"; do start_node "$o"; done
	join_orderers
	for org in "${ORGS[@]}"; do start_node "$(peer_name "$org")"; done
	join_peers
	: >"$RUN_DIR/chaincodes.list"
	for i in "${!CC_NAMES[@]}"; do deploy_cc "$i"; done
	write_network_json
	if ((${#CC_NAMES[@]} > 0)); then
		log "waiting until every org's gateway can gather endorsements (service discovery)"
		"$RUN_DIR/tools/netready" -network "$RUN_DIR/network.json" -timeout "${NET_READY_TIMEOUT:-120s}" ||
			fail_node "$(peer_name "${ORGS[0]}")" "the gateways are not ready"
	fi
	if [[ ${NET_SET_CURRENT:-1} == 1 ]]; then
		ln -sfn "$RUN_DIR" "$RUN/current.tmp" && mv -T "$RUN/current.tmp" "$RUN/current"
	fi
	UP_DONE=1
	log "network up: $(wc -l <"$RUN_DIR/nodes.list") processes; description in $RUN_DIR/network.json"
}

# up_exit: a failed 'up' stops what it started (unless NET_KEEP_ON_FAILURE=1)
# and keeps the run dir with the logs; the next 'up' removes it.
up_exit() {
	local rc=$?
	((UP_DONE)) && return 0
	if [[ ${NET_KEEP_ON_FAILURE:-0} == 1 ]]; then
		log "network-up failed; nodes left running (NET_KEEP_ON_FAILURE=1); logs in $RUN_DIR/logs"
		exit "$rc"
	fi
	log "network-up failed; stopping the nodes it started; logs kept in $RUN_DIR/logs"
	# (|| true: under set -e a failed kill or wait would end this trap
	# before the nodes are stopped.)
	if [[ -n $FG_PID ]]; then # a start or a wait under way
		kill -TERM "$FG_PID" 2>/dev/null || true
		wait "$FG_PID" 2>/dev/null || true
	fi
	if ((${#ENROLL_PIDS[@]})); then # enrollments still running start no more CA servers
		local p
		for p in "${ENROLL_PIDS[@]}"; do kill -TERM -- "-$p" 2>/dev/null || true; done
		wait "${ENROLL_PIDS[@]}" 2>/dev/null || true
	fi
	# Every node, the last started first; nothing ran before the tools were built.
	[[ ! -x $RUN_DIR/tools/fabnet ]] || nodectl stop-all --timeout "${NET_STOP_TIMEOUT}s" || true
	exit $((rc == 0 ? 1 : rc))
}

cmd_down() {
	resolve_run_dir
	if [[ ! -d $RUN_DIR ]]; then
		log "no network in $RUN_DIR"
		return 0
	fi
	[[ -f $RUN_DIR/profile ]] || die "$RUN_DIR is not a network run dir (no profile file); not removing it"
	local count=0
	if [[ -x $RUN_DIR/tools/fabnet ]]; then
		count=$(all_nodes | wc -l)
		# chaincode services, peers, orderers, CA servers: the reverse of their start
		nodectl stop-all --timeout "${NET_STOP_TIMEOUT}s" || die "network-down of $RUN_DIR failed"
	fi
	if [[ -L $RUN/current && $(readlink -f "$RUN/current") == "$(readlink -f "$RUN_DIR")" ]]; then
		rm -f "$RUN/current"
	fi
	rm -rf "$RUN_DIR"
	log "network down: stopped $count processes, removed $RUN_DIR"
}

cmd_status() {
	resolve_run_dir
	[[ -f $RUN_DIR/nodes.list && -x $RUN_DIR/tools/fabnet ]] || { echo "no network in $RUN_DIR"; return 0; }
	nodectl status
}

# wait_ready NODE: after a restart, an orderer is ready when the channel has a
# Raft leader again and it has heard from it; a peer when it answers for the
# channel (its ledger is open); a chaincode service when it listens.
wait_ready() {
	set_topology
	case $1 in
	orderer*) wait_orderer_ready "$1" ;;
	peer0.*)
		local org=${1#peer0.} h deadline=$((SECONDS + NET_WAIT))
		until h=$(channel_height "$org") && [[ $h =~ ^[0-9]+$ ]]; do
			((SECONDS < deadline)) || fail_node "$1" "$1 does not answer for channel $CHANNEL within ${NET_WAIT}s"
			node_pid "$1" >/dev/null || fail_node "$1" "$1 exited"
			sleep 0.3
		done
		# and, with other orgs, until every gateway can again gather endorsements
		if ((${#ORGS[@]} > 1)) && [[ -s $RUN_DIR/chaincodes.list && -f $RUN_DIR/network.json ]]; then
			"$RUN_DIR/tools/netready" -network "$RUN_DIR/network.json" -timeout "${NET_READY_TIMEOUT:-120s}" ||
				fail_node "$1" "gateways cannot gather endorsements after restarting $1"
		fi
		;;
	esac
}

main() {
	local sub=${1:-}
	[[ -n $sub ]] || {
		sed -n '2,23p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
		exit 2
	}
	shift
	case $sub in
	up) cmd_up "$@" ;;
	down) cmd_down ;;
	status) cmd_status ;;
	nodes) resolve_run_dir && all_nodes ;;
	kill | stop | start | restart | pid | logs)
		[[ -n ${1:-} ]] || die "usage: net.sh $sub NODE"
		resolve_run_dir
		load_state
		case $sub in
		kill) stop_node "$1" KILL && log "killed $1 (SIGKILL)" ;;
		stop) stop_node "$1" TERM && log "stopped $1" ;;
		start) start_node "$1" && wait_ready "$1" && log "started $1 (pid $(node_pid "$1"))" ;;
		restart) stop_node "$1" TERM && start_node "$1" && wait_ready "$1" && log "restarted $1 (pid $(node_pid "$1"))" ;;
		pid) node_pid "$1" || die "$1 is not running" ;;
		logs) nodectl log --lines "${2:-50}" "$1" 2>&1 ;;
		esac
		;;
	ops)
		(($# == 2)) || die "usage: net.sh ops NODE PATH"
		resolve_run_dir
		load_state
		set_topology
		ops_get "$1" "$2" || die "GET https $2 from $1's operations endpoint failed"
		;;
	leader)
		resolve_run_dir
		load_state
		set_topology
		raft_leader || die "no running orderer leads channel $CHANNEL"
		;;
	peer | invoke | query | height | env)
		resolve_run_dir
		load_state
		set_topology
		case $sub in
		peer)
			[[ -n ${1:-} ]] || die "usage: net.sh peer ORG ARGS..."
			peer_cli "$@"
			;;
		invoke)
			(($# == 2)) || die "usage: net.sh invoke CHAINCODE JSON"
			# shellcheck disable=SC2046
			NET_CLI_LOG_SPEC=${NET_CLI_LOG_SPEC:-warning:chaincodeCmd=info} \
				peer_cli "${ORGS[0]}" chaincode invoke $(orderer_flags) -C "$CHANNEL" -n "$1" -c "$2" \
				$(all_peer_flags) --waitForEvent
			;;
		query)
			(($# >= 2)) || die "usage: net.sh query CHAINCODE JSON [ORG]"
			peer_cli "${3:-${ORGS[0]}}" chaincode query -C "$CHANNEL" -n "$1" -c "$2"
			;;
		height) channel_height "${1:-${ORGS[0]}}" ;;
		env)
			local org=${1:-${ORGS[0]}}
			org_index "$org" >/dev/null
			printf 'export FABRIC_CFG_PATH=%q\n' "$(node_dir "$(peer_name "${ORGS[0]}")")"
			printf 'export CORE_PEER_LOCALMSPID=%q\n' "$(org_mspid "$org")"
			printf 'export CORE_PEER_MSPCONFIGPATH=%q\n' "$(crypto_user "$org" Admin)/msp"
			printf 'export CORE_PEER_ADDRESS=%q\n' "127.0.0.1:$(peer_port "$org")"
			printf 'export CORE_PEER_TLS_ENABLED=true\n'
			printf 'export CORE_PEER_TLS_ROOTCERT_FILE=%q\n' "$(org_tlsca "$org")"
			printf 'export ORDERER_ADDRESS=%q ORDERER_CA=%q\n' "127.0.0.1:$(orderer_port orderer0)" "$(orderer_tlsca)"
			;;
		esac
		;;
	*) die "unknown command '$sub' (up, down, status, nodes, kill, stop, start, restart, pid, logs, peer, invoke, query, height, leader, env)" ;;
	esac
}

main "$@"
