package zkp

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"math/big"
	"sync"

	"github.com/fabvote/fabvote/crypto/paillier"
	"github.com/fabvote/fabvote/crypto/paillier/arith"
)

// Errors of a two-phase proof.
var (
	// ErrPrecomputationUsed: a precomputation serves one proof. A second
	// proof from the same ω and z_k would let anyone solve for the real
	// branch, and so for the vote.
	ErrPrecomputationUsed = errors.New("zkp: validity precomputation already used (it serves one proof)")
	// ErrPrecomputationMismatch: the precomputation was made for another
	// key, challenge length or number of branches than the context's.
	ErrPrecomputationMismatch = errors.New("zkp: validity precomputation does not fit the context")
)

// ValidityPrecomputation is the part of a validity proof that depends
// neither on the ciphertext nor on which branch is real: the randomness and
// every exponentiation by N. It holds ω with a = ω^N for the real branch and,
// for every branch k, e_k < 2^t and z_k ∈ Z*_N with z_k^N for the case that
// k is simulated. Finish uses the values of the branches that end up
// simulated and discards the others. It is secret, and it serves one proof.
type ValidityPrecomputation struct {
	pk *paillier.PublicKey
	t  int
	p  int

	mu       sync.Mutex
	used     bool
	branches []branchDraw // by branch; undrawn (nil values) for a skipped one
	omega    *big.Int     // ω ∈ Z*_N
	omegaN   *big.Int     // ω^N mod N²: the real branch's commitment
}

// branchDraw is one branch's values should it be simulated.
type branchDraw struct {
	e, z, zN *big.Int // e_k < 2^t, z_k ∈ Z*_N and z_k^N mod N²
}

// PrecomputeValidity draws the randomness of a validity proof with
// branches branches under pk (challengeBits 0 means DefaultChallengeBits)
// and does its exponentiations by N, before the ciphertext and the choice
// are known. random must be a cryptographically secure source (nil means
// crypto/rand). Finish completes the proof.
func PrecomputeValidity(random io.Reader, pk *paillier.PublicKey, branches, challengeBits int) (*ValidityPrecomputation, error) {
	t, err := checkPrecomputeInput(pk, branches, challengeBits)
	if err != nil {
		return nil, err
	}
	return precomputeValidity(random, pk, branches, t, -1)
}

// PrecomputeValidityFor is PrecomputeValidity for a prover that already
// knows the real branch, choice: it draws and computes nothing for that
// branch, as ProveValidity does, and Finish refuses any other choice
// (ErrPrecomputationMismatch).
func PrecomputeValidityFor(random io.Reader, pk *paillier.PublicKey, branches, challengeBits, choice int) (*ValidityPrecomputation, error) {
	t, err := checkPrecomputeInput(pk, branches, challengeBits)
	if err != nil {
		return nil, err
	}
	if choice < 0 || choice >= branches {
		return nil, fmt.Errorf("%w: choice %d, want 0..%d", ErrInvalidWitness, choice, branches-1)
	}
	return precomputeValidity(random, pk, branches, t, choice)
}

// checkPrecomputeInput checks a precomputation's key, challenge length (0
// means DefaultChallengeBits) and branch count, and returns the length.
func checkPrecomputeInput(pk *paillier.PublicKey, branches, challengeBits int) (int, error) {
	if challengeBits == 0 {
		challengeBits = DefaultChallengeBits
	}
	if err := checkKeyAndBits(pk, challengeBits); err != nil {
		return 0, err
	}
	if branches < 1 || branches > MaxCandidates {
		return 0, fmt.Errorf("%w: %d branches, want 1..%d", ErrInvalidContext, branches, MaxCandidates)
	}
	return challengeBits, nil
}

// precomputeValidity draws, in this order, e_k then z_k for every branch k
// but skip (-1: none), then ω, and computes z_k^N and ω^N in parallel.
func precomputeValidity(random io.Reader, pk *paillier.PublicKey, p, t, skip int) (*ValidityPrecomputation, error) {
	if random == nil {
		random = rand.Reader
	}
	pc := &ValidityPrecomputation{pk: pk, t: t, p: p, branches: make([]branchDraw, p)}
	tMod := new(big.Int).Lsh(one, uint(t))
	for k := range pc.branches {
		if k == skip {
			continue
		}
		ek, err := rand.Int(random, tMod)
		if err != nil {
			return nil, fmt.Errorf("zkp: drawing challenge share: %w", err)
		}
		zk, err := pk.RandomNonce(random)
		if err != nil {
			return nil, err
		}
		pc.branches[k] = branchDraw{e: ek, z: zk}
	}
	omega, err := pk.RandomNonce(random)
	if err != nil {
		return nil, err
	}
	pc.omega = omega
	tasks := []func(){func() { pc.omegaN = arith.ExpSecret(omega, pk.N, pk.NSquared) }}
	for k := range pc.branches {
		if b := &pc.branches[k]; b.z != nil {
			tasks = append(tasks, func() { b.zN = arith.ExpSecret(b.z, pk.N, pk.NSquared) })
		}
	}
	runParallel(tasks)
	return pc, nil
}

// Finish completes the proof that c = (1+N)^(Messages[choice]) · r^N mod N²
// encrypts one of ctx.Messages, as ProveValidity does, from the
// precomputation. It consumes the precomputation once its inputs are
// checked: a second call fails with ErrPrecomputationUsed. A precomputation
// for another key, challenge length or number of branches fails with
// ErrPrecomputationMismatch.
func (pc *ValidityPrecomputation) Finish(ctx *Context, c *big.Int, choice int, r *big.Int) (*ValidityProof, error) {
	if err := checkProverInput(ctx, c, choice, r); err != nil {
		return nil, err
	}
	return pc.finish(ctx, c, choice, r)
}

// take checks that the precomputation fits ctx with real branch choice and
// hands out its values once.
func (pc *ValidityPrecomputation) take(ctx *Context, choice int) ([]branchDraw, *big.Int, *big.Int, error) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	switch {
	case pc.used:
		return nil, nil, nil, ErrPrecomputationUsed
	case pc.pk.N.Cmp(ctx.PublicKey.N) != 0:
		return nil, nil, nil, fmt.Errorf("%w: made for another public key", ErrPrecomputationMismatch)
	case pc.t != ctx.challengeBits():
		return nil, nil, nil, fmt.Errorf("%w: made for %d-bit challenges, the context has %d", ErrPrecomputationMismatch, pc.t, ctx.challengeBits())
	case pc.p != len(ctx.Messages):
		return nil, nil, nil, fmt.Errorf("%w: made for %d branches, the context has %d", ErrPrecomputationMismatch, pc.p, len(ctx.Messages))
	}
	for k, b := range pc.branches {
		if k != choice && b.z == nil {
			return nil, nil, nil, fmt.Errorf("%w: branch %d was not drawn", ErrPrecomputationMismatch, k)
		}
	}
	pc.used = true
	branches, omega, omegaN := pc.branches, pc.omega, pc.omegaN
	pc.branches, pc.omega, pc.omegaN = nil, nil, nil
	return branches, omega, omegaN, nil
}

// finish is Finish on checked input.
func (pc *ValidityPrecomputation) finish(ctx *Context, c *big.Int, choice int, r *big.Int) (*ValidityProof, error) {
	branches, omega, omegaN, err := pc.take(ctx, choice)
	if err != nil {
		return nil, err
	}
	pk := ctx.PublicKey
	p := len(ctx.Messages)
	cInv := new(big.Int).ModInverse(c, pk.NSquared)
	pr := &ValidityProof{A: make([]*big.Int, p), E: make([]*big.Int, p), Z: make([]*big.Int, p)}
	pr.A[choice] = omegaN
	eSum := new(big.Int)
	var tasks []func()
	for k, m := range ctx.Messages {
		if k == choice {
			continue
		}
		b := branches[k]
		pr.E[k], pr.Z[k] = b.e, b.z
		eSum.Add(eSum, b.e)
		tasks = append(tasks, func() { simulateBranch(pk, cInv, m, b.zN, pr, k) })
	}
	runParallel(tasks)
	// The real branch: e_j = e - Σ e_k mod 2^t and z_j = ω · r^(e_j) mod N.
	tMod := new(big.Int).Lsh(one, uint(pc.t))
	e := ctx.challenge(c, pr.A)
	ej := e.Sub(e, eSum)
	ej.Mod(ej, tMod)
	zj := arith.ExpSecret(r, ej, pk.N)
	zj.Mul(zj, omega)
	zj.Mod(zj, pk.N)
	canonicalZ(zj, pk.N)
	pr.E[choice], pr.Z[choice] = ej, zj
	return pr, nil
}
