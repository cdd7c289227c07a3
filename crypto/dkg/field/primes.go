package field

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/big"
	"sync"
)

const (
	// Tag is the domain-separation tag of the prime derivation rule.
	Tag = "fabvote/dkg/field/v1"
	// Kappa is the statistical security parameter κ of the masks.
	Kappa = 128
	// MaxSievePrime is the largest odd prime of the distributed sieve.
	MaxSievePrime = 647
	// MaxModulusBits is the largest N that P1 holds without wrapping.
	MaxModulusBits = 2048
	// MinParties and MaxParties bound the number of trustees: BGW needs
	// three, and P1 grows by |M'| ≈ 900 bits per trustee.
	MinParties, MaxParties = 3, 5
	// MinP2Bits and MaxP2Bits bound the modulus sizes P2 is derived for.
	MinP2Bits, MaxP2Bits = 256, 4096
)

// SieveModulus returns M' = 16·∏{odd primes ℓ ≤ maxPrime}, the modulus of
// the distributed sieve. P1 is sized by SieveModulus(MaxSievePrime).
func SieveModulus(maxPrime int) *big.Int {
	m := big.NewInt(16)
	for _, l := range OddPrimes(maxPrime) {
		m.Mul(m, big.NewInt(int64(l)))
	}
	return m
}

// OddPrimes lists the odd primes up to max, by the sieve of Eratosthenes.
func OddPrimes(max int) []int {
	if max < 3 {
		return nil
	}
	composite := make([]bool, max+1)
	var ps []int
	for i := 3; i <= max; i += 2 {
		if composite[i] {
			continue
		}
		ps = append(ps, i)
		for j := i * i; j <= max; j += 2 * i {
			composite[j] = true
		}
	}
	return ps
}

// P1Bound is the lower bound P1(n) must exceed (see the package comment).
func P1Bound(n int) (*big.Int, error) {
	if n < MinParties || n > MaxParties {
		return nil, fmt.Errorf("field: %d trustees, need %d to %d", n, MinParties, MaxParties)
	}
	nn := big.NewInt(int64(n))
	sieve := new(big.Int).Exp(SieveModulus(MaxSievePrime), nn, nil)
	sieve.Mul(sieve, nn).Lsh(sieve, Kappa+1)
	product := new(big.Int).Mul(nn, nn)
	product.Lsh(product, MaxModulusBits+2)
	if sieve.Cmp(product) > 0 {
		return sieve, nil
	}
	return product, nil
}

// P2Bound is the lower bound P2(bits) must exceed: 2^{2·bits+2κ+64}.
func P2Bound(bits int) (*big.Int, error) {
	if bits < MinP2Bits || bits > MaxP2Bits {
		return nil, fmt.Errorf("field: modulus of %d bits, need %d to %d", bits, MinP2Bits, MaxP2Bits)
	}
	return new(big.Int).Lsh(big.NewInt(1), uint(2*bits+2*Kappa+64)), nil
}

var cache sync.Map // "P1/3" → *Field

// derived holds δ = P − (2^b + Offset) for the primes in use, so that a
// process does not spend seconds re-deriving them; the package's tests
// re-derive every entry by the rule. Other parameters are derived on first
// use.
var derived = map[string]int64{
	"P1/3": 163, "P1/4": 4454, "P1/5": 1667,
	"P2/512": 6092, "P2/2048": 1503,
}

// P1 returns the field of the fixed prime P1(n) for n trustees.
func P1(n int) (*Field, error) {
	bound, err := P1Bound(n)
	if err != nil {
		return nil, err
	}
	return fixed("P1", n, bound)
}

// P2 returns the field of the fixed prime P2(bits) for a modulus N of bits
// bits. Sizes other than 512 and 2048 are derived on first use (seconds to
// a minute) and cached.
func P2(bits int) (*Field, error) {
	bound, err := P2Bound(bits)
	if err != nil {
		return nil, err
	}
	return fixed("P2", bits, bound)
}

func fixed(name string, param int, bound *big.Int) (*Field, error) {
	key := fmt.Sprintf("%s/%d", name, param)
	if f, ok := cache.Load(key); ok {
		return f.(*Field), nil
	}
	var p *big.Int
	if delta, ok := derived[key]; ok {
		p = Start(name, param, bound.BitLen())
		p.Add(p, big.NewInt(delta))
	} else {
		p = Derive(name, param, bound.BitLen())
	}
	f := &Field{p: p}
	cache.Store(key, f)
	return f, nil
}

// Offset returns H = SHA-256(Tag ‖ 0 ‖ name ‖ 0 ‖ uint16(param)) as an
// integer: the published, nothing-up-my-sleeve offset of a fixed prime.
func Offset(name string, param int) *big.Int {
	h := sha256.New()
	h.Write([]byte(Tag))
	h.Write([]byte{0})
	h.Write([]byte(name))
	h.Write([]byte{0})
	h.Write(binary.BigEndian.AppendUint16(nil, uint16(param)))
	return new(big.Int).SetBytes(h.Sum(nil))
}

// Start returns 2^b + Offset(name, param), the point the prime is the
// first one above.
func Start(name string, param, b int) *big.Int {
	start := new(big.Int).Lsh(big.NewInt(1), uint(b))
	return start.Add(start, Offset(name, param))
}

// Derive returns the smallest prime above Start(name, param, b).
func Derive(name string, param, b int) *big.Int {
	return NextPrime(Start(name, param, b))
}
