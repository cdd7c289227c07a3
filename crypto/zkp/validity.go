package zkp

import (
	"crypto/rand"
	"fmt"
	"io"
	"math/big"

	"github.com/fabvote/fabvote/crypto/paillier"
	"github.com/fabvote/fabvote/crypto/paillier/arith"
)

var one = big.NewInt(1)

// ValidityProof is the 1-out-of-p proof that a ciphertext encrypts one of the
// context's messages: one (a_k, e_k, z_k) per candidate k, with a_k ∈ Z*_{N²},
// e_k < 2^t and z_k ∈ Z*_N, z_k < N/2.
type ValidityProof struct {
	A, E, Z []*big.Int
}

// ProveValidity proves that c = (1+N)^(Messages[choice]) · r^N mod N² encrypts
// one of ctx.Messages without revealing which. random must be a
// cryptographically secure source (nil means crypto/rand). If (c, choice, r)
// do not match, the result does not verify. It is PrecomputeValidity and
// Finish in one call, except that it draws nothing for the real branch.
func ProveValidity(random io.Reader, ctx *Context, c *big.Int, choice int, r *big.Int) (*ValidityProof, error) {
	if err := checkProverInput(ctx, c, choice, r); err != nil {
		return nil, err
	}
	// Knowing the real branch, draw nothing for it: the random stream is
	// then e_k, z_k of each simulated branch and ω, which the known-answer
	// vectors fix.
	pc, err := precomputeValidity(random, ctx.PublicKey, len(ctx.Messages), ctx.challengeBits(), choice)
	if err != nil {
		return nil, err
	}
	return pc.finish(ctx, c, choice, r)
}

// checkProverInput checks the context and the witness: choice names one of
// the messages, c is a valid ciphertext and r ∈ Z*_N.
func checkProverInput(ctx *Context, c *big.Int, choice int, r *big.Int) error {
	if err := ctx.Check(); err != nil {
		return err
	}
	pk := ctx.PublicKey
	p := len(ctx.Messages)
	if choice < 0 || choice >= p {
		return fmt.Errorf("%w: choice %d, want 0..%d", ErrInvalidWitness, choice, p-1)
	}
	if err := pk.ValidateCiphertext(c); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidCiphertext, err)
	}
	if r == nil || r.Sign() <= 0 || r.Cmp(pk.N) >= 0 || new(big.Int).GCD(nil, nil, r, pk.N).Cmp(one) != 0 {
		return fmt.Errorf("%w: nonce r is not in Z*_N", ErrInvalidWitness)
	}
	return nil
}

// simulateBranch computes the commitment a_k of simulated branch k, for
// message m, from its drawn e_k and z_k and the precomputed z_k^N.
func simulateBranch(pk *paillier.PublicKey, cInv, m, zN *big.Int, pr *ValidityProof, k int) {
	// Simulated branch: a_k = z_k^N · u_k^(-e_k) with
	// u_k^-1 = c^-1 · (1+N)^(M^k) = c^-1 · (1 + M^k·N).
	uInv := new(big.Int).Mul(m, pk.N)
	uInv.Add(uInv, one)
	uInv.Mul(uInv, cInv)
	uInv.Mod(uInv, pk.NSquared)
	ak := arith.ExpSecret(uInv, pr.E[k], pk.NSquared)
	ak.Mul(ak, zN)
	pr.A[k] = ak.Mod(ak, pk.NSquared)
	// Canonicalise after computing a_k, exactly as for the real
	// branch: then z_k^N = ±a_k·u_k^e_k with a sign that is a fair
	// coin in every branch, so the sign does not reveal the real one.
	canonicalZ(pr.Z[k], pk.N)
}

// canonicalZ replaces z by N - z when z > N/2. (N - z)^N ≡ -z^N (mod N²)
// because N is odd, and the squared verification relation does not see the
// sign, so only the representative below N/2 is accepted: this keeps proofs
// from being altered by a third party.
func canonicalZ(z, n *big.Int) {
	if new(big.Int).Lsh(z, 1).Cmp(n) > 0 {
		z.Sub(n, z)
	}
}

// ProofLen is the length in bytes of an encoded proof for ctx:
// p·(|N²| + t/8 + |N|).
func (ctx *Context) ProofLen() int {
	return len(ctx.Messages) * ctx.branchLen()
}

func (ctx *Context) branchLen() int {
	return ctx.PublicKey.CiphertextLen() + ctx.challengeBits()/8 + ctx.PublicKey.ModulusLen()
}

// Marshal encodes the proof as p branches a_k ‖ e_k ‖ z_k, each value a
// fixed-length big-endian integer (|N²|, t/8 and |N| bytes). It panics if the
// proof does not fit ctx (wrong branch count or out-of-range values), which
// no proof from ProveValidity or ParseValidityProof does.
func (pr *ValidityProof) Marshal(ctx *Context) []byte {
	p := len(ctx.Messages)
	if len(pr.A) != p || len(pr.E) != p || len(pr.Z) != p {
		panic("zkp: Marshal of a proof whose branch count does not match the context")
	}
	aLen, eLen, zLen := ctx.PublicKey.CiphertextLen(), ctx.challengeBits()/8, ctx.PublicKey.ModulusLen()
	out := make([]byte, 0, ctx.ProofLen())
	for k := 0; k < p; k++ {
		out = appendFixed(out, pr.A[k], aLen)
		out = appendFixed(out, pr.E[k], eLen)
		out = appendFixed(out, pr.Z[k], zLen)
	}
	return out
}

func appendFixed(b []byte, x *big.Int, n int) []byte {
	if x == nil || x.Sign() < 0 || (x.BitLen()+7)/8 > n {
		panic("zkp: Marshal of an out-of-range proof value")
	}
	start := len(b)
	b = append(b, make([]byte, n)...)
	x.FillBytes(b[start:])
	return b
}

// ParseValidityProof decodes exactly ctx.ProofLen() bytes and checks every
// value's range: a_k ∈ Z*_{N²}, e_k < 2^t (implied by its length), z_k ∈ Z*_N
// with z_k < N/2.
func ParseValidityProof(ctx *Context, b []byte) (*ValidityProof, error) {
	if err := ctx.Check(); err != nil {
		return nil, err
	}
	if len(b) != ctx.ProofLen() {
		return nil, fmt.Errorf("%w: encoding has %d bytes, want %d (%d branches of %d)", ErrInvalidProof, len(b), ctx.ProofLen(), len(ctx.Messages), ctx.branchLen())
	}
	p := len(ctx.Messages)
	aLen, eLen, zLen := ctx.PublicKey.CiphertextLen(), ctx.challengeBits()/8, ctx.PublicKey.ModulusLen()
	pr := &ValidityProof{A: make([]*big.Int, p), E: make([]*big.Int, p), Z: make([]*big.Int, p)}
	for k := 0; k < p; k++ {
		pr.A[k] = new(big.Int).SetBytes(b[:aLen])
		pr.E[k] = new(big.Int).SetBytes(b[aLen : aLen+eLen])
		pr.Z[k] = new(big.Int).SetBytes(b[aLen+eLen : aLen+eLen+zLen])
		b = b[aLen+eLen+zLen:]
	}
	if err := checkRanges(ctx, nil, pr); err != nil {
		return nil, err
	}
	return pr, nil
}

// checkRanges checks branch count and that c (if not nil) and every a_k are in
// Z*_{N²}, every z_k in Z*_N and every e_k in [0, 2^t).
func checkRanges(ctx *Context, c *big.Int, pr *ValidityProof) error {
	if err := checkBounds(ctx, c, pr); err != nil {
		return err
	}
	return checkUnits(ctx.PublicKey, c, pr)
}

// checkBounds is checkRanges without the gcd conditions.
func checkBounds(ctx *Context, c *big.Int, pr *ValidityProof) error {
	if pr == nil {
		return fmt.Errorf("%w: proof is missing", ErrInvalidProof)
	}
	p := len(ctx.Messages)
	if len(pr.A) != p || len(pr.E) != p || len(pr.Z) != p {
		return fmt.Errorf("%w: branch count: %d/%d/%d values for A/E/Z, want %d each", ErrInvalidProof, len(pr.A), len(pr.E), len(pr.Z), p)
	}
	pk := ctx.PublicKey
	t := ctx.challengeBits()
	if c != nil && (c.Sign() <= 0 || c.Cmp(pk.NSquared) >= 0) {
		return fmt.Errorf("%w: ciphertext c is not in (0, N²)", ErrInvalidCiphertext)
	}
	for k := 0; k < p; k++ {
		switch a, e, z := pr.A[k], pr.E[k], pr.Z[k]; {
		case a == nil || a.Sign() <= 0 || a.Cmp(pk.NSquared) >= 0:
			return fmt.Errorf("%w: branch %d: a is not in (0, N²)", ErrInvalidProof, k)
		case e == nil || e.Sign() < 0 || e.BitLen() > t:
			return fmt.Errorf("%w: branch %d: e is not in [0, 2^%d)", ErrInvalidProof, k, t)
		case z == nil || z.Sign() <= 0 || z.Cmp(pk.N) >= 0:
			return fmt.Errorf("%w: branch %d: z is not in (0, N)", ErrInvalidProof, k)
		case new(big.Int).Lsh(z, 1).Cmp(pk.N) > 0:
			return fmt.Errorf("%w: branch %d: z is not canonical (above N/2)", ErrInvalidProof, k)
		}
	}
	return nil
}

// unitValues lists c (if not nil), the a_k and the z_k: the values that must
// be coprime to N.
func unitValues(c *big.Int, pr *ValidityProof) []*big.Int {
	vals := make([]*big.Int, 0, 2*len(pr.A)+1)
	if c != nil {
		vals = append(vals, c)
	}
	vals = append(vals, pr.A...)
	return append(vals, pr.Z...)
}

// allCoprime reports whether every value is coprime to N, with one gcd: p or
// q divides the values' product iff it divides one of them.
func allCoprime(pk *paillier.PublicKey, vals []*big.Int) bool {
	return arith.Coprime(arith.MulAll(one, vals, pk.N), pk.N)
}

// checkUnits checks the gcd conditions of checkRanges (bounds already
// checked) and names the first value that fails.
func checkUnits(pk *paillier.PublicKey, c *big.Int, pr *ValidityProof) error {
	if allCoprime(pk, unitValues(c, pr)) {
		return nil
	}
	p := len(pr.A)
	// Some value shares a factor with N: name it.
	coprime := func(x *big.Int) bool { return arith.Coprime(x, pk.N) }
	if c != nil && !coprime(c) {
		return fmt.Errorf("%w: ciphertext c shares a factor with N", ErrInvalidCiphertext)
	}
	for k := 0; k < p; k++ {
		if !coprime(pr.A[k]) {
			return fmt.Errorf("%w: branch %d: a shares a factor with N", ErrInvalidProof, k)
		}
		if !coprime(pr.Z[k]) {
			return fmt.Errorf("%w: branch %d: z shares a factor with N", ErrInvalidProof, k)
		}
	}
	return fmt.Errorf("%w: a value shares a factor with N", ErrInvalidProof)
}

// checkStatic runs every check except the verification equations: context,
// ranges and Σ e_k ≡ H(…) (mod 2^t).
func checkStatic(ctx *Context, c *big.Int, pr *ValidityProof) error {
	if err := checkStaticBounds(ctx, c, pr); err != nil {
		return err
	}
	if err := checkUnits(ctx.PublicKey, c, pr); err != nil {
		return err
	}
	return checkChallengeSum(ctx, c, pr)
}

// checkStaticBounds is the part of checkStatic before the gcd conditions.
func checkStaticBounds(ctx *Context, c *big.Int, pr *ValidityProof) error {
	if err := ctx.Check(); err != nil {
		return err
	}
	if c == nil {
		return fmt.Errorf("%w: ciphertext c is missing", ErrInvalidCiphertext)
	}
	return checkBounds(ctx, c, pr)
}

// checkChallengeSum checks Σ e_k ≡ H(…) (mod 2^t).
func checkChallengeSum(ctx *Context, c *big.Int, pr *ValidityProof) error {
	sum := new(big.Int)
	for _, e := range pr.E {
		sum.Add(sum, e)
	}
	e := ctx.challenge(c, pr.A)
	mask := new(big.Int).Sub(new(big.Int).Lsh(one, uint(ctx.challengeBits())), one)
	if sum.And(sum, mask).Cmp(e) != 0 {
		return errChallengeSumFailed
	}
	return nil
}

// VerifyValidity checks a validity proof. After the static checks (ranges,
// challenge sum) it verifies the p equations (z_k^N)² ≡ (a_k · u_k^(e_k))²
// (mod N²), u_k = c·(1+N)^(-M^k), combined with fresh random 64-bit weights
// into one exponentiation by N (see the package documentation for why this is
// sound and why the equations are squared). It uses crypto/rand.
func VerifyValidity(ctx *Context, c *big.Int, pr *ValidityProof) error {
	if err := checkStatic(ctx, c, pr); err != nil {
		return err
	}
	ok, err := combinedCheck(rand.Reader, ctx.PublicKey, []checked{{ctx: ctx, c: c, pr: pr}})
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: verification equation fails", ErrInvalidProof)
	}
	return nil
}

// VerifyValidityNaive checks the same relation as VerifyValidity with one full
// exponentiation by N per branch and no randomness. It names the failing branch.
// It is the deterministic reference and is about p times slower.
func VerifyValidityNaive(ctx *Context, c *big.Int, pr *ValidityProof) error {
	if err := checkStatic(ctx, c, pr); err != nil {
		return err
	}
	pk := ctx.PublicKey
	for k, m := range ctx.Messages {
		lhs := arith.Exp(pr.Z[k], pk.N, pk.NSquared)
		lhs.Mul(lhs, lhs).Mod(lhs, pk.NSquared)
		rhs := shiftedCiphertext(pk, c, m)
		rhs = arith.Exp(rhs, pr.E[k], pk.NSquared)
		rhs.Mul(rhs, pr.A[k]).Mod(rhs, pk.NSquared)
		rhs.Mul(rhs, rhs).Mod(rhs, pk.NSquared)
		if lhs.Cmp(rhs) != 0 {
			return fmt.Errorf("%w: branch %d: verification equation fails", ErrInvalidProof, k)
		}
	}
	return nil
}

// shiftedCiphertext returns u = c·(1+N)^(-m) = c·(1 - m·N) mod N².
func shiftedCiphertext(pk *paillier.PublicKey, c, m *big.Int) *big.Int {
	u := new(big.Int).Mul(m, pk.N)
	u.Sub(pk.NSquared, u)
	u.Add(u, one)
	u.Mul(u, c)
	return u.Mod(u, pk.NSquared)
}
