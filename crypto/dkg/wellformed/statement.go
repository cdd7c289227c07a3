package wellformed

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/fabvote/fabvote/crypto/internal/zn"
)

// Challenges is the number of challenges: soundness error 2^-80, the same
// as crypto/dkg/biprime's Rounds.
const Challenges = 80

// Tag is the domain-separation tag, versioned, of every derivation.
const Tag = "fabvote/dkg/pimod/v1"

// maxCandidates bounds the searches in the hash streams: a candidate is
// refused with probability about 1/2 (w) or about 2^-1000 (y_k) for a
// well-formed N; the bound only stops degenerate moduli (a square has no
// element of Jacobi symbol −1).
const maxCandidates = 256

// Errors. Every error of this package wraps one of them with a message
// naming the value or the check that failed.
var (
	// ErrModulus: N fails a public check (odd, composite, no small factor,
	// a w with Jacobi symbol −1 exists).
	ErrModulus = errors.New("wellformed: modulus refused")
	// ErrInvalidProof: the proof does not verify.
	ErrInvalidProof = errors.New("wellformed: invalid proof")
	// ErrMalformed: an encoding is not the canonical encoding of a proof.
	ErrMalformed = errors.New("wellformed: malformed encoding")
	// ErrBadInput: a prover's input (factors, shares, trustee values) is
	// malformed or inconsistent.
	ErrBadInput = errors.New("wellformed: bad input")
)

// Statement is the public part of the proof for one modulus and ceremony:
// w, the challenges y_k and the bits b_k, all derived.
type Statement struct {
	N *big.Int
	W *big.Int
	// Y[k] is challenge y_{k+1}; B[k] is 1 when (y_{k+1}/N) = −1.
	Y [Challenges]*big.Int
	B [Challenges]bool
}

// NewStatement derives the statement for N (odd, ≥ 3) and the ceremony id.
func NewStatement(n *big.Int, ceremony []byte) (*Statement, error) {
	if n == nil || n.Sign() <= 0 || n.Bit(0) == 0 || n.Cmp(big.NewInt(3)) < 0 {
		return nil, fmt.Errorf("%w: N must be odd and at least 3", ErrModulus)
	}
	w, err := deriveW(n, ceremony)
	if err != nil {
		return nil, err
	}
	st := &Statement{N: n, W: w}
	wBytes := fixed(w, byteLen(n))
	for k := range st.Y {
		y, err := deriveY(n, ceremony, wBytes, k+1)
		if err != nil {
			return nil, err
		}
		st.Y[k] = y
		st.B[k] = big.Jacobi(y, n) == -1
	}
	return st, nil
}

func deriveW(n *big.Int, ceremony []byte) (*big.Int, error) {
	s := zn.NewStream(n, []byte(Tag), ceremony, n.Bytes(), []byte("w"))
	for i := 0; i < maxCandidates; i++ {
		if w := s.Next(); big.Jacobi(w, n) == -1 {
			return w, nil
		}
	}
	return nil, fmt.Errorf("%w: no w with Jacobi symbol −1 among %d candidates (N is a square?)", ErrModulus, maxCandidates)
}

func deriveY(n *big.Int, ceremony, w []byte, k int) (*big.Int, error) {
	s := zn.NewStream(n, []byte(Tag), ceremony, n.Bytes(), w, zn.U32(k))
	for i := 0; i < maxCandidates; i++ {
		if y := s.Next(); y.Sign() > 0 && new(big.Int).GCD(nil, nil, y, n).Cmp(big.NewInt(1)) == 0 {
			return y, nil
		}
	}
	return nil, fmt.Errorf("%w: no challenge %d in Z*_N among %d candidates", ErrModulus, k, maxCandidates)
}

// hat returns ŷ_k = w^{b_k}·y_k mod N (index k from 0), Jacobi symbol +1.
func (st *Statement) hat(k int) *big.Int {
	if !st.B[k] {
		return st.Y[k]
	}
	h := new(big.Int).Mul(st.W, st.Y[k])
	return h.Mod(h, st.N)
}

// signed returns (−1)^a·x mod N.
func (st *Statement) signed(x *big.Int, a bool) *big.Int {
	if !a {
		return x
	}
	return new(big.Int).Sub(st.N, x)
}

func byteLen(n *big.Int) int { return (n.BitLen() + 7) / 8 }

func fixed(x *big.Int, width int) []byte { return x.FillBytes(make([]byte, width)) }
