package fabrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/network/fabnet"
	"github.com/fabvote/fabvote/network/portprobe"
)

func (h Home) pidFile(name string) string { return h.path("pids", name+".pid") }
func (h Home) logFile(name string) string { return h.path("logs", name+".log") }

// LogFile is the named node's log, appended to across restarts.
func (h Home) LogFile(name string) string { return h.logFile(name) }

// Tail is the end of the named node's log: its last n lines.
func (h Home) Tail(name string, n int) string { return tail(h.logFile(name), n) }

// Start runs p detached from this process (its own session, so it
// outlives the command that started it) and waits until it accepts TCP
// connections on p.Ready, or fails with the end of its log if it exits
// first.
func (h Home) Start(ctx context.Context, p fabnet.Proc) error {
	if pid, ok := h.Running(p.Name); ok {
		return fmt.Errorf("%s is already running (pid %d)", p.Name, pid)
	}
	for _, d := range []string{h.path("pids"), h.path("logs"), p.Dir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	if !h.holds(p.Dir) {
		return fmt.Errorf("%s: its directory %s is not in the home %s", p.Name, p.Dir, h.Dir)
	}
	log, err := os.OpenFile(h.logFile(p.Name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer log.Close()
	fmt.Fprintf(log, "==== %s start %s\n", time.Now().UTC().Format(time.RFC3339), p.Name)
	cmd := exec.Command(p.Path, p.Args...)
	cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = p.Env, p.Dir, log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", p.Name, err)
	}
	// /proc/PID/exe names the resolved binary: record that, so that a
	// binary reached through a symlink is recognised as running.
	exe, err := filepath.EvalSymlinks(p.Path)
	if err == nil {
		_, started := procState(cmd.Process.Pid)
		err = h.writePidFile(p.Name, pidRecord{Pid: cmd.Process.Pid, Exe: exe, Dir: p.Dir, Start: started})
	}
	if err != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	if err := h.waitReady(ctx, p, exited); err != nil {
		// A node that never became ready does not stay behind.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = os.Remove(h.pidFile(p.Name))
		return err
	}
	return nil
}

func (h Home) waitReady(ctx context.Context, p fabnet.Proc, exited <-chan error) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-exited:
			return fmt.Errorf("%s exited during start-up (%v); the end of %s:\n%s", p.Name, err, h.logFile(p.Name), tail(h.logFile(p.Name), 15))
		case <-ctx.Done():
			return fmt.Errorf("%s did not listen on %s: %w; the end of %s:\n%s", p.Name, p.Ready, ctx.Err(), h.logFile(p.Name), tail(h.logFile(p.Name), 15))
		case <-tick.C:
			if portprobe.Accepting(p.Ready) {
				return nil
			}
		}
	}
}

// pidRecord identifies a node's process: its pid, the binary it runs, its
// working directory (the node's own) and its start time. On one machine
// where several organisations run the same binaries, the directory tells
// their nodes apart, and the start time tells the node from a later
// process that reuses its pid, so neither is ever taken for this node.
type pidRecord struct {
	Pid   int    `json:"pid"`
	Exe   string `json:"exe"`
	Dir   string `json:"dir"`
	Start uint64 `json:"start"` // clock ticks after boot (/proc/PID/stat, field 22)
}

func (h Home) writePidFile(name string, r pidRecord) error {
	// /proc/PID/cwd names the resolved directory.
	dir, err := resolved(r.Dir)
	if err != nil {
		return err
	}
	r.Dir = dir
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(h.pidFile(name), append(b, '\n'), 0o600)
}

// resolved is dir with every symbolic link resolved, as /proc/PID/cwd
// names it; a path that does not exist yet is made absolute only.
func resolved(dir string) (string, error) {
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	return filepath.Abs(dir)
}

// holds reports whether dir is the home or inside it: a node runs in a
// directory of its home, so a copy of a home, pid files and all, does not
// take the original's nodes for its own.
func (h Home) holds(dir string) bool {
	home, err := resolved(h.Dir)
	if err != nil {
		return false
	}
	d, err := resolved(dir)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(home, d)
	return err == nil && filepath.IsLocal(rel)
}

// Running reports the pid of the named node when its recorded process is
// alive and still runs the recorded binary in the recorded directory.
func (h Home) Running(name string) (int, bool) {
	if r, ok := h.running(name); ok {
		return r.Pid, true
	}
	return 0, false
}

func (h Home) running(name string) (pidRecord, bool) {
	var r pidRecord
	b, err := os.ReadFile(h.pidFile(name))
	if err != nil {
		return r, false
	}
	if err := json.Unmarshal(b, &r); err != nil || r.Pid <= 0 {
		return r, false
	}
	if !h.holds(r.Dir) {
		return r, false
	}
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", r.Pid))
	if err != nil || strings.TrimSuffix(exe, " (deleted)") != r.Exe {
		return r, false
	}
	if cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", r.Pid)); err != nil || strings.TrimSuffix(cwd, " (deleted)") != r.Dir {
		return r, false
	}
	return r, r.alive()
}

// alive reports whether the recorded process exists and has not exited:
// the kernel drops /proc/PID/exe before the process has closed its files
// (its listeners among them), so a stop waits on this instead.
func (r pidRecord) alive() bool {
	running, started := procState(r.Pid)
	return running && started == r.Start
}

// procState reads /proc/PID/stat: whether the process exists and has not
// exited, and when it started.
func procState(pid int) (running bool, started uint64) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil || isZombie(stat) {
		return false, 0
	}
	// The fields after the command's closing parenthesis start at the
	// third (the state); the start time is the 22nd.
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(f) < 20 {
		return false, 0
	}
	started, err = strconv.ParseUint(f[19], 10, 64)
	return err == nil, started
}

// isZombie reads the state field of /proc/PID/stat: Z (zombie) or X (dead).
func isZombie(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	return i > 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X')
}

// Stop sends SIGTERM to the named node's process group (the node and
// anything it started), then SIGKILL after timeout, and returns once the
// node has exited.
func (h Home) Stop(name string, timeout time.Duration) error {
	return h.signal(name, syscall.SIGTERM, "SIGTERM", timeout)
}

// Kill sends SIGKILL to the named node's process group, as a crash would
// end it, and returns once the node has exited. Its ledger stays.
func (h Home) Kill(name string) error { return h.signal(name, syscall.SIGKILL, "SIGKILL", 0) }

func (h Home) signal(name string, sig syscall.Signal, sigName string, timeout time.Duration) error {
	r, ok := h.running(name)
	if !ok {
		return os.RemoveAll(h.pidFile(name))
	}
	_ = syscall.Kill(-r.Pid, sig)
	if !waitExit(r, timeout) {
		// Still the node's process (waitExit checked its start time): a
		// pid reused meanwhile is never signalled.
		_ = syscall.Kill(-r.Pid, syscall.SIGKILL)
		if !waitExit(r, 5*time.Second) {
			return fmt.Errorf("%s (pid %d) survived SIGKILL", name, r.Pid)
		}
	}
	if log, err := os.OpenFile(h.logFile(name), os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
		fmt.Fprintf(log, "==== %s stopped %s with %s\n", time.Now().UTC().Format(time.RFC3339), name, sigName)
		log.Close()
	}
	return os.Remove(h.pidFile(name))
}

func waitExit(r pidRecord, d time.Duration) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if !r.alive() {
			return true
		}
	}
	return !r.alive()
}

// StopAll stops every node of the home: the defined ones the last
// defined first (chaincode services, then peers, orderers and CA
// servers), then any other node with a pid file, chaincode services and
// peers before orderers and CAs.
func (h Home) StopAll(timeout time.Duration) error {
	defined, err := h.DefinedNodes()
	if err != nil {
		return err
	}
	withPid, err := h.Nodes()
	if err != nil {
		return err
	}
	var order []string
	for i := len(defined) - 1; i >= 0; i-- {
		order = append(order, defined[i])
	}
	for _, prefix := range []string{"cc.", "peer", "orderer", ""} {
		for _, n := range withPid {
			if strings.HasPrefix(n, prefix) && !slices.Contains(order, n) {
				order = append(order, n)
			}
		}
	}
	var errs []error
	for _, n := range order {
		errs = append(errs, h.Stop(n, timeout))
	}
	return errors.Join(errs...)
}

// Nodes lists the nodes that have a pid file.
func (h Home) Nodes() ([]string, error) {
	m, err := filepath.Glob(h.path("pids", "*.pid"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, f := range m {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".pid"))
	}
	return names, nil
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func tail(path string, n int) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// goRuntimeEnv are the variables of the caller, besides PATH, HOME,
// TMPDIR and every FABVOTE_* one, that a node inherits by default: the Go
// runtime's knobs and the loader path.
var goRuntimeEnv = []string{"GOMAXPROCS", "GOGC", "GOMEMLIMIT", "GODEBUG", "LD_LIBRARY_PATH"}

// nodeEnv is the environment a node starts with: from the caller only
// PATH, HOME, TMPDIR, every FABVOTE_* variable and goRuntimeEnv, then
// extra.
func nodeEnv(extra ...string) []string { return append(callerEnv(goRuntimeEnv), extra...) }

func callerEnv(pass []string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if secretName(k) {
			continue
		}
		if k == "PATH" || k == "HOME" || k == "TMPDIR" || strings.HasPrefix(k, "FABVOTE_") || slices.Contains(pass, k) {
			env = append(env, kv)
		}
	}
	return env
}

// secretName tells a variable that holds a secret (the election
// authority's PKCS#11 PIN, a password): no node needs one, and a node's
// environment is written into its definition (node.json).
func secretName(k string) bool {
	for _, suffix := range []string{"_PIN", "_PASSWORD", "_SECRET"} {
		if strings.HasSuffix(k, suffix) {
			return true
		}
	}
	return false
}
