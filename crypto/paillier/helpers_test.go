package paillier

import (
	"encoding/pem"
	"os"
	"sync"
	"testing"
)

var (
	keyMu    sync.Mutex
	keyCache = map[string]*PrivateKey{}
)

// fixedKey loads a committed test key. The small ones (512 and 1024 bits) are
// below MinModulusBits and are built with the unexported constructor, which
// only tests use; generating 2048-bit keys in every test would be slow.
func fixedKey(tb testing.TB, name string) *PrivateKey {
	tb.Helper()
	keyMu.Lock()
	defer keyMu.Unlock()
	if sk, ok := keyCache[name]; ok {
		return sk
	}
	data, err := os.ReadFile("testdata/" + name + ".pem")
	if err != nil {
		tb.Fatal(err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		tb.Fatalf("%s: no PEM block", name)
	}
	rest, err := parseHeader(block.Bytes, privateKeyTag, "private key")
	if err != nil {
		tb.Fatal(err)
	}
	p, rest, err := readInt(rest, "p")
	if err != nil {
		tb.Fatal(err)
	}
	q, _, err := readInt(rest, "q")
	if err != nil {
		tb.Fatal(err)
	}
	sk, err := newPrivateKey(p, q, 256, true)
	if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	keyCache[name] = sk
	return sk
}
