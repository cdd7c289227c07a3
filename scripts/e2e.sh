#!/usr/bin/env bash
# e2e.sh — `make e2e-test`: the end-to-end election test on a real network.
#
# Starts its own network (three-orgs by default, so that a party org's
# identity can try what only the election authority may do) in its own run
# directory and port range, runs the Go end-to-end test (e2e/, build tag
# e2e) against it with the real chaincode service, gateway and fabvote
# binary, and the voter's booth in headless Chromium (build tag browser),
# and stops the network whatever happens.
#
# Variables: E2E_PROFILE (three-orgs), E2E_RUN (build/e2e-run), E2E_STACK (the
# port plan's stack: e2e, or e2e-o4 for make e2e-test-o4), E2E_BASE_PORT
# (moves it; default the plan's), E2E_RUN_FLAGS (extra `go test` flags,
# e.g. -run TestElection).
set -euo pipefail

ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BIN=${BIN:-$ROOT/bin}
BUILD=${BUILD:-$ROOT/build}
GO=${GO:-go}
export PROFILE=${E2E_PROFILE:-three-orgs}
export RUN=${E2E_RUN:-$BUILD/e2e-run}
export NET_STACK=${E2E_STACK:-e2e}
export BASE_PORT=${E2E_BASE_PORT:-}
# Read before read_topology, which unsets every E2E_ variable it does not set.
read -r -a RUN_FLAGS <<<"${E2E_RUN_FLAGS:-}"
export ROOT
NET_SH=$ROOT/network/net.sh
# shellcheck source=scripts/ports.sh
. "$ROOT/scripts/ports.sh"
# shellcheck source=scripts/topology.sh
. "$ROOT/scripts/topology.sh"

[[ -x $BIN/fabvote ]] || { echo "e2e: $BIN/fabvote not built: run 'make fabvote'" >&2; exit 1; }

cleanup() {
	local rc=$?
	"$NET_SH" down || rc=1
	exit "$rc"
}
# The orgs' peers run different switches of the fork: every org's but the
# last's every optimisation an org can choose for its own peer (peer-fork:
# O-VI in check mode), the last org's (in a profile of several) none of
# them, as stock Fabric would (peer-stock).
# O-VI's check mode shares decodes as "on" does and compares every shared
# message with a fresh decode, so a stage that wrote to one stops the peer.
# The test's TestElection/peers_of_every_org_agree then compares their blocks'
# validation codes, commit hashes and state: an optimisation that changed a
# verdict or the ledger would split them.
# The settings and the log lines that show them are scripts/peer-switches.tsv's,
# generated from fabric/switches (make docs).
# peer_config NAME FIELD prints field FIELD of configuration NAME there.
peer_config() {
	awk -F '\t' -v name="$1" -v field="$2" '$1 == name { print $field; found = 1 } END { exit !found }' \
		"$ROOT/scripts/peer-switches.tsv" || { echo "e2e: no configuration $1 in scripts/peer-switches.tsv" >&2; exit 1; }
}
FORK_ON=$(peer_config peer-fork 2)
FORK_ON_LOGS=$(peer_config peer-fork 3)
FORK_OFF=$(peer_config peer-stock 2)
FORK_OFF_LOGS=$(peer_config peer-stock 3)
# The profile's organisations, from its topology (network/fabnet).
if ! fabnet_tool || ! read_topology E2E_ "$FABNET" --profile "$PROFILE"; then
	echo "e2e: no topology for PROFILE=$PROFILE" >&2
	exit 1
fi
for i in "${!E2E_ORGS[@]}"; do
	var=$(topo_env_name NET_PEER_ENV_ "${E2E_ORGS[i]}")
	want=$FORK_ON
	((i == 0 || i < ${#E2E_ORGS[@]} - 1)) || want=$FORK_OFF
	export "$var=${!var-$want}"
done

# check_switches ORG TEXTS: the peer's log shows each of the '|'-separated
# TEXTS, so the comparison above compares what it claims to.
check_switches() {
	local peer want wants log
	peer=$(topo_get E2E_PEER_NODES E2E_ORGS "$1")
	log=$RUN/$PROFILE/logs/$peer.log
	IFS='|' read -r -a wants <<<"$2"
	for want in "${wants[@]}"; do
		grep -qF "$want" "$log" || { echo "e2e: $peer's log lacks '$want' ($log)" >&2; exit 1; }
	done
}

"$NET_SH" down >/dev/null 2>&1 || true # leftovers of an interrupted run
trap cleanup EXIT
trap 'exit 130' INT TERM
"$NET_SH" up
if ((${#E2E_ORGS[@]} > 1)); then
	for org in "${E2E_ORGS[@]}"; do
		var=$(topo_env_name NET_PEER_ENV_ "$org")
		case ${!var} in
		"$FORK_ON") check_switches "$org" "$FORK_ON_LOGS" ;;
		"$FORK_OFF") check_switches "$org" "$FORK_OFF_LOGS" ;;
		*) continue ;;
		esac
		echo "e2e: $(topo_get E2E_PEER_NODES E2E_ORGS "$org") runs ${!var}"
	done
fi

cd "$ROOT"
# Tag browser adds the booth's test (e2e/booth_test.go): the booth that
# make booth built, in headless Chromium, which must then be installed.
FABVOTE_E2E_NETWORK=$RUN/$PROFILE/network.json FABVOTE_BIN=$BIN/fabvote \
	FABVOTE_BOOTH_DIR=$BUILD/booth FABVOTE_BROWSER_TEST=1 \
	$GO test -tags e2e,browser -count=1 -v -timeout 30m "${RUN_FLAGS[@]}" ./e2e/
