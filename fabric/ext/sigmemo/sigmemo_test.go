package sigmemo

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/big"
	"sync"
	"testing"
)

type signed struct {
	pub    *ecdsa.PublicKey
	digest []byte
	sig    []byte
}

func newSigned(t testing.TB, msg string) signed {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	d := sha256.Sum256([]byte(msg))
	sig, err := ecdsa.SignASN1(rand.Reader, key, d[:])
	if err != nil {
		t.Fatal(err)
	}
	return signed{&key.PublicKey, d[:], sig}
}

// verifyCounting is crypto/ecdsa's verification, counting its calls.
func verifyCounting(s signed, calls *int) func() bool {
	return func() bool {
		*calls++
		return ecdsa.VerifyASN1(s.pub, s.digest, s.sig)
	}
}

func mustKey(t testing.TB, s signed) Key {
	t.Helper()
	k, ok := KeyOf(s.pub, s.digest, s.sig)
	if !ok {
		t.Fatal("KeyOf refused a P-256 key")
	}
	return k
}

// The memo gives the verification's answer every time; only a true answer
// is remembered, so a refusal is always recomputed.
func TestVerifyAnswersAsComputed(t *testing.T) {
	good := newSigned(t, "ballot")
	bad := good
	bad.sig = append([]byte(nil), good.sig...)
	bad.sig[len(bad.sig)-1] ^= 1
	for _, tc := range []struct {
		name      string
		s         signed
		want      bool
		wantCalls int
	}{
		{"valid: computed once, then looked up", good, true, 1},
		{"invalid: computed every time", bad, false, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New(16)
			calls := 0
			for i := 0; i < 3; i++ {
				if got := m.Verify(mustKey(t, tc.s), verifyCounting(tc.s, &calls)); got != tc.want {
					t.Fatalf("call %d: Verify = %v, want %v", i+1, got, tc.want)
				}
			}
			if calls != tc.wantCalls {
				t.Fatalf("verification computed %d times, want %d", calls, tc.wantCalls)
			}
		})
	}
}

// Any change to the key, the digest or the signature bytes is another entry:
// a remembered "true" never answers for a triple that was not verified.
func TestKeyOfIsExact(t *testing.T) {
	s := newSigned(t, "ballot")
	other := newSigned(t, "ballot")
	base := mustKey(t, s)
	if again := mustKey(t, s); again != base {
		t.Fatal("KeyOf is not deterministic")
	}
	variants := map[string]signed{
		"another public key":        {other.pub, s.digest, s.sig},
		"trailing byte after DER":   {s.pub, s.digest, append(append([]byte(nil), s.sig...), 0)},
		"digest one byte shorter":   {s.pub, s.digest[:len(s.digest)-1], s.sig},
		"empty digest":              {s.pub, nil, s.sig},
		"signature moved to digest": {s.pub, append(append([]byte(nil), s.digest...), s.sig[0]), s.sig[1:]},
	}
	for i := range s.digest {
		d := append([]byte(nil), s.digest...)
		d[i] ^= 0x80
		variants[fmt.Sprintf("digest byte %d flipped", i)] = signed{s.pub, d, s.sig}
	}
	for i := range s.sig {
		g := append([]byte(nil), s.sig...)
		g[i] ^= 0x01
		variants[fmt.Sprintf("signature byte %d flipped", i)] = signed{s.pub, s.digest, g}
	}
	for name, v := range variants {
		if mustKey(t, v) == base {
			t.Errorf("%s: same memo key as the original", name)
		}
	}
}

// The encoding is fixed by the package comment: a known-answer vector built
// here byte by byte, independently of KeyOf's code.
func TestKeyOfVector(t *testing.T) {
	x, _ := new(big.Int).SetString("6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296", 16)
	y, _ := new(big.Int).SetString("4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5", 16)
	pub := &ecdsa.PublicKey{Curve: elliptic.P256(), X: x, Y: y} // the P-256 base point
	digest := bytes.Repeat([]byte{0xab}, 32)
	sig := []byte{0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x02}
	var enc []byte
	for _, f := range [][]byte{[]byte("fabvote/sigmemo/v1"), []byte("P-256"), x.Bytes(), y.Bytes(), digest, sig} {
		enc = binary.BigEndian.AppendUint64(enc, uint64(len(f)))
		enc = append(enc, f...)
	}
	want := sha256.Sum256(enc)
	got, ok := KeyOf(pub, digest, sig)
	if !ok || Key(want) != got {
		t.Fatalf("KeyOf = %x, %v; want %x", got, ok, want)
	}
	if h := hex.EncodeToString(got[:]); len(h) != 64 {
		t.Fatalf("key %s", h)
	}
}

// A key that cannot be encoded exactly is never memoised.
func TestKeyOfRefusesOddKeys(t *testing.T) {
	s := newSigned(t, "ballot")
	wide := new(big.Int).Lsh(big.NewInt(1), 257)
	for name, pub := range map[string]*ecdsa.PublicKey{
		"nil key":          nil,
		"no curve":         {X: s.pub.X, Y: s.pub.Y},
		"no X":             {Curve: elliptic.P256(), Y: s.pub.Y},
		"negative X":       {Curve: elliptic.P256(), X: new(big.Int).Neg(s.pub.X), Y: s.pub.Y},
		"Y wider than 256": {Curve: elliptic.P256(), X: s.pub.X, Y: wide},
	} {
		if _, ok := KeyOf(pub, s.digest, s.sig); ok {
			t.Errorf("%s: KeyOf accepted it", name)
		}
	}
}

// The memo holds at most its capacity: after more adds, it holds exactly the
// newest keys.
func TestBounded(t *testing.T) {
	const capacity = 4
	m := New(capacity)
	var keys []Key
	for i := 0; i < 10; i++ {
		k := Key{byte(i)}
		keys = append(keys, k)
		m.Verify(k, func() bool { return true })
		if m.Len() > capacity {
			t.Fatalf("after %d adds the memo holds %d keys, capacity %d", i+1, m.Len(), capacity)
		}
	}
	if m.Len() != capacity {
		t.Fatalf("memo holds %d keys, want %d", m.Len(), capacity)
	}
	for i, k := range keys[len(keys)-capacity:] {
		if !m.Verify(k, func() bool { t.Errorf("newest key %d was recomputed", i); return true }) {
			t.Fatal("refused")
		}
	}
}

// The oldest key is the one evicted.
func TestEvictsOldestFirst(t *testing.T) {
	m := New(2)
	a, b, c := Key{1}, Key{2}, Key{3}
	for _, k := range []Key{a, b, c} {
		m.Verify(k, func() bool { return true })
	}
	recomputed := func(k Key) bool {
		computed := false
		m.Verify(k, func() bool { computed = true; return true })
		return computed
	}
	if recomputed(c) || recomputed(b) {
		t.Fatal("one of the two newest keys was evicted")
	}
	if !recomputed(a) {
		t.Fatal("the oldest key is still held")
	}
}

func TestStats(t *testing.T) {
	m := New(8)
	k := Key{7}
	m.Verify(k, func() bool { return false })
	m.Verify(k, func() bool { return true })
	m.Verify(k, func() bool { return true })
	if hits, misses := m.Stats(); hits != 1 || misses != 2 {
		t.Fatalf("Stats = %d hits, %d misses; want 1, 2", hits, misses)
	}
}

// Concurrent verifications of the same and of different triples (run with -race).
func TestConcurrent(t *testing.T) {
	m := New(64)
	sigs := []signed{newSigned(t, "a"), newSigned(t, "b"), newSigned(t, "c")}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				s := sigs[(g+i)%len(sigs)]
				k, _ := KeyOf(s.pub, s.digest, s.sig)
				if !m.Verify(k, func() bool { return ecdsa.VerifyASN1(s.pub, s.digest, s.sig) }) {
					t.Error("a valid signature was refused")
					return
				}
				m.Verify(Key{byte(g), byte(i)}, func() bool { return true })
			}
		}(g)
	}
	wg.Wait()
	if m.Len() > 64 {
		t.Fatalf("memo holds %d keys, capacity 64", m.Len())
	}
}

func TestParseSetting(t *testing.T) {
	for _, tc := range []struct {
		in      string
		on, bad bool
	}{
		{"", false, false}, {"off", false, false}, {" on ", true, false}, {"on", true, false},
		{"ON", true, false}, {"yes", false, true}, {"1", false, true},
	} {
		on, err := parseSetting(tc.in)
		if on != tc.on || (err != nil) != tc.bad {
			t.Errorf("parseSetting(%q) = %v, %v; want on %v, error %v", tc.in, on, err, tc.on, tc.bad)
		}
	}
}

func TestNewRefusesNoCapacity(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("New(0) did not panic")
		}
	}()
	New(0)
}

func BenchmarkVerifyECDSA(b *testing.B) {
	s := newSigned(b, "ballot")
	for i := 0; i < b.N; i++ {
		ecdsa.VerifyASN1(s.pub, s.digest, s.sig)
	}
}

func BenchmarkMemoHit(b *testing.B) {
	s := newSigned(b, "ballot")
	m := New(Capacity)
	verify := func() bool { return ecdsa.VerifyASN1(s.pub, s.digest, s.sig) }
	k, _ := KeyOf(s.pub, s.digest, s.sig)
	m.Verify(k, verify)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k, _ := KeyOf(s.pub, s.digest, s.sig)
		if !m.Verify(k, verify) {
			b.Fatal("refused")
		}
	}
}
