#!/usr/bin/env bash
# e2e.sh — `make e2e-test`: the end-to-end election test on a real network.
#
# Starts its own network (three-orgs by default, so that a party org's
# identity can try what only the election authority may do) in its own run
# directory and port range, runs the Go end-to-end test (e2e/, build tag
# e2e) against it with the real chaincode service, gateway and fabvote
# binary, and stops the network whatever happens.
#
# Variables: E2E_PROFILE (three-orgs), E2E_RUN (build/e2e-run), E2E_BASE_PORT
# (8050), E2E_RUN_FLAGS (extra `go test` flags, e.g. -run TestElection).
set -euo pipefail

ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BIN=${BIN:-$ROOT/bin}
BUILD=${BUILD:-$ROOT/build}
GO=${GO:-go}
export PROFILE=${E2E_PROFILE:-three-orgs}
export RUN=${E2E_RUN:-$BUILD/e2e-run}
export BASE_PORT=${E2E_BASE_PORT:-8050}
export ROOT
NET_SH=$ROOT/network/net.sh

[[ -x $BIN/fabvote ]] || { echo "e2e: $BIN/fabvote not built: run 'make fabvote'" >&2; exit 1; }

cleanup() {
	local rc=$?
	"$NET_SH" down || rc=1
	exit "$rc"
}
"$NET_SH" down >/dev/null 2>&1 || true # leftovers of an interrupted run
trap cleanup EXIT
trap 'exit 130' INT TERM
"$NET_SH" up

cd "$ROOT"
FABVOTE_E2E_NETWORK=$RUN/$PROFILE/network.json FABVOTE_BIN=$BIN/fabvote \
	$GO test -tags e2e -count=1 -v -timeout 30m ${E2E_RUN_FLAGS:-} ./e2e/
