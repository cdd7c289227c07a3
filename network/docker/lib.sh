#!/usr/bin/env bash
# lib.sh — settings and helpers shared by the Docker network's scripts
# (build-images.sh, artifacts.sh, dockernet.sh, test.sh, perms-test.sh).
# Sourced, not run.
#
# Variables (all optional):
#   FABVOTE_DOCKER_DIR   generated material: crypto, configs, genesis block,
#                        chaincode packages, network.json (default run/docker)
#   COMPOSE_PROJECT_NAME compose project, prefixes volumes and containers (fabvote)
#   FABVOTE_PORT_PREFIX  first two digits of every host port (default: the port plan's
#                        stack FABVOTE_PORT_STACK, docker: 17 for 17050, 17150, ...)
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
plan_ports "${FABVOTE_PORT_STACK:-docker}" || { echo "[docker] ERROR: the port plan has no stack ${FABVOTE_PORT_STACK:-docker}" >&2; exit 1; }
export FABVOTE_PORT_PREFIX=${FABVOTE_PORT_PREFIX:-$((PLAN_BASE_PORT / 1000))}
# plan_addr ADDR: an address of the plan's stack, moved with a prefix the user set.
plan_addr() { echo "${1%:*}:$((${1##*:} + (FABVOTE_PORT_PREFIX - PLAN_BASE_PORT / 1000) * 1000))"; }
export FABVOTE_IMAGE_TAG=${FABVOTE_IMAGE_TAG:-latest}
export FABVOTE_UID=${FABVOTE_UID:-10001}
DOCKER=${DOCKER:-docker}
CHANNEL=fabvote
ORGS=(ea party1 party2)
ORDERERS=(orderer0 orderer1 orderer2)
ORDERER_DOMAIN=orderer.fabvote.local
ORDERER_MSPID=OrdererMSP
CC_NAME=ballot
CC_VERSION=${CC_VERSION:-1.0}
CC_SEQUENCE=${CC_SEQUENCE:-1}
IMAGES=(runtime peer orderer ballot-cc tools)

dlog() { printf '[docker %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
ddie() { printf '[docker] ERROR: %s\n' "$*" >&2; exit 1; }

org_mspid() {
	case $1 in
	ea) echo EAMSP ;; party1) echo Party1MSP ;; party2) echo Party2MSP ;;
	*) ddie "unknown org $1" ;;
	esac
}
org_domain() { echo "$1.fabvote.local"; }
org_index() {
	case $1 in ea) echo 0 ;; party1) echo 1 ;; party2) echo 2 ;; *) ddie "unknown org $1" ;; esac
}
peer_host() { echo "peer0.$(org_domain "$1")"; }
cc_host() { echo "$CC_NAME-cc.$(org_domain "$1")"; }
orderer_host() { echo "$1.$ORDERER_DOMAIN"; }

# Host ports: the native network's plan (network/README.md) with base
# <prefix>050; every port is published on 127.0.0.1 only.
host_port() { echo "$FABVOTE_PORT_PREFIX$1"; }
orderer_host_port() { host_port "0$((5 + ${1#orderer}))0"; }          # 17050 17060 17070
orderer_admin_host_port() { host_port "0$((5 + ${1#orderer}))1"; }    # 17051 ...
orderer_ops_host_port() { host_port "0$((5 + ${1#orderer}))2"; }      # 17052 ...
peer_host_port() { host_port "1$((5 + $(org_index "$1")))0"; }        # 17150 17160 17170
peer_ops_host_port() { host_port "1$((5 + $(org_index "$1")))2"; }    # 17152 ...
cc_ops_host_port() { host_port "2$((5 + $(org_index "$1")))0"; }      # 17250 ... (ballot-cc operations)

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
