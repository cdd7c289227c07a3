package fabrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/network/fabnet"
)

// listenScript listens on 127.0.0.1:argv[1] and accepts forever; with
// argv[2] == "ignore-term" it ignores SIGTERM; it prints its environment's
// names first.
const listenScript = `
import os, signal, socket, sys
if len(sys.argv) > 2 and sys.argv[2] == "ignore-term":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
print("env:", " ".join(sorted(os.environ)), flush=True)
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(16)
print("listening", flush=True)
while True:
    c, _ = s.accept()
    c.close()
`

// python returns the python3 binary itself: Running compares the pid
// file's path with /proc/<pid>/exe, so it must not be a shim or a symlink.
func python(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	out, err := exec.Command(p, "-c", "import os, sys; print(os.path.realpath(sys.executable))").Output()
	if err != nil {
		t.Skipf("python3: %v", err)
	}
	return strings.TrimSpace(string(out))
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// listener is a Proc running listenScript on a free port.
func listener(t *testing.T, h Home, name string, args ...string) fabnet.Proc {
	port := strconv.Itoa(freePort(t))
	return fabnet.Proc{Name: name, Path: python(t), Args: append([]string{"-c", listenScript, port}, args...),
		Env: nodeEnv(), Dir: h.Node(name), Ready: "127.0.0.1:" + port}
}

func startCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// stopAtEnd stops the node when the test ends, whatever happened.
func stopAtEnd(t *testing.T, h Home, name string) {
	t.Cleanup(func() {
		if pid, ok := h.Running(name); ok {
			if err := h.Stop(name, 2*time.Second); err != nil {
				t.Errorf("cleanup: stopping %s (pid %d): %v", name, pid, err)
			}
		}
	})
}

// releasedSoon reports whether nothing listens on addr within a few
// seconds. Stop returns once /proc/<pid>/exe is gone, which happens early
// in the kernel's exit path, before the process's files (its listening
// socket) are closed: so a port may still answer for a moment after Stop.
func releasedSoon(addr string) bool {
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if !answers(addr) {
			return true
		}
	}
	return false
}

func answers(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

func TestStartRunningStop(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		timeout time.Duration // Stop's grace before SIGKILL
	}{
		{"stops on SIGTERM", nil, 5 * time.Second},
		{"killed when it ignores SIGTERM", []string{"ignore-term"}, 300 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := Home{Dir: t.TempDir(), Org: "ea"}
			p := listener(t, h, "cc.ballot", tc.args...)
			stopAtEnd(t, h, p.Name)
			if err := h.Start(startCtx(t, 20*time.Second), p); err != nil {
				t.Fatalf("Start: %v", err)
			}
			if !answers(p.Ready) {
				t.Fatalf("Start returned but nothing listens on %s", p.Ready)
			}
			pid, ok := h.Running(p.Name)
			if !ok || pid <= 0 {
				t.Fatalf("Running = %d, %v after Start", pid, ok)
			}
			rec, err := os.ReadFile(h.pidFile(p.Name))
			if err != nil {
				t.Fatal(err)
			}
			var r pidRecord
			if err := json.Unmarshal(rec, &r); err != nil || r.Pid != pid || r.Exe != p.Path || r.Dir != p.Dir {
				t.Errorf("pid file %q (%v), want pid %d, exe %s, dir %s", rec, err, pid, p.Path, p.Dir)
			}
			if names, err := h.Nodes(); err != nil || !slices.Equal(names, []string{p.Name}) {
				t.Errorf("Nodes = %v, %v", names, err)
			}
			log, _ := os.ReadFile(h.logFile(p.Name))
			if !strings.Contains(string(log), "start "+p.Name) || !strings.Contains(string(log), "listening") {
				t.Errorf("log lacks the start line or the program's output:\n%s", log)
			}
			if fi, err := os.Stat(p.Dir); err != nil || !fi.IsDir() {
				t.Errorf("working directory %s: %v", p.Dir, err)
			}

			// A second Start while it runs is refused, and leaves it running.
			err = h.Start(startCtx(t, 5*time.Second), p)
			if err == nil || !strings.Contains(err.Error(), "already running") || !strings.Contains(err.Error(), strconv.Itoa(pid)) {
				t.Errorf("second Start: %v, want an already-running error with pid %d", err, pid)
			}
			if again, ok := h.Running(p.Name); !ok || again != pid {
				t.Errorf("after the refused Start: Running = %d, %v, want %d", again, ok, pid)
			}

			if err := h.Stop(p.Name, tc.timeout); err != nil {
				t.Fatalf("Stop: %v", err)
			}
			if _, ok := h.Running(p.Name); ok {
				t.Error("still running after Stop")
			}
			if _, err := os.Stat(h.pidFile(p.Name)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("pid file after Stop: %v", err)
			}
			if !releasedSoon(p.Ready) {
				t.Errorf("%s still accepts connections after Stop", p.Ready)
			}
			// Stopping what is not running is fine.
			if err := h.Stop(p.Name, time.Second); err != nil {
				t.Errorf("second Stop: %v", err)
			}
			// And it starts again.
			if err := h.Start(startCtx(t, 20*time.Second), p); err != nil {
				t.Fatalf("Start after Stop: %v", err)
			}
			if err := h.Stop(p.Name, tc.timeout); err != nil {
				t.Fatalf("Stop: %v", err)
			}
		})
	}
}

func TestStartEnvironmentIsTheProcsOnly(t *testing.T) {
	t.Setenv("FOO_SECRET", "hunter2")
	t.Setenv("FABVOTE_TEST_MARK", "1")
	h := Home{Dir: t.TempDir(), Org: "ea"}
	p := listener(t, h, "envcheck")
	p.Env = nodeEnv("EXTRA_FOR_NODE=1")
	stopAtEnd(t, h, p.Name)
	if err := h.Start(startCtx(t, 20*time.Second), p); err != nil {
		t.Fatalf("Start: %v", err)
	}
	log, _ := os.ReadFile(h.logFile(p.Name))
	var names []string
	for _, line := range strings.Split(string(log), "\n") {
		if rest, ok := strings.CutPrefix(line, "env: "); ok {
			names = strings.Fields(rest)
		}
	}
	for _, want := range []string{"FABVOTE_TEST_MARK", "EXTRA_FOR_NODE", "PATH"} {
		if !slices.Contains(names, want) {
			t.Errorf("the node's environment %v lacks %s", names, want)
		}
	}
	if slices.Contains(names, "FOO_SECRET") {
		t.Errorf("the node inherited FOO_SECRET: %v", names)
	}
	if err := h.Stop(p.Name, 5*time.Second); err != nil {
		t.Fatal(err)
	}
}

func TestStartFailures(t *testing.T) {
	py := python(t)
	tests := []struct {
		name    string
		proc    func(h Home) fabnet.Proc
		timeout time.Duration
		want    []string // "<log>" stands for the node's log file
		is      error
	}{
		{"exits at once", func(h Home) fabnet.Proc {
			return fabnet.Proc{Name: "orderer0", Path: py, Env: nodeEnv(), Dir: h.Node("orderer0"), Ready: "127.0.0.1:1",
				Args: []string{"-c", `import sys
print("line one")
print("fatal: cannot bind 127.0.0.1:7050: address in use", file=sys.stderr)
sys.exit(3)`}}
		}, 20 * time.Second, []string{"orderer0 exited during start-up", "exit status 3", "fatal: cannot bind 127.0.0.1:7050: address in use", "line one", "<log>"}, nil},
		{"never listens", func(h Home) fabnet.Proc {
			return fabnet.Proc{Name: "peer0", Path: py, Env: nodeEnv(), Dir: h.Node("peer0"), Ready: "127.0.0.1:" + strconv.Itoa(freePort(t)),
				Args: []string{"-c", "import time\nprint('waiting for godot', flush=True)\ntime.sleep(60)"}}
		}, 700 * time.Millisecond, []string{"peer0 did not listen on 127.0.0.1:", "waiting for godot", "<log>"}, context.DeadlineExceeded},
		{"missing binary", func(h Home) fabnet.Proc {
			return fabnet.Proc{Name: "ca.ea", Path: filepath.Join(h.Dir, "no-such-binary"), Dir: h.Node("ca.ea"), Ready: "127.0.0.1:1"}
		}, 5 * time.Second, []string{"starting ca.ea", "no-such-binary"}, os.ErrNotExist},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := Home{Dir: t.TempDir(), Org: "ea"}
			p := tc.proc(h)
			stopAtEnd(t, h, p.Name)
			err := h.Start(startCtx(t, tc.timeout), p)
			if err == nil {
				t.Fatal("Start succeeded")
			}
			for _, w := range tc.want {
				if w == "<log>" {
					w = h.logFile(p.Name)
				}
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Start: %v\nwant it to contain %q", err, w)
				}
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("Start: %v, want errors.Is %v", err, tc.is)
			}
			if tc.name == "exits at once" {
				if _, ok := h.Running(p.Name); ok {
					t.Error("Running after the program exited")
				}
			}
		})
	}
}

func TestRunning(t *testing.T) {
	self, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	me := os.Getpid()
	_, started := procState(me)
	other := "/usr/bin/sleep"
	if self == other {
		other = "/usr/bin/true"
	}
	const (
		nodeDir  = "node dir" // this process's working directory, in the home
		otherDir = "other"    // another directory of the home
		outside  = "outside"  // a directory outside the home
	)
	tests := []struct {
		name    string
		rec     *pidRecord // nil: no pid file
		raw     string     // the pid file, when rec is nil and raw is not empty
		wantRun bool
	}{
		{"no pid file", nil, "", false},
		{"this process, its binary, directory and start time", &pidRecord{me, self, nodeDir, started}, "", true},
		{"this process, another start time (a reused pid)", &pidRecord{me, self, nodeDir, started + 1}, "", false},
		{"this process, another binary (a reused pid)", &pidRecord{me, other, nodeDir, started}, "", false},
		{"this process, its binary's directory", &pidRecord{me, filepath.Dir(self), nodeDir, started}, "", false},
		{"this process in another node's directory (another org's node)", &pidRecord{me, self, otherDir, started}, "", false},
		{"a directory outside the home (a copied home)", &pidRecord{me, self, outside, started}, "", false},
		{"a pid that does not exist", &pidRecord{999999999, self, nodeDir, started}, "", false},
		{"empty", nil, " ", false},
		{"pid only", nil, fmt.Sprintf(`{"pid":%d}`, me), false},
		{"not JSON", nil, fmt.Sprintf("%d %s\n", me, self), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := Home{Dir: t.TempDir(), Org: "ea"}
			dirs := map[string]string{nodeDir: h.Node("node"), otherDir: h.Node("other"), outside: t.TempDir()}
			for _, d := range dirs {
				if err := os.MkdirAll(d, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			t.Chdir(dirs[nodeDir])
			switch {
			case tc.rec != nil:
				r := *tc.rec
				r.Dir, _ = resolved(dirs[r.Dir])
				b, _ := json.Marshal(r)
				writeFiles(t, h.Dir, map[string]string{"pids/node.pid": string(b)})
			case tc.raw != "":
				writeFiles(t, h.Dir, map[string]string{"pids/node.pid": tc.raw})
			}
			pid, ok := h.Running("node")
			if ok != tc.wantRun || (ok && pid != me) || (!ok && pid != 0) {
				t.Errorf("Running = %d, %v, want running %v", pid, ok, tc.wantRun)
			}
			if !tc.wantRun {
				// Stop of a node that is not running only clears its pid file.
				if err := h.Stop("node", time.Second); err != nil {
					t.Errorf("Stop: %v", err)
				}
				if _, err := os.Stat(h.pidFile("node")); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("Stop left the pid file (%v)", err)
				}
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestRunningZombie(t *testing.T) {
	bin, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true(1)")
	}
	if bin, err = filepath.EvalSymlinks(bin); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	pid := cmd.Process.Pid
	// Not reaped yet: it turns into a zombie.
	deadline := time.Now().Add(5 * time.Second)
	for {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			t.Fatal(err)
		}
		if isZombie(stat) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid %d never became a zombie: %s", pid, stat)
		}
		time.Sleep(10 * time.Millisecond)
	}
	h := Home{Dir: t.TempDir(), Org: "ea"}
	writeFiles(t, h.Dir, map[string]string{"pids/z.pid": fmt.Sprintf("%d %s\n", pid, bin)})
	if pid, ok := h.Running("z"); ok {
		t.Errorf("a zombie counts as running (pid %d)", pid)
	}
}

func TestIsZombie(t *testing.T) {
	tests := []struct {
		stat string
		want bool
	}{
		{"123 (peer) S 1 123 123 0", false},
		{"123 (peer) Z 1 123 123 0", true},
		{"123 (a) Z) R 1 2", false}, // a command name with ") Z" in it
		{"123 (a) R) Z 1 2", true},
		{"123 (peer)", false},
		{"123 (peer) ", false},
		{"", false},
		{")", false},
	}
	for _, tc := range tests {
		if got := isZombie([]byte(tc.stat)); got != tc.want {
			t.Errorf("isZombie(%q) = %v, want %v", tc.stat, got, tc.want)
		}
	}
}

func TestStopAll(t *testing.T) {
	h := Home{Dir: t.TempDir(), Org: "ea"}
	var procs []fabnet.Proc
	for _, name := range []string{"tlsca.ea", "peer0", "cc.ballot"} {
		p := listener(t, h, name)
		stopAtEnd(t, h, name)
		if err := h.Start(startCtx(t, 20*time.Second), p); err != nil {
			t.Fatalf("Start %s: %v", name, err)
		}
		procs = append(procs, p)
	}
	// A stale pid file of a node that is gone.
	writeFiles(t, h.Dir, map[string]string{"pids/orderer9.pid": fmt.Sprintf("%d %s\n", 999999999, procs[0].Path)})
	names, err := h.Nodes()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"cc.ballot", "orderer9", "peer0", "tlsca.ea"}; !slices.Equal(names, want) {
		t.Errorf("Nodes = %v, want %v", names, want)
	}
	if err := h.StopAll(5 * time.Second); err != nil {
		t.Fatalf("StopAll: %v", err)
	}
	for _, p := range procs {
		if _, ok := h.Running(p.Name); ok {
			t.Errorf("%s still running", p.Name)
		}
		if !releasedSoon(p.Ready) {
			t.Errorf("%s still listens on %s", p.Name, p.Ready)
		}
	}
	if names, err := h.Nodes(); err != nil || len(names) != 0 {
		t.Errorf("after StopAll: Nodes = %v, %v", names, err)
	}
	// Nothing to stop is fine, as is a home without a pids directory.
	if err := h.StopAll(time.Second); err != nil {
		t.Errorf("second StopAll: %v", err)
	}
	if err := (Home{Dir: t.TempDir()}).StopAll(time.Second); err != nil {
		t.Errorf("StopAll of an empty home: %v", err)
	}
}

func TestNodeEnv(t *testing.T) {
	vars := []struct {
		key, value string
		passed     bool
	}{
		{"FABVOTE_AUTHORITY_MSPS", "EAMSP", true},
		{"FABVOTE_", "empty-suffix", true},
		{"PATH", "/usr/local/bin:/usr/bin:/bin", true},
		{"HOME", "/home/ea", true},
		{"TMPDIR", "/tmp/ea", true},
		{"GOMAXPROCS", "2", true},
		{"GODEBUG", "madvdontneed=1", true},
		{"FOO_SECRET", "hunter2", false},
		{"FABRIC_CA_SERVER_BOOT", "registrar:pw", false},
		{"XFABVOTE_Y", "1", false},
		{"FABVOTEX", "1", false},
		{"fabvote_lower", "1", false},
		{"LD_PRELOAD", "/tmp/evil.so", false},
		{"PATHX", "1", false},
	}
	for _, v := range vars {
		t.Setenv(v.key, v.value)
	}
	env := nodeEnv("FABRIC_CFG_PATH=/cfg", "CORE_PEER_ID=peer0")
	for _, v := range vars {
		kv := v.key + "=" + v.value
		if got := slices.Contains(env, kv); got != v.passed {
			t.Errorf("%s passed = %v, want %v", v.key, got, v.passed)
		}
	}
	if n := len(env); n < 2 || env[n-2] != "FABRIC_CFG_PATH=/cfg" || env[n-1] != "CORE_PEER_ID=peer0" {
		t.Errorf("extra is not at the end, in order: %v", env)
	}
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if k == "FOO_SECRET" {
			t.Errorf("nodeEnv passed %s", kv)
		}
	}
}

func TestTail(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, content string
		n             int
		want          string
	}{
		{"short", "a\nb\n", 15, "a\nb"},
		{"long", "1\n2\n3\n4\n5\n", 2, "4\n5"},
		{"no final newline", "1\n2\n3", 2, "2\n3"},
		{"empty", "", 3, ""},
	}
	for _, tc := range tests {
		p := filepath.Join(dir, tc.name)
		if err := os.WriteFile(p, []byte(tc.content), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := tail(p, tc.n); got != tc.want {
			t.Errorf("%s: tail = %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := tail(filepath.Join(dir, "absent"), 3); got != "" {
		t.Errorf("tail of a missing file = %q", got)
	}
}

// TestPassEnvLeavesSecretsOut: a PIN, password or secret of the caller
// reaches no node (its environment is written into node.json).
func TestPassEnvLeavesSecretsOut(t *testing.T) {
	t.Setenv("FABVOTE_PKCS11_PIN", "1234")
	t.Setenv("FABVOTE_REGISTRAR_SECRET", "s")
	t.Setenv("DB_PASSWORD", "p")
	t.Setenv("FABVOTE_SHA256", "simd")
	env, err := PassEnv([]string{"DB_PASSWORD"})
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(env, "\n")
	for _, secret := range []string{"FABVOTE_PKCS11_PIN", "FABVOTE_REGISTRAR_SECRET", "DB_PASSWORD"} {
		if strings.Contains(joined, secret+"=") {
			t.Errorf("%s passed to a node", secret)
		}
	}
	if !strings.Contains(joined, "FABVOTE_SHA256=simd") {
		t.Error("FABVOTE_SHA256 not passed")
	}
}
