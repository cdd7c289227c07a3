# shellcheck shell=bash
# topology.sh — sourced by the scripts that run a network: its topology
# (network/fabnet: the registered profiles, their organisations and
# orderers, MSP ids, domains, hosts, every node's ports, their files in the
# crypto directory, the batch settings) through `fabnet topology env`, so
# that no script writes an organisation, an MSP id, a domain or a port of
# its own (network/README.md, "The topology in scripts").

# read_topology PREFIX FABNET ARGS...: runs `FABNET topology env ARGS` and
# sets PREFIX<NAME> for each line it prints: a list, NAME=(a b c), as a bash
# array, any other line as a string. Each line is checked against the
# characters fabnet writes; nothing is evaluated.
read_topology() {
	local prefix=$1 fabnet=$2 out line
	local list_re='^([A-Z][A-Z0-9_]*)=\(([A-Za-z0-9@._:/ -]*)\)$' scalar_re='^([A-Z][A-Z0-9_]*)=([A-Za-z0-9@._:/ -]*)$'
	shift 2
	[[ $prefix =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || { echo "topology.sh: '$prefix' cannot start a variable name" >&2; return 1; }
	out=$("$fabnet" topology env "$@") || return 1
	# A name an earlier read set and this topology lacks must not survive it.
	while IFS= read -r line; do
		[[ -z $line ]] || unset "$line"
	done < <(compgen -v "$prefix" || true) # compgen fails when none is set
	while IFS= read -r line; do
		if [[ $line =~ $list_re ]]; then
			IFS=' ' read -ra "$prefix${BASH_REMATCH[1]}" <<<"${BASH_REMATCH[2]}"
		elif [[ $line =~ $scalar_re ]]; then
			printf -v "$prefix${BASH_REMATCH[1]}" '%s' "${BASH_REMATCH[2]}"
		else
			echo "topology.sh: unexpected line from fabnet topology env: $line" >&2
			return 1
		fi
	done <<<"$out"
}

# topo_index ARRAY ITEM: the index of ITEM in ARRAY (TOPO_ORGS); status 1
# when it is not there.
topo_index() {
	local -n _topo_list=$1
	local i
	for i in "${!_topo_list[@]}"; do
		[[ ${_topo_list[$i]} == "$2" ]] && { echo "$i"; return 0; }
	done
	return 1
}

# topo_get ARRAY KEYS ITEM: ARRAY's item at ITEM's index in KEYS, e.g.
# topo_get TOPO_PEER_PORTS TOPO_ORGS ea: ea's peer's port.
topo_get() {
	local i
	i=$(topo_index "$2" "$3") || return 1
	local -n _topo_values=$1
	echo "${_topo_values[$i]}"
}

# topo_env_name PREFIX ORG: the variable that carries a setting of ORG: PREFIX
# and ORG's name with each '-' as '_' (NET_PEER_ENV_party_2 for party-2).
# Status 1, with a message, for a name no variable can end with.
topo_env_name() {
	local name=$1${2//-/_}
	[[ $name =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || {
		echo "topology.sh: organisation '$2' gives no variable name ($name)" >&2
		return 1
	}
	echo "$name"
}
