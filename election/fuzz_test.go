package election_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/fabvote/fabvote/election"
)

var updateCorpus = flag.Bool("update-corpus", false, "rewrite the committed fuzz seed corpora under testdata/fuzz")

// writeSeed stores one []byte seed in Go's corpus file format.
func writeSeed(t testing.TB, target string, data []byte) {
	t.Helper()
	dir := filepath.Join("testdata", "fuzz", target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	name := filepath.Join(dir, "seed-"+hex.EncodeToString(sum[:8]))
	content := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)
	if err := os.WriteFile(name+".tmp", []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(name+".tmp", name); err != nil {
		t.Fatal(err)
	}
}

// TestWriteFuzzCorpus regenerates the committed seeds (-update-corpus).
func TestWriteFuzzCorpus(t *testing.T) {
	if !*updateCorpus {
		t.Skip("run with -update-corpus to regenerate")
	}
	for _, s := range ballotSeeds(t) {
		writeSeed(t, "FuzzParseBallot", s)
	}
	for _, s := range manifestSeeds(t) {
		writeSeed(t, "FuzzParseManifest", s)
	}
	for _, s := range resultSeeds(t) {
		writeSeed(t, "FuzzParseResult", s)
	}
}

func ballotSeeds(t testing.TB) [][]byte {
	_, _, ballots := fixtures(t)
	good := ballots[0].Marshal()
	e := contestBallots(t.(*testing.T), "per-option")
	north, south := e.ballots[0].Marshal(), e.ballots[3].Marshal()
	return [][]byte{good, north, south, good[:len(good)/2], append(append([]byte(nil), good...), 0), {3}, {3, 0, 0, 0, 2, 'e', '1'}}
}

func manifestSeeds(t testing.TB) [][]byte {
	m := fx.Manifest("fuzz")
	a, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	thr, _, _ := fx.ThresholdManifest("fuzz-thr", 2, 3)
	b, err := thr.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	c, err := fx.ContestManifest("fuzz-contests").Marshal()
	if err != nil {
		t.Fatal(err)
	}
	dist, _, _ := fx.DistributedManifest("fuzz-dist")
	d, err := dist.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return [][]byte{a, b, c, d, []byte(`{}`), []byte(`{"version":5}`)}
}

func resultSeeds(t testing.TB) [][]byte {
	_, r := singleKeyResult(t.(*testing.T))
	b, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	e := contestBallots(t.(*testing.T), "per-option")
	cr, _ := contestResult(t.(*testing.T), e.p, e.ballots)
	c, err := cr.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return [][]byte{b, c, []byte(`{"version":2,"electionID":"e1"}`)}
}

// FuzzParseBallot: the decoder never panics, and whatever it accepts is
// canonical (re-encodes to the same bytes) and within the size limit; the
// shape check of an election of several contests and styles, which reads
// the contests field against the token's style, never panics on it and
// gives every refusal a code.
func FuzzParseBallot(f *testing.F) {
	f.Add([]byte{election.BallotVersion})
	p, err := election.Prepare(contestManifest("per-option"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := election.ParseBallot(data)
		if err != nil {
			if election.CodeOf(err) == "" {
				t.Fatalf("error without a code: %v", err)
			}
			return
		}
		if !bytes.Equal(b.Marshal(), data) {
			t.Fatal("accepted a non-canonical encoding")
		}
		if len(data) > election.MaxBallotSize {
			t.Fatal("accepted an oversize ballot")
		}
		cs, err := p.CheckShape(b)
		if err != nil {
			if election.CodeOf(err) == "" {
				t.Fatalf("shape error without a code: %v", err)
			}
			return
		}
		if len(cs) != p.Slots() {
			t.Fatalf("CheckShape gave %d slots, want %d", len(cs), p.Slots())
		}
	})
}

// FuzzParseManifest: never panics; accepted input is canonical and valid.
func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := election.ParseManifest(data)
		if err != nil {
			if election.CodeOf(err) == "" {
				t.Fatalf("error without a code: %v", err)
			}
			return
		}
		enc, err := m.Marshal()
		if err != nil {
			t.Fatalf("accepted manifest does not re-encode: %v", err)
		}
		if !bytes.Equal(enc, data) {
			t.Fatal("accepted a non-canonical manifest")
		}
	})
}

// FuzzParseResult: never panics; accepted input is canonical; verifying a
// parsed result against the fixture manifest and one of several contests
// never panics either.
func FuzzParseResult(f *testing.F) {
	f.Add([]byte(`{}`))
	p, err := election.Prepare(fx.Manifest("e1"))
	if err != nil {
		f.Fatal(err)
	}
	pc, err := election.Prepare(contestManifest("per-option"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := election.ParseResult(data)
		if err != nil {
			if election.CodeOf(err) == "" {
				t.Fatalf("error without a code: %v", err)
			}
			return
		}
		enc, err := r.Marshal()
		if err != nil || !bytes.Equal(enc, data) {
			t.Fatal("accepted a non-canonical result")
		}
		for _, p := range []*election.Prepared{p, pc} {
			if err := p.VerifyResult(r); err != nil && election.CodeOf(err) == "" {
				t.Fatalf("verification error without a code: %v", err)
			}
			if err := election.CheckContestBallots(r, []uint64{1, 2, 3}); err != nil && election.CodeOf(err) == "" {
				t.Fatalf("CheckContestBallots error without a code: %v", err)
			}
		}
	})
}
