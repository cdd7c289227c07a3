package election

import (
	"bytes"
	"crypto/ecdh"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/crypto/paillier"
	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/crypto/zkp"
)

// multiContest is a Prepared of three contests, one of them per-option,
// and two styles ("north": all three; "south": the first and the last),
// over the committed 2048-bit test key: the statement paths of several
// contests (several ciphertexts, derived sum ciphertexts, tally weights)
// without the keys and checks of a whole manifest.
func multiContest(t *testing.T) (*Prepared, *paillier.PrivateKey) {
	t.Helper()
	pem, err := os.ReadFile("../crypto/zkp/testdata/key2048.pem")
	if err != nil {
		t.Fatal(err)
	}
	sk, err := paillier.ParsePrivateKeyPEM(pem)
	if err != nil {
		t.Fatal(err)
	}
	m := &Manifest{ElectionID: "multi", ChallengeBits: 128, EncodingBits: 10, Contests: []Contest{
		NewContest("mayor", "Mayor", []string{"a", "b", "c", "d"}, 1, 1, false),
		NewContest("council", "Council", []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"}, 0, 3, true),
		NewContest("referendum", "Referendum", []string{"yes", "no"}, 1, 1, false),
	}, Styles: []Style{{ID: "north", Contests: []string{"mayor", "council", "referendum"}}, {ID: "south", Contests: []string{"mayor", "referendum"}}}}
	layout, err := m.layout()
	if err != nil {
		t.Fatal(err)
	}
	if layout.Contests[1].Kind != votecode.PerOption {
		t.Fatal("the test wants its second contest per-option")
	}
	p := &Prepared{Manifest: m, PublicKey: &sk.PublicKey, Layout: layout}
	if err := p.prepareStatements(); err != nil {
		t.Fatal(err)
	}
	return p, sk
}

// unsignedBallot encrypts and proves sels for a fresh voter key of style
// 0 ("north"); the token holds only a pseudonym and the style (the proofs
// bind the pseudonym; nothing here checks tokens).
func unsignedBallot(t *testing.T, p *Prepared, sels []votecode.Selection) *Ballot {
	return styledBallot(t, p, 0, sels)
}

func styledBallot(t *testing.T, p *Prepared, style int, sels []votecode.Selection) *Ballot {
	t.Helper()
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	b := &Ballot{ElectionID: p.Manifest.ElectionID, VoterPub: k.PublicKey().Bytes(), Token: make([]byte, TokenLen)}
	if _, err := rand.Read(b.Token[:PseudonymLen]); err != nil {
		t.Fatal(err)
	}
	b.Token[PseudonymLen] = byte(style)
	b.Token[PseudonymLen+1+31], b.Token[TokenLen-1] = 1, 1 // r = s = 1: a canonical signature, as ParseToken wants
	f := &p.styles[style]
	b.Contests = bytes.Clone(f.contests)
	bp, err := p.PrecomputeBallot(rand.Reader, style)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := p.encodeSelections(f, sels)
	if err != nil {
		t.Fatal(err)
	}
	b.Ciphertext, b.Proof, _, err = bp.encryptAndProve(b.VoterPub, b.Pseudonym(), enc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestMultiContestBallots(t *testing.T) {
	p, sk := multiContest(t)
	if p.Slots() != 1+10+1 || len(p.statements) != 1+11+1 {
		t.Fatalf("%d ciphertexts and %d statements, want 12 and 13", p.Slots(), len(p.statements))
	}
	votes := [][]votecode.Selection{
		{{Options: []int{1}}, {Options: []int{0, 4, 8}}, {Options: []int{0}}},
		{{Options: []int{1}}, {Blank: true}, {Options: []int{1}}},
		{{Options: []int{3}}, {}, {Options: []int{1}}},
	}
	var proofs []Proofs
	var slots [][]*big.Int
	for _, sels := range votes {
		b := unsignedBallot(t, p, sels)
		cs, err := p.CheckShape(b)
		if err != nil {
			t.Fatal(err)
		}
		items, err := p.ProofItems(b, cs)
		if err != nil {
			t.Fatal(err)
		}
		proofs, slots = append(proofs, items), append(slots, cs)
	}
	for i, err := range VerifyBallotProofs(nil, proofs) {
		if err != nil {
			t.Fatalf("ballot %d: %v", i, err)
		}
	}
	// A ballot of the style without the council counts in the other two.
	south := styledBallot(t, p, 1, []votecode.Selection{{Options: []int{0}}, {Options: []int{0}}})
	cs, err := p.CheckShape(south)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := p.ProofItems(south, cs)
	if err != nil || (DirectVerifier{}).Verify(ps) != nil {
		t.Fatalf("the south ballot: %v", err)
	}
	slots = append(slots, cs)
	product := p.ProductOf(slots)
	if got := product.Ballots(); got[0] != 4 || got[1] != 3 || got[2] != 4 {
		t.Fatalf("ballots per contest %v, want [4 3 4]", got)
	}
	tally, err := sk.Decrypt(product.Packed())
	if err != nil {
		t.Fatal(err)
	}
	counts, err := p.Layout.Decode(tally)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]uint64{{1, 2, 0, 1}, {1, 0, 0, 0, 1, 0, 0, 0, 1, 1}, {2, 2}}
	for i := range want {
		for j := range want[i] {
			if counts[i][j] != want[i][j] {
				t.Fatalf("contest %d: counts %v, want %v", i, counts[i], want[i])
			}
		}
	}
}

// TestMultiContestTamper: a ballot whose ciphertexts of two contests are
// swapped, or whose per-option ciphertext is replaced by another ballot's,
// fails the proof of the statement it breaks, named by its index.
func TestMultiContestTamper(t *testing.T) {
	p, _ := multiContest(t)
	sels := []votecode.Selection{{Options: []int{2}}, {Options: []int{5}}, {Options: []int{1}}}
	b := unsignedBallot(t, p, sels)
	w := p.PublicKey.CiphertextLen()
	slot := func(b *Ballot, i int) []byte { return b.Ciphertext[i*w : (i+1)*w] }
	other := unsignedBallot(t, p, []votecode.Selection{{Options: []int{0}}, {Options: []int{6}}, {Options: []int{0}}})
	for _, tc := range []struct {
		name  string
		edit  func(c []byte)
		proof string
	}{
		{"first and last contest swapped", func(c []byte) {
			first, last := bytes.Clone(slot(b, 0)), bytes.Clone(slot(b, 11))
			copy(c[:w], last)
			copy(c[11*w:], first)
		}, `contest "mayor" does not verify`},
		{"option 6 taken from another ballot", func(c []byte) { copy(c[(1+6)*w:], slot(other, 1+6)) }, `contest "council": the proof of option 6`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := *b
			bad.Ciphertext = bytes.Clone(b.Ciphertext)
			tc.edit(bad.Ciphertext)
			cs, err := p.CheckShape(&bad)
			if err != nil {
				t.Fatal(err)
			}
			items, err := p.ProofItems(&bad, cs)
			if err != nil {
				t.Fatal(err)
			}
			err = VerifyBallotProofs(nil, []Proofs{items})[0]
			if CodeOf(err) != CodeProof || !bytes.Contains([]byte(err.Error()), []byte(tc.proof)) {
				t.Fatalf("err = %v, want PROOF naming %q", err, tc.proof)
			}
			direct := DirectVerifier{}.Verify(items)
			if direct == nil || !bytes.Contains([]byte(direct.Error()), []byte(tc.proof)) {
				t.Fatalf("DirectVerifier: %v, want an error naming %q", direct, tc.proof)
			}
		})
	}
}

// TestProductRemove: taking a ballot back out of the slot-wise product
// leaves the product of the others.
func TestProductRemove(t *testing.T) {
	p, _ := multiContest(t)
	var all [][]*big.Int
	for _, opt := range []int{0, 3} {
		b := unsignedBallot(t, p, []votecode.Selection{{Options: []int{opt}}, {}, {Options: []int{0}}})
		cs, err := p.CheckShape(b)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, cs)
	}
	prod := p.NewProduct()
	prod.Add(all[0])
	prod.Add(all[1])
	prod.Remove(all[0])
	if prod.Packed().Cmp(p.ProductOf(all[1:]).Packed()) != 0 {
		t.Fatal("Add, Add, Remove does not give the product of the ballot left")
	}
}

func TestProofItemsRefusesMismatch(t *testing.T) {
	p, _ := multiContest(t)
	b := unsignedBallot(t, p, []votecode.Selection{{Options: []int{0}}, {}, {Options: []int{0}}})
	cs, err := p.CheckShape(b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.ProofItems(b, cs[1:]); CodeOf(err) != CodeProof {
		t.Fatalf("one ciphertext short: %v, want PROOF", err)
	}
	short := *b
	short.Proof = b.Proof[:len(b.Proof)-1]
	if _, err := p.CheckShape(&short); CodeOf(err) != CodeProof {
		t.Fatalf("proof one byte short: %v, want PROOF", err)
	}
	long := *b
	long.Ciphertext = append(bytes.Clone(b.Ciphertext), make([]byte, p.PublicKey.CiphertextLen())...)
	if _, err := p.CheckShape(&long); CodeOf(err) != CodeCiphertext {
		t.Fatalf("one ciphertext too many: %v, want CIPHERTEXT", err)
	}
	zero := *b
	zero.Ciphertext = bytes.Clone(b.Ciphertext)
	clear(zero.Ciphertext[5*p.PublicKey.CiphertextLen() : 6*p.PublicKey.CiphertextLen()])
	var e *Error
	if _, err := p.CheckShape(&zero); !errors.As(err, &e) || e.Code != CodeCiphertext || !bytes.Contains([]byte(e.Msg), []byte("ciphertext 5")) {
		t.Fatalf("ciphertext 5 zero: %v, want CIPHERTEXT naming ciphertext 5", err)
	}
}

// TestLayoutLimits: a layout whose ballots would exceed MaxBallotSize, or
// whose packed tally would not fit below N, is refused, and a ballot with
// no proof is no valid ballot.
func TestLayoutLimits(t *testing.T) {
	p, _ := multiContest(t)
	for _, tc := range []struct {
		name   string
		bits   uint
		shapes []votecode.Shape
		want   string
	}{
		{"approval of 64", 10, []votecode.Shape{{Options: 64, Min: 0, Max: 64}}, "more than the"},
		{"digits past N", 64, []votecode.Shape{{Options: 32, Min: 1, Max: 1}, {Options: 32, Min: 1, Max: 1}}, "does not fit below the modulus"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := votecode.NewLayout(tc.bits, tc.shapes)
			if err != nil {
				t.Fatal(err)
			}
			m := *p.Manifest
			m.Contests, m.Styles = nil, []Style{{ID: "all"}}
			for i, s := range tc.shapes {
				id := fmt.Sprintf("c%d", i)
				m.Contests = append(m.Contests, Contest{ID: id, Options: make([]string, s.Options), Min: s.Min, Max: s.Max, Blank: s.Blank})
				m.Styles[0].Contests = append(m.Styles[0].Contests, id)
			}
			q := &Prepared{Manifest: &m, PublicKey: p.PublicKey, Layout: l}
			err = q.prepareStatements()
			if CodeOf(err) != CodeManifest || !bytes.Contains([]byte(err.Error()), []byte(tc.want)) {
				t.Fatalf("prepareStatements = %v, want MANIFEST containing %q", err, tc.want)
			}
		})
	}
	if err := VerifyBallotProofs(nil, []Proofs{{p: p}})[0]; CodeOf(err) != CodeProof {
		t.Fatalf("a ballot of no proof: %v, want PROOF", err)
	}
	if err := (DirectVerifier{}).Verify(Proofs{p: p}); err == nil {
		t.Fatal("DirectVerifier accepted a ballot of no proof")
	}
}

// TestContestListRefused: a ballot's contests must be its style's exactly,
// in the manifest's order; each way to miss has its code, and is found
// before any length or cryptography.
func TestContestListRefused(t *testing.T) {
	p, _ := multiContest(t)
	north := unsignedBallot(t, p, []votecode.Selection{{Options: []int{0}}, {}, {Options: []int{0}}})
	south := styledBallot(t, p, 1, []votecode.Selection{{Options: []int{0}}, {Options: []int{1}}})
	for _, tc := range []struct {
		name     string
		b        *Ballot
		contests []byte
		code     string
	}{
		{"a contest not in the style", south, []byte{0, 1, 2}, CodeNotInStyle},
		{"a contest the election lacks", north, []byte{0, 1, 3}, CodeNotInStyle},
		{"a contest twice", north, []byte{0, 1, 1}, CodeContestRepeat},
		{"contests out of order", north, []byte{0, 2, 1}, CodeContestOrder},
		{"a contest left out", north, []byte{0, 2}, CodeContestMissing},
		{"no contest", south, []byte{}, CodeContestMissing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := *tc.b
			bad.Contests = tc.contests
			if _, err := p.CheckShape(&bad); CodeOf(err) != tc.code {
				t.Fatalf("CheckShape = %v, want %s", err, tc.code)
			}
		})
	}
	bad := *north
	bad.Token = bytes.Clone(north.Token)
	bad.Token[PseudonymLen] = 2
	if _, err := p.CheckShape(&bad); CodeOf(err) != CodeToken || !strings.Contains(err.Error(), "style 2") {
		t.Fatalf("a token of style 2 of 2: %v, want TOKEN", err)
	}
}

// TestLimitRefused: a cheating prover's council of four options (one more
// than its maximum), or of blank with an option, has valid 0/1 proofs for
// every digit; the proof of its number of selections fails, with LIMIT.
func TestLimitRefused(t *testing.T) {
	p, _ := multiContest(t)
	for _, tc := range []struct {
		name   string
		digits []int64 // the council's 9 option digits and its blank digit
	}{
		{"four options", []int64{1, 1, 1, 1, 0, 0, 0, 0, 0, 0}},
		{"blank with an option", []int64{1, 0, 0, 0, 0, 0, 0, 0, 0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := unsignedBallot(t, p, []votecode.Selection{{Options: []int{0}}, {}, {Options: []int{0}}})
			cheatCouncil(t, p, b, tc.digits)
			cs, err := p.CheckShape(b)
			if err != nil {
				t.Fatal(err)
			}
			ps, err := p.ProofItems(b, cs)
			if err != nil {
				t.Fatal(err)
			}
			for _, err := range []error{VerifyBallotProofs(nil, []Proofs{ps})[0], DirectVerifier{}.Verify(ps)} {
				if CodeOf(err) != CodeLimit || !strings.Contains(err.Error(), "number of selections") {
					t.Fatalf("err = %v, want LIMIT on the number of selections", err)
				}
			}
		})
	}
}

// cheatCouncil replaces the council's ciphertexts of ballot b (style
// north) by encryptions of digits, each with a true 0/1 proof, and its
// count proof by one made for a count it does not have.
func cheatCouncil(t *testing.T, p *Prepared, b *Ballot, digits []int64) {
	t.Helper()
	w, f := p.PublicKey.CiphertextLen(), &p.styles[0]
	cs, rs := make([]*big.Int, p.slots), make([]*big.Int, p.slots)
	first := p.contestSlot[1]
	for j, d := range digits {
		c, r, err := p.PublicKey.Encrypt(rand.Reader, big.NewInt(d))
		if err != nil {
			t.Fatal(err)
		}
		cs[first+j], rs[first+j] = c, r
		copy(b.Ciphertext[(1+j)*w:], p.PublicKey.EncodeCiphertext(c))
	}
	keyHash := VoterKeyHash(b.VoterPub)
	for i, k := range f.stmts {
		st := &p.statements[k]
		if st.contest != 1 {
			continue
		}
		choice := 0 // the count proof: claims the first count, which it is not
		if !st.limit {
			choice = int(digits[st.index])
		}
		ctx := p.statementContext(st, keyHash, b.Pseudonym())
		proof, err := zkp.ProveValidity(rand.Reader, ctx, statementCiphertext(st, cs, p.PublicKey.NSquared), choice, statementCiphertext(st, rs, p.PublicKey.N))
		if err != nil {
			t.Fatal(err)
		}
		copy(b.Proof[f.proofOffs[i]:], proof.Marshal(ctx))
	}
}
