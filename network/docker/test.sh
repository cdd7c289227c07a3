#!/usr/bin/env bash
# test.sh — `make docker-test`: the Docker network end to end.
#
#  1. installs docker.io and docker-compose (apt-get) if missing, and starts
#     dockerd if no engine answers (it stops what it started at the end);
#  2. builds the images (build-images.sh; the base is made once, see there);
#  3. brings up its own network (project fabvote-test, material in
#     build/docker-test, the port plan's stack docker-test for its host ports, so a developer's network is left alone);
#  4. runs a 200-voter election from the host with the fabvote CLI and the
#     host-side network.json: create, bulk ballots, open, cast (receipts),
#     receipt check, tally (waits for the window to close), verify with the
#     expected counts;
#  5. restarts a party's peer's container (the second organisation's) and checks that its ledger height is
#     unchanged, that the audit passes against that peer (every ballot is still
#     on its ledger), and that the tools container's fabvote audits too;
#     Also: a party's admin cannot open an election (FABVOTE_AUTHORITY_MSPS);
#     the operations endpoints serve /healthz and /metrics over TLS only;
#     `fabvote bench` commits DOCKER_TEST_BENCH (100; 0 skips) ballots of a
#     second election; that peer's volume is backed up before those
#     ballots and restored after them: it must catch up and pass the audit;
#     a second `dockernet.sh up` on the running network changes nothing;
#     the chaincode is upgraded as docs/OPERATORS.md says (version 1.1,
#     sequence 2) and a new election's ballots commit through it;
#  6. removes the network and its volumes (at the end, or before 7);
#  7. unless DOCKER_TEST_ORGS=0: the multi-host procedure with each
#     organisation's nodes in its own compose project, all on this machine
#     (fabnet --runtime compose, TestComposePerOrganisation in network/multihost),
#     and a 30-voter election on it.
# On any failure it prints `compose ps` and the logs of every container.
#
# Variables: DOCKER_TEST_VOTERS (200), DOCKER_TEST_BENCH (100), DOCKER_TEST_WINDOW (voting window in
# seconds; by default from the measured ballot rate), DOCKER_TEST_KEEP=1 (leave
# the network up; skips 7), DOCKER_TEST_ORGS=0 (skips 7), plus lib.sh's.
set -euo pipefail
export COMPOSE_PROJECT_NAME=${COMPOSE_PROJECT_NAME:-fabvote-test}
export FABVOTE_DOCKER_DIR=${FABVOTE_DOCKER_DIR:-${BUILD:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build}/docker-test}
# The port plan's stack docker-test (host ports 19050...), apart from a developer's docker network.
export FABVOTE_PORT_STACK=${FABVOTE_PORT_STACK:-docker-test}
# shellcheck source=network/docker/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

VOTERS=${DOCKER_TEST_VOTERS:-200}
# The organisations the test acts as, from the topology (lib.sh): the
# election authority (the first), a party (the second), whose peer is
# restarted, backed up and restored, and the last.
EA=${ORGS[0]} PARTY=${ORGS[1]} LAST=${ORGS[-1]}
EA_MSP=${C_ORG_MSPIDS[0]} PARTY_MSP=${C_ORG_MSPIDS[1]}
PARTY_PEER=$(peer_host "$PARTY")
DNET=$DOCKER_SRC/dockernet.sh
WORKDIR=$FABVOTE_DOCKER_DIR.work
T0=$SECONDS
STARTED_DOCKERD=
NET_STARTED=0

step() { printf '\n[docker-test +%ds] == %s\n' "$((SECONDS - T0))" "$*"; }
fail() { printf '[docker-test] FAIL: %s\n' "$*" >&2; exit 1; }

cleanup() {
	local rc=$?
	set +e
	if ((NET_STARTED)); then
		if ((rc != 0)); then
			printf '\n[docker-test] ---- compose ps ----\n' >&2
			"$DNET" ps >&2
			printf '\n[docker-test] ---- logs of every container ----\n' >&2
			"$DNET" logs --tail=200 >&2
		fi
		if [[ ${DOCKER_TEST_KEEP:-0} == 1 ]]; then
			echo "[docker-test] network left up (DOCKER_TEST_KEEP=1): $FABVOTE_DOCKER_DIR/network.json"
		else
			step "removing the network and its volumes"
			"$DNET" clean || rc=1
		fi
	fi
	if [[ -n ${ORGS_TMP:-} ]]; then
		local ids
		ids=$("$DOCKER" ps -a --format '{{.ID}} {{.Label "com.docker.compose.project.working_dir"}}' |
			awk -v d="$ORGS_TMP/" 'index($2, d) == 1 {print $1}')
		if [[ -n $ids ]]; then
			step "removing the containers the compose test left"
			# shellcheck disable=SC2086
			"$DOCKER" rm -f $ids >/dev/null
		fi
	fi
	if [[ -n $STARTED_DOCKERD ]]; then
		step "stopping the dockerd this test started (pid $STARTED_DOCKERD)"
		kill "$STARTED_DOCKERD" 2>/dev/null
		for _ in $(seq 60); do kill -0 "$STARTED_DOCKERD" 2>/dev/null || break; sleep 0.5; done
		kill -0 "$STARTED_DOCKERD" 2>/dev/null && echo "[docker-test] dockerd $STARTED_DOCKERD still running" >&2
	fi
	if ((rc == 0)); then
		printf '[docker-test] PASS in %d s\n' "$((SECONDS - T0))"
	else
		printf '[docker-test] FAILED (exit %d) after %d s\n' "$rc" "$((SECONDS - T0))" >&2
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ensure_docker() {
	local pkgs=()
	command -v dockerd >/dev/null || pkgs+=(docker.io)
	{ docker compose version >/dev/null 2>&1 || command -v docker-compose >/dev/null; } || pkgs+=(docker-compose)
	command -v docker >/dev/null || pkgs+=(docker.io)
	if ((${#pkgs[@]})); then
		((EUID == 0)) || fail "missing ${pkgs[*]}; install them (apt-get install ${pkgs[*]}) or run as root"
		step "installing ${pkgs[*]}"
		apt-get update -qq >/dev/null
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${pkgs[@]}" >/dev/null || fail "apt-get install ${pkgs[*]} failed"
	fi
	if ! docker_ready; then
		((EUID == 0)) || fail "no Docker engine answers and not root to start dockerd"
		step "starting dockerd (no engine was running)"
		local log=$BUILD/docker/dockerd.log
		mkdir -p "$BUILD/docker"
		setsid dockerd >"$log" 2>&1 </dev/null &
		STARTED_DOCKERD=$!
		for _ in $(seq 120); do
			docker_ready && break
			kill -0 "$STARTED_DOCKERD" 2>/dev/null || { tail -20 "$log" >&2; fail "dockerd exited"; }
			sleep 0.5
		done
		docker_ready || { tail -20 "$log" >&2; fail "dockerd did not answer within 60 s"; }
	fi
}

step "Docker engine and compose"
ensure_docker
"$DOCKER" version --format 'engine {{.Server.Version}}, client {{.Client.Version}}'

step "building the images"
"$DOCKER_SRC/build-images.sh"
FV=$BUILD/docker/gobin/fabvote # built from this tree by build-images.sh

step "bringing up the network (project $COMPOSE_PROJECT_NAME, ports $H_BASE_PORT...)"
"$DNET" clean >/dev/null 2>&1 || true # leftovers of an interrupted run
NET_STARTED=1
"$DNET" up
NET=$FABVOTE_DOCKER_DIR/network.json
"$DNET" ps

rm -rf "$WORKDIR"
mkdir -p "$WORKDIR"
cd "$WORKDIR"
ID=docker-test-$(date -u +%H%M%S)
step "election $ID: 4 candidates, $VOTERS voters, from the host through ${H_ORG_HOSTS[0]}:${H_PEER_PORTS[0]}"
# One host: the peers share a clock, so a small clock-skew bound (a result is
# accepted from end + it).
"$FV" election create --election "$ID" --candidates Alice,Bob,Carol,Dave --max-voters "$VOTERS" --max-clock-skew 2s --out election
"$FV" ballot --bulk --quiet --manifest election/manifest.json --voters "$VOTERS" --ea-key election/ea.key \
	--choices random --out ballots.bin | tee gen.out
RATE=$(sed -n 's/.*(\([0-9.]*\) ballots\/s).*/\1/p' gen.out)
# The window is fixed when the election opens and must hold every cast;
# casting costs about as much per ballot as making one (the proof checks).
WINDOW=${DOCKER_TEST_WINDOW:-$(awk -v n="$VOTERS" -v r="${RATE:-5}" 'BEGIN { r = (r > 0.5 ? r : 0.5); printf "%d", 40 + n / (1.5 * r) }')}
"$FV" election open --network "$NET" --manifest election/manifest.json --start now --end "+${WINDOW}s"

step "only the authority's MSP opens elections (FABVOTE_AUTHORITY_MSPS=$EA_MSP)"
# A party names itself as the authority of a new election and signs the
# opening with its own admin: the chaincode must refuse it.
"$FV" election create --election "$ID-$PARTY" --candidates Yes,No --max-voters 10 --authority-msp "$PARTY_MSP" \
	--out election-party >/dev/null
if "$FV" election open --network "$NET" --org "$PARTY" --manifest election-party/manifest.json \
	--max-attempts 1 >party-open.out 2>&1; then
	cat party-open.out
	fail "$PARTY_MSP opened an election although only $EA_MSP may"
fi
grep -qi 'may not open elections' party-open.out || { cat party-open.out; fail "$PARTY_MSP's election open failed, but not for its authority"; }
echo "$PARTY_MSP's election open is refused: $(grep -m1 -i 'may not open elections' party-open.out)"

step "operations endpoints answer over TLS only (/healthz; /metrics with a client certificate)"
# Fabric's operations server: /healthz is open; /metrics and /logspec want a
# TLS client certificate issued by a CA in the node's clientRootCAs (here the
# org's TLS CA, so any of its users' TLS pairs).
C=$FABVOTE_DOCKER_DIR/crypto
TLSCA_EA=$C/${H_ORG_TLSCAS[0]}
TLSCA_ORD=$C/$H_ORDERER_TLSCA
CLI_EA=$C/${H_ORG_CLIENT_TLS[0]}
CLI_ORD=$C/$H_ORDERER_ADMIN_TLS
OPS_EA=${H_ORG_HOSTS[0]}:${H_PEER_OPS_PORTS[0]} OPS_O0=${H_ORDERER_HOSTS[0]}:${H_ORDERER_OPS_PORTS[0]}
PEER_EA=$(peer_host "$EA") ORDERER0=$(orderer_host "${ORDERERS[0]}")
# (Each answer is read whole before grep: grep -q closing the pipe early would
# fail curl with SIGPIPE under pipefail.)
ops_get() { curl -fsS "$@" || echo "curl $* failed"; }
[[ $(ops_get --cacert "$TLSCA_EA" "https://$OPS_EA/healthz") == *'"status":"OK"'* ]] || fail "$PEER_EA: https://$OPS_EA/healthz is not OK"
[[ $(ops_get --cacert "$TLSCA_ORD" "https://$OPS_O0/healthz") == *'"status":"OK"'* ]] || fail "$ORDERER0: https://$OPS_O0/healthz is not OK"
grep -q '^ledger_blockchain_height' <<<"$(ops_get --cacert "$TLSCA_EA" --cert "$CLI_EA/client.crt" --key "$CLI_EA/client.key" "https://$OPS_EA/metrics")" ||
	fail "$PEER_EA: no ledger_blockchain_height at https://$OPS_EA/metrics"
grep -q '^consensus_etcdraft_is_leader' <<<"$(ops_get --cacert "$TLSCA_ORD" --cert "$CLI_ORD/client.crt" --key "$CLI_ORD/client.key" "https://$OPS_O0/metrics")" ||
	fail "$ORDERER0: no consensus_etcdraft_is_leader at https://$OPS_O0/metrics"
code=$(curl -sS -o /dev/null -w '%{http_code}' --cacert "$TLSCA_EA" "https://$OPS_EA/metrics" || true)
[[ $code == 401 ]] || fail "$PEER_EA: /metrics without a client certificate answered $code, want 401"
if curl -fsS -m 5 "http://$OPS_EA/healthz" >/dev/null 2>&1; then fail "$PEER_EA's operations endpoint answers plain HTTP"; fi
echo "https://$OPS_EA and https://$OPS_O0: /healthz OK, /metrics with a client certificate (401 without), plain HTTP refused"

step "casting $VOTERS ballots (window ${WINDOW}s)"
"$FV" cast --network "$NET" --ballots ballots.bin --quiet --concurrency 32 --receipts-out receipts.jsonl | tee cast.out
[[ $(wc -l <receipts.jsonl) -eq $VOTERS ]] || fail "$(wc -l <receipts.jsonl) receipts for $VOTERS ballots"
head -1 receipts.jsonl >receipt-1.json
"$FV" receipt check --network "$NET" --receipt receipt-1.json
if "$FV" cast --network "$NET" --ballots ballots.bin --count 1 --quiet >double.out 2>&1; then
	cat double.out
	fail "a second cast of an already cast ballot was accepted"
fi
grep -q DUPLICATE double.out || { cat double.out; fail "a second cast failed, but not as DUPLICATE"; }
echo "a second cast of an already cast ballot is rejected: $(grep -m1 -o 'fabvote DUPLICATE.*' double.out)"

step "tally (waits for the window to close) and audit"
"$FV" tally --network "$NET" --manifest election/manifest.json --paillier-key election/paillier.key --wait --quiet \
	--result-out result.json | tee tally.out
EXPECT=$(awk -F, '$1 ~ /^[0-9a-f]+$/ && $2 ~ /^[0-9]+$/ { c[$2]++ } END { for (i = 0; i < 4; i++) printf "%s%d", (i ? "," : ""), c[i] + 0 }' ballots.bin.choices.csv)
"$FV" verify --network "$NET" --election "$ID" --expect-counts "$EXPECT" | tee verify-before.out

step "monitoring: the ballot chaincode's operations endpoint, and Prometheus with the generated configuration"
CC_OPS=${H_CC_HOSTS_0[0]}:${H_CC_OPS_PORTS_0[0]}
[[ $(ops_get "http://$CC_OPS/healthz") == *'"status":"OK"'* ]] || fail "$CC_NAME-cc of $EA: http://$CC_OPS/healthz is not OK"
accepted=0
for i in "${!ORGS[@]}"; do
	a=${H_CC_HOSTS_0[i]}:${H_CC_OPS_PORTS_0[i]}
	v=$(awk '$1 == "fabvote_chaincode_ballots_accepted_total" { printf "%d", $2 }' <<<"$(ops_get "http://$a/metrics")")
	[[ -n $v ]] || fail "$CC_NAME-cc at $a: no fabvote_chaincode_ballots_accepted_total on /metrics"
	accepted=$((accepted + v))
done
((accepted >= VOTERS)) || fail "the chaincode services accepted $accepted ballots at endorsement, want at least $VOTERS"
command -v prometheus >/dev/null && command -v promtool >/dev/null || fail "prometheus and promtool not found (Debian package prometheus)"
(cd "$ROOT" && "$GO" run ./network/cmd/fabmon prometheus --network "$NET" --interval 1s --out "$WORKDIR/prometheus.yml") ||
	fail "fabmon prometheus refused $NET"
promtool check config "$WORKDIR/prometheus.yml" >/dev/null || fail "promtool check config rejects the generated configuration"
PROM_ADDR=$PLAN_PROMETHEUS_ADDR
TARGETS=$((${#ORDERERS[@]} + 2 * ${#ORGS[@]})) # every orderer, peer and chaincode service
prometheus --config.file="$WORKDIR/prometheus.yml" --storage.tsdb.path="$WORKDIR/prometheus" --web.listen-address="$PROM_ADDR" \
	>"$WORKDIR/prometheus.log" 2>&1 &
PROM_PID=$!
up=""
for _ in $(seq 60); do
	up=$(curl -fsS "http://$PROM_ADDR/api/v1/targets" 2>/dev/null | jq -r '[.data.activeTargets[] | select(.health == "up")] | length' 2>/dev/null || true)
	[[ $up == "$TARGETS" ]] && break
	sleep 1
done
kill "$PROM_PID" 2>/dev/null; wait "$PROM_PID" 2>/dev/null || true
[[ $up == "$TARGETS" ]] || { tail -20 "$WORKDIR/prometheus.log" >&2; fail "Prometheus has $up of $TARGETS targets up (${#ORDERERS[@]} orderers, ${#ORGS[@]} peers, ${#ORGS[@]} chaincode services)"; }
echo "ballot-cc: /healthz OK, $accepted ballots accepted at endorsement; Prometheus scrapes all $TARGETS targets with fabmon's configuration"

step "restarting $PARTY_PEER's container: its ledger and ballots must survive"
H_EA=$("$DNET" height "$EA")
H1=$("$DNET" height "$PARTY")
[[ $H1 =~ ^[0-9]+$ && $H1 == "$H_EA" ]] || fail "heights before restart: $EA $H_EA, $PARTY $H1"
CID1=$("$DOCKER" ps -q --filter "label=com.docker.compose.project=$COMPOSE_PROJECT_NAME" \
	--filter "label=com.docker.compose.service=$PARTY_PEER")
START1=$("$DOCKER" inspect --format '{{.State.StartedAt}}' "$CID1")
"$DNET" restart "$PARTY_PEER"
START2=$("$DOCKER" inspect --format '{{.State.StartedAt}}' "$CID1")
[[ $START1 != "$START2" ]] || fail "$PARTY_PEER's container was not restarted (started at $START1)"
H2=$("$DNET" height "$PARTY")
echo "$PARTY_PEER ledger height: $H1 before, $H2 after the restart"
[[ $H2 == "$H1" ]] || fail "$PARTY_PEER ledger height changed across the restart: $H1 -> $H2"
# Reads through the party's gateway are served by its peer's own ledger.
"$FV" verify --network "$NET" --org "$PARTY" --election "$ID" --expect-counts "$EXPECT" | tee verify-after.out
"$FV" receipt check --network "$NET" --org "$PARTY" --receipt receipt-1.json
step "backing up $PARTY_PEER's volume (dockernet.sh backup, docs/OPERATORS.md 6.1)"
BACKUP=$WORKDIR/$PARTY_PEER.tgz
"$DNET" backup "$PARTY_PEER" "$BACKUP"
[[ $("$DNET" height "$PARTY") == "$H1" ]] || fail "$PARTY_PEER ledger height changed across the backup"
if "$DNET" backup "$PARTY_PEER" "$BACKUP" 2>backup-again.err; then fail "a second backup overwrote $BACKUP"; fi
grep -q 'exists' backup-again.err || { cat backup-again.err; fail "a second backup to the same file failed, but not because it exists"; }
step "the tools container's fabvote against the same network (network.container.json)"
"$DNET" tools bash -c "fabvote verify --network \"\$FABVOTE_NETWORK\" --org $LAST --election $ID --expect-counts $EXPECT" | tail -3

# bench_election SUFFIX N: fabvote bench commits N ballots of a new election $ID-SUFFIX.
bench_election() {
	local e=$ID-$1 n=$2
	# The load generator against the same network.json, so it keeps working here.
	"$FV" election create --election "$e" --candidates Alice,Bob,Carol,Dave --max-voters "$n" --end +1h \
		--out "$1-election" >/dev/null
	"$FV" ballot --bulk --quiet --manifest "$1-election/manifest.json" --voters "$n" \
		--ea-key "$1-election/ea.key" --choices random --out "$1-ballots.bin" >/dev/null
	# --open opens the election and waits until every org's peer answers
	# GetManifest, which also warms each peer's manifest cache: a cast
	# endorsed by a peer that lacks the manifest, or by a cold and a warm
	# chaincode, would fail as a ProposalResponsePayloads mismatch.
	"$FV" bench --network "$NET" --open "$1-election/manifest.json" --ballots "$1-ballots.bin" \
		--concurrency 16 --max-duration 5m --label docker --json "$1.json" --quiet | tee "$1.out"
	python3 - "$1.json" "$n" <<'PY' || fail "fabvote bench: not every ballot of $e committed ($1.json)"
import json, sys
r, n = json.load(open(sys.argv[1])), int(sys.argv[2])
assert r["sent"] == n and r["succeeded"] == n and r["failed"] == 0, (r["sent"], r["succeeded"], r.get("failures"))
print(f"fabvote bench: {n}/{n} committed, {r['tps']} tx/s, p50 {r['latencyMs']['p50']} ms")
PY
}

BENCH_N=${DOCKER_TEST_BENCH:-100}
if ((BENCH_N > 0)); then
	step "fabvote bench: $BENCH_N ballots of a second election, closed loop"
	bench_election bench "$BENCH_N"
fi

step "restoring $PARTY_PEER from the backup taken at height $H1 (docs/OPERATORS.md 6.2)"
echo "not a backup" >"$WORKDIR/bad.tgz"
if "$DNET" restore "$PARTY_PEER" "$WORKDIR/bad.tgz" 2>restore-bad.err; then fail "a restore from a file that is not a .tgz succeeded"; fi
[[ $("$DNET" height "$PARTY") =~ ^[0-9]+$ ]] || { cat restore-bad.err; fail "a refused restore left $PARTY_PEER unable to answer"; }
if "$DNET" backup "$ORDERER0" "$WORKDIR/$ORDERER0.tgz" 2>backup-orderer.err; then fail "an orderer's volume was backed up"; fi
grep -q 'peers only' backup-orderer.err || { cat backup-orderer.err; fail "an orderer's backup was refused, but not because it is not a peer"; }
"$DNET" restore "$PARTY_PEER" "$BACKUP"
ls "$BACKUP".replaced-*.tgz >/dev/null 2>&1 || fail "the restore kept no copy of $PARTY_PEER's data from before it"
H_EA=$("$DNET" height "$EA")
deadline=$((SECONDS + 120))
until H3=$("$DNET" height "$PARTY") && [[ $H3 == "$H_EA" ]]; do
	((SECONDS < deadline)) || fail "restored $PARTY_PEER stays at height $H3, $EA is at $H_EA"
	sleep 2
done
echo "$PARTY_PEER restored at height $H1 and caught up to $H3 ($EA: $H_EA)"
"$FV" verify --network "$NET" --org "$PARTY" --election "$ID" --expect-counts "$EXPECT" | tee verify-restored.out

step "dockernet.sh up again on the running network: every join and the deployment are done, nothing changes"
"$DNET" up 2>up-again.err || { cat up-again.err; fail "a second dockernet.sh up failed"; }
grep -q 'sequence 1 is committed (wanted 1): nothing to do' up-again.err ||
	{ cat up-again.err; fail "the second up did not find the chaincode committed"; }
if grep -E 'installing|approving|committing|: joined ' up-again.err; then fail "the second up joined a node or changed the deployment"; fi
[[ $(grep -c ': already a member of ' up-again.err) == $((${#ORDERERS[@]} + ${#ORGS[@]})) ]] ||
	{ cat up-again.err; fail "the second up did not find ${#ORDERERS[@]} orderers and ${#ORGS[@]} peers members"; }
for org in "${ORGS[@]}"; do
	[[ $("$DNET" height "$org") == "$H3" ]] || fail "peer0.$org's height changed across the second up (was $H3)"
done

step "chaincode upgrade (docs/OPERATORS.md 4): packages of version 1.1, services recreated, CC_SEQUENCE=2 up"
"$DOCKER_SRC/artifacts.sh" package 1.1
compose up -d --no-build
CC_SEQUENCE=2 "$DNET" up 2>up-upgrade.err || { cat up-upgrade.err; fail "the upgrade's dockernet.sh up failed"; }
[[ $(grep -c ": installing ${CC_NAME}_1.1:" up-upgrade.err) == "${#ORGS[@]}" && $(grep -c "approving $CC_NAME 1.1 sequence 2" up-upgrade.err) == "${#ORGS[@]}" ]] ||
	{ cat up-upgrade.err; fail "the upgrade did not install and approve version 1.1 on every peer"; }
grep -q 'committing sequence 2' up-upgrade.err || { cat up-upgrade.err; fail "the upgrade did not commit sequence 2"; }
"$DNET" up 2>up-after.err || { cat up-after.err; fail "dockernet.sh up after the upgrade failed"; }
grep -q 'sequence 2 is committed (wanted 1): nothing to do' up-after.err || { cat up-after.err; fail "an up after the upgrade did not find sequence 2"; }
bench_election upgraded 10

step "summary"
echo "election $ID: $VOTERS ballots cast and audited; counts $EXPECT; $(grep -m1 -o 'throughput [0-9.]* tx/s' cast.out || echo 'throughput ?')"
echo "$PARTY_PEER restart: ledger height $H1 kept, audit PASS on its ledger"
echo "$PARTY_PEER backup at height $H1, restored and caught up to $H3, audit PASS on its ledger"
echo "dockernet.sh up on the running network: nothing joined, installed, approved or committed; heights kept at $H3"
echo "chaincode upgraded to 1.1 (sequence 2) on every peer; 10 ballots of a new election committed through the new services"

if [[ ${DOCKER_TEST_KEEP:-0} == 1 ]]; then
	echo "[docker-test] DOCKER_TEST_KEEP=1: the network stays up, so the compose project per organisation is not tested"
elif [[ ${DOCKER_TEST_ORGS:-1} == 1 ]]; then
	step "removing the network before the next test"
	"$DNET" clean
	NET_STARTED=0
	step "each organisation's nodes in its own compose project (fabnet --runtime compose)"
	# The test's homes are under ORGS_TMP, so that cleanup finds the
	# containers of a run cut short before its own cleanup.
	ORGS_TMP=$WORKDIR/orgs-tmp
	mkdir -p "$ORGS_TMP"
	(cd "$ROOT" && TMPDIR=$ORGS_TMP FABVOTE_COMPOSE_TEST=1 ROOT=$ROOT FABRIC_BIN=$FABRIC_BIN FABRIC_CA_BIN=${FABRIC_CA_BIN:-$BIN} \
		FABRIC_CFG_SRC=$FABRIC_CFG_SRC FABVOTE_BIN=$FV GO=$GO \
		"$GO" test -count=1 -v -timeout 15m -run '^TestComposePerOrganisation$' ./network/multihost/) ||
		fail "TestComposePerOrganisation"
fi
