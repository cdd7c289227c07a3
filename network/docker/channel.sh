#!/bin/bash
# fabvote-channel — runs inside the fabvote/tools container (network/docker/
# channel.sh in the repository): creates the channel and deploys the ballot
# chaincode on the Docker network, with the material that artifacts.sh
# generated and docker-compose.yaml mounts at /etc/fabvote. Every step is
# idempotent, so `make docker-up` on a network with kept volumes skips what is
# already done.
#
#   fabvote-channel join                 orderers join via the channel participation API
#                                        (osnadmin), peers via `peer channel join`
#   fabvote-channel deploy [VERSION SEQ] chaincode lifecycle: install, approve (every
#                                        org), commit (MAJORITY), wait until committed
#   fabvote-channel height ORG           ledger height of ORG's peer (ea, party1, party2)
#   fabvote-channel peer ORG ARGS...     the peer CLI as ORG's admin against ORG's peer
#   fabvote-channel osnadmin ORDERER ARGS...  osnadmin against ORDERER's admin endpoint
set -euo pipefail

CFG=${FABVOTE_CFG:-/etc/fabvote}
CHANNEL=fabvote
ORGS=(ea party1 party2)
ORDERERS=(orderer0 orderer1 orderer2)
OD=orderer.fabvote.local
CC=ballot
WAIT=${FABVOTE_WAIT:-120}

log() { printf '[channel %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { printf '[channel] ERROR: %s\n' "$*" >&2; exit 1; }
mspid() { case $1 in ea) echo EAMSP ;; party1) echo Party1MSP ;; party2) echo Party2MSP ;; *) die "unknown org '$1' (ea, party1, party2)" ;; esac; }
dom() { mspid "$1" >/dev/null && echo "$1.fabvote.local"; }
tlsca() { echo "$CFG/crypto/peerOrganizations/$(dom "$1")/tlsca/tlsca.$(dom "$1")-cert.pem"; }
ord_tlsca() { echo "$CFG/crypto/ordererOrganizations/$OD/tlsca/tlsca.$OD-cert.pem"; }
ord_admin() { echo "$CFG/crypto/ordererOrganizations/$OD/users/Admin@$OD/tls"; }

peer_as() { # ORG ARGS...: the peer CLI as ORG's admin against ORG's peer
	local org=$1 d
	shift
	d=$(dom "$org")
	CORE_PEER_LOCALMSPID=$(mspid "$org") \
		CORE_PEER_MSPCONFIGPATH=$CFG/crypto/peerOrganizations/$d/users/Admin@$d/msp \
		CORE_PEER_ADDRESS=peer0.$d:7051 CORE_PEER_TLS_ENABLED=true \
		CORE_PEER_TLS_ROOTCERT_FILE=$(tlsca "$org") FABRIC_LOGGING_SPEC=${CLI_LOG_SPEC:-warning} \
		peer "$@"
}

osn() { # ORDERER ARGS...
	local o=$1 a
	shift
	a=$(ord_admin)
	osnadmin "$@" -o "$o.$OD:7053" --ca-file "$(ord_tlsca)" --client-cert "$a/client.crt" --client-key "$a/client.key"
}

# retry N CMD...: up to N tries, 2 s apart (a node may still be starting or electing).
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

orderer_flags() { echo -o "orderer0.$OD:7050" --tls --cafile "$(ord_tlsca)"; }

height() {
	local out
	out=$(peer_as "$1" channel getinfo -c "$CHANNEL" 2>/dev/null) || return 1
	out=${out#*\"height\":}
	echo "${out%%,*}"
}

cmd_join() {
	local o org out deadline h
	for o in "${ORDERERS[@]}"; do
		if osn "$o" channel list --channelID "$CHANNEL" 2>/dev/null | grep -q '"name": "'"$CHANNEL"'"'; then
			log "$o: already a member of $CHANNEL"
			continue
		fi
		log "$o: joining $CHANNEL (channel participation API)"
		retry 10 osn "$o" channel join --channelID "$CHANNEL" --config-block "$CFG/configtx/$CHANNEL.block" >/dev/null ||
			die "osnadmin channel join failed on $o"
	done
	for o in "${ORDERERS[@]}"; do
		deadline=$((SECONDS + WAIT))
		until out=$(osn "$o" channel list --channelID "$CHANNEL" 2>&1) && [[ $out == *'"status": "active"'* ]]; do
			((SECONDS < deadline)) || die "$o did not become active on $CHANNEL: $out"
			sleep 1
		done
	done
	for org in "${ORGS[@]}"; do
		if peer_as "$org" channel list 2>/dev/null | grep -qx "$CHANNEL"; then
			log "peer0.$(dom "$org"): already joined"
			continue
		fi
		log "peer0.$(dom "$org"): joining $CHANNEL"
		retry 10 peer_as "$org" channel join -b "$CFG/configtx/$CHANNEL.block" >/dev/null ||
			die "peer channel join failed on peer0.$(dom "$org")"
	done
	for org in "${ORGS[@]}"; do
		deadline=$((SECONDS + WAIT))
		until h=$(height "$org") && [[ $h =~ ^[0-9]+$ ]] && ((h >= 1)); do
			((SECONDS < deadline)) || die "peer0.$(dom "$org") has no ledger for $CHANNEL"
			sleep 1
		done
	done
	log "channel $CHANNEL: 3 orderers and 3 peers joined"
}

# committed_sequence: the sequence of the committed definition, 0 if none.
committed_sequence() {
	local out
	out=$(peer_as ea lifecycle chaincode querycommitted --channelID "$CHANNEL" --name "$CC" 2>/dev/null) || { echo 0; return; }
	out=${out#*Sequence: }
	echo "${out%%,*}"
}

cmd_deploy() {
	local version=${1:-1.0} seq=${2:-1} org pkg id have
	have=$(committed_sequence)
	if ((have >= seq)); then
		log "chaincode $CC: sequence $have already committed (wanted $seq); nothing to do"
		return 0
	fi
	declare -A ids
	for org in "${ORGS[@]}"; do
		pkg=$CFG/packages/$CC.$org.tgz
		[[ -f $pkg ]] || die "$pkg missing: run 'make docker-artifacts'"
		id=$(peer_as "$org" lifecycle chaincode calculatepackageid "$pkg") || die "calculatepackageid $pkg failed"
		ids[$org]=$id
		if peer_as "$org" lifecycle chaincode queryinstalled 2>/dev/null | grep -qF "Package ID: $id,"; then
			log "peer0.$(dom "$org"): $id already installed"
		else
			log "peer0.$(dom "$org"): installing $id"
			retry 5 peer_as "$org" lifecycle chaincode install "$pkg" >/dev/null || die "install on peer0.$(dom "$org") failed"
		fi
	done
	local common=(--channelID "$CHANNEL" --name "$CC" --version "$version" --sequence "$seq")
	for org in "${ORGS[@]}"; do
		if peer_as ea lifecycle chaincode checkcommitreadiness "${common[@]}" --output json 2>/dev/null |
			grep -q "\"$(mspid "$org")\": true"; then
			log "$(mspid "$org"): already approved"
			continue
		fi
		log "$(mspid "$org"): approveformyorg $CC $version sequence $seq"
		# shellcheck disable=SC2046
		retry 10 peer_as "$org" lifecycle chaincode approveformyorg $(orderer_flags) "${common[@]}" \
			--package-id "${ids[$org]}" >/dev/null || die "approveformyorg by $(mspid "$org") failed"
	done
	local deadline=$((SECONDS + WAIT)) ready
	until ready=$(peer_as ea lifecycle chaincode checkcommitreadiness "${common[@]}" --output json 2>/dev/null) &&
		[[ $ready != *false* ]]; do
		((SECONDS < deadline)) || die "chaincode $CC not approved by every org: $ready"
		sleep 1
	done
	local peers=() 
	for org in "${ORGS[@]}"; do peers+=(--peerAddresses "peer0.$(dom "$org"):7051" --tlsRootCertFiles "$(tlsca "$org")"); done
	log "committing $CC $version sequence $seq (endorsed by every org; policy MAJORITY Endorsement)"
	# shellcheck disable=SC2046
	retry 10 peer_as ea lifecycle chaincode commit $(orderer_flags) "${common[@]}" "${peers[@]}" >/dev/null ||
		die "commit of $CC failed"
	for org in "${ORGS[@]}"; do
		deadline=$((SECONDS + WAIT))
		until [[ $(CLI_LOG_SPEC=error committed_sequence_on "$org") == "$seq" ]]; do
			((SECONDS < deadline)) || die "$CC sequence $seq not committed on peer0.$(dom "$org")"
			sleep 1
		done
	done
	log "chaincode $CC $version (sequence $seq) committed on every peer"
}

committed_sequence_on() {
	local out
	out=$(peer_as "$1" lifecycle chaincode querycommitted --channelID "$CHANNEL" --name "$CC" 2>/dev/null) || { echo 0; return; }
	out=${out#*Sequence: }
	echo "${out%%,*}"
}

case ${1:-} in
join) cmd_join ;;
deploy) shift; cmd_deploy "$@" ;;
height) height "${2:?usage: fabvote-channel height ORG}" ;;
peer) shift; org=${1:?usage: fabvote-channel peer ORG ARGS...}; shift; peer_as "$org" "$@" ;;
osnadmin) shift; o=${1:?usage: fabvote-channel osnadmin ORDERER ARGS...}; shift; osn "$o" "$@" ;;
*) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
