// Package trustee is the only way fabvote's code has a trustee's key share
// decrypt anything: the election's own tally, recomputed from the ledger,
// once per election.
//
// K colluding trustees can decrypt any ciphertext, so whoever hands them a
// ciphertext could have them decrypt one voter's ballot, or a running tally
// before the voting window has closed. Recompute therefore does everything
// itself, on a Ledger that reads a peer of every org of the trustee's
// network file: it requires the manifest to name that file's channel and
// every org's copy of the manifest to equal the trustee's own, every org's
// WindowClosed to say the window has closed, and every org's ballot listing
// to have the same digest; it verifies every ballot (the checks of
// audit.CheckBallots, the same as `fabvote verify`) and multiplies the valid
// ones. Only then does it seal the product, and a sealed product is the only
// thing threshold.KeyShare.DecryptTally accepts. Tally.PartialDecrypt then
// records the product in the trustee's journal (internal/tallyjournal),
// durably, and refuses a second, different product for the same election:
// two decrypted tallies that differ by one held-back ballot would reveal it.
//
// The seal comes from the program's only threshold.Sealer, which this
// package claims when it is initialised (threshold.ClaimSealer hands it out
// once). A test checks that no other package of the module calls
// ClaimSealer, and another that the shipped programs link no other way to
// seal, so in fabvote's own code every decryption goes through Recompute.
// Should another package of a program claim the Sealer first, Recompute
// refuses with ErrNoSealer.
//
// The seal binds fabvote's own code, not a program written against the
// library: such a program can claim the Sealer itself, or copy a share's
// arithmetic, and decrypt anything with K shares. What keeps shares from
// that is that they never sit together (internal/sharebox) and that honest
// trustees run fabvote.
//
// Ledger can be built only from internal/ballotclient clients (NewLedger);
// tests build one from fakes. The journal's file handling is
// internal/tallyjournal's.
package trustee

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"

	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/audit"
	"github.com/fabvote/fabvote/internal/ballotclient"
	"github.com/fabvote/fabvote/internal/tallyjournal"
)

// sealer is the program's only threshold.Sealer, claimed at initialisation;
// sealerErr is why not, if another package claimed it first.
var sealer, sealerErr = threshold.ClaimSealer()

// reader is what Recompute reads from one org's peers; *ballotclient.Client is
// one. It is unexported so that Ledger can be built only from ledger
// clients (and, in this package's tests, from fakes: export_test.go).
type reader interface {
	GetManifest(ctx context.Context, electionID string) ([]byte, error)
	// WindowClosed is the chaincode's evaluate-only WindowClosed.
	WindowClosed(ctx context.Context, electionID string) (bool, error)
	// Ballots streams every ballot entry; pageSize 0 is the default.
	Ballots(ctx context.Context, electionID string, pageSize int) audit.BallotSource
}

// orgReader is one org's view of the channel.
type orgReader struct {
	msp string
	r   reader
}

// Ledger is the channel as a trustee reads it: through a peer of each org,
// each org's answers compared with the others'. One peer that lies (or an
// attacker's channel that copies the manifest) then cannot choose what the
// trustee decrypts unless the peers of every org read agree on the lie.
type Ledger struct {
	channel string
	orgs    []orgReader
}

// NewLedger reads channel through clients, one per org, each connected to
// a peer of its org (gateway.Options.PeerOrg) on that channel. It sets each
// client's OwnOrgOnly, so that the gateway peer answers for its own org only.
func NewLedger(channel string, clients ...*ballotclient.Client) (*Ledger, error) {
	l := &Ledger{channel: channel}
	seen := map[string]bool{}
	for _, c := range clients {
		if c == nil || c.Conn == nil {
			return nil, errors.New("trustee: a nil ledger client")
		}
		if got := c.Conn.Channel(); got != channel {
			return nil, fmt.Errorf("trustee: a client of channel %q, want %q", got, channel)
		}
		msp := c.Conn.PeerMSP()
		if seen[msp] {
			return nil, fmt.Errorf("trustee: two clients read org %s: ask each org once", msp)
		}
		seen[msp] = true
		c.OwnOrgOnly = true
		l.orgs = append(l.orgs, orgReader{msp: msp, r: c})
	}
	if len(l.orgs) == 0 {
		return nil, errors.New("trustee: no org to read the ledger from")
	}
	return l, nil
}

// Errors of Recompute; each is wrapped with the election id and details.
var (
	ErrWrongChannel     = errors.New("the manifest names another channel")
	ErrManifestMismatch = errors.New("the manifest differs from the ledger's")
	ErrWindowOpen       = errors.New("the ledger does not show the voting window closed")
	ErrInvalidBallots   = errors.New("ballots on the ledger do not verify")
	ErrOrgsDisagree     = errors.New("the orgs' peers disagree")
)

// ErrNoSealer: another package of the program claimed threshold's Sealer
// before this one was initialised, so Recompute cannot seal a tally.
var ErrNoSealer = errors.New("trustee: another package of this program claimed threshold's Sealer first, so no tally can be sealed for decryption")

// Tally is an election's tally as recomputed from the ledger. Only
// Recompute makes one that can be decrypted.
type Tally struct {
	manifest string // tallyjournal.ManifestKey of the manifest's bytes
	prepared *election.Prepared
	checked  *audit.Tally
	sealed   *threshold.SealedTally
}

// Recompute reads the election of manifest from l and returns its tally,
// after the checks in the package comment. manifest is the trustee's own
// copy (canonical bytes); it must name l's channel and equal every org's
// copy on the ledger byte for byte.
func Recompute(ctx context.Context, l *Ledger, manifest []byte, opts audit.Options) (*Tally, error) {
	if sealer == nil {
		return nil, fmt.Errorf("%w: %w", ErrNoSealer, sealerErr)
	}
	if l == nil || len(l.orgs) == 0 {
		return nil, errors.New("trustee: no ledger to recompute the tally from (NewLedger)")
	}
	m, err := election.ParseManifest(manifest)
	if err != nil {
		return nil, fmt.Errorf("the manifest: %w", err)
	}
	p, err := election.Prepare(m)
	if err != nil {
		return nil, fmt.Errorf("the manifest: %w", err)
	}
	id := m.ElectionID
	if m.Channel != l.channel {
		return nil, fmt.Errorf("election %q: %w: %q, but the network file's channel is %q", id, ErrWrongChannel, m.Channel, l.channel)
	}
	if err := l.sameManifest(ctx, id, manifest); err != nil {
		return nil, err
	}
	if err := l.windowClosed(ctx, m); err != nil {
		return nil, err
	}
	t, err := l.checkBallots(ctx, p, opts)
	if err != nil {
		return nil, err
	}
	if len(t.Failures) > 0 {
		return nil, &BallotsError{ElectionID: id, Failures: t.Failures}
	}
	return &Tally{manifest: tallyjournal.ManifestKey(manifest), prepared: p, checked: t, sealed: sealer.Seal(t.Product)}, nil
}

// sameManifest: every org's peer holds manifest for id.
func (l *Ledger) sameManifest(ctx context.Context, id string, manifest []byte) error {
	for _, o := range l.orgs {
		onLedger, err := o.r.GetManifest(ctx, id)
		if err != nil {
			return fmt.Errorf("reading the manifest of %q from %s's peer: %w", id, o.msp, err)
		}
		if !bytes.Equal(onLedger, manifest) {
			return fmt.Errorf("election %q: %w on %s's peer (was it copied before `election open` set the window?)", id, ErrManifestMismatch, o.msp)
		}
	}
	return nil
}

// windowClosed: every org's peer shows the window closed.
func (l *Ledger) windowClosed(ctx context.Context, m *election.Manifest) error {
	var open []string
	for _, o := range l.orgs {
		closed, err := o.r.WindowClosed(ctx, m.ElectionID)
		if err != nil {
			return fmt.Errorf("asking %s's peer whether the voting window of %q has closed: %w", o.msp, m.ElectionID, err)
		}
		if !closed {
			open = append(open, o.msp)
		}
	}
	if len(open) > 0 {
		return fmt.Errorf("election %q: %w on the peers of %s (it ends at %s); a trustee decrypts only the final tally",
			m.ElectionID, ErrWindowOpen, strings.Join(open, ", "), m.End.UTC().Format("2006-01-02T15:04:05Z07:00"))
	}
	return nil
}

// checkBallots verifies the first org's ballots, and requires every other
// org's ballot list to have the same digest.
func (l *Ledger) checkBallots(ctx context.Context, p *election.Prepared, opts audit.Options) (*audit.Tally, error) {
	id := p.Manifest.ElectionID
	first := l.orgs[0]
	d := newListDigest()
	t, err := audit.CheckBallots(p, d.wrap(first.r.Ballots(ctx, id, 0)), opts)
	if err != nil {
		return nil, fmt.Errorf("%s's peer: %w", first.msp, err)
	}
	want := d.sum()
	for _, o := range l.orgs[1:] {
		od := newListDigest()
		if err := od.wrap(o.r.Ballots(ctx, id, 0))(func(election.BallotEntry) error { return nil }); err != nil {
			return nil, fmt.Errorf("reading the ballots of %q from %s's peer: %w", id, o.msp, err)
		}
		if got := od.sum(); got != want {
			return nil, fmt.Errorf("election %q: %w on its ballots: %s's peer lists %d, %s's peer %d, with different contents "+
				"(if a peer is still catching up, try again; otherwise one of them lies)", id, ErrOrgsDisagree, first.msp, d.n, o.msp, od.n)
		}
	}
	return t, nil
}

// ballotListTag domain-separates the digest of a ballot listing.
const ballotListTag = "fabvote/trustee/ballot-list/v1"

// listDigest hashes a ballot listing: every entry's pseudonym, transaction
// id and ballot, each length-prefixed, in the order listed.
type listDigest struct {
	h hash.Hash
	n int
}

func newListDigest() *listDigest {
	d := &listDigest{h: sha256.New()}
	d.h.Write([]byte(ballotListTag))
	return d
}

func (d *listDigest) wrap(src audit.BallotSource) audit.BallotSource {
	return func(fn func(election.BallotEntry) error) error {
		return src(func(e election.BallotEntry) error {
			for _, f := range [][]byte{[]byte(e.Pseudonym), []byte(e.TxID), e.Ballot} {
				var n [8]byte
				binary.BigEndian.PutUint64(n[:], uint64(len(f)))
				d.h.Write(n[:])
				d.h.Write(f)
			}
			d.n++
			return fn(e)
		})
	}
}

func (d *listDigest) sum() [32]byte {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(d.n))
	d.h.Write(n[:])
	return [32]byte(d.h.Sum(nil))
}

// BallotsError lists the ballots that failed verification.
type BallotsError struct {
	ElectionID string
	Failures   []audit.Failure
}

func (e *BallotsError) Error() string {
	return fmt.Sprintf("election %q: %d %v; the chaincode should never have accepted them (run `fabvote verify`): first: %s",
		e.ElectionID, len(e.Failures), ErrInvalidBallots, e.Failures[0])
}

func (e *BallotsError) Unwrap() error { return ErrInvalidBallots }

// Prepared is the election, from the manifest the tally was recomputed for.
func (t *Tally) Prepared() *election.Prepared { return t.prepared }

// Checked is a copy of the outcome of checking the ballots: counts and the
// product, which the result publishes.
func (t *Tally) Checked() *audit.Tally {
	c := *t.checked
	c.Product = t.sealed.Ciphertext()
	c.Failures = nil
	return &c
}

// PartialDecrypt is trustee ks's partial decryption of the tally, with its
// proof. It checks the share against the election's public parameters
// first, so a share of another election is refused by name; then it records
// the tally in the trustee's journal, durably, and refuses if the journal
// holds another tally of this election (tallyjournal.ErrOtherTally): two
// decrypted tallies that differ by one ballot would reveal that ballot.
func (t *Tally) PartialDecrypt(random io.Reader, ks *threshold.KeyShare, j *tallyjournal.Journal) (*threshold.PartialDecryption, error) {
	if t == nil || t.sealed == nil {
		return nil, fmt.Errorf("%w: use trustee.Recompute", threshold.ErrUnsealedTally)
	}
	if j == nil {
		return nil, errors.New("trustee: no journal: a trustee records each tally it decrypts (tallyjournal.Open)")
	}
	pp := t.prepared.Threshold
	id := t.prepared.Manifest.ElectionID
	if pp == nil {
		return nil, fmt.Errorf("election %q has a single key, not trustee shares", id)
	}
	if err := ks.Check(pp); err != nil {
		return nil, fmt.Errorf("the key share does not belong to election %q: %w", id, err)
	}
	width := (pp.PublicKey.NSquared.BitLen() + 7) / 8
	if err := j.Record(t.manifest, id, t.sealed.Ciphertext(), width, t.checked.Valid); err != nil {
		return nil, err
	}
	return ks.DecryptTally(random, pp, t.sealed)
}
