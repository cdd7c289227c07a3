package election_test

import (
	"bytes"
	"testing"

	"github.com/fabvote/fabvote/election"
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
