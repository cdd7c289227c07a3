package paillier

import (
	"crypto/rand"
	"errors"
	"math/big"
	"testing"
)

var testKeys = []string{"small512", "small1024", "key2048"}

func randBelow(t testing.TB, n *big.Int) *big.Int {
	t.Helper()
	x, err := rand.Int(rand.Reader, n)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func TestEncryptDecrypt(t *testing.T) {
	for _, name := range testKeys {
		sk := fixedKey(t, name)
		nm1 := new(big.Int).Sub(sk.N, one)
		for _, tc := range []struct {
			name string
			m    *big.Int
		}{
			{"zero", big.NewInt(0)},
			{"one", big.NewInt(1)},
			{"N-1", nm1},
			{"random", randBelow(t, sk.N)},
		} {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				c, r, err := sk.Encrypt(rand.Reader, tc.m)
				if err != nil {
					t.Fatal(err)
				}
				if err := sk.ValidateCiphertext(c); err != nil {
					t.Fatalf("fresh ciphertext invalid: %v", err)
				}
				m, err := sk.Decrypt(c)
				if err != nil || m.Cmp(tc.m) != 0 {
					t.Fatalf("Decrypt = %v, %v; want %v", m, err, tc.m)
				}
				mt, err := sk.DecryptTextbook(c)
				if err != nil || mt.Cmp(tc.m) != 0 {
					t.Fatalf("DecryptTextbook = %v, %v; want %v", mt, err, tc.m)
				}
				m2, r2, err := sk.DecryptWithNonce(c)
				if err != nil || m2.Cmp(tc.m) != 0 || r2.Cmp(r) != 0 {
					t.Fatalf("DecryptWithNonce = (%v, %v, %v); want (%v, %v)", m2, r2, err, tc.m, r)
				}
				// (1+N)^m computed the slow way must agree with the 1+mN shortcut.
				slow := new(big.Int).Exp(new(big.Int).Add(sk.N, one), tc.m, sk.NSquared)
				slow.Mul(slow, new(big.Int).Exp(r, sk.N, sk.NSquared)).Mod(slow, sk.NSquared)
				if slow.Cmp(c) != 0 {
					t.Fatal("ciphertext differs from (1+N)^m r^N mod N²")
				}
			})
		}
	}
}

func TestEncryptRejects(t *testing.T) {
	sk := fixedKey(t, "small512")
	for _, tc := range []struct {
		name string
		m, r *big.Int
	}{
		{"m negative", big.NewInt(-1), big.NewInt(5)},
		{"m = N", sk.N, big.NewInt(5)},
		{"m nil", nil, big.NewInt(5)},
		{"r zero", big.NewInt(1), big.NewInt(0)},
		{"r = N", big.NewInt(1), sk.N},
		{"r multiple of p", big.NewInt(1), new(big.Int).Mul(sk.p, big.NewInt(2))},
		{"r nil", big.NewInt(1), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := sk.EncryptWithNonce(tc.m, tc.r); !errors.Is(err, ErrInvalidPlaintext) {
				t.Fatalf("err = %v, want ErrInvalidPlaintext", err)
			}
		})
	}
}

func TestHomomorphism(t *testing.T) {
	sk := fixedKey(t, "small1024")
	m1, m2 := randBelow(t, sk.N), randBelow(t, sk.N)
	c1, _, _ := sk.Encrypt(nil, m1)
	c2, _, _ := sk.Encrypt(nil, m2)
	sum := new(big.Int).Add(m1, m2)
	sum.Mod(sum, sk.N)
	if got, _ := sk.Decrypt(sk.Add(c1, c2)); got.Cmp(sum) != 0 {
		t.Fatalf("Add decrypts to %v, want %v", got, sum)
	}
	for _, k := range []*big.Int{big.NewInt(0), big.NewInt(7), big.NewInt(-3), randBelow(t, sk.N)} {
		want := new(big.Int).Mul(m1, k)
		want.Mod(want, sk.N)
		if got, _ := sk.Decrypt(sk.MulScalar(c1, k)); got.Cmp(want) != 0 {
			t.Fatalf("MulScalar(%v) decrypts to %v, want %v", k, got, want)
		}
	}
}

func TestProduct(t *testing.T) {
	sk := fixedKey(t, "small512")
	for _, n := range []int{0, 1, 2, productChunk + 1, 3000} {
		cs := make([]*big.Int, n)
		sum := new(big.Int)
		seq := big.NewInt(1)
		for i := range cs {
			m := big.NewInt(int64(i%5 + 1))
			cs[i], _, _ = sk.Encrypt(nil, m)
			sum.Add(sum, m)
			seq.Mul(seq, cs[i]).Mod(seq, sk.NSquared)
		}
		got := sk.Product(cs)
		if got.Cmp(seq) != 0 {
			t.Fatalf("n=%d: Product differs from the sequential product", n)
		}
		if m, err := sk.Decrypt(got); err != nil || m.Cmp(sum) != 0 {
			t.Fatalf("n=%d: Product decrypts to %v (%v), want %v", n, m, err, sum)
		}
	}
}

func TestValidateCiphertext(t *testing.T) {
	sk := fixedKey(t, "small512")
	c, _, _ := sk.Encrypt(nil, big.NewInt(3))
	for _, tc := range []struct {
		name string
		c    *big.Int
		ok   bool
	}{
		{"fresh", c, true},
		{"one", big.NewInt(1), true},
		{"N²-1", new(big.Int).Sub(sk.NSquared, one), true},
		{"nil", nil, false},
		{"zero", big.NewInt(0), false},
		{"negative", big.NewInt(-5), false},
		{"N²", sk.NSquared, false},
		{"N²+1", new(big.Int).Add(sk.NSquared, one), false},
		{"N", sk.N, false},
		{"multiple of p", new(big.Int).Mul(sk.p, big.NewInt(3)), false},
		{"multiple of q", new(big.Int).Mul(sk.q, big.NewInt(3)), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := sk.ValidateCiphertext(tc.c)
			if tc.ok && err != nil {
				t.Fatalf("rejected: %v", err)
			}
			if !tc.ok && !errors.Is(err, ErrInvalidCiphertext) {
				t.Fatalf("err = %v, want ErrInvalidCiphertext", err)
			}
		})
	}
	if _, err := sk.Decrypt(big.NewInt(0)); !errors.Is(err, ErrInvalidCiphertext) {
		t.Fatalf("Decrypt(0) err = %v, want ErrInvalidCiphertext", err)
	}
}

func TestCiphertextEncoding(t *testing.T) {
	sk := fixedKey(t, "key2048")
	if got := sk.CiphertextLen(); got != 512 {
		t.Fatalf("CiphertextLen = %d, want 512 for a 2048-bit key", got)
	}
	c, _, _ := sk.Encrypt(nil, big.NewInt(42))
	enc := sk.EncodeCiphertext(c)
	if len(enc) != sk.CiphertextLen() {
		t.Fatalf("encoding has %d bytes", len(enc))
	}
	dec, err := sk.DecodeCiphertext(enc)
	if err != nil || dec.Cmp(c) != 0 {
		t.Fatalf("round trip: %v", err)
	}
	small := sk.EncodeCiphertext(big.NewInt(1))
	if small[len(small)-1] != 1 || small[0] != 0 {
		t.Fatal("1 is not left-padded with zeros")
	}
	allFF := make([]byte, sk.CiphertextLen())
	for i := range allFF {
		allFF[i] = 0xff
	}
	pMult := new(big.Int).Mul(sk.p, big.NewInt(7)).FillBytes(make([]byte, sk.CiphertextLen()))
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"short", enc[1:]},
		{"long", append([]byte{0}, enc...)},
		{"zero", make([]byte, sk.CiphertextLen())},
		{"≥ N²", allFF},
		{"N² exactly", sk.NSquared.FillBytes(make([]byte, sk.CiphertextLen()))},
		{"multiple of p", pMult},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := sk.DecodeCiphertext(tc.b); !errors.Is(err, ErrInvalidCiphertext) {
				t.Fatalf("err = %v, want ErrInvalidCiphertext", err)
			}
		})
	}
}

func TestEncodeCiphertextPanicsOutOfRange(t *testing.T) {
	sk := fixedKey(t, "small512")
	defer func() {
		if recover() == nil {
			t.Fatal("EncodeCiphertext(N²) did not panic")
		}
	}()
	sk.EncodeCiphertext(sk.NSquared)
}

func BenchmarkMulModReference(b *testing.B) {
	sk := fixedKey(b, "key2048")
	x, y := randBelow(b, sk.NSquared), randBelow(b, sk.NSquared)
	z := new(big.Int)
	for b.Loop() {
		z.Mul(x, y)
		z.Mod(z, sk.NSquared)
	}
}

// An encryption in two phases (NoncePower before the plaintext is known,
// EncryptWithNoncePower after) equals EncryptWithNonce with the same nonce.
func TestEncryptWithNoncePower(t *testing.T) {
	sk := fixedKey(t, "small1024")
	m := randBelow(t, sk.N)
	r, rN, err := sk.NoncePower(nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := sk.EncryptWithNoncePower(m, rN)
	if err != nil {
		t.Fatal(err)
	}
	want, err := sk.EncryptWithNonce(m, r)
	if err != nil {
		t.Fatal(err)
	}
	if c.Cmp(want) != 0 {
		t.Fatal("EncryptWithNoncePower differs from EncryptWithNonce with the same nonce")
	}
}

func TestEncryptWithNoncePowerRejects(t *testing.T) {
	sk := fixedKey(t, "small512")
	for _, tc := range []struct {
		name  string
		m, rN *big.Int
	}{
		{"m = N", sk.N, big.NewInt(5)},
		{"m nil", nil, big.NewInt(5)},
		{"r^N zero", big.NewInt(1), big.NewInt(0)},
		{"r^N = N²", big.NewInt(1), sk.NSquared},
		{"r^N nil", big.NewInt(1), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := sk.EncryptWithNoncePower(tc.m, tc.rN); !errors.Is(err, ErrInvalidPlaintext) {
				t.Fatalf("err = %v, want ErrInvalidPlaintext", err)
			}
		})
	}
}
