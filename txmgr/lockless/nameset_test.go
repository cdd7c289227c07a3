package lockless

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func TestNameSet(t *testing.T) {
	tests := []struct {
		name      string
		initial   []string
		add       []string
		wantAdded []string
		has       map[string]bool
	}{
		{"zero value", nil, nil, nil, map[string]bool{"a": false, "": false}},
		{"initial names", []string{"a", "b"}, nil, nil, map[string]bool{"a": true, "b": true, "c": false}},
		{"add new", []string{"a"}, []string{"b", "c"}, []string{"b", "c"}, map[string]bool{"a": true, "b": true, "c": true}},
		{"add existing", []string{"a"}, []string{"a"}, nil, map[string]bool{"a": true}},
		{"duplicates in one call", nil, []string{"x", "x", "y"}, []string{"x", "y"}, map[string]bool{"x": true, "y": true, "z": false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := NewNameSet(tc.initial...)
			if got := s.Add(tc.add...); !reflect.DeepEqual(got, tc.wantAdded) {
				t.Errorf("Add(%q) = %q, want %q", tc.add, got, tc.wantAdded)
			}
			for n, want := range tc.has {
				if got := s.Has(n); got != want {
					t.Errorf("Has(%q) = %v, want %v", n, got, want)
				}
			}
		})
	}
}

// Readers query the set while a writer adds to it, as simulations read the
// metadata hint while a commit records a namespace's first metadata. Under
// -race a plain map here is reported (and without -race it can crash with
// "concurrent map read and map write"); a name once seen stays visible.
func TestNameSetConcurrentReadersAndWriter(t *testing.T) {
	s := &NameSet{}
	const names = 2000
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			seen := 0
			for {
				select {
				case <-stop:
					return
				default:
				}
				// Names are added in order: once ns-i is visible, every
				// ns-j with j < i must be too.
				for seen < names && s.Has(fmt.Sprintf("ns-%d", seen)) {
					seen++
				}
				if seen > 0 && !s.Has(fmt.Sprintf("ns-%d", seen-1)) {
					t.Errorf("reader %d: ns-%d vanished", r, seen-1)
					return
				}
			}
		}(r)
	}
	for i := 0; i < names; i++ {
		if added := s.Add(fmt.Sprintf("ns-%d", i)); len(added) != 1 {
			t.Fatalf("Add(ns-%d) = %q", i, added)
		}
	}
	close(stop)
	wg.Wait()
	for i := 0; i < names; i++ {
		if !s.Has(fmt.Sprintf("ns-%d", i)) {
			t.Fatalf("ns-%d missing after all writes", i)
		}
	}
}

func TestCheckStateDB(t *testing.T) {
	tests := []struct {
		mode    Mode
		kind    StateDBKind
		name    string
		wantErr bool
	}{
		{Locked, EmbeddedLevelDB, "goleveldb", false},
		{Locked, OtherStateDB, "CouchDB", false},
		{Lockless, EmbeddedLevelDB, "goleveldb", false},
		{Lockless, OtherStateDB, "CouchDB", true},
	}
	for _, tc := range tests {
		err := CheckStateDB(tc.mode, tc.kind, tc.name)
		if (err != nil) != tc.wantErr {
			t.Errorf("CheckStateDB(%v, %d, %q) = %v, want error: %v", tc.mode, tc.kind, tc.name, err, tc.wantErr)
			continue
		}
		if err != nil {
			for _, want := range []string{EnvVar, `"CouchDB"`, "goleveldb", "locked"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name %s", err, want)
				}
			}
		}
	}
}
