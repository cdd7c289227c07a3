package threshold

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"math/big"

	"github.com/fabvote/fabvote/crypto/paillier"
)

// EqualityProof is a non-interactive proof that
// log_{c^4}(c_i^2) = log_V(V_i) (= Δ·s_i): the challenge E = H(…) < 2^256 and
// the response Z = r + E·Δ·s_i, computed over the integers.
type EqualityProof struct {
	E, Z *big.Int
}

// PartialDecryption is trustee Index's share c_i = c^{2Δ s_i} mod N² of the
// decryption of one ciphertext, with its proof. It goes on the ledger with
// the result.
type PartialDecryption struct {
	Index int
	Ci    *big.Int
	Proof *EqualityProof
}

// DecryptTally computes this trustee's partial decryption of a sealed tally
// ciphertext, with a proof of correctness.
//
// It is the only exported way to use a share's secret on a ciphertext of
// the caller's (DecryptSelfTest derives its own). K colluding trustees
// could decrypt any ciphertext, a single ballot included, so an honest
// trustee decrypts only the tally that it has recomputed itself from the
// verified ballots on the ledger once the voting window has closed. A
// SealedTally comes only from the process's one Sealer (ClaimSealer), which
// in fabvote internal/trustee claims and uses only after those checks. This
// keeps fabvote's own tools from misusing a share; it does not stop a
// program written against this library, which can decrypt anything with K
// shares. A nil or zero SealedTally is refused with ErrUnsealedTally.
func (ks *KeyShare) DecryptTally(random io.Reader, pp *PublicParams, t *SealedTally) (*PartialDecryption, error) {
	c := t.Ciphertext()
	if c == nil {
		return nil, fmt.Errorf("%w: a trustee decrypts only the tally it recomputed from the ledger (internal/trustee)", ErrUnsealedTally)
	}
	return ks.partialDecrypt(random, pp, c)
}

// partialDecrypt computes this trustee's partial decryption of c with a
// proof of correctness. c must be in Z*_{N²}. It is unexported so that no
// caller outside this package can point a share at a ciphertext of its
// choosing: see DecryptTally.
func (ks *KeyShare) partialDecrypt(random io.Reader, pp *PublicParams, c *big.Int) (*PartialDecryption, error) {
	if random == nil {
		random = rand.Reader
	}
	if err := ks.matches(pp); err != nil {
		return nil, err
	}
	pk := pp.PublicKey
	if err := inZStarN2(pk, c); err != nil {
		return nil, fieldError(ErrInvalidCiphertext, "c", "%v", err)
	}
	n2 := pk.NSquared
	x := new(big.Int).Mul(pp.Delta(), ks.secret) // witness Δ·s_i
	defer wipe(x)
	ci := new(big.Int).Exp(c, new(big.Int).Lsh(x, 1), n2)

	r, err := rand.Int(random, new(big.Int).Lsh(one, uint(pp.proofRandBits())))
	if err != nil {
		return nil, fmt.Errorf("threshold: partial decryption: reading randomness: %w", err)
	}
	defer wipe(r)
	c4 := new(big.Int).Exp(c, four, n2)
	a := new(big.Int).Exp(c4, r, n2)
	b := new(big.Int).Exp(pp.V, r, n2)
	e := challenge(pp, ks.Index, c, ci, a, b)
	z := new(big.Int).Mul(e, x)
	z.Add(z, r)
	return &PartialDecryption{Index: ks.Index, Ci: ci, Proof: &EqualityProof{E: e, Z: z}}, nil
}

// VerifyPartial checks that pd is a correct partial decryption of c by
// trustee pd.Index. Errors are *PartialError values naming the trustee.
func (pp *PublicParams) VerifyPartial(c *big.Int, pd *PartialDecryption) error {
	if err := pp.validate(0); err != nil {
		return err
	}
	if err := inZStarN2(pp.PublicKey, c); err != nil {
		return fieldError(ErrInvalidCiphertext, "c", "%v", err)
	}
	if err := pp.verifyPartial(c, new(big.Int).Exp(c, four, pp.PublicKey.NSquared), pd); err != nil {
		idx := 0
		if pd != nil {
			idx = pd.Index
		}
		return &PartialError{Index: idx, Position: -1, Err: err}
	}
	return nil
}

// verifyPartial assumes pp and c are valid; c4 = c^4 mod N².
func (pp *PublicParams) verifyPartial(c, c4 *big.Int, pd *PartialDecryption) error {
	if err := pp.checkPartialRanges(pd); err != nil {
		return err
	}
	n2 := pp.PublicKey.NSquared
	e, z := pd.Proof.E, pd.Proof.Z
	// a = (c^4)^z · (c_i^2)^{-e},  b = V^z · V_i^{-e}  (mod N²).
	ci2 := new(big.Int).Mul(pd.Ci, pd.Ci)
	ci2.Mod(ci2, n2)
	a := mulInvExp(c4, z, ci2, e, n2)
	b := mulInvExp(pp.V, z, pp.VerificationKeys[pd.Index-1], e, n2)
	if a == nil || b == nil {
		// Cannot happen for values in Z*_{N²}; kept so that a bug is an error, not a panic.
		return fieldError(ErrInvalidPartial, "Ci", "not invertible modulo N²")
	}
	if challenge(pp, pd.Index, c, pd.Ci, a, b).Cmp(e) != 0 {
		return fieldError(ErrInvalidProof, "Proof", "challenge does not match")
	}
	return nil
}

// checkPartialRanges checks the index and that every value is in its range.
func (pp *PublicParams) checkPartialRanges(pd *PartialDecryption) error {
	if pd == nil {
		return fieldError(ErrInvalidPartial, "PartialDecryption", "missing")
	}
	if pd.Index < 1 || pd.Index > pp.L {
		return fieldError(ErrInvalidPartial, "Index", "%d not in 1..%d", pd.Index, pp.L)
	}
	if err := inZStarN2(pp.PublicKey, pd.Ci); err != nil {
		return fieldError(ErrInvalidPartial, "Ci", "%v", err)
	}
	if pd.Proof == nil || pd.Proof.E == nil || pd.Proof.Z == nil {
		return fieldError(ErrInvalidPartial, "Proof", "missing")
	}
	if pd.Proof.E.Sign() < 0 || pd.Proof.E.BitLen() > ChallengeBits {
		return fieldError(ErrInvalidPartial, "Proof.E", "not in [0, 2^%d)", ChallengeBits)
	}
	if pd.Proof.Z.Sign() < 0 || pd.Proof.Z.BitLen() > pp.proofZBits() {
		return fieldError(ErrInvalidPartial, "Proof.Z", "not in [0, 2^%d)", pp.proofZBits())
	}
	return nil
}

// mulInvExp returns g^z · h^{-e} mod n2, or nil if h is not invertible.
func mulInvExp(g, z, h, e, n2 *big.Int) *big.Int {
	he := new(big.Int).Exp(h, e, n2)
	if he.ModInverse(he, n2) == nil {
		return nil
	}
	gz := new(big.Int).Exp(g, z, n2)
	gz.Mul(gz, he)
	return gz.Mod(gz, n2)
}

// challenge is the Fiat–Shamir hash
//
//	SHA-256(DomainTag ‖ len(N) ‖ N ‖ i ‖ V ‖ V_i ‖ c ‖ c_i ‖ a ‖ b)                (version 1)
//	SHA-256(DomainTagV2 ‖ ShareBits ‖ len(N) ‖ N ‖ i ‖ V ‖ V_i ‖ c ‖ c_i ‖ a ‖ b)  (version 2)
//
// with ShareBits, len(N) and i as 4-byte big-endian integers, N in its
// minimal big-endian form and every element of Z_{N²} in fixed-width
// big-endian form of |N²| bytes, so the input parses uniquely.
func challenge(pp *PublicParams, index int, c, ci, a, b *big.Int) *big.Int {
	pk := pp.PublicKey
	w := elemLen(pk)
	h := sha256.New()
	var u [4]byte
	if pp.version() == 1 {
		h.Write([]byte(DomainTag))
	} else {
		h.Write([]byte(DomainTagV2))
		binary.BigEndian.PutUint32(u[:], uint32(pp.ShareBits))
		h.Write(u[:])
	}
	nb := pk.N.Bytes()
	binary.BigEndian.PutUint32(u[:], uint32(len(nb)))
	h.Write(u[:])
	h.Write(nb)
	binary.BigEndian.PutUint32(u[:], uint32(index))
	h.Write(u[:])
	buf := make([]byte, w)
	for _, x := range []*big.Int{pp.V, pp.VerificationKeys[index-1], c, ci, a, b} {
		x.FillBytes(buf)
		h.Write(buf)
	}
	return new(big.Int).SetBytes(h.Sum(nil))
}

// elemLen is the byte length of N², the fixed width of elements of Z_{N²}.
func elemLen(pk *paillier.PublicKey) int { return (pk.NSquared.BitLen() + 7) / 8 }
