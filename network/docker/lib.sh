#!/usr/bin/env bash
# lib.sh — settings and helpers shared by the Docker network's scripts
# (build-images.sh, artifacts.sh, dockernet.sh, test.sh, perms-test.sh).
# Sourced, not run.
#
# Variables (all optional):
#   FABVOTE_DOCKER_DIR   generated material: crypto, configs, genesis block,
#                        chaincode packages, network.json (default run/docker)
#   COMPOSE_PROJECT_NAME compose project, prefixes volumes and containers (fabvote)
#   FABVOTE_PORT_STACK   the port plan's stack of the host ports (docker; docker-test for make docker-test)
#   FABVOTE_PORT_PREFIX  the thousands of every host port, which moves the stack (default:
#                        the stack's own, docker: 17 for 17050, 17150, ...)
#   FABVOTE_IMAGE_TAG    image tag (latest)
#   FABVOTE_UID          uid of the containers' user (10001)
#   DOCKER, COMPOSE      the docker CLI and the compose command (auto)
#   FABRIC_BIN           the host's Fabric tools: configtxgen, cryptogen, peer, osnadmin (bin)
#   FABRIC_CFG_SRC       upstream's core.yaml and orderer.yaml (build/config)

# shellcheck disable=SC2034 # the settings are used by the scripts that source this file
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BIN=${BIN:-$ROOT/bin}
BUILD=${BUILD:-$ROOT/build}
RUN=${RUN:-$ROOT/run}
GO=${GO:-go}
FABRIC_BIN=${FABRIC_BIN:-$BIN}
FABRIC_CFG_SRC=${FABRIC_CFG_SRC:-$BUILD/config}
TOOLS=$BUILD/docker/gobin
DOCKER_SRC=$ROOT/network/docker
COMPOSE_FILE=$ROOT/network/docker-compose.yaml
export FABVOTE_DOCKER_DIR=${FABVOTE_DOCKER_DIR:-$RUN/docker}
export COMPOSE_PROJECT_NAME=${COMPOSE_PROJECT_NAME:-fabvote}
# shellcheck source=scripts/ports.sh
. "$ROOT/scripts/ports.sh"
# shellcheck source=scripts/topology.sh
. "$ROOT/scripts/topology.sh"
# The Docker network's topology (its profile and chaincode are
# network/compose's; network/fabnet makes it): C_* as the containers see
# it (every node by its container name, Fabric's container ports), H_* as
# the host sees it (the ports published on 127.0.0.1: the port plan's
# stack FABVOTE_PORT_STACK, moved by FABVOTE_PORT_PREFIX). Lists are in
# the order of C_ORGS / C_ORDERERS, the same in both.
docker_topology() {
	local stack=${FABVOTE_PORT_STACK:-docker}
	fabnet_tool &&
		read_topology C_ "$FABNET" --docker --containers &&
		read_topology H_ "$FABNET" --docker --stack "$stack" ${FABVOTE_PORT_PREFIX:+--port-prefix "$FABVOTE_PORT_PREFIX"} &&
		plan_ports "$stack" "$H_BASE_PORT" # the services beside the network (Prometheus), at the same base
}
docker_topology || { echo "[docker] ERROR: no topology for the port plan's stack ${FABVOTE_PORT_STACK:-docker} (FABVOTE_PORT_PREFIX=${FABVOTE_PORT_PREFIX:-})" >&2; exit 1; }
export FABVOTE_PORT_PREFIX=$H_PORT_PREFIX
export FABVOTE_IMAGE_TAG=${FABVOTE_IMAGE_TAG:-latest}
export FABVOTE_UID=${FABVOTE_UID:-10001}
DOCKER=${DOCKER:-docker}
CHANNEL=$C_CHANNEL
ORGS=("${C_ORGS[@]}")
ORDERERS=("${C_ORDERERS[@]}")
# shellcheck disable=SC2153 # read_topology set it
ORDERER_MSPID=$C_ORDERER_MSPID
CC_NAME=${C_CHAINCODES[0]}
CC_VERSION=${CC_VERSION:-1.0}
CC_SEQUENCE=${CC_SEQUENCE:-1}
IMAGES=(runtime peer orderer ballot-cc tools)

dlog() { printf '[docker %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
ddie() { printf '[docker] ERROR: %s\n' "$*" >&2; exit 1; }

# org_get VIEW LIST ORG: ORG's item of LIST in the containers' (C) or the
# host's (H) topology, e.g. org_get H PEER_PORTS ea.
org_get() { topo_get "$1_$2" "$1_ORGS" "$3" || ddie "unknown org $3 (orgs: ${ORGS[*]})"; }
# orderer_get VIEW LIST ORDERER: the same for an orderer.
orderer_get() { topo_get "$1_$2" "$1_ORDERERS" "$3" || ddie "unknown orderer $3 (orderers: ${ORDERERS[*]})"; }
org_mspid() { org_get C ORG_MSPIDS "$1"; }
org_domain() { org_get C ORG_DOMAINS "$1"; }
peer_host() { org_get C ORG_HOSTS "$1"; }
cc_host() { org_get C CC_HOSTS_0 "$1"; }
orderer_host() { orderer_get C ORDERER_HOSTS "$1"; }

# Host ports: the port plan's stack (network/portplan), published on
# 127.0.0.1 only.
orderer_host_port() { orderer_get H ORDERER_PORTS "$1"; }
orderer_admin_host_port() { orderer_get H ORDERER_ADMIN_PORTS "$1"; }
orderer_ops_host_port() { orderer_get H ORDERER_OPS_PORTS "$1"; }
peer_host_port() { org_get H PEER_PORTS "$1"; }
peer_ops_host_port() { org_get H PEER_OPS_PORTS "$1"; }
cc_ops_host_port() { org_get H CC_OPS_PORTS_0 "$1"; } # the ballot chaincode service's operations

# compose runs docker compose (v2 plugin) or docker-compose (v1, Debian
# bookworm's package) on network/docker-compose.yaml.
compose() {
	if [[ -z ${COMPOSE:-} ]]; then
		if "$DOCKER" compose version >/dev/null 2>&1; then
			COMPOSE="$DOCKER compose"
		elif command -v docker-compose >/dev/null 2>&1; then
			COMPOSE=docker-compose
		else
			ddie "neither 'docker compose' nor 'docker-compose' found (apt-get install docker-compose)"
		fi
	fi
	# shellcheck disable=SC2086
	$COMPOSE -f "$COMPOSE_FILE" -p "$COMPOSE_PROJECT_NAME" "$@"
}

# tools_exec runs a command in the tools container.
tools_exec() { compose exec -T tools "$@"; }

docker_ready() { "$DOCKER" info >/dev/null 2>&1; }
