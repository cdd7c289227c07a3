package switches

import (
	"fmt"
	"strings"
)

// Generated files, relative to the repository, and how they are written again.
const (
	ConfigsFile = "bench/configs.tsv"
	PeerFile    = "scripts/peer-switches.tsv"
	ForkDoc     = "docs/FORK.md"
	Regenerate  = "make docs (go test ./fabric/switches -run TestGenerated -args -update)"
)

// The markers around the switch table in docs/FORK.md.
const (
	BeginTable = "<!-- BEGIN switches: generated from fabric/switches by `make docs`; edit the table there, not this text -->"
	EndTable   = "<!-- END switches -->"
)

// ConfigsTSV is bench/configs.tsv: one fork configuration a line,
// name<TAB>description<TAB>VAR=value VAR=value …, after comment lines
// starting with '#'. bench/lib.sh prints a configuration's settings from it
// and bench/report/report.py takes the names, their order and their
// descriptions, so that neither writes a switch's value of its own.
func ConfigsTSV() []byte {
	var b strings.Builder
	b.WriteString("# Generated from fabric/switches by `make docs`; edit the table there, not this file.\n")
	b.WriteString("# name\tdescription\tenvironment (VAR=value, space-separated)\n")
	for _, c := range Configs() {
		fmt.Fprintf(&b, "%s\t%s\t%s\n", c.Name, c.Description, envText(c.Env))
	}
	return []byte(b.String())
}

// PeerSwitchesTSV is scripts/peer-switches.tsv: one peer configuration a
// line, name<TAB>VAR=value VAR=value …<TAB>log text|log text|…, after
// comment lines starting with '#'. scripts/e2e.sh sets each org's peer
// from it and looks for each log text in the peer's log.
func PeerSwitchesTSV() []byte {
	var b strings.Builder
	b.WriteString("# Generated from fabric/switches by `make docs`; edit the table there, not this file.\n")
	b.WriteString("# name\tenvironment (VAR=value, space-separated)\tlog texts ('|'-separated)\n")
	for _, c := range PeerConfigs() {
		fmt.Fprintf(&b, "%s\t%s\t%s\n", c.Name, envText(c.Env), strings.Join(c.Logs, "|"))
	}
	return []byte(b.String())
}

// envText is env as env(1) takes it: VAR=value, space-separated.
func envText(env []Setting) string {
	words := make([]string, len(env))
	for i, s := range env {
		words[i] = s.String()
	}
	return strings.Join(words, " ")
}

// MarkdownTable is docs/FORK.md's switch table, markers included.
func MarkdownTable() string {
	var b strings.Builder
	b.WriteString(BeginTable + "\n")
	b.WriteString("| variable | values | default | invalid value | logged | fork | our package | patches | alone |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range Table {
		vals := make([]string, len(s.Values))
		for i, v := range s.Values {
			vals[i] = fmt.Sprintf("`%s` (%s)", v.Name, v.Meaning)
		}
		def := "`" + s.Default + "`"
		if s.OmitDefault {
			def += "; the benchmark leaves it unset"
		}
		fmt.Fprintf(&b, "| `%s` (%s) | %s | %s | %s | %s | `%s` | `%s` | %s | `%s` |\n",
			s.Env, s.Lever, strings.Join(vals, ", "), def, s.Invalid, s.Logged, s.Fork,
			s.Package, strings.Join(s.Patches, ", "), s.Config)
	}
	b.WriteString(EndTable + "\n")
	return b.String()
}
