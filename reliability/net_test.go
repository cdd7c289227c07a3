//go:build reliability

package reliability

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/internal/gateway"
	"github.com/fabvote/fabvote/internal/nettest"
	"github.com/fabvote/fabvote/network/portplan"
)

// root is the repository root (go test runs in reliability/).
var root = func() string {
	d, err := filepath.Abs("..")
	if err != nil {
		panic(err)
	}
	return d
}()

// testNet is one network started with network/net.sh for one test.
type testNet struct {
	t       *testing.T
	name    string
	runDir  string
	env     []string // what net.sh needs to find this network again
	netJSON string
	net     *gateway.Network
}

// portSlot gives each test its own network in the port plan's stack
// reliability (network/portplan), which REL_BASE_PORT moves.
func portSlot(t *testing.T, slot int) int {
	s, err := portplan.Lookup("reliability")
	if err != nil {
		t.Fatal(err)
	}
	if slot >= s.Slots {
		t.Fatalf("slot %d: the port plan's stack reliability holds %d networks", slot, s.Slots)
	}
	if v := os.Getenv("REL_BASE_PORT"); v != "" {
		b, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("REL_BASE_PORT=%q: %v", v, err)
		}
		s = s.WithBase(b)
	}
	base := s.SlotBase(slot)
	if err := portplan.CheckPlacement(s.Name, base); err != nil {
		t.Fatal(err)
	}
	return base
}

// startNet brings a network up (profile, chaincodes, extra node environment)
// and registers its teardown; on failure it prints every node's log tail.
func startNet(t *testing.T, name, profile string, slot int, chaincodes string, extraEnv ...string) *testNet {
	t.Helper()
	runDir := filepath.Join(root, "run", "rel-"+name)
	n := &testNet{t: t, name: name, runDir: runDir}
	n.env = []string{
		"PROFILE=" + profile,
		"NET_RUN_DIR=" + runDir,
		"NET_STACK=reliability",
		"BASE_PORT=" + strconv.Itoa(portSlot(t, slot)),
		"NET_SET_CURRENT=0",
		"CHAINCODES=" + chaincodes,
		// cryptogen, the quick option: this suite starts a dozen networks and
		// tests faults, not enrollment (network-test and the end-to-end
		// tests run on Fabric CA identities).
		"NET_IDENTITIES=cryptogen",
	}
	n.env = append(n.env, extraEnv...)
	// A network of an earlier, interrupted run in the same directory goes first.
	if _, err := os.Stat(filepath.Join(runDir, "state.env")); err == nil {
		_, _ = n.netsh("down")
	}
	t0 := time.Now()
	if out, err := n.netsh("up"); err != nil {
		n.dumpLogs(60)
		_, _ = n.netsh("down")
		t.Fatalf("net.sh up (%s): %v\n%s", name, err, nettest.Tail(out, 60))
	}
	t.Logf("network %s (%s) up in %s", name, profile, time.Since(t0).Round(time.Second))
	t.Cleanup(func() {
		if t.Failed() {
			n.dumpLogs(40)
		}
		if os.Getenv("REL_KEEP") == "1" {
			t.Logf("REL_KEEP=1: network %s left running in %s", name, runDir)
			return
		}
		if out, err := n.netsh("down"); err != nil {
			t.Errorf("net.sh down (%s): %v\n%s", name, err, nettest.Tail(out, 20))
		}
	})
	n.netJSON = filepath.Join(runDir, "network.json")
	net, err := gateway.LoadNetwork(n.netJSON)
	if err != nil {
		t.Fatal(err)
	}
	n.net = net
	return n
}

// netsh runs network/net.sh with this network's environment.
func (n *testNet) netsh(args ...string) (string, error) {
	cmd := exec.Command(filepath.Join(root, "network", "net.sh"), args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), n.env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (n *testNet) mustNetsh(args ...string) string {
	n.t.Helper()
	out, err := n.netsh(args...)
	if err != nil {
		n.t.Fatalf("net.sh %s: %v\n%s", strings.Join(args, " "), err, nettest.Tail(out, 40))
	}
	return strings.TrimSpace(out)
}

// logs returns the paths of every node log of this network.
func (n *testNet) logs() []string {
	m, _ := filepath.Glob(filepath.Join(n.runDir, "logs", "*.log"))
	return m
}

// dumpLogs prints the last lines of every node's log to the test output.
func (n *testNet) dumpLogs(lines int) {
	for _, p := range n.logs() {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		n.t.Logf("==== %s (last %d lines) ====\n%s", filepath.Base(p), lines, nettest.Tail(string(b), lines))
	}
}

// connect opens a gateway connection (org name or MSP id, identity, chaincode).
func (n *testNet) connect(org, identity, chaincode string, attempts int) *gateway.Conn {
	n.t.Helper()
	c, err := gateway.Connect(n.net, gateway.Options{Org: org, Identity: identity, Chaincode: chaincode,
		MaxAttempts: attempts, CommitTimeout: 60 * time.Second})
	if err != nil {
		n.t.Fatal(err)
	}
	n.t.Cleanup(func() { c.Close() })
	return c
}

// countLines counts lines of the node log that contain s.
func countInLog(path, s string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	c := 0
	for sc.Scan() {
		if strings.Contains(sc.Text(), s) {
			c++
		}
	}
	return c
}

// fabvoteBin builds cmd/fabvote once into the test's temp dir.
func fabvoteBin(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "fabvote")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/fabvote")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/fabvote: %v\n%s", err, b)
	}
	return out
}
