package envelope_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"filippo.io/age"

	"github.com/fabvote/fabvote/internal/ceremony/ceremonytest"
	"github.com/fabvote/fabvote/internal/ceremony/config"
	. "github.com/fabvote/fabvote/internal/ceremony/envelope"
)

const relayURL = "https://relay.example"

// header is trustee from's first message of round 1 to to.
func header(cfg *config.Config, from, to uint8) Header {
	return Header{Ceremony: cfg.ID(), ConfigDigest: cfg.Digest(), Round: 1, Batch: 7, From: from, To: to, Seq: 1}
}

func seal(t *testing.T, c *ceremonytest.Ceremony, h Header, body []byte) []byte {
	t.Helper()
	var to age.Recipient
	if h.To != Broadcast {
		to = c.Ids[h.To-1].Recipient()
	}
	raw, err := Seal(h, body, c.Signers[h.From-1], to)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// A broadcast opens for everyone; a private message opens for its
// receiver only, and every trustee can verify it.
func TestSealOpen(t *testing.T) {
	c := ceremonytest.New(3, 2, relayURL)
	body := []byte("commitments of round 1")
	for _, to := range []uint8{Broadcast, 3} {
		raw := seal(t, c, header(c.Config, 1, to), body)
		if to != Broadcast && bytes.Contains(raw, body) {
			t.Fatal("a private body is in the clear")
		}
		for me := 2; me <= 3; me++ {
			h, got, err := Open(raw, c.Config, me, c.Ids[me-1])
			switch {
			case to == Broadcast || int(to) == me:
				if err != nil || !bytes.Equal(got, body) || h.From != 1 || h.To != to || h.Batch != 7 {
					t.Fatalf("to %d, opened by %d: %+v %q %v", to, me, h, got, err)
				}
			case !errors.Is(err, ErrNotForMe):
				t.Fatalf("to %d, opened by %d: %v, want ErrNotForMe", to, me, err)
			}
			if _, err := Verify(raw, c.Config); err != nil {
				t.Fatalf("Verify: %v", err)
			}
		}
	}
}

// resign re-signs a broadcast with trustee signer's key, whoever it
// claims to be from: what a trustee, not the relay, could send.
func resign(t *testing.T, c *ceremonytest.Ceremony, raw []byte, signer int) []byte {
	t.Helper()
	e, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Seal(e.Header, e.Body, c.Signers[signer-1], nil)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// One test per kind of bad message: the error says which.
func TestBadMessages(t *testing.T) {
	c := ceremonytest.New(3, 2, relayURL)
	other := ceremonytest.New(3, 2, relayURL)
	other.Config.Ceremony = "ffeeddccbbaa99887766554433221100"
	five := ceremonytest.New(5, 2, relayURL) // trustees 4 and 5 are not in c
	good := seal(t, c, header(c.Config, 1, Broadcast), []byte("hello"))
	private := seal(t, c, header(c.Config, 1, 3), []byte("a share"))
	mod := func(f func(h *Header)) []byte {
		h := header(c.Config, 1, Broadcast)
		f(&h)
		return seal(t, c, h, []byte("hello"))
	}
	flip := func(raw []byte, at int) []byte {
		b := bytes.Clone(raw)
		b[at] ^= 1
		return b
	}
	setLen := func(n uint32) []byte {
		b := bytes.Clone(good)
		binary.BigEndian.PutUint32(b[HeaderLen-4:], n)
		return b
	}
	tests := []struct {
		name string
		raw  []byte
		me   int
		want error
		text string
	}{
		{"wrong signature", flip(good, len(good)-1), 2, ErrSignature, "trustee 1 (trustee-a)"},
		{"altered body", flip(good, HeaderLen), 2, ErrSignature, "altered on the way"},
		{"altered private body", flip(private, HeaderLen+100), 3, ErrSignature, "trustee 1"},
		{"wrong sender key", resign(t, c, good, 2), 2, ErrSignature, "trustee 1"},
		{"wrong ceremony", seal(t, other, header(other.Config, 1, Broadcast), []byte("hello")), 2, ErrWrongCeremony, "ffeeddcc"},
		{"wrong config digest", mod(func(h *Header) { h.ConfigDigest[0] ^= 1 }), 2, ErrWrongConfig, "config digest"},
		{"to someone else", private, 2, ErrNotForMe, "to trustee 3, not to 2"},
		{"undecryptable", private, 3, ErrDecrypt, "trustee 1"}, // opened with trustee 2's identity below
		{"sender beyond n", seal(t, five, header(c.Config, 4, Broadcast), nil), 2, ErrUnknownSender, "sender 4 of 3"},
		{"receiver beyond n", seal(t, five, header(c.Config, 1, 5), nil), 2, ErrUnknownSender, "receiver 5 of 3"},
		{"truncated header", good[:HeaderLen-1], 2, ErrTruncated, "a header alone"},
		{"truncated body", good[:len(good)-1], 2, ErrTruncated, "its header states"},
		{"trailing bytes", append(bytes.Clone(good), 0), 2, ErrMalformed, "after the signature"},
		{"oversized body", setLen(MaxBody + 1), 2, ErrTooLarge, "body of"},
		{"oversized message", make([]byte, MaxLen+1), 2, ErrTooLarge, "bytes, more than"},
		{"bad magic", flip(good, 0), 2, ErrMalformed, "FVCM"},
		{"bad version", flip(good, 4), 2, ErrMalformed, "version"},
		{"sender 0", setByte(good, 5+16+32+2+4, 0), 2, ErrMalformed, "sender 0"},
		{"to itself", setByte(good, 5+16+32+2+4+1, 1), 2, ErrMalformed, "writes to itself"},
		{"seq 0", setByte(good, 5+16+32+2+4+2+3, 0), 2, ErrMalformed, "seq 0"},
		{"first links back", setByte(good, 5+16+32+2+4+2+4, 9), 2, ErrMalformed, "first message links"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := c.Ids[tc.me-1]
			if tc.want == ErrDecrypt {
				id = c.Ids[1]
			}
			_, _, err := Open(tc.raw, c.Config, tc.me, id)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("Open: %v; want %v naming %q", err, tc.want, tc.text)
			}
		})
	}
}

func setByte(raw []byte, at int, v byte) []byte {
	b := bytes.Clone(raw)
	b[at] = v
	return b
}

// Seal refuses what it cannot send.
func TestSealRefuses(t *testing.T) {
	c := ceremonytest.New(3, 2, relayURL)
	rcp := c.Ids[1].Recipient()
	tests := []struct {
		name   string
		h      Header
		body   []byte
		signer []byte
		to     age.Recipient
		want   string
	}{
		{"broadcast with a recipient", header(c.Config, 1, Broadcast), nil, c.Signers[0], rcp, "want no recipient"},
		{"private without a recipient", header(c.Config, 1, 2), nil, c.Signers[0], nil, "needs its age recipient"},
		{"no signing key", header(c.Config, 1, 2), nil, nil, rcp, "not an Ed25519 private key"},
		{"body too large", header(c.Config, 1, Broadcast), make([]byte, MaxBody+1), c.Signers[0], nil, "body of"},
		{"seq 0", Header{From: 1, Seq: 0}, nil, c.Signers[0], nil, "seq 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Seal(tc.h, tc.body, tc.signer, tc.to); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Seal: %v; want an error naming %q", err, tc.want)
			}
		})
	}
}
