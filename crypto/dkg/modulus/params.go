package modulus

import (
	"fmt"
	"math"

	"github.com/fabvote/fabvote/crypto/dkg/biprime"
	"github.com/fabvote/fabvote/crypto/dkg/sieve"
)

// Params are the public parameters of a modulus generation, the same for
// every trustee.
type Params struct {
	sieve    *sieve.Params
	ceremony []byte
}

// NewParams returns the parameters for n trustees, an N of bits bits (the
// sizes sieve.NewParams accepts) and a non-empty ceremony identifier, which
// separates the biprimality bases of one ceremony from another's.
func NewParams(n, bits int, ceremony []byte) (*Params, error) {
	if len(ceremony) == 0 {
		return nil, fmt.Errorf("modulus: the ceremony identifier is empty")
	}
	sp, err := sieve.NewParams(n, bits)
	if err != nil {
		return nil, fmt.Errorf("modulus: %w", err)
	}
	return &Params{sieve: sp, ceremony: append([]byte(nil), ceremony...)}, nil
}

// Trustees is the number of trustees n.
func (p *Params) Trustees() int { return p.sieve.N }

// Bits is the size of N in bits.
func (p *Params) Bits() int { return p.sieve.Bits }

// Sieve is the parameters of the sieve that makes the candidates.
func (p *Params) Sieve() *sieve.Params { return p.sieve }

// Expectation is the expected work of one modulus generation. The counts are
// geometric: their standard deviation is about their mean.
type Expectation struct {
	Candidates       float64 // candidate moduli N (pairs p, q) sieved
	BiprimalityTests float64 // of which survive trial division
}

// eulerGamma is the Euler–Mascheroni constant γ.
const eulerGamma = 0.57721566490153286

// Expect returns the expected work for these parameters. A sieved candidate
// prime p ∈ [1.5·2^{h−1}, 2^h) (h = bits/2), free of every prime up to the
// sieve bound L, is prime with probability 1 / (ln p · ∏_{ℓ≤L}(1 − 1/ℓ)),
// which is e^γ·ln L / ln p by Mertens' theorem, taking ln p at the middle
// of the range. A pair is a candidate N, so Candidates is the square of the
// inverse. Both p and q of a candidate are free of the primes in
// (L, 2^20), so N survives trial division, with probability
// (ln L / ln 2^20)², by the same theorem.
func (p *Params) Expect() Expectation {
	half := float64(p.sieve.Bits / 2)
	lnP := math.Log(1.75) + (half-1)*math.Ln2
	lnL := math.Log(float64(p.sieve.MaxPrime))
	perPrime := math.Exp(eulerGamma) * lnL / lnP
	candidates := 1 / (perPrime * perPrime)
	survive := lnL / math.Log(biprime.TrialBound)
	return Expectation{Candidates: candidates, BiprimalityTests: candidates * survive * survive}
}
