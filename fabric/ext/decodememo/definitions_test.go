package decodememo

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"
)

// state is a fake committed state: each namespace's definition, and a count
// of the reads made.
type state struct {
	mu    sync.Mutex
	defs  map[string]Definition
	fail  error
	reads int
}

func (s *state) reader(ns string) DefinitionReader {
	return func() (string, []byte, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.reads++
		if s.fail != nil {
			return "", nil, s.fail
		}
		def, ok := s.defs[ns]
		if !ok {
			return "", nil, errors.New("chaincode " + ns + " is not defined")
		}
		return def.Plugin, bytes.Clone(def.Args), nil
	}
}

func (s *state) set(ns string, def Definition) { s.mu.Lock(); s.defs[ns] = def; s.mu.Unlock() }
func (s *state) n() int                        { s.mu.Lock(); defer s.mu.Unlock(); return s.reads }

func newState() *state {
	return &state{defs: map[string]Definition{
		"ballot": {Plugin: "ballotvscc", Args: []byte("policy A")},
		"other":  {Plugin: "vscc", Args: []byte("policy B")},
	}}
}

func TestDefinitionsReadOncePerBlockAndNamespace(t *testing.T) {
	d, s := NewDefinitions(false), newState()
	get := func(block uint64, ns string) Definition {
		t.Helper()
		plugin, args, err := d.Get(block, ns, s.reader(ns))
		if err != nil {
			t.Fatalf("block %d, %s: %v", block, ns, err)
		}
		return Definition{plugin, args}
	}
	for i := 0; i < 3; i++ {
		if got := get(5, "ballot"); got.Plugin != "ballotvscc" || string(got.Args) != "policy A" {
			t.Fatalf("block 5, ballot: got %+v", got)
		}
	}
	if s.n() != 1 {
		t.Fatalf("3 transactions of one block read the definition %d times, want 1", s.n())
	}
	if got := get(5, "other"); got.Plugin != "vscc" || s.n() != 2 {
		t.Fatalf("another namespace: got %+v after %d reads, want vscc after 2", got, s.n())
	}
	// The next block may follow a block that changed the definition.
	s.set("ballot", Definition{Plugin: "ballotvscc", Args: []byte("policy C")})
	if got := get(6, "ballot"); string(got.Args) != "policy C" || s.n() != 3 {
		t.Fatalf("block 6 after a definition change: got %q after %d reads, want policy C after 3", got.Args, s.n())
	}
	// Moving to block 6 dropped block 5's entries, "other" among them.
	get(6, "other")
	if s.n() != 4 {
		t.Fatalf("block 6 reused block 5's definition of other: %d reads, want 4", s.n())
	}
	if hits, misses := d.Stats(); hits != 2 || misses != 4 {
		t.Fatalf("stats %d hits, %d misses; want 2, 4", hits, misses)
	}
}

func TestDefinitionsNeverRememberAFailedRead(t *testing.T) {
	d, s := NewDefinitions(false), newState()
	for i := 1; i <= 3; i++ {
		if _, _, err := d.Get(7, "missing", s.reader("missing")); err == nil || !strings.Contains(err.Error(), "not defined") {
			t.Fatalf("read %d of an undefined chaincode: err %v", i, err)
		}
		if s.n() != i {
			t.Fatalf("after %d failed reads the state was read %d times", i, s.n())
		}
	}
	s.fail = errors.New("state database unavailable")
	if _, _, err := d.Get(7, "ballot", s.reader("ballot")); err == nil || err.Error() != "state database unavailable" {
		t.Fatalf("a failing read returned %v, want its error unchanged", err)
	}
	s.fail = nil
	if plugin, _, err := d.Get(7, "ballot", s.reader("ballot")); err != nil || plugin != "ballotvscc" {
		t.Fatalf("after the failure: %q, %v", plugin, err)
	}
}

func TestDefinitionsCheckModePanicsOnADifference(t *testing.T) {
	for _, tc := range []struct {
		name   string
		modify func(s *state, args []byte)
		want   string
	}{
		{"state changed within the block", func(s *state, _ []byte) {
			s.set("ballot", Definition{Plugin: "ballotvscc", Args: []byte("policy X")})
		}, "differs from a fresh read"},
		{"plugin changed within the block", func(s *state, _ []byte) {
			s.set("ballot", Definition{Plugin: "vscc", Args: []byte("policy A")})
		}, "differs from a fresh read"},
		{"policy bytes modified by a caller", func(_ *state, args []byte) { args[0] ^= 1 }, "differs from a fresh read"},
		{"definition removed", func(s *state, _ []byte) { delete(s.defs, "ballot") }, "no longer reads"},
		{"nothing changed", func(*state, []byte) {}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, s := NewDefinitions(true), newState()
			_, args, err := d.Get(9, "ballot", s.reader("ballot"))
			if err != nil {
				t.Fatal(err)
			}
			tc.modify(s, args)
			panicked := catch(func() { d.Get(9, "ballot", s.reader("ballot")) })
			if tc.want == "" && panicked != "" || !strings.Contains(panicked, tc.want) {
				t.Fatalf("panic %q, want one containing %q", panicked, tc.want)
			}
		})
	}
}

func TestDefinitionsConcurrent(t *testing.T) {
	d, s := NewDefinitions(true), newState()
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for block := uint64(1); block <= 20; block++ {
				for _, ns := range []string{"ballot", "other"} {
					if _, _, err := d.Get(block, ns, s.reader(ns)); err != nil {
						t.Error(err)
					}
				}
			}
		}()
	}
	wg.Wait()
}

// Two transactions of a block that both miss both read; in check mode the
// later read must equal the earlier one.
func TestDefinitionsCheckModeComparesRacingReads(t *testing.T) {
	d := NewDefinitions(true)
	d.add(4, "ballot", Definition{Plugin: "ballotvscc", Args: []byte("policy A")})
	if p := catch(func() { d.add(4, "ballot", Definition{Plugin: "ballotvscc", Args: []byte("policy A")}) }); p != "" {
		t.Fatalf("an equal second read panicked: %s", p)
	}
	p := catch(func() { d.add(4, "ballot", Definition{Plugin: "ballotvscc", Args: []byte("policy B")}) })
	if !strings.Contains(p, "two reads within the block differ") {
		t.Fatalf("a different second read: panic %q", p)
	}
	on := NewDefinitions(false) // compares nothing: a difference is check mode's to find
	on.add(4, "ballot", Definition{Plugin: "ballotvscc", Args: []byte("policy A")})
	if p := catch(func() { on.add(4, "ballot", Definition{Plugin: "ballotvscc", Args: []byte("policy B")}) }); p != "" {
		t.Fatalf("on mode panicked: %s", p)
	}
}
