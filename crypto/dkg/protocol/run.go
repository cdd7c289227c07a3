package protocol

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"math/big"
	"time"

	"github.com/fabvote/fabvote/crypto/dkg/field"
	"github.com/fabvote/fabvote/crypto/dkg/keygen"
	"github.com/fabvote/fabvote/crypto/dkg/keyshare"
	"github.com/fabvote/fabvote/crypto/paillier/threshold"
)

// MaxBatch bounds the batch size: a batch's largest body (the sieve deals)
// stays well inside the codec's caps.
const MaxBatch = 1024

// Config is a ceremony's public configuration, the same for every trustee.
type Config struct {
	Trustees int    // n, field.MinParties..field.MaxParties
	K        int    // decryption threshold, 1..n
	Bits     int    // bits of N (as crypto/dkg/sieve accepts)
	Ceremony []byte // keygen.CeremonyIDLen bytes
	Batch    int    // candidate pairs sieved per batch, 1..MaxBatch

	// verify replaces keygen.Public.Verify; tests below its 2048-bit
	// minimum set it. Nil in every real ceremony.
	verify func(*keygen.Public) error
	// reveal, when set, is told the trustee's secrets of the accepted key
	// at the end (tests of what the others see). Nil in every real ceremony.
	reveal func(revealed)
}

func (c Config) check() error {
	switch {
	case c.Trustees < field.MinParties || c.Trustees > field.MaxParties:
		return fmt.Errorf("protocol: %d trustees, need %d to %d", c.Trustees, field.MinParties, field.MaxParties)
	case c.K < 1 || c.K > c.Trustees:
		return fmt.Errorf("protocol: threshold K = %d, need 1..%d", c.K, c.Trustees)
	case len(c.Ceremony) != keygen.CeremonyIDLen:
		return fmt.Errorf("protocol: ceremony id of %d bytes, want %d", len(c.Ceremony), keygen.CeremonyIDLen)
	case c.Batch < 1 || c.Batch > MaxBatch:
		return fmt.Errorf("protocol: batch of %d candidates, need 1..%d", c.Batch, MaxBatch)
	}
	return nil
}

// Output is one trustee's result of a ceremony.
type Output struct {
	Public *keygen.Public      // identical on every trustee, verified
	Share  *threshold.KeyShare // this trustee's share
	Stats  Stats
}

// Stats is one trustee's count of the work and traffic of a ceremony.
type Stats struct {
	Candidates           int   // candidate moduli sieved (whole batches)
	TrialDivisionRejects int   // candidates trial division refused
	BiprimalityTests     int   // candidates that survived it, each tested
	Batches              int   // sieve batches run
	Rounds               int   // message rounds received
	BytesSent            int64 // bodies handed to the transport (a broadcast once)
	BytesReceived        int64 // bodies received
	Duration             time.Duration
}

// revealed is a trustee's secrets of the accepted key, for tests only.
type revealed struct {
	me      int
	p, q, m *big.Int
	party   *keyshare.Party // holds D_i
	share   *threshold.KeyShare
}

// Run is trustee me's (1..n) whole key ceremony over t: the batched sieve
// until a modulus is accepted, the key-share step, the Πmod proof, the
// self-test, and the check of the public result. random nil means
// crypto/rand. Every error names the round it happened in.
func Run(ctx context.Context, cfg Config, me int, t Transport, random io.Reader) (*Output, error) {
	start := time.Now()
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if me < 1 || me > cfg.Trustees {
		return nil, fmt.Errorf("protocol: trustee %d outside 1..%d", me, cfg.Trustees)
	}
	if t == nil {
		return nil, fmt.Errorf("protocol: trustee %d has no transport", me)
	}
	if random == nil {
		random = rand.Reader
	}
	s := &session{ctx: ctx, cfg: cfg, me: me, t: t, random: random, stats: &Stats{}}
	for i := 1; i <= cfg.Trustees; i++ {
		s.all = append(s.all, i)
	}
	acc, err := s.findModulus()
	if err != nil {
		return nil, err
	}
	pub, share, err := s.finish(acc)
	if err != nil {
		return nil, err
	}
	s.stats.Duration = time.Since(start)
	return &Output{Public: pub, Share: share, Stats: *s.stats}, nil
}

// session is one trustee's run: its configuration, transport, randomness
// and counts. It holds no other trustee's secret.
type session struct {
	ctx    context.Context
	cfg    Config
	me     int
	t      Transport
	random io.Reader
	stats  *Stats
	all    []int // 1..n
}

// broadcast encodes lists with shape sh and broadcasts them for round r.
func (s *session) broadcast(r Round, sh shape, lists ...[]*big.Int) error {
	b, err := sh.encode(lists...)
	if err != nil {
		return fmt.Errorf("protocol: round %s: %w", r, err)
	}
	s.stats.BytesSent += int64(len(b))
	if err := s.t.Broadcast(s.ctx, r, b); err != nil {
		return fmt.Errorf("protocol: round %s: broadcast: %w", r, err)
	}
	return nil
}

// sendEach sends every trustee k its own body, lists(k), of shape sh.
func (s *session) sendEach(r Round, sh shape, lists func(k int) [][]*big.Int) error {
	for _, k := range s.all {
		b, err := sh.encode(lists(k)...)
		if err != nil {
			return fmt.Errorf("protocol: round %s: %w", r, err)
		}
		s.stats.BytesSent += int64(len(b))
		if err := s.t.Send(s.ctx, r, k, b); err != nil {
			return fmt.Errorf("protocol: round %s: sending to trustee %d: %w", r, k, err)
		}
	}
	return nil
}

// receive takes one body of shape sh from each trustee in from and returns
// their lists, in the order of from. A missing body is named with its
// sender; a malformed one too.
func (s *session) receive(r Round, from []int, sh shape) ([][][]*big.Int, error) {
	msgs, err := s.t.Receive(s.ctx, r, from)
	if err != nil {
		return nil, fmt.Errorf("protocol: round %s: no message from trustee %s: %w", r, missing(from, msgs), err)
	}
	s.stats.Rounds++
	if len(msgs) != len(from) {
		return nil, fmt.Errorf("protocol: round %s: %d messages for %d senders", r, len(msgs), len(from))
	}
	out := make([][][]*big.Int, len(msgs))
	for i, m := range msgs {
		if m.From != from[i] {
			return nil, fmt.Errorf("protocol: round %s: message %d is from trustee %d, want %d", r, i+1, m.From, from[i])
		}
		s.stats.BytesReceived += int64(len(m.Body))
		if out[i], err = sh.decode(m.Body); err != nil {
			return nil, fmt.Errorf("protocol: round %s: message from trustee %d: %w", r, m.From, err)
		}
	}
	return out, nil
}

// receiveFlat is receive for one-list shapes: the single list of each.
func (s *session) receiveFlat(r Round, from []int, sh shape) ([][]*big.Int, error) {
	lists, err := s.receive(r, from, sh)
	if err != nil {
		return nil, err
	}
	out := make([][]*big.Int, len(lists))
	for i, l := range lists {
		out[i] = l[0]
	}
	return out, nil
}

// missing lists the senders in from without a message in got, e.g. "2, 3".
func missing(from []int, got []Message) string {
	have := map[int]bool{}
	for _, m := range got {
		have[m.From] = true
	}
	out := ""
	for _, f := range from {
		if !have[f] {
			if out != "" {
				out += ", "
			}
			out += fmt.Sprint(f)
		}
	}
	return out
}

// wipe clears the words of secret integers (best effort: math/big may have
// left copies).
func wipe(xs ...*big.Int) {
	for _, x := range xs {
		if x != nil {
			clear(x.Bits())
		}
	}
}
