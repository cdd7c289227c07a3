// Package switches is the one description of the fork's switches: the
// environment variables (levers O-I to O-VII) that turn each optimisation of
// the patched Fabric on or off at run time.
//
// Everything else that names a switch derives from Table: the benchmark's
// configurations (bench/configs.tsv, read by bench/lib.sh and
// bench/report/report.py), the peers' settings of the end-to-end test and
// the log lines that show them (scripts/peer-switches.tsv, read by
// scripts/e2e.sh) and the switch table of docs/FORK.md are generated from it,
// network/compose passes the peer switches through to the Docker network's
// nodes from it, and its tests tie it to fabric/build.sh, fabric/test.sh's
// switch modes and the patch series, so that adding or changing a switch is one edit here and
// `make docs`. The package imports nothing of Fabric: it describes the
// fork, it is not part of it.
package switches

// A Value is one setting of a switch and what it selects.
type Value struct {
	Name    string // as written in the environment
	Meaning string // what the peer (or network tool) does with it
	// Logs is the text a peer's log holds once it has taken this value
	// (the INFO line its patch writes, after "fabvote: "); empty for a
	// switch that the peer does not read.
	Logs string
}

// A Switch is one lever of the fork.
type Switch struct {
	Env     string  // the environment variable
	Lever   string  // O-I … O-VII, as the documents and benchmark reports name it
	Values  []Value // every accepted value, the default first
	Default string  // the value that keeps stock Fabric's behaviour
	Fork    string  // the value the fork's configurations run with
	// OmitDefault: configurations with the switch at its default leave the
	// variable unset, so that the tool reading it applies its own default.
	OmitDefault bool
	Invalid     string   // what an unknown value does
	Logged      string   // how a process says which value it took
	Package     string   // our package the switch selects, relative to the repository
	Patches     []string // the patch files of fabric/patches that wire it in
	Config      string   // the ablation configuration with this switch alone
	Summary     string   // one line: what the fork's value does
	// ReadBy is the process that reads the variable: ReadByPeer for a
	// switch each organisation sets for its own peer, ReadByChaincode for
	// one that the channel's chaincode definition decides.
	ReadBy string
	// Check is the value that takes the fork's path and also checks it
	// against stock's, if the switch has one; the end-to-end test runs it.
	Check string
}

// The processes that read a switch (Switch.ReadBy).
const (
	ReadByPeer      = "peer"
	ReadByChaincode = "ballot chaincode"
)

// Configuration names that are not one switch alone.
const (
	ConfigOff   = "fork-off" // every switch at its default
	ConfigAll   = "all"      // O-I to O-III
	ConfigAllO4 = "all-o4"   // O-I to O-IV
	ConfigFork  = "fork"     // every switch at the fork's value
)

// A Setting is one VAR=value line of a configuration's environment.
type Setting struct{ Env, Value string }

// String is the setting as env(1) takes it.
func (s Setting) String() string { return s.Env + "=" + s.Value }

// A Config is one benchmark configuration of the fork's binaries.
type Config struct {
	Name        string
	Description string    // as the benchmark report writes it
	Env         []Setting // in Table's order
}

// Configs derives the fork's benchmark configurations from Table: fork-off,
// each switch alone, all, all-o4 and fork, in the order the benchmark
// report lists them.
func Configs() []Config {
	on := func(n int) func(int) bool { return func(i int) bool { return i < n } }
	cs := []Config{{ConfigOff, "fork, every switch off", settings(func(int) bool { return false })}}
	for i, s := range Table {
		cs = append(cs, Config{s.Config, "fork, " + s.Lever + " (" + s.Summary + ")", settings(func(j int) bool { return j == i })})
	}
	return append(cs,
		Config{ConfigAll, "fork, " + levers(3), settings(on(3))},
		Config{ConfigAllO4, "fork, " + levers(4), settings(on(4))},
		Config{ConfigFork, "fork, every switch on (" + Table[0].Lever + " to " + Table[len(Table)-1].Lever + ")", settings(on(len(Table)))},
	)
}

// settings is the environment with the switches for which on is true at the
// fork's value and the others at their default (or unset, see OmitDefault).
func settings(on func(int) bool) []Setting {
	var env []Setting
	for i, s := range Table {
		switch {
		case on(i):
			env = append(env, Setting{s.Env, s.Fork})
		case !s.OmitDefault:
			env = append(env, Setting{s.Env, s.Default})
		}
	}
	return env
}

// levers joins the levers of the first n switches: "O-I + O-II + O-III".
func levers(n int) string {
	out := ""
	for i, s := range Table[:n] {
		if i > 0 {
			out += " + "
		}
		out += s.Lever
	}
	return out
}

// The peer configurations of the end-to-end test, in which the peers of
// one channel run different switches and must still agree on every block.
const (
	PeerFork  = "peer-fork"  // every switch a peer reads at its Check value, else the fork's
	PeerStock = "peer-stock" // every switch a peer reads at its default, as stock Fabric
)

// A PeerConfig is the environment of one peer and the lines its log shows
// once it has taken each setting.
type PeerConfig struct {
	Name string
	Env  []Setting
	Logs []string
}

// PeerConfigs derives PeerFork and PeerStock from Table: only the switches
// that a peer reads (ReadByPeer), because each organisation chooses them
// for its own peer.
func PeerConfigs() []PeerConfig {
	fork, stock := PeerConfig{Name: PeerFork}, PeerConfig{Name: PeerStock}
	for _, s := range Table {
		if s.ReadBy != ReadByPeer {
			continue
		}
		on := s.Fork
		if s.Check != "" {
			on = s.Check
		}
		fork.Env = append(fork.Env, Setting{s.Env, on})
		fork.Logs = append(fork.Logs, s.value(on).Logs)
		stock.Env = append(stock.Env, Setting{s.Env, s.Default})
		stock.Logs = append(stock.Logs, s.value(s.Default).Logs)
	}
	return []PeerConfig{fork, stock}
}

// value is the switch's Value called name, or the zero Value.
func (s Switch) value(name string) Value {
	for _, v := range s.Values {
		if v.Name == name {
			return v
		}
	}
	return Value{}
}
