#!/usr/bin/env bash
# dockernet.sh — runs the Docker network (network/docker-compose.yaml).
#
#   dockernet.sh up            images if missing, material once, start, wait until
#                              healthy, join the channel, deploy the chaincode, write
#                              network.json, wait until every org's gateway endorses
#   dockernet.sh down          stop and remove the containers; the volumes stay
#   dockernet.sh clean         down, remove the volumes and the generated material
#   dockernet.sh ps | logs [SERVICE...]
#   dockernet.sh restart SERVICE   restart one container and wait until it is ready again
#   dockernet.sh height ORG    ledger height of ORG's peer (ea, party1, party2)
#   dockernet.sh tools CMD...  run a command in the tools container
#   dockernet.sh env ORG       export lines for the host's peer CLI as ORG's admin
#                              against ORG's peer: eval "$(network/docker/dockernet.sh env party1)"
#
# Settings: see lib.sh (FABVOTE_DOCKER_DIR, COMPOSE_PROJECT_NAME, FABVOTE_PORT_PREFIX, ...).
set -euo pipefail
# shellcheck source=network/docker/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

WAIT=${FABVOTE_DOCKER_WAIT:-180}
NODES=()
for o in "${ORDERERS[@]}"; do NODES+=("$(orderer_host "$o")"); done
for org in "${ORGS[@]}"; do NODES+=("$(peer_host "$org")" "$(cc_host "$org")"); done

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
	tools_exec fabvote-channel join
	local v=$CC_VERSION
	[[ -f $FABVOTE_DOCKER_DIR/ccaas/version.env ]] && v=$(sed -n 's/^CC_VERSION=//p' "$FABVOTE_DOCKER_DIR/ccaas/version.env")
	tools_exec fabvote-channel deploy "$v" "$CC_SEQUENCE"
	"$DOCKER_SRC/artifacts.sh" network-json
	dlog "waiting until every org's gateway can gather endorsements (service discovery)"
	"$BUILD/docker/gobin/netready" -network "$FABVOTE_DOCKER_DIR/network.json" -timeout "${NET_READY_TIMEOUT:-120s}" ||
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
	[[ ! -e $FABVOTE_DOCKER_DIR || -f $FABVOTE_DOCKER_DIR/crypto-config.yaml || -z $(ls -A "$FABVOTE_DOCKER_DIR") ]] ||
		ddie "$FABVOTE_DOCKER_DIR is not a Docker network directory; not removing it"
	rm -rf "$FABVOTE_DOCKER_DIR"
	dlog "removed containers, volumes and $FABVOTE_DOCKER_DIR"
}

cmd_restart() {
	local s=${1:?usage: dockernet.sh restart SERVICE}
	compose restart "$s"
	wait_healthy "$s"
	case $s in
	peer0.*)
		local org=${s#peer0.} h deadline=$((SECONDS + WAIT))
		org=${org%%.*}
		until h=$(tools_exec fabvote-channel height "$org" 2>/dev/null) && [[ $h =~ ^[0-9]+$ ]]; do
			((SECONDS < deadline)) || ddie "$s does not answer for channel $CHANNEL after restart"
			sleep 1
		done
		[[ -f $FABVOTE_DOCKER_DIR/network.json ]] &&
			"$BUILD/docker/gobin/netready" -network "$FABVOTE_DOCKER_DIR/network.json" -timeout "${NET_READY_TIMEOUT:-120s}"
		;;
	esac
	dlog "restarted $s"
}

case ${1:-} in
up) cmd_up ;;
down) cmd_down ;;
clean) cmd_clean ;;
ps) compose ps ;;
logs) shift; compose logs --no-color "$@" ;;
restart) cmd_restart "${2:-}" ;;
height) tools_exec fabvote-channel height "${2:?usage: dockernet.sh height ORG}" | tr -d '\r' ;;
tools) shift; tools_exec "$@" ;;
env)
	org=${2:?usage: dockernet.sh env ORG}
	d=$(org_domain "$org")
	c=$FABVOTE_DOCKER_DIR/crypto/peerOrganizations/$d
	oc=$FABVOTE_DOCKER_DIR/crypto/ordererOrganizations/$ORDERER_DOMAIN
	printf 'export FABRIC_CFG_PATH=%q\n' "$FABVOTE_DOCKER_DIR/nodes/$(peer_host "$org")"
	printf 'export CORE_PEER_LOCALMSPID=%q\n' "$(org_mspid "$org")"
	printf 'export CORE_PEER_MSPCONFIGPATH=%q\n' "$c/users/Admin@$d/msp"
	printf 'export CORE_PEER_ADDRESS=%q\n' "127.0.0.1:$(peer_host_port "$org")"
	printf 'export CORE_PEER_TLS_ENABLED=true\n'
	printf 'export CORE_PEER_TLS_ROOTCERT_FILE=%q\n' "$c/tlsca/tlsca.$d-cert.pem"
	printf 'export ORDERER_ADDRESS=%q ORDERER_CA=%q\n' "127.0.0.1:$(orderer_host_port orderer0)" "$oc/tlsca/tlsca.$ORDERER_DOMAIN-cert.pem"
	;;
*) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
