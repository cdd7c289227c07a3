#!/usr/bin/env bash
# demo-refusals.sh — `make demo-refusal-test`: `make demo` refuses at once,
# names what is wrong and touches nothing when it cannot run: a port it
# needs is taken (it names the port, the process that holds it and the
# variable that moves it), another demo holds its directory, or BASE_PORT
# puts its ports over another stack's. Each case runs scripts/demo.sh
# against a DEMO_DIR holding a marker file that must survive, and no case
# may start a node.
set -euo pipefail

ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BIN=${BIN:-$ROOT/bin}
RUN=${RUN:-$ROOT/run}
export ROOT BIN RUN
mkdir -p "$RUN"
WORK=$(mktemp -d "$RUN/demo-refusals.XXXXXX")
HOLDER_PID=
# shellcheck source=scripts/ports.sh
. "$ROOT/scripts/ports.sh"

fail() { printf '[demo-refusals] FAIL: %s\n' "$*" >&2; exit 1; }
cleanup() {
	[[ -z $HOLDER_PID ]] || kill "$HOLDER_PID" 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT

# refused NAME WANT... (env and the demo's variables before it): the demo
# exits non-zero within 60 s, its error names every WANT, and DEMO_DIR's marker survives.
refused() {
	local name=$1 out rc=0 t0=$SECONDS w
	shift
	local dir=$WORK/$name
	mkdir -p "$dir"
	echo keep >"$dir/marker"
	out=$(DEMO_DIR=$dir timeout 60 "$ROOT/scripts/demo.sh" 2>&1) || rc=$?
	((rc != 0)) || fail "$name: the demo ran"
	((rc != 124)) || fail "$name: the demo did not refuse within 60 s"
	for w in "$@"; do
		grep -qF -- "$w" <<<"$out" || fail "$name: the demo's output lacks '$w':
$out"
	done
	[[ $(cat "$dir/marker" 2>/dev/null) == keep && ! -e $dir/network ]] || fail "$name: the demo touched $dir"
	printf '[demo-refusals] ok: %s refused in %d s: %s\n' "$name" $((SECONDS - t0)) "$(grep -m1 -E 'port |another|puts' <<<"$out")" >&2
}

plan_ports default

# A port of the demo's network, and the registration service's, each held by another process.
for addr in "127.0.0.1:$PLAN_BASE_PORT" "$PLAN_EA_ADDR"; do
	python3 -c 'import socket,sys,time
h,p=sys.argv[1].rsplit(":",1); s=socket.socket(); s.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1)
s.bind((h,int(p))); s.listen(); print("ok",flush=True); time.sleep(300)' "$addr" >"$WORK/holder.out" &
	HOLDER_PID=$!
	for _ in $(seq 50); do [[ -s $WORK/holder.out ]] && break; sleep 0.1; done
	[[ -s $WORK/holder.out ]] || fail "could not hold $addr"
	if [[ $addr == "$PLAN_EA_ADDR" ]]; then var=EA_ADDR; else var=BASE_PORT; fi
	refused "port-${addr##*:}" "port $addr" "is taken by pid $HOLDER_PID (python3" "set $var" "nothing was started or written"
	kill "$HOLDER_PID"
	wait "$HOLDER_PID" 2>/dev/null || true
	HOLDER_PID=
	rm -f "$WORK/holder.out"
done

# Another demo holds the directory.
mkdir -p "$WORK/locked"
exec 8>"$WORK/locked.lock"
flock -n 8 || fail "could not take $WORK/locked.lock"
refused locked "another demo" "nothing was started or written"
exec 8>&-

# A base that puts the demo over the end-to-end test's ports.
e2e_base=$(plan_ports e2e && echo "$PLAN_BASE_PORT")
BASE_PORT=$((e2e_base + 50)) refused overlap "BASE_PORT=$((e2e_base + 50)) puts the default network's ports" "over stack e2e's"
echo "[demo-refusals] PASS" >&2
