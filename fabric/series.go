// Package fabric describes the fabvote fork of Hyperledger Fabric as built
// from this directory: the pinned upstream (UPSTREAM) and the patch series
// (patches/). The files are embedded, so `fabvote version` names exactly the
// series that fabric/build.sh applies and stamps into `peer version`.
package fabric

import (
	"bufio"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

//go:embed UPSTREAM
var upstreamFile string

//go:embed patches/*.patch
var patchFiles embed.FS

// Series is the fork's identity.
type Series struct {
	Release string   // upstream Fabric release, e.g. 2.5.0
	Commit  string   // upstream commit of that release
	Module  string   // module path of the pinned upstream
	Version string   // module version the Go proxy serves it as
	Patches []string // patch file names, in the order they apply
	Level   string   // "<highest number>+sha256:<12 hex>", see PatchLevel
}

// Load reads the embedded pin and patch series.
func Load() (Series, error) {
	pin, err := parseUpstream(upstreamFile)
	if err != nil {
		return Series{}, err
	}
	names, err := fs.Glob(patchFiles, "patches/*.patch")
	if err != nil || len(names) == 0 {
		return Series{}, fmt.Errorf("no patches embedded: %v", err)
	}
	sort.Strings(names)
	s := Series{Release: pin["RELEASE"], Commit: pin["COMMIT"], Module: pin["MODULE"], Version: pin["VERSION"]}
	for _, n := range names {
		s.Patches = append(s.Patches, path.Base(n))
	}
	s.Level, err = PatchLevel(patchFiles, names)
	return s, err
}

// PatchLevel is the highest patch number and the first 12 hex digits of
// SHA-256 over each patch's base name, a newline and its content, in order
// (the same as `fabric/build.sh patch-level`).
func PatchLevel(fsys fs.FS, names []string) (string, error) {
	h := sha256.New()
	for _, n := range names {
		body, err := fs.ReadFile(fsys, n)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\n", path.Base(n))
		h.Write(body)
	}
	last := path.Base(names[len(names)-1])
	number, _, _ := strings.Cut(last, "-")
	return number + "+sha256:" + hex.EncodeToString(h.Sum(nil))[:12], nil
}

// parseUpstream reads the KEY=VALUE lines of UPSTREAM (a shell fragment).
func parseUpstream(text string) (map[string]string, error) {
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("UPSTREAM: line %q is not KEY=VALUE", line)
		}
		out[k] = v
	}
	for _, k := range []string{"MODULE", "VERSION", "RELEASE", "COMMIT"} {
		if out[k] == "" {
			return nil, fmt.Errorf("UPSTREAM lacks %s", k)
		}
	}
	return out, nil
}
