package osslecdsa

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func mustLoad(t testing.TB) {
	t.Helper()
	if err := Load(); err != nil {
		t.Fatalf("OpenSSL must be loadable for these tests (install libssl3 / libssl-dev): %v", err)
	}
}

func newKey(t testing.TB, c elliptic.Curve) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(c, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func digest(msg string) []byte {
	d := sha256.Sum256([]byte(msg))
	return d[:]
}

// Cross-vectors: a signature made by either implementation verifies with
// both, and every tampering is rejected by both.
func TestCrossVectors(t *testing.T) {
	mustLoad(t)
	key := newKey(t, elliptic.P256())
	other := newKey(t, elliptic.P256())
	n := elliptic.P256().Params().N
	for _, signer := range []Impl{Go, OpenSSL} {
		d := digest("ballot " + signer.String())
		r, s, err := SignWith(signer, key, d)
		if err != nil {
			t.Fatalf("SignWith(%s): %v", signer, err)
		}
		tests := []struct {
			name string
			pub  *ecdsa.PublicKey
			d    []byte
			r, s *big.Int
			want bool
		}{
			{"valid", &key.PublicKey, d, r, s, true},
			{"high-S twin (ECDSA is malleable; Fabric rejects it before)", &key.PublicKey, d, r, new(big.Int).Sub(n, s), true},
			{"wrong key", &other.PublicKey, d, r, s, false},
			{"wrong digest", &key.PublicKey, digest("another ballot"), r, s, false},
			{"digest with one bit flipped", &key.PublicKey, flip(d), r, s, false},
			{"r+1", &key.PublicKey, d, new(big.Int).Add(r, big.NewInt(1)), s, false},
			{"s+1", &key.PublicKey, d, r, new(big.Int).Add(s, big.NewInt(1)), false},
			{"r = 0", &key.PublicKey, d, big.NewInt(0), s, false},
			{"s = 0", &key.PublicKey, d, r, big.NewInt(0), false},
			{"r = N", &key.PublicKey, d, new(big.Int).Set(n), s, false},
			{"s = N", &key.PublicKey, d, r, new(big.Int).Set(n), false},
			{"r + N", &key.PublicKey, d, new(big.Int).Add(r, n), s, false},
			{"negative s", &key.PublicKey, d, r, new(big.Int).Neg(s), false},
			{"r and s swapped", &key.PublicKey, d, s, r, false},
		}
		for _, tt := range tests {
			for _, verifier := range []Impl{Go, OpenSSL} {
				t.Run(fmt.Sprintf("%s signs, %s verifies/%s", signer, verifier, tt.name), func(t *testing.T) {
					if got := VerifyWith(verifier, tt.pub, tt.d, tt.r, tt.s); got != tt.want {
						t.Fatalf("VerifyWith = %v, want %v", got, tt.want)
					}
				})
			}
		}
	}
}

func flip(b []byte) []byte {
	c := append([]byte(nil), b...)
	c[len(c)-1] ^= 1
	return c
}

// Digests of other lengths than 32 bytes are truncated or zero-extended the
// same way by both implementations.
func TestDigestLengths(t *testing.T) {
	mustLoad(t)
	key := newKey(t, elliptic.P256())
	long := sha512.Sum512([]byte("x"))
	for _, n := range []int{1, 20, 31, 32, 33, 48, 64} {
		d := long[:n]
		for _, signer := range []Impl{Go, OpenSSL} {
			r, s, err := SignWith(signer, key, d)
			if err != nil {
				t.Fatalf("%d bytes, %s: %v", n, signer, err)
			}
			for _, verifier := range []Impl{Go, OpenSSL} {
				if !VerifyWith(verifier, &key.PublicKey, d, r, s) {
					t.Errorf("%d-byte digest signed by %s does not verify with %s", n, signer, verifier)
				}
			}
			// Both truncate a long digest to its first 32 bytes.
			if n > 32 {
				alt := append(append([]byte(nil), d[:32]...), make([]byte, n-32)...)
				g, o := VerifyWith(Go, &key.PublicKey, alt, r, s), VerifyWith(OpenSSL, &key.PublicKey, alt, r, s)
				if g != o || !g {
					t.Errorf("%d-byte digest, tail changed: go=%v openssl=%v, want both true", n, g, o)
				}
			}
		}
	}
}

// Keys OpenSSL is not used for, or cannot represent, get crypto/ecdsa's answer.
func TestFallbacks(t *testing.T) {
	mustLoad(t)
	p384 := newKey(t, elliptic.P384())
	d := digest("p384")
	r, s, err := SignWith(OpenSSL, p384, d)
	if err != nil {
		t.Fatal(err)
	}
	if !VerifyWith(OpenSSL, &p384.PublicKey, d, r, s) || !ecdsa.Verify(&p384.PublicKey, d, r, s) {
		t.Fatal("P-384 signature does not verify")
	}
	key := newKey(t, elliptic.P256())
	r, s, err = SignWith(Go, key, d)
	if err != nil {
		t.Fatal(err)
	}
	offCurve := &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).Add(key.X, big.NewInt(1)), Y: key.Y}
	tooBig := &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).Lsh(big.NewInt(1), 300), Y: key.Y}
	for _, pub := range []*ecdsa.PublicKey{offCurve, tooBig} {
		if VerifyWith(OpenSSL, pub, d, r, s) != ecdsa.Verify(pub, d, r, s) || VerifyWith(OpenSSL, pub, d, r, s) {
			t.Fatalf("invalid public key %x accepted or answered differently from crypto/ecdsa", pub.X)
		}
	}
}

// A key object is built once per public key value and per private key.
func TestKeyCache(t *testing.T) {
	mustLoad(t)
	key := newKey(t, elliptic.P256())
	d := digest("cache")
	r, s, err := SignWith(OpenSSL, key, d)
	if err != nil {
		t.Fatal(err)
	}
	before := publicKeys.len()
	copy1 := &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).Set(key.X), Y: new(big.Int).Set(key.Y)}
	copy2 := &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).Set(key.X), Y: new(big.Int).Set(key.Y)}
	for _, pub := range []*ecdsa.PublicKey{copy1, copy2, &key.PublicKey} {
		if !VerifyWith(OpenSSL, pub, d, r, s) {
			t.Fatal("signature does not verify")
		}
	}
	if got := publicKeys.len() - before; got != 1 {
		t.Fatalf("three verifications with one public key added %d cache entries, want 1", got)
	}
	// The private key cache checks D: a key object whose D changed is rebuilt.
	k2 := newKey(t, elliptic.P256())
	mutated := &ecdsa.PrivateKey{PublicKey: key.PublicKey, D: new(big.Int).Set(key.D)}
	if _, _, err := SignWith(OpenSSL, mutated, d); err != nil {
		t.Fatal(err)
	}
	*mutated = *k2
	r, s, err = SignWith(OpenSSL, mutated, d)
	if err != nil {
		t.Fatal(err)
	}
	if !ecdsa.Verify(&k2.PublicKey, d, r, s) {
		t.Fatal("signature made after the key changed does not verify with the new key")
	}
}

func TestCacheBound(t *testing.T) {
	var c keyCache[int, int]
	for i := 0; i < 3*maxCachedKeys; i++ {
		c.put(i, i)
		if c.len() > maxCachedKeys {
			t.Fatalf("cache holds %d entries, bound %d", c.len(), maxCachedKeys)
		}
	}
	if v, ok := c.get(3*maxCachedKeys - 1); !ok || v != 3*maxCachedKeys-1 {
		t.Fatalf("last entry missing: %v %v", v, ok)
	}
}

func TestParseImpl(t *testing.T) {
	tests := []struct {
		in      string
		want    Impl
		wantErr bool
	}{
		{"go", Go, false},
		{"openssl", OpenSSL, false},
		{" OpenSSL\n", OpenSSL, false},
		{"", Go, true},
		{"boringssl", Go, true},
	}
	for _, tt := range tests {
		got, err := ParseImpl(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseImpl(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
	t.Setenv(EnvVar, "fast")
	if i, err := ImplFromEnv(); i != Go || err == nil || !strings.Contains(err.Error(), EnvVar) {
		t.Errorf("ImplFromEnv with %s=fast = %v, %v; want go and an error naming %s", EnvVar, i, err, EnvVar)
	}
	t.Setenv(EnvVar, "openssl")
	if i, err := ImplFromEnv(); i != OpenSSL || err != nil {
		t.Errorf("ImplFromEnv with %s=openssl = %v, %v", EnvVar, i, err)
	}
}

// The active implementation matches the environment of this test process.
func TestActive(t *testing.T) {
	want, _ := ImplFromEnv()
	if want == OpenSSL && Load() != nil {
		want = Go
	}
	if Active() != want {
		t.Fatalf("Active() = %v, want %v", Active(), want)
	}
	key := newKey(t, elliptic.P256())
	d := digest("active")
	r, s, err := Sign(key, d)
	if err != nil || !Verify(&key.PublicKey, d, r, s) || !ecdsa.Verify(&key.PublicKey, d, r, s) {
		t.Fatalf("Sign/Verify with %v failed: %v", Active(), err)
	}
}

// FuzzVerifyAgrees: for any digest and any (r, s), OpenSSL and crypto/ecdsa
// give the same answer.
func FuzzVerifyAgrees(f *testing.F) {
	mustLoad(f)
	key := newKey(f, elliptic.P256())
	d := digest("fuzz")
	r, s, err := ecdsa.Sign(rand.Reader, key, d)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(d, r.Bytes(), s.Bytes())
	f.Add([]byte{}, []byte{1}, []byte{1})
	f.Add(d, r.Bytes(), elliptic.P256().Params().N.Bytes())
	f.Fuzz(func(t *testing.T, d, rb, sb []byte) {
		r, s := new(big.Int).SetBytes(rb), new(big.Int).SetBytes(sb)
		g, o := VerifyWith(Go, &key.PublicKey, d, r, s), VerifyWith(OpenSSL, &key.PublicKey, d, r, s)
		if g != o {
			t.Fatalf("digest %x r %x s %x: go=%v openssl=%v", d, rb, sb, g, o)
		}
	})
}

// benchSignature is the key, digest and signature the verify benchmarks check.
func benchSignature(b *testing.B) (key *ecdsa.PrivateKey, d []byte, r, s *big.Int) {
	mustLoad(b)
	key = newKey(b, elliptic.P256())
	d = digest("bench")
	r, s, err := ecdsa.Sign(rand.Reader, key, d)
	if err != nil {
		b.Fatal(err)
	}
	return key, d, r, s
}

func BenchmarkVerify(b *testing.B) {
	key, d, r, s := benchSignature(b)
	for _, impl := range []Impl{Go, OpenSSL} {
		b.Run(impl.String(), func(b *testing.B) {
			reportCPU(b, func() {
				if !VerifyWith(impl, &key.PublicKey, d, r, s) {
					b.Fatal("verify failed")
				}
			})
		})
	}
	// Without the key cache: why the cache exists.
	b.Run("openssl-new-key-each-time", func(b *testing.B) {
		var x, y [32]byte
		key.X.FillBytes(x[:])
		key.Y.FillBytes(y[:])
		var rb, sb [32]byte
		r.FillBytes(rb[:])
		s.FillBytes(sb[:])
		reportCPU(b, func() {
			k, err := newECKey(x[:], y[:], nil)
			if err != nil || k.verify(d, rb[:], sb[:]) != 1 {
				b.Fatal("verify failed", err)
			}
		})
	})
}

// BenchmarkVerifyParallel verifies from many goroutines at once, as a
// saturated orderer or peer does (one goroutine per stream or transaction,
// every one with the same few keys), against one goroutine at a time in
// BenchmarkVerify. Run it with -cpu to set the threads that run them.
func BenchmarkVerifyParallel(b *testing.B) {
	key, d, r, s := benchSignature(b)
	for _, impl := range []Impl{Go, OpenSSL} {
		for _, perCPU := range []int{1, 8} {
			b.Run(fmt.Sprintf("%v/goroutines-per-cpu-%d", impl, perCPU), func(b *testing.B) {
				b.SetParallelism(perCPU)
				reportCPUParallel(b, func() bool { return VerifyWith(impl, &key.PublicKey, d, r, s) })
			})
		}
	}
}

func BenchmarkSign(b *testing.B) {
	mustLoad(b)
	key := newKey(b, elliptic.P256())
	d := digest("bench")
	for _, impl := range []Impl{Go, OpenSSL} {
		b.Run(impl.String(), func(b *testing.B) {
			reportCPU(b, func() {
				if _, _, err := SignWith(impl, key, d); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// fallbackChild marks the re-executed test process of TestFallbackWhenOpenSSLMissing.
const fallbackChild = "FABVOTE_OSSLECDSA_TEST_CHILD"

// When OpenSSL is selected but cannot be loaded, the process uses Go and
// LoadError says why. Load runs once per process, so the check runs in a
// child process started with a library name that does not exist.
func TestFallbackWhenOpenSSLMissing(t *testing.T) {
	if os.Getenv(fallbackChild) == "1" {
		if Active() != Go {
			t.Fatalf("Active() = %v, want go", Active())
		}
		err := LoadError()
		if err == nil || !strings.Contains(err.Error(), "libcrypto-fabvote-missing.so") {
			t.Fatalf("LoadError() = %v, want one naming the missing library", err)
		}
		key := newKey(t, elliptic.P256())
		d := digest("fallback")
		r, s, err := Sign(key, d)
		if err != nil || !Verify(&key.PublicKey, d, r, s) {
			t.Fatalf("Sign/Verify after the fallback: %v", err)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFallbackWhenOpenSSLMissing$", "-test.count=1")
	cmd.Env = append(os.Environ(), fallbackChild+"=1", EnvVar+"=openssl", LibEnvVar+"=libcrypto-fabvote-missing.so")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child process: %v\n%s", err, out)
	}
}

// Many goroutines share the cached OpenSSL key objects (as the peer's
// validation goroutines do); every answer must still be right.
func TestConcurrentUse(t *testing.T) {
	mustLoad(t)
	keys := []*ecdsa.PrivateKey{newKey(t, elliptic.P256()), newKey(t, elliptic.P256())}
	d := digest("concurrent")
	type sig struct{ r, s *big.Int }
	sigs := make([]sig, len(keys))
	for i, k := range keys {
		r, s, err := SignWith(OpenSSL, k, d)
		if err != nil {
			t.Fatal(err)
		}
		sigs[i] = sig{r, s}
	}
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func(g int) {
			for i := 0; i < 40; i++ {
				k, sg := (g+i)%2, (g+i/2)%2
				if got, want := VerifyWith(OpenSSL, &keys[k].PublicKey, d, sigs[sg].r, sigs[sg].s), k == sg; got != want {
					errs <- fmt.Errorf("goroutine %d: key %d, signature %d: %v, want %v", g, k, sg, got, want)
					return
				}
				if _, _, err := SignWith(OpenSSL, keys[k], d); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}(g)
	}
	for g := 0; g < 8; g++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
