# shellcheck shell=bash
# ports.sh — sourced by the scripts that start networks: the port plan
# (network/portplan) through `fabnet ports`, so that no script writes a port
# number of its own. Needs ROOT, and GO (go): fabnet is built from this
# checkout into BIN once per shell (go build leaves an up-to-date binary as it is).

# fabnet_tool sets FABNET to a fabnet built from this checkout.
fabnet_tool() {
	local bin=${BIN:-$ROOT/bin}
	[[ -n ${FABNET:-} ]] && return 0
	(cd "$ROOT" && "${GO:-go}" build -o "$bin/" ./network/cmd/fabnet) >&2 || return 1
	FABNET=$bin/fabnet
}

# plan_ports STACK [BASE] [SLOT]: sets FABNET and PLAN_BASE_PORT (and PLAN_EA_ADDR, PLAN_BOX_ADDR, PLAN_BOX_OPS_ADDR,
# PLAN_EA_OPS_ADDR, PLAN_PROMETHEUS_ADDR, PLAN_PPROF_* where the stack has
# them) for network SLOT of STACK, moved to BASE when one is given. Refuses
# a BASE whose ports meet another stack's.
plan_ports() {
	local out line
	fabnet_tool || return 1
	out=$("$FABNET" ports env --stack "$1" ${2:+--base-port "$2"} --slot "${3:-0}") || return 1
	while IFS= read -r line; do
		[[ $line =~ ^[A-Z_]+=[0-9.:]+$ ]] || { echo "ports.sh: unexpected line from fabnet ports: $line" >&2; return 1; }
		printf -v "PLAN_${line%%=*}" '%s' "${line#*=}"
	done <<<"$out"
}
