#!/usr/bin/env bash
# fuzz-smoke.sh — run every Go fuzz target of the module for a fixed time.
#
# Targets are discovered, not listed: every `func FuzzXxx(` in the test files
# that `go list ./...` reports for each package, so a target added anywhere in
# the module is fuzzed without editing this script. Each target runs on its own
# (go test -fuzz accepts one target per run) with its committed seed corpus
# (testdata/fuzz/<Target>), for FUZZTIME. A crash fails the run; the table at
# the end names each target, its executions and its result.
#
#   FUZZTIME=30s reliability/fuzz-smoke.sh            # all targets, 30 s each
#   FUZZ_MATCH=election reliability/fuzz-smoke.sh     # only packages matching a regexp
#
# Environment: GO (go), FUZZ_BUDGET (seconds of fuzzing shared by every
# target, 102; at least FUZZ_MIN, 3 s, each), FUZZTIME (a time per target
# instead of the shared budget, e.g. 30s), FUZZMINIMIZE (200x: minimising a new
# input may otherwise take 60 s), FUZZ_MATCH (regexp on the import path),
# FUZZ_LOG_DIR (run/fuzz-smoke: one log per target).
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
FUZZ_BUDGET=${FUZZ_BUDGET:-102}
FUZZ_MIN=${FUZZ_MIN:-3}
FUZZTIME=${FUZZTIME:-}
FUZZMINIMIZE=${FUZZMINIMIZE:-200x}
FUZZ_MATCH=${FUZZ_MATCH:-.}
LOG_DIR=${FUZZ_LOG_DIR:-run/fuzz-smoke}
mkdir -p "$LOG_DIR"

targets=()
while IFS='|' read -r dir pkg files; do
	[[ -n "$files" ]] || continue
	[[ "$pkg" =~ $FUZZ_MATCH ]] || continue
	IFS=',' read -r -a fs <<<"$files"
	for f in "${fs[@]}"; do
		[[ -n "$f" ]] || continue
		while read -r name; do
			targets+=("$pkg $name")
		done < <(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$dir/$f")
	done
done < <($GO list -f '{{.Dir}}|{{.ImportPath}}|{{join .TestGoFiles ","}},{{join .XTestGoFiles ","}}' ./...)

if ((${#targets[@]} == 0)); then
	echo "fuzz-smoke: no fuzz targets found (go list ./... and grep 'func Fuzz')" >&2
	exit 1
fi
if [[ -z $FUZZTIME ]]; then
	[[ $FUZZ_BUDGET =~ ^[0-9]+$ && $FUZZ_MIN =~ ^[0-9]+$ ]] || { echo "fuzz-smoke: FUZZ_BUDGET and FUZZ_MIN want whole seconds" >&2; exit 2; }
	per=$((FUZZ_BUDGET / ${#targets[@]}))
	FUZZTIME=$((per > FUZZ_MIN ? per : FUZZ_MIN))s
	echo "fuzz-smoke: a budget of ${FUZZ_BUDGET}s shared by ${#targets[@]} targets"
fi
echo "fuzz-smoke: ${#targets[@]} targets, $FUZZTIME each (logs in $LOG_DIR)"

run_target() { # pkg name log fuzztime
	$GO test -run '^$' -fuzz "^${2}\$" -fuzztime "$4" -fuzzminimizetime "$FUZZMINIMIZE" "$1" >"$3" 2>&1
}

# execs_in LOG: the cumulative execution count of the log's last progress line
# ("fuzz: elapsed: 30s, execs: 123456 (4115/sec), ..."), 0 if there is none.
execs_in() {
	local n
	n=$(grep -o 'execs: [0-9]*' "$1" | tail -1 | awk '{print $2}' || true)
	echo "${n:-0}"
}

# deadline_only LOG: the run failed only because the fuzzing deadline expired.
deadline_only() {
	grep -q 'context deadline exceeded' "$1" &&
		! grep -q -e 'Failing input written to' -e '^panic:' -e '--- FAIL: .*/' "$1"
}

rows=()
failed=0
start_all=$(date +%s)
for t in "${targets[@]}"; do
	pkg=${t% *}
	name=${t#* }
	log="$LOG_DIR/$(echo "$pkg" | tr '/' '_').$name.log"
	t0=$(date +%s)
	echo "--- $pkg $name"
	rc=0
	again=
	run_target "$pkg" "$name" "$log" "$FUZZTIME" || rc=$?
	# Go 1.26's fuzz coordinator can end a clean timed run with "context
	# deadline exceeded": when -fuzztime's deadline fires, its stop filter may
	# see the parent context expired before the workers' child context is
	# cancelled, and reports the shutdown as a failure. No failing input is
	# written and nothing crashed. Such a run is repeated once with a count
	# instead of a duration (-fuzztime Nx, N the executions the timed run
	# reached, at least 1): a count sets no deadline, so the race cannot
	# recur, and the repeat costs about the same time. A real crash always
	# writes its input and fails.
	if ((rc != 0)) && deadline_only "$log"; then
		count=$(execs_in "$log")
		((count > 0)) || count=1
		budget=${count}x
		echo "fuzz-smoke: $pkg $name ended at the deadline without a failing input; running it again for $budget" >&2
		mv "$log" "$log.deadline"
		rc=0
		again=" (run twice)"
		run_target "$pkg" "$name" "$log" "$budget" || rc=$?
	fi
	secs=$(($(date +%s) - t0))
	execs=$(execs_in "$log")
	if ((rc == 0)); then
		result="ok$again"
	else
		result=FAIL
		failed=$((failed + 1))
		echo "FAIL: $pkg $name (exit $rc); its log:" >&2
		tail -40 "$log" >&2
	fi
	rows+=("$(printf '%-52s %-28s %12s %6ss  %s' "$pkg" "$name" "$execs" "$secs" "$result")")
done
total=$(($(date +%s) - start_all))

echo
printf '%-52s %-28s %12s %7s  %s\n' package target execs time result
for r in "${rows[@]}"; do echo "$r"; done
echo "fuzz-smoke: ${#targets[@]} targets, $failed failed, ${total}s in all"
if ((failed > 0)); then
	echo "fuzz-smoke: a failing input is written to the package's testdata/fuzz/<Target>/; reproduce with go test -run '<Target>/<file>' <pkg>" >&2
	exit 1
fi
