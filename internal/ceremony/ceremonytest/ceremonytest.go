// Package ceremonytest makes key-ceremony configurations with their secret
// keys, for tests: the signing keys come from fixed seeds, the age
// identities are fresh.
package ceremonytest

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"

	"filippo.io/age"

	"github.com/fabvote/fabvote/internal/ceremony/config"
)

// Ceremony is a valid configuration and each trustee's secrets, index i at
// position i−1.
type Ceremony struct {
	Config  *config.Config
	Signers []ed25519.PrivateKey
	Ids     []*age.X25519Identity
}

// ID is the ceremony id of every configuration made here.
const ID = "00112233445566778899aabbccddeeff"

// New makes an n-trustee, k-threshold ceremony relayed by relayURL.
func New(n, k int, relayURL string) *Ceremony {
	c := &Ceremony{Config: &config.Config{Ceremony: ID, Bits: 2048, N: n, K: k, Relay: relayURL}}
	for i := 1; i <= n; i++ {
		seed := make([]byte, ed25519.SeedSize)
		seed[0] = byte(i)
		sk := ed25519.NewKeyFromSeed(seed)
		id, err := age.GenerateX25519Identity()
		if err != nil {
			panic(err)
		}
		c.Signers = append(c.Signers, sk)
		c.Ids = append(c.Ids, id)
		c.Config.Trustees = append(c.Config.Trustees, config.Trustee{
			Index:        i,
			Name:         fmt.Sprintf("trustee-%c", 'a'+i-1),
			AgeRecipient: id.Recipient().String(),
			SigningKey:   base64.StdEncoding.EncodeToString(sk.Public().(ed25519.PublicKey)),
		})
	}
	if err := c.Config.Validate(); err != nil {
		panic(err)
	}
	return c
}
