package election

import (
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"regexp"
)

// BallotVersion is the first byte of every encoded ballot. Version 2 carries
// a token with the voter's pseudonym; version 3 a token with the voter's
// ballot style, and the list of the contests the ballot answers.
const BallotVersion = 3

// Limits. MaxBallotSize bounds every encoded ballot: a manifest whose
// ballots of some style would be longer is refused (prepareStatements), so
// anything longer is rejected before it is parsed. It holds a contest of
// 64 options with 4096-bit N and 256-bit challenges (a proof of
// 64·(1024+32+512) bytes).
const (
	MaxElectionIDLen = 64
	MaxBallotSize    = 104 * 1024
)

var electionIDRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// ValidElectionID reports whether id is a well-formed election id.
func ValidElectionID(id string) bool {
	return id != "" && len(id) <= MaxElectionIDLen && electionIDRE.MatchString(id)
}

// checkElectionID allows 1..64 characters from [A-Za-z0-9._-], starting with
// a letter or digit: safe in ledger composite keys, file names and logs.
func checkElectionID(id string) error {
	if !ValidElectionID(id) {
		return errorf(CodeDecode, "electionID %q must be 1..%d characters of [A-Za-z0-9._-] starting with a letter or digit", truncate(id, 80), MaxElectionIDLen)
	}
	return nil
}

// Ballot is one voter's encrypted vote. Every field is the exact byte string
// that is signed and stored; Marshal is the canonical encoding.
type Ballot struct {
	ElectionID string
	VoterPub   []byte // 65-byte uncompressed P-256 point
	Token      []byte // pseudonym ‖ style ‖ the authority's signature r‖s over TokenDigest (TokenLen bytes)
	Contests   []byte // the contests answered: each one's index in the manifest's contests, in order
	Ciphertext []byte // the contests' Paillier ciphertexts, each exactly CiphertextLen bytes
	Proof      []byte // the contests' proofs (zkp.ValidityProof.Marshal), of lengths fixed by the manifest
	Signature  []byte // voter's signature over SigningDigest, r‖s
}

// Pseudonym is the voter's pseudonym, the first PseudonymLen bytes of the
// token: the ballot's ledger key. Zero if the token is malformed (ParseBallot
// rejects such ballots).
func (b *Ballot) Pseudonym() [PseudonymLen]byte {
	var p [PseudonymLen]byte
	if len(b.Token) == TokenLen {
		copy(p[:], b.Token)
	}
	return p
}

// PseudonymHex is the lower-case hex of Pseudonym: the last attribute of the
// ballot's ledger key.
func (b *Ballot) PseudonymHex() string {
	p := b.Pseudonym()
	return hex.EncodeToString(p[:])
}

// SigningDigest is SHA-256 over lp("fabvote/ballot/v3"), then every field but
// the signature, each length-prefixed, in encoding order.
func (b *Ballot) SigningDigest() [32]byte {
	return digest([]byte(BallotDomain), []byte(b.ElectionID), b.VoterPub, b.Token, b.Contests, b.Ciphertext, b.Proof)
}

// Sign sets b.Signature with the voter's key.
func (b *Ballot) Sign(voter *ecdsa.PrivateKey) error {
	sig, err := signDigest(nil, voter, b.SigningDigest())
	if err != nil {
		return fmt.Errorf("election: signing ballot: %w", err)
	}
	b.Signature = sig
	return nil
}

// VerifySignature checks the voter's signature against VoterPub.
func (b *Ballot) VerifySignature() error {
	pub, err := ParseVoterPub(b.VoterPub)
	if err != nil {
		return err
	}
	return verifySig(pub, b.SigningDigest(), b.Signature, "signature", CodeSignature)
}

// Hash is SHA-256 of the canonical encoding: the ballot hash on receipts.
func (b *Ballot) Hash() [32]byte { return sha256.Sum256(b.Marshal()) }

// Marshal returns the canonical encoding:
// 0x03 ‖ lp(electionID) ‖ lp(voterPub) ‖ lp(token) ‖ lp(contests) ‖ lp(ciphertext) ‖ lp(proof) ‖ lp(signature)
// with lp(x) = 4-byte big-endian len(x) ‖ x.
func (b *Ballot) Marshal() []byte {
	fields := [][]byte{[]byte(b.ElectionID), b.VoterPub, b.Token, b.Contests, b.Ciphertext, b.Proof, b.Signature}
	n := 1
	for _, f := range fields {
		n += 4 + len(f)
	}
	out := make([]byte, 1, n)
	out[0] = BallotVersion
	for _, f := range fields {
		out = binary.BigEndian.AppendUint32(out, uint32(len(f)))
		out = append(out, f...)
	}
	return out
}

// ParseBallot decodes the canonical encoding. It checks, before anything
// costly: total size, version, each length prefix against what remains and
// against the field's fixed or maximum length, no trailing bytes, the
// election id's alphabet, the voter key being a point on P-256 and both
// signatures being canonical low-S r‖s. Ciphertext and proof lengths depend on
// the manifest and are checked by Prepared.CheckBallot.
// Errors: SIZE for oversize input, DECODE for everything else.
func ParseBallot(data []byte) (*Ballot, error) {
	if err := checkBallotHeader(data); err != nil {
		return nil, err
	}
	fields, err := splitBallotFields(data[1:])
	if err != nil {
		return nil, err
	}
	b := &Ballot{
		ElectionID: string(fields[0]),
		VoterPub:   fields[1],
		Token:      fields[2],
		Contests:   fields[3],
		Ciphertext: fields[4],
		Proof:      fields[5],
		Signature:  fields[6],
	}
	if err := b.checkFieldValues(); err != nil {
		return nil, err
	}
	return b, nil
}

// checkBallotHeader checks the encoding's total size and its version byte.
func checkBallotHeader(data []byte) error {
	if len(data) > MaxBallotSize {
		return errorf(CodeSize, "ballot has %d bytes, the limit is %d", len(data), MaxBallotSize)
	}
	if len(data) == 0 {
		return errorf(CodeDecode, "ballot is empty")
	}
	if data[0] != BallotVersion {
		return errorf(CodeDecode, "ballot version is %d, want %d", data[0], BallotVersion)
	}
	return nil
}

// ballotField describes one length-prefixed field of the encoding.
type ballotField struct {
	name  string
	exact int // 0: variable
	max   int
}

// ballotFields are the encoding's fields, in order.
var ballotFields = [7]ballotField{
	{name: "electionID", max: MaxElectionIDLen},
	{name: "voterPub", exact: VoterPubLen},
	{name: "token", exact: TokenLen},
	{name: "contests", max: MaxContests},
	{name: "ciphertext", max: MaxBallotSize},
	{name: "proof", max: MaxBallotSize},
	{name: "signature", exact: SignatureLen},
}

// splitBallotFields cuts the encoding after the version byte into its
// fields, which must fill it exactly.
func splitBallotFields(rest []byte) ([7][]byte, error) {
	var fields [7][]byte
	for i, s := range ballotFields {
		var err error
		if fields[i], rest, err = readBallotField(rest, s); err != nil {
			return fields, err
		}
	}
	if len(rest) != 0 {
		return fields, errorf(CodeDecode, "ballot has %d trailing bytes", len(rest))
	}
	return fields, nil
}

// readBallotField reads field s off the front of rest: a 4-byte big-endian
// length, checked against s and against what remains, then the bytes.
func readBallotField(rest []byte, s ballotField) (field, remaining []byte, err error) {
	if len(rest) < 4 {
		return nil, nil, errorf(CodeDecode, "ballot truncated before the length of %s", s.name)
	}
	l := binary.BigEndian.Uint32(rest)
	rest = rest[4:]
	if s.exact != 0 && l != uint32(s.exact) {
		return nil, nil, errorf(CodeDecode, "%s has length %d, want %d", s.name, l, s.exact)
	}
	if s.exact == 0 && l > uint32(s.max) {
		return nil, nil, errorf(CodeDecode, "%s has length %d, more than %d", s.name, l, s.max)
	}
	if uint32(len(rest)) < l {
		return nil, nil, errorf(CodeDecode, "ballot truncated inside %s (%d of %d bytes)", s.name, len(rest), l)
	}
	// Copy: the ballot must not alias the caller's buffer.
	return append([]byte(nil), rest[:l]...), rest[l:], nil
}

// checkFieldValues checks what a field's length does not: the election id's
// alphabet, non-empty contests, ciphertext and proof, the token's and signature's
// form and the voter key being a point on P-256.
func (b *Ballot) checkFieldValues() error {
	if err := checkElectionID(b.ElectionID); err != nil {
		return err
	}
	if len(b.Contests) == 0 {
		return errorf(CodeDecode, "contests is empty")
	}
	if len(b.Ciphertext) == 0 {
		return errorf(CodeDecode, "ciphertext is empty")
	}
	if len(b.Proof) == 0 {
		return errorf(CodeDecode, "proof is empty")
	}
	if _, err := ParseToken(b.Token); err != nil {
		return err
	}
	if _, _, err := parseSig(b.Signature, "signature"); err != nil {
		return err
	}
	if _, err := ParseVoterPub(b.VoterPub); err != nil {
		return err
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
