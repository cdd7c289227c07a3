#!/usr/bin/env bash
# demo.sh — a whole fabvote election on a fresh single-host network (`make demo`).
#
# Starts the solo-org network, has 3 trustees make their own age keys,
# creates an election with 4 candidates whose key shares (any 2 of the 3
# decrypt) are each sealed to its own trustee, registers a handful of voters
# through the real HTTPS registration service and the rest offline in bulk,
# casts every ballot through the Fabric gateway, has 2 of the 3 trustees each
# recompute the tally from the ledger and decrypt it, publishes, audits from
# the ledger alone, checks the counts against the voters' recorded choices,
# exports the election record and verifies it offline (with the independent
# Python verifier too, when PYVERIFY names its Python), writes the public
# bulletin board, and stops the network — also when a step fails. While the
# window is open, the registration service serves the voter's booth (make
# booth) and a ballot box (box serve) takes its ballots: the demo prints the
# booth's address and a roll entry kept for a person, and BOOTH_WAIT holds
# the window open that many seconds more for them to vote in it.
#
# DEMO_PROFILE chooses the ballot: "one" (the default: one question, choose
# one of 4 candidates) or "contests" (scripts/demo-contests.json: a mayor,
# a council of up to 2 of 5 or blank, and a referendum, in two ballot
# styles; the south's voters have no council). make test runs the second.
#
# Variables: VOTERS (1000), HTTPS_VOTERS (5), CONCURRENCY (64), BASE_PORT
# (moves every port of the demo: the network's, the registration
# service's and the ballot box's; default the port plan's, `fabnet ports
# list`), EA_ADDR and BOX_ADDR (the registration service's and the ballot
# box's addresses; default the plan's for BASE_PORT), BOOTH_DIR (the built
# booth, build/booth), BOOTH_WAIT (0 seconds),
# DEMO_DIR (run/demo, or run/demo-BASE_PORT when BASE_PORT moves it), WINDOW
# (voting window in seconds; by default sized from the measured
# ballot-generation rate, see below), PYVERIFY (the Python that has
# verifier-py installed; `make demo` sets it), plus the network's variables
# (FABRIC_BIN, …).
#
# Before it writes anything it checks that no other demo runs in DEMO_DIR
# and that every port it needs is free; when one is taken it names the
# port, the process that holds it and the variable that moves it.
set -euo pipefail

ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BIN=${BIN:-$ROOT/bin}
RUN=${RUN:-$ROOT/run}
export ROOT RUN
FV=$BIN/fabvote
VOTERS=${VOTERS:-1000}
HTTPS_VOTERS=${HTTPS_VOTERS:-5}
CONCURRENCY=${CONCURRENCY:-64}
export PROFILE=solo-org NET_STACK=default
NET_SH=$ROOT/network/net.sh
# shellcheck source=scripts/ports.sh
. "$ROOT/scripts/ports.sh"
DEMO_PROFILE=${DEMO_PROFILE:-one}
case $DEMO_PROFILE in
one)
	BALLOT_FLAGS=(--candidates Alice,Bob,Carol,Dave)
	ROLL_FLAGS=()
	BALLOT_WHAT="4 candidates"
	;;
contests)
	BALLOT_FLAGS=(--contests "$ROOT/scripts/demo-contests.json")
	ROLL_FLAGS=(--styles north,south)
	BALLOT_WHAT="3 contests in 2 ballot styles"
	;;
*)
	printf 'demo: ERROR: DEMO_PROFILE=%s: want one or contests\n' "$DEMO_PROFILE" >&2
	exit 1
	;;
esac

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
say() { printf '   %s\n' "$*"; }
die() { printf 'demo: ERROR: %s\n' "$*" >&2; exit 1; }

[[ $VOTERS =~ ^[0-9]+$ ]] && ((VOTERS > HTTPS_VOTERS)) || die "VOTERS=$VOTERS: want a number above HTTPS_VOTERS=$HTTPS_VOTERS"
[[ -x $FV ]] || die "$FV not built: run 'make fabvote'"
BULK=$((VOTERS - HTTPS_VOTERS))

plan_ports default "${BASE_PORT:-}" || die "the port plan refused BASE_PORT=${BASE_PORT:-}; nothing was started or written"
# The default directory follows the ports, so that a second demo on other
# ports has its own; the demo's network lives in it.
default_base=$(plan_ports default && echo "$PLAN_BASE_PORT")
if [[ $PLAN_BASE_PORT == "$default_base" ]]; then suffix=; else suffix=-$PLAN_BASE_PORT; fi
DEMO_DIR=$(realpath -m "${DEMO_DIR:-$RUN/demo$suffix}")
export NET_RUN_DIR=$DEMO_DIR/network BASE_PORT=$PLAN_BASE_PORT
EA_ADDR=${EA_ADDR:-$PLAN_EA_ADDR}
BOX_ADDR=${BOX_ADDR:-$PLAN_BOX_ADDR}
BOOTH_DIR=$(realpath -m "${BOOTH_DIR:-$ROOT/build/booth}")
BOOTH_WAIT=${BOOTH_WAIT:-0}
[[ $BOOTH_WAIT =~ ^[0-9]+$ ]] || die "BOOTH_WAIT=$BOOTH_WAIT: want a number of seconds"
[[ -f $BOOTH_DIR/booth.wasm ]] || die "no booth in $BOOTH_DIR: run 'make booth'"
# One demo per directory: a second one (or one started while the network an
# interrupted demo left behind still runs) stops here and touches nothing.
mkdir -p "$(dirname "$DEMO_DIR")"
exec 9>"$DEMO_DIR.lock"
flock -n 9 || die "another demo, or the network it left running, holds $DEMO_DIR ($DEMO_DIR.lock); nothing was started or written. Run a second demo with BASE_PORT set to a free base (fabnet ports list); its DEMO_DIR follows"
"$FABNET" ports check --stack default --base-port "$BASE_PORT" --profile "$PROFILE" --chaincodes 1 --registrar "$EA_ADDR" --box "$BOX_ADDR" ||
	die "a port the demo needs is taken (above); nothing was started or written"

EA_PID=
BOX_PID=
NET_STARTED=0
cleanup() {
	local rc=$? pid
	for pid in $EA_PID $BOX_PID; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
	if ((NET_STARTED)); then
		((rc == 0)) || cp -r "$NET_RUN_DIR/logs" "$DEMO_DIR/network-logs" 2>/dev/null || true
		step "stopping the network"
		"$NET_SH" down || rc=1
	fi
	if ((rc != 0)); then
		printf '\ndemo: FAILED (exit %d); files in %s, the logs of the nodes in %s/network-logs\n' "$rc" "$DEMO_DIR" "$DEMO_DIR" >&2
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

T_START=$SECONDS
rm -rf "$DEMO_DIR"
mkdir -p "$DEMO_DIR"
cd "$DEMO_DIR"

step "starting the $PROFILE network (peer, orderer, ballot chaincode service)"
NET_STARTED=1
"$NET_SH" up
NET=$NET_RUN_DIR/network.json

ID=demo-$(date -u +%Y%m%d-%H%M%S)
step "three trustees each make an age key pair in their own directory and give the authority their public recipient"
: >trustee-recipients.txt
for i in 1 2 3; do
	"$FV" trustee keygen --out "trustees/trustee-$i" | sed 's/^/   /'
	cat "trustees/trustee-$i/recipient.txt" >>trustee-recipients.txt
done

step "creating election $ID: $BALLOT_WHAT, 3 trustees (any 2 decrypt), $VOTERS voters and one for you"
# One host: every peer reads the same clock, so the bound on the difference
# between two peers' clocks (a result is accepted from end + it) is small.
# The manifest commits to the booth the voters run (its digest).
BOOTH_DIGEST=$("$FV" booth digest --dir "$BOOTH_DIR")
"$FV" election create --election "$ID" --title "fabvote demo" "${BALLOT_FLAGS[@]}" --booth-digest "$BOOTH_DIGEST" \
	--max-voters "$((VOTERS + 1))" --trustees 3 --threshold 2 --trustee-recipients trustee-recipients.txt --max-clock-skew 2s --out election
M=election/manifest.json
# The dealer sealed share i to trustee i's key and kept nothing else; each
# sealed share goes to its trustee's directory.
for i in 1 2 3; do
	mv "election/trustee-$i.share.age" "trustees/trustee-$i/share.age"
done
say "each trustees/trustee-i holds its own identity and its own sealed share; election/ holds no share"

step "registering $HTTPS_VOTERS voters through the HTTPS registration service (ea serve), which also serves the booth"
# The roll's last entry is kept for a person voting in the booth.
"$FV" ea roll --voters "$((HTTPS_VOTERS + 1))" "${ROLL_FLAGS[@]}" --out election/roll.csv
"$FV" ea tls-cert --ca-cert election/ea-tls-ca.crt --ca-key election/ea-tls-ca.key \
	--tls-cert election/ea-tls.crt --tls-key election/ea-tls.key
"$FV" ea tls-cert --ca-cert election/ea-tls-ca.crt --ca-key election/ea-tls-ca.key \
	--tls-cert election/box-tls.crt --tls-key election/box-tls.key
"$FV" ea init-state --manifest "$M" --roll election/roll.csv
"$FV" ea serve --addr "$EA_ADDR" --manifest "$M" --roll election/roll.csv \
	--tls-cert election/ea-tls.crt --tls-key election/ea-tls.key --ea-key election/ea.key \
	--booth "$BOOTH_DIR" --box "https://$BOX_ADDR" 2>ea-serve.log &
EA_PID=$!
# ea serve logs this line once its listener is bound (a TCP probe would
# leave a "TLS handshake error" in its log).
for _ in $(seq 50); do
	grep -q "registering voters for election" ea-serve.log 2>/dev/null && break
	kill -0 "$EA_PID" 2>/dev/null || { cat ea-serve.log >&2; die "ea serve exited"; }
	sleep 0.1
done
# demo_choice I STYLE: the choices of HTTPS voter I (as --choice takes them).
demo_choice() {
	local council=("0,3" blank "" 1)
	case $2 in
	"") echo $(($1 % 4)) ;;
	north) echo "mayor=$(($1 % 4));council=${council[$1 % 4]};referendum=$(($1 % 2))" ;;
	south) echo "mayor=$(($1 % 4));referendum=$(($1 % 2))" ;;
	esac
}
mkdir -p voters
echo "pseudonym,choices" >voters/choices.csv
i=0
tail -n +2 election/roll.csv | head -n "$HTTPS_VOTERS" | while IFS=, read -r vid code style; do
	choice=$(demo_choice "$i" "$style")
	printf '%s\n' "$code" | "$FV" register --url "https://$EA_ADDR" --ca-cert election/ea-tls-ca.crt --manifest "$M" --code-file - \
		--voter-id "$vid" --voter-key "voters/$vid.key" --out "voters/$vid.token.json" >/dev/null 2>&1 ||
		die "registering $vid failed"
	"$FV" ballot --manifest "$M" --voter-key "voters/$vid.key" --token "voters/$vid.token.json" \
		--choice "$choice" --out "voters/$vid.ballot" >/dev/null
	echo "$vid,$choice" >>voters/choices.csv
	i=$((i + 1))
done
say "$HTTPS_VOTERS voters registered over HTTPS and made their ballots (choices recorded in voters/choices.csv)"
HTTPS_IDS=$(tail -n +2 voters/choices.csv | cut -d, -f1)
first=$(sed -n 2p election/roll.csv)
if printf '%s\n' "${first#*,}" | "$FV" register --url "https://$EA_ADDR" --ca-cert election/ea-tls-ca.crt --manifest "$M" --code-file - \
	--voter-id "${first%%,*}" --voter-key voters/intruder.key --out voters/intruder.token.json 2>reuse.err; then
	die "a one-time code was accepted twice"
fi
say "re-using ${first%%,*}'s one-time code is refused: $(tail -1 reuse.err)"
sed 's/^/   /' ea-serve.log

step "registering the other $BULK voters OFFLINE in bulk (the EA signs their tokens locally, as in the benchmark) and making their ballots on every core"
"$FV" ballot --bulk --manifest "$M" --voters "$BULK" --ea-key election/ea.key --choices random --out ballots.bin | tee gen.out
# The window must hold every cast, and it is fixed when the election opens.
# Casting is bound by the chaincode's proof checks, the same kind of work as
# making ballots, so the measured generation rate tells how loaded this
# machine is: casting has run 2.5-3.5x faster than generation here; allow 1.5x.
GEN_RATE=$(sed -n 's/.*(\([0-9.]*\) ballots\/s).*/\1/p' gen.out)
WINDOW=${WINDOW:-$(awk -v n="$VOTERS" -v r="${GEN_RATE:-5}" 'BEGIN { r = (r > 0.5 ? r : 0.5); printf "%d", 60 + n / (1.5 * r) }')}
WINDOW=$((WINDOW + BOOTH_WAIT))

step "opening the election on the ledger (voting window ${WINDOW}s from now)"
"$FV" election open --network "$NET" --manifest "$M" --start now --end "+${WINDOW}s"
# Each trustee keeps its own copy of the manifest as opened (the window is
# set at opening); its tool checks it against the ledger's, byte for byte.
for i in 1 2 3; do cp "$M" "trustees/trustee-$i/manifest.json"; done

step "the voter's booth: served by ea serve, its ballots taken by a ballot box (box serve) with the authority's gateway identity"
"$FV" box serve --election "$ID" --addr "$BOX_ADDR" --tls-cert election/box-tls.crt --tls-key election/box-tls.key \
	--network "$NET" --allow-origin "https://$EA_ADDR" 2>box-serve.log &
BOX_PID=$!
for _ in $(seq 100); do
	grep -q "taking ballots of election" box-serve.log 2>/dev/null && break
	kill -0 "$BOX_PID" 2>/dev/null || { cat box-serve.log >&2; die "box serve exited"; }
	sleep 0.1
done
grep -q "taking ballots of election" box-serve.log || { cat box-serve.log >&2; die "box serve did not start"; }
IFS=, read -r BOOTH_VOTER BOOTH_CODE _ < <(tail -n 1 election/roll.csv)
say "booth: https://$EA_ADDR/booth/ (trust the authority's TLS CA election/ea-tls-ca.crt in your browser)"
say "voter id $BOOTH_VOTER, one-time code $BOOTH_CODE: kept for you; audit a ballot, then cast one"
if ((BOOTH_WAIT > 0)); then
	say "the booth stays open for ${BOOTH_WAIT}s (BOOTH_WAIT) before the bulk voters cast"
	sleep "$BOOTH_WAIT"
fi

step "casting the $HTTPS_VOTERS HTTPS voters' ballots one by one, with receipts"
for vid in $HTTPS_IDS; do
	"$FV" cast --network "$NET" --ballot "voters/$vid.ballot" --receipt-out "voters/$vid.receipt.json" | sed -n 's/^/   /; 1p'
	"$FV" receipt check --network "$NET" --receipt "voters/$vid.receipt.json" --ballot "voters/$vid.ballot" | sed 's/^/   /'
done
FIRST_VOTER=$(echo "$HTTPS_IDS" | head -1)
if "$FV" cast --network "$NET" --ballot "voters/$FIRST_VOTER.ballot" 2>double.err >/dev/null; then
	die "a double vote was accepted"
fi
say "a second ballot of the same voter is rejected: $(cat double.err)"

step "casting the $BULK bulk ballots ($CONCURRENCY in flight)"
"$FV" cast --network "$NET" --ballots ballots.bin --concurrency "$CONCURRENCY" --receipts-out receipts.jsonl | tee cast.out
(($(wc -l <receipts.jsonl) == BULK)) || die "the bulk cast wrote $(wc -l <receipts.jsonl) receipts for $BULK ballots"
say "every bulk voter has a receipt too: receipts.jsonl, one line each"
TPS=$(sed -n 's/.*throughput \([0-9.]*\) tx\/s.*/\1/p' cast.out)

step "tallying: trustees 1 and 3 (trustee 2 is away) each recompute the product of every verified ballot on the ledger once every org's peer shows the window closed, and decrypt it"
for i in 1 3; do
	"$FV" trustee decrypt --network "$NET" --manifest "trustees/trustee-$i/manifest.json" --share "trustees/trustee-$i/share.age" \
		--age-identity "trustees/trustee-$i/identity.txt" --wait --quiet --out "partial-$i.bin"
done
say "each trustee's journal (trustees/trustee-i/decrypted.json) records the one tally it decrypted for this election"
# The share opens only after the tally is recomputed, so this check comes
# once the window has closed.
if "$FV" trustee decrypt --network "$NET" --manifest trustees/trustee-1/manifest.json --share trustees/trustee-2/share.age \
	--age-identity trustees/trustee-1/identity.txt --quiet --out partial-x.bin 2>wrong-id.err >/dev/null; then
	die "trustee 1's identity opened trustee 2's share"
fi
say "trustee 1's identity does not open trustee 2's share: $(tail -1 wrong-id.err)"
"$FV" tally --network "$NET" --manifest "$M" --partial partial-1.bin --partial partial-3.bin --result-out result.json | tee tally.out

step "independent audit from the ledger alone, and the counts against the voters' recorded choices"
EXPECT=voters/choices.csv,ballots.bin.choices.csv
EXPECT_FLAGS=(--expect-choices "$EXPECT")
# A person's booth ballot is a choice the demo did not record.
if ((BOOTH_WAIT > 0)); then
	EXPECT_FLAGS=()
	say "BOOTH_WAIT is set: the counts are not compared with the recorded choices, which do not hold a booth voter's"
fi
"$FV" verify --network "$NET" --election "$ID" "${EXPECT_FLAGS[@]}"

step "the election record: exported from the peer, verified offline by both verifiers, published as a bulletin board"
"$FV" record export --network "$NET" --election "$ID" --out record | tee export.out
GENESIS=$(sed -n 's/^genesis hash: \([0-9a-f]*\).*/\1/p' export.out)
# Offline from here on: the record's files alone, anchored by the two things
# an observer takes from outside it, the genesis hash the channel's
# organisations publish and the manifest the authority published.
"$FV" verify --record record --genesis-hash "$GENESIS" --manifest "$M" "${EXPECT_FLAGS[@]}" --json >record-report.json ||
	die "verify --record failed the record (record-report.json)"
jq -r '.steps[] | "   verify --record, step \(.step): \(if .ok then "ok" else "FAIL" end)"' record-report.json
say "verify --record: PASS, $(jq -c '.ballots' record-report.json), counts $(jq -c '[.result.contests[] | {(.id): .counts}] | add' record-report.json)"
if [[ -n ${PYVERIFY:-} ]]; then
	"$PYVERIFY" -m fabvote_verifier --record record --genesis-hash "$GENESIS" --manifest "$M" --json >record-report-py.json ||
		die "the Python verifier failed the record (record-report-py.json)"
	same='{ok, ballots, result, lateBallots}'
	[[ $(jq -S -c "$same" record-report.json) == "$(jq -S -c "$same" record-report-py.json)" ]] ||
		die "the Go and Python verifiers disagree: compare record-report.json and record-report-py.json"
	say "the independent Python verifier agrees: $(jq -c '.ballots' record-report-py.json)"
else
	say "PYVERIFY is not set: the independent Python verifier (verifier-py/) was not run"
fi
# A voter checks a receipt against the record with no identity and no
# network: one HTTPS voter's and one bulk voter's (each check verifies the
# whole record again); the bulk one with the Python verifier too.
head -1 receipts.jsonl >bulk-receipt.json
for r in "voters/$FIRST_VOTER.receipt.json" bulk-receipt.json; do
	"$FV" receipt check --receipt "$r" --record record --genesis-hash "$GENESIS" --manifest "$M" >receipt-check.out ||
		{ cat receipt-check.out >&2; die "receipt $r does not check out against the record"; }
done
if [[ -n ${PYVERIFY:-} ]]; then
	"$PYVERIFY" -m fabvote_verifier --record record --genesis-hash "$GENESIS" --manifest "$M" --receipt bulk-receipt.json >/dev/null ||
		die "the Python verifier does not accept the receipt bulk-receipt.json"
fi
say "receipts checked offline against the record: one HTTPS voter's and one bulk voter's$([[ -n ${PYVERIFY:-} ]] && echo ", the bulk one by both verifiers")"
# The board verifies the record itself with both anchors, and shows the
# Python verifier's verdict beside its own (their record digests match).
"$FV" record site --record record --genesis-hash "$GENESIS" --manifest "$M" ${PYVERIFY:+--report record-report-py.json} --out site | sed 's/^/   /'

step "summary"
say "election $ID: $VOTERS ballots cast ($HTTPS_VOTERS registered over HTTPS, $BULK registered offline in bulk)"
sed -n '/^result of election/,/^result published/p' tally.out | grep -v '^result published' | sed 's/^/   /'
say "cast throughput: ${TPS:-?} tx/s (bulk cast, $CONCURRENCY in flight, every proof verified by the chaincode)"
((BOOTH_WAIT > 0)) || say "counts match the voters' recorded choices ($EXPECT)"
say "audit PASS, from the ledger and from the exported record"
say "election record in $DEMO_DIR/record (genesis hash $GENESIS); bulletin board: $DEMO_DIR/site/index.html"
say "total time $((SECONDS - T_START)) s"
