#!/usr/bin/env bash
# against.sh — this tree's benchmark ballot against a commit's, in
# alternating trials: the time `make ballots` takes to make a set of ballots
# (bench/ballots.sh), and `make bench`'s run of one configuration
# (bench/run-matrix.sh) casting a set of each onto a fresh network.
#
#   bench/against.sh BASE OUT [TRIALS]
#
# BASE is a commit, checked out into a temporary worktree and built there
# (make fabric fabvote); this tree is built too. Each side keeps its own
# ballot cache, as a ballot of one format is no ballot of the other: both
# sides make the benchmark election with the same parameters (bench/ballots.sh)
# and the same number of ballots of random choices, which is as identical as
# the input can be. Each side's election is made once, outside the trials
# (its key's generation time varies with the primes found).
#
# For trials T = 1..TRIALS (default 5), base first in odd trials and head first
# in even ones:
#   OUT/ballots-SIDE-T.time  GNU time of bench/ballots.sh making BALLOTS_VOTERS ballots
#   OUT/bench-SIDE-T/        run-matrix.sh's results: one trial of CONFIG casting
#                            the first VOTERS ballots of SIDE's set
# then OUT/summary.txt (bench/against.py). Variables (defaults in brackets):
# BALLOTS_VOTERS [1000], VOTERS [10000], CONFIG [fork], RATE [0],
# CONCURRENCY [1200]. Run it on an idle machine: nothing else may run meanwhile.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BASE=${1:?usage: against.sh BASE OUT [TRIALS]}
OUT=${2:?usage: against.sh BASE OUT [TRIALS]}
TRIALS=${3:-5}
BALLOTS_VOTERS=${BALLOTS_VOTERS:-1000}
VOTERS=${VOTERS:-10000}
CONFIG=${CONFIG:-fork}
RATE=${RATE:-0}
CONCURRENCY=${CONCURRENCY:-1200}
[[ $TRIALS =~ ^[1-9][0-9]*$ ]] || { echo "against.sh: TRIALS=$TRIALS: want a positive number" >&2; exit 2; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

work=$(mktemp -d)
trap 'git -C "$ROOT" worktree remove --force "$work/w/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
mkdir -p "$work/w"
git -C "$ROOT" worktree add --detach "$work/w/base" "$BASE" >/dev/null
# The build reads the environment's notes beside the checkout, as it does for this tree.
[[ -e $ROOT/../shared ]] && ln -s "$(cd "$ROOT/../shared" && pwd)" "$work/w/shared"
declare -A TREE=([base]=$work/w/base [head]=$ROOT)

{
	# Changes under OUT (the results themselves, when OUT is in this tree) do not count.
	exclude=()
	[[ $OUT == "$ROOT"/* ]] && exclude=(":(exclude)$OUT")
	echo "base $(git -C "$ROOT" rev-parse "$BASE"), head $(git -C "$ROOT" rev-parse HEAD)$(git -C "$ROOT" diff --quiet -- . "${exclude[@]}" || echo ' (with uncommitted changes)')"
	echo "$(nproc) CPUs: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1); $(go version)"
	echo "ballots per make-ballots trial: $BALLOTS_VOTERS; make bench: $CONFIG, $VOTERS ballots, rate $RATE (0 = closed loop), concurrency $CONCURRENCY; $TRIALS trials"
} >"$OUT/meta.txt"

# side SIDE CMD...: CMD in SIDE's tree, with SIDE's binaries, run directory and ballot cache.
side() {
	local s=$1 tree=${TREE[$1]}
	shift
	env ROOT="$tree" BIN="$tree/bin" RUN="$tree/run" BENCH_CACHE="$work/cache-$s" "$@"
}

for s in base head; do
	make -C "${TREE[$s]}" fabric fabvote >"$OUT/build-$s.log" 2>&1 || { tail -20 "$OUT/build-$s.log" >&2; exit 1; }
	side "$s" VOTERS=1 "${TREE[$s]}/bench/ballots.sh" >/dev/null 2>>"$OUT/build-$s.log"
done

# make_ballots SIDE T: one timed make of BALLOTS_VOTERS ballots (the set is removed first).
make_ballots() {
	rm -rf "$work/cache-$1/bench-2048-$BALLOTS_VOTERS"
	side "$1" VOTERS="$BALLOTS_VOTERS" /usr/bin/time -f '%e %U %S' -o "$OUT/ballots-$1-$2.time" \
		"${TREE[$1]}/bench/ballots.sh" >/dev/null 2>>"$OUT/ballots.log"
}
# bench_run SIDE T: one make bench trial of CONFIG on SIDE's set of VOTERS ballots.
bench_run() {
	side "$1" BENCH_CONFIGS="$CONFIG" TRIALS=1 VOTERS="$VOTERS" RATE="$RATE" CONCURRENCY="$CONCURRENCY" \
		OUT="$OUT/bench-$1-$2" "${TREE[$1]}/bench/run-matrix.sh" >>"$OUT/bench.log" 2>&1
}
# alternate STEP: STEP for every trial, base first in odd trials, head first in even ones.
alternate() {
	local t
	for t in $(seq "$TRIALS"); do
		if ((t % 2)); then "$1" base "$t" && "$1" head "$t"; else "$1" head "$t" && "$1" base "$t"; fi
		echo "against.sh: $1 trial $t of $TRIALS done" >&2
	done
}

alternate make_ballots
# Each side's set for make bench, made outside the trials.
for s in base head; do side "$s" VOTERS="$VOTERS" "${TREE[$s]}/bench/ballots.sh" >/dev/null 2>>"$OUT/ballots.log"; done
alternate bench_run
rm -f "$OUT/latest" # run-matrix.sh's link to its last results, beside them
python3 "$ROOT/bench/against.py" "$OUT" | tee "$OUT/summary.txt"
