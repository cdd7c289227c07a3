#!/usr/bin/env bash
# cpu-busy.sh: the machine's CPU busy share, from /proc/stat.
#   cpu-busy.sh          prints a mark: "BUSY TOTAL" jiffies since boot
#   cpu-busy.sh MARK     prints the busy share since MARK, e.g. "73 % of 2 cores"
# make test prints it for all its parts together (scripts/test-lanes.sh):
# far below 100 %, the lanes leave cores idle.
set -euo pipefail
read -r _ user nice system idle iowait irq softirq steal _ </proc/stat
busy=$((user + nice + system + irq + softirq + steal))
total=$((busy + idle + iowait))
if [ $# -eq 0 ]; then
	echo "$busy $total"
	exit 0
fi
read -r b0 t0 <<<"$1"
cores=$(nproc)
if [ $((total - t0)) -le 0 ]; then echo "n/a"; exit 0; fi
echo "$(((busy - b0) * 100 / (total - t0))) % of $cores cores"
