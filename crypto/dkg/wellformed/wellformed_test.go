package wellformed

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/crypto/dkg/internal/dkgtest"
)

var ceremony = []byte("test-ceremony-0001")

// TestVectors checks the committed proofs: Prove gives them byte for byte
// (the proof is deterministic), they decode, re-encode and verify. With
// -update it first rewrites them:
//
//	go test ./crypto/dkg/wellformed -run TestVectors -update
func TestVectors(t *testing.T) {
	if *update {
		writeVectors(t)
	}
	for _, v := range loadVectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			p, q, n := hexInt(t, v.P), hexInt(t, v.Q), hexInt(t, v.N)
			if mul(p, q).Cmp(n) != 0 {
				t.Fatal("n ≠ p·q")
			}
			cer, err := hex.DecodeString(v.Ceremony)
			if err != nil {
				t.Fatal(err)
			}
			want, err := hex.DecodeString(v.Proof)
			if err != nil {
				t.Fatal(err)
			}
			if got := mustMarshal(t, n, mustProve(t, p, q, cer)); !bytes.Equal(got, want) {
				t.Fatal("Prove no longer gives the committed proof")
			}
			pr, err := Parse(n, want)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(mustMarshal(t, n, pr), want) {
				t.Fatal("re-encoding differs")
			}
			if err := Verify(n, cer, pr); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestDistributedMatchesProve runs the trustees' two rounds from additive
// shares: the proof verifies and equals the single holder's byte for byte
// (x and z are unique once a_k is fixed: the roots lie in the group of
// squares, of odd order m, and Σ u_i ≡ u (mod m), Σ E_i ≡ E (mod φ)).
func TestDistributedMatchesProve(t *testing.T) {
	for _, tc := range []struct {
		bits, trustees int
	}{{256, 3}, {256, 5}, {1024, 3}} {
		if testing.Short() && tc.bits == 1024 {
			continue
		}
		s := dkgtest.PrimeSet(tc.bits)
		p, q := s.Blum[0], s.Blum[1]
		n := mul(p, q)
		st, err := NewStatement(n, ceremony)
		if err != nil {
			t.Fatal(err)
		}
		pr := runTrustees(t, st, distributedShares(t, p, q, tc.trustees))
		if err := Verify(n, ceremony, pr); err != nil {
			t.Fatalf("%d-bit N, %d trustees: %v", 2*tc.bits, tc.trustees, err)
		}
		if !bytes.Equal(mustMarshal(t, n, pr), mustMarshal(t, n, mustProve(t, p, q, ceremony))) {
			t.Fatalf("%d-bit N, %d trustees: differs from Prove", 2*tc.bits, tc.trustees)
		}
	}
}

// TestModulusRefused gives moduli that are not Paillier–Blum moduli, with
// a cheating prover's best attempt at a proof where the public checks let
// it get that far.
func TestModulusRefused(t *testing.T) {
	s, s2 := dkgtest.PrimeSet(256), dkgtest.PrimeSet(512)
	p, q, r := s.Blum[0], s.Blum[1], s.Blum[2]
	honest := mustProve(t, p, q, ceremony)
	// Chernick's Carmichael number (6k+1)(12k+1)(18k+1), k = 1099511628756.
	c1, c2, c3 := big.NewInt(6597069772537), big.NewInt(13194139545073), big.NewInt(19791209317609)
	pMinus1 := new(big.Int).Sub(p, big.NewInt(1))
	for _, tc := range []struct {
		name  string
		n     *big.Int
		proof func(n *big.Int) *Proof
		want  error
		msg   string
	}{
		{"even", mul(big.NewInt(2), p, q), nil, ErrModulus, "odd"},
		{"factor below 2^20", mul(big.NewInt(1048573), p), nil, ErrModulus, "below 2^20"},
		{"a square p²", mul(p, p), nil, ErrModulus, "Jacobi symbol −1"},
		// Z*_P is cyclic: 4th roots of ±y and N-th roots (z = y) exist, so
		// only the not-prime check refuses it (TestPrimeForgeryPassesTheChallenges).
		{"a prime", p, func(n *big.Int) *Proof {
			return forge(t, n, ceremony, new(big.Int).Rsh(pMinus1, 1), pMinus1)
		}, ErrModulus, "prime"},
		{"p·q·r", mul(p, q, r), func(n *big.Int) *Proof {
			return forgeClaimed(t, n, p, mul(q, r))
		}, ErrInvalidProof, "challenge"},
		{"p²·q", mul(p, p, q), func(n *big.Int) *Proof {
			return forgeClaimed(t, n, mul(p, p), q)
		}, ErrInvalidProof, "challenge"},
		{"p ≡ 1 (mod 4)", mul(s.OneMod4, q), func(n *big.Int) *Proof {
			return forgeClaimed(t, n, s.OneMod4, q)
		}, ErrInvalidProof, "challenge"},
		{"p ≡ q ≡ 1 (mod 4) (passes biprime's test)", mul(s.OneMod4, s2.OneMod4), func(n *big.Int) *Proof {
			return forgeClaimed(t, n, s.OneMod4, s2.OneMod4)
		}, ErrInvalidProof, "challenge"},
		{"Carmichael (6k+1)(12k+1)(18k+1) (passes biprime's test)", mul(c1, c2, c3), func(n *big.Int) *Proof {
			return forgeClaimed(t, n, c1, mul(c2, c3))
		}, ErrInvalidProof, "challenge"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr := honest
			if tc.proof != nil {
				pr = tc.proof(tc.n)
			}
			err := Verify(tc.n, ceremony, pr)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("got %v, want %v mentioning %q", err, tc.want, tc.msg)
			}
		})
	}
}

// TestPrimeForgeryPassesTheChallenges shows why Verify checks that N is
// not prime: for a prime, a valid-looking response to every challenge exists.
func TestPrimeForgeryPassesTheChallenges(t *testing.T) {
	p := dkgtest.PrimeSet(256).Blum[0]
	pMinus1 := new(big.Int).Sub(p, big.NewInt(1))
	pr := forge(t, p, ceremony, new(big.Int).Rsh(pMinus1, 1), pMinus1)
	st, err := NewStatement(p, ceremony)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkResponses(st, pr); err != nil {
		t.Fatalf("the forgery for a prime fails a challenge: %v", err)
	}
}

func TestTamperedProofRefused(t *testing.T) {
	s := dkgtest.PrimeSet(256)
	p, q := s.Blum[0], s.Blum[1]
	n := mul(p, q)
	enc := mustMarshal(t, n, mustProve(t, p, q, ceremony))
	otherW := func(pr *Proof) {
		for x := new(big.Int).Add(pr.W, big.NewInt(1)); ; x.Add(x, big.NewInt(1)) {
			if big.Jacobi(x, n) == -1 {
				pr.W = x
				return
			}
		}
	}
	plusOne := func(x *big.Int) *big.Int { return new(big.Int).Mod(new(big.Int).Add(x, big.NewInt(1)), n) }
	for _, tc := range []struct {
		name   string
		tamper func(pr *Proof)
		cer    []byte
		msg    string
	}{
		{"x + 1", func(pr *Proof) { pr.Responses[4].X = plusOne(pr.Responses[4].X) }, ceremony, "challenge 5: x^4"},
		{"z + 1", func(pr *Proof) { pr.Responses[79].Z = plusOne(pr.Responses[79].Z) }, ceremony, "challenge 80: z^N"},
		{"a flipped", func(pr *Proof) { pr.Responses[0].A = !pr.Responses[0].A }, ceremony, "challenge 1: x^4"},
		{"b flipped", func(pr *Proof) { pr.Responses[1].B = !pr.Responses[1].B }, ceremony, "challenge 2: b"},
		{"x = 0", func(pr *Proof) { pr.Responses[2].X = new(big.Int) }, ceremony, "challenge 3: x not in [1, N)"},
		{"z = N", func(pr *Proof) { pr.Responses[2].Z = new(big.Int).Set(n) }, ceremony, "challenge 3: z not in [1, N)"},
		{"x not coprime", func(pr *Proof) { pr.Responses[3].X = new(big.Int).Set(p) }, ceremony, "challenge 4: x not coprime"},
		{"z nil", func(pr *Proof) { pr.Responses[3].Z = nil }, ceremony, "challenge 4: z not in [1, N)"},
		{"another w with Jacobi −1", otherW, ceremony, "not the one derived"},
		{"w with Jacobi +1", func(pr *Proof) { pr.W = big.NewInt(4) }, ceremony, "Jacobi symbol −1"},
		{"w nil", func(pr *Proof) { pr.W = nil }, ceremony, "no proof"},
		{"wrong ceremony id", func(*Proof) {}, []byte("test-ceremony-0002"), "not the one derived"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr, err := Parse(n, enc)
			if err != nil {
				t.Fatal(err)
			}
			tc.tamper(pr)
			err = Verify(n, tc.cer, pr)
			if !errors.Is(err, ErrInvalidProof) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("got %v, want ErrInvalidProof mentioning %q", err, tc.msg)
			}
		})
	}
	if err := Verify(n, ceremony, nil); !errors.Is(err, ErrInvalidProof) {
		t.Fatalf("nil proof: got %v", err)
	}
}

func TestParseRefusesBadEncodings(t *testing.T) {
	s := dkgtest.PrimeSet(256)
	n := mul(s.Blum[0], s.Blum[1])
	enc := mustMarshal(t, n, mustProve(t, s.Blum[0], s.Blum[1], ceremony))
	w := byteLen(n)
	edit := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(enc)) }
	ff := bytes.Repeat([]byte{0xff}, w)
	for _, tc := range []struct {
		name string
		b    []byte
		msg  string
	}{
		{"empty", nil, "length 0"},
		{"truncated by one byte", enc[:len(enc)-1], "length"},
		{"one byte too many", append(bytes.Clone(enc), 0), "length"},
		{"bad magic", edit(func(b []byte) []byte { b[0] = 'X'; return b }), "magic"},
		{"version 2", edit(func(b []byte) []byte { b[4] = 2; return b }), "version 2"},
		{"unknown flag bit", edit(func(b []byte) []byte { b[5+w] |= 4; return b }), "flags of challenge 1"},
		{"w ≥ N", edit(func(b []byte) []byte { copy(b[5:], ff); return b }), "w not below N"},
		{"x_1 ≥ N", edit(func(b []byte) []byte { copy(b[6+w:], ff); return b }), "x_1 not below N"},
		{"z_80 ≥ N", edit(func(b []byte) []byte { copy(b[len(b)-w:], ff); return b }), "z_80 not below N"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(n, tc.b)
			if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("got %v, want ErrMalformed mentioning %q", err, tc.msg)
			}
		})
	}
}

func TestProveRefusesBadFactors(t *testing.T) {
	s := dkgtest.PrimeSet(256)
	p, q := s.Blum[0], s.Blum[1]
	for _, tc := range []struct {
		name string
		p, q *big.Int
		msg  string
	}{
		{"p composite", mul(p, q), q, "p is not a prime"},
		{"q nil", p, nil, "q is not a prime"},
		{"p ≡ 1 (mod 4)", s.OneMod4, q, "p is not ≡ 3 (mod 4)"},
		{"p = q", p, p, "p = q"},
		{"p divides q − 1", big.NewInt(3), big.NewInt(7), "gcd(N, φ(N))"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Prove(tc.p, tc.q, ceremony)
			if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("got %v, want ErrBadInput mentioning %q", err, tc.msg)
			}
		})
	}
}

func TestTrusteeStepsRefuseBadInput(t *testing.T) {
	s := dkgtest.PrimeSet(256)
	n := mul(s.Blum[0], s.Blum[1])
	st, err := NewStatement(n, ceremony)
	if err != nil {
		t.Fatal(err)
	}
	shares := distributedShares(t, s.Blum[0], s.Blum[1], 3)
	sig := func(i int) []*big.Int {
		v, err := st.Sigmas(shares[i])
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	good := [][]*big.Int{sig(0), sig(1), sig(2)}
	wrong := [][]*big.Int{good[0], good[1], append([]*big.Int{big.NewInt(2)}, good[2][1:]...)}
	short := [][]*big.Int{good[0], good[1][:5], good[2]}
	zero := [][]*big.Int{good[0], good[1], append([]*big.Int{new(big.Int)}, good[2][1:]...)}
	a, err := st.Signs(good)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		run  func() error
		msg  string
	}{
		{"u share, index 0", func() error { _, err := FourthRootShare(big.NewInt(5), 0); return err }, "index 0"},
		{"u share, m_1 ≡ 3 (mod 4)", func() error { _, err := FourthRootShare(big.NewInt(7), 1); return err }, "not ≡ 1"},
		{"u share, m_2 ≡ 2 (mod 4)", func() error { _, err := FourthRootShare(big.NewInt(6), 2); return err }, "not ≡ 0"},
		{"incomplete share", func() error { _, err := st.Sigmas(&Share{M: big.NewInt(1)}); return err }, "incomplete"},
		{"a trustee's σ wrong", func() error { _, err := st.Signs(wrong); return err }, "challenge 1: ∏ σ is not ±1"},
		{"a trustee's σ list short", func() error { _, err := st.Signs(short); return err }, "trustee 2 gave 5"},
		{"a trustee's σ zero", func() error { _, err := st.Signs(zero); return err }, "trustee 3's σ value 1 not in [1, N)"},
		{"no trustee", func() error { _, err := st.Signs(nil); return err }, "no trustee"},
		{"sign bits short", func() error { _, _, err := st.Roots(shares[0], a[:79]); return err }, "79 sign bits"},
		{"assemble without z", func() error { _, err := st.Assemble(a, good, nil); return err }, "no trustee's z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("got %v, want ErrBadInput mentioning %q", err, tc.msg)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	s := dkgtest.PrimeSet(256)
	n := mul(s.Blum[0], s.Blum[1])
	enc, err := mustProve(f, s.Blum[0], s.Blum[1], ceremony).Marshal(n)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(enc)
	f.Add(enc[:len(enc)/2])
	f.Add([]byte(magic + "\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		pr, err := Parse(n, b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v is not ErrMalformed", err)
			}
			return
		}
		out, err := pr.Marshal(n)
		if err != nil || !bytes.Equal(out, b) {
			t.Fatalf("decoded proof does not re-encode to its input (err %v)", err)
		}
	})
}

func BenchmarkProve2048(b *testing.B) {
	s := dkgtest.PrimeSet(1024)
	for b.Loop() {
		mustProve(b, s.Blum[0], s.Blum[1], ceremony)
	}
}

func BenchmarkVerify2048(b *testing.B) {
	s := dkgtest.PrimeSet(1024)
	n := mul(s.Blum[0], s.Blum[1])
	pr := mustProve(b, s.Blum[0], s.Blum[1], ceremony)
	for b.Loop() {
		if err := Verify(n, ceremony, pr); err != nil {
			b.Fatal(err)
		}
	}
}
