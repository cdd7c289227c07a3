package floors

import (
	"fmt"
	"strings"
)

// Binary is what `go version -m` says about one executable: its Go
// toolchain, the version of each module it links (after replacements), and
// the GODEBUG defaults it was built with.
type Binary struct {
	Path    string
	Go      string
	Modules map[string]string
	// DefaultGODEBUG is set when the main module's go line (or a godebug
	// directive) asks for older behaviour than the toolchain's: the
	// settings that turn newer standard-library protections off.
	DefaultGODEBUG string
}

// GODEBUGModule names the violation of a binary built with DefaultGODEBUG.
const GODEBUGModule = "DefaultGODEBUG"

// ParseVersionM splits the output of `go version -m FILE...` into binaries.
// A header line is "<path>: go1.26.8"; a dependency line is
// "\tdep\t<module>\t<version>\t<sum>", followed by "\t=>\t<module>\t<version>"
// when replaced (the replacement is what the binary links).
func ParseVersionM(out string) ([]Binary, error) {
	var bins []Binary
	var cur *Binary
	var lastDep string
	for _, line := range strings.Split(out, "\n") {
		if line == "" {
			continue
		}
		if !strings.HasPrefix(line, "\t") {
			path, goVersion, ok := strings.Cut(line, ": ")
			if !ok || !strings.HasPrefix(goVersion, "go") {
				return nil, fmt.Errorf("unexpected line %q in go version -m output", line)
			}
			bins = append(bins, Binary{Path: path, Go: strings.TrimSpace(goVersion), Modules: map[string]string{}})
			cur = &bins[len(bins)-1]
			continue
		}
		if cur == nil {
			return nil, fmt.Errorf("module line %q before any binary", line)
		}
		f := strings.Fields(line)
		switch {
		case len(f) >= 3 && f[0] == "dep":
			cur.Modules[f[1]] = f[2]
			lastDep = f[1]
		case len(f) >= 3 && f[0] == "=>" && lastDep != "":
			delete(cur.Modules, lastDep)
			cur.Modules[f[1]] = f[2]
		case len(f) >= 2 && f[0] == "build" && strings.HasPrefix(f[1], GODEBUGModule+"="):
			cur.DefaultGODEBUG = strings.TrimPrefix(f[1], GODEBUGModule+"=")
		}
	}
	if len(bins) == 0 {
		return nil, fmt.Errorf("no binaries in go version -m output")
	}
	return bins, nil
}

// Violation is one module (or toolchain) of one binary below its floor.
type Violation struct {
	Binary, Module, Have string
	Floor                Floor
}

func (v Violation) String() string {
	if v.Module == GODEBUGModule {
		return fmt.Sprintf("%s was built with DefaultGODEBUG=%s: its module's go line or a godebug directive turns newer Go security defaults off", v.Binary, v.Have)
	}
	return fmt.Sprintf("%s links %s %s, below the floor %s (%s)", v.Binary, v.Module, v.Have, v.Floor.Version, v.Floor.Advisories)
}

// Check returns every floor a binary violates. A module the binary does not
// link is no violation: the floor concerns what is in the binary. A version
// that does not parse is reported, never passed. A binary built with older
// GODEBUG defaults than its toolchain's is a violation too: the toolchain
// floor carries the standard library's fixes only with its own defaults.
func Check(bins []Binary, floors []Floor) []Violation {
	var out []Violation
	for _, b := range bins {
		if b.DefaultGODEBUG != "" {
			out = append(out, Violation{Binary: b.Path, Module: GODEBUGModule, Have: b.DefaultGODEBUG})
		}
		for _, f := range floors {
			have, ok := b.Modules[f.Module]
			if f.Module == "go" {
				have, ok = b.Go, true
			}
			if !ok {
				continue
			}
			v, err := ParseVersion(have)
			if err != nil || v.Less(f.Version) {
				out = append(out, Violation{Binary: b.Path, Module: f.Module, Have: have, Floor: f})
			}
		}
	}
	return out
}
