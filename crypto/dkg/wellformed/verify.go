package wellformed

import (
	"fmt"
	"math/big"

	"github.com/fabvote/fabvote/crypto/dkg/biprime"
	"github.com/fabvote/fabvote/crypto/paillier/arith"
)

// Verify checks the proof that N is a Paillier–Blum modulus for the
// ceremony: N odd, not prime, without a prime factor below 2^20; w the
// derived one, with (w/N) = −1; for every challenge y_k, x_k and z_k in
// [1, N) and coprime to N, x_k^4 ≡ (−1)^{a_k}·w^{b_k}·y_k, b_k = [(y_k/N) = −1]
// and z_k^N ≡ y_k (mod N). It returns nil or an error wrapping ErrModulus or
// ErrInvalidProof.
func Verify(n *big.Int, ceremony []byte, p *Proof) error {
	if err := checkModulus(n); err != nil {
		return err
	}
	st, err := NewStatement(n, ceremony)
	if err != nil {
		return err
	}
	if p == nil || p.W == nil {
		return fmt.Errorf("%w: no proof", ErrInvalidProof)
	}
	if p.W.Sign() < 0 || p.W.Cmp(n) >= 0 || big.Jacobi(p.W, n) != -1 {
		return fmt.Errorf("%w: w is not an element of Z_N with Jacobi symbol −1", ErrInvalidProof)
	}
	if p.W.Cmp(st.W) != 0 {
		return fmt.Errorf("%w: w is not the one derived from this ceremony and N", ErrInvalidProof)
	}
	return checkResponses(st, p)
}

// checkModulus is the public part of the statement: N odd, not prime, no
// prime factor below 2^20. A prime N must be refused here: Z*_N is cyclic
// and every challenge has 4th and N-th roots. Go's ProbablyPrime never
// calls a prime composite, so no prime gets through; a composite it calls
// prime is refused, which is safe.
func checkModulus(n *big.Int) error {
	if n == nil || n.Sign() <= 0 || n.Bit(0) == 0 {
		return fmt.Errorf("%w: N is not a positive odd integer", ErrModulus)
	}
	if err := biprime.TrialDivide(n, n.BitLen()); err != nil {
		return fmt.Errorf("%w: %v", ErrModulus, err)
	}
	if n.ProbablyPrime(20) {
		return fmt.Errorf("%w: N is prime", ErrModulus)
	}
	return nil
}

// checkResponses checks every challenge's response against the statement.
func checkResponses(st *Statement, p *Proof) error {
	four := big.NewInt(4)
	for k, r := range p.Responses {
		if err := inUnits(st.N, r.X); err != nil {
			return fmt.Errorf("%w: challenge %d: x %v", ErrInvalidProof, k+1, err)
		}
		if err := inUnits(st.N, r.Z); err != nil {
			return fmt.Errorf("%w: challenge %d: z %v", ErrInvalidProof, k+1, err)
		}
		if r.B != st.B[k] {
			return fmt.Errorf("%w: challenge %d: b is not [(y/N) = −1]", ErrInvalidProof, k+1)
		}
		want := st.signed(st.hat(k), r.A)
		if arith.Exp(r.X, four, st.N).Cmp(want) != 0 {
			return fmt.Errorf("%w: challenge %d: x^4 ≢ (−1)^a·w^b·y (mod N)", ErrInvalidProof, k+1)
		}
		if arith.Exp(r.Z, st.N, st.N).Cmp(st.Y[k]) != 0 {
			return fmt.Errorf("%w: challenge %d: z^N ≢ y (mod N)", ErrInvalidProof, k+1)
		}
	}
	return nil
}

// inUnits checks x ∈ [1, N) with gcd(x, N) = 1.
func inUnits(n, x *big.Int) error {
	if x == nil || x.Sign() <= 0 || x.Cmp(n) >= 0 {
		return fmt.Errorf("not in [1, N)")
	}
	if !arith.Coprime(x, n) {
		return fmt.Errorf("not coprime to N")
	}
	return nil
}
