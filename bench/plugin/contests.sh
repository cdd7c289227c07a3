#!/usr/bin/env bash
# contests.sh — the validation plugin's CPU per ballot in blocks of 500
# (BenchmarkCheckBlock500 and BenchmarkCheckBlock500Contests, GMP), in
# alternating trials: this tree's one-question ballot against BASE's (a
# commit), and this tree's three-contest ballot against its one-question
# ballot in the same process.
#
#   bench/plugin/contests.sh BASE OUT_DIR [TRIALS]
#
# Writes OUT_DIR/base-T.txt and OUT_DIR/head-T.txt (raw go test -bench
# output) for trials T = 1..TRIALS (default 6), base first in odd trials and
# head first in even ones, then OUT_DIR/summary.txt (bench/plugin/ratio.py).
# Run it on an idle machine: nothing else may run during a trial.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BASE=${1:?usage: contests.sh BASE OUT_DIR [TRIALS]}
OUT=${2:?usage: contests.sh BASE OUT_DIR [TRIALS]}
TRIALS=${3:-6}
GO=${GO:-go}
mkdir -p "$OUT"
work=$(mktemp -d)
trap 'git -C "$ROOT" worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git -C "$ROOT" worktree add --detach "$work/base" "$BASE" >/dev/null
# Compiled once, outside the trials.
(cd "$work/base" && $GO test -c -tags gmp -o "$work/base.test" ./validation/ballotcheck)
(cd "$ROOT" && $GO test -c -tags gmp -o "$work/head.test" ./validation/ballotcheck)
run() { # run NAME BENCH-REGEXP
	(cd "$ROOT/validation/ballotcheck" && "$work/$1.test" -test.run '^$' -test.bench "$2" -test.benchtime 3x)
}
{
	echo "base $(git -C "$ROOT" rev-parse "$BASE"), head $(git -C "$ROOT" rev-parse HEAD)$(git -C "$ROOT" diff --quiet -- . ":(exclude)$OUT" || echo ' (with uncommitted changes)')"
	echo "$(nproc) CPUs: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1); $($GO version)"
} >"$OUT/meta.txt"
for t in $(seq "$TRIALS"); do
	if ((t % 2)); then
		run base 'CheckBlock500$' >"$OUT/base-$t.txt"
		run head 'CheckBlock500(Contests)?$' >"$OUT/head-$t.txt"
	else
		run head 'CheckBlock500(Contests)?$' >"$OUT/head-$t.txt"
		run base 'CheckBlock500$' >"$OUT/base-$t.txt"
	fi
	echo "trial $t of $TRIALS done" >&2
done
python3 "$ROOT/bench/plugin/ratio.py" "$OUT" | tee "$OUT/summary.txt"
