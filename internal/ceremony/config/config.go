// Package config is a key ceremony's configuration: who takes part, with
// which keys, for which key size and threshold, through which relay. Every
// trustee holds the same file and compares its Digest with the others out of
// band (phone, paper) before the ceremony starts; every message of the
// ceremony carries that digest, so a trustee with another configuration is
// refused at its first message.
//
// The file is JSON, decoded strictly: an unknown field, trailing data or a
// value out of range is refused with an error naming the field. The digest
// is over the canonical encoding (Marshal), not over the file's bytes, so
// whitespace or key order do not change it; values that have several
// spellings (hex, base64, age recipients) must be written in their one
// canonical form.
package config

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Bounds of a ceremony.
const (
	MinTrustees = 3
	MaxTrustees = 5
	MaxNameLen  = 64   // bytes of a trustee's name
	MaxURLLen   = 2048 // bytes of the relay URL
	MaxFileSize = 1 << 16
)

// Bits are the modulus sizes a ceremony may generate.
var Bits = []int{2048, 3072}

// digestTag separates the config digest from every other SHA-256 of the
// project; its version changes with the encoding.
const digestTag = "fabvote/ceremony/config/v1\x00"

// Config is a ceremony's configuration, as written in its JSON file.
type Config struct {
	Ceremony string    `json:"ceremony"` // 128-bit ceremony id, 32 lowercase hex digits
	Bits     int       `json:"bits"`     // size of the modulus N
	N        int       `json:"n"`        // number of trustees
	K        int       `json:"k"`        // trustees needed to decrypt
	Relay    string    `json:"relay"`    // base URL of the relay (http or https)
	Trustees []Trustee `json:"trustees"` // in index order, 1..n
}

// Trustee is one participant: its keys come from `fabvote trustee keygen`.
type Trustee struct {
	Index        int    `json:"index"`        // 1..n, its position in Trustees
	Name         string `json:"name"`         // how errors name it
	AgeRecipient string `json:"ageRecipient"` // age X25519 recipient (age1…): private messages are sealed to it
	SigningKey   string `json:"signingKey"`   // Ed25519 public key, standard base64: its messages are signed with it
}

// Parse decodes and validates a configuration file's bytes.
func Parse(b []byte) (*Config, error) {
	if len(b) > MaxFileSize {
		return nil, fmt.Errorf("ceremony config: %d bytes, more than the %d allowed", len(b), MaxFileSize)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var c Config
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("ceremony config: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("ceremony config: data after the JSON object")
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// Marshal is the canonical encoding: compact JSON, fields in declaration
// order. It refuses an invalid configuration.
func (c *Config) Marshal() ([]byte, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return json.Marshal(c)
}

// Digest is SHA-256 of a versioned tag and the canonical encoding. It
// panics on an invalid configuration: Parse has validated it.
func (c *Config) Digest() [32]byte {
	b, err := c.Marshal()
	if err != nil {
		panic(err)
	}
	h := sha256.New()
	h.Write([]byte(digestTag))
	h.Write(b)
	return [32]byte(h.Sum(nil))
}

// DigestHex is Digest in lowercase hex, as trustees read it to each other.
func (c *Config) DigestHex() string {
	d := c.Digest()
	return hex.EncodeToString(d[:])
}

// CheckDigest refuses a configuration whose digest is not want (hex, as
// given to --expect-digest; case and surrounding spaces are ignored).
func (c *Config) CheckDigest(want string) error {
	w, err := hex.DecodeString(strings.ToLower(strings.TrimSpace(want)))
	if err != nil || len(w) != sha256.Size {
		return fmt.Errorf("expected digest %q: want %d hex digits", want, 2*sha256.Size)
	}
	got := c.Digest()
	if subtle.ConstantTimeCompare(got[:], w) != 1 {
		return fmt.Errorf("ceremony config digest is %x, not the expected %x: the trustees hold different configurations", got, w)
	}
	return nil
}

// ID is the ceremony id's 16 bytes. It panics on an invalid id: Parse has
// validated it.
func (c *Config) ID() [16]byte {
	b, err := hex.DecodeString(c.Ceremony)
	if err != nil || len(b) != 16 {
		panic(fmt.Sprintf("ceremony config: invalid ceremony id %q", c.Ceremony))
	}
	return [16]byte(b)
}

// Trustee is trustee i (1..n), or false if there is none.
func (c *Config) Trustee(i int) (Trustee, bool) {
	if i < 1 || i > len(c.Trustees) {
		return Trustee{}, false
	}
	return c.Trustees[i-1], true
}

// PublicKey is the trustee's Ed25519 public key. It panics on an invalid
// key: Parse has validated it.
func (t Trustee) PublicKey() ed25519.PublicKey {
	b, err := base64.StdEncoding.DecodeString(t.SigningKey)
	if err != nil || len(b) != ed25519.PublicKeySize {
		panic(fmt.Sprintf("ceremony config: trustee %d: invalid signing key", t.Index))
	}
	return ed25519.PublicKey(b)
}

// String names the trustee in errors: "trustee 2 (bob)".
func (t Trustee) String() string { return fmt.Sprintf("trustee %d (%s)", t.Index, t.Name) }
