package envelope_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/internal/ceremony/ceremonytest"
	. "github.com/fabvote/fabvote/internal/ceremony/envelope"
)

// sendChain makes trustee 1's broadcasts with the given bodies, chained.
func sendChain(t *testing.T, c *ceremonytest.Ceremony, bodies ...string) []*Envelope {
	t.Helper()
	own := NewChain(1, "trustee-a")
	var out []*Envelope
	for i, b := range bodies {
		h := header(c.Config, 1, Broadcast)
		h.Seq, h.PrevHash = own.Next(), own.Last()
		out = append(out, verify(t, c, seal(t, c, h, []byte(b))))
		if err := own.Accept(out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func verify(t *testing.T, c *ceremonytest.Ceremony, raw []byte) *Envelope {
	t.Helper()
	e, err := Verify(raw, c.Config)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestChain(t *testing.T) {
	c := ceremonytest.New(3, 2, relayURL)
	msgs := sendChain(t, c, "one", "two", "three")
	forked := sendChain(t, c, "one", "TWO") // same seq 2, another body
	h := header(c.Config, 1, Broadcast)
	h.Seq = 2 // the next seq, linked to nothing
	unlinked := verify(t, c, seal(t, c, h, []byte("two")))
	h.From, h.Seq = 2, 1
	fromTwo := verify(t, c, seal(t, c, h, nil))

	tests := []struct {
		name   string
		before []*Envelope // accepted first
		msg    *Envelope
		want   error
		text   string
	}{
		{"in order", msgs[:2], msgs[2], nil, ""},
		{"replay of an old seq", msgs[:2], msgs[0], ErrReplay, "trustee 1 (trustee-a), seq 1"},
		{"gap", msgs[:1], msgs[2], ErrGap, "sent seq 3, expected 2"},
		{"broken link", msgs[:1], unlinked, ErrLink, "trustee 1 (trustee-a), seq 2"},
		{"another sender", nil, fromTwo, nil, "trustee 2's message given to the chain of trustee 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ch := NewChain(1, "trustee-a")
			for _, m := range tc.before {
				if err := ch.Accept(m); err != nil {
					t.Fatal(err)
				}
			}
			err := ch.Accept(tc.msg)
			switch {
			case tc.text == "" && err != nil:
				t.Fatalf("Accept: %v", err)
			case tc.text != "" && (err == nil || !strings.Contains(err.Error(), tc.text)):
				t.Fatalf("Accept: %v; want an error naming %q", err, tc.text)
			case tc.want != nil && !errors.Is(err, tc.want):
				t.Fatalf("Accept: %v; want %v", err, tc.want)
			}
		})
	}

	t.Run("equivocation", func(t *testing.T) {
		ch := NewChain(1, "trustee-a")
		for _, m := range msgs {
			if err := ch.Accept(m); err != nil {
				t.Fatal(err)
			}
		}
		err := ch.Accept(forked[1])
		var eq *EquivocationError
		if !errors.As(err, &eq) || !strings.Contains(err.Error(), "trustee 1 (trustee-a) equivocates") || eq.Seq != 2 {
			t.Fatalf("Accept: %v; want equivocation by trustee 1 at seq 2", err)
		}
		ev := eq.Evidence()
		if !bytes.Equal(ev[0], msgs[1].Raw()) || !bytes.Equal(ev[1], forked[1].Raw()) {
			t.Fatal("the evidence is not the two messages")
		}
		for _, raw := range ev { // both stand on their own: signed by trustee 1
			if e := verify(t, c, raw); e.From != 1 || e.Seq != 2 {
				t.Fatalf("evidence: from %d seq %d", e.From, e.Seq)
			}
		}
	})
}
