package registrar

import (
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fabvote/fabvote/election"
)

func pseudonyms(first, n int) [][election.PseudonymLen]byte {
	out := make([][election.PseudonymLen]byte, n)
	for i := range out {
		out[i][0], out[i][1] = byte(first+i), byte((first+i)>>8)
	}
	return out
}

// TestIssuedLogBound: a pseudonym takes one slot however often it is
// admitted; a batch that does not fit admits none of its pseudonyms.
func TestIssuedLogBound(t *testing.T) {
	l := &IssuedLog{Path: filepath.Join(t.TempDir(), "issued.db"), ElectionID: "e1", Commitment: []byte("c1")}
	if err := l.Admit(append(pseudonyms(0, 3), pseudonyms(0, 3)...), 5); err != nil {
		t.Fatal(err)
	}
	if err := l.Admit(pseudonyms(1, 3), 5); err != nil { // 1 new: 4 of 5
		t.Fatal(err)
	}
	err := l.Admit(pseudonyms(10, 2), 5)
	if !errors.Is(err, election.ErrRollFull) || !strings.Contains(err.Error(), "4 voters hold tokens") {
		t.Fatalf("a batch past the bound: %v", err)
	}
	if err := l.Admit(pseudonyms(11, 1), 5); err != nil { // the refused batch took no slot
		t.Fatalf("the last slot after a refused batch: %v", err)
	}
	if err := l.Admit(pseudonyms(0, 4), 5); err != nil {
		t.Fatalf("admitted pseudonyms again at the bound: %v", err)
	}
}

// TestIssuedLogConcurrent: issuers that admit at once never pass the bound
// together.
func TestIssuedLogConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "issued.db")
	var wg sync.WaitGroup
	var mu sync.Mutex
	admitted := 0
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := &IssuedLog{Path: path, ElectionID: "e1", Commitment: []byte("c1")}
			if l.Admit(pseudonyms(i, 1), 10) == nil {
				mu.Lock()
				admitted++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if admitted != 10 {
		t.Fatalf("%d of 20 issuers admitted under a bound of 10", admitted)
	}
}

// TestIssuedLogForeign: the file of another election, or of another
// election of the same id, is refused, naming which.
func TestIssuedLogForeign(t *testing.T) {
	path := filepath.Join(t.TempDir(), "issued.db")
	if err := (&IssuedLog{Path: path, ElectionID: "e1", Commitment: []byte("c1")}).Admit(pseudonyms(0, 1), 5); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		l    *IssuedLog
		want string
	}{
		{&IssuedLog{Path: path, ElectionID: "e2", Commitment: []byte("c1")}, `belongs to election "e1"`},
		{&IssuedLog{Path: path, ElectionID: "e1", Commitment: []byte("c2")}, "another pseudonym key commitment"},
	} {
		if err := tc.l.Admit(pseudonyms(1, 1), 5); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.l, err, tc.want)
		}
	}
}
