#!/usr/bin/env bash
# readme-steps.sh — `make readme-test`: README.md's "same steps by hand"
# block, run line by line exactly as written, in a fresh directory against a
# network started as `make network-up` starts it (the port plan's default
# stack, each organisation's identities from its own Fabric CA). The only
# things it adds are what a person does between the lines: it types the
# voter's one-time code from roll.csv where a line reads it (--code-file -),
# puts the genesis hash that `record export` printed where a line says HEX,
# and waits for a line run in the background (ea serve &) to say it listens.
# Any line that fails fails the test; then the one ballot cast must count
# for its choice in the exported record.
#
# Variables: README_WORK (run/readme), PYVERIFY_BIN (the bin directory of a
# Python with verifier-py installed; make readme-test sets it), plus the
# network's (FABRIC_BIN, ...).
set -euo pipefail

ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BIN=${BIN:-$ROOT/bin}
RUN=${RUN:-$ROOT/run}
export ROOT RUN
WORK=$(realpath -m "${README_WORK:-$RUN/readme}")
NET_SH=$ROOT/network/net.sh

say() { printf '[readme-test] %s\n' "$*" >&2; }
die() { printf '[readme-test] FAIL: %s\n' "$*" >&2; exit 1; }

# readme_block prints the block's lines.
readme_block() {
	awk '/^The same steps by hand/ { f = 1 } f && /^```sh/ { g = 1; next } g && /^```/ { exit } g { print }' "$ROOT/README.md"
}

BLOCK=$(readme_block)
[[ -n $BLOCK ]] || die "README.md has no 'The same steps by hand' block"
[[ -x $BIN/fabvote ]] || die "$BIN/fabvote not built: run 'make fabvote'"

export PROFILE=solo-org NET_STACK=default NET_RUN_DIR=$WORK/network NET_SET_CURRENT=0
BG=()
cleanup() {
	local rc=$? p
	for p in "${BG[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
	"$NET_SH" down >/dev/null 2>&1 || rc=1
	((rc == 0)) || say "failed; the steps' files are in $WORK/work"
	exit "$rc"
}
# One run at a time: a second one must not stop the first one's network.
mkdir -p "$(dirname "$WORK")"
exec 9>"$WORK.lock"
flock -n 9 || die "another readme-test runs in $WORK ($WORK.lock)"
[[ -d $NET_RUN_DIR ]] && "$NET_SH" down >/dev/null 2>&1 # an interrupted run's network
rm -rf "$WORK"
mkdir -p "$WORK/work/run"
trap cleanup EXIT
trap 'exit 130' INT TERM
"$NET_SH" up
# The commands' default network file is run/current/network.json, as after make network-up.
ln -s "$NET_RUN_DIR" "$WORK/work/run/current"
cd "$WORK/work"
export PATH="$BIN:${PYVERIFY_BIN:+$PYVERIFY_BIN:}$PATH"

GENESIS=
n=0
while IFS= read -r line; do
	n=$((n + 1))
	cmd=$(sed -E 's/[[:space:]]+#.*$//' <<<"$line")
	[[ -n $cmd ]] || continue
	if [[ $cmd == *HEX* ]]; then
		[[ -n $GENESIS ]] || die "line $n uses HEX before record export printed the genesis hash"
		cmd=${cmd//HEX/$GENESIS}
	fi
	say "\$ $cmd"
	if [[ $cmd == *'&' ]]; then
		bash -c "exec ${cmd%&}" >"bg-$n.log" 2>&1 &
		BG+=($!)
		for _ in $(seq 100); do
			[[ -s bg-$n.log ]] && break
			kill -0 "${BG[-1]}" 2>/dev/null || { cat "bg-$n.log" >&2; die "line $n exited"; }
			sleep 0.1
		done
		[[ -s bg-$n.log ]] || die "line $n printed nothing in 10 s"
		continue
	fi
	input=/dev/null
	if [[ $cmd == *'--code-file -'* ]]; then
		vid=$(grep -oE -- '--voter-id [^ ]+' <<<"$cmd" | cut -d' ' -f2)
		awk -F, -v id="$vid" '$1 == id { print $2 }' roll.csv >code.txt
		[[ -s code.txt ]] || die "line $n: no code for $vid in roll.csv"
		input=code.txt
	fi
	bash -c "$cmd" <"$input" >"out-$n.txt" 2>&1 || { cat "out-$n.txt" >&2; die "line $n failed: $line"; }
	sed 's/^/    /' "out-$n.txt" >&2
	if [[ $cmd == *'record export'* ]]; then
		GENESIS=$(sed -n 's/^genesis hash: \([0-9a-f]*\).*/\1/p' "out-$n.txt")
		[[ $GENESIS =~ ^[0-9a-f]{64}$ ]] || die "record export printed no genesis hash"
	fi
done <<<"$BLOCK"

# What the steps must have done: one ballot, for Alice, counted.
[[ -d record && -n $GENESIS ]] || die "the block exported no record"
fabvote verify --record record --genesis-hash "$GENESIS" --expect-counts 1,0,0,0 >/dev/null ||
	die "the record does not count the one ballot cast for Alice"
say "PASS: every line of README.md's block ran as written; the record counts its ballot"
