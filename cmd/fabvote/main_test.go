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
	"github.com/fabvote/fabvote/internal/ballotstream"
	"github.com/fabvote/fabvote/internal/easigner"
	"github.com/fabvote/fabvote/internal/registrar"
)

// fv runs the CLI in-process and returns its exit status and stderr.
func fv(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var stderr bytes.Buffer
	code := run(args, &stderr)
	return code, stderr.String()
}

func TestUsage(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "usage: fabvote COMMAND"},
		{[]string{"help"}, 0, "election create"},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"election"}, 2, `unknown command "election"`},
		{[]string{"ballot", "--help"}, 0, ""},
		{[]string{"cast", "--nope"}, 2, "flag provided but not defined: -nope"},
		{[]string{"election", "create", "--id", "x"}, 2, "--candidates is required"},
		{[]string{"election", "create", "--id", "x", "--candidates", "a,b", "--max-voters", "10", "--out", t.TempDir(), "--trustees", "3", "--threshold", "4"}, 2, "--threshold 4 with --trustees 3"},
		{[]string{"election", "create", "--id", "x", "--candidates", "a,b", "--max-voters", "10", "--out", t.TempDir(), "--start", "+2h", "--end", "+1h"}, 2, "is not after --start"},
		{[]string{"election", "create", "--id", "x", "--candidates", "a,b", "--max-voters", "10", "--out", t.TempDir(), "--start", "tomorrow"}, 2, `--start "tomorrow"`},
		{[]string{"election", "create", "--id", "bad id!", "--candidates", "a,b", "--max-voters", "10", "--out", t.TempDir()}, 1, "electionID"},
		{[]string{"election", "create", "--id", "x", "--candidates", "a,a", "--max-voters", "10", "--out", t.TempDir()}, 1, "repeats"},
		{[]string{"cast", "--ballot", "a", "--ballots", "b"}, 2, "exactly one of --ballot or --ballots"},
		{[]string{"cast", "--ballot", "a", "--network", "/nonexistent/network.json"}, 1, "is the network up?"},
		{[]string{"tally", "--manifest", "/nonexistent", "--partial", "p.bin"}, 1, "--manifest"},
		{[]string{"ea", "roll", "--voters", "0", "--out", "x"}, 2, "--voters 0"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stderr := fv(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Fatalf("stderr %q does not mention %q", stderr, tc.want)
			}
		})
	}
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
	dir := t.TempDir()
	p := func(s string) string { return filepath.Join(dir, s) }
	quietStdout(t)

	if code, errs := fv(t, "election", "create", "--id", "cli-1", "--candidates", "Alice,Bob,Carol", "--max-voters", "100",
		"--start", "2026-01-01T00:00:00Z", "--end", "2027-01-01T00:00:00Z", "--out", p("el")); code != 0 {
		t.Fatalf("election create: %d\n%s", code, errs)
	}
	for f, want := range map[string]os.FileMode{"el/manifest.json": 0o644, "el/ea.key": 0o600, "el/paillier.key": 0o600, "el/pseudonym.key": 0o600} {
		if got := mode(t, p(f)); got != want {
			t.Errorf("%s has mode %v, want %v", f, got, want)
		}
	}
	if code, errs := fv(t, "election", "create", "--id", "cli-1", "--candidates", "a,b", "--max-voters", "10", "--out", p("el")); code != 1 || !strings.Contains(errs, "already holds an election") {
		t.Fatalf("second create into the same directory: %d %s", code, errs)
	}
	mb, err := os.ReadFile(p("el/manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := election.ParseManifest(mb)
	if err != nil {
		t.Fatalf("manifest.json is not canonical: %v", err)
	}

	// Offline token issuing stops at maxVoters (100): 99 and 100 tokens are
	// issued, 101 are refused and no file is left behind.
	for _, n := range []int{99, 100} {
		out := p(fmt.Sprintf("roll-%d.jsonl", n))
		if code, errs := fv(t, "register", "--offline", "--manifest", p("el/manifest.json"), "--voters", fmt.Sprint(n), "--ea-key", p("el/ea.key"), "--out", out); code != 0 {
			t.Fatalf("register --offline --voters %d (maxVoters 100): %s", n, errs)
		}
		if data, _ := os.ReadFile(out); strings.Count(string(data), "\n") != n {
			t.Fatalf("register --offline --voters %d wrote %d lines", n, strings.Count(string(data), "\n"))
		}
	}
	for _, args := range [][]string{
		{"register", "--offline", "--manifest", p("el/manifest.json"), "--voters", "101", "--ea-key", p("el/ea.key"), "--out", p("roll-101.jsonl")},
		{"ballot", "--bulk", "--manifest", p("el/manifest.json"), "--voters", "101", "--ea-key", p("el/ea.key"), "--choices", "random", "--out", p("roll-101.jsonl")},
	} {
		if code, errs := fv(t, args...); code != 1 || !strings.Contains(errs, "100") {
			t.Fatalf("%s with 101 voters (maxVoters 100): exit %d %s", args[0], code, errs)
		}
		if _, err := os.Stat(p("roll-101.jsonl")); !os.IsNotExist(err) {
			t.Fatalf("%s with 101 voters left a file behind (%v)", args[0], err)
		}
	}

	// Offline registration and bulk ballots with recorded choices.
	if code, errs := fv(t, "register", "--offline", "--manifest", p("el/manifest.json"), "--voters", "4", "--ea-key", p("el/ea.key"), "--out", p("voters.jsonl")); code != 0 {
		t.Fatalf("register --offline: %s", errs)
	}
	if mode(t, p("voters.jsonl")) != 0o600 {
		t.Fatal("voters file is not 0600")
	}
	os.WriteFile(p("choices.txt"), []byte("0\nBob\n2\n1\n"), 0o600)
	if code, errs := fv(t, "ballot", "--bulk", "--manifest", p("el/manifest.json"), "--voters-file", p("voters.jsonl"), "--choices", p("choices.txt"), "--out", p("ballots.bin"), "--quiet", "--workers", "2"); code != 0 {
		t.Fatalf("ballot --bulk: %s", errs)
	}
	prep, _ := election.Prepare(m)
	f, _ := os.Open(p("ballots.bin"))
	defer f.Close()
	r, err := ballotstream.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		raw, err := r.Next()
		if err == io.EOF {
			break
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
		n++
	}
	if n != 4 {
		t.Fatalf("%d ballots in the stream, want 4", n)
	}
	choices, _ := os.ReadFile(p("ballots.bin.choices.csv"))
	if got := strings.Count(string(choices), "\n"); got != 5 || mode(t, p("ballots.bin.choices.csv")) != 0o600 {
		t.Fatalf("choices file has %d lines (want header + 4) or wrong mode:\n%s", got, choices)
	}
	for _, c := range []string{",0\n", ",1\n", ",2\n"} {
		if !strings.Contains(string(choices), c) {
			t.Fatalf("choices file lacks %q:\n%s", c, choices)
		}
	}
	if code, errs := fv(t, "ballot", "--bulk", "--manifest", p("el/manifest.json"), "--voters", "2", "--ea-key", p("el/ea.key"), "--choices", p("choices-short.txt"), "--out", p("x.bin")); code != 1 || !strings.Contains(errs, "choices-short.txt") {
		t.Fatalf("missing choices file: %d %s", code, errs)
	}

	// Registration over HTTPS with `register`, then a single ballot.
	ea, err := easigner.LoadPEM(p("el/ea.key"))
	if err != nil {
		t.Fatal(err)
	}
	if code, errs := fv(t, "ea", "roll", "--voters", "2", "--out", p("roll.csv")); code != 0 {
		t.Fatal(errs)
	}
	roll, err := registrar.LoadRoll(p("roll.csv"))
	if err != nil {
		t.Fatal(err)
	}
	codes, _ := registrar.ReadRollCodes(p("roll.csv"))
	binding, err := registrar.NewBinding("cli-1", mb, m.MaxVoters, roll)
	if err != nil {
		t.Fatal(err)
	}
	if err := registrar.InitStore(p("state.db"), binding); err != nil {
		t.Fatal(err)
	}
	st, err := registrar.OpenStore(p("state.db"), binding)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	guard, _ := registrar.NewGuard(registrar.DefaultLimits())
	pk, err := easigner.LoadPseudonymKey(p("el/pseudonym.key"))
	if err != nil {
		t.Fatal(err)
	}
	mint, err := election.NewMinter(nil, prep, ea, pk)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewTLSServer(&registrar.Server{ElectionID: "cli-1", Mint: mint.MintCancelable, Roll: roll, Store: st, Guard: guard})
	defer srv.Close()
	os.WriteFile(p("ca.pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644)
	reg := func(code, key string) (int, string) {
		return fv(t, "register", "--url", srv.URL, "--ca-cert", p("ca.pem"), "--manifest", p("el/manifest.json"),
			"--voter-id", codes[0][0], "--code", code, "--key", p(key), "--out", p("token.json"))
	}
	if code, errs := reg("WRONGCODEWRONG", "v.key"); code != 1 || !strings.Contains(errs, "HTTP 403") {
		t.Fatalf("wrong code: %d %s", code, errs)
	}
	if code, errs := reg(codes[0][1], "v.key"); code != 0 {
		t.Fatalf("register: %s", errs)
	}
	if mode(t, p("v.key")) != 0o600 || mode(t, p("token.json")) != 0o600 {
		t.Fatal("voter key or token not 0600")
	}
	if code, errs := reg(codes[0][1], "v2.key"); code != 1 || !strings.Contains(errs, "already been used") {
		t.Fatalf("reused code: %d %s", code, errs)
	}
	ballotArgs := func(choice, key string) []string {
		return []string{"ballot", "--manifest", p("el/manifest.json"), "--voter-key", p(key), "--token", p("token.json"), "--choice", choice, "--out", p("one.bin")}
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
	raw, _ := os.ReadFile(p("one.bin"))
	b, err := election.ParseBallot(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := prep.CheckBallot(b, nil); err != nil {
		t.Fatalf("single ballot does not verify: %v", err)
	}

	// Trustee commands refuse a single-key election, naming it.
	if code, errs := fv(t, "trustee", "decrypt", "--manifest", p("el/manifest.json"), "--share", p("el/ea.key"),
		"--age-identity", p("el/ea.key"), "--out", p("part.bin")); code != 1 || !strings.Contains(errs, "single key") {
		t.Fatalf("trustee decrypt on a single-key election: %d %s", code, errs)
	}
	if _, err := os.Stat(p("part.bin")); err == nil {
		t.Fatal("the refused trustee decrypt wrote its output")
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

func TestParseChoiceAndTime(t *testing.T) {
	m := &election.Manifest{Candidates: []string{"A", "B", "3"}}
	tests := []struct {
		in   string
		want int
		ok   bool
	}{{"0", 0, true}, {"B", 1, true}, {"2", 2, true}, {"3", 0, false}, {"-1", 0, false}, {"C", 0, false}}
	for _, tc := range tests {
		got, err := parseChoice(m, tc.in)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("parseChoice(%q) = %d, %v", tc.in, got, err)
		}
	}
}
