package trustee

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
