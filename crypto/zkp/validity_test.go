package zkp

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"math/big"
	"testing"

	"github.com/fabvote/fabvote/crypto/paillier"
)

func cloneProof(pr *ValidityProof) *ValidityProof {
	cp := func(xs []*big.Int) []*big.Int {
		out := make([]*big.Int, len(xs))
		for i, x := range xs {
			out[i] = new(big.Int).Set(x)
		}
		return out
	}
	return &ValidityProof{A: cp(pr.A), E: cp(pr.E), Z: cp(pr.Z)}
}

// verifiers are the three ways to check one proof; they must agree.
var verifiers = []struct {
	name string
	f    func(*Context, *big.Int, *ValidityProof) error
}{
	{"optimized", VerifyValidity},
	{"naive", VerifyValidityNaive},
	{"batch", func(ctx *Context, c *big.Int, pr *ValidityProof) error {
		return VerifyBatch(nil, []BatchItem{{Ctx: ctx, C: c, Proof: pr}})[0]
	}},
}

func TestProveVerifyEveryChoice(t *testing.T) {
	ctx := testContext(t, testKey(t, 2048), "alice")
	for choice := range ctx.Messages {
		c, pr := ballot(t, ctx, choice)
		for _, v := range verifiers {
			if err := v.f(ctx, c, pr); err != nil {
				t.Fatalf("choice %d, %s: %v", choice, v.name, err)
			}
		}
		b := pr.Marshal(ctx)
		if len(b) != ctx.ProofLen() || ctx.ProofLen() != 4*(512+16+256) {
			t.Fatalf("proof has %d bytes, ProofLen %d, want %d", len(b), ctx.ProofLen(), 4*(512+16+256))
		}
		back, err := ParseValidityProof(ctx, b)
		if err != nil {
			t.Fatalf("choice %d: parse: %v", choice, err)
		}
		if !bytes.Equal(back.Marshal(ctx), b) {
			t.Fatal("marshal/parse is not a round trip")
		}
	}
}

func TestChallengeBitsVariants(t *testing.T) {
	sk := testKey(t, 2048)
	for _, bits := range []int{80, 256} {
		ctx := testContext(t, sk, "bob")
		ctx.ChallengeBits = bits
		c, pr := ballot(t, ctx, 1)
		if err := VerifyValidity(ctx, c, pr); err != nil {
			t.Fatalf("t=%d: %v", bits, err)
		}
		if got := len(pr.Marshal(ctx)); got != 4*(512+bits/8+256) {
			t.Fatalf("t=%d: proof has %d bytes", bits, got)
		}
		other := *ctx
		other.ChallengeBits = 128
		if err := VerifyValidity(&other, c, pr); err == nil {
			t.Fatalf("t=%d proof verified under t=128", bits)
		}
	}
	for _, bits := range []int{-8, 72, 81, 264} {
		ctx := testContext(t, sk, "bob")
		ctx.ChallengeBits = bits
		if err := ctx.Check(); !errors.Is(err, ErrInvalidContext) {
			t.Fatalf("ChallengeBits %d: err = %v, want ErrInvalidContext", bits, err)
		}
	}
}

// TestRejectsBadInput is one case per class of bad input; every verifier must
// reject each with the expected error class.
func TestRejectsBadInput(t *testing.T) {
	sk := testKey(t, 2048)
	ctx := testContext(t, sk, "carol")
	pk := ctx.PublicKey
	p, _ := sk.Primes()
	c, pr := ballot(t, ctx, 2)
	tMod := new(big.Int).Lsh(big.NewInt(1), 128)

	// proveFor builds an honest-looking proof for a ciphertext of plaintext m.
	proveFor := func(m *big.Int) (*big.Int, *ValidityProof) {
		cm, r, err := pk.Encrypt(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		prm, err := ProveValidity(nil, ctx, cm, 0, r)
		if err != nil {
			t.Fatal(err)
		}
		return cm, prm
	}
	mP := new(big.Int).Lsh(big.NewInt(1), 20*4) // M^p with M = 2^20, p = 4

	type input struct {
		ctx *Context
		c   *big.Int
		pr  *ValidityProof
	}
	with := func(f func(*ValidityProof)) input {
		q := cloneProof(pr)
		f(q)
		return input{ctx, c, q}
	}
	otherCtx := func(f func(*Context)) *Context {
		cp := *ctx
		f(&cp)
		return &cp
	}
	key3072 := testKey(t, 3072)

	for _, tc := range []struct {
		name string
		in   input
		want error
	}{
		{"wrong challenge sum", with(func(q *ValidityProof) { q.E[0].Add(q.E[0], big.NewInt(1)).Mod(q.E[0], tMod) }), ErrInvalidProof},
		{"a_k swapped between branches", with(func(q *ValidityProof) { q.A[0], q.A[1] = q.A[1], q.A[0] }), ErrInvalidProof},
		{"e_k swapped between branches", with(func(q *ValidityProof) { q.E[0], q.E[3] = q.E[3], q.E[0] }), ErrInvalidProof},
		{"z not invertible", with(func(q *ValidityProof) { q.Z[1].Set(p) }), ErrInvalidProof},
		{"z = 0", with(func(q *ValidityProof) { q.Z[1].SetInt64(0) }), ErrInvalidProof},
		{"z = N", with(func(q *ValidityProof) { q.Z[1].Set(pk.N) }), ErrInvalidProof},
		{"z + N", with(func(q *ValidityProof) { q.Z[1].Add(q.Z[1], pk.N) }), ErrInvalidProof},
		{"z negated (N - z)", with(func(q *ValidityProof) { q.Z[1].Sub(pk.N, q.Z[1]) }), ErrInvalidProof},
		{"e ≥ 2^t", with(func(q *ValidityProof) { q.E[1].Add(q.E[1], tMod) }), ErrInvalidProof},
		{"e negative", with(func(q *ValidityProof) { q.E[1].Neg(q.E[1]) }), ErrInvalidProof},
		{"a = 0", with(func(q *ValidityProof) { q.A[0].SetInt64(0) }), ErrInvalidProof},
		{"a = N²", with(func(q *ValidityProof) { q.A[0].Set(pk.NSquared) }), ErrInvalidProof},
		{"a multiple of p", with(func(q *ValidityProof) { q.A[0].Mul(p, big.NewInt(12345)) }), ErrInvalidProof},
		{"a nil", with(func(q *ValidityProof) { q.A[0] = nil }), ErrInvalidProof},
		{"z multiplied by 2 (equation only)", with(func(q *ValidityProof) {
			q.Z[3].Lsh(q.Z[3], 1).Mod(q.Z[3], pk.N)
			canonicalZ(q.Z[3], pk.N)
		}), ErrInvalidProof},
		{"compensating z across branches", with(func(q *ValidityProof) {
			// w_0 = s^N, w_1 = s^-N: the product over branches is 1, so a
			// verifier using one weight per proof would accept.
			s := big.NewInt(3)
			q.Z[0].Mul(q.Z[0], s).Mod(q.Z[0], pk.N)
			q.Z[1].Mul(q.Z[1], new(big.Int).ModInverse(s, pk.N)).Mod(q.Z[1], pk.N)
			canonicalZ(q.Z[0], pk.N)
			canonicalZ(q.Z[1], pk.N)
		}), ErrInvalidProof},
		{"c = 0", input{ctx, big.NewInt(0), pr}, ErrInvalidCiphertext},
		{"c = N²", input{ctx, new(big.Int).Set(pk.NSquared), pr}, ErrInvalidCiphertext},
		{"c multiple of p", input{ctx, new(big.Int).Mul(p, big.NewInt(99)), pr}, ErrInvalidCiphertext},
		{"c nil", input{ctx, nil, pr}, ErrInvalidCiphertext},
		{"other ciphertext", input{ctx, pk.Add(c, c), pr}, ErrInvalidProof},
		{"proof for another voter key", input{otherCtx(func(x *Context) { x.VoterKeyHash = sha256.Sum256([]byte("mallory")) }), c, pr}, ErrInvalidProof},
		{"proof for another election", input{otherCtx(func(x *Context) { x.ElectionID = "election-other" }), c, pr}, ErrInvalidProof},
		{"proof for another manifest", input{otherCtx(func(x *Context) { x.ManifestDigest = sha256.Sum256([]byte("other manifest")) }), c, pr}, ErrInvalidProof},
		{"proof for another pseudonym", input{otherCtx(func(x *Context) { x.Pseudonym = sha256.Sum256([]byte("other voter")) }), c, pr}, ErrInvalidProof},
		{"wrong key", input{otherCtx(func(x *Context) { x.PublicKey = &key3072.PublicKey }), c, pr}, ErrInvalidProof},
		{"messages reordered", input{otherCtx(func(x *Context) {
			x.Messages = []*big.Int{ctx.Messages[1], ctx.Messages[0], ctx.Messages[2], ctx.Messages[3]}
		}), c, pr}, ErrInvalidProof},
		{"truncated proof (3 branches)", with(func(q *ValidityProof) { q.A, q.E, q.Z = q.A[:3], q.E[:3], q.Z[:3] }), ErrInvalidProof},
		{"extra branch", with(func(q *ValidityProof) {
			q.A, q.E, q.Z = append(q.A, q.A[0]), append(q.E, big.NewInt(0)), append(q.Z, q.Z[0])
		}), ErrInvalidProof},
		{"nil proof", input{ctx, c, nil}, ErrInvalidProof},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, v := range verifiers {
				if err := v.f(tc.in.ctx, tc.in.c, tc.in.pr); !errors.Is(err, tc.want) {
					t.Errorf("%s: err = %v, want %v", v.name, err, tc.want)
				}
			}
		})
	}

	// Ciphertexts of invalid votes with proofs made by the honest prover
	// (which is given a nonce that does not match any allowed message).
	for _, tc := range []struct {
		name string
		m    *big.Int
	}{
		{"c encrypts 2·M^0", big.NewInt(2)},
		{"c encrypts M^p", mP},
		{"c encrypts 0", big.NewInt(0)},
		{"c encrypts M^0 + M^1", new(big.Int).Add(ctx.Messages[0], ctx.Messages[1])},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cm, prm := proveFor(tc.m)
			for _, v := range verifiers {
				if err := v.f(ctx, cm, prm); !errors.Is(err, ErrInvalidProof) {
					t.Errorf("%s: err = %v, want ErrInvalidProof", v.name, err)
				}
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	sk := testKey(t, 2048)
	ctx := testContext(t, sk, "dave")
	c, pr := ballot(t, ctx, 0)
	b := pr.Marshal(ctx)
	aLen, eLen := ctx.PublicKey.CiphertextLen(), 16
	p, _ := sk.Primes()
	set := func(off, n int, x *big.Int) []byte {
		out := append([]byte(nil), b...)
		x.FillBytes(out[off : off+n])
		return out
	}
	zOff := aLen + eLen
	nLen := ctx.PublicKey.ModulusLen()
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"truncated by one byte", b[:len(b)-1]},
		{"truncated by one branch", b[:len(b)-ctx.branchLen()]},
		{"extra byte", append(append([]byte(nil), b...), 0)},
		{"extra branch", append(append([]byte(nil), b...), b[:ctx.branchLen()]...)},
		{"a = 0", set(0, aLen, big.NewInt(0))},
		{"a multiple of p", set(0, aLen, p)},
		{"z = 0", set(zOff, nLen, big.NewInt(0))},
		{"z multiple of p", set(zOff, nLen, p)},
		{"z above N/2", set(zOff, nLen, new(big.Int).Sub(ctx.PublicKey.N, big.NewInt(2)))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ParseValidityProof(ctx, tc.b); !errors.Is(err, ErrInvalidProof) {
				t.Fatalf("err = %v, want ErrInvalidProof", err)
			}
		})
	}
	if err := VerifyValidity(ctx, c, pr); err != nil {
		t.Fatalf("original proof no longer verifies: %v", err)
	}
}

func TestContextCheck(t *testing.T) {
	sk := testKey(t, 2048)
	base := testContext(t, sk, "erin")
	for _, tc := range []struct {
		name string
		f    func(*Context)
	}{
		{"nil key", func(c *Context) { c.PublicKey = nil }},
		{"NSquared wrong", func(c *Context) {
			c.PublicKey = &paillier.PublicKey{N: sk.N, NSquared: new(big.Int).Add(sk.NSquared, big.NewInt(1))}
		}},
		{"no message", func(c *Context) { c.Messages = nil }},
		{"too many messages", func(c *Context) { c.Messages = make([]*big.Int, MaxCandidates+1) }},
		{"duplicate message", func(c *Context) { c.Messages = []*big.Int{c.Messages[0], c.Messages[0]} }},
		{"message ≥ N", func(c *Context) { c.Messages = []*big.Int{c.Messages[0], sk.N} }},
		{"nil message", func(c *Context) { c.Messages = []*big.Int{c.Messages[0], nil} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := *base
			tc.f(&ctx)
			if err := ctx.Check(); !errors.Is(err, ErrInvalidContext) {
				t.Fatalf("err = %v, want ErrInvalidContext", err)
			}
		})
	}
	if _, err := ProveValidity(nil, base, big.NewInt(1), 4, big.NewInt(1)); !errors.Is(err, ErrInvalidWitness) {
		t.Fatalf("choice out of range: err = %v", err)
	}
	if _, err := ProveValidity(nil, base, big.NewInt(1), 0, big.NewInt(0)); !errors.Is(err, ErrInvalidWitness) {
		t.Fatalf("nonce 0: err = %v", err)
	}
}

// TestOneMessage: with one message the proof shows that c encrypts exactly
// it, and a ciphertext of anything else has no proof that verifies.
func TestOneMessage(t *testing.T) {
	ctx := testContext(t, testKey(t, 2048), "gina")
	ctx.Messages = []*big.Int{big.NewInt(3)}
	c, r, err := ctx.PublicKey.Encrypt(nil, big.NewInt(3))
	if err != nil {
		t.Fatal(err)
	}
	pr, err := ProveValidity(nil, ctx, c, 0, r)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyValidity(ctx, c, pr); err != nil {
		t.Fatalf("proof of the one message: %v", err)
	}
	if err := VerifyValidityNaive(ctx, c, pr); err != nil {
		t.Fatalf("naive check of the one message: %v", err)
	}
	other, r4, err := ctx.PublicKey.Encrypt(nil, big.NewInt(4))
	if err != nil {
		t.Fatal(err)
	}
	forged, err := ProveValidity(nil, ctx, other, 0, r4) // the witness does not match
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyValidity(ctx, other, forged); !errors.Is(err, ErrInvalidProof) {
		t.Fatalf("proof for a ciphertext of 4 under message 3: err = %v, want ErrInvalidProof", err)
	}
}

// TestSignDoesNotRevealChoice: after canonicalisation z_k^N = ±a_k·u_k^e_k.
// The sign must be a coin flip in simulated branches too, or anyone could spot
// the real branch. Over 12 proofs with 3 simulated branches each, both signs
// appear in simulated branches except with probability 2·2^-36.
func TestSignDoesNotRevealChoice(t *testing.T) {
	// z_k^N = ±a_k·u_k^e_k: the sign must be a fair coin in the real branch
	// (choice 0) as well as in the simulated ones, or it would point at the vote.
	ctx := testContext(t, testKey(t, 2048), "frank")
	pk := ctx.PublicKey
	seen := map[bool]map[bool]bool{true: {}, false: {}} // real branch? → signs seen
	for i := 0; i < 20; i++ {
		c, pr := ballot(t, ctx, 0)
		for k := 0; k < len(ctx.Messages); k++ {
			lhs := new(big.Int).Exp(pr.Z[k], pk.N, pk.NSquared)
			rhs := shiftedCiphertext(pk, c, ctx.Messages[k])
			rhs.Exp(rhs, pr.E[k], pk.NSquared).Mul(rhs, pr.A[k]).Mod(rhs, pk.NSquared)
			switch {
			case lhs.Cmp(rhs) == 0:
				seen[k == 0][true] = true
			case new(big.Int).Add(lhs, rhs).Cmp(pk.NSquared) == 0:
				seen[k == 0][false] = true
			default:
				t.Fatalf("branch %d: z^N is neither a·u^e nor its negation", k)
			}
		}
	}
	for real, signs := range seen {
		if !signs[true] || !signs[false] {
			t.Fatalf("real branch %v: only ever had sign %v in 20 ballots", real, signs)
		}
	}
}
