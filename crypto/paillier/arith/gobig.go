//go:build !gmp || !cgo

package arith

import "math/big"

// Backend names the arithmetic backend compiled in.
const Backend = "math/big"

func exp(x, e, m *big.Int) *big.Int { return new(big.Int).Exp(x, e, m) }

func multiExp(bases, exps []*big.Int, m *big.Int, maxBits int) *big.Int {
	return multiExpGo(bases, exps, m, maxBits)
}

func mulAll(acc *big.Int, xs []*big.Int, m *big.Int) *big.Int {
	a := new(big.Int).Mod(acc, m)
	t, q := new(big.Int), new(big.Int)
	for _, x := range xs {
		t.Mul(a, x)
		q.QuoRem(t, m, a)
	}
	return a
}

func coprime(x, n *big.Int) bool {
	return new(big.Int).GCD(nil, nil, x, n).Cmp(big.NewInt(1)) == 0
}
