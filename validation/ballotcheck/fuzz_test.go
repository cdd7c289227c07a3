package ballotcheck

import (
	"testing"

	"github.com/fabvote/fabvote/election"
)

// FuzzCheckTx: any written ballot record, ciphertext claim and argument
// either pass as the valid cast they encode or are rejected with a code; it
// never panics or accepts an argument that differs from what is written.
func FuzzCheckTx(f *testing.F) {
	setup(f)
	tx := castTx(ballots[0], 0)
	f.Add(tx.Writes[0].Value, tx.Writes[1].Value, tx.Args[0])
	f.Add([]byte{1, 0, 0}, []byte{}, []byte{})
	f.Add(tampers[0].make(1).Writes[0].Value, tx.Writes[1].Value, tx.Args[0])
	f.Add(tx.Writes[0].Value, spoilTx(spoiledBallots(f)[0], 0).Writes[1].Value, tx.Args[0])
	m := manifests(f)
	f.Fuzz(func(t *testing.T, value, claim, arg []byte) {
		fz := &Tx{TxID: tx.TxID, Function: "CastBallot", Args: [][]byte{arg}, Reads: tx.Reads,
			Writes: []Write{{Key: tx.Writes[0].Key, Value: value}, {Key: tx.Writes[1].Key, Value: claim}}}
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
		b, _ := election.ParseBallot(rec.Ballot)
		if c, err := election.ParseCiphertextClaim(claim); err != nil || *c != *b.CiphertextClaim() {
			t.Fatalf("accepted a cast whose ciphertext claim is wrong")
		}
	})
}
