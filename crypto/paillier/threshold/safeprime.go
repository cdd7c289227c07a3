package threshold

import (
	"errors"
	"fmt"
	"io"
	"math/big"
	"sync"
)

// Safe-prime search.
//
// A candidate is q' (so that p = 2q'+1) with q' ≡ 5 (mod 6): q' odd, and
// q' ≢ 1 (mod 3) so that 3 ∤ p. From a random start q0 we scan the arithmetic
// progression q0 + 6j over a window of sieveWindow values. For every odd prime
// ℓ up to sieveBound we cross out the j with ℓ | q' or ℓ | 2q'+1
// (q' ≡ (ℓ-1)/2 mod ℓ). The survivors are tested cheapest first:
// a base-2 Fermat test on q', the same on p, then ProbablyPrime(20) (20
// Miller–Rabin rounds plus Baillie–PSW) on q'. Once q' is prime,
// Pocklington's criterion proves p prime: p-1 = 2q' with q' > √p,
// 2^(p-1) ≡ 1 (mod p) and gcd(2^2-1, p) = gcd(3, p) = 1.
// Scanning a progression from a random start favours safe primes after long
// gaps slightly; that is the standard incremental-search trade-off and does
// not help factoring N.

const (
	sieveBound  = 1 << 15 // odd primes below this are sieved out
	sieveWindow = 1 << 18 // candidates per random start (≈4 expected safe primes at 1024 bits)
	minSafeBits = 20      // q' > sieveBound, so the sieve never crosses out q' itself
)

var (
	sievePrimesOnce sync.Once
	sievePrimes     []uint32
)

func smallOddPrimes() []uint32 {
	sievePrimesOnce.Do(func() {
		composite := make([]bool, sieveBound)
		for i := 3; i < sieveBound; i += 2 {
			if composite[i] {
				continue
			}
			sievePrimes = append(sievePrimes, uint32(i))
			for j := i * i; j < sieveBound; j += 2 * i {
				composite[j] = true
			}
		}
	})
	return sievePrimes
}

// GenerateSafePrime returns a prime p of exactly bits bits, with its two top
// bits set, such that (p-1)/2 is also prime. Randomness comes from random
// (use crypto/rand.Reader).
func GenerateSafePrime(random io.Reader, bits int) (*big.Int, error) {
	if bits < minSafeBits {
		return nil, fmt.Errorf("threshold: safe prime of %d bits: need at least %d", bits, minSafeBits)
	}
	qBits := bits - 1
	buf := make([]byte, (qBits+7)/8)
	excess := uint(len(buf)*8 - qBits)
	six := big.NewInt(6)
	var (
		q0, qp, p, pm1, r, t = new(big.Int), new(big.Int), new(big.Int), new(big.Int), new(big.Int), new(big.Int)
	)
	dead := make([]uint64, sieveWindow/64)
	for {
		if _, err := io.ReadFull(random, buf); err != nil {
			return nil, fmt.Errorf("threshold: safe prime: reading randomness: %w", err)
		}
		buf[0] &= byte(0xff >> excess)
		// Top two bits of q' set, so p and hence N = pq have full length.
		q0.SetBytes(buf)
		q0.SetBit(q0, qBits-1, 1)
		q0.SetBit(q0, qBits-2, 1)
		// Round q0 up to ≡ 5 (mod 6).
		r.Mod(q0, six)
		q0.Add(q0, t.SetInt64((5-r.Int64()+6)%6))

		markComposites(q0, dead)
		for j := uint64(0); j < sieveWindow; j++ {
			if dead[j/64]&(1<<(j%64)) != 0 {
				continue
			}
			qp.Add(q0, t.SetUint64(6*j))
			if qp.BitLen() != qBits {
				break
			}
			// Fermat base 2 on q'.
			pm1.Sub(qp, one)
			if t.Exp(two, pm1, qp).Cmp(one) != 0 {
				continue
			}
			p.Lsh(qp, 1)
			p.Add(p, one)
			// Fermat base 2 on p = 2q'+1 (half of Pocklington).
			pm1.Sub(p, one)
			if t.Exp(two, pm1, p).Cmp(one) != 0 {
				continue
			}
			if !qp.ProbablyPrime(20) {
				continue
			}
			// q' prime, 2^(p-1) ≡ 1 (mod p), gcd(3, p) = 1 (q' ≡ 2 mod 3): p is prime.
			return new(big.Int).Set(p), nil
		}
	}
}

// markComposites sets bit j of dead when some odd prime 5 ≤ ℓ < sieveBound
// divides q' = q0 + 6j or 2q'+1, for j < 64·len(dead). q0 must exceed sieveBound.
func markComposites(q0 *big.Int, dead []uint64) {
	clear(dead)
	window := uint64(len(dead)) * 64
	r, t := new(big.Int), new(big.Int)
	for _, l := range smallOddPrimes() {
		lb := uint64(l)
		if lb == 3 {
			continue // q' ≡ 5 (mod 6) already excludes 3 | q' and 3 | p
		}
		rq := r.Mod(q0, t.SetUint64(lb)).Uint64()
		inv6 := modInverseSmall(6%lb, lb)
		// j with q0 + 6j ≡ 0 and with q0 + 6j ≡ (ℓ-1)/2 (mod ℓ).
		for _, target := range [2]uint64{0, (lb - 1) / 2} {
			for j := (target + lb - rq) % lb * inv6 % lb; j < window; j += lb {
				dead[j/64] |= 1 << (j % 64)
			}
		}
	}
}

// modInverseSmall returns a^-1 mod m for coprime a, m < 2^32.
func modInverseSmall(a, m uint64) uint64 {
	// Extended Euclid on signed values.
	t, newT := int64(0), int64(1)
	r, newR := int64(m), int64(a)
	for newR != 0 {
		q := r / newR
		t, newT = newT, t-q*newT
		r, newR = newR, r-q*newR
	}
	if t < 0 {
		t += int64(m)
	}
	return uint64(t)
}

// IsSafePrime reports whether p and (p-1)/2 are both (probable) primes, using
// 20 Miller–Rabin rounds plus Baillie–PSW on each. It is meant for primes that
// come from outside this package.
func IsSafePrime(p *big.Int) bool {
	if p == nil || p.Sign() <= 0 || p.Bit(0) == 0 || p.BitLen() < 3 {
		return false
	}
	q := new(big.Int).Rsh(p, 1)
	return q.ProbablyPrime(20) && p.ProbablyPrime(20)
}

// lockedReader serialises reads so that several goroutines can share one
// caller-supplied io.Reader.
type lockedReader struct {
	mu sync.Mutex
	r  io.Reader
}

func (l *lockedReader) Read(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Read(b)
}

// generateSafePrimePair generates two distinct safe primes of bits bits each,
// in parallel.
func generateSafePrimePair(random io.Reader, bits int) (p, q *big.Int, err error) {
	lr := &lockedReader{r: random}
	for {
		var wg sync.WaitGroup
		var errP, errQ error
		wg.Add(2)
		go func() { defer wg.Done(); p, errP = GenerateSafePrime(lr, bits) }()
		go func() { defer wg.Done(); q, errQ = GenerateSafePrime(lr, bits) }()
		wg.Wait()
		if err := errors.Join(errP, errQ); err != nil {
			return nil, nil, err
		}
		if p.Cmp(q) != 0 {
			return p, q, nil
		}
	}
}
