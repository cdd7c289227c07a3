package booth_test

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
)

// harnessInput is harness.mjs's input.
type harnessInput struct {
	Mode       string           `json:"mode"`
	Runs       int              `json:"runs,omitempty"`
	Manifest   string           `json:"manifest"`
	Style      int              `json:"style"`
	VoterKey   string           `json:"voterKey"`
	Token      string           `json:"token"`
	Selections []map[string]any `json:"selections"`
	Verify     []string         `json:"verify,omitempty"`
}

// answer is one call's answer: a refusal has Error set.
type answer struct {
	Error string `json:"error"`
	Code  string `json:"code"`
	OK    bool   `json:"ok"`
}

// ballotOutput is harness.mjs's output in mode "ballot".
type ballotOutput struct {
	Ballot       string      `json:"ballot"`
	Tracker      string      `json:"tracker"`
	BallotHash   string      `json:"ballotHash"`
	Pseudonym    string      `json:"pseudonym"`
	Opening      string      `json:"opening"`
	Again        answer      `json:"again"`
	Verify       answer      `json:"verify"`
	VerifyOthers []answer    `json:"verifyOthers"`
	Spoil        spoilAnswer `json:"spoil"`
	SpoilBad     spoilAnswer `json:"spoilBad"`
	TokenStyle   styleAnswer `json:"tokenStyle"`
}

// spoilAnswer is spoil's answer.
type spoilAnswer struct {
	answer
	Spoiled string `json:"spoiled"`
	Tracker string `json:"tracker"`
}

// styleAnswer is tokenStyle's answer.
type styleAnswer struct {
	answer
	Style int `json:"style"`
}

// nodeBooth builds the WebAssembly module and returns a function that
// runs harness.mjs on an input under Node and returns its output. It
// skips when node is not on PATH.
func nodeBooth(tb testing.TB) func(in harnessInput) []byte {
	tb.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		tb.Skip("node is not on PATH: the WebAssembly booth is not run (install Node 20 to run it)")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		tb.Skip("the go command is not on PATH: the WebAssembly booth cannot be built")
	}
	dir := tb.TempDir()
	wasm := filepath.Join(dir, "booth.wasm")
	build := exec.Command(goTool, "build", "-o", wasm, "./wasm")
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := build.CombinedOutput(); err != nil {
		tb.Fatalf("GOOS=js GOARCH=wasm go build ./booth/wasm: %v\n%s", err, out)
	}
	goroot, err := exec.Command(goTool, "env", "GOROOT").Output()
	if err != nil {
		tb.Fatalf("go env GOROOT: %v", err)
	}
	wasmExec := filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js")
	harness, err := filepath.Abs(filepath.Join("wasm", "harness.mjs"))
	if err != nil {
		tb.Fatal(err)
	}
	return func(in harnessInput) []byte {
		tb.Helper()
		inPath := filepath.Join(dir, "input.json")
		data, err := json.Marshal(in)
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(inPath, data, 0o600); err != nil {
			tb.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		var stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, node, harness, wasmExec, wasm, inPath)
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			tb.Fatalf("node harness.mjs: %v\n%s", err, stderr.Bytes())
		}
		return out
	}
}

// voterInput is the harness input for a vote for option choice of the
// fixture's one-contest manifest by fixture voter i.
func voterInput(tb testing.TB, fx *electiontest.Fixture, m *election.Manifest, i, choice int) harnessInput {
	tb.Helper()
	manifest, err := m.Marshal()
	if err != nil {
		tb.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(fx.Voters[i])
	if err != nil {
		tb.Fatal(err)
	}
	return harnessInput{
		Mode:       "ballot",
		Manifest:   string(manifest),
		VoterKey:   string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		Token:      base64.StdEncoding.EncodeToString(fx.Token(m, fx.Voters[i])),
		Selections: []map[string]any{{"options": []int{choice}}},
	}
}

// The booth built for js/wasm makes a ballot under Node that the native
// CheckBallot accepts, with an opening of its ciphertexts, refuses to
// finish twice, and verifies ballots as the native code does.
func TestWasmBoothUnderNode(t *testing.T) {
	run := nodeBooth(t)
	fx := electiontest.Load()
	m := fx.Manifest("booth-e1")
	p, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	native := fx.Ballot(m, fx.Voters[1], 3)
	tampered := native.Marshal()
	tampered[len(tampered)/2] ^= 1 // inside the proofs, under the signature
	in := voterInput(t, fx, m, 0, 2)
	in.Verify = []string{base64.StdEncoding.EncodeToString(native.Marshal()), base64.StdEncoding.EncodeToString(tampered)}
	var out ballotOutput
	if err := json.Unmarshal(run(in), &out); err != nil {
		t.Fatal(err)
	}
	b := checkWasmBallot(t, p, out)
	checkWasmOpening(t, fx, p, b, out.Opening)
	if !strings.Contains(out.Again.Error, "no such precomputation") {
		t.Errorf("a second finish on the same handle: %+v, want a refusal", out.Again)
	}
	if !out.Verify.OK || !out.VerifyOthers[0].OK {
		t.Errorf("wasm verify refused a valid ballot: own %+v, native %+v", out.Verify, out.VerifyOthers[0])
	}
	if got := out.VerifyOthers[1]; got.OK || got.Code != election.CodeSignature {
		t.Errorf("wasm verify of a tampered ballot: %+v, want code %s", got, election.CodeSignature)
	}
	if out.Spoil.Error != "" {
		t.Fatalf("wasm spoil: %+v", out.Spoil)
	}
	checkSpoiled(t, p, b, out.Spoil.Spoiled, out.Spoil.Tracker)
	if out.SpoilBad.Error == "" || out.SpoilBad.Code != election.CodeDecode {
		t.Errorf("wasm spoil with an opening of no ciphertext: %+v, want code %s", out.SpoilBad, election.CodeDecode)
	}
	if out.TokenStyle.Error != "" || out.TokenStyle.Style != 0 {
		t.Errorf("wasm tokenStyle: %+v, want style 0", out.TokenStyle)
	}
}

// checkSpoiled checks natively that the booth's spoiled ballot passes
// CheckSpoiled, reveals the ballot's choice and has the finished ballot's
// tracker.
func checkSpoiled(t *testing.T, p *election.Prepared, b *election.Ballot, spoiledJSON, tracker string) {
	t.Helper()
	s, err := election.ParseSpoiledBallot([]byte(spoiledJSON))
	if err != nil {
		t.Fatalf("the booth's spoiled ballot does not parse: %v", err)
	}
	if _, err := p.CheckSpoiled(s); err != nil {
		t.Fatalf("native CheckSpoiled of the booth's spoiled ballot: %v", err)
	}
	if s.TrackerHex() != b.TrackerHex() || tracker != b.TrackerHex() {
		t.Errorf("spoiled tracker %s (answer %s), the finished ballot's %s", s.TrackerHex(), tracker, b.TrackerHex())
	}
}

// checkWasmBallot parses the booth's ballot and checks it natively.
func checkWasmBallot(t *testing.T, p *election.Prepared, out ballotOutput) *election.Ballot {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(out.Ballot)
	if err != nil {
		t.Fatal(err)
	}
	b, err := election.ParseBallot(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckBallot(b, nil); err != nil {
		t.Fatalf("native CheckBallot of the wasm ballot: %v", err)
	}
	if out.Tracker != b.TrackerHex() {
		t.Errorf("tracker %s, want the ballot's tracker %s", out.Tracker, b.TrackerHex())
	}
	if h := b.Hash(); out.BallotHash != hex.EncodeToString(h[:]) {
		t.Errorf("ballotHash %s, want the ballot's hash %x", out.BallotHash, h)
	}
	if out.Pseudonym != b.PseudonymHex() {
		t.Errorf("pseudonym %q, want the ballot's %s", out.Pseudonym, b.PseudonymHex())
	}
	return b
}

// checkWasmOpening checks that the opening re-encrypts to the ballot's
// ciphertext and is what it decrypts to.
func checkWasmOpening(t *testing.T, fx *electiontest.Fixture, p *election.Prepared, b *election.Ballot, openingJSON string) {
	t.Helper()
	var o election.Opening
	if err := json.Unmarshal([]byte(openingJSON), &o); err != nil {
		t.Fatal(err)
	}
	if o.Len() != 1 {
		t.Fatalf("opening of %d ciphertexts, want 1", o.Len())
	}
	c, err := p.PublicKey.EncryptWithNonce(o.Plaintext(0), o.Nonce(0))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(p.PublicKey.EncodeCiphertext(c), b.Ciphertext) {
		t.Fatal("the opening does not re-encrypt to the ballot's ciphertext")
	}
	if m, err := fx.Paillier.Decrypt(c); err != nil || m.Cmp(o.Plaintext(0)) != 0 {
		t.Fatalf("the ciphertext decrypts to %v (%v), the opening says %v", m, err, o.Plaintext(0))
	}
}

// BenchmarkWasmBoothUnderNode times the booth's two phases in
// WebAssembly under Node, for the fixture's election (N of 2048 bits,
// one question of electiontest.Candidates options): the precomputation,
// which a page runs while the voter reads, and the finish after the
// choice. It reports the median of b.N ballots of one Node process:
//
//	go test ./booth -run '^$' -bench WasmBoothUnderNode -benchtime 10x
func BenchmarkWasmBoothUnderNode(b *testing.B) {
	run := nodeBooth(b)
	fx := electiontest.Load()
	in := voterInput(b, fx, fx.Manifest("booth-bench"), 0, 1)
	in.Mode, in.Runs = "bench", b.N
	b.ResetTimer()
	var out struct{ PrecomputeMs, FinishMs []float64 }
	if err := json.Unmarshal(run(in), &out); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if len(out.PrecomputeMs) != b.N || len(out.FinishMs) != b.N {
		b.Fatalf("%d and %d timings for %d ballots", len(out.PrecomputeMs), len(out.FinishMs), b.N)
	}
	b.ReportMetric(median(out.PrecomputeMs), "precompute-ms")
	b.ReportMetric(median(out.FinishMs), "finish-ms")
}

// median is the median of xs (not empty); it sorts xs.
func median(xs []float64) float64 {
	slices.Sort(xs)
	if n := len(xs); n%2 == 0 {
		return (xs[n/2-1] + xs[n/2]) / 2
	}
	return xs[len(xs)/2]
}
