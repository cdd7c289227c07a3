package trustee_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/internal/trustee"
)

// A peer that lies alone is caught: Recompute asks every org's peer, and
// refuses on any disagreement, naming the orgs; a manifest of another
// channel (an attacker's channel with a copied manifest) is refused before
// any read. Each read's failure is reported with its org, and nothing is
// decrypted.
func TestRecomputeOrgsAndErrors(t *testing.T) {
	w := newWorld(t)
	boom := errors.New("peer unavailable")
	otherChannel := *w.m
	otherChannel.Channel = "attacker"
	otherRaw, err := otherChannel.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		setup func(org1, org2 *fakeLedger)
		local []byte
		want  error
		names []string // what the error must name
	}{
		{"manifest of another channel", func(_, _ *fakeLedger) {}, otherRaw, trustee.ErrWrongChannel, []string{`"attacker"`, w.m.Channel}},
		{"org 2's manifest differs", func(_, o2 *fakeLedger) { o2.manifest = otherRaw }, w.raw, trustee.ErrManifestMismatch, []string{"Org2MSP"}},
		{"org 2 says the window is open", func(_, o2 *fakeLedger) { o2.closed = false }, w.raw, trustee.ErrWindowOpen, []string{"Org2MSP"}},
		{"org 1 lists one voter's ballot only", func(o1, _ *fakeLedger) { o1.entries = o1.entries[2:3] }, w.raw, trustee.ErrOrgsDisagree, []string{"Org1MSP", "Org2MSP"}},
		{"org 2 holds a ballot back", func(_, o2 *fakeLedger) { o2.entries = o2.entries[1:] }, w.raw, trustee.ErrOrgsDisagree, []string{"Org1MSP", "Org2MSP"}},
		{"org 2 lists another transaction", func(_, o2 *fakeLedger) { o2.entries[0].TxID = "tx-other" }, w.raw, trustee.ErrOrgsDisagree, []string{"Org2MSP"}},
		{"GetManifest fails", func(_, o2 *fakeLedger) { o2.manifestErr = boom }, w.raw, boom, []string{"Org2MSP", "manifest"}},
		{"WindowClosed fails", func(o1, _ *fakeLedger) { o1.windowErr = boom }, w.raw, boom, []string{"Org1MSP", "window"}},
		{"org 1's ballot stream fails", func(o1, _ *fakeLedger) { o1.streamErr, o1.streamErrAt = boom, 2 }, w.raw, boom, []string{"Org1MSP"}},
		{"org 2's ballot stream fails", func(_, o2 *fakeLedger) { o2.streamErr, o2.streamErrAt = boom, 3 }, w.raw, boom, []string{"Org2MSP"}},
		{"a ballot listed twice", func(o1, o2 *fakeLedger) {
			o1.entries = append(o1.entries, o1.entries[0])
			o2.entries = append(o2.entries, o2.entries[0])
		}, w.raw, trustee.ErrInvalidBallots, []string{"DUPLICATE"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			org1, org2 := w.ledger(true), w.ledger(true)
			tc.setup(org1, org2)
			tally, err := trustee.Recompute(context.Background(), w.of(org1, org2), tc.local, opts)
			if !errors.Is(err, tc.want) || tally != nil {
				t.Fatalf("Recompute = %v, %v; want %v", tally, err, tc.want)
			}
			for _, n := range tc.names {
				if !strings.Contains(err.Error(), n) {
					t.Errorf("error %q does not name %s", err, n)
				}
			}
		})
	}
}

// A Ledger with no org, or none at all, reads nothing.
func TestRecomputeNeedsALedger(t *testing.T) {
	w := newWorld(t)
	for _, l := range []*trustee.Ledger{nil, w.of(), {}} {
		if tally, err := trustee.Recompute(context.Background(), l, w.raw, opts); err == nil || tally != nil {
			t.Fatalf("Recompute with no org = %v, %v; want an error", tally, err)
		}
	}
	if _, err := trustee.NewLedger(w.m.Channel); err == nil {
		t.Fatal("NewLedger with no client: no error")
	}
	if _, err := trustee.NewLedger(w.m.Channel, nil); err == nil {
		t.Fatal("NewLedger with a nil client: no error")
	}
}
