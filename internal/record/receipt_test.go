package record_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/internal/record"
)

func entries(t *testing.T, dir string) []record.Entry {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, record.BallotsFile))
	if err != nil {
		t.Fatal(err)
	}
	es, err := record.ParseBallotIndex(b)
	if err != nil || len(es) < 2 {
		t.Fatalf("%s: %d entries, %v", dir, len(es), err)
	}
	return es
}

// TestCheckReceipt: a receipt checks out against a verified record alone,
// and each way it can fail is named.
func TestCheckReceipt(t *testing.T) {
	good := goodFixture
	rep := verify(t, good, record.Options{})
	e := entries(t, good)[0]
	mine := record.Receipt{ElectionID: rep.ElectionID, Pseudonym: e.Pseudonym, BallotHash: e.BallotHash, TxID: e.TxID}
	st, err := record.CheckReceipt(good, rep, mine)
	if err != nil || !st.Counted || st.Entry != e {
		t.Fatalf("own receipt: %+v, %v; want counted", st, err)
	}
	other := entries(t, good)[1]
	tampered := copyRecord(t)
	putRaw(t, tampered, 2, rawBlock(t, tampered, 3)) // the record fails
	cases := []struct {
		name string
		dir  string
		rc   record.Receipt
		want string
	}{
		{"another ballot under my pseudonym", good, record.Receipt{ElectionID: mine.ElectionID, Pseudonym: mine.Pseudonym, BallotHash: other.BallotHash}, "the ballot on the ledger is not yours"},
		{"another transaction", good, record.Receipt{ElectionID: mine.ElectionID, Pseudonym: mine.Pseudonym, BallotHash: mine.BallotHash, TxID: other.TxID}, "the record says tx"},
		{"not recorded", good, record.Receipt{ElectionID: mine.ElectionID, Pseudonym: strings.Repeat("ab", 32), BallotHash: mine.BallotHash}, "your ballot was not recorded"},
		{"another election", good, record.Receipt{ElectionID: "elsewhere", Pseudonym: mine.Pseudonym, BallotHash: mine.BallotHash}, `the receipt is for election "elsewhere"`},
		{"a record that fails", tampered, mine, "the record does not verify"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, err := record.CheckReceipt(tc.dir, verify(t, tc.dir, record.Options{}), tc.rc)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%+v, %v; want an error naming %q", st, err, tc.want)
			}
		})
	}
}

// TestCheckReceiptLate: a ballot that committed after the result is in
// the record but not counted, and the status says so.
func TestCheckReceiptLate(t *testing.T) {
	dir := fixturesDir + "/late-ballot"
	rep := verify(t, dir, record.Options{})
	if rep.Order == nil || len(rep.Order.Late) != 1 {
		t.Fatalf("late-ballot fixture: %+v", rep.Order)
	}
	late := rep.Order.Late[0].Entry.Pseudonym
	for _, e := range entries(t, dir) {
		st, err := record.CheckReceipt(dir, rep, record.Receipt{ElectionID: rep.ElectionID, Pseudonym: e.Pseudonym, BallotHash: e.BallotHash})
		if err != nil {
			t.Fatalf("%s: %v", e.Pseudonym, err)
		}
		if isLate := e.Pseudonym == late; st.Counted == isLate || isLate && !strings.Contains(st.Note, "after the result") {
			t.Errorf("%s (late %v): %+v", e.Pseudonym, isLate, st)
		}
	}
}
