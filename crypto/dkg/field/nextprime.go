package field

import "math/big"

// sieveLimit bounds the small primes NextPrime sieves with before testing;
// window is how many integers it sieves at once.
const (
	sieveLimit = 1 << 16
	window     = 1 << 14
)

var smallPrimes = OddPrimes(sieveLimit)

// NextPrime returns the smallest prime p > x. It sieves windows of
// candidates by the odd primes below 2^16, screens the survivors with
// Baillie–PSW (ProbablyPrime(0)) and confirms the first hit with 32 more
// Miller–Rabin rounds (ProbablyPrime(32)). Its answer does not depend on
// the sieving: a candidate is skipped only if a small prime divides it.
func NextPrime(x *big.Int) *big.Int {
	c := new(big.Int).Add(x, big.NewInt(1))
	if c.Cmp(big.NewInt(sieveLimit)) <= 0 {
		return nextPrimeSmall(c)
	}
	for {
		if p := searchWindow(c); p != nil {
			return p
		}
		c.Add(c, big.NewInt(window))
	}
}

// nextPrimeSmall is NextPrime for starts where sieving would strike out
// the small primes themselves.
func nextPrimeSmall(c *big.Int) *big.Int {
	for c = new(big.Int).Set(c); !c.ProbablyPrime(32); c.Add(c, big.NewInt(1)) {
	}
	return c
}

// searchWindow returns the first prime in [start, start+window), or nil.
// start exceeds every sieving prime.
func searchWindow(start *big.Int) *big.Int {
	var struck [window]bool
	r := new(big.Int)
	for _, l := range append([]int{2}, smallPrimes...) {
		lb := big.NewInt(int64(l))
		off := (l - int(r.Mod(start, lb).Int64())) % l
		for i := off; i < window; i += l {
			struck[i] = true
		}
	}
	c := new(big.Int)
	for i := range window {
		if struck[i] {
			continue
		}
		c.Add(start, big.NewInt(int64(i)))
		if c.ProbablyPrime(0) && c.ProbablyPrime(32) {
			return c
		}
	}
	return nil
}
