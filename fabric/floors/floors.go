// Package floors holds the lowest module versions the fork's and fabvote's
// binaries may link (floors.txt) and checks a binary's build information
// against them, so that no later change can silently roll a security fix
// back. cmd: fabric/floors/depsfloor (docs/cli/depsfloor.md); make target:
// deps-floor-check.
package floors

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
)

//go:embed floors.txt
var floorsTxt string

// Floor is one line of floors.txt.
type Floor struct {
	Module     string // module path, or "go" for the toolchain
	Version    Version
	Advisories string
}

// Floors parses the embedded floors.txt.
func Floors() ([]Floor, error) {
	return Parse(floorsTxt)
}

// Parse reads floors in the floors.txt format; blank and # lines are skipped.
func Parse(text string) ([]Floor, error) {
	var out []Floor
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 3 {
			return nil, fmt.Errorf("floors line %d: want <module> <version> <advisories>, got %q", i+1, line)
		}
		v, err := ParseVersion(fields[1])
		if err != nil {
			return nil, fmt.Errorf("floors line %d: %w", i+1, err)
		}
		out = append(out, Floor{Module: fields[0], Version: v, Advisories: strings.Join(fields[2:], " ")})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no floors")
	}
	return out, nil
}

// Version is a release version major.minor.patch; a pre-release or
// pseudo-version suffix sorts below the release it precedes.
type Version struct {
	Major, Minor, Patch int
	Pre                 string
}

// ParseVersion accepts "v1.2.3", "1.2.3", "go1.26.6", "v1.2.3-pre",
// "v1.2.3-0.2024...-abcdef" and "v3.5.9+incompatible"; "1.26" means 1.26.0.
func ParseVersion(s string) (Version, error) {
	t := strings.TrimPrefix(strings.TrimPrefix(s, "go"), "v")
	t, _, _ = strings.Cut(t, "+")
	core, pre, _ := strings.Cut(t, "-")
	parts := strings.Split(core, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return Version{}, fmt.Errorf("version %q is not major.minor[.patch]", s)
	}
	var n [3]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 {
			return Version{}, fmt.Errorf("version %q: %q is not a number", s, p)
		}
		n[i] = v
	}
	return Version{Major: n[0], Minor: n[1], Patch: n[2], Pre: pre}, nil
}

// Less reports whether v sorts before w.
func (v Version) Less(w Version) bool {
	if v.Major != w.Major {
		return v.Major < w.Major
	}
	if v.Minor != w.Minor {
		return v.Minor < w.Minor
	}
	if v.Patch != w.Patch {
		return v.Patch < w.Patch
	}
	return v.Pre != "" && w.Pre == "" // a pre-release precedes its release
}

func (v Version) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	if v.Pre != "" {
		s += "-" + v.Pre
	}
	return s
}
