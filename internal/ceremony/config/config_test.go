package config_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/internal/ceremony/ceremonytest"
	"github.com/fabvote/fabvote/internal/ceremony/config"
)

const relayURL = "https://relay.example/fabvote"

func validJSON(t *testing.T) []byte {
	t.Helper()
	b, err := ceremonytest.New(3, 2, relayURL).Config.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The canonical encoding parses back to itself, and the digest depends on
// the values, not on the file's layout.
func TestRoundTripAndDigest(t *testing.T) {
	b := validJSON(t)
	c, err := config.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.Marshal()
	if err != nil || !bytes.Equal(again, b) {
		t.Fatalf("Marshal(Parse(b)) = %s, %v; want b", again, err)
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, b, "", "  "); err != nil {
		t.Fatal(err)
	}
	c2, err := config.Parse(indented.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if c2.Digest() != c.Digest() {
		t.Fatal("indentation changed the digest")
	}
	if err := c.CheckDigest(" " + strings.ToUpper(c.DigestHex()) + "\n"); err != nil {
		t.Fatalf("CheckDigest of its own digest: %v", err)
	}
	c2.K = 3
	if c2.Digest() == c.Digest() {
		t.Fatal("k changed and the digest did not")
	}
	if err := c2.CheckDigest(c.DigestHex()); err == nil || !strings.Contains(err.Error(), "different configurations") {
		t.Fatalf("CheckDigest of another config's digest: %v", err)
	}
	if err := c.CheckDigest("abc"); err == nil || !strings.Contains(err.Error(), "hex digits") {
		t.Fatalf("CheckDigest of a short digest: %v", err)
	}
}

// One test per kind of bad field: the error names it.
func TestBadConfig(t *testing.T) {
	other := ceremonytest.New(3, 2, relayURL).Config // different age recipients
	tests := []struct {
		name   string
		mutate func(c *config.Config)
		want   string
	}{
		{"ceremony short", func(c *config.Config) { c.Ceremony = "0011" }, "ceremony"},
		{"ceremony upper case", func(c *config.Config) { c.Ceremony = strings.ToUpper(c.Ceremony) }, "ceremony"},
		{"bits", func(c *config.Config) { c.Bits = 1024 }, "bits 1024"},
		{"n too small", func(c *config.Config) { c.N = 2 }, "n 2"},
		{"n too large", func(c *config.Config) { c.N = 6 }, "n 6"},
		{"k zero", func(c *config.Config) { c.K = 0 }, "k 0"},
		{"k above n", func(c *config.Config) { c.K = 4 }, "k 4"},
		{"relay scheme", func(c *config.Config) { c.Relay = "ftp://relay.example" }, "relay"},
		{"relay no host", func(c *config.Config) { c.Relay = "https:///x" }, "no host"},
		{"relay query", func(c *config.Config) { c.Relay = "https://relay.example/?a=b" }, "relay"},
		{"relay user", func(c *config.Config) { c.Relay = "https://u:p@relay.example" }, "relay"},
		{"relay too long", func(c *config.Config) { c.Relay = "https://relay.example/" + strings.Repeat("a", config.MaxURLLen) }, "relay"},
		{"too few trustees", func(c *config.Config) { c.Trustees = c.Trustees[:2] }, "trustees: 2 listed"},
		{"index out of order", func(c *config.Config) { c.Trustees[1].Index = 3 }, "trustees[1]: index 3"},
		{"name empty", func(c *config.Config) { c.Trustees[0].Name = "" }, "trustees[0]: name"},
		{"name control", func(c *config.Config) { c.Trustees[0].Name = "a\nb" }, "trustees[0]: name"},
		{"name too long", func(c *config.Config) { c.Trustees[0].Name = strings.Repeat("a", config.MaxNameLen+1) }, "trustees[0]: name"},
		{"name twice", func(c *config.Config) { c.Trustees[2].Name = c.Trustees[0].Name }, "trustees[2]: the same name"},
		{"recipient bad", func(c *config.Config) { c.Trustees[1].AgeRecipient = "age1xyz" }, "trustees[1]: ageRecipient"},
		{"recipient upper case", func(c *config.Config) { c.Trustees[1].AgeRecipient = strings.ToUpper(c.Trustees[1].AgeRecipient) }, "trustees[1]: ageRecipient"},
		{"recipient twice", func(c *config.Config) { c.Trustees[1].AgeRecipient = c.Trustees[0].AgeRecipient }, "trustees[1]: the same ageRecipient"},
		{"signing key short", func(c *config.Config) { c.Trustees[2].SigningKey = "AAAA" }, "trustees[2]: signingKey"},
		{"signing key not base64", func(c *config.Config) { c.Trustees[2].SigningKey = "!!" }, "trustees[2]: signingKey"},
		{"signing key unpadded", func(c *config.Config) { c.Trustees[2].SigningKey = strings.TrimRight(c.Trustees[2].SigningKey, "=") }, "trustees[2]: signingKey"},
		{"signing key twice", func(c *config.Config) {
			c.Trustees[2].SigningKey = c.Trustees[1].SigningKey
			c.Trustees[2].AgeRecipient = other.Trustees[2].AgeRecipient
		}, "trustees[2]: the same signingKey"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ceremonytest.New(3, 2, relayURL).Config
			tc.mutate(c)
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate: %v; want an error naming %q", err, tc.want)
			}
			raw, _ := json.Marshal(c)
			if _, err := config.Parse(raw); err == nil {
				t.Fatal("Parse accepted it")
			}
		})
	}
}

// Bad files: the decoder is strict.
func TestBadFile(t *testing.T) {
	good := string(validJSON(t))
	tests := []struct {
		name, file, want string
	}{
		{"unknown field", strings.Replace(good, `"bits"`, `"extra":1,"bits"`, 1), "unknown field"},
		{"trailing data", good + "{}", "after the JSON object"},
		{"wrong type", strings.Replace(good, `"bits":2048`, `"bits":"2048"`, 1), "bits"},
		{"not JSON", "ceremony: 1", "invalid character"},
		{"too large", good + strings.Repeat(" ", config.MaxFileSize), "bytes, more than"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := config.Parse([]byte(tc.file)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Parse: %v; want an error naming %q", err, tc.want)
			}
		})
	}
}

func TestNewID(t *testing.T) {
	a, err := config.NewID(nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := config.NewID(nil)
	c := ceremonytest.New(3, 2, relayURL).Config
	c.Ceremony = a
	if err := c.Validate(); err != nil || a == b {
		t.Fatalf("NewID: %q then %q, valid: %v", a, b, err)
	}
	if _, err := config.NewID(strings.NewReader("short")); err == nil {
		t.Fatal("NewID from a short reader succeeded")
	}
}
