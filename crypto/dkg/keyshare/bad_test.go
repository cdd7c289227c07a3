package keyshare

import (
	"crypto/rand"
	"errors"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/crypto/paillier/threshold"
)

// rounds is one honest run, round by round, kept so that a test can replay
// a round with one message changed.
type rounds struct {
	parties  []*Party
	dealt    [][]Dealt // dealt[i] is trustee i+1's inbox
	openings []Opening
	gamma    *big.Int
	commits  []Commitment
	subs     [][]SubShare // subs[i] is trustee i+1's inbox
}

func playRounds(t *testing.T, f *fixture) *rounds {
	t.Helper()
	n := f.params.Trustees
	r := &rounds{parties: make([]*Party, n), dealt: make([][]Dealt, n), openings: make([]Opening, n),
		commits: make([]Commitment, n), subs: make([][]SubShare, n)}
	for i := range r.parties {
		p, out, err := NewParty(f.params, i+1, f.ms[i], rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		r.parties[i] = p
		for _, d := range out {
			r.dealt[d.To-1] = append(r.dealt[d.To-1], d)
		}
	}
	var err error
	for i, p := range r.parties {
		if r.openings[i], err = p.Open(r.dealt[i]); err != nil {
			t.Fatal(err)
		}
	}
	if r.gamma, err = OpenGamma(f.params, r.openings); err != nil {
		t.Fatal(err)
	}
	for i, p := range r.parties {
		var out []SubShare
		if r.commits[i], out, err = p.Deal(r.gamma); err != nil {
			t.Fatal(err)
		}
		for _, s := range out {
			r.subs[s.To-1] = append(r.subs[s.To-1], s)
		}
	}
	return r
}

// wantErr fails unless err is non-nil and mentions every fragment.
func wantErr(t *testing.T, name string, err error, fragments ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: accepted", name)
		return
	}
	for _, frag := range fragments {
		if !strings.Contains(err.Error(), frag) {
			t.Errorf("%s: error %q does not mention %q", name, err, frag)
		}
	}
}

func TestNewParamsRefusesBadInput(t *testing.T) {
	n := newFixture(t, 512, 3, 2).n
	small := new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(1))
	for _, tc := range []struct {
		name        string
		n           *big.Int
		trustees, k int
		want        string
	}{
		{"nil N", nil, 3, 2, "positive odd"},
		{"even N", new(big.Int).Add(n, big.NewInt(1)), 3, 2, "positive odd"},
		{"two trustees", n, 2, 2, "2 trustees"},
		{"six trustees", n, 6, 2, "6 trustees"},
		{"K = 0", n, 3, 0, "threshold K = 0"},
		{"K > n", n, 3, 4, "threshold K = 4"},
		{"N too short for P2", big.NewInt(1<<40 + 1), 3, 2, "41 bits"},
		{"shares longer than 2·|N²|", small, 3, 2, "do not fit"},
	} {
		_, err := NewParams(tc.n, tc.trustees, tc.k, ceremony)
		wantErr(t, tc.name, err, tc.want)
	}
}

func TestNewPartyRefusesBadInput(t *testing.T) {
	f := newFixture(t, 512, 3, 2)
	for _, tc := range []struct {
		name string
		id   int
		m    *big.Int
		want string
	}{
		{"index 0", 0, f.ms[0], "trustee 0 outside"},
		{"index n+1", 4, f.ms[0], "trustee 4 outside"},
		{"no share", 1, nil, "missing"},
		{"trustee 1's share ≢ 1 (mod 4)", 1, f.ms[1], "not ≡ 1 (mod 4)"},
		{"trustee 2's share ≢ 0 (mod 4)", 2, f.ms[0], "not ≡ 0 (mod 4)"},
	} {
		_, _, err := NewParty(f.params, tc.id, tc.m, rand.Reader)
		wantErr(t, tc.name, err, tc.want)
		if !errors.Is(err, ErrBadInput) {
			t.Errorf("%s: %v is not ErrBadInput", tc.name, err)
		}
	}
	_, err := Run(f.params, f.ms[:2], rand.Reader)
	wantErr(t, "Run with two shares for three trustees", err, "2 shares of m")
}

func TestOpenRefusesBadMessages(t *testing.T) {
	f := newFixture(t, 512, 3, 2)
	r := playRounds(t, f)
	inbox := r.dealt[0]
	for _, tc := range []struct {
		name   string
		change func([]Dealt) []Dealt
		want   string
	}{
		{"one missing", func(in []Dealt) []Dealt { return in[:2] }, "2 first-round messages"},
		{"repeated sender", func(in []Dealt) []Dealt { in[1].From = 1; return in }, "trustee 1 is unexpected or repeated"},
		{"misaddressed", func(in []Dealt) []Dealt { in[2].To = 2; return in }, "addressed to trustee 2, not 1"},
		{"value outside the field", func(in []Dealt) []Dealt { in[1].Beta = f.params.scheme.Field().P(); return in }, "outside the field"},
		{"missing value", func(in []Dealt) []Dealt { in[2].R = nil; return in }, "outside the field"},
	} {
		_, err := r.parties[0].Open(tc.change(slices.Clone(inbox)))
		wantErr(t, tc.name, err, tc.want)
	}
}

func TestOpenedGammaRefused(t *testing.T) {
	f := newFixture(t, 512, 3, 2)
	r := playRounds(t, f)
	_, err := OpenGamma(f.params, r.openings[:2])
	wantErr(t, "two openings of three", err, "2 openings")
	bad := slices.Clone(r.openings)
	bad[1].Gamma = f.params.scheme.Field().P()
	_, err = OpenGamma(f.params, bad)
	wantErr(t, "opening outside the field", err, "opening γ")
	for _, tc := range []struct {
		name  string
		gamma *big.Int
		want  string
	}{
		{"missing", nil, "missing or outside"},
		{"zero", new(big.Int), "missing or outside"},
		{"above the honest bound", f.params.gammaBound, "missing or outside"},
		{"a multiple of p", new(big.Int).Mul(f.p, big.NewInt(12345)), "would factor N"},
	} {
		_, err := invert(f.params, tc.gamma)
		wantErr(t, "γ "+tc.name, err, tc.want)
		fresh, _, err := NewParty(f.params, 1, f.ms[0], rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = fresh.Deal(tc.gamma)
		wantErr(t, "Deal with γ "+tc.name, err, tc.want)
		_, err = PublicParams(f.params, tc.gamma, r.commits)
		wantErr(t, "PublicParams with γ "+tc.name, err, tc.want)
	}
	_, _, err = r.parties[0].Deal(r.gamma)
	wantErr(t, "Deal twice", err, "twice")
}

func TestReceiveRefusesBadMessages(t *testing.T) {
	f := newFixture(t, 512, 3, 2)
	r := playRounds(t, f)
	for _, tc := range []struct {
		name    string
		commits func([]Commitment) []Commitment
		subs    func([]SubShare) []SubShare
		want    string
		dealer  int // the dealer a DealerError must name, 0 for none
	}{
		{"a commitment missing", func(c []Commitment) []Commitment { return c[:2] }, nil, "2 commitments", 0},
		{"a commitment repeated", func(c []Commitment) []Commitment { c[2].From = 2; return c }, nil, "dealer 2 is unexpected or repeated", 0},
		{"a commitment too short", func(c []Commitment) []Commitment { c[1].C = c[1].C[:1]; return c }, nil, "want K = 2", 2},
		{"a commitment not a unit", func(c []Commitment) []Commitment {
			c[2].C = []*big.Int{c[2].C[0], new(big.Int).Set(f.p)}
			return c
		}, nil, "not in Z*", 3},
		{"a sub-share missing", nil, func(s []SubShare) []SubShare { return s[1:] }, "2 sub-shares", 0},
		{"a sub-share repeated", nil, func(s []SubShare) []SubShare { s[1].From = 1; return s }, "dealer 1 to trustee 1 is unexpected", 0},
		{"a sub-share misaddressed", nil, func(s []SubShare) []SubShare { s[2].To = 3; return s }, "dealer 3 to trustee 3", 0},
		{"a sub-share missing its value", nil, func(s []SubShare) []SubShare { s[1].Value = nil; return s }, "outside", 2},
		{"a sub-share zero", nil, func(s []SubShare) []SubShare { s[2].Value = new(big.Int); return s }, "outside", 3},
	} {
		commits, subs := slices.Clone(r.commits), slices.Clone(r.subs[0])
		if tc.commits != nil {
			commits = tc.commits(commits)
		}
		if tc.subs != nil {
			subs = tc.subs(subs)
		}
		_, err := r.parties[0].Receive(commits, subs)
		wantErr(t, tc.name, err, tc.want)
		var de *DealerError
		if got := errors.As(err, &de); got != (tc.dealer != 0) || (got && de.Dealer != tc.dealer) {
			t.Errorf("%s: error %v, want a DealerError naming %d", tc.name, err, tc.dealer)
		}
	}
	if _, err := r.parties[0].Receive(r.commits, r.subs[0]); err != nil {
		t.Errorf("the honest messages after the bad ones: %v", err)
	}
}

func TestCallsOutOfOrderRefused(t *testing.T) {
	f := newFixture(t, 512, 3, 2)
	p, _, err := NewParty(f.params, 1, f.ms[0], rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Receive(nil, nil)
	wantErr(t, "Receive before Deal", err, "before Deal")
	_, err = p.Exponents()
	wantErr(t, "Exponents before Deal", err, "before Deal")
}

func TestSelfTestRefusesBadPartials(t *testing.T) {
	f := newFixture(t, 512, 3, 2)
	res, _ := f.mustRun(t, hooks{})
	c, m, err := threshold.SelfTestCiphertext(res.Public, ceremony)
	if err != nil {
		t.Fatal(err)
	}
	parts := partials(t, res, c)
	err = CheckSelfTest(res.Public, c, m, parts[:2])
	wantErr(t, "two partials of three", err, "2 partial decryptions")
	err = CheckSelfTest(res.Public, c, new(big.Int).Add(m, big.NewInt(1)), parts)
	wantErr(t, "a wrong plaintext", err, "wrong plaintext")
	other, _, err := threshold.SelfTestCiphertext(res.Public, []byte("another ceremony"))
	if err != nil {
		t.Fatal(err)
	}
	mixed := []*threshold.PartialDecryption{parts[0], partials(t, res, other)[1], parts[2]}
	err = CheckSelfTest(res.Public, c, m, mixed)
	wantErr(t, "a partial of another ciphertext", err, "partials [0 1]")
	if other.Cmp(c) == 0 {
		t.Error("the self-test ciphertext does not depend on the ceremony")
	}
}
