#!/usr/bin/env bash
# report.sh RESULTS_DIR... — `make bench-report` (RESULTS="dir1 dir2" pools several runs): install matplotlib in a venv
# under .cache (once), then run report.py. CALIPER_RESULTS (space-separated
# directories from caliper-bench/run.sh) adds their summaries.
set -euo pipefail
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
RESULTS=("${@:-$ROOT/.cache/bench/results/latest}")
VENV=$ROOT/.cache/venv-report
if [[ ! -x $VENV/bin/python || ! -f $VENV/.matplotlib-ok ]]; then
	echo "bench-report: installing matplotlib into $VENV" >&2
	python3 -m venv "$VENV"
	"$VENV/bin/pip" install -q 'matplotlib==3.9.2'
	touch "$VENV/.matplotlib-ok"
fi
args=()
for d in ${CALIPER_RESULTS:-}; do args+=(--caliper "$d"); done
cd "$ROOT"
"$VENV/bin/python" bench/report/report.py "${RESULTS[@]}" --doc docs/bench/end-to-end.md --plots docs/bench "${args[@]}"
