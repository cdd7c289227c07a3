package protocol

import (
	"context"
	"fmt"
	"sync"
)

// Memory is an in-process network of n trustees for tests and
// measurements: Transport(i) is trustee i's side. It authenticates by
// construction (a body is filed under the sending side's index) and keeps
// every body until it is received.
type Memory struct {
	n     int
	boxes []*mailbox // boxes[i−1] is trustee i's
}

// mailbox holds the bodies addressed to one trustee, by round and sender.
// changed is closed and replaced on every delivery, waking the receivers.
type mailbox struct {
	mu      sync.Mutex
	bodies  map[mailKey][]byte
	changed chan struct{}
}

type mailKey struct {
	round Round
	from  int
}

// NewMemory returns a network of n trustees.
func NewMemory(n int) *Memory {
	m := &Memory{n: n, boxes: make([]*mailbox, n)}
	for i := range m.boxes {
		m.boxes[i] = &mailbox{bodies: map[mailKey][]byte{}, changed: make(chan struct{})}
	}
	return m
}

// Transport returns trustee i's side (1..n).
func (m *Memory) Transport(i int) Transport { return &memoryEnd{net: m, me: i} }

type memoryEnd struct {
	net *Memory
	me  int
}

func (e *memoryEnd) Broadcast(ctx context.Context, r Round, body []byte) error {
	for to := 1; to <= e.net.n; to++ {
		if err := e.Send(ctx, r, to, body); err != nil {
			return err
		}
	}
	return nil
}

func (e *memoryEnd) Send(ctx context.Context, r Round, to int, body []byte) error {
	if to < 1 || to > e.net.n {
		return fmt.Errorf("memory transport: no trustee %d", to)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	box := e.net.boxes[to-1]
	box.mu.Lock()
	defer box.mu.Unlock()
	key := mailKey{round: r, from: e.me}
	if _, dup := box.bodies[key]; dup {
		return fmt.Errorf("memory transport: a second body from trustee %d to trustee %d in round %s", e.me, to, r)
	}
	box.bodies[key] = append([]byte(nil), body...)
	close(box.changed)
	box.changed = make(chan struct{})
	return nil
}

func (e *memoryEnd) Receive(ctx context.Context, r Round, from []int) ([]Message, error) {
	box := e.net.boxes[e.me-1]
	for {
		box.mu.Lock()
		var got []Message
		for _, f := range from {
			if b, ok := box.bodies[mailKey{round: r, from: f}]; ok {
				got = append(got, Message{From: f, Body: b})
			}
		}
		if len(got) == len(from) {
			for _, f := range from {
				delete(box.bodies, mailKey{round: r, from: f})
			}
			box.mu.Unlock()
			return got, nil
		}
		wait := box.changed
		box.mu.Unlock()
		select {
		case <-ctx.Done():
			return got, ctx.Err()
		case <-wait:
		}
	}
}
