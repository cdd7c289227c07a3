package threshold

import (
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/fabvote/fabvote/crypto/paillier"
)

var update = flag.Bool("update", false, "regenerate testdata/safe_primes.json and the fuzz seed corpus")

const vectorsFile = "testdata/safe_primes.json"

// primePair is a pair of safe primes in hexadecimal.
type primePair struct {
	Bits int    `json:"bits"`
	P    string `json:"p"`
	Q    string `json:"q"`
}

// testVectors are fixed safe primes so that tests need not generate them:
// Small (N of 512 bits) for quick property tests, Large (N of 2048 bits) for
// the real size.
type testVectors struct {
	Comment string    `json:"comment"`
	Small   primePair `json:"small"`
	Large   primePair `json:"large"`
}

const (
	sizeSmall = "small"
	sizeLarge = "large"
)

func loadVectors(t testing.TB) testVectors {
	t.Helper()
	b, err := os.ReadFile(vectorsFile)
	if err != nil {
		t.Fatalf("reading %s (regenerate with go test -run TestGenerateVectors -update): %v", vectorsFile, err)
	}
	var v testVectors
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("parsing %s: %v", vectorsFile, err)
	}
	return v
}

func (pp primePair) ints(t testing.TB) (*big.Int, *big.Int) {
	t.Helper()
	p, ok1 := new(big.Int).SetString(pp.P, 16)
	q, ok2 := new(big.Int).SetString(pp.Q, 16)
	if !ok1 || !ok2 {
		t.Fatalf("bad hex in %s", vectorsFile)
	}
	return p, q
}

func primesFor(t testing.TB, size string) (*big.Int, *big.Int) {
	t.Helper()
	v := loadVectors(t)
	if size == sizeLarge {
		return v.Large.ints(t)
	}
	return v.Small.ints(t)
}

type dealt struct {
	pp     *PublicParams
	shares []*KeyShare
}

var (
	dealMu    sync.Mutex
	dealCache = map[string]dealt{}
)

// testDeal deals K-of-L shares from the fixed primes of the given size,
// once per (size, K, L) for the whole test binary.
func testDeal(t testing.TB, size string, k, l int) (*PublicParams, []*KeyShare) {
	t.Helper()
	key := fmt.Sprintf("%s/%d/%d", size, k, l)
	dealMu.Lock()
	defer dealMu.Unlock()
	if d, ok := dealCache[key]; ok {
		return d.pp, d.shares
	}
	p, q := primesFor(t, size)
	pp, shares, err := dealFromPrimes(rand.Reader, p, q, k, l, 0)
	if err != nil {
		t.Fatalf("dealing %s: %v", key, err)
	}
	dealCache[key] = dealt{pp, shares}
	return pp, shares
}

// encrypt is Paillier encryption (1 + mN)·r^N mod N², written out here so the
// tests do not depend on the paillier package's encryption.
func encrypt(t testing.TB, pk *paillier.PublicKey, m *big.Int) *big.Int {
	t.Helper()
	for {
		r, err := rand.Int(rand.Reader, pk.N)
		if err != nil {
			t.Fatal(err)
		}
		if r.Sign() == 0 || new(big.Int).GCD(nil, nil, r, pk.N).Cmp(one) != 0 {
			continue
		}
		c := new(big.Int).Mul(m, pk.N)
		c.Add(c, one)
		c.Mul(c, new(big.Int).Exp(r, pk.N, pk.NSquared))
		return c.Mod(c, pk.NSquared)
	}
}

func randBelow(t testing.TB, n *big.Int) *big.Int {
	t.Helper()
	x, err := rand.Int(rand.Reader, n)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// partials has every trustee in idx partially decrypt c.
func partials(t testing.TB, pp *PublicParams, shares []*KeyShare, c *big.Int, idx ...int) []*PartialDecryption {
	t.Helper()
	out := make([]*PartialDecryption, len(idx))
	for n, i := range idx {
		pd, err := shares[i-1].partialDecrypt(rand.Reader, pp, c)
		if err != nil {
			t.Fatalf("trustee %d: %v", i, err)
		}
		out[n] = pd
	}
	return out
}

// subsets returns every k-element subset of 1..l in lexicographic order.
func subsets(k, l int) [][]int {
	var out [][]int
	var rec func(start int, cur []int)
	rec = func(start int, cur []int) {
		if len(cur) == k {
			out = append(out, append([]int(nil), cur...))
			return
		}
		for i := start; i <= l; i++ {
			rec(i+1, append(cur, i))
		}
	}
	rec(1, nil)
	return out
}

// writeFuzzSeed writes one seed in the go test fuzz v1 corpus format.
func writeFuzzSeed(t testing.TB, target, name string, data []byte) {
	t.Helper()
	dir := filepath.Join("testdata", "fuzz", target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readFuzzSeed reads back one []byte seed written by writeFuzzSeed.
func readFuzzSeed(t testing.TB, target, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "fuzz", target, name))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(raw), "\n", 3)
	if len(lines) < 2 || lines[0] != "go test fuzz v1" || !strings.HasPrefix(lines[1], "[]byte(") || !strings.HasSuffix(lines[1], ")") {
		t.Fatalf("%s/%s: not a go test fuzz v1 []byte seed", target, name)
	}
	s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
	if err != nil {
		t.Fatalf("%s/%s: %v", target, name, err)
	}
	return []byte(s)
}
