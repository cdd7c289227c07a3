package registrar

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/fabvote/fabvote/internal/atomicfile"
)

// Registration records one used code.
type Registration struct {
	VoterID  string    `json:"voterID"`
	VoterPub []byte    `json:"voterPub"`
	Token    []byte    `json:"token"`
	Time     time.Time `json:"time"`
}

// State is the set of voter ids whose code has been used, persisted to a JSON
// file that is replaced atomically after every change. A registration is
// reported to the voter only after it is on disk.
type State struct {
	mu     sync.Mutex
	path   string
	ElecID string                   `json:"electionID"`
	Used   map[string]*Registration `json:"used"`
}

// OpenState loads path, or starts an empty state if it does not exist. It
// refuses a state file from another election.
func OpenState(path, electionID string) (*State, error) {
	s := &State{path: path, ElecID: electionID, Used: map[string]*Registration{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return s, s.save()
	}
	if err != nil {
		return nil, fmt.Errorf("registration state: %w", err)
	}
	if err := json.Unmarshal(data, s); err != nil {
		return nil, fmt.Errorf("registration state %s: %w", path, err)
	}
	if s.ElecID != electionID {
		return nil, fmt.Errorf("registration state %s belongs to election %q, not %q", path, s.ElecID, electionID)
	}
	if s.Used == nil {
		s.Used = map[string]*Registration{}
	}
	return s, nil
}

func (s *State) save() error {
	data, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(s.path, data, 0o600)
}

// ErrUsed means the voter id's code was used already.
var ErrUsed = errors.New("the one-time code for this voter id has already been used")

// Claim marks id as used with its registration, unless it already is. issue
// runs under the lock, so two concurrent requests cannot both get a token.
func (s *State) Claim(id string, issue func() (*Registration, error)) (*Registration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, used := s.Used[id]; used {
		return nil, ErrUsed
	}
	reg, err := issue()
	if err != nil {
		return nil, err
	}
	s.Used[id] = reg
	if err := s.save(); err != nil {
		delete(s.Used, id)
		return nil, fmt.Errorf("saving registration state: %w", err)
	}
	return reg, nil
}

// Count returns how many codes are used.
func (s *State) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.Used)
}
