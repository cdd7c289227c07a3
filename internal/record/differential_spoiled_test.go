package record_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/record"
)

// pySpoiledCheck reads {"manifest": hex, "values": [hex, …]} on stdin and
// prints, for each value, the code verifier-py's decoding and opening check
// give it ("" when it passes).
const pySpoiledCheck = `
import json, sys
from fabvote_verifier.election import ElectionError, prepare_manifest
from fabvote_verifier.spoiled import check_spoiled, parse_spoiled
req = json.load(sys.stdin)
prep = prepare_manifest(bytes.fromhex(req["manifest"]))
out = []
for v in req["values"]:
    try:
        check_spoiled(prep, parse_spoiled(bytes.fromhex(v)))
        out.append("")
    except ElectionError as e:
        out.append(e.code)
print(json.dumps(out))
`

// TestDifferentialSpoiled runs Go's and verifier-py's decoding and check of
// a spoiled ballot (docs/VERIFY.md V32 rule 3) on the committed vector's
// spoiled ballots and on mutants of them: the same code for every one.
func TestDifferentialSpoiled(t *testing.T) {
	py := pyVerifier(t)
	if py == "" {
		t.Skip("FABVOTE_PYVERIFY is not set: no Python verifier to compare with")
	}
	dir := filepath.Join(fixturesDir, "spoiled")
	manifest, err := os.ReadFile(filepath.Join(dir, record.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := record.ReadTrackers(context.Background(), dir)
	if err != nil || len(tr.Spoiled) == 0 {
		t.Fatalf("the spoiled vector: %v, %d spoiled ballots", err, len(tr.Spoiled))
	}
	values := spoiledMutants(tr.Spoiled[0].Value, tr.Spoiled[1].Value)
	m, err := election.ParseManifest(manifest)
	if err != nil {
		t.Fatal(err)
	}
	p, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	got := pySpoiledCodes(t, py, manifest, values)
	seen := map[string]int{}
	for i, v := range values {
		want := ""
		s, err := election.ParseSpoiledBallot(v)
		if err == nil {
			_, err = p.CheckSpoiled(s)
		}
		if err != nil {
			want = election.CodeOf(err)
		}
		seen[want]++
		if got[i] != want {
			t.Errorf("value %d: Go %q (%v), Python %q:\n%s", i, want, err, got[i], v)
		}
	}
	t.Logf("%d spoiled ballots and mutants: the same codes (Go's: %v)", len(values), seen)
	for _, code := range []string{"", election.CodeDecode, election.CodeSize, election.CodeOpening, election.CodeNoElection,
		election.CodeCiphertext, election.CodeContestOrder, election.CodeContestMissing, election.CodeContestRepeat, election.CodeNotInStyle} {
		if seen[code] == 0 {
			t.Errorf("no value has the code %q: the mutants miss a kind", code)
		}
	}
}

// spoiledMutants are a and b, each kind of change a decoder must refuse or
// a check must catch, and random byte edits of a.
func spoiledMutants(a, b []byte) [][]byte {
	var sa map[string]json.RawMessage
	if err := json.Unmarshal(a, &sa); err != nil {
		panic(err)
	}
	sub := func(old, new string) []byte { return bytes.Replace(a, []byte(old), []byte(new), 1) }
	out := [][]byte{a, b,
		sub(`"version":1`, `"version":2`),
		sub(`"version":1`, `"version":1.0`),
		sub(`"version":1`, `"version": 1`),
		sub(`"contests":[0,1,2]`, `"contests":[0,2,1]`),
		sub(`"contests":[0,1,2]`, `"contests":[0,1]`),
		sub(`"contests":[0,1,2]`, `"contests":[0,2]`),
		sub(`"contests":[0,1,2]`, `"contests":[0,1,1]`),
		sub(`"contests":[0,1,2]`, `"contests":[0,1,2,3]`),
		sub(`"contests":[0,1,2]`, `"contests":[0,1,31]`),
		sub(`"contests":[0,1,2]`, `"contests":[0,1,32]`),
		sub(`"contests":[0,1,2]`, `"contests":[]`),
		sub(`"electionID":"`, `"electionID":"x`),
		sub(`"format":"fabvote/spoiled-ballot"`, `"format":"fabvote/spoiled-ballot2"`),
		sub(`"nonce":"`, `"nonce":"0`),
		sub(`"plaintext":"`, `"plaintext":"1`),
		sub(`{"format"`, `{"format":"x","format"`),
		append(append([]byte{}, a[:len(a)-1]...), []byte(`,"x":1}`)...),
		bytes.Repeat([]byte(" "), election.MaxSpoiledSize+1),
	}
	// b's opening on a's ciphertexts: a true decoding, a false opening.
	var sb map[string]json.RawMessage
	if err := json.Unmarshal(b, &sb); err != nil {
		panic(err)
	}
	swapped := bytes.Replace(a, sa["opening"], sb["opening"], 1)
	out = append(out, swapped)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		m := append([]byte{}, a...)
		for range 1 + rng.IntN(3) {
			i := rng.IntN(len(m))
			switch rng.IntN(3) {
			case 0:
				m[i] = "0123456789abcdef\"{}[],:"[rng.IntN(23)]
			case 1:
				m = append(m[:i], m[i+1:]...)
			default:
				m = append(m[:i], append([]byte{"0f\" "[rng.IntN(4)]}, m[i:]...)...)
			}
		}
		out = append(out, m)
	}
	return out
}

// pySpoiledCodes runs pySpoiledCheck on values.
func pySpoiledCodes(t *testing.T, py string, manifest []byte, values [][]byte) []string {
	t.Helper()
	req := map[string]any{"manifest": hex.EncodeToString(manifest)}
	hs := make([]string, len(values))
	for i, v := range values {
		hs[i] = hex.EncodeToString(v)
	}
	req["values"] = hs
	in, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, "-c", pySpoiledCheck)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, stderr.String())
	}
	var codes []string
	if err := json.Unmarshal(out, &codes); err != nil || len(codes) != len(values) {
		t.Fatalf("python printed %q: %v", out, err)
	}
	return codes
}
