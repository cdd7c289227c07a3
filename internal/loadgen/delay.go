package loadgen

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// maxWorkDelay is delaywork.MaxDelay (a test checks they agree; fabvote
// does not link the chaincode).
const maxWorkDelay = 10 * time.Second

// DelaySource is the workload of the delaywork chaincode (package
// chaincode/delaywork): Count requests to write a fresh key after holding the
// simulation for Delay. Keys are Prefix + "-" + the index, so that every
// transaction writes a key of its own, as a ballot does.
type DelaySource struct {
	prefix string
	delay  string
	count  int
	next   int
}

// NewDelaySource makes count requests of the given delay, under a random key
// prefix (so runs on the same ledger never collide).
func NewDelaySource(delay time.Duration, count int) (*DelaySource, error) {
	if delay < 0 || delay > maxWorkDelay {
		return nil, fmt.Errorf("--work-delay %v: want 0..%v (the chaincode's bound)", delay, maxWorkDelay)
	}
	if count <= 0 {
		return nil, fmt.Errorf("--count %d: a delay workload needs a count ≥ 1", count)
	}
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	return &DelaySource{prefix: "w" + hex.EncodeToString(b[:]), delay: delay.String(), count: count}, nil
}

// Next implements Source: the JSON request of delaywork's Work.
func (s *DelaySource) Next() ([]byte, error) {
	if s.next >= s.count {
		return nil, io.EOF
	}
	req := struct {
		Key   string `json:"key"`
		Delay string `json:"delay"`
	}{fmt.Sprintf("%s-%07d", s.prefix, s.next), s.delay}
	s.next++
	return json.Marshal(req)
}

// Name says what the workload is, for the report.
func (s *DelaySource) Name() string {
	return fmt.Sprintf("delaywork: %d requests of %s, keys %s-*", s.count, s.delay, s.prefix)
}
