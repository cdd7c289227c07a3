package zkp

import (
	"math/big"
	"testing"

	"github.com/fabvote/fabvote/crypto/paillier"
	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/internal/benchcpu"
)

// contestBallot is one voter's ciphertexts for the contests of a layout,
// with a proof per statement.
type contestBallot struct {
	slots  [][]*big.Int // per contest, its ciphertexts
	proofs [][]*ValidityProof
	ctxs   [][]*Context // per contest, per statement
}

// statementCiphertext is Π c[Slots[i]]^Exps[i] mod N²: what the verifier
// derives from a ballot's ciphertexts for st, and the prover's nonce for it
// from the slots' nonces (mod N).
func statementCiphertext(pk *paillier.PublicKey, st votecode.Statement, cs []*big.Int, mod *big.Int) *big.Int {
	x := big.NewInt(1)
	for i, slot := range st.Slots {
		y := cs[slot]
		if st.Exps[i] != 1 {
			y = new(big.Int).Exp(y, big.NewInt(st.Exps[i]), mod)
		}
		x.Mul(x, y).Mod(x, mod)
	}
	return x
}

// newContestBallot encrypts sels (one per contest of l) and proves every
// statement, each under base's context with the statement's messages.
func newContestBallot(tb testing.TB, base *Context, l *votecode.Layout, sels []votecode.Selection) *contestBallot {
	tb.Helper()
	pk := base.PublicKey
	b := &contestBallot{}
	for i := range l.Contests {
		c := &l.Contests[i]
		plaintexts, choices, err := c.Encode(sels[i])
		if err != nil {
			tb.Fatal(err)
		}
		var cs, rs []*big.Int
		for _, m := range plaintexts {
			ci, ri, err := pk.Encrypt(nil, m)
			if err != nil {
				tb.Fatal(err)
			}
			cs, rs = append(cs, ci), append(rs, ri)
		}
		var proofs []*ValidityProof
		var ctxs []*Context
		for k, st := range c.Statements() {
			ctx := *base
			ctx.Messages = st.Messages
			pr, err := ProveValidity(nil, &ctx, statementCiphertext(pk, st, cs, pk.NSquared), choices[k], statementCiphertext(pk, st, rs, pk.N))
			if err != nil {
				tb.Fatal(err)
			}
			proofs, ctxs = append(proofs, pr), append(ctxs, &ctx)
		}
		b.slots, b.proofs, b.ctxs = append(b.slots, cs), append(b.proofs, proofs), append(b.ctxs, ctxs)
	}
	return b
}

// items derives each statement's ciphertext from the ballot's ciphertexts,
// as a verifier does, and returns the batch items.
func (b *contestBallot) items(l *votecode.Layout, out []BatchItem) []BatchItem {
	for i := range l.Contests {
		for k, st := range l.Contests[i].Statements() {
			ctx := b.ctxs[i][k]
			c := statementCiphertext(ctx.PublicKey, st, b.slots[i], ctx.PublicKey.NSquared)
			out = append(out, BatchItem{Ctx: ctx, C: c, Proof: b.proofs[i][k]})
		}
	}
	return out
}

// layoutCase is a ballot's contests, each forced to a layout kind.
type layoutCase struct {
	name   string
	shapes []votecode.Shape
	kinds  []votecode.Kind
}

func layoutCases() []layoutCase {
	one := func(name string, s votecode.Shape) []layoutCase {
		return []layoutCase{
			{name + "/packed", []votecode.Shape{s}, []votecode.Kind{votecode.Packed}},
			{name + "/per-option", []votecode.Shape{s}, []votecode.Kind{votecode.PerOption}},
		}
	}
	var cs []layoutCase
	for _, c := range []struct {
		name string
		s    votecode.Shape
	}{
		{"1-of-4", votecode.Shape{Options: 4, Min: 1, Max: 1}},
		{"1-of-4+blank", votecode.Shape{Options: 4, Min: 1, Max: 1, Blank: true}},
		{"1-of-10", votecode.Shape{Options: 10, Min: 1, Max: 1}},
		{"2-of-5", votecode.Shape{Options: 5, Min: 2, Max: 2}},
		{"up-to-2-of-5+blank", votecode.Shape{Options: 5, Min: 0, Max: 2, Blank: true}},
		{"3-of-9", votecode.Shape{Options: 9, Min: 3, Max: 3}},
		{"up-to-3-of-9", votecode.Shape{Options: 9, Min: 0, Max: 3}},
		{"yes-no", votecode.Shape{Options: 2, Min: 1, Max: 1}},
		{"yes-no+blank", votecode.Shape{Options: 2, Min: 1, Max: 1, Blank: true}},
	} {
		cs = append(cs, one(c.name, c.s)...)
	}
	three := []votecode.Shape{{Options: 4, Min: 1, Max: 1}, {Options: 5, Min: 0, Max: 2, Blank: true}, {Options: 2, Min: 1, Max: 1}}
	var kinds []votecode.Kind
	for _, s := range three {
		kinds = append(kinds, s.Kind())
	}
	return append(cs, layoutCase{"3-contests/chosen", three, kinds})
}

// layout lays the case out, with a valid selection per contest.
func (lc layoutCase) layout(tb testing.TB) (*votecode.Layout, []votecode.Selection) {
	tb.Helper()
	l, err := votecode.NewLayoutKinds(20, lc.shapes, lc.kinds)
	if err != nil {
		tb.Fatal(err)
	}
	sels := make([]votecode.Selection, len(lc.shapes))
	for i, s := range lc.shapes {
		sels[i] = firstSelection(s)
	}
	return l, sels
}

// firstSelection is a valid selection of every contest: its first Min
// options (none when Min is 0).
func firstSelection(s votecode.Shape) votecode.Selection {
	sel := votecode.Selection{}
	for j := 0; j < s.Min; j++ {
		sel.Options = append(sel.Options, j)
	}
	return sel
}

// BenchmarkContestLayouts measures the proof verification of a block of
// 500 ballots of each contest shape in both layouts (and the 3-contest
// ballot in the layouts Kind chooses), per ballot: wall time, CPU time,
// the branches and ciphertexts proved and the proof bytes. It is what
// votecode.StatementCost and the cost table of docs/PROTOCOL.md section 3.7 come from.
// The block repeats 10 distinct ballots 50 times: the batch check's cost
// does not depend on whether bases repeat, and proving 500 ballots of 130
// branches would take minutes.
func BenchmarkContestLayouts(b *testing.B) {
	const block, distinct = 500, 10
	base := testContext(b, testKey(b, 2048), "voter")
	for _, lc := range layoutCases() {
		b.Run(lc.name, func(b *testing.B) {
			l, sels := lc.layout(b)
			pool := make([]*contestBallot, distinct)
			for i := range pool {
				ctx := *base
				ctx.VoterKeyHash[0] = byte(i)
				pool[i] = newContestBallot(b, &ctx, l, sels)
			}
			branches, stmts := 0, 0
			for _, it := range pool[0].items(l, nil) {
				branches += len(it.Ctx.Messages)
				stmts++
			}
			start := benchcpu.Now(b)
			for b.Loop() {
				var items []BatchItem
				for i := 0; i < block; i++ {
					items = pool[i%distinct].items(l, items)
				}
				for i, err := range VerifyBatch(nil, items) {
					if err != nil {
						b.Fatalf("item %d: %v", i, err)
					}
				}
			}
			benchcpu.Report(b, start, block)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*block), "ns/ballot")
			b.ReportMetric(float64(branches), "branches")
			b.ReportMetric(float64(stmts), "statements")
			b.ReportMetric(float64(branches*base.branchLen()), "proof-bytes")
		})
	}
}

func TestContestBallotsVerify(t *testing.T) {
	if testing.Short() {
		t.Skip("proves a ballot of every case")
	}
	base := testContext(t, testKey(t, 2048), "harriet")
	for _, lc := range layoutCases() {
		t.Run(lc.name, func(t *testing.T) {
			l, sels := lc.layout(t)
			items := newContestBallot(t, base, l, sels).items(l, nil)
			for i, err := range VerifyBatch(nil, items) {
				if err != nil {
					t.Fatalf("statement %d: %v", i, err)
				}
			}
		})
	}
}

// TestContestLimitsRefused encrypts digit vectors that break a contest's
// rule, each bit a valid 0/1, proves every statement as a cheating prover
// would (naming the closest message), and checks that exactly the sum
// statement fails: too many options, too few, and blank with an option.
func TestContestLimitsRefused(t *testing.T) {
	base := testContext(t, testKey(t, 2048), "ines")
	pk := base.PublicKey
	shape := votecode.Shape{Options: 9, Min: 1, Max: 3, Blank: true}
	l, err := votecode.NewLayoutKinds(20, []votecode.Shape{shape}, []votecode.Kind{votecode.PerOption})
	if err != nil {
		t.Fatal(err)
	}
	c := &l.Contests[0]
	for _, tc := range []struct {
		name   string
		digits []int64 // options 0..8, then blank
	}{
		{"four options", []int64{1, 1, 1, 1, 0, 0, 0, 0, 0, 0}},
		{"no option, no blank", []int64{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"blank and an option", []int64{0, 0, 0, 0, 0, 0, 0, 0, 1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cs, rs []*big.Int
			for _, d := range tc.digits {
				ci, ri, err := pk.Encrypt(nil, big.NewInt(d))
				if err != nil {
					t.Fatal(err)
				}
				cs, rs = append(cs, ci), append(rs, ri)
			}
			b := &contestBallot{slots: [][]*big.Int{cs}}
			var proofs []*ValidityProof
			var ctxs []*Context
			stmts := c.Statements()
			for k, st := range stmts {
				ctx := *base
				ctx.Messages = st.Messages
				choice := 0
				if k < len(tc.digits) {
					choice = int(tc.digits[k])
				}
				pr, err := ProveValidity(nil, &ctx, statementCiphertext(pk, st, cs, pk.NSquared), choice, statementCiphertext(pk, st, rs, pk.N))
				if err != nil {
					t.Fatal(err)
				}
				proofs, ctxs = append(proofs, pr), append(ctxs, &ctx)
			}
			b.proofs, b.ctxs = [][]*ValidityProof{proofs}, [][]*Context{ctxs}
			errs := VerifyBatch(nil, b.items(l, nil))
			for k, err := range errs {
				if sum := k == len(stmts)-1; (err != nil) != sum {
					t.Fatalf("statement %d (sum: %v): err = %v", k, sum, err)
				}
			}
		})
	}
}

// TestPackedBound: a packed contest's proof has at most as many branches
// as a context may have messages.
func TestPackedBound(t *testing.T) {
	if votecode.MaxPackedSelections > MaxCandidates {
		t.Fatalf("votecode.MaxPackedSelections = %d exceeds the %d messages a context allows", votecode.MaxPackedSelections, MaxCandidates)
	}
}
