package fabrun

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabvote/fabvote/network/fabnet"
)

func TestDefineAndDefined(t *testing.T) {
	h := Home{Dir: t.TempDir()}
	p := fabnet.Proc{Name: "peer0.ea", Path: "/usr/bin/true", Args: []string{"node", "start"},
		Env: []string{"A=1"}, Dir: h.Node("peer0.ea"), Ready: "127.0.0.1:7150"}
	if err := h.Define(p); err != nil {
		t.Fatal(err)
	}
	if err := h.Define(fabnet.Proc{Name: "cc.ballot.peer0.ea", Path: "/usr/bin/true", Dir: h.Node("cc.ballot.peer0.ea"), Ready: "127.0.0.1:7153"}); err != nil {
		t.Fatal(err)
	}
	// Redefined: the new definition, the same place in the order.
	p.Env = []string{"A=2"}
	if err := h.Define(p); err != nil {
		t.Fatal(err)
	}
	got, err := h.Defined("peer0.ea")
	if err != nil {
		t.Fatal(err)
	}
	if got.Path != p.Path || !slices.Equal(got.Args, p.Args) || !slices.Equal(got.Env, []string{"A=2"}) || got.Dir != p.Dir || got.Ready != p.Ready {
		t.Errorf("Defined = %+v, want %+v", got, p)
	}
	names, err := h.DefinedNodes()
	if want := []string{"peer0.ea", "cc.ballot.peer0.ea"}; err != nil || !slices.Equal(names, want) {
		t.Errorf("DefinedNodes = %v, %v; want %v", names, err, want)
	}
	if info, err := os.Stat(filepath.Join(h.Dir, "nodes", "peer0.ea", "node.json")); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("node.json: %v, %v; want mode 0600 (the environment may hold settings of the operator's)", info, err)
	}
}

func TestDefineRefuses(t *testing.T) {
	h := Home{Dir: t.TempDir()}
	ok := fabnet.Proc{Name: "orderer0", Path: "/usr/bin/true", Dir: h.Node("orderer0"), Ready: "127.0.0.1:7050"}
	tests := []struct {
		name   string
		change func(p *fabnet.Proc)
		want   string
	}{
		{"a name with a slash", func(p *fabnet.Proc) { p.Name = "../orderer0" }, "node name"},
		{"an empty name", func(p *fabnet.Proc) { p.Name = "" }, "node name"},
		{"a relative binary", func(p *fabnet.Proc) { p.Path = "bin/orderer" }, "absolute binary path"},
		{"no ready address", func(p *fabnet.Proc) { p.Ready = "" }, "ready address"},
		{"no directory", func(p *fabnet.Proc) { p.Dir = "" }, "directory"},
		{"a directory outside the home", func(p *fabnet.Proc) { p.Dir = "/tmp" }, "not in the home"},
		{"a directory that climbs out of the home", func(p *fabnet.Proc) { p.Dir = h.Dir + "/nodes/../.." }, "not in the home"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ok
			tt.change(&p)
			if err := h.Define(p); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Define = %v, want an error naming %q", err, tt.want)
			}
			if names, _ := h.DefinedNodes(); len(names) != 0 {
				t.Errorf("a refused definition was listed: %v", names)
			}
		})
	}
}

func TestDefinedUnknownOrCorrupt(t *testing.T) {
	h := Home{Dir: t.TempDir()}
	if err := h.Define(fabnet.Proc{Name: "orderer0", Path: "/usr/bin/true", Dir: h.Node("orderer0"), Ready: "127.0.0.1:7050"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Defined("orderer9"); err == nil || !strings.Contains(err.Error(), `unknown node "orderer9"; nodes: orderer0`) {
		t.Errorf("Defined(unknown) = %v, want the known nodes listed", err)
	}
	writeFiles(t, h.Dir, map[string]string{"nodes/orderer1/node.json": `{"Name": "orderer0"}`, "nodes/orderer2/node.json": `{`})
	if _, err := h.Defined("orderer1"); err == nil || !strings.Contains(err.Error(), `defines "orderer0"`) {
		t.Errorf("Defined(moved file) = %v, want the name mismatch", err)
	}
	if _, err := h.Defined("orderer2"); err == nil || !strings.Contains(err.Error(), "node.json") {
		t.Errorf("Defined(truncated file) = %v, want the file named", err)
	}
}

// TestDefineConcurrently: organisations enrolling at the same time define
// their CA servers at once; every name is listed once.
func TestDefineConcurrently(t *testing.T) {
	h := Home{Dir: t.TempDir()}
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("ca.org%d", i)
			errs <- h.Define(fabnet.Proc{Name: name, Path: "/usr/bin/true", Dir: h.Node(name), Ready: "127.0.0.1:1"})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	names, err := h.DefinedNodes()
	if err != nil || len(names) != 32 {
		t.Fatalf("DefinedNodes = %d names, %v; want 32", len(names), err)
	}
}

// TestStopAllDefinedAndKill: Kill ends a node at once, StopAll stops the
// rest, the last defined first; the log records each stop.
func TestStopAllDefinedAndKill(t *testing.T) {
	h := Home{Dir: t.TempDir()}
	var procs []fabnet.Proc
	for _, name := range []string{"orderer0", "peer0.ea", "cc.ballot.peer0.ea"} {
		p := listener(t, h, name, "ignore-term")
		stopAtEnd(t, h, name)
		if err := h.Define(p); err != nil {
			t.Fatal(err)
		}
		if err := h.Start(startCtx(t, 20*time.Second), p); err != nil {
			t.Fatalf("Start %s: %v", name, err)
		}
		procs = append(procs, p)
	}
	if err := h.Kill("peer0.ea"); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	if _, ok := h.Running("peer0.ea"); ok {
		t.Fatal("peer0.ea runs after Kill")
	}
	start := time.Now()
	if err := h.StopAll(200 * time.Millisecond); err != nil {
		t.Fatalf("StopAll: %v", err)
	}
	for _, p := range procs {
		if _, ok := h.Running(p.Name); ok {
			t.Errorf("%s runs after StopAll", p.Name)
		}
	}
	// Each ignores SIGTERM: two of them each waited out the timeout.
	if d := time.Since(start); d < 400*time.Millisecond {
		t.Errorf("StopAll took %v: did it send SIGKILL before the timeout?", d)
	}
	b, _ := os.ReadFile(h.logFile("peer0.ea"))
	if !strings.Contains(string(b), "stopped peer0.ea with SIGKILL") {
		t.Errorf("peer0.ea's log does not record the kill:\n%s", b)
	}
	order := func(name string) time.Time {
		info, err := os.Stat(h.logFile(name))
		if err != nil {
			t.Fatal(err)
		}
		return info.ModTime()
	}
	if !order("cc.ballot.peer0.ea").Before(order("orderer0")) {
		t.Error("the orderer was stopped before the chaincode service defined after it")
	}
}

func TestPassEnv(t *testing.T) {
	t.Setenv("FABVOTE_SHA256", "simd")
	t.Setenv("GOGC", "200")
	t.Setenv("CORE_PEER_ADDRESS", "stray:1")
	t.Setenv("SECRET", "x")
	tests := []struct {
		name    string
		pass    []string
		extra   []string
		want    []string
		notWant []string
		err     string
	}{
		{"default", nil, nil, []string{"FABVOTE_SHA256=simd"}, []string{"GOGC=200", "CORE_PEER_ADDRESS=stray:1", "SECRET=x"}, ""},
		{"passed by name", []string{"GOGC"}, []string{"K=V"}, []string{"GOGC=200", "K=V"}, []string{"SECRET=x"}, ""},
		{"an entry without =", nil, []string{"GOGC"}, nil, nil, `"GOGC": want KEY=VALUE`},
		{"an entry with a bad key", nil, []string{"1A=b"}, nil, nil, `"1A=b": want KEY=VALUE`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := PassEnv(tt.pass, tt.extra...)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("PassEnv = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !slices.Contains(env, w) {
					t.Errorf("%s missing from %v", w, env)
				}
			}
			for _, w := range tt.notWant {
				if slices.Contains(env, w) {
					t.Errorf("%s passed on", w)
				}
			}
		})
	}
}
