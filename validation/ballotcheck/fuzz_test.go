package ballotcheck

import (
	"testing"

	"github.com/fabvote/fabvote/election"
)

// FuzzCheckTx: any written value and argument either passes as the valid
// ballot it encodes or is rejected with a code; it never panics or accepts
// an argument that differs from what is written.
func FuzzCheckTx(f *testing.F) {
	setup(f)
	tx := castTx(ballots[0], 0)
	f.Add(tx.Writes[0].Value, tx.Args[0])
	f.Add([]byte{1, 0, 0}, []byte{})
	f.Add(tampers[0].make(1).Writes[0].Value, tx.Args[0])
	m := manifests(f)
	key := tx.Writes[0].Key
	f.Fuzz(func(t *testing.T, value, arg []byte) {
		fz := &Tx{TxID: tx.TxID, Function: "CastBallot", Args: [][]byte{arg},
			Reads: []Read{{Key: key, Absent: true}}, Writes: []Write{{Key: key, Value: value}}}
		items, err := checkTx(m, fz)
		if err != nil {
			if Code(err) == "" {
				t.Fatalf("rejection without a code: %v", err)
			}
			return
		}
		rec, perr := election.ParseRecord(value)
		if perr != nil || len(items) != 1 || checkArgument([][]byte{arg}, rec.Ballot) != nil {
			t.Fatalf("accepted a transaction whose argument or record is wrong")
		}
	})
}
