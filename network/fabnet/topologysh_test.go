package fabnet

import "testing"

// TestTopologyScriptHelpers: a caller's IFS does not change how a list is
// split, a second read leaves nothing of the first, a read sets off no
// caller's ERR trap (network/test.sh has one), and an organisation's
// variable name has '_' for each '-' of its name.
func TestTopologyScriptHelpers(t *testing.T) {
	const env = "ORGS=(ea party-2)\nCHANNEL=fabvote\n"
	tests := []struct{ name, after, want string }{
		{"caller's IFS", `IFS=$'\n\t'; read_topology T_ "$2" --profile x; echo "${#T_ORGS[@]} ${T_ORGS[1]}"`, "2 party-2\n"},
		{"stale name", `T_STALE=1; read_topology T_ "$2" --profile x; echo "${T_STALE-unset} $T_CHANNEL"`, "unset fabvote\n"},
		{"caller's ERR trap", `set -E; trap 'echo TRAPPED >&2' ERR; read_topology NEW_ "$2" --profile x; echo "$NEW_CHANNEL"`, "fabvote\n"},
		{"env name", `topo_env_name NET_PEER_ENV_ "${T_ORGS[1]}"`, "NET_PEER_ENV_party_2\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, err := readTopology(t, env, tc.after); err != nil || got != tc.want {
				t.Fatalf("%q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if out, err := readTopology(t, env, `topo_env_name NET_PEER_ENV_ 'a b'`); err == nil {
		t.Fatalf("topo_env_name took a name with a space: %q", out)
	}
}
