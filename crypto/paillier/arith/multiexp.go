package arith

import (
	"math/big"
)

// The pure-Go multi-exponentiation: Straus' interleaved fixed windows (few
// bases) or Pippenger's bucket method (many bases), chosen by an
// operation-count estimate. Both share one chain of squarings over all bases.

// modArith multiplies modulo m, reusing scratch space.
type modArith struct {
	m    *big.Int
	t, q *big.Int
}

func newModArith(m *big.Int) *modArith {
	return &modArith{m: m, t: new(big.Int), q: new(big.Int)}
}

// mul sets z = x·y mod m and returns z; z may alias x or y.
func (a *modArith) mul(z, x, y *big.Int) *big.Int {
	a.t.Mul(x, y)
	a.q.QuoRem(a.t, a.m, z)
	return z
}

// multiExpGo computes ∏ bases[i]^exps[i] mod m for checked inputs whose
// longest exponent has maxBits > 0 bits.
func multiExpGo(bases, exps []*big.Int, m *big.Int, maxBits int) *big.Int {
	n := len(bases)
	sw, sCost := strausCost(n, maxBits)
	pw, pCost := pippengerCost(n, maxBits)
	if sCost <= pCost {
		return straus(bases, exps, m, maxBits, sw)
	}
	return pippenger(bases, exps, m, maxBits, pw)
}

// strausCost estimates multiplications for window widths 1..6 and returns the best.
func strausCost(n, bits int) (int, int) {
	best, bestCost := 1, -1
	for w := 1; w <= 6; w++ {
		windows := (bits + w - 1) / w
		cost := bits + n*windows + n*((1<<w)-2)
		if bestCost < 0 || cost < bestCost {
			best, bestCost = w, cost
		}
	}
	return best, bestCost
}

// pippengerCost estimates multiplications for bucket widths 1..12 and returns the best.
func pippengerCost(n, bits int) (int, int) {
	best, bestCost := 1, -1
	for c := 1; c <= 12; c++ {
		windows := (bits + c - 1) / c
		cost := bits + windows*(n+2*(1<<c))
		if bestCost < 0 || cost < bestCost {
			best, bestCost = c, cost
		}
	}
	return best, bestCost
}

// window returns bits [lo, lo+w) of e.
func window(e *big.Int, lo, w int) uint {
	var d uint
	for b := w - 1; b >= 0; b-- {
		d = d<<1 | e.Bit(lo+b)
	}
	return d
}

// straus: per base, a table of b^0..b^(2^w - 1); one shared chain of squarings.
func straus(bases, exps []*big.Int, m *big.Int, bits, w int) *big.Int {
	a := newModArith(m)
	size := 1 << w
	tables := make([][]*big.Int, len(bases))
	for i, b := range bases {
		t := make([]*big.Int, size)
		t[1] = new(big.Int).Set(b)
		for d := 2; d < size; d++ {
			t[d] = a.mul(new(big.Int), t[d-1], b)
		}
		tables[i] = t
	}
	acc := big.NewInt(1)
	started := false
	windows := (bits + w - 1) / w
	for j := windows - 1; j >= 0; j-- {
		if started {
			for s := 0; s < w; s++ {
				a.mul(acc, acc, acc)
			}
		}
		for i, e := range exps {
			if d := window(e, j*w, w); d != 0 {
				a.mul(acc, acc, tables[i][d])
				started = true
			}
		}
	}
	return acc.Mod(acc, m)
}

// pippenger: for each c-bit window, bases are dropped into buckets by digit and
// ∏ bucket_d^d is formed with two running products.
func pippenger(bases, exps []*big.Int, m *big.Int, bits, c int) *big.Int {
	a := newModArith(m)
	nb := 1 << c
	buckets := make([]*big.Int, nb)
	for d := range buckets {
		buckets[d] = new(big.Int)
	}
	used := make([]bool, nb)
	acc := big.NewInt(1)
	started := false
	running, sum := new(big.Int), new(big.Int)
	windows := (bits + c - 1) / c
	for j := windows - 1; j >= 0; j-- {
		if started {
			for s := 0; s < c; s++ {
				a.mul(acc, acc, acc)
			}
		}
		for d := range used {
			used[d] = false
		}
		for i, e := range exps {
			d := window(e, j*c, c)
			if d == 0 {
				continue
			}
			if used[d] {
				a.mul(buckets[d], buckets[d], bases[i])
			} else {
				buckets[d].Set(bases[i])
				used[d] = true
			}
		}
		// sum = ∏_d bucket_d^d = ∏_d running_d with running_d = ∏_{d' ≥ d} bucket_d'.
		haveRunning, haveSum := false, false
		for d := nb - 1; d >= 1; d-- {
			if used[d] {
				if haveRunning {
					a.mul(running, running, buckets[d])
				} else {
					running.Set(buckets[d])
					haveRunning = true
				}
			}
			if haveRunning {
				if haveSum {
					a.mul(sum, sum, running)
				} else {
					sum.Set(running)
					haveSum = true
				}
			}
		}
		if haveSum {
			a.mul(acc, acc, sum)
			started = true
		}
	}
	return acc.Mod(acc, m)
}
