package ballot

import (
	"encoding/base64"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/benchcpu"
)

// BenchmarkCastBallot measures a whole CastBallot (decode, window, token,
// signature, duplicate read, proof, write) on the fake stub with 2048-bit N
// and 4 candidates, with the proof checked directly or batched across
// concurrent casts, or left to the validation plugin (proof-at-validation,
// O-IV: what endorsement costs when every peer checks the proof at commit). Nothing is committed, so the same ballots can be cast
// again. Per-op time under RunParallel is wall time / casts, i.e. the
// inverse of the throughput on this machine's cores; cpu-ns/op is the CPU
// time per cast (steadier on a shared machine).
//
//	go test -run '^$' -bench CastBallot -benchtime 200x ./chaincode/ballot
func BenchmarkCastBallot(b *testing.B) {
	m, ballots := e1(b)
	raw := make([][]byte, len(ballots))
	for i, bl := range ballots {
		raw[i] = bl.Marshal()
	}
	for _, bc := range []struct {
		name         string
		v            func() election.ProofVerifier
		atValidation bool
	}{
		// O-IV: the definition names the ballot validation plugin, so the
		// endorsement makes every check but the proof.
		{"proof-at-validation", func() election.ProofVerifier { return election.DirectVerifier{} }, true},
		{"direct", func() election.ProofVerifier { return election.DirectVerifier{} }, false},
		{"batch64-2ms", func() election.ProofVerifier { return NewBatcher(64, 2*time.Millisecond) }, false},
		{"batch64-5ms", func() election.ProofVerifier { return NewBatcher(64, 5*time.Millisecond) }, false},
		{"batch64-10ms", func() election.ProofVerifier { return NewBatcher(64, 10*time.Millisecond) }, false},
		{"batch256-5ms", func() election.ProofVerifier { return NewBatcher(256, 5*time.Millisecond) }, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			w := newWorld()
			c := New(Config{Verifier: bc.v(), ProofAtValidation: bc.atValidation, MaxClockSkew: DefaultMaxClockSkew, Now: func() time.Time { return during }})
			enc, _ := m.Marshal()
			s := w.tx(during)
			if err := c.OpenElection(txctx(s, authority), string(enc)); err != nil {
				b.Fatal(err)
			}
			s.commit()
			var next atomic.Int64
			b.SetParallelism(16) // many casts in flight, as a loaded peer has
			b.ResetTimer()
			start := benchcpu.Now(b)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := next.Add(1)
					s := w.tx(during)
					if _, err := c.CastBallot(txctx(s, outsider), raw[int(i)%len(raw)]); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.StopTimer()
			benchcpu.Report(b, start, 1)
			if bt, ok := c.e.verifier.(*Batcher); ok {
				batches, items := bt.BatchStats()
				if batches > 0 {
					b.ReportMetric(float64(items)/float64(batches), "proofs/batch")
				}
			}
		})
	}
}

// BenchmarkLedgerProduct measures PublishResult's scan: read, decode and
// multiply every stored ballot of an election (here 2000 records on the fake
// stub). ns/op divided by 2000 is the cost per ballot; 40 000 ballots cost
// 20× one op.
//
//	go test -run '^$' -bench LedgerProduct -benchtime 5x ./chaincode/ballot
func BenchmarkLedgerProduct(b *testing.B) {
	const n = 2000
	m, ballots := e1(b)
	p, err := election.Prepare(m)
	if err != nil {
		b.Fatal(err)
	}
	w := newWorld()
	s := w.tx(during)
	for i := 0; i < n; i++ {
		key, _ := ballotKey(txctx(s, ""), "e1", fmt.Sprintf("%064x", i))
		w.state[key] = (&election.Record{TxID: "tx", Ballot: ballots[i%len(ballots)].Marshal()}).Marshal()
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, count, err := ledgerProduct(txctx(w.tx(after), trustee), p)
		if err != nil || count != n {
			b.Fatal(count, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/ballot")
}

// BenchmarkCastBallotCheapChecks measures everything a cast costs except the
// proof: decoding, window, ciphertext range, token and signature
// verification and the duplicate read (the ballot's voter has already voted,
// so every cast ends with DUPLICATE just before the proof check).
//
//	go test -run '^$' -bench CastBallotCheapChecks ./chaincode/ballot
func BenchmarkCastBallotCheapChecks(b *testing.B) {
	m, ballots := e1(b)
	w := newWorld()
	c := New(Config{MaxClockSkew: DefaultMaxClockSkew, Now: func() time.Time { return during }})
	enc, _ := m.Marshal()
	s := w.tx(during)
	if err := c.OpenElection(txctx(s, authority), string(enc)); err != nil {
		b.Fatal(err)
	}
	s.commit()
	raw := ballots[0].Marshal()
	s = w.tx(during)
	if _, err := c.CastBallot(txctx(s, outsider), raw); err != nil {
		b.Fatal(err)
	}
	s.commit()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, err := c.CastBallot(txctx(w.tx(during), outsider), raw)
		if election.CodeOf(err) != election.CodeDuplicate {
			b.Fatal(err)
		}
	}
}

// acceptProofs is a verifier that accepts every proof without checking it.
// Benchmarks only: it isolates what a cast costs besides the proof math.
type acceptProofs struct{}

func (acceptProofs) Verify(election.Proofs) error { return nil }

// BenchmarkInvokeCastBallotNoProof drives a successful CastBallot the way the
// peer does — the shim's Invoke with a serialized creator and the ballot as a
// string argument, through contractapi's routing, identity parsing and
// parameter handling — with the proof verifier replaced by one that accepts,
// so the figure is everything a cast costs except the proof exponentiations
// (ParseProof still runs). Each op is a fresh, uncommitted transaction.
//
//	go test -run '^$' -bench InvokeCastBallotNoProof -benchmem -cpuprofile /tmp/cast.prof ./chaincode/ballot
func BenchmarkInvokeCastBallotNoProof(b *testing.B) {
	m, ballots := e1(b)
	cc, err := NewChaincode(Config{Verifier: acceptProofs{}, MaxClockSkew: DefaultMaxClockSkew, Now: func() time.Time { return during }})
	if err != nil {
		b.Fatal(err)
	}
	w := newWorld()
	enc, _ := m.Marshal()
	s := w.tx(during)
	s.creator, s.fn, s.args = creatorFor(b, authority), "OpenElection", []string{string(enc)}
	if resp := cc.Invoke(s); resp.Status != 200 {
		b.Fatal(resp.Message)
	}
	s.commit()
	party := creatorFor(b, outsider)
	for _, form := range []struct {
		name string
		arg  func(*election.Ballot) string
	}{
		{"binary", func(bl *election.Ballot) string { return string(bl.Marshal()) }},
		{"base64", func(bl *election.Ballot) string { return base64.StdEncoding.EncodeToString(bl.Marshal()) }},
	} {
		args := make([]string, len(ballots))
		for i, bl := range ballots {
			args[i] = form.arg(bl)
		}
		b.Run(form.name, func(b *testing.B) {
			b.ReportAllocs()
			start := benchcpu.Now(b)
			for i := 0; i < b.N; i++ {
				s := w.tx(during)
				s.creator, s.fn, s.args = party, "CastBallot", []string{args[i%len(args)]}
				if resp := cc.Invoke(s); resp.Status != 200 {
					b.Fatal(resp.Message)
				}
			}
			benchcpu.Report(b, start, 1)
		})
	}
}
