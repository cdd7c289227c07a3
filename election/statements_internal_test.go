package election

import (
	"bytes"
	"crypto/ecdh"
	"crypto/rand"
	"errors"
	"math/big"
	"os"
	"testing"

	"github.com/fabvote/fabvote/crypto/paillier"
	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/crypto/zkp"
)

// multiContest is a Prepared whose layout has three contests, one of them
// per-option, over the committed 2048-bit test key. Manifests carry one
// contest; this exercises the statement paths that several contests take
// (several ciphertexts, derived sum ciphertexts, tally weights).
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
	layout, err := votecode.NewLayout(10, []votecode.Shape{
		{Options: 4, Min: 1, Max: 1},
		{Options: 9, Min: 0, Max: 3, Blank: true},
		{Options: 2, Min: 1, Max: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	if layout.Contests[1].Kind != votecode.PerOption {
		t.Fatal("the test wants its second contest per-option")
	}
	p := &Prepared{
		Manifest:  &Manifest{ElectionID: "multi", ChallengeBits: 128},
		PublicKey: &sk.PublicKey,
		Layout:    layout,
	}
	if err := p.prepareStatements(); err != nil {
		t.Fatal(err)
	}
	return p, sk
}

// unsignedBallot encrypts and proves sels for a fresh voter key; the token
// holds only a pseudonym (the proofs bind it; nothing here checks tokens).
func unsignedBallot(t *testing.T, p *Prepared, sels []votecode.Selection) *Ballot {
	t.Helper()
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	b := &Ballot{ElectionID: p.Manifest.ElectionID, VoterPub: k.PublicKey().Bytes(), Token: make([]byte, TokenLen)}
	if _, err := rand.Read(b.Token[:PseudonymLen]); err != nil {
		t.Fatal(err)
	}
	b.Ciphertext, b.Proof, err = p.encryptAndProve(rand.Reader, b.VoterPub, b.Pseudonym(), sels)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestMultiContestBallots(t *testing.T) {
	p, sk := multiContest(t)
	if p.Ciphertexts() != 1+10+1 || len(p.statements) != 1+11+1 {
		t.Fatalf("%d ciphertexts and %d statements, want 12 and 13", p.Ciphertexts(), len(p.statements))
	}
	votes := [][]votecode.Selection{
		{{Options: []int{1}}, {Options: []int{0, 4, 8}}, {Options: []int{0}}},
		{{Options: []int{1}}, {Blank: true}, {Options: []int{1}}},
		{{Options: []int{3}}, {}, {Options: []int{1}}},
	}
	var proofs [][]zkp.BatchItem
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
	tally, err := sk.Decrypt(p.ProductOf(slots))
	if err != nil {
		t.Fatal(err)
	}
	counts, err := p.Layout.Decode(tally)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]uint64{{0, 2, 0, 1}, {1, 0, 0, 0, 1, 0, 0, 0, 1, 1}, {1, 2}}
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
		}, "proof 0:"},
		{"option 6 taken from another ballot", func(c []byte) { copy(c[(1+6)*w:], slot(other, 1+6)) }, "proof 7:"},
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
			err = VerifyBallotProofs(nil, [][]zkp.BatchItem{items})[0]
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
	if prod.Packed().Cmp(p.ProductOf(all[1:])) != 0 {
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
			q := &Prepared{Manifest: p.Manifest, PublicKey: p.PublicKey, Layout: l}
			err = q.prepareStatements()
			if CodeOf(err) != CodeManifest || !bytes.Contains([]byte(err.Error()), []byte(tc.want)) {
				t.Fatalf("prepareStatements = %v, want MANIFEST containing %q", err, tc.want)
			}
		})
	}
	if err := VerifyBallotProofs(nil, [][]zkp.BatchItem{nil})[0]; CodeOf(err) != CodeProof {
		t.Fatalf("a ballot of no proof: %v, want PROOF", err)
	}
	if err := (DirectVerifier{}).Verify(nil); err == nil {
		t.Fatal("DirectVerifier accepted a ballot of no proof")
	}
}
