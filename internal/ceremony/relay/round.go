package relay

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fabvote/fabvote/internal/ceremony/config"
	"github.com/fabvote/fabvote/internal/ceremony/envelope"
)

// Want is one message a round needs: from a trustee, to Me or to all
// (envelope.Broadcast), in the round and batch asked for. A sender sends
// at most one message per Want in a round.
type Want struct {
	Round uint16
	Batch uint32
	From  uint8
	To    uint8
}

// take checks the message at index i of the log and files it.
func (c *Client) take(i int, raw []byte) error {
	e, err := envelope.Verify(raw, c.cfg)
	if err != nil {
		var claimed uint8
		if p, perr := envelope.Parse(raw); perr == nil {
			claimed = p.From
		}
		c.rejected = append(c.rejected, Rejection{Index: i, Claimed: claimed, Err: err})
		return nil
	}
	err = c.chains[e.From].Accept(e)
	switch {
	case errors.Is(err, envelope.ErrReplay):
		return nil
	case errors.Is(err, envelope.ErrGap):
		return c.hold(i, e)
	case err != nil:
		return err
	}
	if err := c.file(e); err != nil {
		return err
	}
	return c.drain(e.From)
}

// hold keeps a message that comes after a gap in its sender's chain.
func (c *Client) hold(i int, e *envelope.Envelope) error {
	p := c.pending[e.From]
	if p == nil {
		p = map[uint32]*envelope.Envelope{}
		c.pending[e.From] = p
	}
	if len(p) >= maxPending {
		c.rejected = append(c.rejected, Rejection{Index: i, Claimed: e.From, Err: fmt.Errorf("more than %d messages after a gap in its chain", maxPending)})
		return nil
	}
	p[e.Seq] = e
	return nil
}

// drain takes the held messages of sender from that now follow its chain.
func (c *Client) drain(from uint8) error {
	ch := c.chains[from]
	for {
		e, ok := c.pending[from][ch.Next()]
		if !ok {
			return nil
		}
		delete(c.pending[from], e.Seq)
		if err := ch.Accept(e); err != nil {
			return err
		}
		if err := c.file(e); err != nil {
			return err
		}
	}
}

// file puts an accepted message for Me into the inbox.
func (c *Client) file(e *envelope.Envelope) error {
	if e.From == c.me || (e.To != envelope.Broadcast && e.To != c.me) {
		return nil
	}
	w := Want{Round: e.Round, Batch: e.Batch, From: e.From, To: e.To}
	if prev, dup := c.seen[w]; dup {
		t, _ := c.cfg.Trustee(int(e.From))
		return fmt.Errorf("%s sent two messages (seq %d and %d) for round %d batch %d to %s", t, prev, e.Seq, e.Round, e.Batch, toName(e.To))
	}
	c.seen[w] = e.Seq
	c.inbox[w] = e
	return nil
}

func toName(to uint8) string {
	if to == envelope.Broadcast {
		return "all"
	}
	return fmt.Sprintf("trustee %d", to)
}

// WantFromAll is what a round needs from every other trustee: its broadcast
// if broadcast, its private message to me if private.
func WantFromAll(cfg *config.Config, me int, round uint16, batch uint32, broadcast, private bool) []Want {
	var out []Want
	for _, t := range cfg.Trustees {
		if t.Index == me {
			continue
		}
		if broadcast {
			out = append(out, Want{round, batch, uint8(t.Index), envelope.Broadcast})
		}
		if private {
			out = append(out, Want{round, batch, uint8(t.Index), uint8(me)})
		}
	}
	return out
}

// SilentError: some wanted messages did not come in time.
type SilentError struct {
	Round    uint16
	Batch    uint32
	Timeout  time.Duration
	Silent   []config.Trustee // each sender of a missing message, once
	Rejected []Rejection      // messages of the log that failed their check
	RelayErr error            // the last poll's error, if it failed
}

func (e *SilentError) Error() string {
	var b strings.Builder
	names := make([]string, len(e.Silent))
	for i, t := range e.Silent {
		names[i] = t.String()
	}
	fmt.Fprintf(&b, "round %d batch %d: no message within %s from %s", e.Round, e.Batch, e.Timeout, strings.Join(names, ", "))
	if len(e.Rejected) > 0 {
		fmt.Fprintf(&b, "; %d message(s) of the relay failed their check:", len(e.Rejected))
		for _, r := range e.Rejected {
			b.WriteString(" " + r.String() + ";")
		}
	}
	if e.RelayErr != nil {
		fmt.Fprintf(&b, "; the relay's last answer: %v", e.RelayErr)
	}
	return b.String()
}

// Round polls the relay until every wanted message has come, and returns
// them; after timeout it returns a *SilentError naming the trustees whose
// messages are missing. The wanted messages must share one round and batch.
func (c *Client) Round(ctx context.Context, want []Want, timeout time.Duration) (map[Want]*envelope.Envelope, error) {
	if len(want) == 0 {
		return map[Want]*envelope.Envelope{}, nil
	}
	deadline := time.Now().Add(timeout)
	for {
		got, missing := c.collect(want)
		if len(missing) == 0 {
			for w := range got {
				delete(c.inbox, w)
			}
			return got, nil
		}
		if !time.Now().Before(deadline) {
			return nil, c.silent(want[0], missing, timeout)
		}
		n, err := c.fetch(ctx)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			if err := sleep(ctx, min(c.Poll, time.Until(deadline))); err != nil {
				return nil, err
			}
		}
	}
}

// collect splits want into the messages in the inbox and those missing.
func (c *Client) collect(want []Want) (map[Want]*envelope.Envelope, []Want) {
	got := map[Want]*envelope.Envelope{}
	var missing []Want
	for _, w := range want {
		if m := c.inbox[w]; m != nil {
			got[w] = m
		} else {
			missing = append(missing, w)
		}
	}
	return got, missing
}

func (c *Client) silent(w Want, missing []Want, timeout time.Duration) *SilentError {
	e := &SilentError{Round: w.Round, Batch: w.Batch, Timeout: timeout, RelayErr: c.lastErr}
	named := map[uint8]bool{}
	for _, m := range missing {
		if t, ok := c.cfg.Trustee(int(m.From)); ok && !named[m.From] {
			named[m.From] = true
			e.Silent = append(e.Silent, t)
		}
	}
	for _, r := range c.rejected {
		if named[r.Claimed] || r.Claimed == 0 {
			e.Rejected = append(e.Rejected, r)
		}
	}
	return e
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(max(d, 0))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
