#!/usr/bin/env bash
# dockernet.sh — runs the Docker network (network/docker-compose.yaml).
#
#   dockernet.sh up            images if missing, material once, start, wait until
#                              healthy, join the channel and deploy the chaincode
#                              (fabnet local-channel, from the host), write
#                              network.json, wait until every org's gateway endorses
#   dockernet.sh down          stop and remove the containers; the volumes stay
#   dockernet.sh clean         down, remove the volumes and the generated material
#   dockernet.sh ps | logs [SERVICE...]
#   dockernet.sh restart SERVICE   restart one container and wait until it is ready again
#   dockernet.sh backup SERVICE FILE   stop SERVICE, copy its data volume into FILE (.tgz), start it again
#   dockernet.sh restore SERVICE FILE  replace SERVICE's data volume with FILE's copy, start it, wait until ready
#   dockernet.sh height ORG    ledger height of ORG's peer (an organisation of the topology)
#   dockernet.sh tools CMD...  run a command in the tools container
#   dockernet.sh env ORG       export lines for the host's peer CLI as ORG's admin
#                              against ORG's peer: eval "$(network/docker/dockernet.sh env ea)"
#
# Settings: see lib.sh (FABVOTE_DOCKER_DIR, COMPOSE_PROJECT_NAME, FABVOTE_PORT_PREFIX, ...).
set -euo pipefail
# shellcheck source=network/docker/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

WAIT=${FABVOTE_DOCKER_WAIT:-180}
NODES=()
for o in "${ORDERERS[@]}"; do NODES+=("$(orderer_host "$o")"); done
for org in "${ORGS[@]}"; do NODES+=("$(peer_host "$org")" "$(cc_host "$org")"); done

# channel STEP FLAGS...: fabnet local-channel on the host, against the
# containers' ports published on 127.0.0.1 (topology.host.json), with the
# material artifacts.sh generated; the steps skip what is done already.
channel() {
	local step=$1
	shift
	[[ -x $TOOLS/fabnet ]] || ddie "$TOOLS/fabnet not found: run 'make docker-up' (artifacts.sh builds it)"
	"$TOOLS/fabnet" local-channel "$step" --topology "$FABVOTE_DOCKER_DIR/topology.host.json" --home "$FABVOTE_DOCKER_DIR" \
		--bin "$FABRIC_BIN" --config-src "$FABRIC_CFG_SRC" --wait "${WAIT}s" "$@"
}

health() { # SERVICE: healthy, starting, unhealthy, or missing
	local id
	id=$(compose ps -q "$1" 2>/dev/null) || true
	[[ -n $id ]] || { echo missing; return; }
	"$DOCKER" inspect --format '{{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}' "$id" 2>/dev/null || echo missing
}

wait_healthy() { # SERVICE...
	local s st deadline=$((SECONDS + WAIT))
	for s in "$@"; do
		while st=$(health "$s") && [[ $st != healthy ]]; do
			((SECONDS < deadline)) || { compose logs --tail=50 "$s" >&2 || true; ddie "$s is $st after ${WAIT}s"; }
			sleep 1
		done
	done
}

cmd_up() {
	docker_ready || ddie "no Docker engine answers ('$DOCKER info'): start dockerd"
	local img missing=0
	for img in "${IMAGES[@]}"; do
		"$DOCKER" image inspect "fabvote/$img:$FABVOTE_IMAGE_TAG" >/dev/null 2>&1 || missing=1
	done
	((missing == 0)) || "$DOCKER_SRC/build-images.sh"
	"$DOCKER_SRC/artifacts.sh" generate
	dlog "starting the containers (project $COMPOSE_PROJECT_NAME, host ports ${FABVOTE_PORT_PREFIX}050...)"
	compose up -d --no-build
	wait_healthy "${NODES[@]}"
	dlog "all nodes healthy"
	channel join || ddie "joining the orderers and peers to channel $CHANNEL failed"
	local v=$CC_VERSION
	[[ -f $FABVOTE_DOCKER_DIR/ccaas/version.env ]] && v=$(sed -n 's/^CC_VERSION=//p' "$FABVOTE_DOCKER_DIR/ccaas/version.env")
	channel deploy --packages "$FABVOTE_DOCKER_DIR/packages" --chaincode "$CC_NAME" --version "$v" --sequence "$CC_SEQUENCE" ||
		ddie "deploying $CC_NAME $v (sequence $CC_SEQUENCE) failed"
	"$DOCKER_SRC/artifacts.sh" network-json
	dlog "waiting until every org's gateway can gather endorsements (service discovery)"
	"$TOOLS/netready" --network "$FABVOTE_DOCKER_DIR/network.json" --timeout "${NET_READY_TIMEOUT:-120s}" ||
		ddie "the gateways are not ready"
	# Caliper's network configuration for this instance (absolute paths into
	# this material): caliper-bench/run.sh with CALIPER_NETWORK makes its own,
	# this one is for running `caliper launch manager` by hand.
	if command -v node >/dev/null && [[ -f $ROOT/caliper-bench/scripts/network-config.js ]]; then
		node "$ROOT/caliper-bench/scripts/network-config.js" "$FABVOTE_DOCKER_DIR/network.json" "$FABVOTE_DOCKER_DIR/caliper" >/dev/null ||
			ddie "caliper-bench/scripts/network-config.js failed on $FABVOTE_DOCKER_DIR/network.json"
		dlog "Caliper network configuration: $FABVOTE_DOCKER_DIR/caliper/caliper-network.yaml"
	fi
	dlog "network up: host-side description $FABVOTE_DOCKER_DIR/network.json"
}

cmd_down() {
	docker_ready || ddie "no Docker engine answers ('$DOCKER info')"
	if [[ -f $FABVOTE_DOCKER_DIR/artifacts.env ]]; then
		compose down --remove-orphans
	else
		dlog "no material in $FABVOTE_DOCKER_DIR; nothing to stop"
	fi
	rm -f "$FABVOTE_DOCKER_DIR/network.json"
}

cmd_clean() {
	docker_ready || ddie "no Docker engine answers ('$DOCKER info')"
	if [[ -f $FABVOTE_DOCKER_DIR/artifacts.env ]]; then
		compose down --volumes --remove-orphans
	fi
	# Named volumes of a project whose material is already gone.
	local v
	for v in $("$DOCKER" volume ls -q --filter "label=com.docker.compose.project=$COMPOSE_PROJECT_NAME"); do
		"$DOCKER" volume rm "$v" >/dev/null
	done
	[[ ! -e $FABVOTE_DOCKER_DIR || -f $FABVOTE_DOCKER_DIR/topology.json || -z $(ls -A "$FABVOTE_DOCKER_DIR") ]] ||
		ddie "$FABVOTE_DOCKER_DIR is not a Docker network directory; not removing it"
	rm -rf "$FABVOTE_DOCKER_DIR"
	dlog "removed containers, volumes and $FABVOTE_DOCKER_DIR"
}

cmd_restart() {
	local s=${1:?usage: dockernet.sh restart SERVICE}
	compose restart "$s"
	wait_ready "$s"
	dlog "restarted $s"
}

# wait_ready SERVICE: healthy, and for a peer, answering on the channel and
# through every org's gateway.
wait_ready() {
	local s=$1 org h deadline=$((SECONDS + WAIT))
	wait_healthy "$s"
	org=$(peer_org "$s") || return 0
	until h=$(channel height --org "$org" 2>/dev/null) && [[ $h =~ ^[0-9]+$ ]]; do
		((SECONDS < deadline)) || ddie "$s does not answer for channel $CHANNEL within ${WAIT}s"
		sleep 1
	done
	if [[ -f $FABVOTE_DOCKER_DIR/network.json ]]; then
		"$TOOLS/netready" --network "$FABVOTE_DOCKER_DIR/network.json" --timeout "${NET_READY_TIMEOUT:-120s}"
	fi
}

# peer_org SERVICE: the organisation whose peer SERVICE is (the topology's
# peer hosts); status 1 for any other service.
peer_org() {
	local i
	i=$(topo_index C_ORG_HOSTS "$1") || return 1
	echo "${C_ORGS[$i]}"
}

# data_volume SERVICE: the named volume mounted at the node's data directory
# (of its container, running or not).
data_volume() {
	local cid vol
	cid=$(compose ps -a -q "$1")
	[[ -n $cid ]] || ddie "no container for service $1"
	vol=$("$DOCKER" inspect --format '{{range .Mounts}}{{if eq .Destination "/var/hyperledger/data"}}{{.Name}}{{end}}{{end}}' "$cid")
	[[ -n $vol ]] || ddie "$1 has no volume at /var/hyperledger/data"
	echo "$vol"
}

# in_volume VOLUME DIR SCRIPT [ARG...]: run SCRIPT (sh, with ARGs as $1...)
# as root in the runtime image with VOLUME at /data and DIR at /backup. File
# names travel as arguments, never inside the script text.
in_volume() {
	"$DOCKER" run --rm --user 0 -v "$1:/data" -v "$2:/backup" "fabvote/runtime:$FABVOTE_IMAGE_TAG" sh -c "$3" sh "${@:4}"
}

# peer_service SERVICE: backups and restores are for peers. An orderer that
# lost its data rejoins from the other orderers; restoring an old copy of its
# Raft log would roll back votes the others rely on.
peer_service() {
	peer_org "$1" >/dev/null || ddie "$1: backup and restore are for peers only (an orderer rejoins the Raft cluster from the others; docs/OPERATORS.md 6)"
}

# pack_volume VOLUME DIR BASE: the volume as DIR/BASE (.tgz), through a
# temporary name, never over an existing file; checks the file is then on
# this host (a Docker daemon that sees another filesystem would write it
# elsewhere).
pack_volume() {
	in_volume "$1" "$2" 'tar -C /data -czf "/backup/$1.tmp" . && mv -n "/backup/$1.tmp" "/backup/$1" && [ ! -e "/backup/$1.tmp" ]' "$3" ||
		{ rm -f "$2/$3.tmp"; return 1; }
	[[ -s $2/$3 ]] || { echo "$2/$3 is not on this host after the copy: does the Docker daemon see this directory?" >&2; return 1; }
}

# A cold copy: the node is stopped while its volume is read, so the copy is a
# state the node itself could have left after a crash, which it recovers from.
cmd_backup() {
	local s=${1:?usage: dockernet.sh backup SERVICE FILE} file=${2:?usage: dockernet.sh backup SERVICE FILE}
	peer_service "$s"
	[[ ! -e $file ]] || ddie "$file exists; a backup never overwrites a file"
	local vol dir base
	vol=$(data_volume "$s")
	dir=$(cd "$(dirname "$file")" && pwd) || ddie "no directory $(dirname "$file")"
	base=$(basename "$file")
	compose stop "$s"
	pack_volume "$vol" "$dir" "$base" || { compose start "$s"; ddie "copying $vol to $file failed; $s restarted"; }
	compose start "$s"
	wait_ready "$s"
	dlog "backed up $s ($vol) to $file"
}

# cmd_restore keeps the node's current data as a .tgz beside FILE, recreates
# the volume empty and unpacks the copy into it, owned by the containers'
# user; the node then fetches the blocks it lacks.
cmd_restore() {
	local s=${1:?usage: dockernet.sh restore SERVICE FILE} file=${2:?usage: dockernet.sh restore SERVICE FILE}
	peer_service "$s"
	[[ -f $file ]] || ddie "no backup file $file"
	local vol dir base kept
	vol=$(data_volume "$s")
	dir=$(cd "$(dirname "$file")" && pwd) || ddie "no directory $(dirname "$file")"
	base=$(basename "$file")
	in_volume "$vol" "$dir" 'tar -tzf "/backup/$1" >/dev/null' "$base" || ddie "$file is not a readable .tgz; $s left as it is"
	kept=$base.replaced-$(date -u +%Y%m%dT%H%M%SZ).tgz
	compose stop "$s"
	pack_volume "$vol" "$dir" "$kept" || { compose start "$s"; ddie "keeping $s's current data as $dir/$kept failed; $s left as it is"; }
	dlog "$s's data before the restore is kept in $dir/$kept"
	compose rm -f "$s"
	"$DOCKER" volume rm "$vol" >/dev/null
	compose up --no-start --no-build --no-deps "$s"
	in_volume "$vol" "$dir" 'tar -C /data -xzf "/backup/$1" && chown -R "$2:$2" /data' "$base" "$FABVOTE_UID" ||
		ddie "unpacking $file into $vol failed; $s's data before the restore is in $dir/$kept"
	compose start "$s"
	wait_ready "$s"
	dlog "restored $s ($vol) from $file"
}

case ${1:-} in
up) cmd_up ;;
down) cmd_down ;;
clean) cmd_clean ;;
ps) compose ps ;;
logs) shift; compose logs --no-color "$@" ;;
restart) cmd_restart "${2:-}" ;;
backup) cmd_backup "${2:-}" "${3:-}" ;;
restore) cmd_restore "${2:-}" "${3:-}" ;;
height) channel height --org "${2:?usage: dockernet.sh height ORG}" ;;
tools) shift; tools_exec "$@" ;;
env)
	org=${2:?usage: dockernet.sh env ORG}
	c=$FABVOTE_DOCKER_DIR/crypto
	# Assigned first: an unknown org then stops the script. The host's
	# view (H_*): the ports published on its loopback.
	node=$(peer_host "$org")
	msp=$(org_mspid "$org") admin=$(org_get H ORG_ADMIN_MSPS "$org") tlsca=$(org_get H ORG_TLSCAS "$org")
	peer=$(org_get H ORG_HOSTS "$org"):$(peer_host_port "$org")
	orderer=${H_ORDERER_HOSTS[0]}:$(orderer_host_port "${ORDERERS[0]}")
	printf 'export FABRIC_CFG_PATH=%q\n' "$FABVOTE_DOCKER_DIR/nodes/$node"
	printf 'export CORE_PEER_LOCALMSPID=%q\n' "$msp"
	printf 'export CORE_PEER_MSPCONFIGPATH=%q\n' "$c/$admin"
	printf 'export CORE_PEER_ADDRESS=%q\n' "$peer"
	printf 'export CORE_PEER_TLS_ENABLED=true\n'
	printf 'export CORE_PEER_TLS_ROOTCERT_FILE=%q\n' "$c/$tlsca"
	printf 'export ORDERER_ADDRESS=%q ORDERER_CA=%q\n' "$orderer" "$c/$H_ORDERER_TLSCA"
	;;
*) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
