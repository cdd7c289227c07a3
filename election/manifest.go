package election

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"math/bits"
	"regexp"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/fabvote/fabvote/crypto/paillier"
	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/crypto/votecode"
)

// ManifestVersion is the only manifest version this code accepts. Version 2
// added the channel and the clock-skew bound, which the token and the
// validity proof bind through ManifestDigest; version 3 added the
// pseudonym-key commitment, bound the same way; version 4 replaced the one
// list of candidates by contests and ballot styles; version 5 added how
// the key was made (keyOrigin, keyCeremony).
const ManifestVersion = 5

// Manifest limits.
const (
	MaxManifestSize   = 256 * 1024
	MaxNameLen        = 200 // titles and option names, bytes of UTF-8
	MinModulusBits    = 2048
	MaxModulusBits    = 4096
	MinChallengeBits  = 128
	MaxChallengeBits  = 256
	MaxMSPIDLen       = 128
	MaxTrusteeMSPs    = 64
	DefaultChallenge  = 128
	maxEncodedKeySize = 64 * 1024
	MaxChannelLen     = 249 // Fabric's limit on channel names

	// MaxClockSkew bounds (seconds) of the manifest's maxClockSkewSeconds:
	// how far apart the clocks of any two honest endorsing peers may be.
	MinClockSkewSeconds     = 1
	MaxClockSkewSeconds     = 3600
	DefaultClockSkewSeconds = 120
)

// Manifest describes one election. It is written once to the ledger and is
// immutable afterwards; its canonical encoding is Marshal's output.
type Manifest struct {
	Version    int    `json:"version"`
	ElectionID string `json:"electionID"`
	Channel    string `json:"channel"` // the Fabric channel the election lives on: part of its identity
	Title      string `json:"title"`
	// Contests are the questions of the election, in the order of the
	// tally's digits; Styles are the sets of them that voters get.
	Contests     []Contest `json:"contests"`
	Styles       []Style   `json:"styles"`
	EncodingBits uint      `json:"encodingBits"` // M = 2^EncodingBits > MaxVoters
	MaxVoters    uint64    `json:"maxVoters"`
	PaillierKey  []byte    `json:"paillierKey"` // paillier.PublicKey.MarshalBinary
	Threshold    []byte    `json:"threshold"`   // threshold.PublicParams encoding; empty = single key
	// KeyOrigin says how the Paillier key was made: KeyOriginDealer or
	// KeyOriginDistributed. KeyCeremony, the ceremony's public result, is
	// set exactly for a distributed key.
	KeyOrigin   string       `json:"keyOrigin"`
	KeyCeremony *KeyCeremony `json:"keyCeremony,omitempty"`
	TokenKey    []byte       `json:"tokenKey"` // authority's P-256 public key, PKIX DER
	// PseudonymKeyCommitment is PseudonymKeyCommitment(K_pseud): the one
	// pseudonym key tokens of this election may be issued under.
	PseudonymKeyCommitment []byte    `json:"pseudonymKeyCommitment"`
	AuthorityMSP           string    `json:"authorityMSP"`
	TrusteeMSPs            []string  `json:"trusteeMSPs"`
	Start                  time.Time `json:"start"` // voting window [Start, End), UTC
	End                    time.Time `json:"end"`
	// MaxClockSkewSeconds is the largest difference between the clocks of
	// two honest endorsing peers that the window rule tolerates: a result is
	// accepted only from End + MaxClockSkew on (see ResultNotBefore).
	MaxClockSkewSeconds uint32 `json:"maxClockSkewSeconds"`
	ChallengeBits       int    `json:"challengeBits"`
	// BoothDigest, when set, is the digest of the booth's files
	// ("sha256:" and 64 lowercase hex digits, package booth's Digest):
	// which booth the voters run, for observers to check. Optional, and
	// left out of the encoding when empty.
	BoothDigest string `json:"boothDigest,omitempty"`
}

// MaxClockSkew is MaxClockSkewSeconds as a duration.
func (m *Manifest) MaxClockSkew() time.Duration {
	return time.Duration(m.MaxClockSkewSeconds) * time.Second
}

// ResultNotBefore is End + MaxClockSkew: the earliest time at which a peer
// accepts a result (by its own clock and by the transaction timestamp).
func (m *Manifest) ResultNotBefore() time.Time { return m.End.Add(m.MaxClockSkew()) }

var (
	mspIDRE       = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	channelRE     = regexp.MustCompile(`^[a-z][a-z0-9.-]*$`)
	boothDigestRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
)

// Marshal validates m and returns its canonical JSON encoding. Times are
// normalised to UTC; nil slices are encoded as empty.
func (m *Manifest) Marshal() ([]byte, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m.marshal()
}

func (m *Manifest) marshal() ([]byte, error) {
	c := *m
	c.Start, c.End = c.Start.UTC(), c.End.UTC()
	if c.Threshold == nil {
		c.Threshold = []byte{}
	}
	if c.TrusteeMSPs == nil {
		c.TrusteeMSPs = []string{}
	}
	c.Contests, c.Styles = canonContests(c.Contests), canonStyles(c.Styles)
	b, err := json.Marshal(&c)
	if err != nil {
		return nil, wrapf(CodeManifest, err, "encoding manifest")
	}
	return b, nil
}

// ParseManifest decodes and validates a manifest. It accepts only the
// canonical encoding: no unknown or duplicate-cased fields, no trailing data,
// no whitespace, times in UTC, no null for a list — exactly Marshal's
// output for the result. The encoding is checked before the fields, as the
// Python verifier checks it, so that a manifest both not canonical and
// invalid is DECODE for both.
func ParseManifest(b []byte) (*Manifest, error) {
	if len(b) > MaxManifestSize {
		return nil, errorf(CodeSize, "manifest has %d bytes, the limit is %d", len(b), MaxManifestSize)
	}
	m := new(Manifest)
	if err := strictJSON(b, m); err != nil {
		return nil, wrapf(CodeDecode, err, "manifest")
	}
	canon, err := m.marshal()
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(canon, b) {
		return nil, errorf(CodeDecode, "manifest is not in canonical form (re-encode it with Manifest.Marshal)")
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// strictJSON decodes exactly one JSON value with no unknown fields and no trailing data.
func strictJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data after the JSON value")
	}
	if _, err := dec.Token(); err == nil {
		return fmt.Errorf("trailing data after the JSON value")
	}
	return nil
}

func manifestErr(format string, args ...any) *Error { return errorf(CodeManifest, format, args...) }

func checkName(field, s string) error {
	if s == "" {
		return manifestErr("%s is empty", field)
	}
	if len(s) > MaxNameLen {
		return manifestErr("%s has %d bytes, the limit is %d", field, len(s), MaxNameLen)
	}
	if !utf8.ValidString(s) {
		return manifestErr("%s is not valid UTF-8", field)
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return manifestErr("%s contains a control character", field)
		}
	}
	return nil
}

func checkMSPID(field, s string) error {
	if s == "" || len(s) > MaxMSPIDLen || !mspIDRE.MatchString(s) {
		return manifestErr("%s %q must be 1..%d characters of [A-Za-z0-9._-]", field, truncate(s, 80), MaxMSPIDLen)
	}
	return nil
}

// Validate checks every field. It parses the keys, so it is not free; the
// chaincode runs it once per manifest and caches the outcome (see Prepare).
func (m *Manifest) Validate() error {
	_, err := m.prepare()
	return err
}

// prepare checks every field, in a fixed order so that a manifest with
// several faults always reports the same one, and builds the Prepared form.
func (m *Manifest) prepare() (*Prepared, error) {
	if m == nil {
		return nil, manifestErr("manifest is missing")
	}
	if err := m.checkHeader(); err != nil {
		return nil, err
	}
	index, err := checkContests(m.Contests)
	if err != nil {
		return nil, err
	}
	if err := checkStyles(m.Styles, m.Contests, index); err != nil {
		return nil, err
	}
	if err := m.checkEncodingBits(); err != nil {
		return nil, err
	}
	pk, err := m.parsePaillierKey()
	if err != nil {
		return nil, err
	}
	pp, err := m.parseThreshold(pk)
	if err != nil {
		return nil, err
	}
	if err := m.checkKeyOrigin(pp); err != nil {
		return nil, err
	}
	tokenKey, err := m.parseTokenKey()
	if err != nil {
		return nil, err
	}
	if len(m.PseudonymKeyCommitment) != PseudonymKeyCommitmentLen {
		return nil, manifestErr("pseudonymKeyCommitment has %d bytes, want %d", len(m.PseudonymKeyCommitment), PseudonymKeyCommitmentLen)
	}
	if err := m.checkMSPs(); err != nil {
		return nil, err
	}
	if err := m.checkSchedule(); err != nil {
		return nil, err
	}
	if m.ChallengeBits < MinChallengeBits || m.ChallengeBits > MaxChallengeBits || m.ChallengeBits%8 != 0 {
		return nil, manifestErr("challengeBits is %d, want a multiple of 8 in %d..%d", m.ChallengeBits, MinChallengeBits, MaxChallengeBits)
	}
	if m.BoothDigest != "" {
		if err := CheckBoothDigest(m.BoothDigest); err != nil {
			return nil, err
		}
	}
	return m.newPrepared(pk, pp, tokenKey)
}

// CheckBoothDigest checks the form of a manifest's boothDigest: "sha256:"
// and 64 lowercase hex digits.
func CheckBoothDigest(d string) error {
	if !boothDigestRE.MatchString(d) {
		return manifestErr("boothDigest %q: want sha256: and 64 lowercase hex digits (fabvote booth digest --dir DIR)", truncate(d, 80))
	}
	return nil
}

// checkHeader checks the fields that name the election: the manifest
// version, the election id, the channel and the title.
func (m *Manifest) checkHeader() error {
	if m.Version != ManifestVersion {
		return manifestErr("version is %d, want %d", m.Version, ManifestVersion)
	}
	if err := checkElectionID(m.ElectionID); err != nil {
		return manifestErr("electionID: %s", err.(*Error).Msg)
	}
	if m.Channel == "" || len(m.Channel) > MaxChannelLen || !channelRE.MatchString(m.Channel) {
		return manifestErr("channel %q must be 1..%d characters of [a-z0-9.-] starting with a letter (a Fabric channel name)", truncate(m.Channel, 80), MaxChannelLen)
	}
	return checkName("title", m.Title)
}

// checkEncodingBits checks that encodingBits leaves room for every
// voter's vote in a digit: 2^encodingBits > maxVoters.
func (m *Manifest) checkEncodingBits() error {
	if m.MaxVoters == 0 {
		return manifestErr("maxVoters is 0")
	}
	// 2^b > MaxVoters  ⇔  b ≥ bit length of MaxVoters.
	if need := uint(bits.Len64(m.MaxVoters)); m.EncodingBits < need || m.EncodingBits > votecode.MaxBits {
		return manifestErr("encodingBits is %d, want %d..%d so that 2^encodingBits > maxVoters = %d", m.EncodingBits, need, votecode.MaxBits, m.MaxVoters)
	}
	return nil
}

// parsePaillierKey parses the election's Paillier key and checks its size.
// (That every tally fits below N is the layout's check, prepareStatements.)
func (m *Manifest) parsePaillierKey() (*paillier.PublicKey, error) {
	if len(m.PaillierKey) == 0 || len(m.PaillierKey) > maxEncodedKeySize {
		return nil, manifestErr("paillierKey is empty or longer than %d bytes", maxEncodedKeySize)
	}
	pk, err := paillier.ParsePublicKey(m.PaillierKey)
	if err != nil {
		return nil, manifestErr("paillierKey: %v", err)
	}
	if nb := pk.N.BitLen(); nb < MinModulusBits || nb > MaxModulusBits {
		return nil, manifestErr("paillierKey: N has %d bits, want %d..%d", nb, MinModulusBits, MaxModulusBits)
	}
	return pk, nil
}

// parseThreshold parses the threshold decryption parameters, if the
// election has any (nil otherwise), and checks they are for the key pk.
func (m *Manifest) parseThreshold(pk *paillier.PublicKey) (*threshold.PublicParams, error) {
	if len(m.Threshold) == 0 {
		return nil, nil
	}
	if len(m.Threshold) > maxEncodedKeySize {
		return nil, manifestErr("threshold parameters longer than %d bytes", maxEncodedKeySize)
	}
	pp, err := threshold.ParsePublicParams(m.Threshold)
	if err != nil {
		return nil, manifestErr("threshold: %v", err)
	}
	if err := pp.Validate(); err != nil {
		return nil, manifestErr("threshold: %v", err)
	}
	if pp.PublicKey.N.Cmp(pk.N) != 0 {
		return nil, manifestErr("threshold: modulus differs from paillierKey")
	}
	return pp, nil
}

// parseTokenKey parses the key that verifies voting tokens, which must be
// ECDSA on P-256.
func (m *Manifest) parseTokenKey() (*ecdsa.PublicKey, error) {
	if len(m.TokenKey) == 0 || len(m.TokenKey) > maxEncodedKeySize {
		return nil, manifestErr("tokenKey is empty or too long")
	}
	anyKey, err := x509.ParsePKIXPublicKey(m.TokenKey)
	if err != nil {
		return nil, manifestErr("tokenKey: %v", err)
	}
	tokenKey, ok := anyKey.(*ecdsa.PublicKey)
	if !ok || tokenKey.Curve != p256 {
		return nil, manifestErr("tokenKey is %T, want an ECDSA P-256 key", anyKey)
	}
	return tokenKey, nil
}

// checkMSPs checks the authority's MSP id and the trustees' list: well
// formed, within the limit, none listed twice.
func (m *Manifest) checkMSPs() error {
	if err := checkMSPID("authorityMSP", m.AuthorityMSP); err != nil {
		return err
	}
	if len(m.TrusteeMSPs) > MaxTrusteeMSPs {
		return manifestErr("trusteeMSPs: %d entries, the limit is %d", len(m.TrusteeMSPs), MaxTrusteeMSPs)
	}
	seenMSP := map[string]bool{}
	for i, id := range m.TrusteeMSPs {
		if err := checkMSPID(fmt.Sprintf("trusteeMSPs[%d]", i), id); err != nil {
			return err
		}
		if seenMSP[id] {
			return manifestErr("trusteeMSPs[%d] %q is listed twice", i, id)
		}
		seenMSP[id] = true
	}
	return nil
}

// checkSchedule checks the voting window and the clock skew allowed
// around it.
func (m *Manifest) checkSchedule() error {
	if m.Start.IsZero() || m.End.IsZero() {
		return manifestErr("start and end must both be set")
	}
	if m.Start.Year() < 2000 || m.End.Year() > 9999 {
		return manifestErr("start/end outside years 2000..9999")
	}
	if !m.End.After(m.Start) {
		return manifestErr("end %s is not after start %s", m.End.UTC().Format(time.RFC3339), m.Start.UTC().Format(time.RFC3339))
	}
	if m.MaxClockSkewSeconds < MinClockSkewSeconds || m.MaxClockSkewSeconds > MaxClockSkewSeconds {
		return manifestErr("maxClockSkewSeconds is %d, want %d..%d", m.MaxClockSkewSeconds, MinClockSkewSeconds, MaxClockSkewSeconds)
	}
	return nil
}

// newPrepared builds the Prepared form of a manifest whose fields have been
// checked, and checks the proof context it implies.
func (m *Manifest) newPrepared(pk *paillier.PublicKey, pp *threshold.PublicParams, tokenKey *ecdsa.PublicKey) (*Prepared, error) {
	ident, err := m.identityEncoding()
	if err != nil {
		return nil, err
	}
	layout, err := m.layout()
	if err != nil {
		return nil, err
	}
	p := &Prepared{
		Manifest:       m,
		ManifestDigest: ManifestDigest(ident),
		PublicKey:      pk,
		Threshold:      pp,
		TokenKey:       tokenKey,
		Layout:         layout,
	}
	if err := p.prepareStatements(); err != nil {
		return nil, err
	}
	return p, nil
}

// layout lays out the manifest's contests, each in its stated encoding.
func (m *Manifest) layout() (*votecode.Layout, error) {
	shapes := make([]votecode.Shape, len(m.Contests))
	kinds := make([]votecode.Kind, len(m.Contests))
	for i := range m.Contests {
		shapes[i] = m.Contests[i].Shape()
		kinds[i], _ = m.Contests[i].kind() // checkContests parsed it
	}
	l, err := votecode.NewLayoutKinds(m.EncodingBits, shapes, kinds)
	if err != nil {
		return nil, manifestErr("contests: %v", err)
	}
	return l, nil
}

// PublicKey parses the manifest's Paillier key.
func (m *Manifest) PublicKey() (*paillier.PublicKey, error) {
	pk, err := paillier.ParsePublicKey(m.PaillierKey)
	if err != nil {
		return nil, manifestErr("paillierKey: %v", err)
	}
	return pk, nil
}

// ManifestDomain is the domain tag of ManifestDigest.
const ManifestDomain = "fabvote/manifest/v5"

// ManifestDigest is SHA-256(lp("fabvote/manifest/v5") ‖ lp(identity)),
// identity being the manifest's identity encoding (Prepared.ManifestDigest
// computes it): the canonical JSON of the manifest with start and end set
// to the zero time. The token and the validity proof bind it, so a ballot
// made under one manifest is invalid under any other that differs in any
// field but the window, even one with the same election id and keys.
func ManifestDigest(identity []byte) [32]byte {
	return digest([]byte(ManifestDomain), identity)
}

// identityEncoding is the canonical JSON of m with Start and End zero.
//
// The window is the one field left out, because it is the one field that
// is still set when the election opens (`fabvote election open --start
// --end`), after tokens and ballots may have been made (benchmarks make
// them in advance). Leaving it out changes nothing a ballot means: the
// contests, the styles, the encodings, the keys and the pseudonym-key commitment,
// the channel, the limits and the clock-skew bound are all bound, and the contract enforces the window of
// the manifest on the ledger on every cast, whatever window the voter's
// copy showed.
func (m *Manifest) identityEncoding() ([]byte, error) {
	c := *m
	c.Start, c.End = time.Time{}, time.Time{}
	return c.marshal()
}
