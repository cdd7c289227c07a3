package keygen

import (
	"errors"
	"fmt"

	"github.com/fabvote/fabvote/crypto/dkg/keyshare"
	"github.com/fabvote/fabvote/crypto/dkg/wellformed"
	"github.com/fabvote/fabvote/crypto/paillier/threshold"
)

// CeremonyIDLen is the length of a ceremony id: 128 random bits.
const CeremonyIDLen = 16

// ErrInvalid marks a public result that does not check.
var ErrInvalid = errors.New("keygen: invalid ceremony result")

// Public is a ceremony's public result.
type Public struct {
	// Ceremony is the ceremony's id, CeremonyIDLen bytes: it is bound
	// into every derivation of the ceremony (the Πmod challenges, the
	// self-test ciphertext).
	Ceremony []byte
	// Params are the threshold key's public parameters, version 2.
	Params *threshold.PublicParams
	// ModulusProof proves that N is a Paillier–Blum modulus.
	ModulusProof *wellformed.Proof
	// SelfTest[j−1] is trustee j's partial decryption of
	// threshold.SelfTestCiphertext(Params, Ceremony).
	SelfTest []*threshold.PartialDecryption
}

// Verify checks the result: the parameters (N of at least the Paillier
// minimum, integer shares), the proof that N is well formed, and the
// self-test (one partial from each trustee, in index order, and every K of
// them combine to the test plaintext, which checks every verification key
// and the decryption exponent end to end).
func (p *Public) Verify() error {
	switch {
	case p == nil || p.Params == nil:
		return fmt.Errorf("%w: no parameters", ErrInvalid)
	case len(p.Ceremony) != CeremonyIDLen:
		return fmt.Errorf("%w: ceremony id of %d bytes, want %d", ErrInvalid, len(p.Ceremony), CeremonyIDLen)
	}
	if err := p.Params.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if p.Params.ShareBits == 0 {
		return fmt.Errorf("%w: version 1 parameters (a dealer's shares), want integer shares (version 2)", ErrInvalid)
	}
	if err := wellformed.Verify(p.Params.PublicKey.N, p.Ceremony, p.ModulusProof); err != nil {
		return fmt.Errorf("%w: the modulus proof: %w", ErrInvalid, err)
	}
	for j, pd := range p.SelfTest {
		if pd == nil || pd.Index != j+1 {
			return fmt.Errorf("%w: self-test partial #%d is not trustee %d's", ErrInvalid, j+1, j+1)
		}
	}
	c, m, err := threshold.SelfTestCiphertext(p.Params, p.Ceremony)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if err := keyshare.CheckSelfTest(p.Params, c, m, p.SelfTest); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return nil
}
