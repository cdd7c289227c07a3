package election_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/binary"
	"math/big"
	"strings"
	"sync"
	"testing"

	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
)

var (
	fx       = electiontest.Load()
	fixOnce  sync.Once
	fixM     *election.Manifest
	fixP     *election.Prepared
	fixBall  []*election.Ballot // fixBall[i]: voter i, choice i%4
	p256N, _ = new(big.Int).SetString("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551", 16)
)

// fixtures returns a manifest and four valid ballots (voters 0..3), made once.
func fixtures(t testing.TB) (*election.Manifest, *election.Prepared, []*election.Ballot) {
	t.Helper()
	fixOnce.Do(func() {
		fixM = fx.Manifest("e1")
		var err error
		fixP, err = election.Prepare(fixM)
		if err != nil {
			panic(err)
		}
		for i := 0; i < 4; i++ {
			fixBall = append(fixBall, fx.Ballot(fixM, fx.Voters[i], i%4))
		}
	})
	return fixM, fixP, fixBall
}

func clone(b *election.Ballot) *election.Ballot {
	c, err := election.ParseBallot(b.Marshal())
	if err != nil {
		panic(err)
	}
	return c
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted, want error %s", code)
	}
	if got := election.CodeOf(err); got != code {
		t.Fatalf("error code %q (%v), want %s", got, err, code)
	}
}

func TestBallotRoundTrip(t *testing.T) {
	m, p, ballots := fixtures(t)
	for i, b := range ballots {
		enc := b.Marshal()
		got, err := election.ParseBallot(enc)
		if err != nil {
			t.Fatalf("ballot %d: %v", i, err)
		}
		if !bytes.Equal(got.Marshal(), enc) {
			t.Fatalf("ballot %d: re-encoding differs", i)
		}
		if err := election.CheckBallot(m, got); err != nil {
			t.Fatalf("ballot %d: CheckBallot: %v", i, err)
		}
		if want := []byte{0}; !bytes.Equal(got.Contests, want) {
			t.Fatalf("ballot %d: contests %v, want %v", i, got.Contests, want)
		}
		// The ciphertext decrypts to the chosen candidate's encoding.
		c, _ := p.PublicKey.DecodeCiphertext(got.Ciphertext)
		pt, err := fx.Paillier.Decrypt(c)
		if err != nil {
			t.Fatal(err)
		}
		want := new(big.Int).Lsh(big.NewInt(1), p.Layout.Bits*uint(i%4))
		if pt.Cmp(want) != 0 {
			t.Fatalf("ballot %d decrypts to %v, want %v", i, pt, want)
		}
	}
}

// field offsets in the canonical encoding, for surgical corruption.
func fieldOffsets(enc []byte) (offs [7]int) {
	pos := 1
	for i := 0; i < 7; i++ {
		offs[i] = pos
		pos += 4 + int(binary.BigEndian.Uint32(enc[pos:]))
	}
	return
}

func TestParseBallotRejects(t *testing.T) {
	_, _, ballots := fixtures(t)
	good := ballots[0].Marshal()
	offs := fieldOffsets(good)
	mod := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	withField := func(i int, val []byte) []byte {
		b := clone(ballots[0])
		switch i {
		case 0:
			b.ElectionID = string(val)
		case 1:
			b.VoterPub = val
		case 2:
			b.Token = val
		case 3:
			b.Contests = val
		case 4:
			b.Ciphertext = val
		case 5:
			b.Proof = val
		case 6:
			b.Signature = val
		}
		return b.Marshal()
	}
	highS := func(sig []byte) []byte {
		s := new(big.Int).SetBytes(sig[32:])
		out := append([]byte(nil), sig[:32]...)
		return append(out, new(big.Int).Sub(p256N, s).FillBytes(make([]byte, 32))...)
	}
	offCurve := append([]byte(nil), ballots[0].VoterPub...)
	offCurve[64] ^= 1
	compressed := append([]byte(nil), ballots[0].VoterPub...)
	compressed[0] = 2
	zeroR := append(make([]byte, 32), ballots[0].Signature[32:]...)

	cases := []struct {
		name string
		in   []byte
		code string
	}{
		{"oversize", make([]byte, election.MaxBallotSize+1), election.CodeSize},
		{"empty", nil, election.CodeDecode},
		{"bad version", mod(func(b []byte) []byte { b[0] = 4; return b }), election.CodeDecode},
		{"version 1 (token without pseudonym)", mod(func(b []byte) []byte { b[0] = 1; return b }), election.CodeDecode},
		{"version 2 (no style, no contests)", mod(func(b []byte) []byte { b[0] = 2; return b }), election.CodeDecode},
		{"truncated in a length", good[:offs[1]+2], election.CodeDecode},
		{"truncated in the proof", good[:offs[5]+100], election.CodeDecode},
		{"truncated by one byte", good[:len(good)-1], election.CodeDecode},
		{"trailing byte", append(append([]byte(nil), good...), 0), election.CodeDecode},
		{"length prefix too long", mod(func(b []byte) []byte { binary.BigEndian.PutUint32(b[offs[4]:], 1<<31); return b }), election.CodeDecode},
		{"voterPub 64 bytes", withField(1, ballots[0].VoterPub[:64]), election.CodeDecode},
		{"voterPub compressed prefix", withField(1, compressed), election.CodeDecode},
		{"voterPub not on the curve", withField(1, offCurve), election.CodeDecode},
		{"token 96 bytes (version 2, no style)", withField(2, ballots[0].Token[:96]), election.CodeDecode},
		{"token without pseudonym (65 bytes)", withField(2, ballots[0].Token[election.PseudonymLen:]), election.CodeDecode},
		{"token high-S", withField(2, append(append([]byte(nil), ballots[0].Token[:election.PseudonymLen+1]...), highS(ballots[0].Token[election.PseudonymLen+1:])...)), election.CodeDecode},
		{"signature 65 bytes", withField(6, append(append([]byte(nil), ballots[0].Signature...), 1)), election.CodeDecode},
		{"signature high-S", withField(6, highS(ballots[0].Signature)), election.CodeDecode},
		{"signature r = 0", withField(6, zeroR), election.CodeDecode},
		{"no contests", withField(3, nil), election.CodeDecode},
		{"33 contests", withField(3, make([]byte, 33)), election.CodeDecode},
		{"empty ciphertext", withField(4, nil), election.CodeDecode},
		{"empty proof", withField(5, nil), election.CodeDecode},
		{"election id with NUL", withField(0, []byte("e\x001")), election.CodeDecode},
		{"election id too long", withField(0, bytes.Repeat([]byte("a"), 65)), election.CodeDecode},
		{"election id empty", withField(0, nil), election.CodeDecode},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := election.ParseBallot(tc.in)
			wantCode(t, err, tc.code)
		})
	}
}

// The high-S twin of a valid signature verifies mathematically; only the
// canonical-form rule stops it from being a second encoding of the ballot.
func TestHighSTwinWouldVerify(t *testing.T) {
	_, _, ballots := fixtures(t)
	b := ballots[0]
	pub, err := election.ParseVoterPub(b.VoterPub)
	if err != nil {
		t.Fatal(err)
	}
	d := b.SigningDigest()
	r := new(big.Int).SetBytes(b.Signature[:32])
	s := new(big.Int).SetBytes(b.Signature[32:])
	if !ecdsa.Verify(pub, d[:], r, new(big.Int).Sub(p256N, s)) {
		t.Fatal("the high-S twin does not verify; the canonical-S test above proves nothing")
	}
}

func resign(t *testing.T, b *election.Ballot, voter *ecdsa.PrivateKey) *election.Ballot {
	t.Helper()
	if err := b.Sign(voter); err != nil {
		t.Fatal(err)
	}
	return b
}

// tokenUnderNewPseudonymKey mints voter's token with a fresh pseudonym key
// under a copy of m that commits to it.
func tokenUnderNewPseudonymKey(t *testing.T, m *election.Manifest, voter *ecdsa.PrivateKey) []byte {
	t.Helper()
	key, err := election.NewPseudonymKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	remade := *m
	remade.PseudonymKeyCommitment = electiontest.CommitTo(key)
	p, err := election.Prepare(&remade)
	if err != nil {
		t.Fatal(err)
	}
	mt, err := election.NewMinter(rand.Reader, p, fx.EA, key)
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := voter.PublicKey.Bytes()
	tok, err := mt.Mint(electiontest.VoterID(voter), pub)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestCheckBallotRejects(t *testing.T) {
	m, p, ballots := fixtures(t)
	v0, v1 := fx.Voters[0], fx.Voters[1]
	pub0, _ := v0.PublicKey.Bytes()

	tokenOtherElection := fx.Token(fx.Manifest("e2"), v0)
	// Same id, same keys, another title: a different manifest.
	twin := fx.Manifest(m.ElectionID)
	twin.Title = "another manifest with the same id and keys"
	tokenTwin := fx.Token(twin, v0)
	twinBallot := fx.Ballot(twin, v0, 1)
	// The authority issues voter 0's key a second token under another roll id.
	tokenOtherID := fx.TokenFor(m, "another roll entry", v0)
	// A local copy of the manifest made over for a new pseudonym key (after
	// the original was lost): its minter takes the new key, but the manifest
	// digest, and so the token, no longer matches the ledger's manifest.
	tokenOtherPseudKey := tokenUnderNewPseudonymKey(t, m, v0)

	cases := []struct {
		name string
		make func() *election.Ballot
		code string
	}{
		{"token for another election", func() *election.Ballot {
			b := clone(ballots[0])
			b.Token = tokenOtherElection
			return resign(t, b, v0)
		}, election.CodeToken},
		{"token for another key", func() *election.Ballot {
			b := clone(ballots[0])
			b.Token = ballots[1].Token // voter 1's token
			return resign(t, b, v0)
		}, election.CodeToken},
		{"token from another authority", func() *election.Ballot {
			b := clone(ballots[0])
			b.Token, _ = p.IssueToken(rand.Reader, v1, b.Pseudonym(), 0, pub0)
			return resign(t, b, v0)
		}, election.CodeToken},
		{"token for another manifest with the same id and keys", func() *election.Ballot {
			b := clone(ballots[0])
			b.Token = tokenTwin
			return resign(t, b, v0)
		}, election.CodeToken},
		{"token issued under a manifest committing to another pseudonym key", func() *election.Ballot {
			b := clone(ballots[0])
			b.Token = tokenOtherPseudKey
			return resign(t, b, v0)
		}, election.CodeToken},
		{"token with another pseudonym spliced in", func() *election.Ballot {
			b := clone(ballots[0])
			copy(b.Token, ballots[1].Token[:election.PseudonymLen])
			return resign(t, b, v0)
		}, election.CodeToken},
		{"proof made under another manifest with the same id and keys", func() *election.Ballot {
			// The token is valid here (same roll id, so same pseudonym); the
			// proof binds the other manifest's digest.
			b := clone(twinBallot)
			b.Token = ballots[0].Token
			return resign(t, b, v0)
		}, election.CodeProof},
		{"proof bound to another pseudonym of the same key", func() *election.Ballot {
			b := clone(ballots[0])
			b.Token = tokenOtherID
			return resign(t, b, v0)
		}, election.CodeProof},
		{"bad voter signature", func() *election.Ballot {
			b := clone(ballots[0])
			b.Signature = clone(ballots[1]).Signature
			return b
		}, election.CodeSignature},
		{"signed by another key", func() *election.Ballot {
			return resign(t, clone(ballots[0]), v1)
		}, election.CodeSignature},
		{"ballot copied from another voter", func() *election.Ballot {
			// Voter 1 takes voter 0's ciphertext and proof, puts them under
			// their own key and token and signs: only the proof's binding to
			// voter 0's key stops it.
			b := clone(ballots[0])
			b.VoterPub = clone(ballots[1]).VoterPub
			b.Token = clone(ballots[1]).Token
			return resign(t, b, v1)
		}, election.CodeProof},
		{"mauled proof (one bit of z_0)", func() *election.Ballot {
			b := clone(ballots[0])
			b.Proof[len(b.Proof)/4-1] ^= 1
			return resign(t, b, v0)
		}, election.CodeProof},
		{"mauled proof (e_k)", func() *election.Ballot {
			b := clone(ballots[0])
			b.Proof[p.PublicKey.CiphertextLen()] ^= 0x80
			return resign(t, b, v0)
		}, election.CodeProof},
		{"proof of another ballot", func() *election.Ballot {
			b := clone(ballots[0])
			b.Proof = clone(ballots[1]).Proof
			return resign(t, b, v0)
		}, election.CodeProof},
		{"ciphertext for two votes (c·Enc(M^1)) with the old proof", func() *election.Ballot {
			b := clone(ballots[0])
			c, _ := p.PublicKey.DecodeCiphertext(b.Ciphertext)
			m1 := new(big.Int).Lsh(big.NewInt(1), p.Layout.Bits)
			c2, _, _ := p.PublicKey.Encrypt(rand.Reader, m1)
			b.Ciphertext = p.PublicKey.EncodeCiphertext(p.PublicKey.Add(c, c2))
			return resign(t, b, v0)
		}, election.CodeProof},
		{"proof too short", func() *election.Ballot {
			b := clone(ballots[0])
			b.Proof = b.Proof[:len(b.Proof)-1]
			return resign(t, b, v0)
		}, election.CodeProof},
		{"ciphertext not below N²", func() *election.Ballot {
			b := clone(ballots[0])
			b.Ciphertext = bytes.Repeat([]byte{0xff}, len(b.Ciphertext))
			return resign(t, b, v0)
		}, election.CodeCiphertext},
		{"ciphertext zero", func() *election.Ballot {
			b := clone(ballots[0])
			b.Ciphertext = make([]byte, len(b.Ciphertext))
			return resign(t, b, v0)
		}, election.CodeCiphertext},
		{"ciphertext = N (not a unit)", func() *election.Ballot {
			b := clone(ballots[0])
			b.Ciphertext = p.PublicKey.N.FillBytes(make([]byte, len(b.Ciphertext)))
			return resign(t, b, v0)
		}, election.CodeCiphertext},
		{"ciphertext one byte short", func() *election.Ballot {
			b := clone(ballots[0])
			b.Ciphertext = b.Ciphertext[1:]
			return resign(t, b, v0)
		}, election.CodeCiphertext},
		{"ballot for another election", func() *election.Ballot {
			return fx.Ballot(fx.Manifest("e2"), v0, 0)
		}, election.CodeNoElection},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.make()
			// Every malformed ballot still decodes: the rejection comes from the check named.
			if _, err := election.ParseBallot(b.Marshal()); err != nil {
				t.Fatalf("test ballot does not decode: %v", err)
			}
			wantCode(t, p.CheckBallot(b, nil), tc.code)
			// The rule short of the proof, which the chaincode, the
			// validation plugin and the audit call: the same verdict, where
			// only the proof verification's failures (not its length,
			// a shape check) are left to the proof check.
			if _, err := p.CheckAuthorised(b); err != nil || tc.code != election.CodeProof {
				wantCode(t, err, tc.code)
			}
		})
	}
}

// A batching verifier and the direct one agree on valid and invalid proofs.
func TestProofVerifierBatchAgrees(t *testing.T) {
	_, p, ballots := fixtures(t)
	var perBallot []election.Proofs
	for i, b := range ballots {
		cs, err := p.CheckShape(b)
		if err != nil {
			t.Fatal(err)
		}
		if i == 2 { // bind the proofs to another voter: invalid
			other := *b
			other.VoterPub, other.Token = ballots[3].VoterPub, ballots[3].Token
			b = &other
		}
		items, err := p.ProofItems(b, cs)
		if err != nil {
			t.Fatal(err)
		}
		perBallot = append(perBallot, items)
	}
	for i, err := range election.VerifyBallotProofs(rand.Reader, perBallot) {
		direct := election.DirectVerifier{}.Verify(perBallot[i])
		if (err == nil) != (direct == nil) || (i == 2) != (err != nil) {
			t.Fatalf("ballot %d: batch %v, direct %v", i, err, direct)
		}
		if err != nil {
			wantCode(t, err, election.CodeProof)
		}
	}
}

func TestNewBallotRejectsBadInput(t *testing.T) {
	m, _, ballots := fixtures(t)
	tok := ballots[0].Token
	cases := []struct {
		name   string
		voter  *ecdsa.PrivateKey
		token  []byte
		choice int
	}{
		{"choice negative", fx.Voters[0], tok, -1},
		{"choice too large", fx.Voters[0], tok, len(m.Contests[0].Options)},
		{"token of another voter", fx.Voters[1], tok, 0},
		{"no token", fx.Voters[0], nil, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := election.NewBallot(rand.Reader, m, tc.voter, tc.token, tc.choice); err == nil {
				t.Fatal("NewBallot accepted bad input")
			}
		})
	}
}

func TestIssueTokenSignerForms(t *testing.T) {
	pub, _ := fx.Voters[0].PublicKey.Bytes()
	p := prepare(t, fx.Manifest("e1"))
	p2 := prepare(t, fx.Manifest("e2"))
	pseud, err := election.Pseudonym(electiontest.PseudonymKey, "e1", "voter 1")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct {
		name string
		raw  bool
	}{{"asn1", false}, {"raw r||s", true}} {
		t.Run(s.name, func(t *testing.T) {
			tok, err := p.IssueToken(rand.Reader, rawSigner{fx.EA, s.raw}, pseud, 0, pub)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.VerifyToken(pub, tok); err != nil {
				t.Fatal(err)
			}
			if err := p2.VerifyToken(pub, tok); election.CodeOf(err) != election.CodeToken {
				t.Fatalf("token verified for another election: %v", err)
			}
		})
	}
	if _, err := p.IssueToken(rand.Reader, fx.EA, pseud, 0, pub[:64]); err == nil {
		t.Fatal("IssueToken accepted a bad voter key")
	}
}

func prepare(t *testing.T, m *election.Manifest) *election.Prepared {
	t.Helper()
	p, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDigestsAreDomainSeparated(t *testing.T) {
	pub, _ := fx.Voters[0].PublicKey.Bytes()
	var d [32]byte
	var ps [election.PseudonymLen]byte
	// Moving a byte between fields must change the digest (length prefixes).
	if election.TokenDigest(d, "e1", ps, 0, pub) == election.TokenDigest(d, "e", ps, 0, append([]byte("1"), pub...)) {
		t.Fatal("token digest is not injective over its fields")
	}
	b := &election.Ballot{ElectionID: "e1", VoterPub: pub}
	if b.SigningDigest() == election.TokenDigest(d, "e1", ps, 0, pub) {
		t.Fatal("ballot and token digests collide")
	}
}

func TestCodeOf(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{election.Errorf(election.CodeDuplicate, "x"), election.CodeDuplicate},
		{errString("rpc error: code = Aborted desc = failed to endorse: chaincode response 500, fabvote WINDOW: too late"), election.CodeWindow},
		{errString("fabvote is great: fabvote PROOF: bad"), election.CodeProof},
		{errString("something else"), ""},
	}
	for _, tc := range cases {
		if got := election.CodeOf(tc.err); got != tc.want {
			t.Errorf("CodeOf(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// ciphertextSpan and proofSpan locate a ballot's pieces from the layout
// alone: the ciphertexts of contest ci, and the proof of its statement
// k, among the ballot's contests.
func ciphertextSpan(p *election.Prepared, contests []byte, ci int) (off, n int) {
	w := p.PublicKey.CiphertextLen()
	for _, c := range contests {
		k := p.Layout.Contests[c].Ciphertexts()
		if int(c) == ci {
			return off, k * w
		}
		off += k * w
	}
	panic("contest not in the ballot")
}

func proofSpan(p *election.Prepared, contests []byte, ci, k int) (off, n int) {
	branch := p.PublicKey.CiphertextLen() + p.Manifest.ChallengeBits/8 + p.PublicKey.ModulusLen()
	for _, c := range contests {
		for j, st := range p.Layout.Contests[c].Statements() {
			l := len(st.Messages) * branch
			if int(c) == ci && j == k {
				return off, l
			}
			off += l
		}
	}
	panic("statement not in the ballot")
}

// Ballots of both styles of Fixture.ContestManifest verify end to end,
// answer exactly their style's contests, and encrypt each contest's
// selection at its digits: packed, one ciphertext of Σ M^(offset+j);
// per option, one 0/1 ciphertext per digit.
func TestContestBallots(t *testing.T) {
	for _, enc := range []string{"packed", "per-option"} {
		t.Run(enc, func(t *testing.T) {
			e := contestBallots(t, enc)
			var proofs []election.Proofs
			for i, b := range e.ballots {
				v := contestVotes[i]
				got, err := election.ParseBallot(b.Marshal())
				if err != nil || !bytes.Equal(got.Marshal(), b.Marshal()) {
					t.Fatalf("ballot %d does not round-trip: %v", i, err)
				}
				if err := election.CheckBallot(e.m, got); err != nil {
					t.Fatalf("ballot %d (%s): CheckBallot: %v", i, v.style, err)
				}
				style := e.m.Styles[e.m.StyleIndex(v.style)]
				var want []byte
				for _, id := range style.Contests {
					want = append(want, byte(e.m.ContestIndex(id)))
				}
				if !bytes.Equal(got.Contests, want) {
					t.Fatalf("ballot %d (%s): contests %v, want %v", i, v.style, got.Contests, want)
				}
				cs, err := e.p.CheckShape(got)
				if err != nil {
					t.Fatal(err)
				}
				if len(cs) != e.p.Slots() {
					t.Fatalf("CheckShape gave %d slots, want %d", len(cs), e.p.Slots())
				}
				// Slot by slot: the contests of the ballot's style at their
				// slots, nil at the others'.
				slot := 0
				for ci := range e.m.Contests {
					c := &e.p.Layout.Contests[ci]
					k := bytes.IndexByte(got.Contests, byte(ci))
					for j := 0; j < c.Ciphertexts(); j++ {
						if (cs[slot+j] == nil) != (k < 0) {
							t.Fatalf("ballot %d: slot %d of contest %d is %v", i, slot+j, ci, cs[slot+j])
						}
					}
					if k >= 0 {
						checkPlaintexts(t, e.p, c, cs[slot:slot+c.Ciphertexts()], v.sels[k])
					}
					slot += c.Ciphertexts()
				}
				ps, err := e.p.ProofItems(got, cs)
				if err != nil {
					t.Fatal(err)
				}
				proofs = append(proofs, ps)
			}
			for i, err := range election.VerifyBallotProofs(rand.Reader, proofs) {
				if err != nil {
					t.Fatalf("ballot %d: the batch verifier: %v", i, err)
				}
			}
		})
	}
}

// checkPlaintexts decrypts a contest's ciphertexts and compares them with
// the encoding of sel.
func checkPlaintexts(t *testing.T, p *election.Prepared, c *votecode.ContestLayout, cs []*big.Int, sel votecode.Selection) {
	t.Helper()
	digits := make([]int64, c.Digits())
	for _, j := range sel.Options {
		digits[j] = 1
	}
	if sel.Blank {
		digits[c.Options] = 1
	}
	var want []*big.Int
	if c.Kind == votecode.Packed {
		x := new(big.Int)
		for j, d := range digits {
			x.Add(x, new(big.Int).Lsh(big.NewInt(d), p.Layout.Bits*uint(c.Offset+j)))
		}
		want = []*big.Int{x}
	} else {
		for _, d := range digits {
			want = append(want, big.NewInt(d))
		}
	}
	if len(cs) != len(want) {
		t.Fatalf("%d ciphertexts, want %d", len(cs), len(want))
	}
	for j, c := range cs {
		pt, err := fx.Paillier.Decrypt(c)
		if err != nil {
			t.Fatal(err)
		}
		if pt.Cmp(want[j]) != 0 {
			t.Fatalf("ciphertext %d decrypts to %v, want %v (selection %+v)", j, pt, want[j], sel)
		}
	}
}

// TestContestListRefusedEndToEnd: a ballot whose contests field is edited
// (and re-signed, so that only the list is wrong) is refused with the
// code of its fault; the voter's signature covers the list.
func TestContestListRefusedEndToEnd(t *testing.T) {
	e := contestBallots(t, "packed")
	north, south := e.ballots[0], e.ballots[3] // voters 0 and 3
	voter := func(b *election.Ballot) *ecdsa.PrivateKey {
		for i, v := range contestVotes {
			if e.ballots[i] == b {
				return fx.Voters[v.voter]
			}
		}
		panic("not a contest ballot")
	}
	// A north ballot made over into a south one: its council cut out,
	// the token's style byte set to south. Everything but the token's
	// signature holds.
	asSouth := func() *election.Ballot {
		b := clone(north)
		co, cn := ciphertextSpan(e.p, b.Contests, 1)
		b.Ciphertext = append(b.Ciphertext[:co:co], b.Ciphertext[co+cn:]...)
		first, _ := proofSpan(e.p, b.Contests, 1, 0)
		last, n := proofSpan(e.p, b.Contests, 1, len(e.p.Layout.Contests[1].Statements())-1)
		b.Proof = append(b.Proof[:first:first], b.Proof[last+n:]...)
		b.Contests = []byte{0, 2}
		b.Token[election.PseudonymLen] = 1
		return b
	}
	for _, tc := range []struct {
		name     string
		b        *election.Ballot
		contests []byte
		code     string
	}{
		{"north: the council left out", north, []byte{0, 2}, election.CodeContestMissing},
		{"north: the referendum left out", north, []byte{0, 1}, election.CodeContestMissing},
		{"north: only the mayor", north, []byte{0}, election.CodeContestMissing},
		{"north: the council twice", north, []byte{0, 1, 1}, election.CodeContestRepeat},
		{"north: council before mayor", north, []byte{1, 0, 2}, election.CodeContestOrder},
		{"north: referendum before council", north, []byte{0, 2, 1}, election.CodeContestOrder},
		{"north: a fourth contest", north, []byte{0, 1, 2, 3}, election.CodeNotInStyle},
		{"south: the council added", south, []byte{0, 1, 2}, election.CodeNotInStyle},
		{"south: the council for the referendum", south, []byte{0, 1}, election.CodeNotInStyle},
		{"south: contest 255", south, []byte{0, 255}, election.CodeNotInStyle},
		{"south: the mayor twice", south, []byte{0, 0}, election.CodeContestRepeat},
		{"south: reversed", south, []byte{2, 0}, election.CodeContestOrder},
		{"south: the referendum left out", south, []byte{0}, election.CodeContestMissing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := clone(tc.b)
			b.Contests = tc.contests
			resign(t, b, voter(tc.b))
			if _, err := election.ParseBallot(b.Marshal()); err != nil {
				t.Fatalf("test ballot does not decode: %v", err)
			}
			wantCode(t, e.p.CheckBallot(b, nil), tc.code)
			_, err := e.p.CheckAuthorised(b)
			wantCode(t, err, tc.code)
		})
	}
	t.Run("a north ballot made over into a south one", func(t *testing.T) {
		b := resign(t, asSouth(), voter(north))
		if _, err := e.p.CheckShape(b); err != nil {
			t.Fatalf("the made-over ballot is not of the south's shape: %v", err)
		}
		wantCode(t, e.p.CheckBallot(b, nil), election.CodeToken)
	})
	t.Run("a south token on a north ballot", func(t *testing.T) {
		b := clone(south)
		b.Token[election.PseudonymLen] = 0
		wantCode(t, e.p.CheckBallot(resign(t, b, voter(south)), nil), election.CodeContestMissing)
	})
	t.Run("contests edited, not re-signed", func(t *testing.T) {
		b := clone(north)
		b.Contests = []byte{0, 2}
		if b.SigningDigest() == north.SigningDigest() {
			t.Fatal("the signing digest does not cover the contests")
		}
		wantCode(t, b.VerifySignature(), election.CodeSignature)
	})
}

// A per-option council whose ciphertext of one option, with its true 0/1
// proof, comes from another ballot of the same voter: every 0/1 proof
// verifies, the proof of the number of selections does not, and the
// ballot is refused with LIMIT.
func TestLimitEndToEnd(t *testing.T) {
	e := contestBallots(t, "per-option")
	a := e.ballots[0] // voter 0, north, council options 0 and 3
	voter := fx.Voters[contestVotes[0].voter]
	other, err := e.p.NewBallotSelections(rand.Reader, voter, a.Token, []votecode.Selection{sel(1), sel(1), sel(0)})
	if err != nil {
		t.Fatal(err)
	}
	b := clone(a)
	w := e.p.PublicKey.CiphertextLen()
	co, _ := ciphertextSpan(e.p, b.Contests, 1)
	copy(b.Ciphertext[co+w:co+2*w], other.Ciphertext[co+w:co+2*w]) // option 1: selected
	po, n := proofSpan(e.p, b.Contests, 1, 1)
	copy(b.Proof[po:po+n], other.Proof[po:po+n])
	resign(t, b, voter)
	err = e.p.CheckBallot(b, nil)
	wantCode(t, err, election.CodeLimit)
	if !strings.Contains(err.Error(), `contest "council": the proof of the number of selections`) {
		t.Fatalf("LIMIT naming %v, want the council's count", err)
	}
	cs, err := e.p.CheckAuthorised(b)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := e.p.ProofItems(b, cs)
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, election.VerifyBallotProofs(rand.Reader, []election.Proofs{ps})[0], election.CodeLimit)
	// The ballot the ciphertext came from is valid.
	if err := e.p.CheckBallot(other, nil); err != nil {
		t.Fatalf("the other ballot: %v", err)
	}
}
