// Package trustee is the only way to have a trustee's key share decrypt
// anything: the election's own tally, recomputed from the ledger.
//
// K colluding trustees can decrypt any ciphertext, so whoever hands them a
// ciphertext could have them decrypt one voter's ballot, or a running tally
// before the voting window has closed. Recompute therefore does everything
// itself: it compares the trustee's copy of the manifest with the ledger's,
// refuses unless the ledger's WindowClosed says the window has closed, reads
// every ballot from the ledger, verifies each one (the checks of
// audit.CheckBallots, the same as `fabvote verify`), and multiplies the
// valid ones. Only then does it seal the product (threshold's internal
// tallyseal package), and a sealed product is the only thing
// KeyShare.DecryptTally accepts. A Tally made any other way holds no seal
// and decrypts nothing.
//
// The package sits under crypto/paillier/threshold because Go lets only
// packages there import the seal.
package trustee

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/crypto/paillier/threshold/internal/tallyseal"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/audit"
)

// Ledger is what a trustee reads; internal/ledger's Client is one.
type Ledger interface {
	GetManifest(ctx context.Context, electionID string) ([]byte, error)
	// WindowClosed is the chaincode's evaluate-only WindowClosed.
	WindowClosed(ctx context.Context, electionID string) (bool, error)
	// Ballots streams every ballot entry; pageSize 0 is the default.
	Ballots(ctx context.Context, electionID string, pageSize int) audit.BallotSource
}

// Errors of Recompute; each is wrapped with the election id and details.
var (
	ErrManifestMismatch = errors.New("the manifest differs from the ledger's")
	ErrWindowOpen       = errors.New("the ledger does not show the voting window closed")
	ErrInvalidBallots   = errors.New("ballots on the ledger do not verify")
)

// Tally is an election's tally as recomputed from the ledger. Only
// Recompute makes one that can be decrypted.
type Tally struct {
	prepared *election.Prepared
	checked  *audit.Tally
	sealed   *tallyseal.Ciphertext
}

// Recompute reads the election of manifest from l and returns its tally,
// after the checks in the package comment. manifest is the trustee's own
// copy (canonical bytes); it must equal the ledger's byte for byte.
func Recompute(ctx context.Context, l Ledger, manifest []byte, opts audit.Options) (*Tally, error) {
	m, err := election.ParseManifest(manifest)
	if err != nil {
		return nil, fmt.Errorf("the manifest: %w", err)
	}
	p, err := election.Prepare(m)
	if err != nil {
		return nil, fmt.Errorf("the manifest: %w", err)
	}
	id := m.ElectionID
	onLedger, err := l.GetManifest(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("reading the manifest of %q from the ledger: %w", id, err)
	}
	if !bytes.Equal(onLedger, manifest) {
		return nil, fmt.Errorf("election %q: %w (was it copied before `election open` set the window?)", id, ErrManifestMismatch)
	}
	closed, err := l.WindowClosed(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("asking the ledger whether the voting window of %q has closed: %w", id, err)
	}
	if !closed {
		return nil, fmt.Errorf("election %q: %w (it ends at %s); a trustee decrypts only the final tally",
			id, ErrWindowOpen, m.End.UTC().Format("2006-01-02T15:04:05Z07:00"))
	}
	t, err := audit.CheckBallots(p, l.Ballots(ctx, id, 0), opts)
	if err != nil {
		return nil, err
	}
	if len(t.Failures) > 0 {
		return nil, &BallotsError{ElectionID: id, Failures: t.Failures}
	}
	return &Tally{prepared: p, checked: t, sealed: tallyseal.Seal(t.Product)}, nil
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
	c.Product = t.sealed.Value()
	c.Failures = nil
	return &c
}

// PartialDecrypt is trustee ks's partial decryption of the tally, with its
// proof. It checks the share against the election's public parameters
// first, so a share of another election is refused by name.
func (t *Tally) PartialDecrypt(random io.Reader, ks *threshold.KeyShare) (*threshold.PartialDecryption, error) {
	if t == nil || t.sealed == nil {
		return nil, fmt.Errorf("%w: use trustee.Recompute", threshold.ErrUnsealedTally)
	}
	pp := t.prepared.Threshold
	if pp == nil {
		return nil, fmt.Errorf("election %q has a single key, not trustee shares", t.prepared.Manifest.ElectionID)
	}
	if err := ks.Check(pp); err != nil {
		return nil, fmt.Errorf("the key share does not belong to election %q: %w", t.prepared.Manifest.ElectionID, err)
	}
	return ks.DecryptTally(random, pp, t.sealed)
}
