#!/usr/bin/env bash
# ab-gotest.sh OLD NEW PKG BENCH [PAIRS] — one Go benchmark at two commits,
# in alternating trials on the same machine (old, new, old, new, ...).
#
# Builds PKG's test binary at each commit (in temporary worktrees, with the
# gmp tag when libgmp links, as the peer is built) and runs BENCH once per
# trial, PAIRS times each [5]. Prints every raw benchmark line prefixed with
# the commit, so the output is the raw result a figure in docs cites.
# BENCHTIME sets -test.benchtime [3x].
set -euo pipefail
[[ $# -ge 4 ]] || { echo "usage: $0 OLD NEW PKG BENCH [PAIRS]" >&2; exit 2; }
OLD=$1 NEW=$2 PKG=$3 BENCH=$4 PAIRS=${5:-5}
[[ $PAIRS =~ ^[1-9][0-9]*$ ]] || { echo "ab-gotest: PAIRS=$PAIRS: want a positive number" >&2; exit 2; }
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TAGS=$("$ROOT/chaincode/gotags.sh" 2>/dev/null || true)
WORK=$(mktemp -d)
trap 'for c in old new; do git -C "$ROOT" worktree remove --force "$WORK/$c" 2>/dev/null || true; done; rm -rf "$WORK"' EXIT
for c in old new; do
	rev=$OLD
	[[ $c == new ]] && rev=$NEW
	git -C "$ROOT" worktree add --detach -q "$WORK/$c" "$rev"
	(cd "$WORK/$c" && go test -c -tags "$TAGS" -o "$WORK/$c.test" "./$PKG")
done
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), $(nproc) CPUs, $(go version | cut -d' ' -f3), tags '$TAGS'"
echo "# old=$(git -C "$ROOT" rev-parse --short "$OLD") new=$(git -C "$ROOT" rev-parse --short "$NEW") $PKG $BENCH, $PAIRS alternating pairs"
for ((i = 1; i <= PAIRS; i++)); do
	for c in old new; do
		(cd "$WORK/$c/$PKG" && "$WORK/$c.test" -test.run '^$' -test.bench "$BENCH" -test.benchtime "${BENCHTIME:-3x}") |
			grep '^Benchmark' | sed "s/^/$c $i /"
	done
done
