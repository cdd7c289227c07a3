package zkp

import (
	"crypto/sha256"
	"math/big"
	"os"
	"sync"
	"testing"

	"github.com/fabvote/fabvote/crypto/paillier"
	"github.com/fabvote/fabvote/crypto/votecode"
)

var (
	keyMu    sync.Mutex
	keyCache = map[int]*paillier.PrivateKey{}
)

// testKey loads a fixed committed key (generating real keys in tests is slow).
func testKey(tb testing.TB, bits int) *paillier.PrivateKey {
	tb.Helper()
	keyMu.Lock()
	defer keyMu.Unlock()
	if sk, ok := keyCache[bits]; ok {
		return sk
	}
	path := map[int]string{2048: "testdata/key2048.pem", 3072: "testdata/key3072.pem"}[bits]
	sk, err := readTestKey(path)
	if err != nil {
		tb.Fatalf("loading %d-bit test key: %v", bits, err)
	}
	keyCache[bits] = sk
	return sk
}

// readTestKey parses a committed test key. The files are world-readable in a
// checkout (their secrets are public), which keyfile.ReadPrivateKey refuses.
func readTestKey(path string) (*paillier.PrivateKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return paillier.ParsePrivateKeyPEM(data)
}

// testContext is a 4-candidate election for up to 10^6 voters.
func testContext(tb testing.TB, sk *paillier.PrivateKey, voter string) *Context {
	tb.Helper()
	enc, err := votecode.New(1_000_000, 4)
	if err != nil {
		tb.Fatal(err)
	}
	return &Context{
		ManifestDigest: sha256.Sum256([]byte("manifest of election-test")),
		ElectionID:     "election-test",
		PublicKey:      &sk.PublicKey,
		Messages:       enc.Messages(),
		Pseudonym:      sha256.Sum256([]byte("pseudonym of " + voter)),
		VoterKeyHash:   sha256.Sum256([]byte(voter)),
	}
}

// ballot encrypts Messages[choice] and proves it.
func ballot(tb testing.TB, ctx *Context, choice int) (*big.Int, *ValidityProof) {
	tb.Helper()
	c, r, err := ctx.PublicKey.Encrypt(nil, ctx.Messages[choice])
	if err != nil {
		tb.Fatal(err)
	}
	pr, err := ProveValidity(nil, ctx, c, choice, r)
	if err != nil {
		tb.Fatal(err)
	}
	return c, pr
}
