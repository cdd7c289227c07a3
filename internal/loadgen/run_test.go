package loadgen

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// sliceSource yields n payloads "0".."n-1", then io.EOF (or err, if set).
type sliceSource struct {
	n, i int
	err  error
}

func (s *sliceSource) Next() ([]byte, error) {
	if s.i >= s.n {
		if s.err != nil {
			return nil, s.err
		}
		return nil, io.EOF
	}
	s.i++
	return []byte{byte(s.i - 1)}, nil
}

// echoTarget succeeds except for payloads in fail; it records the peak of
// concurrent calls.
type echoTarget struct {
	fail     map[byte]string
	cur, max atomic.Int64
	mu       sync.Mutex
	seen     map[int]byte
}

func (e *echoTarget) Do(_ context.Context, index int, p []byte) Sample {
	c := e.cur.Add(1)
	for {
		m := e.max.Load()
		if c <= m || e.max.CompareAndSwap(m, c) {
			break
		}
	}
	defer e.cur.Add(-1)
	e.mu.Lock()
	if e.seen == nil {
		e.seen = map[int]byte{}
	}
	e.seen[index] = p[0]
	e.mu.Unlock()
	s := Sample{Start: time.Now()}
	s.Done = s.Start
	if r, ok := e.fail[p[0]]; ok {
		s.Reason = r
		return s
	}
	s.OK = true
	return s
}

func TestDrive(t *testing.T) {
	tests := []struct {
		name        string
		cfg         Config
		n           int
		srcErr      error
		wantSent    int
		wantFail    int
		wantErr     string
		maxInFlight int64
	}{
		{"closed loop, all", Config{Concurrency: 4}, 50, nil, 50, 2, "", 4},
		{"closed loop, count bound", Config{Concurrency: 3, Count: 10}, 50, nil, 10, 2, "", 3},
		{"open loop", Config{Rate: 1e6, Concurrency: 5}, 40, nil, 40, 2, "", 5},
		{"source error", Config{Concurrency: 2}, 5, errors.New("disk on fire"), 5, 2, "disk on fire", 2},
		{"bad concurrency", Config{Concurrency: 0}, 5, nil, 0, 0, "concurrency", 0},
		{"bad rate", Config{Rate: -1, Concurrency: 1}, 5, nil, 0, 0, "rate", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tg := &echoTarget{fail: map[byte]string{1: "endorse: fabvote PROOF", 3: "commit: MVCC_READ_CONFLICT"}}
			run, err := Drive(context.Background(), tg, &sliceSource{n: tc.n, err: tc.srcErr}, tc.cfg)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if run == nil {
					return
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if run.Sent != tc.wantSent || len(run.Samples) != tc.wantSent {
				t.Fatalf("sent %d, samples %d, want %d", run.Sent, len(run.Samples), tc.wantSent)
			}
			fails := 0
			for _, s := range run.Samples {
				if !s.OK {
					fails++
				}
				if p := tg.seen[s.Index]; int(p) != s.Index {
					t.Fatalf("sample index %d carried payload %d", s.Index, p)
				}
			}
			if fails != tc.wantFail {
				t.Fatalf("%d failures, want %d", fails, tc.wantFail)
			}
			if m := tg.max.Load(); m > tc.maxInFlight {
				t.Fatalf("%d transactions in flight, cap %d", m, tc.maxInFlight)
			}
			rep := NewReport(run, Full, tc.cfg, "test", 0.1)
			if rep.Succeeded+rep.Failed != rep.Sent || rep.Failures["endorse: fabvote PROOF"] != 1 {
				t.Fatalf("report counts: %+v", rep)
			}
		})
	}
}

func TestDriveCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	run, err := Drive(ctx, &echoTarget{}, &sliceSource{n: 100}, Config{Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	if run.Sent != 0 {
		t.Fatalf("a cancelled run sent %d", run.Sent)
	}
}
