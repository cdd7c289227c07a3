package lockless

import (
	"reflect"
	"testing"
)

// collected returns what Collect reports, as "channel" -> Stats.
func collected() map[string]Stats {
	got := map[string]Stats{}
	Collect(func(ch string, s Stats) { got[ch] = s })
	return got
}

func TestRegistry(t *testing.T) {
	busy := New(Lockless)
	busy.LockCommit()
	busy.UnlockCommit()
	s := busy.Begin()
	if err := s.Read("ns", "a"); err != nil {
		t.Fatal(err)
	}
	s.Done()
	idle := New(Locked)
	replacement := New(Locked)

	tests := []struct {
		name string
		op   func()
		want map[string]Stats
	}{
		{"empty", func() {}, map[string]Stats{}},
		{"register two", func() { Register("ch1", busy); Register("ch2", idle) },
			map[string]Stats{"ch1": {Sessions: 1, Commits: 1}, "ch2": {}}},
		{"nil gate ignored", func() { Register("ch3", nil) },
			map[string]Stats{"ch1": {Sessions: 1, Commits: 1}, "ch2": {}}},
		{"replace ch2", func() { Register("ch2", replacement) },
			map[string]Stats{"ch1": {Sessions: 1, Commits: 1}, "ch2": {}}},
		{"unregister the old ch2 gate keeps its replacement", func() { Unregister("ch2", idle) },
			map[string]Stats{"ch1": {Sessions: 1, Commits: 1}, "ch2": {}}},
		{"unregister ch1", func() { Unregister("ch1", busy) },
			map[string]Stats{"ch2": {}}},
		{"unregister ch2", func() { Unregister("ch2", replacement) }, map[string]Stats{}},
	}
	for _, tc := range tests {
		tc.op()
		if got := collected(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: Collect = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestRegistryReplacementIsWhatCollectSees(t *testing.T) {
	old, fresh := New(Locked), New(Locked)
	old.LockCommit()
	old.UnlockCommit()
	Register("chan", old)
	Register("chan", fresh)
	t.Cleanup(func() { Unregister("chan", fresh) })
	got := collected()
	if got["chan"].Commits != 0 {
		t.Errorf("Collect reports %v for chan, want the fresh gate's zero counters", got["chan"])
	}
	if final := Unregister("chan", old); final.Commits != 1 {
		t.Errorf("Unregister(old) = %v, want its final counters (commits=1)", final)
	}
	if _, ok := collected()["chan"]; !ok {
		t.Errorf("Unregister(old) removed the fresh gate registered under the same channel")
	}
}

func TestCollectOrderAndReentrancy(t *testing.T) {
	gates := map[string]*Gate{"b": New(Locked), "a": New(Locked), "c": New(Locked)}
	for ch, g := range gates {
		Register(ch, g)
	}
	var order []string
	Collect(func(ch string, _ Stats) {
		order = append(order, ch)
		Unregister(ch, gates[ch]) // must not deadlock: fn runs outside the lock
	})
	if want := []string{"a", "b", "c"}; !reflect.DeepEqual(order, want) {
		t.Errorf("Collect order = %v, want %v", order, want)
	}
	if got := collected(); len(got) != 0 {
		t.Errorf("after unregistering all, Collect = %v, want nothing", got)
	}
}
