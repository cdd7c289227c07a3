package fabrun

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/network/fabnet"
)

// A defined node is a Proc recorded in the home (nodes/NAME/node.json,
// its name in nodes.list in the order of definition), so that any later
// command can start, stop or inspect it by name alone, without the
// environment of the command that defined it: the single-host network
// (network/net.sh) restarts nodes this way for its fault injection.

// nodeNameRE are the names a node may have: they become file names.
var nodeNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

func checkNodeName(name string) error {
	if !nodeNameRE.MatchString(name) {
		return fmt.Errorf("node name %q: use letters, digits and . _ - only", name)
	}
	return nil
}

func (h Home) definitionFile(name string) string { return h.path("nodes", name, "node.json") }
func (h Home) nodesList() string                 { return h.path("nodes.list") }

// Define records p. Redefining a node replaces its definition and keeps
// its place in the order.
func (h Home) Define(p fabnet.Proc) error {
	if err := checkNodeName(p.Name); err != nil {
		return err
	}
	if !filepath.IsAbs(p.Path) || p.Ready == "" || p.Dir == "" {
		return fmt.Errorf("node %s: want an absolute binary path, a directory and a ready address", p.Name)
	}
	if !h.holds(p.Dir) {
		return fmt.Errorf("node %s: its directory %s is not in the home %s", p.Name, p.Dir, h.Dir)
	}
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(h.definitionFile(p.Name)), 0o700); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(h.definitionFile(p.Name), append(b, '\n'), 0o600); err != nil {
		return err
	}
	names, err := h.DefinedNodes()
	if err != nil || slices.Contains(names, p.Name) {
		return err
	}
	// One write with O_APPEND: organisations that enroll at the same time
	// define their CA servers concurrently.
	f, err := os.OpenFile(h.nodesList(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(p.Name + "\n")
	return errors.Join(err, f.Close())
}

// Defined returns the recorded definition of the named node.
func (h Home) Defined(name string) (fabnet.Proc, error) {
	var p fabnet.Proc
	if err := checkNodeName(name); err != nil {
		return p, err
	}
	b, err := os.ReadFile(h.definitionFile(name))
	if errors.Is(err, os.ErrNotExist) {
		names, _ := h.DefinedNodes()
		return p, fmt.Errorf("unknown node %q; nodes: %s", name, strings.Join(names, " "))
	}
	if err != nil {
		return p, err
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return p, fmt.Errorf("%s: %w", h.definitionFile(name), err)
	}
	if p.Name != name {
		return p, fmt.Errorf("%s defines %q, not %q", h.definitionFile(name), p.Name, name)
	}
	return p, nil
}

// DefinedNodes lists the defined nodes in the order of definition (none
// when the home has no nodes.list).
func (h Home) DefinedNodes() ([]string, error) {
	f, err := os.Open(h.nodesList())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var names []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		if n := strings.TrimSpace(s.Text()); n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names, s.Err()
}

// PassEnv is the environment of a node defined by a command: from the
// caller only PATH, HOME, TMPDIR, every FABVOTE_* variable and the
// variables named in pass, then extra, each checked to be KEY=VALUE.
func PassEnv(pass []string, extra ...string) ([]string, error) {
	for _, kv := range extra {
		if k, _, ok := strings.Cut(kv, "="); !ok || !envKeyRE.MatchString(k) {
			return nil, fmt.Errorf("environment entry %q: want KEY=VALUE", kv)
		}
	}
	return append(callerEnv(pass), extra...), nil
}

var envKeyRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
