package protocol

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabvote/fabvote/crypto/dkg/keygen"
	"github.com/fabvote/fabvote/crypto/dkg/keyshare"
	"github.com/fabvote/fabvote/crypto/dkg/wellformed"
	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/crypto/paillier/threshold/thresholdtest"
)

var ceremony = []byte("protocol-test-16")

// trusteeRand is trustee i's reproducible randomness for a seed.
func trusteeRand(seed uint64, i int) *mrand.ChaCha8 {
	var s [32]byte
	s[0], s[1] = byte(seed), byte(seed>>8)
	s[31] = byte(i)
	return mrand.NewChaCha8(s)
}

// verifySmall is Public.Verify without its 2048-bit minimum, for the
// faster tests: the modulus proof and the self-test of every K-subset.
func verifySmall(p *keygen.Public) error {
	if err := wellformed.Verify(p.Params.PublicKey.N, p.Ceremony, p.ModulusProof); err != nil {
		return err
	}
	c, m, err := threshold.SelfTestCiphertext(p.Params, p.Ceremony)
	if err != nil {
		return err
	}
	return keyshare.CheckSelfTest(p.Params, c, m, p.SelfTest)
}

// ceremonyRun is the outcome of running trustees as goroutines.
type ceremonyRun struct {
	outs []*Output
	errs []error
}

// runAll runs the trustees in only (all when nil) over one memory network;
// wrap may replace a trustee's transport.
func runAll(ctx context.Context, cfg Config, seed uint64, only []int, wrap func(i int, t Transport) Transport) ceremonyRun {
	if only == nil {
		for i := 1; i <= cfg.Trustees; i++ {
			only = append(only, i)
		}
	}
	net := NewMemory(cfg.Trustees)
	res := ceremonyRun{outs: make([]*Output, cfg.Trustees), errs: make([]error, cfg.Trustees)}
	var wg sync.WaitGroup
	for _, i := range only {
		wg.Go(func() {
			t := net.Transport(i)
			if wrap != nil {
				t = wrap(i, t)
			}
			res.outs[i-1], res.errs[i-1] = Run(ctx, cfg, i, t, trusteeRand(seed, i))
		})
	}
	wg.Wait()
	return res
}

// recorder keeps every body its trustee receives.
type recorder struct {
	Transport
	mu     sync.Mutex
	bodies [][]byte
}

func (r *recorder) Receive(ctx context.Context, round Round, from []int) ([]Message, error) {
	msgs, err := r.Transport.Receive(ctx, round, from)
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range msgs {
		r.bodies = append(r.bodies, m.Body)
	}
	return msgs, err
}

// Whole ceremonies: every trustee ends with the same verified result, any
// K shares decrypt, and no trustee received another's secrets.
func TestRun(t *testing.T) {
	for _, tc := range []struct {
		n, k, bits, batch int
		seed              uint64
		verify            func(*keygen.Public) error
	}{
		{3, 2, 1024, 128, 1, verifySmall},
		{5, 3, 512, 128, 2, verifySmall},
		{3, 2, 2048, 512, 3, nil},
	} {
		t.Run(fmt.Sprintf("%d-of-%d/%d", tc.k, tc.n, tc.bits), func(t *testing.T) {
			if tc.bits == 2048 && testing.Short() {
				t.Skip("a 2048-bit ceremony takes about a minute")
			}
			var mu sync.Mutex
			secrets := make([]secretsOf, tc.n)
			recorders := make([]*recorder, tc.n)
			cfg := Config{Trustees: tc.n, K: tc.k, Bits: tc.bits, Ceremony: ceremony, Batch: tc.batch, verify: tc.verify,
				reveal: func(r revealed) { mu.Lock(); secrets[r.me-1] = copySecrets(t, r); mu.Unlock() }}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			res := runAll(ctx, cfg, tc.seed, nil, func(i int, tr Transport) Transport {
				recorders[i-1] = &recorder{Transport: tr}
				return recorders[i-1]
			})
			for i, err := range res.errs {
				if err != nil {
					t.Fatalf("trustee %d: %v", i+1, err)
				}
			}
			st := res.outs[0].Stats
			t.Logf("%d-of-%d, %d bits, batch %d: %d candidates, %d trial-division rejects, %d biprimality tests, %d batches, %d message rounds, %d MB sent, %d MB received, %s",
				tc.k, tc.n, tc.bits, tc.batch, st.Candidates, st.TrialDivisionRejects, st.BiprimalityTests, st.Batches, st.Rounds,
				st.BytesSent>>20, st.BytesReceived>>20, st.Duration.Round(time.Millisecond))
			checkIdentical(t, res.outs)
			if tc.verify == nil {
				if err := res.outs[0].Public.Verify(); err != nil {
					t.Fatal(err)
				}
			}
			checkDecrypts(t, res.outs)
			checkViews(t, secrets, recorders)
		})
	}
}

// checkIdentical requires the same public result, byte for byte, on every
// trustee.
func checkIdentical(t *testing.T, outs []*Output) {
	t.Helper()
	want := encodePublic(t, outs[0].Public)
	for i, o := range outs[1:] {
		if !bytes.Equal(encodePublic(t, o.Public), want) {
			t.Fatalf("trustee %d's public result differs from trustee 1's", i+2)
		}
	}
}

func encodePublic(t *testing.T, p *keygen.Public) []byte {
	t.Helper()
	out, err := p.Params.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	proof, err := p.ModulusProof.Marshal(p.Params.PublicKey.N)
	if err != nil {
		t.Fatal(err)
	}
	out = append(append(out, p.Ceremony...), proof...)
	for _, pd := range p.SelfTest {
		b, err := pd.Marshal(p.Params)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b...)
	}
	return out
}

// checkDecrypts requires every trustee's share to match the parameters and
// every K of them to decrypt a fresh ciphertext.
func checkDecrypts(t *testing.T, outs []*Output) {
	t.Helper()
	pp := outs[0].Public.Params
	msg := big.NewInt(20261129)
	c, _, err := pp.PublicKey.Encrypt(rand.Reader, msg)
	if err != nil {
		t.Fatal(err)
	}
	parts := make([]*threshold.PartialDecryption, len(outs))
	for i, o := range outs {
		if o.Share.Index != i+1 {
			t.Fatalf("trustee %d holds share %d", i+1, o.Share.Index)
		}
		if err := o.Share.Check(pp); err != nil {
			t.Fatalf("trustee %d: %v", i+1, err)
		}
		if parts[i], err = thresholdtest.PartialDecrypt(o.Share, pp, c); err != nil {
			t.Fatal(err)
		}
	}
	for _, set := range subsets(len(outs), pp.K) {
		var ps []*threshold.PartialDecryption
		for _, i := range set {
			ps = append(ps, parts[i])
		}
		got, err := pp.Combine(c, ps)
		if err != nil || got.Cmp(msg) != 0 {
			t.Fatalf("trustees %v decrypt to %v, %v", set, got, err)
		}
	}
}

func subsets(n, k int) [][]int {
	if k == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for last := k - 1; last < n; last++ {
		for _, s := range subsets(last, k-1) {
			out = append(out, append(s, last))
		}
	}
	return out
}

// A trustee that stays silent makes the others fail at the first round
// with an error naming it and the round.
func TestSilentTrustee(t *testing.T) {
	cfg := Config{Trustees: 3, K: 2, Bits: 1024, Ceremony: ceremony, Batch: 4, verify: verifySmall}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	res := runAll(ctx, cfg, 4, []int{1, 2}, nil)
	for i := range 2 {
		err := res.errs[i]
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "round sieve batch 0 step 1: no message from trustee 3") {
			t.Fatalf("trustee %d: got %v, want a deadline naming the round and trustee 3", i+1, err)
		}
	}
}

// failing fails every Send of its trustee.
type failing struct{ Transport }

var errLink = errors.New("link down")

func (failing) Send(context.Context, Round, int, []byte) error { return errLink }

// A trustee whose transport fails stops with the transport's error and
// the round; the others time out naming it.
func TestTransportFails(t *testing.T) {
	cfg := Config{Trustees: 3, K: 2, Bits: 1024, Ceremony: ceremony, Batch: 4, verify: verifySmall}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	res := runAll(ctx, cfg, 5, nil, func(i int, tr Transport) Transport {
		if i == 2 {
			return failing{tr}
		}
		return tr
	})
	if err := res.errs[1]; !errors.Is(err, errLink) || !strings.Contains(err.Error(), "round sieve batch 0 step 1: sending to trustee 1") {
		t.Fatalf("trustee 2: got %v, want the transport's error with the round", err)
	}
	for _, i := range []int{0, 2} {
		if err := res.errs[i]; !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no message from trustee 2") {
			t.Fatalf("trustee %d: got %v, want a deadline naming trustee 2", i+1, err)
		}
	}
}

// Each kind of bad configuration or argument is refused, naming it.
func TestRunRefuses(t *testing.T) {
	good := Config{Trustees: 3, K: 2, Bits: 1024, Ceremony: ceremony, Batch: 4}
	tr := NewMemory(3).Transport(1)
	for _, tc := range []struct {
		name   string
		change func(c *Config)
		me     int
		t      Transport
		want   string
	}{
		{"two trustees", func(c *Config) { c.Trustees = 2 }, 1, tr, "2 trustees"},
		{"six trustees", func(c *Config) { c.Trustees = 6 }, 1, tr, "6 trustees"},
		{"threshold 0", func(c *Config) { c.K = 0 }, 1, tr, "K = 0"},
		{"threshold above n", func(c *Config) { c.K = 4 }, 1, tr, "K = 4"},
		{"short ceremony id", func(c *Config) { c.Ceremony = ceremony[:8] }, 1, tr, "ceremony id of 8 bytes"},
		{"batch 0", func(c *Config) { c.Batch = 0 }, 1, tr, "batch of 0"},
		{"batch over the cap", func(c *Config) { c.Batch = MaxBatch + 1 }, 1, tr, "batch of 1025"},
		{"odd modulus size", func(c *Config) { c.Bits = 1023 }, 1, tr, "1023 bits"},
		{"trustee 0", func(*Config) {}, 0, tr, "trustee 0 outside 1..3"},
		{"trustee n+1", func(*Config) {}, 4, tr, "trustee 4 outside 1..3"},
		{"no transport", func(*Config) {}, 1, nil, "no transport"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := good
			tc.change(&cfg)
			_, err := Run(context.Background(), cfg, tc.me, tc.t, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error naming %q", err, tc.want)
			}
		})
	}
}
