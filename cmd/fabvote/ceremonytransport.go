package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"time"

	"filippo.io/age"

	"github.com/fabvote/fabvote/crypto/dkg/protocol"
	"github.com/fabvote/fabvote/internal/ceremony/config"
	"github.com/fabvote/fabvote/internal/ceremony/envelope"
	"github.com/fabvote/fabvote/internal/ceremony/relay"
)

// relayTransport is protocol.Transport over the ceremony's relay: every
// body goes out in a signed envelope (envelope.Seal), a private one
// age-encrypted to its receiver, and comes in through a relay.Client,
// which verifies each message and follows each sender's chain.
//
// A protocol round maps to the envelope's fields: round = phase<<8 | step,
// batch = batch; and the body starts with the round's canonical encoding
// (protocol.Round.MarshalBinary), checked on receipt, so that a body of one
// round is never read as another's. The relay carries no message from a
// trustee to itself: those stay here, in self.
type relayTransport struct {
	cfg     *config.Config
	me      int
	signer  ed25519.PrivateKey
	ids     []age.Identity
	client  *relay.Client
	timeout time.Duration // how long a round waits for the others

	own  *envelope.Chain              // my messages, for seq and prevHash
	self map[protocol.Round][]byte    // bodies I sent to myself
	kind map[protocol.Round]roundKind // what I sent in a round
}

// roundKind is what a round carries: each round is all broadcasts or all
// private messages.
type roundKind int

const (
	kindUnknown roundKind = iota
	kindBroadcast
	kindPrivate
)

func newRelayTransport(cfg *config.Config, me int, signer ed25519.PrivateKey, ids []age.Identity, timeout time.Duration) (*relayTransport, error) {
	c, err := relay.NewClient(cfg, me)
	if err != nil {
		return nil, err
	}
	c.Poll = 25 * time.Millisecond
	t, _ := cfg.Trustee(me)
	return &relayTransport{cfg: cfg, me: me, signer: signer, ids: ids, client: c, timeout: timeout,
		own: envelope.NewChain(uint8(me), t.Name), self: map[protocol.Round][]byte{}, kind: map[protocol.Round]roundKind{}}, nil
}

// envelopeRound is r's envelope round field: phase and step, one byte each.
func envelopeRound(r protocol.Round) (uint16, error) {
	if r.Step > 0xff {
		return 0, fmt.Errorf("round %s: step %d does not fit the envelope's round field", r, r.Step)
	}
	return uint16(r.Phase)<<8 | r.Step, nil
}

func (t *relayTransport) Broadcast(ctx context.Context, r protocol.Round, body []byte) error {
	t.kind[r] = kindBroadcast
	t.self[r] = append([]byte(nil), body...)
	return t.post(ctx, r, envelope.Broadcast, body, nil)
}

func (t *relayTransport) Send(ctx context.Context, r protocol.Round, to int, body []byte) error {
	t.kind[r] = kindPrivate
	if to == t.me {
		t.self[r] = append([]byte(nil), body...)
		return nil
	}
	rcpt, ok := t.cfg.Trustee(to)
	if !ok {
		return fmt.Errorf("no trustee %d in the ceremony", to)
	}
	return t.post(ctx, r, uint8(to), body, rcpt.Recipient())
}

// post seals body, prefixed with r, as my next message and posts it.
func (t *relayTransport) post(ctx context.Context, r protocol.Round, to uint8, body []byte, rcpt age.Recipient) error {
	er, err := envelopeRound(r)
	if err != nil {
		return err
	}
	prefix, _ := r.MarshalBinary()
	h := envelope.Header{Ceremony: t.cfg.ID(), ConfigDigest: t.cfg.Digest(), Round: er, Batch: r.Batch,
		From: uint8(t.me), To: to, Seq: t.own.Next(), PrevHash: t.own.Last()}
	raw, err := envelope.Seal(h, append(prefix, body...), t.signer, rcpt)
	if err != nil {
		return err
	}
	e, err := envelope.Parse(raw)
	if err != nil {
		return err
	}
	if err := t.own.Accept(e); err != nil {
		return err
	}
	_, err = t.client.Post(ctx, raw)
	return err
}

// Receive waits for one body of round r from each trustee in from. A round
// I sent in has the kind I sent; one I did not (a trustee that only reads)
// is tried as either kind in turn, each for one poll.
func (t *relayTransport) Receive(ctx context.Context, r protocol.Round, from []int) ([]protocol.Message, error) {
	er, err := envelopeRound(r)
	if err != nil {
		return nil, err
	}
	others := make([]int, 0, len(from))
	for _, f := range from {
		if f != t.me {
			others = append(others, f)
		}
	}
	t.forgetBefore(r)
	got, err := t.collect(ctx, r, er, others)
	if err != nil {
		return nil, err
	}
	out := make([]protocol.Message, 0, len(from))
	for _, f := range from {
		if f == t.me {
			b, ok := t.self[r]
			if !ok {
				return out, fmt.Errorf("round %s: trustee %d sent itself nothing", r, t.me)
			}
			delete(t.self, r)
			out = append(out, protocol.Message{From: f, Body: b})
			continue
		}
		b, err := t.open(r, got[f])
		if err != nil {
			return out, err
		}
		out = append(out, protocol.Message{From: f, Body: b})
	}
	return out, nil
}

// forgetBefore drops what I kept of the sieve batches before r's: a
// broadcast that only trustee 1 reads stays in self for the others, and
// the batches run in order.
func (t *relayTransport) forgetBefore(r protocol.Round) {
	if r.Phase != protocol.PhaseSieve {
		return
	}
	for old := range t.self {
		if old.Phase == protocol.PhaseSieve && old.Batch < r.Batch {
			delete(t.self, old)
			delete(t.kind, old)
		}
	}
}

// collect fetches round r's envelopes from others, keyed by sender.
func (t *relayTransport) collect(ctx context.Context, r protocol.Round, er uint16, others []int) (map[int]*envelope.Envelope, error) {
	want := func(k roundKind) []relay.Want {
		var w []relay.Want
		for _, f := range others {
			to := uint8(envelope.Broadcast)
			if k == kindPrivate {
				to = uint8(t.me)
			}
			w = append(w, relay.Want{Round: er, Batch: r.Batch, From: uint8(f), To: to})
		}
		return w
	}
	byFrom := func(m map[relay.Want]*envelope.Envelope) map[int]*envelope.Envelope {
		out := map[int]*envelope.Envelope{}
		for w, e := range m {
			out[int(w.From)] = e
		}
		return out
	}
	if k := t.kind[r]; k != kindUnknown {
		delete(t.kind, r)
		m, err := t.client.Round(ctx, want(k), t.timeout)
		return byFrom(m), err
	}
	return t.collectEither(ctx, want)
}

// collectEither waits for the broadcasts or the private messages of a
// round, whichever all come first; at the timeout its error names the
// trustees silent in the kind that came nearer to complete.
func (t *relayTransport) collectEither(ctx context.Context, want func(roundKind) []relay.Want) (map[int]*envelope.Envelope, error) {
	var best *relay.SilentError
	for deadline := time.Now().Add(t.timeout); best == nil || time.Now().Before(deadline); {
		for _, k := range []roundKind{kindBroadcast, kindPrivate} {
			m, err := t.client.Round(ctx, want(k), t.client.Poll)
			var silent *relay.SilentError
			switch {
			case err == nil:
				out := map[int]*envelope.Envelope{}
				for w, e := range m {
					out[int(w.From)] = e
				}
				return out, nil
			case !errors.As(err, &silent):
				return nil, err
			case best == nil || len(silent.Silent) < len(best.Silent):
				best = silent
			}
		}
	}
	best.Timeout = t.timeout
	return nil, best
}

// open checks that e's body is of round r and returns the body after the
// round's prefix, decrypted if private.
func (t *relayTransport) open(r protocol.Round, e *envelope.Envelope) ([]byte, error) {
	b, err := e.BodyFor(t.me, t.ids...)
	if err != nil {
		return nil, err
	}
	prefix, _ := r.MarshalBinary()
	if !bytes.HasPrefix(b, prefix) {
		return nil, fmt.Errorf("round %s: trustee %d's message %d is marked for another round", r, e.From, e.Seq)
	}
	return b[len(prefix):], nil
}
