package zkp

import (
	"errors"
	"math/big"
	"sync"
	"testing"
)

// precomputed draws a precomputation for ctx's key, branches and t.
func precomputed(t *testing.T, ctx *Context) *ValidityPrecomputation {
	t.Helper()
	pc, err := PrecomputeValidity(nil, ctx.PublicKey, len(ctx.Messages), ctx.ChallengeBits)
	if err != nil {
		t.Fatal(err)
	}
	return pc
}

// encrypted encrypts Messages[choice] under ctx's key.
func encrypted(t *testing.T, ctx *Context, choice int) (c, r *big.Int) {
	t.Helper()
	c, r, err := ctx.PublicKey.Encrypt(nil, ctx.Messages[choice])
	if err != nil {
		t.Fatal(err)
	}
	return c, r
}

func TestPrecomputeFinishVerifies(t *testing.T) {
	ctx := testContext(t, testKey(t, 2048), "alice")
	for choice := range ctx.Messages {
		c, r := encrypted(t, ctx, choice)
		pr, err := precomputed(t, ctx).Finish(ctx, c, choice, r)
		if err != nil {
			t.Fatalf("choice %d: %v", choice, err)
		}
		for _, v := range verifiers {
			if err := v.f(ctx, c, pr); err != nil {
				t.Fatalf("choice %d, %s: %v", choice, v.name, err)
			}
		}
	}
}

// A precomputation with the real branch's values drawn too (as the booth
// makes it, not knowing the choice) gives a proof that verifies whichever
// branch is real; a wrong witness gives one that does not.
func TestFinishWrongWitnessDoesNotVerify(t *testing.T) {
	ctx := testContext(t, testKey(t, 2048), "bob")
	c, r := encrypted(t, ctx, 1)
	pr, err := precomputed(t, ctx).Finish(ctx, c, 2, r)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyValidityNaive(ctx, c, pr); !errors.Is(err, ErrInvalidProof) {
		t.Fatalf("proof for the wrong choice: got %v, want ErrInvalidProof", err)
	}
}

func TestFinishRefusesReuse(t *testing.T) {
	ctx := testContext(t, testKey(t, 2048), "carol")
	pc := precomputed(t, ctx)
	c, r := encrypted(t, ctx, 0)
	if _, err := pc.Finish(ctx, c, 0, r); err != nil {
		t.Fatal(err)
	}
	c2, r2 := encrypted(t, ctx, 3)
	if _, err := pc.Finish(ctx, c2, 3, r2); !errors.Is(err, ErrPrecomputationUsed) {
		t.Fatalf("second Finish: got %v, want ErrPrecomputationUsed", err)
	}
}

// Input that Finish refuses before using the precomputation leaves it
// usable: the refusal reveals nothing, so the booth may retry.
func TestFinishBadInputKeepsPrecomputation(t *testing.T) {
	ctx := testContext(t, testKey(t, 2048), "dave")
	pc := precomputed(t, ctx)
	c, r := encrypted(t, ctx, 2)
	if _, err := pc.Finish(ctx, c, len(ctx.Messages), r); !errors.Is(err, ErrInvalidWitness) {
		t.Fatalf("choice out of range: got %v, want ErrInvalidWitness", err)
	}
	pr, err := pc.Finish(ctx, c, 2, r)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyValidity(ctx, c, pr); err != nil {
		t.Fatal(err)
	}
}

func TestFinishRefusesMismatch(t *testing.T) {
	sk := testKey(t, 2048)
	ctx := testContext(t, sk, "erin")
	other := testContext(t, testKey(t, 3072), "erin")
	c, r := encrypted(t, ctx, 0)
	for _, tc := range []struct {
		name        string
		pk          *Context
		branches, t int
	}{
		{"fewer branches", ctx, len(ctx.Messages) - 1, 0},
		{"more branches", ctx, len(ctx.Messages) + 1, 0},
		{"other challenge length", ctx, len(ctx.Messages), 80},
		{"other key", other, len(ctx.Messages), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pc, err := PrecomputeValidity(nil, tc.pk.PublicKey, tc.branches, tc.t)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := pc.Finish(ctx, c, 0, r); !errors.Is(err, ErrPrecomputationMismatch) {
				t.Fatalf("got %v, want ErrPrecomputationMismatch", err)
			}
		})
	}
}

func TestPrecomputeRejectsBadParameters(t *testing.T) {
	pk := &testKey(t, 2048).PublicKey
	for _, tc := range []struct {
		name        string
		branches, t int
	}{
		{"no branch", 0, 0},
		{"too many branches", MaxCandidates + 1, 0},
		{"challenge length not a multiple of 8", 4, 81},
		{"challenge length too short", 4, 72},
		{"challenge length too long", 4, 264},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := PrecomputeValidity(nil, pk, tc.branches, tc.t); !errors.Is(err, ErrInvalidContext) {
				t.Fatalf("got %v, want ErrInvalidContext", err)
			}
		})
	}
	t.Run("no key", func(t *testing.T) {
		if _, err := PrecomputeValidity(nil, nil, 4, 0); !errors.Is(err, ErrInvalidContext) {
			t.Fatalf("got %v, want ErrInvalidContext", err)
		}
	})
}

// Concurrent Finish calls on one precomputation: exactly one proof.
func TestFinishConcurrentOnce(t *testing.T) {
	ctx := testContext(t, testKey(t, 2048), "frank")
	pc := precomputed(t, ctx)
	c, r := encrypted(t, ctx, 1)
	const callers = 4
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = pc.Finish(ctx, c, 1, r)
		}()
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, ErrPrecomputationUsed):
			t.Errorf("unexpected error: %v", err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d of %d concurrent Finish calls made a proof, want 1", ok, callers)
	}
}

// A precomputation for a known choice finishes a proof for that choice
// that verifies, refuses another choice, and is refused for a choice out
// of range.
func TestPrecomputeValidityFor(t *testing.T) {
	ctx := testContext(t, testKey(t, 2048), "carol")
	c, r := encrypted(t, ctx, 2)
	pc, err := PrecomputeValidityFor(nil, ctx.PublicKey, len(ctx.Messages), ctx.ChallengeBits, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pc.Finish(ctx, c, 1, r); !errors.Is(err, ErrPrecomputationMismatch) {
		t.Fatalf("another choice: %v, want ErrPrecomputationMismatch", err)
	}
	pr, err := pc.Finish(ctx, c, 2, r)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyValidityNaive(ctx, c, pr); err != nil {
		t.Fatalf("proof for the known choice: %v", err)
	}
	for _, bad := range []int{-1, len(ctx.Messages)} {
		if _, err := PrecomputeValidityFor(nil, ctx.PublicKey, len(ctx.Messages), ctx.ChallengeBits, bad); !errors.Is(err, ErrInvalidWitness) {
			t.Errorf("choice %d: %v, want ErrInvalidWitness", bad, err)
		}
	}
}
