package envelope

import (
	"bytes"
	"errors"
	"fmt"
)

// Chain follows one sender's messages in seq order: each must be the next
// and link to the previous by PrevHash. It keeps every message accepted, so
// that a second, different message with a seq already taken is proven
// equivocation with both messages as evidence.
type Chain struct {
	from uint8
	name string
	msgs [][]byte // raw, seq i+1 at i
	last [32]byte // Hash of the last message, zero before the first
}

// NewChain follows trustee from, named name in errors.
func NewChain(from uint8, name string) *Chain {
	return &Chain{from: from, name: name}
}

// Errors of Accept; the returned errors wrap them and name the sender.
var (
	// ErrReplay: a message already accepted, byte for byte. A receiver may
	// ignore it: a restarted sender sends the same messages again.
	ErrReplay = errors.New("envelope: replay of a message already received")
	// ErrGap: a message beyond the next seq. One before it is missing (the
	// relay dropped it, or has not yet delivered it).
	ErrGap = errors.New("envelope: a message is missing before this one")
	// ErrLink: the next seq, but its PrevHash is not the previous message's.
	ErrLink = errors.New("envelope: does not link to the sender's previous message")
)

// EquivocationError: the sender signed two different messages with the
// same seq. First was accepted, Second came later.
type EquivocationError struct {
	From          uint8
	Name          string
	Seq           uint32
	First, Second []byte
}

func (e *EquivocationError) Error() string {
	return fmt.Sprintf("trustee %d (%s) equivocates: two different signed messages with seq %d", e.From, e.Name, e.Seq)
}

// Evidence is the two signed messages.
func (e *EquivocationError) Evidence() [][]byte { return [][]byte{e.First, e.Second} }

// Next is the seq the chain expects.
func (c *Chain) Next() uint32 { return uint32(len(c.msgs)) + 1 }

// Accept appends e, a message verified by Verify, to the chain.
func (c *Chain) Accept(e *Envelope) error {
	if e.From != c.from {
		return fmt.Errorf("envelope: trustee %d's message given to the chain of trustee %d (%s)", e.From, c.from, c.name)
	}
	switch next := c.Next(); {
	case e.Seq < next:
		prev := c.msgs[e.Seq-1]
		if bytes.Equal(prev, e.raw) {
			return fmt.Errorf("%w: trustee %d (%s), seq %d", ErrReplay, c.from, c.name, e.Seq)
		}
		return &EquivocationError{From: c.from, Name: c.name, Seq: e.Seq, First: prev, Second: e.raw}
	case e.Seq > next:
		return fmt.Errorf("%w: trustee %d (%s) sent seq %d, expected %d", ErrGap, c.from, c.name, e.Seq, next)
	case e.PrevHash != c.last:
		return fmt.Errorf("%w: trustee %d (%s), seq %d", ErrLink, c.from, c.name, e.Seq)
	}
	c.msgs = append(c.msgs, e.raw)
	c.last = e.Hash()
	return nil
}

// Last is the chain hash to put in the sender's next message: a sender
// keeps a Chain of its own messages too.
func (c *Chain) Last() [32]byte { return c.last }
