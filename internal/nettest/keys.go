package nettest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"testing"
	"time"
)

// VoterKey makes a fresh P-256 voter key and returns it with its public
// key as a ballot carries it (election.Ballot.VoterPub).
func VoterKey(t testing.TB) (*ecdsa.PrivateKey, []byte) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := k.PublicKey.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return k, pub
}

// Context is a context that ends after d or when the test ends, whichever
// comes first: a network call that hangs fails the test instead of holding
// it until go test's own timeout.
func Context(t testing.TB, d time.Duration) context.Context {
	c, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return c
}
