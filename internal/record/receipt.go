package record

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/fabvote/fabvote/internal/audit"
)

// Receipt is what a voter holds after casting: the ballot's key and hash,
// and the transaction that wrote it (TxID may be empty).
type Receipt struct {
	ElectionID, Pseudonym, BallotHash, TxID string
}

// ReceiptStatus is what a verified record says of a receipt's ballot.
type ReceiptStatus struct {
	Entry   Entry
	Counted bool   // the published result counts it
	Note    string // why it is not counted, when it is not
}

// CheckReceipt finds the receipt's ballot in the record at dir, whose
// verification is rep, with no identity and no network: the record must
// pass, hold the receipt's ballot under its pseudonym with its hash and
// transaction, and the report tells whether the result counts it. An
// error says what does not hold.
func CheckReceipt(dir string, rep *audit.Report, rc Receipt) (*ReceiptStatus, error) {
	if rep.ElectionID != "" && rep.ElectionID != rc.ElectionID {
		return nil, fmt.Errorf("the receipt is for election %q, the record for %q", rc.ElectionID, rep.ElectionID)
	}
	if !rep.OK() {
		return nil, fmt.Errorf("the record does not verify (%d failure(s), the first: %s %s: %s): it cannot vouch for any ballot",
			len(rep.Failures), rep.Failures[0].Kind, rep.Failures[0].Subject, rep.Failures[0].Err)
	}
	b, err := os.ReadFile(filepath.Join(dir, BallotsFile))
	if err != nil {
		return nil, err
	}
	entries, err := ParseBallotIndex(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", BallotsFile, err)
	}
	for _, e := range entries {
		if e.Pseudonym != rc.Pseudonym {
			continue
		}
		if e.BallotHash != rc.BallotHash {
			return nil, fmt.Errorf("the record holds ballot hash %s for voter %s, the receipt says %s: the ballot on the ledger is not yours", e.BallotHash, rc.Pseudonym, rc.BallotHash)
		}
		if rc.TxID != "" && e.TxID != rc.TxID {
			return nil, fmt.Errorf("the record says tx %s for voter %s, the receipt says %s", e.TxID, rc.Pseudonym, rc.TxID)
		}
		return statusOf(rep, e), nil
	}
	return nil, fmt.Errorf("the record holds no ballot of voter %s: your ballot was not recorded", rc.Pseudonym)
}

// statusOf says whether a ballot of a passing record is counted: it is
// unless it committed after the result, or no result is published.
func statusOf(rep *audit.Report, e Entry) *ReceiptStatus {
	st := &ReceiptStatus{Entry: e}
	if rep.Order != nil {
		for _, l := range rep.Order.Late {
			if l.Entry.Pseudonym == e.Pseudonym {
				st.Note = fmt.Sprintf("it committed in block %d, after the result: not counted", l.Block)
				return st
			}
		}
	}
	if rep.Result == nil {
		st.Note = "no result is published yet"
		return st
	}
	st.Counted = true
	return st
}
