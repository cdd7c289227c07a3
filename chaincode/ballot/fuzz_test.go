package ballot

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fabvote/fabvote/election"
)

var updateBallots = flag.Bool("update-ballots", false, "regenerate testdata/ballots and the FuzzCastBallot seed corpus")

const ballotDir = "testdata/ballots"

// fuzzBallots are committed valid ballots of fixture voters 0..3 in the
// fixture election "e1" (electiontest.Fixture.Manifest). Voter 0's is cast
// before fuzzing, so the others are the only inputs that may be accepted.
func fuzzBallots(t testing.TB) [][]byte {
	t.Helper()
	var out [][]byte
	for i := 0; i < 4; i++ {
		b, err := os.ReadFile(filepath.Join(ballotDir, fmt.Sprintf("e1-voter%d.bin", i)))
		if err != nil {
			t.Fatalf("%v (regenerate: go test ./chaincode/ballot -run TestWriteFuzzBallots -update-ballots)", err)
		}
		out = append(out, b)
	}
	return out
}

func writeFileAtomic(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".tmp", data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		t.Fatal(err)
	}
}

// TestWriteFuzzBallots regenerates the committed ballots and seed corpus.
func TestWriteFuzzBallots(t *testing.T) {
	if !*updateBallots {
		t.Skip("run with -update-ballots to regenerate")
	}
	_, ballots := e1(t)
	for i := 0; i < 4; i++ {
		writeFileAtomic(t, filepath.Join(ballotDir, fmt.Sprintf("e1-voter%d.bin", i)), ballots[i].Marshal())
	}
	seed := func(data []byte) {
		sum := sha256.Sum256(data)
		writeFileAtomic(t, filepath.Join("testdata", "fuzz", "FuzzCastBallot", "seed-"+hex.EncodeToString(sum[:8])),
			[]byte(fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)))
	}
	good := ballots[1].Marshal()
	seed(good)
	seed(ballots[0].Marshal()) // duplicate
	seed([]byte(base64.StdEncoding.EncodeToString(ballots[2].Marshal())))
	bad := clone(ballots[1])
	bad.Proof[3] ^= 1
	seed(resign(bad, fx.Voters[1])) // reaches the proof check
	seed(good[:len(good)/3])
	seed([]byte{election.BallotVersion})
}

// The committed ballots still match the fixture (fails after a fixture change).
func TestFuzzBallotsValid(t *testing.T) {
	m, _ := e1(t)
	for i, raw := range fuzzBallots(t) {
		b, err := election.ParseBallot(raw)
		if err != nil {
			t.Fatalf("ballot %d: %v", i, err)
		}
		if err := election.CheckBallot(m, b); err != nil {
			t.Fatalf("ballot %d no longer valid (regenerate with -update-ballots): %v", i, err)
		}
	}
}

// unreachable is the fuzz harness's proof verifier. Every fixture voter has
// already voted in the harness's ledger, so a ballot reaches the proof check
// only if it carries a valid token and signature for a key that has not
// voted: something the fuzzer could only get by forging ECDSA. Reaching it is
// therefore a failure — and it keeps the harness fast, because under -fuzz
// every package (math/big too) is coverage-instrumented and a proof check
// takes seconds. Proof decoding and verification have their own fuzz targets
// in crypto/zkp.
type unreachable struct{ hit *atomic.Bool }

func (u unreachable) Verify(election.Proofs) error {
	u.hit.Store(true)
	return errors.New("the fuzz harness's proof verifier was reached")
}

// FuzzCastBallot sends arbitrary bytes to CastBallot through the fake stub.
// The contract must never panic; every rejection must carry a code and write
// nothing; nothing may be accepted, and no input may get as far as the proof
// check (see unreachable).
func FuzzCastBallot(f *testing.F) {
	valid := fuzzBallots(f)
	for _, b := range valid {
		f.Add(b)
	}
	m := fx.Manifest("e1") // the committed ballots' election
	w := newWorld()
	var hit atomic.Bool
	c := New(Config{Verifier: unreachable{&hit}, MaxClockSkew: DefaultMaxClockSkew, Now: func() time.Time { return during }})
	enc, err := m.Marshal()
	if err != nil {
		f.Fatal(err)
	}
	s := w.tx(during)
	if err := c.OpenElection(txctx(s, authority), string(enc)); err != nil {
		f.Fatal(err)
	}
	s.commit()
	// Every fixture voter has voted (records written directly: no proof check).
	for _, v := range fx.Voters {
		key, err := ballotKey(txctx(s, ""), "e1", election.PseudonymHex(fx.Token(m, v)))
		if err != nil {
			f.Fatal(err)
		}
		w.state[key] = (&election.Record{TxID: "setup", Ballot: valid[0]}).Marshal()
	}

	f.Fuzz(func(t *testing.T, arg []byte) {
		s := w.tx(during)
		_, err := c.CastBallot(txctx(s, outsider), arg)
		if hit.Load() {
			t.Fatalf("input reached the proof check (valid token and signature of a new key): %x", arg)
		}
		if err == nil {
			t.Fatalf("accepted a fuzzed ballot: %x", arg)
		}
		if election.CodeOf(err) == "" {
			t.Fatalf("rejection without a code: %v", err)
		}
		if len(s.writes) != 0 {
			t.Fatalf("rejected (%v) but wrote %d keys", err, len(s.writes))
		}
	})
}
