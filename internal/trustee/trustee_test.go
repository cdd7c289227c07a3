package trustee_test

import (
	"context"
	"crypto/rand"
	"errors"
	"math/big"
	"slices"
	"testing"

	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
	"github.com/fabvote/fabvote/internal/audit"
	"github.com/fabvote/fabvote/internal/tallyjournal"
	"github.com/fabvote/fabvote/internal/trustee"
)

// fakeLedger is one org's peer, in memory, for unit tests (the real one is
// exercised by the end-to-end test). The *Err fields make a call fail;
// streamErrAt > 0 fails the ballot stream after that many entries.
type fakeLedger struct {
	manifest    []byte
	closed      bool
	entries     []election.BallotEntry
	ballotReads int

	manifestErr, windowErr, streamErr error
	streamErrAt                       int
}

func (f *fakeLedger) GetManifest(context.Context, string) ([]byte, error) {
	return f.manifest, f.manifestErr
}
func (f *fakeLedger) WindowClosed(context.Context, string) (bool, error) {
	return f.closed, f.windowErr
}
func (f *fakeLedger) Ballots(context.Context, string, int) audit.BallotSource {
	return func(fn func(election.BallotEntry) error) error {
		f.ballotReads++
		for i, e := range f.entries {
			if f.streamErr != nil && i == f.streamErrAt {
				return f.streamErr
			}
			if err := fn(e); err != nil {
				return err
			}
		}
		return nil
	}
}

// orgs are the MSP ids of the fake network's two orgs.
var orgs = []string{"Org1MSP", "Org2MSP"}

// of is a Ledger of the manifest's channel read through fs, one per org.
func (w *world) of(fs ...*fakeLedger) *trustee.Ledger {
	rs := make([]trustee.Reader, len(fs))
	for i, f := range fs {
		rs[i] = f
	}
	return trustee.NewTestLedger(w.m.Channel, orgs[:len(fs)], rs...)
}

// journal is a fresh trustee journal in a temporary directory.
func journal(t *testing.T) *tallyjournal.Journal {
	t.Helper()
	j, err := tallyjournal.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return j
}

type world struct {
	m       *election.Manifest
	raw     []byte
	pp      *threshold.PublicParams
	shares  []*threshold.KeyShare
	ballots []*election.Ballot
	choices []int
}

func newWorld(t *testing.T) *world {
	t.Helper()
	fx := electiontest.Load()
	m, pp, shares := fx.ThresholdManifest("trustee-1", 2, 3)
	raw, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	w := &world{m: m, raw: raw, pp: pp, shares: shares, choices: []int{1, 3, 3, 0}}
	for i, c := range w.choices {
		w.ballots = append(w.ballots, fx.Ballot(m, fx.Voters[i], c))
	}
	return w
}

func (w *world) ledger(closed bool) *fakeLedger {
	f := &fakeLedger{manifest: w.raw, closed: closed}
	for _, b := range w.ballots {
		f.entries = append(f.entries, election.BallotEntry{Pseudonym: b.PseudonymHex(), TxID: "tx", Ballot: b.Marshal()})
	}
	return f
}

var opts = audit.Options{Workers: 2, BatchSize: 2}

// The honest path: two trustees decrypt the recomputed tally and the result
// built from their partials verifies and has the voters' counts.
func TestRecomputeAndDecrypt(t *testing.T) {
	w := newWorld(t)
	tally, err := trustee.Recompute(context.Background(), w.of(w.ledger(true), w.ledger(true)), w.raw, opts)
	if err != nil {
		t.Fatal(err)
	}
	var parts []*threshold.PartialDecryption
	for _, i := range []int{2, 0} {
		pd, err := tally.PartialDecrypt(rand.Reader, w.shares[i], journal(t))
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, pd)
	}
	r, err := audit.ResultFromPartials(tally.Prepared(), tally.Checked(), parts)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]uint64, len(w.m.Contests[0].Options))
	for _, c := range w.choices {
		want[c]++
	}
	if !slices.Equal(r.Contests[0].Counts, want) || r.BallotCount != uint64(len(w.ballots)) {
		t.Fatalf("counts %v of %d ballots; want %v of %d", r.Contests[0].Counts, r.BallotCount, want, len(w.ballots))
	}
}

// Every refusal of Recompute: nothing is decrypted, and before the window
// has closed not even the ballots are read.
func TestRecomputeRefuses(t *testing.T) {
	w := newWorld(t)
	other := *w.m
	other.Title = "another manifest with the same id"
	otherRaw, err := other.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		setup func(f *fakeLedger)
		local []byte
		want  error
		reads int
	}{
		{"window open", func(f *fakeLedger) { f.closed = false }, w.raw, trustee.ErrWindowOpen, 0},
		{"local manifest differs", func(*fakeLedger) {}, otherRaw, trustee.ErrManifestMismatch, 0},
		{"ledger manifest differs", func(f *fakeLedger) { f.manifest = otherRaw }, w.raw, trustee.ErrManifestMismatch, 0},
		{"a ballot does not verify", func(f *fakeLedger) {
			b := *w.ballots[1]
			b.Proof = slices.Clone(b.Proof)
			b.Proof[len(b.Proof)-1] ^= 1
			f.entries[1].Ballot = b.Marshal()
		}, w.raw, trustee.ErrInvalidBallots, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := w.ledger(true)
			tc.setup(f)
			tally, err := trustee.Recompute(context.Background(), w.of(f), tc.local, opts)
			if !errors.Is(err, tc.want) || tally != nil {
				t.Fatalf("Recompute = %v, %v; want %v", tally, err, tc.want)
			}
			if f.ballotReads != tc.reads {
				t.Errorf("ballots read %d times, want %d", f.ballotReads, tc.reads)
			}
		})
	}
}

// A Tally not made by Recompute, and a share asked directly, decrypt
// nothing: there is no way to hand a trustee's share a ciphertext, such as
// one voter's ballot re-randomised.
func TestNoDecryptionOfForeignCiphertext(t *testing.T) {
	w := newWorld(t)
	var forged trustee.Tally
	if pd, err := forged.PartialDecrypt(rand.Reader, w.shares[0], journal(t)); !errors.Is(err, threshold.ErrUnsealedTally) || pd != nil {
		t.Fatalf("zero Tally: PartialDecrypt = %v, %v; want ErrUnsealedTally", pd, err)
	}
	if pd, err := w.shares[0].DecryptTally(rand.Reader, w.pp, nil); !errors.Is(err, threshold.ErrUnsealedTally) || pd != nil {
		t.Fatalf("DecryptTally(nil) = %v, %v; want ErrUnsealedTally", pd, err)
	}
	// The honest partial is of the ledger's product only, not of a
	// re-randomised ballot.
	tally, err := trustee.Recompute(context.Background(), w.of(w.ledger(true), w.ledger(true)), w.raw, opts)
	if err != nil {
		t.Fatal(err)
	}
	pd, err := tally.PartialDecrypt(rand.Reader, w.shares[0], journal(t))
	if err != nil {
		t.Fatal(err)
	}
	p := tally.Prepared()
	cs, err := p.CheckShape(w.ballots[0])
	if err != nil {
		t.Fatal(err)
	}
	c := cs[0]
	zero, _, err := p.PublicKey.Encrypt(rand.Reader, big.NewInt(0))
	if err != nil {
		t.Fatal(err)
	}
	rerandomised := p.PublicKey.Add(c, zero)
	if err := w.pp.VerifyPartial(rerandomised, pd); err == nil {
		t.Fatal("the trustee's partial verifies against a re-randomised ballot")
	}
	if err := w.pp.VerifyPartial(tally.Checked().Product, pd); err != nil {
		t.Fatalf("the trustee's partial does not verify against the ledger's product: %v", err)
	}
}

// Checked returns a copy: changing it does not change what is decrypted.
func TestCheckedIsACopy(t *testing.T) {
	w := newWorld(t)
	tally, err := trustee.Recompute(context.Background(), w.of(w.ledger(true), w.ledger(true)), w.raw, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := new(big.Int).Set(tally.Checked().Product)
	tally.Checked().Product.SetInt64(2)
	pd, err := tally.PartialDecrypt(rand.Reader, w.shares[1], journal(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.pp.VerifyPartial(want, pd); err != nil {
		t.Fatalf("after changing Checked's product, the partial is not of the ledger's product: %v", err)
	}
}
