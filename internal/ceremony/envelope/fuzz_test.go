package envelope_test

import (
	"bytes"
	"crypto/ed25519"
	"testing"

	"github.com/fabvote/fabvote/internal/ceremony/ceremonytest"
	. "github.com/fabvote/fabvote/internal/ceremony/envelope"
)

// FuzzParse: Parse never panics, and what it accepts is canonical: sealing
// its header and body again gives the same bytes but the signature.
func FuzzParse(f *testing.F) {
	c := ceremonytest.New(3, 2, relayURL)
	for _, body := range []string{"", "x", "a longer body of a broadcast"} {
		raw, err := Seal(header(c.Config, 1, Broadcast), []byte(body), c.Signers[0], nil)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add([]byte("FVCM\x01"))
	key := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	f.Fuzz(func(t *testing.T, raw []byte) {
		e, err := Parse(raw)
		if err != nil {
			return
		}
		again, err := Seal(e.Header, e.Body, key, nil)
		if e.To != Broadcast {
			return // Seal would encrypt the body again
		}
		if err != nil {
			t.Fatalf("Seal of a parsed header: %v", err)
		}
		if n := len(raw) - SigLen; !bytes.Equal(again[:n], raw[:n]) || !bytes.Equal(e.Raw(), raw) {
			t.Fatal("Parse accepted a non-canonical encoding")
		}
	})
}
