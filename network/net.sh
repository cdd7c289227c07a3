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
# The port plan (network/portplan; `fabnet ports list`): NET_STACK names the
# stack the network belongs to (default, e2e, bench, ...), and BASE_PORT, when
# set, moves it; unset, the stack's own base. fabnet local-up refuses a base
# whose ports meet another stack's, and ports something already holds.
NET_STACK=${NET_STACK:-default}
BASE_PORT=${BASE_PORT:-}
BATCH_SIZE=${BATCH_SIZE:-500}
BATCH_TIMEOUT=${BATCH_TIMEOUT:-250ms}
BATCH_PREFERRED_BYTES=${BATCH_PREFERRED_BYTES:-4 MB}
BATCH_ABSOLUTE_BYTES=${BATCH_ABSOLUTE_BYTES:-10 MB}
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
# chaincode services) defaults to EAMSP in fabnet local-up; set it empty to
# lift the restriction.
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

# set_topology defines the orgs and orderers of $PROFILE. The ports below
# are the port plan's (network/portplan), read from the network's BASE_PORT
# in state.env: orderer i at BASE_PORT+10i, peer j at BASE_PORT+100+10j.
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
peer_port() { echo $((BASE_PORT + 100 + 10 * $(org_index "$1"))); }
peer_name() { echo "peer0.$1"; }
crypto_peer_org() { echo "$RUN_DIR/crypto/peerOrganizations/$(org_domain "$1")"; }
crypto_user() { echo "$(crypto_peer_org "$1")/users/$2@$(org_domain "$1")"; }
org_tlsca() { echo "$(crypto_peer_org "$1")/tlsca/tlsca.$(org_domain "$1")-cert.pem"; }
crypto_orderer_org() { echo "$RUN_DIR/crypto/ordererOrganizations/$ORDERER_DOMAIN"; }
orderer_tlsca() { echo "$(crypto_orderer_org)/tlsca/tlsca.$ORDERER_DOMAIN-cert.pem"; }

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
	set_topology
	local tools args=() entry v org var
	for entry in ${CHAINCODES//,/ }; do args+=(--chaincode "$entry"); done
	for v in $NET_NODE_ENV; do args+=(--node-env "$v"); done
	for org in "${ORGS[@]}"; do
		var="NET_PEER_ENV_$org"
		for v in ${!var:-}; do args+=(--peer-env "$org=$v"); done
	done
	[[ ${NET_KEEP_ON_FAILURE:-0} == 1 ]] && args+=(--keep-on-failure)
	[[ ${NET_SET_CURRENT:-1} == 1 ]] && args+=(--current "$RUN/current")
	# Nodes run in their own directories: the paths are made absolute,
	# relative ones taken from the current directory, else from the repository.
	for v in FABRIC_BIN FABRIC_CFG_SRC FABRIC_CA_BIN; do
		[[ ${!v} == /* || -e ${!v} || ! -e $ROOT/${!v} ]] || printf -v "$v" '%s' "$ROOT/${!v}"
	done
	mkdir -p "$RUN"
	tools=$(mktemp -d "$RUN/.tools.XXXXXX")
	# shellcheck disable=SC2064 # the path now
	trap "rm -rf '$tools'" EXIT # until fabnet takes them over
	(cd "$ROOT" && "$GO" build -o "$tools/" ./network/cmd/fabnet ./network/cmd/cfgmerge ./network/cmd/ccaas-builder \
		./network/cmd/netready ./network/cmd/fabca) || die "building network/cmd tools failed"
	# CHAINCODE_GO_TAGS (chaincode/chaincode.mk: "gmp" when libgmp links) picks
	# the chaincode's arithmetic backend; unset means probe here the same way.
	local tags=${CHAINCODE_GO_TAGS-$("$ROOT/chaincode/gotags.sh" "$GO")}
	# Every FABVOTE_* variable reaches the nodes, and so do those NET_PASS_ENV names.
	for v in $NET_PASS_ENV; do
		[[ $v =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || die "NET_PASS_ENV entry '$v': want a variable name"
		[[ -z ${!v+x} ]] || export "${v?}"
	done
	trap - EXIT
	exec "$tools/fabnet" local-up --remove-tools --tools "$tools" --home "$RUN_DIR" --profile "$PROFILE" \
		--stack "$NET_STACK" ${BASE_PORT:+--base-port "$BASE_PORT"} --batch-size "$BATCH_SIZE" --batch-timeout "$BATCH_TIMEOUT" \
		--batch-preferred-bytes "$BATCH_PREFERRED_BYTES" --batch-absolute-bytes "$BATCH_ABSOLUTE_BYTES" \
		--channel-writers "$CHANNEL_WRITERS" --cc-version "$CC_VERSION" --validation-plugin "$FABVOTE_VALIDATION_PLUGIN" --identities "$NET_IDENTITIES" \
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
