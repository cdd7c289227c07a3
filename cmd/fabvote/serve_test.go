package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/internal/easigner"
	"github.com/fabvote/fabvote/internal/nettest"
	"github.com/fabvote/fabvote/internal/registrar"
)

// TestMain lets the test binary act as the fabvote command, so tests can run
// `fabvote ea serve` as a real process and kill it.
func TestMain(m *testing.M) {
	if os.Getenv("FABVOTE_TEST_AS_CLI") == "1" {
		cli.Main(newRootCommand)
	}
	os.Exit(m.Run())
}

// serveEnv is an election (the fixture's keys and a fresh pseudonym key)
// with a roll and TLS material.
type serveEnv struct {
	dir      string
	codes    [][2]string
	m        *election.Manifest
	pseudKey []byte // DIR/pseudonym.key, the key e.m commits to
}

func (e *serveEnv) p(s string) string { return filepath.Join(e.dir, s) }

// manifest is the fixture's manifest for id, committing to e's pseudonym key.
func (e *serveEnv) manifest(id string) *election.Manifest {
	m := electiontest.Load().Manifest(id)
	m.PseudonymKeyCommitment = electiontest.CommitTo(e.pseudKey)
	return m
}

func newServeEnv(t *testing.T, voters int, maxVoters uint64) *serveEnv {
	t.Helper()
	quietStdout(t)
	fx := electiontest.Load()
	e := &serveEnv{dir: t.TempDir()}
	if err := easigner.WritePEM(e.p("ea.key"), fx.EA); err != nil {
		t.Fatal(err)
	}
	var err error
	if e.pseudKey, err = easigner.GeneratePseudonymKey(e.p("pseudonym.key")); err != nil {
		t.Fatal(err)
	}
	e.m = e.manifest("serve-1")
	e.m.MaxVoters = maxVoters
	raw, err := e.m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(e.p("manifest.json"), raw, 0o644)
	if code, errs := fv(t, "ea", "roll", "--voters", fmt.Sprint(voters), "--out", e.p("roll.csv")); code != 0 {
		t.Fatal(errs)
	}
	if code, errs := fv(t, "ea", "tls-cert", "--ca-cert", e.p("ca.crt"), "--ca-key", e.p("ca.key"), "--tls-cert", e.p("tls.crt"), "--tls-key", e.p("tls.key"), "--hosts", "127.0.0.1"); code != 0 {
		t.Fatal(errs)
	}
	if e.codes, err = registrar.ReadRollCodes(e.p("roll.csv")); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *serveEnv) serveArgs(extra ...string) []string {
	return append([]string{"ea", "serve", "--addr", "127.0.0.1:0", "--manifest", e.p("manifest.json"), "--roll", e.p("roll.csv"),
		"--tls-cert", e.p("tls.crt"), "--tls-key", e.p("tls.key"), "--ea-key", e.p("ea.key"),
		"--ip-rate", "100000", "--ip-burst", "100000", "--ip-failures", "100000"}, extra...)
}

// server is a `fabvote ea serve` process.
type server struct {
	cmd    *exec.Cmd
	url    string
	stderr *nettest.SyncBuffer
	done   chan struct{} // closed when the process has exited
	err    error         // its exit status, once done
}

var listenRE = regexp.MustCompile(`at (https://127\.0\.0\.1:\d+)/v1/register`)

// startServe runs the command and waits until it listens, or returns its
// error output if it exits first.
func startServe(t *testing.T, args []string) (*server, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "FABVOTE_TEST_AS_CLI=1")
	s := &server{cmd: cmd, stderr: &nettest.SyncBuffer{}, done: make(chan struct{})}
	cmd.Stderr, cmd.Stdout = s.stderr, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.err = cmd.Wait(); close(s.done) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-s.done })
	deadline := time.After(30 * time.Second)
	for {
		if m := listenRE.FindStringSubmatch(s.stderr.String()); m != nil {
			s.url = m[1]
			return s, nil
		}
		select {
		case <-s.done:
			return nil, fmt.Errorf("ea serve exited (%v): %s", s.err, s.stderr.String())
		case <-deadline:
			t.Fatalf("ea serve did not start in 30s:\n%s", s.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (e *serveEnv) client(t *testing.T, url string) *registrar.Client {
	t.Helper()
	c, err := registrar.NewClient(url, e.p("ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func newVoterPub(t *testing.T) []byte {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := k.PublicKey.Bytes()
	return b
}

// TestServeTwoServersOneState: a second `ea serve` on the state a running
// one holds refuses to start, naming the reason.
func TestServeTwoServersOneState(t *testing.T) {
	e := newServeEnv(t, 3, 10)
	first, err := startServe(t, e.serveArgs("--init-state"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = startServe(t, e.serveArgs())
	if err == nil || !strings.Contains(err.Error(), "in use by another process") {
		t.Fatalf("second server on one state: %v", err)
	}
	if _, err := e.client(t, first.url).Register(context.Background(), &registrar.Request{ElectionID: "serve-1", VoterID: e.codes[0][0], Code: e.codes[0][1], VoterPub: newVoterPub(t)}); err != nil {
		t.Fatalf("the first server stopped working: %v", err)
	}
}

// TestServeRefusesMissingOrForeignState: without --init-state a missing state
// is refused; a state of another roll or election is refused; --init-state
// never replaces a state; a roll past maxVoters or with weak codes is refused.
func TestServeRefusesMissingOrForeignState(t *testing.T) {
	e := newServeEnv(t, 3, 10)
	if code, errs := fv(t, e.serveArgs()...); code != 1 || !strings.Contains(errs, "does not exist") || !strings.Contains(errs, "init-state") {
		t.Fatalf("missing state: %d %s", code, errs)
	}
	if code, errs := fv(t, "ea", "init-state", "--manifest", e.p("manifest.json"), "--roll", e.p("roll.csv")); code != 0 {
		t.Fatalf("ea init-state: %s", errs)
	}
	if code, errs := fv(t, e.serveArgs("--init-state")...); code != 1 || !strings.Contains(errs, "already exists") {
		t.Fatalf("--init-state over a state: %d %s", code, errs)
	}
	// Another roll for the same election (same manifest and keys): the old
	// state must not be used with it.
	other := newServeEnv(t, 3, 10)
	for _, f := range []string{"manifest.json", "pseudonym.key"} {
		data, err := os.ReadFile(e.p(f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(other.p(f), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	os.Rename(e.p("roll.csv.state.db"), other.p("roll.csv.state.db"))
	if code, errs := fv(t, other.serveArgs()...); code != 1 || !strings.Contains(errs, "another voter roll") {
		t.Fatalf("state of another roll: %d %s", code, errs)
	}
	// Another election with the same roll.
	m2 := e.manifest("serve-2")
	raw, _ := m2.Marshal()
	os.WriteFile(other.p("manifest.json"), raw, 0o644)
	os.Rename(other.p("roll.csv.state.db"), e.p("roll.csv.state.db"))
	args := e.serveArgs()
	args[5] = other.p("manifest.json")
	if code, errs := fv(t, args...); code != 1 || !strings.Contains(errs, `belongs to election "serve-1", not "serve-2"`) {
		t.Fatalf("state of another election: %d %s", code, errs)
	}
}

func TestInitStateRefusesBadRolls(t *testing.T) {
	e := newServeEnv(t, 3, 2)
	initArgs := func(roll string) []string {
		return []string{"ea", "init-state", "--manifest", e.p("manifest.json"), "--roll", roll}
	}
	if code, errs := fv(t, initArgs(e.p("roll.csv"))...); code != 1 || !strings.Contains(errs, "3 voters, more than the election's maxVoters 2") {
		t.Fatalf("roll larger than maxVoters: %d %s", code, errs)
	}
	os.WriteFile(e.p("short.csv"), []byte("voter_id,code\nalice,ABCDEFGHJKLMNP\n"), 0o600)
	if code, errs := fv(t, initArgs(e.p("short.csv"))...); code != 1 || !strings.Contains(errs, "fewer than 80") {
		t.Fatalf("short code: %d %s", code, errs)
	}
	for _, f := range []string{"roll.csv.state.db", "short.csv.state.db"} {
		if _, err := os.Stat(e.p(f)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("a refused init-state left %s", f)
		}
	}
}

// TestServeKilledMidRegistration: SIGKILL while registrations are in flight
// loses no answered registration and mints no second token: after a restart
// each voter's retry with the same key gets the token it was answered (or,
// if its answer never came, one token that every later retry repeats), and
// the state counts one token per voter.
func TestServeKilledMidRegistration(t *testing.T) {
	const n = 150
	e := newServeEnv(t, n, n)
	srv, err := startServe(t, e.serveArgs("--init-state"))
	if err != nil {
		t.Fatal(err)
	}
	pubs := make([][]byte, n)
	for i := range pubs {
		pubs[i] = newVoterPub(t)
	}
	answered := make([][]byte, n)
	var prog regProgress
	var wg sync.WaitGroup
	c := e.client(t, srv.url)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok, err := c.Register(context.Background(), &registrar.Request{ElectionID: "serve-1", VoterID: e.codes[i][0], Code: e.codes[i][1], VoterPub: pubs[i]})
			if err == nil {
				answered[i] = tok.Token
			}
			prog.done(err)
		}()
	}
	waitErr := prog.await(n/3, n, time.Minute)
	srv.cmd.Process.Signal(syscall.SIGKILL)
	wg.Wait()
	if waitErr != nil {
		t.Fatalf("registrations did not get far enough to kill ea serve in the middle of them: %v\nea serve:\n%s", waitErr, srv.stderr.String())
	}
	t.Logf("%d of %d registrations answered before SIGKILL", prog.ok.Load(), n)
	if prog.ok.Load() == n {
		t.Fatal("every registration finished before the kill; the test did not kill mid-registration")
	}
	srv2, err := startServe(t, e.serveArgs())
	if err != nil {
		t.Fatal(err)
	}
	c2 := e.client(t, srv2.url)
	final := make([][]byte, n)
	for i := 0; i < n; i++ {
		req := &registrar.Request{ElectionID: "serve-1", VoterID: e.codes[i][0], Code: e.codes[i][1], VoterPub: pubs[i]}
		tok, err := c2.Register(context.Background(), req)
		if err != nil {
			t.Fatalf("voter %d: retry after the restart: %v", i, err)
		}
		if answered[i] != nil && !bytes.Equal(tok.Token, answered[i]) {
			t.Fatalf("voter %d: the retry got another token than the one answered before the kill", i)
		}
		final[i] = tok.Token
		req.VoterPub = newVoterPub(t)
		if _, err := c2.Register(context.Background(), req); err == nil || !strings.Contains(err.Error(), "HTTP 409") {
			t.Fatalf("voter %d: another key after the restart: %v", i, err)
		}
	}
	srv2.cmd.Process.Signal(syscall.SIGTERM)
	<-srv2.done
	checkStoredTokens(t, e, final)
}

// regProgress counts concurrent registrations as they return.
type regProgress struct {
	ok, failed atomic.Int32
	mu         sync.Mutex
	first      error // the first registration error, for the failure message
}

func (p *regProgress) done(err error) {
	if err == nil {
		p.ok.Add(1)
		return
	}
	p.mu.Lock()
	if p.first == nil {
		p.first = err
	}
	p.mu.Unlock()
	p.failed.Add(1)
}

// await waits until want registrations are answered. It gives up as soon as
// every one of total has returned short of that, and at the deadline: when
// registrations fail early, polling the count alone would hang until go
// test's own timeout and say nothing of why.
func (p *regProgress) await(want, total int32, deadline time.Duration) error {
	stop := time.After(deadline)
	for p.ok.Load() < want {
		ok, failed := p.ok.Load(), p.failed.Load()
		if ok+failed == total {
			return fmt.Errorf("all %d registrations returned, %d answered, %d failed (first error: %v); want %d answered", total, ok, failed, p.firstErr(), want)
		}
		select {
		case <-stop:
			return fmt.Errorf("after %v, %d of %d registrations answered and %d failed (first error: %v); want %d answered", deadline, ok, total, failed, p.firstErr(), want)
		case <-time.After(time.Millisecond):
		}
	}
	return nil
}

func (p *regProgress) firstErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.first
}

func TestRegProgressAwait(t *testing.T) {
	boom := errors.New("connection refused")
	for _, tc := range []struct {
		name        string
		ok, failed  int
		later       int // registrations answered after await starts
		want, total int32
		wantErr     string // "" means nil
	}{
		{"enough answered already", 3, 0, 0, 3, 10, ""},
		{"enough answered while waiting", 1, 0, 2, 3, 10, ""},
		{"every registration failed", 0, 10, 0, 3, 10, "all 10 registrations returned, 0 answered, 10 failed (first error: connection refused)"},
		{"all returned, too few answered", 2, 8, 0, 3, 10, "all 10 registrations returned, 2 answered, 8 failed"},
		{"registrations stall", 1, 2, 0, 3, 10, "1 of 10 registrations answered and 2 failed (first error: connection refused); want 3 answered"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p regProgress
			for range tc.ok {
				p.done(nil)
			}
			for range tc.failed {
				p.done(boom)
			}
			go func() {
				for range tc.later {
					time.Sleep(5 * time.Millisecond)
					p.done(nil)
				}
			}()
			start := time.Now()
			err := p.await(tc.want, tc.total, 200*time.Millisecond)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("await: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("await: %v, want an error containing %q", err, tc.wantErr)
			}
			if tc.ok+tc.failed == int(tc.total) && time.Since(start) > 100*time.Millisecond {
				t.Errorf("await took %v to see that every registration had returned", time.Since(start))
			}
		})
	}
}

// checkStoredTokens opens the state directly: one token per voter, each the
// one the voter holds.
func checkStoredTokens(t *testing.T, e *serveEnv, want [][]byte) {
	t.Helper()
	raw, _ := os.ReadFile(e.p("manifest.json"))
	roll, err := registrar.LoadRoll(e.p("roll.csv"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := registrar.NewBinding("serve-1", raw, e.m.MaxVoters, roll)
	if err != nil {
		t.Fatal(err)
	}
	st, err := registrar.OpenStore(e.p("roll.csv.state.db"), b)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got := st.Count(); got != uint64(len(want)) {
		t.Fatalf("state counts %d tokens, want %d", got, len(want))
	}
	for i, tok := range want {
		reg, err := st.Lookup(e.codes[i][0])
		if err != nil || reg == nil || !bytes.Equal(reg.Token, tok) {
			t.Fatalf("voter %d: stored token differs from the one answered (err %v)", i, err)
		}
	}
}

// TestRegisterCodeFromFileOrStdin: the one-time code can come from a file or
// standard input, and giving it twice is a usage error.
func TestRegisterCodeFromFileOrStdin(t *testing.T) {
	e := newServeEnv(t, 2, 10)
	srv, err := startServe(t, e.serveArgs("--init-state"))
	if err != nil {
		t.Fatal(err)
	}
	reg := func(i int, extra ...string) (int, string) {
		args := append([]string{"register", "--url", srv.url, "--ca-cert", e.p("ca.crt"), "--manifest", e.p("manifest.json"),
			"--voter-id", e.codes[i][0], "--voter-key", e.p(fmt.Sprintf("v%d.key", i)), "--out", e.p(fmt.Sprintf("t%d.json", i))}, extra...)
		return fv(t, args...)
	}
	os.WriteFile(e.p("code0"), []byte(e.codes[0][1]+"\n"), 0o600)
	if code, errs := reg(0, "--code-file", e.p("code0")); code != 0 {
		t.Fatalf("--code-file: %s", errs)
	}
	old := stdin
	stdin = strings.NewReader(e.codes[1][1] + "\r\nignored\n")
	defer func() { stdin = old }()
	if code, errs := reg(1, "--code-file", "-"); code != 0 {
		t.Fatalf("--code-file -: %s", errs)
	}
	if code, errs := reg(1, "--code-file", e.p("code0"), "--code", "x"); code != 2 || !strings.Contains(errs, "not both") {
		t.Fatalf("code twice: %d %s", code, errs)
	}
	os.WriteFile(e.p("empty"), nil, 0o600)
	if code, errs := reg(1, "--code-file", e.p("empty")); code != 1 || !strings.Contains(errs, "first line is empty") {
		t.Fatalf("empty code file: %d %s", code, errs)
	}
	// The retry of voter 0 with its key returns the same token file content.
	first, _ := os.ReadFile(e.p("t0.json"))
	if code, errs := reg(0, "--code-file", e.p("code0")); code != 0 {
		t.Fatalf("retry: %s", errs)
	}
	again, _ := os.ReadFile(e.p("t0.json"))
	if !bytes.Equal(first, again) {
		t.Fatal("a retry with the same code and key wrote another token")
	}
}
