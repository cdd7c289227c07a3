package zkp_test

import (
	"crypto/sha256"
	"fmt"
	"math/big"
	"os"

	"github.com/fabvote/fabvote/crypto/paillier"
	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/crypto/zkp"
)

// A voter encrypts a vote for candidate 2 of 4 and proves it valid; the
// chaincode parses the fixed-length proof and verifies it; at the end the
// tally is decrypted with a proof anyone can check.
func Example() {
	data, err := os.ReadFile("testdata/key2048.pem") // a fixed test key, public in the repository
	if err != nil {
		panic(err)
	}
	sk, err := paillier.ParsePrivateKeyPEM(data)
	if err != nil {
		panic(err)
	}
	enc, _ := votecode.New(40_000, 4) // M = 2^16
	ctx := &zkp.Context{
		ElectionID:   "example-election",
		PublicKey:    &sk.PublicKey,
		Messages:     enc.Messages(),
		VoterKeyHash: sha256.Sum256([]byte("voter public key bytes")),
	}

	// Voter (nil readers mean crypto/rand).
	m, _ := enc.Encode(2)
	c, r, _ := sk.Encrypt(nil, m)
	proof, _ := zkp.ProveValidity(nil, ctx, c, 2, r)
	wire := proof.Marshal(ctx)

	// Chaincode.
	parsed, err := zkp.ParseValidityProof(ctx, wire)
	fmt.Println("proof bytes:", len(wire), "parse error:", err)
	fmt.Println("verify:", zkp.VerifyValidity(ctx, c, parsed))

	// Tally of this single ballot.
	total := sk.Product([]*big.Int{c})
	t, nonce, _ := zkp.ProveDecryption(sk, total)
	counts, _ := enc.Decode(t)
	fmt.Println("counts:", counts, "decryption proof:", zkp.VerifyDecryption(&sk.PublicKey, total, t, nonce))
	// Output:
	// proof bytes: 3136 parse error: <nil>
	// verify: <nil>
	// counts: [0 0 1 0] decryption proof: <nil>
}
