package election

import (
	"encoding/hex"
	"encoding/json"
)

// CiphertextDomain is the domain tag of a ciphertext's digest.
const CiphertextDomain = "fabvote/ciphertext/v1"

// ObjCiphertext is the ledger object type of ciphertext claims: the key
// (ObjCiphertext, electionID, hex(CiphertextDigest(c))) holds the one claim
// on ciphertext c, by the cast ballot that holds it or by the spoiled
// ballot that opened it. Claiming every ciphertext once, not every ballot,
// is what keeps a ballot of several ciphertexts from sharing one of them
// with another ballot: a spoiled ballot reusing a cast ciphertext would
// publish its nonce (the cast vote opened), and a cast ballot reusing a
// spoiled ciphertext would count a vote that is public.
const ObjCiphertext = "ciphertext"

// CiphertextDigest is SHA-256(lp("fabvote/ciphertext/v1") ‖ lp(c)),
// lp(x) = 4-byte big-endian len(x) ‖ x, over one ciphertext's fixed-length
// bytes as they stand in the ballot: the last attribute of its claim key.
func CiphertextDigest(c []byte) [32]byte {
	return digest([]byte(CiphertextDomain), c)
}

// CiphertextKey is the state key of the claim on ciphertext c of election
// electionID.
func CiphertextKey(electionID string, c []byte) string {
	d := CiphertextDigest(c)
	return LedgerKey(ObjCiphertext, electionID, hex.EncodeToString(d[:]))
}

// Ciphertexts is ballot b's ciphertext cut into its CiphertextLen pieces,
// one per ciphertext, in order: the pieces a cast claims. Errors:
// CIPHERTEXT when the bytes do not cut evenly (or there are none).
func (p *Prepared) Ciphertexts(b *Ballot) ([][]byte, error) {
	w := p.PublicKey.CiphertextLen()
	if len(b.Ciphertext) == 0 || len(b.Ciphertext)%w != 0 {
		return nil, errorf(CodeCiphertext, "ciphertext has %d bytes, not a positive multiple of %d", len(b.Ciphertext), w)
	}
	out := make([][]byte, 0, len(b.Ciphertext)/w)
	for i := 0; i < len(b.Ciphertext); i += w {
		out = append(out, b.Ciphertext[i:i+w:i+w])
	}
	return out, nil
}

// CiphertextClaimFormat is the format of a claim on a ciphertext.
const CiphertextClaimFormat = "fabvote/ciphertext-claim"

// ClaimKind says which kind of ballot claimed a ciphertext.
type ClaimKind int

// The kinds of claim, named as their JSON key.
const (
	ClaimCast    ClaimKind = iota // a cast ballot holds the ciphertext: Holder is its pseudonym
	ClaimSpoiled                  // a spoiled ballot opened it: Holder is its tracker
)

// String is the claim's JSON key: "cast" or "spoiled".
func (k ClaimKind) String() string {
	if k == ClaimSpoiled {
		return "spoiled"
	}
	return "cast"
}

// CiphertextClaim is what a cast or a spoil writes under the claim key of
// each of its ciphertexts. JSON, exactly one of the two forms:
//
//	{"format":"fabvote/ciphertext-claim","version":1,"cast":"<64-hex pseudonym>"}
//	{"format":"fabvote/ciphertext-claim","version":1,"spoiled":"<64-hex tracker>"}
type CiphertextClaim struct {
	Kind   ClaimKind
	Holder [32]byte // the casting ballot's pseudonym (its ballot key) or the spoiled ballot's tracker
}

// CiphertextClaim is the cast claim ballot b's cast writes on each of its
// ciphertexts: its pseudonym.
func (b *Ballot) CiphertextClaim() *CiphertextClaim {
	return &CiphertextClaim{Kind: ClaimCast, Holder: b.Pseudonym()}
}

// CiphertextClaim is the spoiled claim the spoil of s writes on each of
// its ciphertexts: its tracker.
func (s *SpoiledBallot) CiphertextClaim() *CiphertextClaim {
	return &CiphertextClaim{Kind: ClaimSpoiled, Holder: s.Tracker()}
}

// maxCiphertextClaimSize bounds a claim's encoding well above its fixed length.
const maxCiphertextClaimSize = 256

// HolderHex is the lowercase hex of the holder: a pseudonym or a tracker.
func (c *CiphertextClaim) HolderHex() string { return hex.EncodeToString(c.Holder[:]) }

// Marshal is the claim's canonical JSON. Every part is fixed but the kind's
// key and the holder's hex, none of which JSON escapes, so it is written
// as is: a cast writes one claim per ciphertext and every peer's
// validation compares it, for each ballot.
func (c *CiphertextClaim) Marshal() []byte {
	return []byte(`{"format":"` + CiphertextClaimFormat + `","version":1,"` + c.Kind.String() + `":"` + c.HolderHex() + `"}`)
}

// ParseCiphertextClaim decodes a claim in exactly its canonical form.
// Errors: SIZE, DECODE naming the key or value that is wrong.
func ParseCiphertextClaim(data []byte) (*CiphertextClaim, error) {
	const what = "ciphertext claim"
	if len(data) > maxCiphertextClaimSize {
		return nil, errorf(CodeSize, "%s has %d bytes, the limit is %d", what, len(data), maxCiphertextClaimSize)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return nil, wrapf(CodeDecode, err, "%s is not one JSON object", what)
	}
	_, cast := keys["cast"]
	_, spoiled := keys["spoiled"]
	if cast == spoiled {
		return nil, errorf(CodeDecode, "%s: want exactly one of the keys \"cast\" and \"spoiled\"", what)
	}
	c := CiphertextClaim{Kind: ClaimCast}
	if spoiled {
		c.Kind = ClaimSpoiled
	}
	var in struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
		Cast    string `json:"cast"`
		Spoiled string `json:"spoiled"`
	}
	if err := decodeStrict(data, what, []string{"format", "version", c.Kind.String()}, &in); err != nil {
		return nil, err
	}
	if err := checkFormat(what, in.Format, CiphertextClaimFormat, in.Version); err != nil {
		return nil, err
	}
	h := in.Cast + in.Spoiled // one of them is empty
	if len(h) != 2*len(c.Holder) {
		return nil, errorf(CodeDecode, "%s: %s has %d hex digits, want %d", what, c.Kind, len(h), 2*len(c.Holder))
	}
	if _, err := hex.Decode(c.Holder[:], []byte(h)); err != nil {
		return nil, wrapf(CodeDecode, err, "%s: %s", what, c.Kind)
	}
	if err := checkCanonical(data, c.Marshal(), what); err != nil {
		return nil, err
	}
	return &c, nil
}
