package keyshare

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/fabvote/fabvote/crypto/dkg/field"
	"github.com/fabvote/fabvote/crypto/dkg/shamir"
)

// ErrBadInput wraps every refusal of a malformed or inconsistent input: a
// parameter, a share of m, a message or an opened value.
var ErrBadInput = errors.New("keyshare: bad input")

// Params are the public parameters of the key-share step, the same for
// every trustee: the modulus, the number of trustees n, the decryption
// threshold K, the ceremony id, and the bounds derived from them.
type Params struct {
	N        *big.Int // the accepted modulus
	Trustees int      // n, also the threshold scheme's L
	K        int      // decryption threshold
	Ceremony []byte   // ceremony id, bound into every derived value

	scheme *shamir.Scheme // degree ⌊(n−1)/2⌋ over P2(|N|)
	n2     *big.Int       // N²
	delta  *big.Int       // Δ = n!

	betaBound  *big.Int // β_i < 2^κ·N
	rBound     *big.Int // R_i < 2^rBits, R_i ≡ 0 (mod 4)
	gammaBound *big.Int // an honest γ = m·β + N·R is below it
	dBits      int      // |D_i| < 2^dBits for every honest D_i
	coeffLow   *big.Int // A_0 = n·2^dBits: a_{i,1} ≥ A_0
	coeffRange *big.Int // A = 2^{dBits+κ+|Δ|}
	subLow     *big.Int // an honest f_i(j) is at least subLow …
	subBound   *big.Int // … and below subBound
	shareBits  int      // every honest s_j is below 2^shareBits
}

// NewParams returns the parameters for the modulus n (odd, with
// field.MinP2Bits..field.MaxP2Bits bits), trustees in
// field.MinParties..field.MaxParties and 1 ≤ k ≤ trustees.
func NewParams(n *big.Int, trustees, k int, ceremony []byte) (*Params, error) {
	switch {
	case n == nil || n.Sign() <= 0 || n.Bit(0) == 0:
		return nil, fmt.Errorf("%w: N must be a positive odd integer", ErrBadInput)
	case trustees < field.MinParties || trustees > field.MaxParties:
		return nil, fmt.Errorf("%w: %d trustees, need %d to %d", ErrBadInput, trustees, field.MinParties, field.MaxParties)
	case k < 1 || k > trustees:
		return nil, fmt.Errorf("%w: threshold K = %d, need 1..%d", ErrBadInput, k, trustees)
	}
	f, err := field.P2(n.BitLen())
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	s, err := shamir.New(f, trustees, (trustees-1)/2)
	if err != nil {
		return nil, fmt.Errorf("keyshare: %w", err)
	}
	p := &Params{
		N: new(big.Int).Set(n), Trustees: trustees, K: k,
		Ceremony: append([]byte(nil), ceremony...),
		scheme:   s, n2: new(big.Int).Mul(n, n), delta: factorial(trustees),
	}
	p.setBounds()
	if p.gammaBound.Cmp(f.P()) >= 0 {
		return nil, fmt.Errorf("keyshare: γ may reach %d bits, P2 has %d", p.gammaBound.BitLen(), f.Bits())
	}
	if n2 := p.n2.BitLen(); p.shareBits < n2 || p.shareBits > 2*n2 {
		return nil, fmt.Errorf("keyshare: shares of %d bits do not fit the threshold scheme's %d..%d (|N²| to 2·|N²|)", p.shareBits, n2, 2*n2)
	}
	return p, nil
}

// setBounds derives every range from |N|, n, K, Δ and κ alone, never from
// the values drawn, so that ShareBits is public before anything is dealt.
func (p *Params) setBounds() {
	bits, kappa := p.N.BitLen(), field.Kappa
	logN := big.NewInt(int64(p.Trustees - 1)).BitLen() // ⌈log₂ n⌉
	p.betaBound = new(big.Int).Lsh(p.N, uint(kappa))
	// X = |m| + |β| + 2·log n with |m| ≤ |N| and |β_i| ≤ |N| + κ;
	// R_i < 2^{X+κ−|N|} makes N·R hide x = m·β statistically.
	rBits := bits + 2*kappa + 2*logN
	p.rBound = pow2(rBits)
	nb := big.NewInt(int64(p.Trustees))
	// γ = m·β + N·R < N·(n·2^κ·N) + N·(n·2^{rBits}), as m < N.
	p.gammaBound = new(big.Int).Mul(nb, new(big.Int).Add(new(big.Int).Lsh(p.n2, uint(kappa)), new(big.Int).Lsh(p.N, uint(rBits))))
	// |D_1| = Δζ·|γ − N·R_1| < Δ·N·γBound, |D_j| = Δζ·N·R_j < Δ·N·N·2^{rBits}.
	p.dBits = new(big.Int).Mul(p.delta, new(big.Int).Mul(p.N, p.gammaBound)).BitLen()
	p.coeffLow = new(big.Int).Lsh(nb, uint(p.dBits))
	p.coeffRange = pow2(p.dBits + kappa + p.delta.BitLen())
	// f_i(j) < 2^dBits + (A_0 + A)·j + A·Σ_{l≥2} j^l for j ≤ n.
	p.subBound = pow2(p.dBits)
	jl := new(big.Int).Set(nb)
	p.subBound.Add(p.subBound, new(big.Int).Mul(new(big.Int).Add(p.coeffLow, p.coeffRange), jl))
	for l := 2; l < p.K; l++ {
		jl.Mul(jl, nb)
		p.subBound.Add(p.subBound, new(big.Int).Mul(p.coeffRange, jl))
	}
	// With K ≥ 2, A_0 makes every f_i(j) positive; with K = 1, f_i = D_i,
	// negative for i > 1.
	p.subLow = big.NewInt(1)
	if p.K == 1 {
		p.subLow.Sub(p.subLow, pow2(p.dBits))
	}
	// s_j = Σ_i f_i(j) < n·subBound.
	p.shareBits = new(big.Int).Mul(nb, p.subBound).BitLen()
}

// subRange describes [subLow, subBound) for errors.
func (p *Params) subRange() string {
	if p.subLow.Sign() > 0 {
		return fmt.Sprintf("[1, 2^%d)", p.subBound.BitLen())
	}
	return fmt.Sprintf("(−2^%d, 2^%d)", p.dBits, p.subBound.BitLen())
}

// ShareBits is the bound every honest share meets, 0 ≤ s_j < 2^ShareBits:
// threshold.PublicParams.ShareBits of the key.
func (p *Params) ShareBits() int { return p.shareBits }

// Delta returns Δ = n!, the threshold scheme's Δ for L = n trustees.
func (p *Params) Delta() *big.Int { return new(big.Int).Set(p.delta) }

// Scheme is the Shamir scheme of the masked product: n trustees, degree
// ⌊(n−1)/2⌋, over P2(|N|).
func (p *Params) Scheme() *shamir.Scheme { return p.scheme }

func pow2(bits int) *big.Int { return new(big.Int).Lsh(big.NewInt(1), uint(bits)) }

func factorial(n int) *big.Int {
	f := big.NewInt(1)
	for i := 2; i <= n; i++ {
		f.Mul(f, big.NewInt(int64(i)))
	}
	return f
}

func errCount(what string, got, want int) error {
	return fmt.Errorf("%w: %d %s, need one for each of %d trustees", ErrBadInput, got, what, want)
}
