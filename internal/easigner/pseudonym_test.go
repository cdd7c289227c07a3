package easigner

import (
	"bytes"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"
)

func TestPseudonymKeyRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pseudonym.key")
	k, err := GeneratePseudonymKey(p)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v (%v), want 0600", st.Mode().Perm(), err)
	}
	back, err := LoadPseudonymKey(p)
	if err != nil || !bytes.Equal(back, k) {
		t.Fatalf("round trip: %v", err)
	}
	if _, err := GeneratePseudonymKey(p); err == nil {
		t.Fatal("an existing pseudonym key was overwritten")
	}
	if again, _ := LoadPseudonymKey(p); !bytes.Equal(again, k) {
		t.Fatal("the refused second generation changed the key file")
	}
}

func TestParsePseudonymKeyErrors(t *testing.T) {
	good := pem.EncodeToMemory(&pem.Block{Type: PseudonymPEMType, Bytes: make([]byte, 32)})
	for name, in := range map[string][]byte{
		"empty":      nil,
		"not PEM":    []byte("hello"),
		"wrong type": pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: make([]byte, 32)}),
		"short key":  pem.EncodeToMemory(&pem.Block{Type: PseudonymPEMType, Bytes: make([]byte, 31)}),
		"long key":   pem.EncodeToMemory(&pem.Block{Type: PseudonymPEMType, Bytes: make([]byte, 33)}),
		"headers":    pem.EncodeToMemory(&pem.Block{Type: PseudonymPEMType, Headers: map[string]string{"a": "b"}, Bytes: make([]byte, 32)}),
		"trailing":   append(append([]byte(nil), good...), "junk"...),
	} {
		if _, err := ParsePseudonymKey(in, name); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := ParsePseudonymKey(good, "good"); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadPseudonymKey(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("a missing file was accepted")
	}
}

func FuzzParsePseudonymKey(f *testing.F) {
	f.Add(pem.EncodeToMemory(&pem.Block{Type: PseudonymPEMType, Bytes: make([]byte, 32)}))
	f.Add([]byte("-----BEGIN FABVOTE PSEUDONYM KEY-----\n-----END FABVOTE PSEUDONYM KEY-----\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		k, err := ParsePseudonymKey(data, "fuzz")
		if err == nil && len(k) != 32 {
			t.Fatalf("accepted a %d-byte key", len(k))
		}
	})
}
