package lockless

import (
	"sync"
	"sync/atomic"
)

// NameSet is a set of names that lock-free readers query while a commit
// adds to it: Fabric's record of the namespaces that have ever had
// key-level metadata (privacyenabledstate's metadata hint), which a
// simulation reads for every SetState and a commit extends when a
// namespace first gets metadata. Readers load an immutable map through an
// atomic pointer and never wait; writers copy it (copy-on-write), which is
// cheap because names are added once per namespace in a ledger's life.
// The zero value is an empty set.
type NameSet struct {
	mu  sync.Mutex // serializes writers
	cur atomic.Pointer[map[string]struct{}]
}

// NewNameSet returns a set holding names.
func NewNameSet(names ...string) *NameSet {
	s := &NameSet{}
	s.Add(names...)
	return s
}

// Has reports whether name is in the set. It takes no lock.
func (s *NameSet) Has(name string) bool {
	m := s.cur.Load()
	if m == nil {
		return false
	}
	_, ok := (*m)[name]
	return ok
}

// Add adds names to the set and returns the ones that were not in it yet,
// in the order given (each once).
func (s *NameSet) Add(names ...string) (added []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.cur.Load()
	var next map[string]struct{}
	for _, n := range names {
		if old != nil {
			if _, ok := (*old)[n]; ok {
				continue
			}
		}
		if _, ok := next[n]; ok {
			continue
		}
		if next == nil {
			next = make(map[string]struct{}, s.len(old)+len(names))
			if old != nil {
				for k := range *old {
					next[k] = struct{}{}
				}
			}
		}
		next[n] = struct{}{}
		added = append(added, n)
	}
	if next != nil {
		s.cur.Store(&next)
	}
	return added
}

func (s *NameSet) len(m *map[string]struct{}) int {
	if m == nil {
		return 0
	}
	return len(*m)
}
