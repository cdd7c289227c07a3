package audit

import (
	"testing"

	"github.com/fabvote/fabvote/election"
)

// With a duplicate pseudonym in the listing, CheckBallots still reads the
// ledger once: the product is that of the first listing of each pseudonym,
// taken from the same read, and a source that would answer differently on
// a second read changes nothing.
func TestCheckBallotsReadsOnce(t *testing.T) {
	w := getWorld(t)
	good := w.entries()
	want, err := CheckBallots(w.p, source(good), Options{Workers: 1, BatchSize: 64})
	if err != nil {
		t.Fatal(err)
	}
	for _, batch := range []int{1, 2, 64} {
		reads := 0
		listed := append(append([]election.BallotEntry(nil), good...), good[1], good[4])
		src := func(fn func(election.BallotEntry) error) error {
			reads++
			if reads > 1 {
				return source(good[:1])(fn) // a second read sees another ledger
			}
			return source(listed)(fn)
		}
		got, err := CheckBallots(w.p, src, Options{Workers: 3, BatchSize: batch})
		if err != nil {
			t.Fatal(err)
		}
		if reads != 1 {
			t.Errorf("batch %d: the ballots were read %d times, want once", batch, reads)
		}
		if got.Product.Cmp(want.Product) != 0 || got.Valid != len(good) || got.Entries != len(listed) {
			t.Errorf("batch %d: product equal %v, %d valid of %d entries; want the good product, %d of %d",
				batch, got.Product.Cmp(want.Product) == 0, got.Valid, got.Entries, len(good), len(listed))
		}
		if n := countKind(got.Failures, KindDuplicate); n != 2 || len(got.Failures) != 2 {
			t.Errorf("batch %d: failures %v, want 2 duplicates", batch, got.Failures)
		}
		if got.Failures[0].Subject != subject(good[1]) {
			t.Errorf("batch %d: first duplicate %q, want the second listing of %q", batch, got.Failures[0].Subject, subject(good[1]))
		}
	}
}
