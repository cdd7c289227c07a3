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
# Node names: orderer<i>, peer0.<org>, cc.<chaincode>.peer0.<org> (net.sh nodes lists them).
# Everything is configured by environment variables; see network/README.md.
set -euo pipefail

NET_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=${ROOT:-$(cd "$NET_DIR/.." && pwd)}
FABRIC_BIN=${FABRIC_BIN:-$ROOT/bin}
FABRIC_CFG_SRC=${FABRIC_CFG_SRC:-$ROOT/build/config}
RUN=${RUN:-$ROOT/run}
GO=${GO:-go}
# The port plan (network/portplan; `fabnet ports list`): NET_STACK names the
# stack the network belongs to (default, e2e, bench, ...), and BASE_PORT, when
# set, moves it; unset, the stack's own base. fabnet local-up refuses a base
# whose ports meet another stack's, and ports something already holds.
NET_STACK=${NET_STACK:-default}
BASE_PORT=${BASE_PORT:-}
# BATCH_SIZE, BATCH_TIMEOUT, BATCH_PREFERRED_BYTES, BATCH_ABSOLUTE_BYTES: the
# channel's block cutting, when set; unset, the topology's defaults
# (network/fabnet, DefaultBatch).
# The channel's /Channel/Writers policy: empty for Fabric's ImplicitMeta
# default, "signature" for the one signature policy over the same principals
# (network/fabnet, WritersSignature).
CHANNEL_WRITERS=${CHANNEL_WRITERS:-}
CHAINCODES=${CHAINCODES-ballot=./chaincode/ballot/cmd/ballot-cc}
CC_VERSION=${CC_VERSION:-1.0}
NET_LOG_SPEC=${NET_LOG_SPEC:-info}
NET_WAIT=${NET_WAIT:-90}
NET_STOP_TIMEOUT=${NET_STOP_TIMEOUT:-10}
# Variables passed from the caller's environment to every node, besides every
# FABVOTE_* variable (the fork's switches FABVOTE_SHA256, FABVOTE_ECDSA,
# FABVOTE_COMMIT_GATE, ...): Go runtime knobs and the loader path.
NET_PASS_ENV=${NET_PASS_ENV:-GOMAXPROCS GOGC GOMEMLIMIT GODEBUG LD_LIBRARY_PATH}
# FABVOTE_AUTHORITY_MSPS (the MSPs that may open elections on the ballot
# chaincode services) defaults to the profile's first organisation's MSP in
# fabnet local-up; set it empty to lift the restriction.
# O-IV: FABVOTE_VALIDATION_PLUGIN=ballotvscc names the fork's ballot
# validation plugin in the definition of every chaincode built from the
# ballot contract (--validation-plugin); fabnet local-up gives those
# chaincode services the same switch, so that they leave the proof check to
# validation (package ballot: EnvValidationPlugin). Unset or "off": Fabric's
# default plugin and the full check at endorsement. Needs the fork's peer and
# its core.yaml (make fabric): a stock peer cannot load the plugin.
FABVOTE_VALIDATION_PLUGIN=${FABVOTE_VALIDATION_PLUGIN:-off}
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
# NET_PEER_ENV_<org> (e.g. NET_PEER_ENV_ea="FABVOTE_SIG_MEMO=off"; a '-' of
# the org's name is '_' there, scripts/topology.sh's topo_env_name): extra
# KEY=VALUE settings for that org's peers only, after every other setting, so
# that one network can run peers with different switches (the end-to-end test
# compares their blocks and state).
# FABNET, when set, is the fabnet binary up puts in the run dir instead of
# building one (a test's build with a profile of its own, go build -overlay).

# shellcheck source=scripts/topology.sh
. "$ROOT/scripts/topology.sh"

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
	# Whether it is registered is fabnet's to say (up refuses it, naming
	# the registered ones); here it is a path component.
	[[ $PROFILE =~ ^[a-z0-9][a-z0-9-]*$ ]] || die "PROFILE=$PROFILE: not a profile name (lower-case letters, digits and '-')"
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

# set_topology reads the network's topology from its run dir
# (network/fabnet; scripts/topology.sh): TOPO_ORGS, TOPO_ORDERERS and, in
# their order, their MSP ids, hosts, ports and files (relative to crypto/);
# CHANNEL, the channel.
set_topology() {
	[[ ${NET_TOPOLOGY_READ:-} == "$RUN_DIR" ]] && return 0
	read_topology TOPO_ "$RUN_DIR/tools/fabnet" --home "$RUN_DIR" || die "cannot read the topology of $RUN_DIR"
	CHANNEL=$TOPO_CHANNEL
	NET_TOPOLOGY_READ=$RUN_DIR
}
# org_get LIST ORG: ORG's item of the topology's LIST (ORG_MSPIDS, PEER_PORTS, ...).
org_get() {
	topo_get "TOPO_$1" TOPO_ORGS "$2" || die "org $2 is not in the network of $RUN_DIR (orgs: ${TOPO_ORGS[*]})"
}
# orderer_get LIST ORDERER: ORDERER's item of the topology's LIST (ORDERER_PORTS, ...).
orderer_get() {
	topo_get "TOPO_$1" TOPO_ORDERERS "$2" || die "orderer $2 is not in the network of $RUN_DIR (orderers: ${TOPO_ORDERERS[*]})"
}
# (Each lookup is an assignment of its own: a failed one inside echo's
# arguments would go unnoticed.)
peer_address() {
	local host port
	host=$(org_get ORG_HOSTS "$1") && port=$(org_get PEER_PORTS "$1") || exit 1
	echo "$host:$port"
}
orderer_address() {
	local host port
	host=$(orderer_get ORDERER_HOSTS "$1") && port=$(orderer_get ORDERER_PORTS "$1") || exit 1
	echo "$host:$port"
}
# crypto FILE: a file of the network's crypto directory.
crypto() { echo "$RUN_DIR/crypto/$1"; }

# ---------------------------------------------------------------- processes

node_dir() { echo "$RUN_DIR/nodes/$1"; }

# nodectl SUBCOMMAND ARGS...: the run dir's nodes through fabnet (network/fabrun,
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

# fail_node prints the node's log tail and exits.
fail_node() {
	nodectl log --lines 50 "$1" || true
	die "$2"
}

# start_node NAME: start it and wait until it listens (at most NET_WAIT s).
start_node() {
	"$RUN_DIR/tools/fabnet" node start --home "$RUN_DIR" --wait "${NET_WAIT}s" "$1" || die "starting $1 failed"
}

# stop_node NAME [TERM|KILL]
stop_node() {
	if [[ ${2:-TERM} == KILL ]]; then
		nodectl kill "$1" || die "killing $1 failed"
	else
		nodectl stop --timeout "${NET_STOP_TIMEOUT}s" "$1" || die "stopping $1 failed"
	fi
}

# ---------------------------------------------------------------- CLI helpers

# peer_cli ORG ARGS...: the peer CLI as ORG's admin, against ORG's peer.
peer_cli() {
	local org=$1 msp admin addr tlsca
	shift
	msp=$(org_get ORG_MSPIDS "$org") && admin=$(org_get ORG_ADMIN_MSPS "$org") &&
		addr=$(peer_address "$org") && tlsca=$(org_get ORG_TLSCAS "$org") || exit 1
	env -i PATH="$PATH" HOME="${HOME:-/root}" \
		FABRIC_CFG_PATH="$(node_dir "${TOPO_PEER_NODES[0]}")" \
		FABRIC_LOGGING_SPEC="${NET_CLI_LOG_SPEC:-warning}" \
		CORE_PEER_LOCALMSPID="$msp" \
		CORE_PEER_MSPCONFIGPATH="$(crypto "$admin")" \
		CORE_PEER_ADDRESS="$addr" \
		CORE_PEER_TLS_ENABLED=true \
		CORE_PEER_TLS_ROOTCERT_FILE="$(crypto "$tlsca")" \
		"$FABRIC_BIN/peer" "$@"
}

# orderer_flags: the first running orderer (so the CLI still works while one is down).
orderer_flags() {
	local o use=${TOPO_ORDERERS[0]}
	for o in "${TOPO_ORDERERS[@]}"; do
		if node_pid "$o" >/dev/null; then
			use=$o
			break
		fi
	done
	echo -o "$(orderer_address "$use")" --tls --cafile "$(crypto "$TOPO_ORDERER_TLSCA")"
}

all_peer_flags() {
	local org
	for org in "${TOPO_ORGS[@]}"; do
		echo --peerAddresses "$(peer_address "$org")" --tlsRootCertFiles "$(crypto "$(org_get ORG_TLSCAS "$org")")"
	done
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
	"$RUN_DIR/tools/fabnet" wait-orderer --topology "$RUN_DIR/topology.json" --crypto "$RUN_DIR/crypto" \
		--home "$RUN_DIR" --wait "${NET_WAIT}s" "$1" || fail_node "$1" "$1 did not rejoin the Raft cluster of $CHANNEL"
}

channel_height() { # ORG
	local out
	out=$(peer_cli "$1" channel getinfo -c "$CHANNEL" 2>/dev/null) || return 1
	out=${out#*\"height\":}
	echo "${out%%,*}"
}

# ---------------------------------------------------------------- commands

# cmd_up: fabnet local-up (network/fabrun, localnet.go) does the work:
# every organisation's identities (its own Fabric CA servers, or
# cryptogen), the genesis block, the orderers, the peers, the chaincode
# services and their definitions, network.json. Here the variables become
# its flags, and the tools it runs are built.
cmd_up() {
	[[ -n ${1:-} ]] && PROFILE=$1
	PROFILE=${PROFILE:-solo-org}
	resolve_run_dir
	local tools args=() entry v org var tags pkgs=(./network/cmd/cfgmerge ./network/cmd/ccaas-builder ./network/cmd/netready ./network/cmd/fabca)
	for entry in ${CHAINCODES//,/ }; do args+=(--chaincode "$entry"); done
	for v in $NET_NODE_ENV; do args+=(--node-env "$v"); done
	[[ ${NET_KEEP_ON_FAILURE:-0} == 1 ]] && args+=(--keep-on-failure)
	[[ ${NET_SET_CURRENT:-1} == 1 ]] && args+=(--current "$RUN/current")
	[[ -n ${BASE_PORT:-} ]] && args+=(--base-port "$BASE_PORT")
	[[ -n ${BATCH_SIZE:-} ]] && args+=(--batch-size "$BATCH_SIZE")
	[[ -n ${BATCH_TIMEOUT:-} ]] && args+=(--batch-timeout "$BATCH_TIMEOUT")
	[[ -n ${BATCH_PREFERRED_BYTES:-} ]] && args+=(--batch-preferred-bytes "$BATCH_PREFERRED_BYTES")
	[[ -n ${BATCH_ABSOLUTE_BYTES:-} ]] && args+=(--batch-absolute-bytes "$BATCH_ABSOLUTE_BYTES")
	# Nodes run in their own directories: the paths are made absolute,
	# relative ones taken from the current directory, else from the repository.
	for v in FABRIC_BIN FABRIC_CFG_SRC FABRIC_CA_BIN; do
		[[ ${!v} == /* || -e ${!v} || ! -e $ROOT/${!v} ]] || printf -v "$v" '%s' "$ROOT/${!v}"
	done
	mkdir -p "$RUN"
	tools=$(mktemp -d "$RUN/.tools.XXXXXX")
	# shellcheck disable=SC2064 # the path now
	trap "rm -rf '$tools'" EXIT # until fabnet takes them over
	if [[ -n ${FABNET:-} ]]; then
		cp "$FABNET" "$tools/fabnet" || die "copying FABNET=$FABNET failed"
	else
		pkgs+=(./network/cmd/fabnet)
	fi
	(cd "$ROOT" && "$GO" build -o "$tools/" "${pkgs[@]}") || die "building network/cmd tools failed"
	# The profile's organisations, for their NET_PEER_ENV_<org>; an
	# unknown profile is refused here, naming the registered ones.
	read_topology TOPO_ "$tools/fabnet" --profile "$PROFILE" || die "PROFILE=$PROFILE: no such topology"
	for org in "${TOPO_ORGS[@]}"; do
		var=$(topo_env_name NET_PEER_ENV_ "$org") || die "PROFILE=$PROFILE: organisation $org's peer settings have no variable"
		for v in ${!var:-}; do args+=(--peer-env "$org=$v"); done
	done
	# CHAINCODE_GO_TAGS (chaincode/chaincode.mk: "gmp" when libgmp links) picks
	# the chaincode's arithmetic backend; unset means probe here the same way.
	tags=${CHAINCODE_GO_TAGS-$("$ROOT/chaincode/gotags.sh" "$GO")}
	# Every FABVOTE_* variable reaches the nodes, and so do those NET_PASS_ENV names.
	for v in $NET_PASS_ENV; do
		[[ $v =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || die "NET_PASS_ENV entry '$v': want a variable name"
		[[ -z ${!v+x} ]] || export "${v?}"
	done
	trap - EXIT
	exec "$tools/fabnet" local-up --remove-tools --tools "$tools" --home "$RUN_DIR" --profile "$PROFILE" \
		--stack "$NET_STACK" --channel-writers "$CHANNEL_WRITERS" --cc-version "$CC_VERSION" \
		--validation-plugin "$FABVOTE_VALIDATION_PLUGIN" --identities "$NET_IDENTITIES" \
		--bin "$FABRIC_BIN" --ca-bin "$FABRIC_CA_BIN" --config-src "$FABRIC_CFG_SRC" --overrides "$NET_DIR/config" \
		--go "$GO" --go-tags "$tags" --root "$ROOT" --log-spec "$NET_LOG_SPEC" --pass-env "$NET_PASS_ENV" \
		--wait "${NET_WAIT}s" --stop-timeout "${NET_STOP_TIMEOUT}s" "${args[@]}"
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
	local org h deadline=$((SECONDS + NET_WAIT))
	if topo_index TOPO_ORDERERS "$1" >/dev/null; then
		wait_orderer_ready "$1"
	elif org=$(topo_get TOPO_ORGS TOPO_PEER_NODES "$1"); then
		until h=$(channel_height "$org") && [[ $h =~ ^[0-9]+$ ]]; do
			((SECONDS < deadline)) || fail_node "$1" "$1 does not answer for channel $CHANNEL within ${NET_WAIT}s"
			node_pid "$1" >/dev/null || fail_node "$1" "$1 exited"
			sleep 0.3
		done
		# and, with other orgs, until every gateway can again gather endorsements
		if ((${#TOPO_ORGS[@]} > 1)) && [[ -s $RUN_DIR/chaincodes.list && -f $RUN_DIR/network.json ]]; then
			"$RUN_DIR/tools/netready" --network "$RUN_DIR/network.json" --timeout "${NET_READY_TIMEOUT:-120s}" ||
				fail_node "$1" "gateways cannot gather endorsements after restarting $1"
		fi
	fi
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
				peer_cli "${TOPO_ORGS[0]}" chaincode invoke $(orderer_flags) -C "$CHANNEL" -n "$1" -c "$2" \
				$(all_peer_flags) --waitForEvent
			;;
		query)
			(($# >= 2)) || die "usage: net.sh query CHAINCODE JSON [ORG]"
			peer_cli "${3:-${TOPO_ORGS[0]}}" chaincode query -C "$CHANNEL" -n "$1" -c "$2"
			;;
		height) channel_height "${1:-${TOPO_ORGS[0]}}" ;;
		env)
			local org=${1:-${TOPO_ORGS[0]}} msp admin address tlsca orderer
			# Assigned first: an unknown org then stops the script.
			msp=$(org_get ORG_MSPIDS "$org")
			admin=$(crypto "$(org_get ORG_ADMIN_MSPS "$org")")
			address=$(peer_address "$org")
			tlsca=$(crypto "$(org_get ORG_TLSCAS "$org")")
			orderer=$(orderer_address "${TOPO_ORDERERS[0]}")
			printf 'export FABRIC_CFG_PATH=%q\n' "$(node_dir "${TOPO_PEER_NODES[0]}")"
			printf 'export CORE_PEER_LOCALMSPID=%q\n' "$msp"
			printf 'export CORE_PEER_MSPCONFIGPATH=%q\n' "$admin"
			printf 'export CORE_PEER_ADDRESS=%q\n' "$address"
			printf 'export CORE_PEER_TLS_ENABLED=true\n'
			printf 'export CORE_PEER_TLS_ROOTCERT_FILE=%q\n' "$tlsca"
			printf 'export ORDERER_ADDRESS=%q ORDERER_CA=%q\n' "$orderer" "$(crypto "$TOPO_ORDERER_TLSCA")"
			;;
		esac
		;;
	*) die "unknown command '$sub' (up, down, status, nodes, kill, stop, start, restart, pid, logs, peer, invoke, query, height, leader, env)" ;;
	esac
}

main "$@"
