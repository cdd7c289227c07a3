package trustee

import "github.com/fabvote/fabvote/crypto/paillier/threshold"

// Reader is, for this package's tests only, what Recompute reads from one
// org: tests build a Ledger from fakes with NewTestLedger. Outside tests a
// Ledger is built only from ledger clients (NewLedger).
type Reader = reader

// NewTestLedger is a Ledger of channel whose org msps[i] answers with rs[i].
func NewTestLedger(channel string, msps []string, rs ...Reader) *Ledger {
	l := &Ledger{channel: channel}
	for i, r := range rs {
		l.orgs = append(l.orgs, orgReader{msp: msps[i], r: r})
	}
	return l
}

// HoldsSealer reports whether this package claimed threshold's Sealer when
// it was initialised.
func HoldsSealer() bool { return sealer != nil && sealerErr == nil }

// LoseSealer makes this package behave, until restore is called, as if
// another package had claimed threshold's Sealer before it.
func LoseSealer() (restore func()) {
	s, err := sealer, sealerErr
	sealer, sealerErr = nil, threshold.ErrSealerClaimed
	return func() { sealer, sealerErr = s, err }
}
