package election_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/election"
	"github.com/hyperledger/fabric-chaincode-go/v2/shim"
)

func TestRecordRoundTrip(t *testing.T) {
	r := &election.Record{TxID: "abc123", Ballot: []byte{1, 2, 3}}
	got, err := election.ParseRecord(r.Marshal())
	if err != nil || got.TxID != r.TxID || !bytes.Equal(got.Ballot, r.Ballot) {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	cases := []struct {
		name string
		in   []byte
		code string
	}{
		{"empty", nil, election.CodeDecode},
		{"bad version", []byte{2, 0, 0}, election.CodeDecode},
		{"txID longer than the record", []byte{1, 0, 9, 'a'}, election.CodeDecode},
		{"txID over the limit", append([]byte{1, 0xff, 0xff}, make([]byte, 70000)...), election.CodeDecode},
		{"oversize", make([]byte, election.MaxBallotSize+200), election.CodeSize},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := election.ParseRecord(tc.in)
			wantCode(t, err, tc.code)
		})
	}
}

// LedgerKey must spell exactly the keys the chaincode writes through the
// shim, or an auditor reading blocks would not recognise them.
func TestLedgerKeyMatchesShim(t *testing.T) {
	for _, tc := range []struct {
		obj   string
		attrs []string
	}{
		{election.ObjManifest, []string{"e-1"}},
		{election.ObjResult, []string{"e-1"}},
		{election.ObjBallot, []string{"e-1", "00ff"}},
		{election.ObjBallot, []string{"e-1"}}, // the prefix of every ballot key
	} {
		want, err := shim.CreateCompositeKey(tc.obj, tc.attrs)
		if err != nil {
			t.Fatal(err)
		}
		if got := election.LedgerKey(tc.obj, tc.attrs...); got != want {
			t.Errorf("LedgerKey(%q, %q) = %q, the shim writes %q", tc.obj, tc.attrs, got, want)
		}
	}
	full := election.LedgerKey(election.ObjBallot, "e-1", "00ff")
	if !strings.HasPrefix(full, election.LedgerKey(election.ObjBallot, "e-1")) || strings.HasPrefix(full, election.LedgerKey(election.ObjBallot, "e-")) {
		t.Errorf("ballot key %q: the election prefix must match its own election only", full)
	}
}
