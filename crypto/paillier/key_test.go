package paillier

import (
	"bytes"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"strings"
	"testing"
)

func TestGenerateKey(t *testing.T) {
	sk, err := GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	if sk.N.BitLen() != 2048 || sk.p.BitLen() != 1024 || sk.q.BitLen() != 1024 {
		t.Fatalf("sizes: N %d, p %d, q %d bits", sk.N.BitLen(), sk.p.BitLen(), sk.q.BitLen())
	}
	if sk.p.Cmp(sk.q) >= 0 {
		t.Fatal("p ≥ q")
	}
	phi := new(big.Int).Mul(sk.pm1, sk.qm1)
	if new(big.Int).GCD(nil, nil, sk.N, phi).Cmp(one) != 0 {
		t.Fatal("gcd(N, φ) ≠ 1")
	}
	m := big.NewInt(123456789)
	c, _, _ := sk.Encrypt(nil, m)
	if got, err := sk.Decrypt(c); err != nil || got.Cmp(m) != 0 {
		t.Fatalf("round trip with generated key: %v %v", got, err)
	}
	for _, bits := range []int{0, 1024, 2047, 2049, 5000} {
		if _, err := GenerateKey(rand.Reader, bits); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("GenerateKey(%d) err = %v, want ErrInvalidKey", bits, err)
		}
	}
}

func TestNewPublicKeyRejects(t *testing.T) {
	sk := fixedKey(t, "key2048")
	big2048 := new(big.Int).Lsh(one, 2047)
	for _, tc := range []struct {
		name string
		n    *big.Int
	}{
		{"nil", nil},
		{"negative", new(big.Int).Neg(sk.N)},
		{"even", new(big.Int).Add(sk.N, one)},
		{"too small", fixedKey(t, "small1024").N},
		{"too large", new(big.Int).Add(new(big.Int).Lsh(one, MaxModulusBits), one)},
		{"small factor", new(big.Int).Mul(big.NewInt(3), new(big.Int).Add(big2048, one))},
		{"perfect square", new(big.Int).Mul(sk.q, sk.q)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewPublicKey(tc.n); !errors.Is(err, ErrInvalidKey) {
				t.Fatalf("err = %v, want ErrInvalidKey", err)
			}
		})
	}
	if _, err := NewPublicKey(sk.N); err != nil {
		t.Fatalf("real modulus rejected: %v", err)
	}
}

func TestNewPrivateKeyFromPrimesRejects(t *testing.T) {
	sk := fixedKey(t, "key2048")
	small := fixedKey(t, "small1024")
	composite := new(big.Int).Mul(sk.p, big.NewInt(1))
	composite.Add(composite, big.NewInt(2)) // p+2: odd, same length, almost surely composite
	for composite.ProbablyPrime(20) {
		composite.Add(composite, big.NewInt(2))
	}
	for _, tc := range []struct {
		name string
		p, q *big.Int
	}{
		{"p = q", sk.p, sk.p},
		{"p not prime", composite, sk.q},
		{"different lengths", small.p, sk.q},
		{"modulus too small", small.p, small.q},
		{"nil", nil, sk.q},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewPrivateKeyFromPrimes(tc.p, tc.q); !errors.Is(err, ErrInvalidKey) {
				t.Fatalf("err = %v, want ErrInvalidKey", err)
			}
		})
	}
	// Order does not matter: the key is canonicalised to p < q.
	k, err := NewPrivateKeyFromPrimes(sk.q, sk.p)
	if err != nil || k.p.Cmp(sk.p) != 0 {
		t.Fatalf("swapped primes: %v", err)
	}
}

func TestKeyEncoding(t *testing.T) {
	sk := fixedKey(t, "key2048")
	pub, _ := sk.PublicKey.MarshalBinary()
	priv, _ := sk.MarshalBinary()
	gotPub, err := ParsePublicKey(pub)
	if err != nil || gotPub.N.Cmp(sk.N) != 0 || gotPub.NSquared.Cmp(sk.NSquared) != 0 {
		t.Fatalf("public round trip: %v", err)
	}
	gotPriv, err := ParsePrivateKey(priv)
	if err != nil || gotPriv.p.Cmp(sk.p) != 0 || gotPriv.q.Cmp(sk.q) != 0 {
		t.Fatalf("private round trip: %v", err)
	}
	if again, _ := gotPriv.MarshalBinary(); !bytes.Equal(again, priv) {
		t.Fatal("private encoding is not stable")
	}

	mutate := func(b []byte, f func([]byte) []byte) []byte { return f(append([]byte(nil), b...)) }
	swapped := append([]byte(privateKeyTag), keyVersion)
	swapped = appendInt(appendInt(swapped, sk.q), sk.p)
	withZero := append([]byte(publicKeyTag), keyVersion, 0x01, 0x01, 0x00)
	withZero = append(withZero, sk.N.Bytes()...)
	for _, tc := range []struct {
		name  string
		parse func([]byte) error
		b     []byte
	}{
		{"public empty", parsePub, nil},
		{"public wrong tag", parsePub, mutate(pub, func(b []byte) []byte { b[0] = 'X'; return b })},
		{"public private tag", parsePub, priv},
		{"public wrong version", parsePub, mutate(pub, func(b []byte) []byte { b[4] = 2; return b })},
		{"public truncated", parsePub, pub[:len(pub)-1]},
		{"public trailing byte", parsePub, append(append([]byte(nil), pub...), 0)},
		{"public leading zero", parsePub, withZero},
		{"public even N", parsePub, mutate(pub, func(b []byte) []byte { b[len(b)-1] ^= 1; return b })},
		{"private empty", parsePriv, nil},
		{"private public tag", parsePriv, pub},
		{"private truncated", parsePriv, priv[:len(priv)-3]},
		{"private trailing byte", parsePriv, append(append([]byte(nil), priv...), 7)},
		{"private primes swapped", parsePriv, swapped},
		{"private p not prime", parsePriv, mutate(priv, func(b []byte) []byte { b[len(b)-200] ^= 0x10; return b })},
		{"private zero length", parsePriv, append([]byte(privateKeyTag), keyVersion, 0, 0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.parse(tc.b); !errors.Is(err, ErrInvalidKey) {
				t.Fatalf("err = %v, want ErrInvalidKey", err)
			}
		})
	}
}

func parsePub(b []byte) error  { _, err := ParsePublicKey(b); return err }
func parsePriv(b []byte) error { _, err := ParsePrivateKey(b); return err }

func TestPrivateKeyNeverPrintsSecrets(t *testing.T) {
	sk := fixedKey(t, "key2048")
	var secrets []string
	for _, x := range []*big.Int{sk.p, sk.q, sk.lambda, sk.hp} {
		secrets = append(secrets, x.String(), x.Text(16), fmt.Sprintf("%x", x.Bytes())[:32])
	}
	for _, format := range []string{"%v", "%+v", "%#v", "%s", "%d", "%x", "%q"} {
		for _, arg := range []any{sk, *sk, []*PrivateKey{sk}, struct{ K *PrivateKey }{sk}} {
			out := fmt.Sprintf(format, arg)
			for _, s := range secrets {
				if strings.Contains(out, s) {
					t.Fatalf("fmt %s of %T leaks a secret", format, arg)
				}
			}
			if !strings.Contains(out, "redacted") {
				t.Fatalf("fmt %s of %T = %q, want the redacted description", format, arg, out)
			}
		}
	}
}

// TestKeyPEM: MarshalPrivateKeyPEM and MarshalPublicKeyPEM round-trip
// through their parsers, and neither parser takes the other's PEM type, so
// a public key is never read as a private one. (File modes and atomic writes
// are internal/keyfile's job and tested there.)
func TestKeyPEM(t *testing.T) {
	sk := fixedKey(t, "key2048")
	skPEM, err := MarshalPrivateKeyPEM(sk)
	if err != nil {
		t.Fatal(err)
	}
	pkPEM, err := MarshalPublicKeyPEM(&sk.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ParsePrivateKeyPEM(skPEM); err != nil || got.N.Cmp(sk.N) != 0 {
		t.Fatalf("private key round trip: %v", err)
	}
	if got, err := ParsePublicKeyPEM(pkPEM); err != nil || got.N.Cmp(sk.N) != 0 {
		t.Fatalf("public key round trip: %v", err)
	}
	if _, err := ParsePrivateKeyPEM(pkPEM); !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), "PEM type") {
		t.Fatalf("public key PEM read as private: err = %v", err)
	}
	if _, err := ParsePublicKeyPEM(skPEM); !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), "PEM type") {
		t.Fatalf("private key PEM read as public: err = %v", err)
	}
	for name, bad := range map[string][]byte{
		"empty":         nil,
		"trailing data": append(append([]byte(nil), pkPEM...), 'x'),
		"headers":       pem.EncodeToMemory(&pem.Block{Type: PublicKeyPEMType, Headers: map[string]string{"a": "b"}, Bytes: must(sk.PublicKey.MarshalBinary())}),
	} {
		if _, err := ParsePublicKeyPEM(bad); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("%s: err = %v, want ErrInvalidKey", name, err)
		}
	}
}

func TestParsePrivateKeyPEM(t *testing.T) {
	sk := fixedKey(t, "key2048")
	data, err := os.ReadFile("testdata/key2048.pem")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParsePrivateKeyPEM(data)
	if err != nil || got.N.Cmp(sk.N) != 0 {
		t.Fatalf("ParsePrivateKeyPEM: %v", err)
	}
	for name, bad := range map[string][]byte{
		"empty":         nil,
		"trailing data": append(append([]byte(nil), data...), 'x'),
		"public key":    pem.EncodeToMemory(&pem.Block{Type: PublicKeyPEMType, Bytes: must(sk.PublicKey.MarshalBinary())}),
	} {
		if _, err := ParsePrivateKeyPEM(bad); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("%s: err = %v, want ErrInvalidKey", name, err)
		}
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
