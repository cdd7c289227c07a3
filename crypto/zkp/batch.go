package zkp

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"math/big"
	"runtime"
	"sync"

	"github.com/fabvote/fabvote/crypto/paillier"
	"github.com/fabvote/fabvote/crypto/paillier/arith"
)

// RhoBits is λ, the length of the verifier's random weights. A proof that
// fails its equations passes the combined check with probability at most
// 2^-λ (package documentation).
const RhoBits = 64

// BatchItem is one ballot for VerifyBatch.
type BatchItem struct {
	Ctx   *Context
	C     *big.Int
	Proof *ValidityProof
}

// checked is an item that passed the static checks.
type checked struct {
	ctx *Context
	c   *big.Int
	pr  *ValidityProof
}

// VerifyBatch verifies many validity proofs at once and returns one error per
// item, nil where the proof is valid. Items are grouped by modulus N; each
// group costs one exponentiation by N plus multi-exponentiations with
// RhoBits-bit exponents. If a group's combined check fails, it is split in
// halves and each half re-checked with fresh weights, down to single ballots,
// so exactly the invalid items get an error (one forged ballot among 64 costs
// about 2·log2(64) = 12 combined checks instead of 64 single ones).
// random supplies the weights (nil means crypto/rand). It must be
// unpredictable to whoever made the proofs: never derive it from the
// transaction, the ballot or anything else a voter can influence or
// foresee, because a prover who knows the weights can forge a proof that
// passes the combined check. Valid proofs pass whatever the weights, so
// peers using independent randomness reach the same verdicts.
func VerifyBatch(random io.Reader, items []BatchItem) []error {
	if random == nil {
		random = rand.Reader
	}
	errs := make([]error, len(items))
	groups := map[string][]int{}
	var order []string
	for i, it := range items {
		if err := checkStaticBounds(it.Ctx, it.C, it.Proof); err != nil {
			errs[i] = fmt.Errorf("batch item %d: %w", i, err)
			continue
		}
		key := string(it.Ctx.PublicKey.N.Bytes())
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], i)
	}
	for _, key := range order {
		idx := passStatic(items, groups[key], errs)
		if len(idx) > 0 {
			verifyGroup(random, items, idx, errs)
		}
	}
	return errs
}

// passStatic finishes checkStatic for items[idx] (same modulus, bounds
// checked), in checkStatic's order so that each item gets the error that
// VerifyValidity would give it: the gcd conditions with one gcd for the whole
// group (and one per item only if that fails), then the challenge sums. It
// records the failures and returns the items that pass.
func passStatic(items []BatchItem, idx []int, errs []error) []int {
	var vals []*big.Int
	for _, i := range idx {
		vals = append(vals, unitValues(items[i].C, items[i].Proof)...)
	}
	unitsOK := allCoprime(items[idx[0]].Ctx.PublicKey, vals)
	var pass []int
	for _, i := range idx {
		it := items[i]
		var err error
		if !unitsOK {
			err = checkUnits(it.Ctx.PublicKey, it.C, it.Proof)
		}
		if err == nil {
			err = checkChallengeSum(it.Ctx, it.C, it.Proof)
		}
		if err != nil {
			errs[i] = fmt.Errorf("batch item %d: %w", i, err)
			continue
		}
		pass = append(pass, i)
	}
	return pass
}

// verifyGroup checks items[idx] (same modulus, static checks passed) and
// records an error for each invalid one, bisecting on failure.
func verifyGroup(random io.Reader, items []BatchItem, idx []int, errs []error) {
	cs := make([]checked, len(idx))
	for j, i := range idx {
		cs[j] = checked{ctx: items[i].Ctx, c: items[i].C, pr: items[i].Proof}
	}
	ok, err := combinedCheck(random, items[idx[0]].Ctx.PublicKey, cs)
	switch {
	case err != nil:
		for _, i := range idx {
			errs[i] = fmt.Errorf("batch item %d: %w", i, err)
		}
	case ok:
	case len(idx) == 1:
		errs[idx[0]] = fmt.Errorf("batch item %d: %w: verification equation fails", idx[0], ErrInvalidProof)
	case len(idx) <= 4:
		// Halving a small group costs as many exponentiations by N as
		// checking its ballots one by one, and more if several are bad.
		for _, i := range idx {
			verifyGroup(random, items, []int{i}, errs)
		}
	default:
		half := len(idx) / 2
		verifyGroup(random, items, idx[:half], errs)
		verifyGroup(random, items, idx[half:], errs)
	}
}

// combinedCheck tests, for items sharing the modulus of pk, with fresh random
// weights ρ_ik < 2^λ:
//
//	((∏ z_ik^ρ_ik mod N)^N)² ≡ (∏ a_ik^ρ_ik · ∏ c_i^(Σ_k e_ik ρ_ik) · (1 - N·Σ M_k e_ik ρ_ik))²  (mod N²)
//
// which is ∏ w_ik^(2ρ_ik) = 1 for w_ik = z_ik^N / (a_ik u_ik^e_ik), because
// u_ik^e = c_i^e · (1+N)^(-M_k e) and (1+N)^x ≡ 1 + xN (mod N²).
func combinedCheck(random io.Reader, pk *paillier.PublicKey, items []checked) (bool, error) {
	n := 0
	for _, it := range items {
		n += len(it.pr.A)
	}
	zBases, zExps := make([]*big.Int, 0, n), make([]*big.Int, 0, n)
	aBases, aExps := make([]*big.Int, 0, n), make([]*big.Int, 0, n)
	cBases, cExps := make([]*big.Int, 0, len(items)), make([]*big.Int, 0, len(items))
	s := new(big.Int)
	buf := make([]byte, 8*n)
	if _, err := io.ReadFull(random, buf); err != nil {
		return false, fmt.Errorf("zkp: drawing verifier weights: %w", err)
	}
	tmp := new(big.Int)
	for _, it := range items {
		eSum := new(big.Int)
		for k := range it.pr.A {
			rho := new(big.Int).SetUint64(binary.BigEndian.Uint64(buf[:8]))
			buf = buf[8:]
			zBases, zExps = append(zBases, it.pr.Z[k]), append(zExps, rho)
			aBases, aExps = append(aBases, it.pr.A[k]), append(aExps, rho)
			er := new(big.Int).Mul(it.pr.E[k], rho)
			eSum.Add(eSum, er)
			s.Add(s, tmp.Mul(er, it.ctx.Messages[k]))
		}
		cBases, cExps = append(cBases, it.c), append(cExps, eSum)
	}
	// The exponentiation by N is one long serial chain; the multi-exponentiations
	// are split by exponent bits so that all cores share the work.
	var lhs *big.Int
	tasks := []func(){func() {
		lhs = arith.Exp(arith.MultiExp(zBases, zExps, pk.N), pk.N, pk.NSquared)
		lhs.Mul(lhs, lhs).Mod(lhs, pk.NSquared)
	}}
	var parts []*big.Int
	for _, me := range []struct{ bases, exps []*big.Int }{{aBases, aExps}, {cBases, cExps}} {
		for _, sl := range bitSlices(me.exps, runtime.GOMAXPROCS(0)) {
			idx := len(parts)
			parts = append(parts, nil)
			tasks = append(tasks, func() {
				parts[idx] = multiExpSlice(me.bases, me.exps, sl, pk.NSquared)
			})
		}
	}
	runParallel(tasks)
	rhs := big.NewInt(1)
	for _, part := range parts {
		rhs.Mul(rhs, part).Mod(rhs, pk.NSquared)
	}
	// (1+N)^(-s) = 1 - (s mod N)·N (mod N²)
	s.Mod(s, pk.N)
	s.Mul(s, pk.N)
	s.Sub(pk.NSquared, s)
	s.Add(s, one)
	rhs.Mul(rhs, s).Mod(rhs, pk.NSquared)
	rhs.Mul(rhs, rhs).Mod(rhs, pk.NSquared)
	return lhs.Cmp(rhs) == 0, nil
}

// minSliceBits is the shortest exponent slice worth its own task: below a
// Pippenger window's width, a slice pays the bucket sums without sharing them.
const minSliceBits = 12

// minSplitBases is the fewest bases worth splitting: a single proof's few
// bases cost less than the squarings that recombine the slices.
const minSplitBases = 16

// bitSlice is the exponent bits [lo, hi) of a multi-exponentiation; top
// marks the slice that holds every exponent's highest bit.
type bitSlice struct {
	lo, hi int
	top    bool
}

// bitSlices splits the exponents' bits into at most workers contiguous
// slices. ∏ b_i^(e_i) = ∏_j (∏ b_i^(e_i[lo_j, hi_j)))^(2^lo_j), and Pippenger's
// cost is linear in the bits, so splitting by bits costs the same as one
// multi-exponentiation plus lo_j squarings per slice; splitting by bases
// instead would repeat the bucket sums for every part.
func bitSlices(exps []*big.Int, workers int) []bitSlice {
	bits := 0
	for _, e := range exps {
		bits = max(bits, e.BitLen())
	}
	n := min(workers, bits/minSliceBits)
	if n < 1 || len(exps) < minSplitBases {
		n = 1
	}
	out := make([]bitSlice, n)
	for j := range out {
		out[j] = bitSlice{lo: j * bits / n, hi: (j + 1) * bits / n, top: j == n-1}
	}
	return out
}

// multiExpSlice returns ∏ bases[i]^(exps[i] bits [lo, hi) · 2^lo) mod m.
// A slice that is the whole exponent (lo = 0, top) uses exps as they are.
func multiExpSlice(bases, exps []*big.Int, sl bitSlice, m *big.Int) *big.Int {
	part := exps
	if sl.lo > 0 || !sl.top {
		mask := new(big.Int).Sub(new(big.Int).Lsh(one, uint(sl.hi-sl.lo)), one)
		part = make([]*big.Int, len(exps))
		for i, e := range exps {
			part[i] = new(big.Int).Rsh(e, uint(sl.lo))
			if !sl.top {
				part[i].And(part[i], mask)
			}
		}
	}
	r := arith.MultiExp(bases, part, m)
	if sl.lo == 0 {
		return r
	}
	return arith.Exp(r, new(big.Int).Lsh(one, uint(sl.lo)), m)
}

// runParallel runs the tasks on at most GOMAXPROCS goroutines, in order of
// submission (the first task should be the longest).
func runParallel(tasks []func()) {
	workers := runtime.GOMAXPROCS(0)
	if workers > len(tasks) {
		workers = len(tasks)
	}
	if workers <= 1 {
		for _, t := range tasks {
			t()
		}
		return
	}
	next := make(chan func(), len(tasks))
	for _, t := range tasks {
		next <- t
	}
	close(next)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range next {
				t()
			}
		}()
	}
	wg.Wait()
}
