package fabric

import (
	"bufio"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/fabvote/fabvote/fabric/switches"
)

// The markers around the patch table in docs/FORK.md.
const (
	BeginPatches = "<!-- BEGIN patches: generated from fabric/patches by `make docs`; edit the patch headers, not this text -->"
	EndPatches   = "<!-- END patches -->"
)

// A PatchInfo is what a patch file says of itself: its subject (the first
// paragraph of its header, after "fabvote NNNN: ") and the files it
// changes, in the order it changes them.
type PatchInfo struct {
	Name    string // the file name without .patch
	Subject string
	Files   []PatchFile
}

// A PatchFile is one file a patch changes.
type PatchFile struct {
	Path string
	New  bool // the patch creates it
}

// ParsePatch reads a patch of the series: its header's subject and the
// files of its diffs.
func ParsePatch(name, text string) (PatchInfo, error) {
	p := PatchInfo{Name: strings.TrimSuffix(name, ".patch")}
	number, _, _ := strings.Cut(p.Name, "-")
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<20)
	inSubject := true
	for sc.Scan() {
		line := sc.Text()
		switch {
		case inSubject && strings.TrimSpace(line) == "":
			inSubject = false
		case inSubject:
			p.Subject = strings.TrimSpace(p.Subject + " " + strings.TrimSpace(line))
		case strings.HasPrefix(line, "diff --git a/"):
			a, _, _ := strings.Cut(strings.TrimPrefix(line, "diff --git a/"), " b/")
			p.Files = append(p.Files, PatchFile{Path: a})
		case strings.HasPrefix(line, "new file mode") && len(p.Files) > 0:
			p.Files[len(p.Files)-1].New = true
		}
	}
	subject, ok := strings.CutPrefix(p.Subject, "fabvote "+number+": ")
	switch {
	case sc.Err() != nil:
		return p, fmt.Errorf("%s: %w", name, sc.Err())
	case !ok || subject == "":
		return p, fmt.Errorf("%s: the header does not start with \"fabvote %s: <subject>\"", name, number)
	case len(p.Files) == 0:
		return p, fmt.Errorf("%s: no diff", name)
	}
	p.Subject = subject
	return p, nil
}

// Patches reads every patch of the embedded series, in order.
func Patches() ([]PatchInfo, error) {
	names, err := fs.Glob(patchFiles, "patches/*.patch")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []PatchInfo
	for _, n := range names {
		b, err := fs.ReadFile(patchFiles, n)
		if err != nil {
			return nil, err
		}
		p, err := ParsePatch(path.Base(n), string(b))
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// PatchTable is docs/FORK.md's table of the series, markers included: each
// patch with the lever it serves (fabric/switches), its subject and its
// files. The header of each patch file says the rest.
func PatchTable() (string, error) {
	ps, err := Patches()
	if err != nil {
		return "", err
	}
	levers := map[string]string{}
	for _, s := range switches.Table {
		for _, p := range s.Patches {
			levers[p] = s.Lever
		}
	}
	var b strings.Builder
	b.WriteString(BeginPatches + "\n| patch | lever | what | files |\n|---|---|---|---|\n")
	for _, p := range ps {
		files := make([]string, len(p.Files))
		for i, f := range p.Files {
			files[i] = "`" + f.Path + "`"
			if f.New {
				files[i] += " (new)"
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", p.Name, levers[p.Name], strings.ReplaceAll(p.Subject, "|", `\|`), strings.Join(files, ", "))
	}
	b.WriteString(EndPatches + "\n")
	return b.String(), nil
}
