package record_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fabvote/fabvote/internal/record"
)

// seed adds the good fixture's file to f's corpus.
func seed(f *testing.F, name string) {
	b, err := os.ReadFile(filepath.Join(goodFixture, name))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
}

// FuzzParseRecordJSON: no input panics, and an accepted one re-encodes to
// a record.json that parses to the same value.
func FuzzParseRecordJSON(f *testing.F) {
	seed(f, record.RecordFile)
	f.Add([]byte(`{"format":"fabvote-election-record","version":2}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := record.ParseRecordJSON(b)
		if err != nil {
			return
		}
		again, err := record.ParseRecordJSON(record.MarshalRecordJSON(in))
		if err != nil || *again != *in {
			t.Fatalf("accepted %q, but its encoding gives %+v, %v", b, again, err)
		}
	})
}

// FuzzParseBallotIndex: no input panics, and an accepted index is sorted,
// has no pseudonym twice and round-trips.
func FuzzParseBallotIndex(f *testing.F) {
	seed(f, record.BallotsFile)
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		es, err := record.ParseBallotIndex(b)
		if err != nil {
			return
		}
		for i := 1; i < len(es); i++ {
			if es[i-1].Pseudonym >= es[i].Pseudonym {
				t.Fatalf("accepted an unsorted index %q", b)
			}
		}
		again, err := record.ParseBallotIndex(record.MarshalBallotIndex(es))
		if err != nil || len(again) != len(es) {
			t.Fatalf("accepted %q, but its encoding gives %v, %v", b, again, err)
		}
	})
}
