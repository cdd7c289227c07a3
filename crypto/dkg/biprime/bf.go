package biprime

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/fabvote/fabvote/crypto/internal/zn"
)

// Rounds is the number of rounds of the biprimality test. By Boneh and
// Franklin's bound (package comment), a modulus that is not a product of two
// distinct primes ≡ 3 (mod 4), nor of the form p^a·q^b, passes a round with
// probability at most 1/2, so all Rounds rounds with probability at most
// 2^-80: the same 2^-80 as the proof of crypto/dkg/wellformed, which covers
// the excluded p^a·q^b.
const Rounds = 80

// BaseTag is the domain-separation tag, versioned, of the base derivation.
const BaseTag = "fabvote/dkg/biprime/v1"

// maxBaseCandidates bounds the search for a base: half of Z*_N has Jacobi
// symbol +1 for any N that is not a square, so an honest search needs about
// two candidates; the bound only stops the loop on degenerate N.
const maxBaseCandidates = 256

// Errors of the biprimality test.
var (
	// ErrBadInput: a modulus, base, share or value is malformed or out of range.
	ErrBadInput = errors.New("biprime: bad input")
	// ErrNotBiprime: a round failed: N is not a product of two distinct
	// primes ≡ 3 (mod 4) (or a trustee's value is wrong).
	ErrNotBiprime = errors.New("biprime: round failed, N is not a Blum biprime")
)

// Base returns the base g of round round (1..Rounds) for modulus N and the
// ceremony: the first candidate g ∉ {0, 1} with Jacobi symbol (g/N) = +1 of
// the stream zn.NewStream(N, BaseTag, ceremony, N, u32be(round)), N written
// as its minimal big-endian bytes.
func Base(n *big.Int, ceremony []byte, round int) (*big.Int, error) {
	if err := checkModulus(n); err != nil {
		return nil, err
	}
	if round < 1 || round > Rounds {
		return nil, fmt.Errorf("%w: round %d not in 1..%d", ErrBadInput, round, Rounds)
	}
	s := zn.NewStream(n, []byte(BaseTag), ceremony, n.Bytes(), zn.U32(round))
	for i := 0; i < maxBaseCandidates; i++ {
		g := s.Next()
		if g.Cmp(big.NewInt(1)) > 0 && big.Jacobi(g, n) == 1 {
			return g, nil
		}
	}
	return nil, fmt.Errorf("%w: no base with Jacobi symbol +1 among %d candidates", ErrBadInput, maxBaseCandidates)
}

func checkModulus(n *big.Int) error {
	if n == nil || n.Sign() <= 0 || n.Bit(0) == 0 || n.Cmp(big.NewInt(3)) < 0 {
		return fmt.Errorf("%w: modulus must be odd and at least 3", ErrBadInput)
	}
	return nil
}

// PartyValue returns trustee i's value G_i = g^{m_i} mod N for its share m_i
// of φ(N)/4 (crypto/dkg/phi.MShare; negative shares raise g^{-1}). The exponent is secret.
func PartyValue(n, g, mi *big.Int) (*big.Int, error) {
	if err := checkBase(n, g); err != nil {
		return nil, err
	}
	return zn.ExpSigned(g, mi, n), nil // g is a unit: never nil
}

func checkBase(n, g *big.Int) error {
	if err := checkModulus(n); err != nil {
		return err
	}
	if g == nil || g.Cmp(big.NewInt(1)) <= 0 || g.Cmp(n) >= 0 || big.Jacobi(g, n) != 1 {
		return fmt.Errorf("%w: base not in (1, N) with Jacobi symbol +1", ErrBadInput)
	}
	return nil
}

// Accept checks one round: the values G_1..G_n of the trustees for base g
// must multiply to ±1 mod N. Every value must be in [1, N). It returns nil
// when the round passes, an error wrapping ErrNotBiprime when it fails.
func Accept(n, g *big.Int, values []*big.Int) error {
	if err := checkBase(n, g); err != nil {
		return err
	}
	if len(values) == 0 {
		return fmt.Errorf("%w: no trustee value", ErrBadInput)
	}
	prod := big.NewInt(1)
	for i, v := range values {
		if v == nil || v.Sign() <= 0 || v.Cmp(n) >= 0 {
			return fmt.Errorf("%w: value of trustee %d not in [1, N)", ErrBadInput, i+1)
		}
		prod.Mul(prod, v).Mod(prod, n)
	}
	minusOne := new(big.Int).Sub(n, big.NewInt(1))
	if prod.Cmp(big.NewInt(1)) != 0 && prod.Cmp(minusOne) != 0 {
		return fmt.Errorf("%w: ∏ G_i ≢ ±1 (mod N)", ErrNotBiprime)
	}
	return nil
}
