#!/usr/bin/env bash
# network/test.sh — end-to-end test of the native network (make network-test).
#
# A stock peer given the fork's core.yaml is refused before anything starts.
# solo-org: up with cryptogen's identities and kvtransfer, Init/Transfer/Total through the peer CLI, the
# gateway test, kill -9 of the peer, the chaincode service and the orderer with
# restarts (ledger height and state must survive), down, and no process left.
# A profile registered only by the test (a Go file added with go build
# -overlay): make network-up starts it, each organisation's peer answers.
# three-orgs (unless NET_TEST_THREE_ORGS=0): up with every organisation's
# identities enrolled from its own Fabric CA servers (NET_IDENTITIES=ca), the
# certificates checked against those CAs, cross-org gateway test, kill -9 of
# the Raft leader, state identical on every peer, down; then a solo-org up
# with CA identities, interrupted with SIGTERM twice (while enrolling, and
# with every node running while it deploys the chaincode), leaves no process
# and no listening port.
#
# The test networks use their own run dirs and ports (NET_TEST_BASE_PORT), so a
# developer's running network is left alone. solo-org runs the peer with the
# lockless commit gate (multi-key kvtransfer transactions take its escalation
# path), three-orgs with the locked one: NET_TEST_GATE_SOLO / NET_TEST_GATE_THREE.
# solo-org also checks that every operations endpoint serves /healthz over
# https only and that the peer's commit gate counters on /metrics
# (fabric/patches/0007) grow with transactions.
set -Eeuo pipefail
trap 'fail "line $LINENO: command failed: $BASH_COMMAND"' ERR

NET_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$NET_DIR/.." && pwd)
RUN=${RUN:-$ROOT/run}
GO=${GO:-go}
# shellcheck source=scripts/ports.sh
. "$ROOT/scripts/ports.sh"
# shellcheck source=scripts/topology.sh
. "$ROOT/scripts/topology.sh"
# net_test_base SLOT: the base of the test's network SLOT (0 solo-org,
# 1 three-orgs, 2 the interrupted ups) in the port plan's network-test stack.
net_test_base() {
	plan_ports network-test "${NET_TEST_BASE_PORT:-}" "$1" || fail "the port plan refused NET_TEST_BASE_PORT=${NET_TEST_BASE_PORT:-}"
	echo "$PLAN_BASE_PORT"
}
export NET_STACK=network-test
NET=$NET_DIR/net.sh
export CHAINCODES=kvtransfer=./chaincode/kvtransfer/cmd/kvtransfer-cc NET_SET_CURRENT=0

step() { printf '\n[network-test %s] === %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
fail() {
	printf '[network-test] FAIL: %s\n' "$*" >&2
	"$NET" status >&2 || true
	local n
	for n in $("$NET" nodes 2>/dev/null); do "$NET" logs "$n" 50 >&2 || true; done
	exit 1
}
expect_eq() { # what got want
	[[ $2 == "$3" ]] || fail "$1 = '$2', want '$3'"
	printf '[network-test] ok: %s = %s\n' "$1" "$2" >&2
}
q() { "$NET" query kvtransfer "$@"; }
readmany() { q "{\"function\":\"ReadMany\",\"Args\":[\"[\\\"$1\\\"]\"]}" "${2:-}"; }
total() { q '{"function":"Total","Args":[]}' "${1:-}"; }
transfer() { "$NET" invoke kvtransfer "{\"function\":\"Transfer\",\"Args\":[\"$1\",\"$2\",\"$3\"]}" >/dev/null; }

# gate_metric NAME: the peer's fabvote_commit_gate_NAME_total counter for the
# channel (fabric/patches/0007), read from its operations endpoint over https
# (after topology).
gate_metric() {
	local peer m v
	peer=$("$NET" nodes | grep -m1 '^peer0\.') || fail "no peer in the network"
	m=$("$NET" ops "$peer" /metrics) || fail "GET /metrics from $peer over https"
	v=$(awk -v k="fabvote_commit_gate_$1_total{channel=\"$T_CHANNEL\"}" '$1 == k { printf "%d", $2 }' <<<"$m")
	[[ -n $v ]] || fail "$peer's /metrics has no fabvote_commit_gate_$1_total for channel $T_CHANNEL"
	echo "$v"
}
expect_grew() { # what before after
	(($3 > $2)) || fail "$1 did not grow: $2 -> $3"
	printf '[network-test] ok: %s grew %d -> %d\n' "$1" "$2" "$3" >&2
}

# assert_gone PIDS...: none of the processes exists (zombies count as gone).
assert_gone() {
	local p left=()
	for p in "$@"; do
		[[ -r /proc/$p/exe ]] && readlink "/proc/$p/exe" >/dev/null 2>&1 && left+=("$p")
	done
	((${#left[@]} == 0)) || fail "processes left after down: ${left[*]}"
	printf '[network-test] ok: all %d processes gone\n' "$#" >&2
}

# topology: the running network's organisations, orderers and node names
# (T_ORGS, T_ORDERERS, T_PEER_NODES, ...), read from its run dir.
topology() {
	read_topology T_ "$NET_RUN_DIR/tools/fabnet" --home "$NET_RUN_DIR" || fail "fabnet topology env --home $NET_RUN_DIR"
}

cleanup() {
	local rc=$?
	if [[ -n ${NET_RUN_DIR:-} && -d $NET_RUN_DIR ]]; then "$NET" down >&2 || true; fi
	exit "$rc"
}
trap cleanup EXIT

solo_org() {
	BASE_PORT=$(net_test_base 0) || exit 1
	export PROFILE=solo-org NET_RUN_DIR=$RUN/test-solo-org BASE_PORT
	# cryptogen here, each organisation's Fabric CA (the default) in three_orgs:
	# network-test covers both sources of identities.
	export FABVOTE_COMMIT_GATE=${NET_TEST_GATE_SOLO:-lockless} NET_IDENTITIES=cryptogen
	step "solo-org up with cryptogen's identities (FABRIC_BIN=${FABRIC_BIN:-$ROOT/bin}, FABVOTE_COMMIT_GATE=$FABVOTE_COMMIT_GATE)"
	local t0=$SECONDS
	"$NET" up || fail "network-up"
	printf '[network-test] up took %ds\n' $((SECONDS - t0)) >&2
	[[ -f $NET_RUN_DIR/network.json ]] || fail "network.json missing"
	topology
	local peer=${T_PEER_NODES[0]} orderer=${T_ORDERERS[0]}

	step "operations endpoints speak TLS only"
	local node ops_before=() ops_after=() g
	for node in $("$NET" nodes | grep -E '^(orderer|peer)'); do
		expect_eq "$node /healthz over https" "$("$NET" ops "$node" /healthz | grep -o '"status":"OK"')" '"status":"OK"'
	done
	if curl -sf --max-time 5 "http://${T_ORDERER_HOSTS[0]}:${T_ORDERER_OPS_PORTS[0]}/healthz" >/dev/null 2>&1; then
		fail "$orderer's operations endpoint answered plain HTTP"
	fi
	for g in sessions commits escalations retries; do ops_before+=("$(gate_metric "$g")"); done

	step "Init, Transfer, Total through the peer CLI"
	"$NET" invoke kvtransfer '{"function":"Init","Args":["20","100"]}' >/dev/null || fail "Init"
	expect_eq "Total after Init(20,100)" "$(total)" 2000
	transfer acct000000 acct000001 30 || fail "Transfer"
	expect_eq "ReadMany(acct000000)" "$(readmany acct000000)" 70
	expect_eq "Total after Transfer" "$(total)" 2000
	if "$NET" invoke kvtransfer '{"function":"Transfer","Args":["acct000000","acct000001","71"]}' 2>/dev/null; then
		fail "an overdrawing Transfer was accepted"
	fi
	expect_eq "ReadMany(acct000000) after a rejected overdraw" "$(readmany acct000000)" 70

	step "commit gate counters on the peer's /metrics moved"
	for g in sessions commits escalations retries; do ops_after+=("$(gate_metric "$g")"); done
	expect_grew "fabvote_commit_gate_sessions_total" "${ops_before[0]}" "${ops_after[0]}"
	expect_grew "fabvote_commit_gate_commits_total" "${ops_before[1]}" "${ops_after[1]}"
	if [[ $FABVOTE_COMMIT_GATE == lockless ]]; then
		# Transfer and Total read several keys: each escalates in mode lockless.
		expect_grew "fabvote_commit_gate_escalations_total" "${ops_before[2]}" "${ops_after[2]}"
	else
		expect_eq "fabvote_commit_gate_escalations_total (mode locked)" "${ops_after[2]}" 0
	fi
	((ops_after[3] <= ops_after[2])) || fail "retries ${ops_after[3]} exceed escalations ${ops_after[2]}"

	step "gateway test"
	FABVOTE_NETWORK_JSON=$NET_RUN_DIR/network.json "$GO" test -count=1 -v ./network/gatewaytest/ ||
		fail "gateway test"
	expect_eq "Total after gateway transfers" "$(total)" 2000
	local bal
	bal=$(readmany acct000000)

	step "kill -9 the peer, restart it"
	local h0 h1 pid
	h0=$("$NET" height) || fail "net.sh height"
	pid=$("$NET" pid "$peer")
	"$NET" kill "$peer"
	if readlink "/proc/$pid/exe" >/dev/null 2>&1; then fail "peer pid $pid still alive after kill"; fi
	if "$NET" pid "$peer" >/dev/null 2>&1; then fail "net.sh pid reports a killed peer as running"; fi
	t0=$SECONDS
	"$NET" start "$peer" || fail "restart $peer"
	h1=$("$NET" height) || fail "net.sh height after the peer restart"
	expect_eq "ledger height after peer restart" "$h1" "$h0"
	expect_eq "ReadMany(acct000000) after peer restart" "$(readmany acct000000)" "$bal"
	transfer acct000000 acct000001 5 || fail "Transfer after peer restart"
	printf '[network-test] peer restart to first commit: %ds\n' $((SECONDS - t0)) >&2
	expect_eq "height after a post-restart commit" "$("$NET" height)" $((h0 + 1))
	expect_eq "Total after peer restart" "$(total)" 2000

	step "kill -9 the chaincode service, restart it"
	"$NET" kill "cc.kvtransfer.$peer"
	if total >/dev/null 2>&1; then fail "query succeeded with the chaincode service down"; fi
	"$NET" start "cc.kvtransfer.$peer" || fail "restart chaincode service"
	expect_eq "Total after chaincode restart" "$(total)" 2000

	step "kill -9 the orderer, restart it"
	"$NET" kill "$orderer"
	t0=$SECONDS
	"$NET" start "$orderer" || fail "restart $orderer"
	transfer acct000001 acct000000 5 || fail "Transfer after orderer restart"
	printf '[network-test] orderer restart to first commit: %ds\n' $((SECONDS - t0)) >&2
	expect_eq "ReadMany(acct000000) after orderer restart" "$(readmany acct000000)" "$bal"
	expect_eq "height after orderer restart" "$("$NET" height)" $((h0 + 2))

	step "solo-org down"
	local pids=()
	mapfile -t pids < <("$NET_RUN_DIR/tools/fabnet" node pids --home "$NET_RUN_DIR" | cut -d" " -f2)
	expect_eq "running processes" "${#pids[@]}" 3
	"$NET" down || fail "network-down"
	assert_gone "${pids[@]}"
	[[ ! -e $NET_RUN_DIR ]] || fail "$NET_RUN_DIR still exists after down"
}

# new_profile: a profile that exists only in this test (two organisations,
# one orderer), registered by a Go file added to package network/fabnet
# with go build -overlay, starts with make network-up and no script
# changed: net.sh takes that fabnet (FABNET) into the run dir, and every
# command after reads the topology from it. Each organisation's peer
# answers for the channel; make network-down leaves no process. The
# cheapest network there is: cryptogen's identities, no chaincode.
new_profile() {
	local src=$RUN/test-new-profile-src org h pids=()
	BASE_PORT=$(net_test_base 0) || exit 1
	export PROFILE=two-orgs NET_RUN_DIR=$RUN/test-two-orgs BASE_PORT
	step "a profile registered only by this test (go build -overlay), brought up with make network-up"
	rm -rf "$src"
	mkdir -p "$src"
	cat >"$src/two_orgs.go" <<'GO'
package fabnet

func init() {
	RegisterProfile(ProfileSpec{Name: "two-orgs", Orgs: []string{"ea", "auditor"}, Orderers: 1})
}
GO
	printf '{"Replace": {"%s": "%s"}}\n' "$ROOT/network/fabnet/zz_two_orgs_test_profile.go" "$src/two_orgs.go" >"$src/overlay.json"
	"$GO" build -overlay "$src/overlay.json" -o "$src/fabnet" ./network/cmd/fabnet || fail "go build -overlay of fabnet with the two-orgs profile"
	FABNET=$src/fabnet NET_IDENTITIES=cryptogen CHAINCODES='' "${MAKE:-make}" -C "$ROOT" --no-print-directory network-up ||
		fail "make network-up PROFILE=two-orgs"
	topology
	expect_eq "organisations of two-orgs" "${T_ORGS[*]}" "ea auditor"
	expect_eq "orderers of two-orgs" "${T_ORDERERS[*]}" "orderer0"
	for org in "${T_ORGS[@]}"; do
		h=$("$NET" height "$org") || fail "net.sh height $org"
		[[ $h =~ ^[1-9][0-9]*$ ]] || fail "$org's peer answers height '$h'"
		printf "[network-test] ok: %s's peer answers for the channel at height %s\n" "$org" "$h" >&2
	done
	mapfile -t pids < <("$NET_RUN_DIR/tools/fabnet" node pids --home "$NET_RUN_DIR" | cut -d" " -f2)
	expect_eq "running processes" "${#pids[@]}" 3
	"${MAKE:-make}" -C "$ROOT" --no-print-directory network-down || fail "make network-down PROFILE=two-orgs"
	assert_gone "${pids[@]}"
	[[ ! -e $NET_RUN_DIR ]] || fail "$NET_RUN_DIR still exists after down"
	rm -rf "$src"
}

three_orgs() {
	BASE_PORT=$(net_test_base 1) || exit 1
	export PROFILE=three-orgs NET_RUN_DIR=$RUN/test-three-orgs BASE_PORT
	export FABVOTE_COMMIT_GATE=${NET_TEST_GATE_THREE:-locked} NET_IDENTITIES=ca
	step "three-orgs up with identities from each organisation's Fabric CA (FABVOTE_COMMIT_GATE=$FABVOTE_COMMIT_GATE)"
	local t0=$SECONDS org
	"$NET" up || fail "network-up three-orgs"
	printf '[network-test] up took %ds\n' $((SECONDS - t0)) >&2
	"$NET_DIR/check-ca-identities.sh" "$NET_RUN_DIR" 19 "peer0, ccaas0" || fail "the identities are not all from their organisation's own CAs"
	"$NET" invoke kvtransfer '{"function":"Init","Args":["10","100"]}' >/dev/null || fail "Init"
	expect_eq "Total" "$(total)" 1000

	step "cross-org gateway test (MAJORITY endorsement via discovery)"
	FABVOTE_NETWORK_JSON=$NET_RUN_DIR/network.json "$GO" test -count=1 -v ./network/gatewaytest/ ||
		fail "gateway test"

	step "kill -9 the Raft leader, restart it"
	local leader
	leader=$("$NET" leader) || fail "no Raft leader"
	"$NET" kill "$leader"
	t0=$SECONDS
	# Until a new leader is elected the orderers refuse the broadcast (SERVICE_UNAVAILABLE,
	# nothing is ordered), so retrying cannot apply the transfer twice.
	until transfer acct000004 acct000005 10 2>/dev/null; do
		((SECONDS - t0 < 60)) || fail "no commit within 60s of killing the Raft leader $leader"
		sleep 1
	done
	printf '[network-test] %s killed: first commit after %ds\n' "$leader" $((SECONDS - t0)) >&2
	"$NET" start "$leader" || fail "restart $leader"
	transfer acct000005 acct000004 3 || fail "Transfer after the leader restart"
	local h
	topology
	h=$("$NET" height "${T_ORGS[0]}") || fail "net.sh height ${T_ORGS[0]}"
	for org in "${T_ORGS[@]}"; do
		local deadline=$((SECONDS + 30)) v
		until v=$(readmany acct000004 "$org") && [[ $v == 93 ]]; do
			((SECONDS < deadline)) || break
			sleep 0.5
		done
		expect_eq "ReadMany(acct000004) on $org" "$v" 93
		expect_eq "Total on $org" "$(total "$org")" 1000
	done
	expect_eq "height on ${T_ORGS[-1]}" "$("$NET" height "${T_ORGS[-1]}")" "$h"

	step "three-orgs down"
	local pids=()
	mapfile -t pids < <("$NET_RUN_DIR/tools/fabnet" node pids --home "$NET_RUN_DIR" | cut -d" " -f2)
	# 3 orderers, 3 peers, 3 chaincode services, 2 CA servers for each of 4 organisations
	expect_eq "running processes" "${#pids[@]}" 17
	"$NET" down || fail "network-down three-orgs"
	assert_gone "${pids[@]}"
}

# stock_peer_refused: a peer without the fork's patches, given the fork's
# core.yaml (which registers the compiled-in ballot validation handler it would
# panic on), is refused before anything is written or started.
stock_peer_refused() {
	step "a stock peer with the fork's configuration is refused"
	local fake=$RUN/test-stock-peer-bin dir=$RUN/test-stock-peer out tool
	rm -rf "$fake" "$dir"
	mkdir -p "$fake"
	for tool in orderer cryptogen configtxgen osnadmin; do ln -s "${FABRIC_BIN:-$ROOT/bin}/$tool" "$fake/$tool"; done
	printf '#!/bin/sh\nprintf "peer:\\n Version: 2.5.0\\n"\n' >"$fake/peer"
	chmod +x "$fake/peer"
	if out=$(FABRIC_BIN=$fake NET_RUN_DIR=$dir PROFILE=solo-org "$NET" up 2>&1); then
		fail "net.sh up started a network with a stock peer and the fork's core.yaml"
	fi
	grep -q "is not the fork's peer" <<<"$out" || fail "the refusal does not say why: $out"
	[[ ! -e $dir/network.json && ! -e $dir/nodes.list ]] || fail "the refused start left files in $dir"
	printf '[network-test] ok: refused (%s)\n' "$(grep -o "is not the fork's peer[^:]*" <<<"$out")" >&2
	rm -rf "$fake" "$dir"
}

# interrupted_up: SIGTERM to an up (solo-org, identities from its CAs) while
# its organisations enroll (CA servers starting) and once every node runs
# (chaincode deployment); each time no process whose working directory or
# command line is in the run dir survives, and none of its ports listens.
interrupted_up() {
	local dir=$RUN/test-interrupted base at pid p left deadline
	base=$(net_test_base 2) || exit 1
	fabnet_tool || fail "building fabnet"
	for at in "Fabric CA servers" "deploying chaincode"; do
		step "solo-org up (CA identities) interrupted (SIGTERM) just after '$at': nothing left behind"
		rm -rf "$dir"
		NET_RUN_DIR=$dir PROFILE=solo-org BASE_PORT=$base NET_IDENTITIES=ca setsid "$NET" up >"$dir.log" 2>&1 &
		pid=$!
		deadline=$((SECONDS + 120))
		until grep -qF "$at" "$dir.log" 2>/dev/null; do
			((SECONDS < deadline)) || fail "net.sh up never logged '$at' (see $dir.log)"
			sleep 0.1
		done
		sleep 0.5
		kill -TERM "$pid"
		if wait "$pid"; then fail "the interrupted up exited 0 (see $dir.log)"; fi
		left=()
		for p in /proc/[0-9]*; do
			if [[ $(readlink "$p/cwd" 2>/dev/null) == "$dir"/* ]] || tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -qF -- "$dir/"; then
				left+=("${p#/proc/} $(tr '\0' ' ' <"$p/cmdline" 2>/dev/null | cut -c1-100)")
			fi
		done
		((${#left[@]} == 0)) || fail "left after the interrupted up: $(printf '\n  %s' "${left[@]}")"
		# every port of the network's plan is free (fabnet ports check names any that is not)
		"$FABNET" ports check --stack network-test ${NET_TEST_BASE_PORT:+--base-port "$NET_TEST_BASE_PORT"} --slot 2 \
			--profile solo-org --identities ca --chaincodes 1 || fail "a port of the interrupted up still listens"
		printf "[network-test] ok: interrupted at '%s', no process and no port left\n" "$at" >&2
	done
	rm -rf "$dir" "$dir.log"
}

cd "$ROOT"
T0=$SECONDS
stock_peer_refused
solo_org
new_profile
if [[ ${NET_TEST_THREE_ORGS:-1} == 1 ]]; then
	three_orgs
	interrupted_up
fi
unset NET_RUN_DIR
printf '\n[network-test] PASS in %ds\n' $((SECONDS - T0)) >&2
