package field

import (
	"errors"
	"fmt"
	"io"
	"math/big"

	"github.com/fabvote/fabvote/crypto/paillier/arith"
)

// Field is the prime field F_P. Elements are *big.Int in [0, P); every
// method returns a fresh value and leaves its arguments alone. A Field is
// safe for concurrent use.
type Field struct {
	p *big.Int
}

// ErrNotInvertible is returned by Inv for zero.
var ErrNotInvertible = errors.New("field: zero has no inverse")

// New returns the field of the prime p. p must be an odd prime (checked with
// math/big's ProbablyPrime, Miller–Rabin plus Baillie–PSW).
func New(p *big.Int) (*Field, error) {
	if p == nil {
		return nil, errors.New("field: prime is missing")
	}
	if p.Cmp(big.NewInt(2)) <= 0 || p.Bit(0) == 0 {
		return nil, fmt.Errorf("field: modulus %v is not an odd prime above 2", p)
	}
	if !p.ProbablyPrime(32) {
		return nil, fmt.Errorf("field: modulus of %d bits is not prime", p.BitLen())
	}
	return &Field{p: new(big.Int).Set(p)}, nil
}

// P returns a copy of the field's prime.
func (f *Field) P() *big.Int { return new(big.Int).Set(f.p) }

// Bits is the bit length of P.
func (f *Field) Bits() int { return f.p.BitLen() }

// Contains reports whether x is a reduced element, 0 ≤ x < P.
func (f *Field) Contains(x *big.Int) bool {
	return x != nil && x.Sign() >= 0 && x.Cmp(f.p) < 0
}

// Reduce maps any integer, negative ones included, to [0, P).
func (f *Field) Reduce(x *big.Int) *big.Int { return new(big.Int).Mod(x, f.p) }

// Add returns a + b mod P.
func (f *Field) Add(a, b *big.Int) *big.Int { return f.mod(new(big.Int).Add(a, b)) }

// Sub returns a − b mod P.
func (f *Field) Sub(a, b *big.Int) *big.Int { return f.mod(new(big.Int).Sub(a, b)) }

// Mul returns a·b mod P.
func (f *Field) Mul(a, b *big.Int) *big.Int { return f.mod(new(big.Int).Mul(a, b)) }

// Neg returns −a mod P.
func (f *Field) Neg(a *big.Int) *big.Int { return f.mod(new(big.Int).Neg(a)) }

// Inv returns a⁻¹ mod P, or ErrNotInvertible if a ≡ 0.
func (f *Field) Inv(a *big.Int) (*big.Int, error) {
	r := f.mod(new(big.Int).Set(a))
	if r.Sign() == 0 {
		return nil, ErrNotInvertible
	}
	return r.ModInverse(r, f.p), nil
}

// Exp returns a^e mod P for e ≥ 0. Field elements are trustees' secrets, so
// it uses arith.ExpSecret (math/big whatever the build tags).
func (f *Field) Exp(a, e *big.Int) (*big.Int, error) {
	if e.Sign() < 0 {
		return nil, fmt.Errorf("field: negative exponent %v", e)
	}
	return arith.ExpSecret(f.mod(new(big.Int).Set(a)), e, f.p), nil
}

// Rand returns a uniform element of F_P read from random.
func (f *Field) Rand(random io.Reader) (*big.Int, error) { return Uniform(random, f.p) }

// mod reduces z in place into [0, P).
func (f *Field) mod(z *big.Int) *big.Int { return z.Mod(z, f.p) }

// Uniform returns an integer uniform in [0, bound), bound > 0, by rejection
// sampling on bytes read from random. Unlike crypto/rand.Int it always reads
// random, so a fixed test reader gives a reproducible value.
func Uniform(random io.Reader, bound *big.Int) (*big.Int, error) {
	if bound == nil || bound.Sign() <= 0 {
		return nil, fmt.Errorf("field: sampling bound %v is not positive", bound)
	}
	max := new(big.Int).Sub(bound, big.NewInt(1))
	bits := max.BitLen()
	buf := make([]byte, (bits+7)/8)
	x := new(big.Int)
	for {
		if _, err := io.ReadFull(random, buf); err != nil {
			return nil, fmt.Errorf("field: reading randomness: %w", err)
		}
		if excess := len(buf)*8 - bits; excess > 0 {
			buf[0] &= byte(0xff >> excess)
		}
		if x.SetBytes(buf).Cmp(bound) < 0 {
			return x, nil
		}
	}
}
