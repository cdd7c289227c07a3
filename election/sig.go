package election

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/asn1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/big"
)

// Fixed sizes of the ballot's elliptic-curve fields.
const (
	VoterPubLen  = 65 // uncompressed P-256 point: 0x04 ‖ X ‖ Y
	SignatureLen = 64 // r ‖ s, 32 bytes each, big-endian
)

var (
	p256      = elliptic.P256()
	p256Order = p256.Params().N
	halfOrder = new(big.Int).Rsh(p256Order, 1)
)

// digest hashes length-prefixed fields: SHA-256(len(f0) ‖ f0 ‖ len(f1) ‖ f1 …)
// with 4-byte big-endian lengths. Prefixing every field (the domain tag too)
// makes the encoding injective, so no two field lists share a digest input.
func digest(fields ...[]byte) [32]byte {
	h := sha256.New()
	var l [4]byte
	for _, f := range fields {
		binary.BigEndian.PutUint32(l[:], uint32(len(f)))
		h.Write(l[:])
		h.Write(f)
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// ParseVoterPub checks that b is a 65-byte uncompressed point on P-256 (not
// the point at infinity) and returns the key.
func ParseVoterPub(b []byte) (*ecdsa.PublicKey, error) {
	if len(b) != VoterPubLen {
		return nil, errorf(CodeDecode, "voterPub has %d bytes, want %d (uncompressed P-256 point)", len(b), VoterPubLen)
	}
	if b[0] != 4 {
		return nil, errorf(CodeDecode, "voterPub does not start with 0x04 (uncompressed point)")
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(p256, b)
	if err != nil {
		return nil, wrapf(CodeDecode, err, "voterPub is not a point on P-256")
	}
	return pub, nil
}

// parseSig checks the fixed r‖s form: 1 ≤ r < n and 1 ≤ s ≤ n/2 (low S, so
// (r, n−s) is not a second valid encoding of the same signature).
func parseSig(b []byte, field string) (r, s *big.Int, err error) {
	if len(b) != SignatureLen {
		return nil, nil, errorf(CodeDecode, "%s has %d bytes, want %d (r‖s)", field, len(b), SignatureLen)
	}
	r = new(big.Int).SetBytes(b[:32])
	s = new(big.Int).SetBytes(b[32:])
	if r.Sign() == 0 || r.Cmp(p256Order) >= 0 {
		return nil, nil, errorf(CodeDecode, "%s: r is not in [1, n-1]", field)
	}
	if s.Sign() == 0 || s.Cmp(halfOrder) > 0 {
		return nil, nil, errorf(CodeDecode, "%s: s is not in [1, n/2] (high-S or zero signatures are not canonical)", field)
	}
	return r, s, nil
}

// encodeSig returns the canonical low-S r‖s form.
func encodeSig(r, s *big.Int) ([]byte, error) {
	if r.Sign() <= 0 || r.Cmp(p256Order) >= 0 || s.Sign() <= 0 || s.Cmp(p256Order) >= 0 {
		return nil, errors.New("signature values out of range")
	}
	if s.Cmp(halfOrder) > 0 {
		s = new(big.Int).Sub(p256Order, s)
	}
	out := make([]byte, SignatureLen)
	r.FillBytes(out[:32])
	s.FillBytes(out[32:])
	return out, nil
}

// signDigest signs d with a crypto.Signer (a PEM key or a PKCS#11 token) and
// returns the canonical r‖s form. The signer's output may be ASN.1 DER (the
// crypto.Signer convention for ECDSA) or raw r‖s.
func signDigest(random io.Reader, signer crypto.Signer, d [32]byte) ([]byte, error) {
	pub, ok := signer.Public().(*ecdsa.PublicKey)
	if !ok || pub.Curve != p256 {
		return nil, fmt.Errorf("signer key is %T, want an ECDSA P-256 key", signer.Public())
	}
	if random == nil {
		random = rand.Reader
	}
	raw, err := signer.Sign(random, d[:], crypto.SHA256)
	if err != nil {
		return nil, fmt.Errorf("signing: %w", err)
	}
	var rs struct{ R, S *big.Int }
	if rest, err := asn1.Unmarshal(raw, &rs); err != nil || len(rest) != 0 {
		if len(raw) != SignatureLen {
			return nil, fmt.Errorf("signer returned %d bytes, neither ASN.1 nor r‖s", len(raw))
		}
		rs.R = new(big.Int).SetBytes(raw[:32])
		rs.S = new(big.Int).SetBytes(raw[32:])
	}
	sig, err := encodeSig(rs.R, rs.S)
	if err != nil {
		return nil, fmt.Errorf("signer returned a bad signature: %w", err)
	}
	// Check the signature before it leaves: a faulty token or a key mix-up
	// would otherwise surface only as rejected ballots on the ledger.
	r, s, _ := parseSig(sig, "signature")
	if !ecdsa.Verify(pub, d[:], r, s) {
		return nil, errors.New("signer produced a signature that does not verify under its own public key")
	}
	return sig, nil
}

// verifySig checks a canonical r‖s signature over d; code is returned on failure.
func verifySig(pub *ecdsa.PublicKey, d [32]byte, sig []byte, field, code string) error {
	r, s, err := parseSig(sig, field)
	if err != nil {
		return err
	}
	if !ecdsa.Verify(pub, d[:], r, s) {
		return errorf(code, "%s does not verify", field)
	}
	return nil
}

// VoterKeyHash is SHA-256 of the voter's 65-byte public key encoding: the
// value the validity proof binds next to the pseudonym.
func VoterKeyHash(voterPub []byte) [32]byte { return sha256.Sum256(voterPub) }

// TokenDomain and BallotDomain are the domain tags of the two signed digests.
// Version 2 of both came with the pseudonym and the manifest digest; version
// 3 with the ballot style (the token's) and the ballot's list of contests.
const (
	TokenDomain  = "fabvote/token/v3"
	BallotDomain = "fabvote/ballot/v3"
)

// TokenLen is the length of a token: the voter's pseudonym, the index of
// the voter's ballot style in the manifest's styles (one byte), then the
// authority's signature r‖s over TokenDigest.
const TokenLen = PseudonymLen + 1 + SignatureLen

// TokenDigest is SHA-256(lp("fabvote/token/v3") ‖ lp(manifestDigest) ‖
// lp(electionID) ‖ lp(pseudonym) ‖ lp(style) ‖ lp(voterPub)), lp(x) =
// 4-byte big-endian len(x) ‖ x, style one byte: what the authority signs to
// declare that the voter with this pseudonym may cast one ballot of this
// style with voterPub in this election (and in no other: the manifest
// digest covers every manifest field, the channel too).
func TokenDigest(manifestDigest [32]byte, electionID string, pseudonym [PseudonymLen]byte, style byte, voterPub []byte) [32]byte {
	return digest([]byte(TokenDomain), manifestDigest[:], []byte(electionID), pseudonym[:], []byte{style}, voterPub)
}

// Token is a decoded token.
type Token struct {
	Pseudonym [PseudonymLen]byte
	Style     byte   // the index of the voter's ballot style in the manifest
	Sig       []byte // canonical r‖s
}

// ParseToken splits a token into its pseudonym, style and canonical
// signature. Errors: DECODE (wrong length, non-canonical signature).
func ParseToken(token []byte) (Token, error) {
	if len(token) != TokenLen {
		return Token{}, errorf(CodeDecode, "token has %d bytes, want %d (pseudonym ‖ style ‖ r ‖ s)", len(token), TokenLen)
	}
	if _, _, err := parseSig(token[PseudonymLen+1:], "token"); err != nil {
		return Token{}, err
	}
	t := Token{Style: token[PseudonymLen], Sig: token[PseudonymLen+1:]}
	copy(t.Pseudonym[:], token)
	return t, nil
}

// IssueToken signs the token for (the election of p, pseudonym, the ballot
// style of index style, voterPub) with the authority's key ea (an
// *ecdsa.PrivateKey or a PKCS#11-backed crypto.Signer) and returns
// pseudonym ‖ style ‖ signature (TokenLen bytes). Minter derives the
// pseudonym from a voter id; IssueToken is for callers that already hold it.
func (p *Prepared) IssueToken(random io.Reader, ea crypto.Signer, pseudonym [PseudonymLen]byte, style int, voterPub []byte) ([]byte, error) {
	if style < 0 || style >= len(p.Manifest.Styles) {
		return nil, fmt.Errorf("election: style %d, want 0..%d", style, len(p.Manifest.Styles)-1)
	}
	if _, err := ParseVoterPub(voterPub); err != nil {
		return nil, err
	}
	sig, err := signDigest(random, ea, TokenDigest(p.ManifestDigest, p.Manifest.ElectionID, pseudonym, byte(style), voterPub))
	if err != nil {
		return nil, fmt.Errorf("election: issuing token: %w", err)
	}
	return append(append(pseudonym[:], byte(style)), sig...), nil
}

// VerifyToken checks token against the election's authority key for
// voterPub, and that it names one of the election's styles. Errors: DECODE
// for a malformed token, TOKEN when it does not verify or names no style.
func (p *Prepared) VerifyToken(voterPub, token []byte) error {
	t, err := ParseToken(token)
	if err != nil {
		return err
	}
	if _, err := p.checkStyle(t.Style); err != nil {
		return err
	}
	return verifySig(p.TokenKey, TokenDigest(p.ManifestDigest, p.Manifest.ElectionID, t.Pseudonym, t.Style, voterPub), t.Sig, "token", CodeToken)
}
