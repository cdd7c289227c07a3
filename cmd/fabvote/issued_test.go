package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/internal/registrar"
)

// TestIssuingPathsShareOneBound: maxVoters bounds the election, not a
// process. With maxVoters 6, `register --offline --voters 2`, `ballot
// --bulk --voters 3` (the same offline voters and one more) and `register
// --offline --roll` of 3 voters use the 6 slots; running an offline
// registration again for the same voters takes none; `ea serve` on another
// roll then issues no token, and refusals leave no file behind.
func TestIssuingPathsShareOneBound(t *testing.T) {
	e := newServeEnv(t, 3, 6)
	offline := func(out string, args ...string) []string {
		return append([]string{"register", "--offline", "--manifest", e.p("manifest.json"), "--ea-key", e.p("ea.key"), "--out", e.p(out)}, args...)
	}
	bulk := func(out, voters string) []string {
		return []string{"ballot", "--bulk", "--quiet", "--manifest", e.p("manifest.json"), "--ea-key", e.p("ea.key"), "--voters", voters,
			"--choices", "random", "--out", e.p(out)}
	}
	for _, args := range [][]string{offline("v2.jsonl", "--voters", "2"), bulk("ballots.bin", "3"), offline("roll.jsonl", "--roll", e.p("roll.csv")),
		offline("again.jsonl", "--voters", "3")} {
		if code, errs := fv(t, args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", strings.Join(args[:2], " "), code, errs)
		}
	}
	// A seventh voter, on each path: offline voter 4, and the fourth voter
	// of a roll whose first three are roll.csv's (ea roll numbers its ids).
	if code, errs := fv(t, "ea", "roll", "--voters", "4", "--out", e.p("roll2.csv")); code != 0 {
		t.Fatal(errs)
	}
	for _, args := range [][]string{offline("over.jsonl", "--voters", "4"), offline("over.jsonl", "--roll", e.p("roll2.csv")), bulk("over.jsonl", "4")} {
		code, errs := fv(t, args...)
		if code != 1 || !strings.Contains(errs, "6 voters hold tokens") || !strings.Contains(errs, "maxVoters = 6") {
			t.Fatalf("%s past the bound: exit %d: %s", strings.Join(args, " "), code, errs)
		}
		if _, err := os.Lstat(e.p("over.jsonl")); err == nil {
			t.Fatalf("%s past the bound left its output", strings.Join(args[:2], " "))
		}
	}
	args := e.serveArgs("--init-state")
	for i := range args {
		if args[i] == e.p("roll.csv") {
			args[i] = e.p("roll2.csv")
		}
	}
	srv, err := startServe(t, args)
	if err != nil {
		t.Fatal(err)
	}
	codes, err := registrar.ReadRollCodes(e.p("roll2.csv"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.client(t, srv.url).Register(context.Background(), &registrar.Request{ElectionID: "serve-1", VoterID: codes[3][0], Code: codes[3][1], VoterPub: newVoterPub(t)})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprint(http.StatusForbidden)) || !strings.Contains(err.Error(), "maxVoters = 6") {
		t.Fatalf("ea serve issued past the election's bound: %v", err)
	}
	// A voter the election counts already is still served.
	if _, err := e.client(t, srv.url).Register(context.Background(), &registrar.Request{ElectionID: "serve-1", VoterID: codes[0][0], Code: codes[0][1], VoterPub: newVoterPub(t)}); err != nil {
		t.Fatalf("ea serve refused a voter who holds a slot already: %v", err)
	}
}
