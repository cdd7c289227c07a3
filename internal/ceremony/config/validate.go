package config

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"slices"
	"unicode"
	"unicode/utf8"

	"filippo.io/age"
)

// Validate checks every field; the error names the first bad one.
func (c *Config) Validate() error {
	if err := checkID(c.Ceremony); err != nil {
		return err
	}
	if !slices.Contains(Bits, c.Bits) {
		return fmt.Errorf("ceremony config: bits %d: want one of %v", c.Bits, Bits)
	}
	if c.N < MinTrustees || c.N > MaxTrustees {
		return fmt.Errorf("ceremony config: n %d: want %d to %d trustees", c.N, MinTrustees, MaxTrustees)
	}
	if c.K < 1 || c.K > c.N {
		return fmt.Errorf("ceremony config: k %d: want 1 to n = %d", c.K, c.N)
	}
	if err := checkRelay(c.Relay); err != nil {
		return err
	}
	return c.checkTrustees()
}

func checkID(id string) error {
	b, err := hex.DecodeString(id)
	if err != nil || len(b) != 16 || hex.EncodeToString(b) != id {
		return fmt.Errorf("ceremony config: ceremony %q: want 32 lowercase hex digits (128 bits)", id)
	}
	return nil
}

func checkRelay(s string) error {
	if len(s) > MaxURLLen {
		return fmt.Errorf("ceremony config: relay: %d bytes, more than %d", len(s), MaxURLLen)
	}
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return fmt.Errorf("ceremony config: relay %q: %w", s, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("ceremony config: relay %q: want an http or https URL", s)
	case u.Host == "":
		return fmt.Errorf("ceremony config: relay %q: no host", s)
	case u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "":
		return fmt.Errorf("ceremony config: relay %q: want scheme, host and path only (no user, query or fragment)", s)
	}
	return nil
}

func (c *Config) checkTrustees() error {
	if len(c.Trustees) != c.N {
		return fmt.Errorf("ceremony config: trustees: %d listed for n = %d", len(c.Trustees), c.N)
	}
	seen := map[string]int{}
	for i, t := range c.Trustees {
		if err := t.check(i + 1); err != nil {
			return err
		}
		for _, key := range []string{"name " + t.Name, "ageRecipient " + t.AgeRecipient, "signingKey " + t.SigningKey} {
			if prev, dup := seen[key]; dup {
				return fmt.Errorf("ceremony config: trustees[%d]: the same %s as trustee %d", i, key, prev)
			}
			seen[key] = t.Index
		}
	}
	return nil
}

// check validates the trustee at position want (1-based).
func (t Trustee) check(want int) error {
	at := fmt.Sprintf("ceremony config: trustees[%d]", want-1)
	if t.Index != want {
		return fmt.Errorf("%s: index %d: want %d (trustees in index order from 1)", at, t.Index, want)
	}
	if err := checkName(t.Name); err != nil {
		return fmt.Errorf("%s: name: %w", at, err)
	}
	r, err := age.ParseX25519Recipient(t.AgeRecipient)
	if err != nil {
		return fmt.Errorf("%s: ageRecipient: %w", at, err)
	}
	if r.String() != t.AgeRecipient {
		return fmt.Errorf("%s: ageRecipient: not in canonical form (want %s)", at, r)
	}
	k, err := base64.StdEncoding.Strict().DecodeString(t.SigningKey)
	if err != nil || len(k) != ed25519.PublicKeySize || base64.StdEncoding.EncodeToString(k) != t.SigningKey {
		return fmt.Errorf("%s: signingKey %q: want a %d-byte Ed25519 public key in standard base64", at, t.SigningKey, ed25519.PublicKeySize)
	}
	return nil
}

func checkName(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("empty")
	case len(s) > MaxNameLen:
		return fmt.Errorf("%d bytes, more than %d", len(s), MaxNameLen)
	case !utf8.ValidString(s):
		return fmt.Errorf("not UTF-8")
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return fmt.Errorf("%q holds a character that is not printable", s)
		}
	}
	return nil
}

// Recipient is the trustee's age recipient. It panics on an invalid one:
// Parse has validated it.
func (t Trustee) Recipient() *age.X25519Recipient {
	r, err := age.ParseX25519Recipient(t.AgeRecipient)
	if err != nil {
		panic(fmt.Sprintf("ceremony config: trustee %d: %v", t.Index, err))
	}
	return r
}

// NewID draws a fresh ceremony id from r (crypto/rand when nil).
func NewID(r io.Reader) (string, error) {
	if r == nil {
		r = rand.Reader
	}
	var b [16]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return "", fmt.Errorf("drawing a ceremony id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}
