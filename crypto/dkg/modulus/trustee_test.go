package modulus

import (
	"crypto/rand"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/crypto/dkg/biprime"
	"github.com/fabvote/fabvote/crypto/dkg/internal/dkgtest"
)

// fixture is three trustees given a 512-bit Blum modulus made from the
// committed test primes, split as the sieve would.
type fixture struct {
	params   *Params
	n        *big.Int
	ps, qs   []*big.Int
	trustees []*Trustee
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	s := dkgtest.PrimeSet(256)
	params, err := NewParams(3, 512, ceremony)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{params: params, n: new(big.Int).Mul(s.Blum[0], s.Blum[1])}
	f.ps, f.qs = dkgtest.Split(rand.Reader, s.Blum[0], 3), dkgtest.Split(rand.Reader, s.Blum[1], 3)
	for id := 1; id <= 3; id++ {
		tr, err := NewTrustee(params, id)
		if err != nil {
			t.Fatal(err)
		}
		f.trustees = append(f.trustees, tr)
	}
	return f
}

// start runs Start for every trustee and returns the round-1 values.
func (f *fixture) start(t *testing.T) []Values {
	t.Helper()
	out := make([]Values, len(f.trustees))
	for i, tr := range f.trustees {
		var err error
		if out[i], err = tr.Start(f.n, f.ps[i], f.qs[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// proceed runs Continue for every trustee and returns the last rounds' values.
func (f *fixture) proceed(t *testing.T, first []Values) []Values {
	t.Helper()
	out := make([]Values, len(f.trustees))
	for i, tr := range f.trustees {
		var err error
		if out[i], err = tr.Continue(first); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestTrusteeAcceptsABlumModulus(t *testing.T) {
	f := newFixture(t)
	rest := f.proceed(t, f.start(t))
	for i, tr := range f.trustees {
		if len(rest[i].G) != biprime.Rounds-1 || rest[i].First != 2 {
			t.Fatalf("trustee %d sent rounds %d..%d", i+1, rest[i].First, rest[i].First+len(rest[i].G)-1)
		}
		if err := tr.Finish(rest); err != nil {
			t.Fatal(err)
		}
		sh, err := tr.Share()
		if err != nil || sh.P.Cmp(f.ps[i]) != 0 || sh.Q.Cmp(f.qs[i]) != 0 || tr.Modulus().Cmp(f.n) != 0 {
			t.Fatalf("trustee %d does not hold its shares of the accepted N (%v)", i+1, err)
		}
		if _, err := tr.Start(f.n, f.ps[i], f.qs[i]); err == nil || !strings.Contains(err.Error(), "accepted") {
			t.Fatalf("trustee %d took a candidate after acceptance: %v", i+1, err)
		}
	}
}

// TestTrusteeDropsAFailedCandidate makes round 1, then a later round, fail
// with a wrong value, and checks that every trustee rejects the candidate,
// wipes its shares and can take the next one.
func TestTrusteeDropsAFailedCandidate(t *testing.T) {
	spoil := func(v Values, k int, n *big.Int) []*big.Int {
		g := append([]*big.Int(nil), v.G...)
		g[k] = new(big.Int).Mod(new(big.Int).Lsh(g[k], 1), n)
		return g
	}
	for _, tc := range []struct {
		name  string
		round int
	}{{"round 1", 1}, {"round 2", 2}, {"last round", biprime.Rounds}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			first := f.start(t)
			held := make([][]*big.Int, len(f.trustees))
			for i, tr := range f.trustees {
				held[i] = []*big.Int{tr.p, tr.q, tr.m}
			}
			if tc.round == 1 {
				first[2].G = spoil(first[2], 0, f.n)
				for i, tr := range f.trustees {
					_, err := tr.Continue(first)
					checkRejected(t, tr, err, "round 1:", held[i])
				}
			} else {
				rest := f.proceed(t, first)
				rest[1].G = spoil(rest[1], tc.round-2, f.n)
				for i, tr := range f.trustees {
					checkRejected(t, tr, tr.Finish(rest), "round "+itoa(tc.round)+":", held[i])
				}
			}
			f.proceed(t, f.start(t)) // the next candidate is taken
		})
	}
}

// checkRejected asserts that tr rejected its candidate with err, forgot it
// and zeroed the words of the secrets it held.
func checkRejected(t *testing.T, tr *Trustee, err error, want string, held []*big.Int) {
	t.Helper()
	if !errors.Is(err, biprime.ErrNotBiprime) || !strings.Contains(err.Error(), want) {
		t.Fatalf("trustee %d: error %v, want a rejection in %q", tr.ID(), err, want)
	}
	for _, x := range held {
		for _, w := range x.Bits() {
			if w != 0 {
				t.Fatalf("trustee %d did not wipe its shares", tr.ID())
			}
		}
	}
	if tr.stage != idle || tr.p != nil || tr.q != nil || tr.m != nil || tr.n != nil || tr.Modulus() != nil {
		t.Fatalf("trustee %d kept the rejected candidate", tr.ID())
	}
	if _, err := tr.Share(); err == nil {
		t.Fatalf("trustee %d returns shares of a rejected candidate", tr.ID())
	}
}

func itoa(i int) string { return big.NewInt(int64(i)).String() }
