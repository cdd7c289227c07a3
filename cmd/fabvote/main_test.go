package main

import (
	"bytes"
	"encoding/pem"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
	"github.com/fabvote/fabvote/internal/ballotstream"
	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/internal/cli/clitest"
	"github.com/fabvote/fabvote/internal/easigner"
	"github.com/fabvote/fabvote/internal/registrar"
)

// fv runs the CLI in-process and returns its exit status and stderr.
func fv(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var stderr bytes.Buffer
	code := cli.Execute(newRootCommand(&stderr), args, &stderr)
	return code, stderr.String()
}

func TestUsage(t *testing.T) {
	// box serve's flags are checked before it reads a file or binds a port.
	boxArgs := []string{"box", "serve", "--election", "e1", "--addr", "127.0.0.1:0", "--tls-cert", "c", "--tls-key", "k"}
	clitest.CheckExit(t, newRootCommand, []clitest.Case{
		{Args: nil, Code: 2, Want: "usage: fabvote COMMAND"},
		{Args: []string{"help"}, Code: 0, Want: "election create"},
		{Args: []string{"frobnicate"}, Code: 2, Want: `unknown command "frobnicate"`},
		{Args: []string{"election"}, Code: 2, Want: "usage: fabvote election SUBCOMMAND"},
		{Args: []string{"election", "frobnicate"}, Code: 2, Want: `fabvote election: unknown command "frobnicate"`},
		{Args: []string{"election", "--help"}, Code: 0, Want: "  create  "},
		{Args: []string{"help", "ballot"}, Code: 0, Want: "usage: fabvote ballot --manifest"},
		{Args: []string{"ballot", "--help"}, Code: 0, Want: ""},
		{Args: []string{"cast", "--nope"}, Code: 2, Want: "unknown flag: --nope"},
		{Args: []string{"election", "create", "--election", "x"}, Code: 2, Want: "--max-voters is required"},
		{Args: []string{"election", "create", "--election", "x", "--max-voters", "9", "--out", "d"}, Code: 2, Want: "give --candidates (one question: choose one) or --contests FILE, not both"},
		{Args: []string{"election", "create", "--election", "x", "--max-voters", "9", "--out", "d", "--candidates", "a,b", "--contests", "f"}, Code: 2, Want: "not both"},
		{Args: []string{"election", "create", "--election", "x", "--candidates", "a,b", "--max-voters", "10", "--out", t.TempDir(), "--trustees", "3", "--threshold", "4"}, Code: 2, Want: "--threshold 4 with --trustees 3"},
		{Args: []string{"election", "create", "--election", "x", "--candidates", "a,b", "--max-voters", "10", "--out", t.TempDir(), "--start", "+2h", "--end", "+1h"}, Code: 2, Want: "is not after --start"},
		{Args: []string{"election", "create", "--election", "x", "--candidates", "a,b", "--max-voters", "10", "--out", t.TempDir(), "--start", "tomorrow"}, Code: 2, Want: `--start "tomorrow"`},
		{Args: []string{"election", "create", "--election", "bad id!", "--candidates", "a,b", "--max-voters", "10", "--out", t.TempDir()}, Code: 1, Want: "electionID"},
		{Args: []string{"election", "create", "--election", "x", "--candidates", "a,a", "--max-voters", "10", "--out", t.TempDir()}, Code: 1, Want: "repeats"},
		{Args: []string{"cast", "--ballot", "a", "--ballots", "b"}, Code: 2, Want: "exactly one of --ballot or --ballots"},
		{Args: []string{"cast", "--ballot", "a", "--network", "/nonexistent/network.json"}, Code: 1, Want: "is the network up?"},
		{Args: []string{"tally", "--manifest", "/nonexistent", "--partial", "p.bin"}, Code: 1, Want: "--manifest"},
		{Args: []string{"ea", "roll", "--voters", "0", "--out", "x"}, Code: 2, Want: "--voters 0"},
		{Args: append(boxArgs, "--allow-origin", "https://booth.example.org/booth/"), Code: 2, Want: "--allow-origin \"https://booth.example.org/booth/\": want an origin"},
		{Args: append(boxArgs, "--spoil-burst", "0"), Code: 2, Want: "rate limits must be positive"},
		{Args: append(boxArgs, "--max-in-flight", "0"), Code: 2, Want: "in-flight submissions 0"},
		{Args: append(boxArgs, "--tls-cert", "/nonexistent/box.crt", "--tls-key", "/nonexistent/box.key"), Code: 1, Want: "--tls-cert/--tls-key"},
	})
}

func mode(t *testing.T, p string) os.FileMode {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

// TestOfflineFlow runs every command that needs no network, with real keys.
func TestOfflineFlow(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a real 2048-bit key")
	}
	quietStdout(t)
	e := createOfflineElection(t)
	checkOfflineTokenLimit(t, e)
	checkBulkBallots(t, e)
	checkRegisterAndBallot(t, e, startRegistrar(t, e))
	// Trustee commands refuse a single-key election, naming it.
	if code, errs := fv(t, "trustee", "decrypt", "--manifest", e.p("el/manifest.json"), "--share", e.p("el/ea.key"),
		"--age-identity", e.p("el/ea.key"), "--out", e.p("part.bin")); code != 1 || !strings.Contains(errs, "single key") {
		t.Fatalf("trustee decrypt on a single-key election: %d %s", code, errs)
	}
	if _, err := os.Stat(e.p("part.bin")); err == nil {
		t.Fatal("the refused trustee decrypt wrote its output")
	}
}

// offlineElection is the election of TestOfflineFlow, created in dir/el.
type offlineElection struct {
	dir  string
	mb   []byte // manifest.json
	m    *election.Manifest
	prep *election.Prepared
}

func (e *offlineElection) p(s string) string { return filepath.Join(e.dir, s) }

// createOfflineElection runs `election create` and checks the modes of its
// files and that it refuses to create a second election in place.
func createOfflineElection(t *testing.T) *offlineElection {
	e := &offlineElection{dir: t.TempDir()}
	if code, errs := fv(t, "election", "create", "--election", "cli-1", "--candidates", "Alice,Bob,Carol", "--max-voters", "100",
		"--start", "2026-01-01T00:00:00Z", "--end", "2027-01-01T00:00:00Z", "--out", e.p("el")); code != 0 {
		t.Fatalf("election create: %d\n%s", code, errs)
	}
	for f, want := range map[string]os.FileMode{"el/manifest.json": 0o644, "el/ea.key": 0o600, "el/paillier.key": 0o600, "el/pseudonym.key": 0o600} {
		if got := mode(t, e.p(f)); got != want {
			t.Errorf("%s has mode %v, want %v", f, got, want)
		}
	}
	if code, errs := fv(t, "election", "create", "--election", "cli-1", "--candidates", "a,b", "--max-voters", "10", "--out", e.p("el")); code != 1 || !strings.Contains(errs, "already holds an election") {
		t.Fatalf("second create into the same directory: %d %s", code, errs)
	}
	var err error
	if e.mb, err = os.ReadFile(e.p("el/manifest.json")); err != nil {
		t.Fatal(err)
	}
	if e.m, err = election.ParseManifest(e.mb); err != nil {
		t.Fatalf("manifest.json is not canonical: %v", err)
	}
	if e.m.KeyOrigin != election.KeyOriginDealer || e.m.KeyCeremony != nil {
		t.Fatalf("manifest.json: keyOrigin %q, keyCeremony %v; want %q (election create deals the key) and none", e.m.KeyOrigin, e.m.KeyCeremony, election.KeyOriginDealer)
	}
	if e.prep, err = election.Prepare(e.m); err != nil {
		t.Fatal(err)
	}
	return e
}

// checkOfflineTokenLimit: offline token issuing stops at maxVoters (100):
// 99 and 100 tokens are issued, 101 are refused and no file is left behind.
func checkOfflineTokenLimit(t *testing.T, e *offlineElection) {
	for _, n := range []int{99, 100} {
		out := e.p(fmt.Sprintf("roll-%d.jsonl", n))
		if code, errs := fv(t, "register", "--offline", "--manifest", e.p("el/manifest.json"), "--voters", fmt.Sprint(n), "--ea-key", e.p("el/ea.key"), "--out", out); code != 0 {
			t.Fatalf("register --offline --voters %d (maxVoters 100): %s", n, errs)
		}
		if data, _ := os.ReadFile(out); strings.Count(string(data), "\n") != n {
			t.Fatalf("register --offline --voters %d wrote %d lines", n, strings.Count(string(data), "\n"))
		}
	}
	for _, args := range [][]string{
		{"register", "--offline", "--manifest", e.p("el/manifest.json"), "--voters", "101", "--ea-key", e.p("el/ea.key"), "--out", e.p("roll-101.jsonl")},
		{"ballot", "--bulk", "--manifest", e.p("el/manifest.json"), "--voters", "101", "--ea-key", e.p("el/ea.key"), "--choices", "random", "--out", e.p("roll-101.jsonl")},
	} {
		if code, errs := fv(t, args...); code != 1 || !strings.Contains(errs, "100") {
			t.Fatalf("%s with 101 voters (maxVoters 100): exit %d %s", args[0], code, errs)
		}
		if _, err := os.Stat(e.p("roll-101.jsonl")); !os.IsNotExist(err) {
			t.Fatalf("%s with 101 voters left a file behind (%v)", args[0], err)
		}
	}
}

// checkBulkBallots registers voters offline and makes their ballots in
// bulk with recorded choices: every ballot verifies and the secret choices
// file holds every choice.
func checkBulkBallots(t *testing.T, e *offlineElection) {
	if code, errs := fv(t, "register", "--offline", "--manifest", e.p("el/manifest.json"), "--voters", "4", "--ea-key", e.p("el/ea.key"), "--out", e.p("voters.jsonl")); code != 0 {
		t.Fatalf("register --offline: %s", errs)
	}
	if mode(t, e.p("voters.jsonl")) != 0o600 {
		t.Fatal("voters file is not 0600")
	}
	os.WriteFile(e.p("choices.txt"), []byte("0\nBob\n2\n1\n"), 0o600)
	if code, errs := fv(t, "ballot", "--bulk", "--manifest", e.p("el/manifest.json"), "--voters-file", e.p("voters.jsonl"), "--choices", e.p("choices.txt"), "--out", e.p("ballots.bin"), "--quiet", "--concurrency", "2"); code != 0 {
		t.Fatalf("ballot --bulk: %s", errs)
	}
	if n := checkBallotStream(t, e.prep, e.p("ballots.bin")); n != 4 {
		t.Fatalf("%d ballots in the stream, want 4", n)
	}
	choices, _ := os.ReadFile(e.p("ballots.bin.choices.csv"))
	if got := strings.Count(string(choices), "\n"); got != 5 || mode(t, e.p("ballots.bin.choices.csv")) != 0o600 {
		t.Fatalf("choices file has %d lines (want header + 4) or wrong mode:\n%s", got, choices)
	}
	for _, c := range []string{",0\n", ",1\n", ",2\n"} {
		if !strings.Contains(string(choices), c) {
			t.Fatalf("choices file lacks %q:\n%s", c, choices)
		}
	}
	if code, errs := fv(t, "ballot", "--bulk", "--manifest", e.p("el/manifest.json"), "--voters", "2", "--ea-key", e.p("el/ea.key"), "--choices", e.p("choices-short.txt"), "--out", e.p("x.bin")); code != 1 || !strings.Contains(errs, "choices-short.txt") {
		t.Fatalf("missing choices file: %d %s", code, errs)
	}
}

// checkBallotStream checks every ballot of the stream path and returns
// their number.
func checkBallotStream(t *testing.T, prep *election.Prepared, path string) int {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := ballotstream.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; ; n++ {
		raw, err := r.Next()
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := election.ParseBallot(raw)
		if err != nil {
			t.Fatal(err)
		}
		if err := prep.CheckBallot(b, nil); err != nil {
			t.Fatalf("bulk ballot %d does not verify: %v", n, err)
		}
	}
}

// registrationService is a registration service of TestOfflineFlow's
// election over HTTPS, with the first voter of its roll.
type registrationService struct {
	url, caCert   string
	voterID, code string
}

// startRegistrar writes a roll of two voters with `ea roll` and serves
// their registration in-process until the test ends.
func startRegistrar(t *testing.T, e *offlineElection) registrationService {
	if code, errs := fv(t, "ea", "roll", "--voters", "2", "--out", e.p("roll.csv")); code != 0 {
		t.Fatal(errs)
	}
	roll, err := registrar.LoadRoll(e.p("roll.csv"))
	if err != nil {
		t.Fatal(err)
	}
	codes, _ := registrar.ReadRollCodes(e.p("roll.csv"))
	binding, err := registrar.NewBinding("cli-1", e.mb, e.m.MaxVoters, roll)
	if err != nil {
		t.Fatal(err)
	}
	if err := registrar.InitStore(e.p("state.db"), binding); err != nil {
		t.Fatal(err)
	}
	st, err := registrar.OpenStore(e.p("state.db"), binding)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	guard, _ := registrar.NewGuard(registrar.DefaultLimits())
	srv := httptest.NewTLSServer(&registrar.Server{ElectionID: "cli-1", Mint: offlineMinter(t, e).MintCancelable, Roll: roll, Store: st, Guard: guard})
	t.Cleanup(srv.Close)
	os.WriteFile(e.p("ca.pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644)
	return registrationService{url: srv.URL, caCert: e.p("ca.pem"), voterID: codes[0][0], code: codes[0][1]}
}

// offlineMinter is the token minter of the election's EA and pseudonym keys.
func offlineMinter(t *testing.T, e *offlineElection) *election.Minter {
	ea, err := easigner.LoadPEM(e.p("el/ea.key"))
	if err != nil {
		t.Fatal(err)
	}
	pk, err := easigner.LoadPseudonymKey(e.p("el/pseudonym.key"))
	if err != nil {
		t.Fatal(err)
	}
	mint, err := election.NewMinter(nil, e.prep, ea, pk)
	if err != nil {
		t.Fatal(err)
	}
	return mint
}

// checkRegisterAndBallot registers a voter with `register` over HTTPS,
// then makes the voter's ballot, with the refusals on the way: a wrong or
// reused code, an unknown candidate, the token of another key.
func checkRegisterAndBallot(t *testing.T, e *offlineElection, reg registrationService) {
	register := func(code, key string) (int, string) {
		return fv(t, "register", "--url", reg.url, "--ca-cert", reg.caCert, "--manifest", e.p("el/manifest.json"),
			"--voter-id", reg.voterID, "--code", code, "--voter-key", e.p(key), "--out", e.p("token.json"))
	}
	if code, errs := register("WRONGCODEWRONG", "v.key"); code != 1 || !strings.Contains(errs, "HTTP 403") {
		t.Fatalf("wrong code: %d %s", code, errs)
	}
	if code, errs := register(reg.code, "v.key"); code != 0 {
		t.Fatalf("register: %s", errs)
	}
	if mode(t, e.p("v.key")) != 0o600 || mode(t, e.p("token.json")) != 0o600 {
		t.Fatal("voter key or token not 0600")
	}
	if code, errs := register(reg.code, "v2.key"); code != 1 || !strings.Contains(errs, "already been used") {
		t.Fatalf("reused code: %d %s", code, errs)
	}
	ballotArgs := func(choice, key string) []string {
		return []string{"ballot", "--manifest", e.p("el/manifest.json"), "--voter-key", e.p(key), "--token", e.p("token.json"), "--choice", choice, "--out", e.p("one.bin")}
	}
	if code, errs := fv(t, ballotArgs("Dave", "v.key")...); code != 2 || !strings.Contains(errs, `"Dave" is neither`) {
		t.Fatalf("unknown candidate: %d %s", code, errs)
	}
	if code, errs := fv(t, ballotArgs("Carol", "v2.key")...); code != 1 || !strings.Contains(errs, "another voter key") {
		t.Fatalf("token of another key: %d %s", code, errs)
	}
	if code, errs := fv(t, ballotArgs("Carol", "v.key")...); code != 0 {
		t.Fatalf("ballot: %s", errs)
	}
	raw, _ := os.ReadFile(e.p("one.bin"))
	b, err := election.ParseBallot(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.prep.CheckBallot(b, nil); err != nil {
		t.Fatalf("single ballot does not verify: %v", err)
	}
}

// quietStdout sends the commands' stdout to /dev/null for the test.
func quietStdout(t *testing.T) {
	old := os.Stdout
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout = null
	t.Cleanup(func() { os.Stdout = old; null.Close() })
}

// TestParseChoices: one test per way a --choice can be wrong, in an
// election of one contest and in one of three contests and two styles.
func TestParseChoices(t *testing.T) {
	one, _ := election.OneContest("x", []string{"A", "B", "3"})
	p1 := &election.Manifest{Contests: one, Styles: []election.Style{{ID: "default", Contests: []string{"main"}}}}
	multi := electiontest.Load().ContestManifest("choices")
	for _, tc := range []struct {
		name  string
		m     *election.Manifest
		style int
		spec  string
		want  string // the selections formatted, or the error's words
	}{
		{"index", p1, 0, "0", "0"},
		{"name", p1, 0, "B", "1"},
		{"an index", p1, 0, "2", "2"},
		{"a name that is a number is that option, not an index", p1, 0, "3", "2"},
		{"named contest", p1, 0, "main=B", "1"},
		{"index out of range", p1, 0, "4", "not an option index 0..2"},
		{"negative index", p1, 0, "-1", "not an option index"},
		{"unknown option", p1, 0, "C", `"C" is neither an index nor an option`},
		{"two options of a choose-one contest", p1, 0, "A,B", "too many selections"},
		{"none in a choose-one contest", p1, 0, "", "too few selections"},
		{"blank where not allowed", p1, 0, "blank", "blank vote not allowed"},
		{"every contest", multi, 0, "mayor=Ben;council=Eli,Ida;referendum=No", "mayor=1;council=0,4;referendum=1"},
		{"blank and an undervote", multi, 0, "mayor=0;council=blank;referendum=0", "mayor=0;council=blank;referendum=0"},
		{"no council", multi, 0, "mayor=0;council=;referendum=0", "mayor=0;council=;referendum=0"},
		{"the other style", multi, 1, "mayor=0;referendum=1", "mayor=0;referendum=1"},
		{"a contest not in the style", multi, 1, "mayor=0;council=1;referendum=1", `"council" is no contest of ballot style "south"`},
		{"a contest missing", multi, 0, "mayor=0;referendum=1", `contest "council" of ballot style "north" has no choice`},
		{"a contest twice", multi, 1, "mayor=0;mayor=1;referendum=1", `contest "mayor" is chosen twice`},
		{"no contest named", multi, 1, "0", "names no contest"},
		{"too many options", multi, 0, "mayor=0;council=0,1,2,3;referendum=0", "too many selections"},
		{"an option twice", multi, 0, "mayor=0;council=Eli,Eli;referendum=0", "selected twice"},
		{"blank with an option", multi, 0, "mayor=0;council=blank,Eli;referendum=0", `"blank" is neither`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := election.Prepare(manifestWithKeys(t, tc.m))
			if err != nil {
				t.Fatal(err)
			}
			sels, err := parseChoices(p.Manifest, p.Layout, tc.style, tc.spec)
			got := ""
			if err == nil {
				got = formatChoices(p.Manifest, tc.style, sels)
			} else {
				got = err.Error()
			}
			if !strings.Contains(got, tc.want) {
				t.Fatalf("parseChoices(%q) = %q, want %q", tc.spec, got, tc.want)
			}
		})
	}
}

// manifestWithKeys is the fixture's manifest with m's contests and styles.
func manifestWithKeys(t *testing.T, m *election.Manifest) *election.Manifest {
	t.Helper()
	full := electiontest.Load().Manifest("choices")
	full.Contests, full.Styles = m.Contests, m.Styles
	return full
}
