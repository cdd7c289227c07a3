#!/usr/bin/env bash
# artifacts.sh — the Docker network's generated material, with the same tools
# as the native network (network/net.sh): network/cmd/fabnet for the typed
# topology and every file generated from it (cryptogen's configuration,
# configtx.yaml, network.json) and every organisation's identities from
# its own Fabric CA servers (or cryptogen, DOCKER_IDENTITIES=cryptogen),
# configtxgen for the channel genesis block, network/cmd/cfgmerge for each
# node's configuration (upstream sampleconfig + network/config/*.yaml +
# network/docker/config/*.yaml), fabnet package for the chaincode packages.
#
#   artifacts.sh [generate]     make $FABVOTE_DOCKER_DIR (default run/docker) once;
#                               refuses to overwrite material a network may use
#   artifacts.sh package V      chaincode packages with label ballot_V (an upgrade)
#   artifacts.sh network-json   write network.json (host side) and network.container.json
#
# Layout of $FABVOTE_DOCKER_DIR (mounted read-only into the containers):
#   topology.json, topology.host.json  the network as the containers and as the host see it
#   crypto/                            each organisation's MSPs, TLS pairs, users and (CA
#                                      identities) its CA servers' homes, in cryptogen's layout
#   configtx/configtx.yaml, fabvote.block
#   nodes/<host>/core.yaml|orderer.yaml  merged configuration of each node
#   packages/ballot.<org>.tgz          CCAAS packages; ccaas/ballot.<org>.env: CHAINCODE_ID
#   network.json                       for host-side clients (127.0.0.1:<host port>)
#   network.container.json             for clients inside the tools container
set -euo pipefail
# Nothing generated here is for other users: keys above all, and the rest
# names them. Files are made 0600 and directories 0700 from the start.
umask 077
# shellcheck source=network/docker/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

D=$FABVOTE_DOCKER_DIR
# BATCH_SIZE, BATCH_TIMEOUT, BATCH_PREFERRED_BYTES, BATCH_ABSOLUTE_BYTES: the
# channel's block cutting, when set; unset, the topology's (network/fabnet).
DOCKER_IDENTITIES=${DOCKER_IDENTITIES:-ca}
FABRIC_CA_BIN=${FABRIC_CA_BIN:-$BIN}


build_tools() {
	mkdir -p "$TOOLS"
	(cd "$ROOT" && "$GO" build -o "$TOOLS/" ./network/cmd/cfgmerge ./network/cmd/ccaas-builder ./network/cmd/netready ./network/cmd/fabnet) ||
		ddie "go build of network/cmd tools failed"
}

# gen_topologies writes the Docker network's typed topology twice
# (network/fabnet): as the containers see it (every node by its container
# name, Fabric's container ports) and as the host sees it (the published
# ports on 127.0.0.1, the port plan's stack from H_BASE_PORT), of the
# Docker network's profile (lib.sh). Every generated file below comes from
# one of them.
gen_topologies() {
	local batch=()
	[[ -n ${BATCH_SIZE:-} ]] && batch+=(--batch-size "$BATCH_SIZE")
	[[ -n ${BATCH_TIMEOUT:-} ]] && batch+=(--batch-timeout "$BATCH_TIMEOUT")
	[[ -n ${BATCH_PREFERRED_BYTES:-} ]] && batch+=(--batch-preferred-bytes "$BATCH_PREFERRED_BYTES")
	[[ -n ${BATCH_ABSOLUTE_BYTES:-} ]] && batch+=(--batch-absolute-bytes "$BATCH_ABSOLUTE_BYTES")
	"$TOOLS/fabnet" topology --profile "$C_PROFILE" --containers --chaincode "$CC_NAME:ballot" "${batch[@]}" \
		--out "$D/topology.json" || ddie "fabnet topology (containers) failed"
	"$TOOLS/fabnet" topology --profile "$H_PROFILE" --base-port "$H_BASE_PORT" --chaincode "$CC_NAME:ballot" "${batch[@]}" \
		--out "$D/topology.host.json" || ddie "fabnet topology (host side) failed"
}

# gen_crypto: every organisation's identities by DOCKER_IDENTITIES. ca (the
# default): each organisation's own Fabric CA servers (MSP and TLS CA) run on
# this host's loopback for the enrollment, at the host stack's CA ports
# from its first organisation's, and stop after it; their homes stay in the organisation's
# crypto directory (fabnet local-identities). cryptogen: the quick option.
gen_crypto() {
	case $DOCKER_IDENTITIES in
	ca)
		"$TOOLS/fabnet" local-identities --topology "$D/topology.json" --home "$D" --service-node "$CC_NAME-cc" \
			--ca-base-port "${H_ORG_CA_PORTS[0]}" --ca-bin "$FABRIC_CA_BIN" || ddie "enrolling the organisations' identities failed"
		;;
	cryptogen)
		"$TOOLS/fabnet" cryptogen-config --topology "$D/topology.json" --service-host "$CC_NAME-cc" \
			--out "$D/crypto-config.yaml" || ddie "fabnet cryptogen-config failed"
		"$FABRIC_BIN/cryptogen" generate --config="$D/crypto-config.yaml" --output="$D/crypto" >/dev/null ||
			ddie "cryptogen failed"
		;;
	*) ddie "DOCKER_IDENTITIES=$DOCKER_IDENTITIES: want ca or cryptogen" ;;
	esac
}

# gen_configtx: the same renderer as the native and multi-host networks,
# with the containers' names and ports.
gen_configtx() {
	mkdir -p "$D/configtx"
	"$TOOLS/fabnet" configtx --topology "$D/topology.json" --crypto "$D/crypto" --out "$D/configtx/configtx.yaml" ||
		ddie "fabnet configtx failed"
	"$FABRIC_BIN/configtxgen" -configPath "$D/configtx" -profile FabvoteChannel -channelID "$CHANNEL" \
		-outputBlock "$D/configtx/$CHANNEL.block" 2>"$D/configtx/configtxgen.log" ||
		{ cat "$D/configtx/configtxgen.log" >&2; ddie "configtxgen failed"; }
}

# merge KIND NODE-HOST: upstream + network/config/KIND.yaml + network/docker/config/KIND.yaml.
# The NODE_* values are the container's paths (docker-compose.yaml mounts there).
merge() {
	local kind=$1 host=$2 out=$D/nodes/$2 cc admin ops
	mkdir -p "$out"
	# Assigned first: a failing lookup then stops the script, not a subshell.
	cc=$(container_port '.orgs[0].peer.chaincodePort')
	admin=$(container_port '.ordererOrg.orderers[0].adminPort')
	ops=$(container_port '.orgs[0].peer.opsPort')
	NODE_NAME=$host NODE_HOME=/var/hyperledger NODE_MSP_DIR=/etc/fabvote/msp NODE_TLS_DIR=/etc/fabvote/tls NODE_HOST=127.0.0.1 NODE_LISTEN_HOST=127.0.0.1 \
		NODE_CC_PORT=$cc NODE_ADMIN_PORT=$admin NODE_OPS_PORT=$ops FABVOTE_CCAAS_BUILDER=/opt/fabvote/builder \
		"$TOOLS/cfgmerge" --base "$FABRIC_CFG_SRC/$kind.yaml" --override "$ROOT/network/config/$kind.yaml" \
		--out "$out/$kind.native.yaml" || ddie "cfgmerge of network/config/$kind.yaml for $host failed"
	NODE_NAME=$host "$TOOLS/cfgmerge" --base "$out/$kind.native.yaml" --override "$DOCKER_SRC/config/$kind.yaml" \
		--out "$out/$kind.yaml" || ddie "cfgmerge of network/docker/config/$kind.yaml for $host failed"
	rm -f "$out/$kind.native.yaml"
}

# container_port JQ-PATH: a port inside the containers, from the containers'
# topology (fabnet topology --containers; network/portplan owns the numbers).
container_port() {
	local p
	p=$(jq -er "$1" "$D/topology.json") && [[ $p =~ ^[0-9]+$ ]] || ddie "no port at $1 in $D/topology.json"
	echo "$p"
}

gen_configs() {
	local o org orderer_port peer_port
	orderer_port=$(container_port '.ordererOrg.orderers[0].port')
	peer_port=$(container_port '.orgs[0].peer.port')
	for o in "${ORDERERS[@]}"; do
		NODE_PORT=$orderer_port NODE_MSPID=$ORDERER_MSPID merge orderer "$(orderer_host "$o")"
	done
	for org in "${ORGS[@]}"; do
		NODE_PORT=$peer_port NODE_MSPID=$(org_mspid "$org") merge core "$(peer_host "$org")"
	done
}

# gen_packages VERSION: one CCAAS package per org; its connection.json points
# the org's peer at the org's chaincode service (mutual TLS: the org's TLS CA
# issued the service's certificate, and the peer presents its own TLS pair).
gen_packages() {
	local version=$1 org pkg id peer_tls label=${CC_NAME}_$1 cc_port
	mkdir -p "$D/packages" "$D/ccaas"
	cc_port=$(container_port '.orgs[0].peer.services[0].port')
	for org in "${ORGS[@]}"; do
		peer_tls=$D/crypto/$(org_get C PEER_TLS "$org")
		pkg=$D/packages/$CC_NAME.$org.tgz
		"$TOOLS/fabnet" package --label "$label" --address "$(cc_host "$org"):$cc_port" --builder "$TOOLS/ccaas-builder" \
			--ca-cert "$peer_tls/ca.crt" --tls-cert "$peer_tls/server.crt" --tls-key "$peer_tls/server.key" \
			--out "$pkg" || ddie "the chaincode package for $org failed"
		# Fabric's package id: label ":" hex SHA-256 of the package file.
		id=$label:$(sha256sum "$pkg" | cut -d' ' -f1)
		printf 'CHAINCODE_ID=%s\n' "$id" >"$D/ccaas/$CC_NAME.$org.env.tmp"
		mv -f "$D/ccaas/$CC_NAME.$org.env.tmp" "$D/ccaas/$CC_NAME.$org.env"
		dlog "package $pkg: $id"
	done
	printf 'CC_VERSION=%s\n' "$version" >"$D/ccaas/version.env"
}

# own: the containers run as FABVOTE_UID and must read their keys; nobody
# else may. As root the tree is handed to that uid (u=rwX, go=). Otherwise
# the caller keeps it and a POSIX ACL lets FABVOTE_UID read it (setfacl,
# Debian package acl); without ACLs the material cannot be both private and
# readable by the containers, so this refuses rather than open it to all.
# The organisations' CA servers' homes (crypto/*/*/fabric-ca: the CAs' keys,
# databases and registrar secrets) are for no container: they stay the
# caller's alone.
own() {
	chmod -R u=rwX,go= "$D"
	local ca=()
	mapfile -t ca < <(find "$D/crypto" -mindepth 3 -maxdepth 3 -type d -name fabric-ca)
	if ((EUID == 0)); then
		chown -R "$FABVOTE_UID:$FABVOTE_UID" "$D"
		((${#ca[@]} == 0)) || chown -R 0:0 "${ca[@]}"
	elif command -v setfacl >/dev/null 2>&1; then
		setfacl -R -m "u:$FABVOTE_UID:rX" "$D" ||
			ddie "setfacl on $D failed (does its file system support ACLs?); run as root to chown instead"
		((${#ca[@]} == 0)) || setfacl -R -b "${ca[@]}"
	else
		ddie "not root and no setfacl: cannot let the containers' uid $FABVOTE_UID read $D without making it world-readable; run as root or install acl"
	fi
}

# write_container_json: the network description for clients inside the
# tools container (every node by its container name, files under /etc/fabvote).
write_container_json() {
	"$TOOLS/fabnet" local-connection --topology "$D/topology.json" --crypto /etc/fabvote/crypto --home /etc/fabvote \
		--profile docker --base-port "$H_BASE_PORT" --out "$D/network.container.json" ||
		ddie "fabnet local-connection (containers) failed"
}

# write_host_json: the network description for clients on the host: the
# published ports on 127.0.0.1, with serverNameOverride; the chaincode
# services' gRPC ports are not published.
write_host_json() {
	"$TOOLS/fabnet" local-connection --topology "$D/topology.host.json" --crypto "$D/crypto" --home "$D" \
		--profile docker --base-port "$H_BASE_PORT" --services-unpublished --out "$D/network.json" ||
		ddie "fabnet local-connection (host side) failed"
}

cmd_generate() {
	build_tools # dockernet.sh runs them on kept material too
	if [[ -f $D/artifacts.env ]]; then
		dlog "artifacts already in $D (make docker-clean to start over with new identities)"
		return 0
	fi
	local tool tools=("$FABRIC_BIN/configtxgen")
	case $DOCKER_IDENTITIES in
	ca) tools+=("$FABRIC_CA_BIN/fabric-ca-server" "$FABRIC_CA_BIN/fabric-ca-client") ;;
	*) tools+=("$FABRIC_BIN/cryptogen") ;;
	esac
	for tool in "${tools[@]}"; do
		[[ -x $tool ]] || ddie "$tool not found: run 'make fabric fabric-ca'"
	done
	for tool in core.yaml orderer.yaml; do
		[[ -f $FABRIC_CFG_SRC/$tool ]] || ddie "$FABRIC_CFG_SRC/$tool not found: run 'make fabric'"
	done
	[[ ! -e $D || -z $(ls -A "$D" 2>/dev/null) || -f $D/topology.json ]] ||
		ddie "$D exists and is not a Docker network directory; set FABVOTE_DOCKER_DIR"
	rm -rf "$D"
	mkdir -p "$D"
	dlog "generating the Docker network's material in $D"
	gen_topologies
	gen_crypto
	gen_configtx
	gen_configs
	gen_packages "$CC_VERSION"
	write_container_json
	printf 'GENERATED=%s\nPORT_PREFIX=%s\n' "$(date -u +%FT%TZ)" "$FABVOTE_PORT_PREFIX" >"$D/artifacts.env"
	own
	dlog "done: crypto, genesis block of channel $CHANNEL, node configs, chaincode packages"
}

case ${1:-generate} in
generate) cmd_generate ;;
package)
	[[ -n ${2:-} ]] || ddie "usage: artifacts.sh package VERSION"
	build_tools
	gen_packages "$2"
	own
	;;
network-json)
	build_tools
	write_host_json
	own
	dlog "wrote $D/network.json"
	;;
*) ddie "usage: artifacts.sh [generate|package VERSION|network-json]" ;;
esac
