package election

import (
	"crypto"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// PseudonymLen is the length of a voter's pseudonym, and PseudonymKeyLen
// that of the authority's secret K_pseud it is derived under.
const (
	PseudonymLen    = 32
	PseudonymKeyLen = 32
)

// PseudonymDomain is the domain tag of the pseudonym derivation.
const PseudonymDomain = "fabvote/pseudonym/v1"

// MaxVoterIDLen bounds a voter id (the roll's key) for the pseudonym.
const MaxVoterIDLen = 256

// PseudonymKeyCommitmentDomain is the domain tag of PseudonymKeyCommitment,
// and PseudonymKeyCommitmentLen the length of the commitment.
const (
	PseudonymKeyCommitmentDomain = "fabvote/pseudonym-key-commitment/v1"
	PseudonymKeyCommitmentLen    = 32
)

// ErrPseudonymKeyMismatch is returned by NewMinter (and
// Prepared.CheckPseudonymKey) for a pseudonym key that is not the one the
// manifest commits to.
var ErrPseudonymKeyMismatch = errors.New("election: the pseudonym key does not match the manifest's pseudonymKeyCommitment")

// PseudonymKeyCommitment is SHA-256(lp("fabvote/pseudonym-key-commitment/v1")
// ‖ lp(key)): the manifest's pseudonymKeyCommitment.
//
// It pins K_pseud to the election. A voter's pseudonym depends on the key, so
// tokens issued under any other key (another election's, or one made again
// after the original was lost) would give every voter a second pseudonym and
// so a second ballot; with the commitment in the manifest, NewMinter refuses
// such a key. It reveals nothing about the key: K_pseud is 256 uniformly
// random bits, so the hash cannot be inverted or the key guessed, and the
// domain tag keeps it apart from every other SHA-256 input of the protocol.
func PseudonymKeyCommitment(key []byte) ([PseudonymKeyCommitmentLen]byte, error) {
	if len(key) != PseudonymKeyLen {
		return [PseudonymKeyCommitmentLen]byte{}, fmt.Errorf("election: pseudonym key has %d bytes, want %d", len(key), PseudonymKeyLen)
	}
	return digest([]byte(PseudonymKeyCommitmentDomain), key), nil
}

// CheckPseudonymKey returns nil if key is the pseudonym key the manifest
// commits to, and an error wrapping ErrPseudonymKeyMismatch otherwise.
func (p *Prepared) CheckPseudonymKey(key []byte) error {
	c, err := PseudonymKeyCommitment(key)
	if err != nil {
		return err
	}
	if !hmac.Equal(c[:], p.Manifest.PseudonymKeyCommitment) {
		return fmt.Errorf("%w of election %q: it is not the key `election create` made for this election "+
			"(another election's key, or one made again?); tokens under it would give every voter a second pseudonym, and so a second ballot",
			ErrPseudonymKeyMismatch, p.Manifest.ElectionID)
	}
	return nil
}

// Pseudonym is HMAC-SHA256(K_pseud, lp("fabvote/pseudonym/v1") ‖
// lp(electionID) ‖ lp(voterID)), lp(x) = 4-byte big-endian len(x) ‖ x.
//
// It is the same for every token the authority ever issues to one voter in
// one election, whatever key the voter registers, so the ballot's ledger key
// (which is the pseudonym) admits one ballot per voter. HMAC-SHA256 is a PRF:
// without K_pseud the pseudonyms of distinct voters are indistinguishable
// from independent random strings, so a pseudonym reveals nothing about the
// voter id to anyone but the key's holder. The length prefixes keep
// ("e1", "2x") and ("e12", "x") apart.
func Pseudonym(key []byte, electionID, voterID string) ([PseudonymLen]byte, error) {
	var out [PseudonymLen]byte
	if len(key) != PseudonymKeyLen {
		return out, fmt.Errorf("election: pseudonym key has %d bytes, want %d", len(key), PseudonymKeyLen)
	}
	if err := checkElectionID(electionID); err != nil {
		return out, err
	}
	if voterID == "" || len(voterID) > MaxVoterIDLen {
		return out, fmt.Errorf("election: voter id has %d bytes, want 1..%d", len(voterID), MaxVoterIDLen)
	}
	mac := hmac.New(sha256.New, key)
	var l [4]byte
	for _, f := range []string{PseudonymDomain, electionID, voterID} {
		binary.BigEndian.PutUint32(l[:], uint32(len(f)))
		mac.Write(l[:])
		mac.Write([]byte(f))
	}
	mac.Sum(out[:0])
	return out, nil
}

// NewPseudonymKey draws a fresh K_pseud from random (nil: crypto/rand).
func NewPseudonymKey(random io.Reader) ([]byte, error) {
	if random == nil {
		random = rand.Reader
	}
	k := make([]byte, PseudonymKeyLen)
	if _, err := io.ReadFull(random, k); err != nil {
		return nil, fmt.Errorf("election: drawing the pseudonym key: %w", err)
	}
	return k, nil
}

// PseudonymHex is the ballot key's last attribute: the lower-case hex of the
// pseudonym in token, or "" if token is malformed.
func PseudonymHex(token []byte) string {
	if len(token) != TokenLen {
		return ""
	}
	return hex.EncodeToString(token[:PseudonymLen])
}

// IsPseudonymHex reports whether s is a ballot key's attribute: a
// pseudonym as PseudonymHex writes it, 2·PseudonymLen lower-case hex digits.
func IsPseudonymHex(s string) bool {
	if len(s) != 2*PseudonymLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// ErrRollFull is returned by Minter.Mint once MaxVoters tokens are issued.
var ErrRollFull = errors.New("election: the manifest's maxVoters tokens are already issued")

// Minter issues tokens for one election: the one place where a voter id
// becomes a pseudonym and a token. Mint has the shape the registrar injects,
// func(voterID string, voterPub []byte) ([]byte, error).
//
// A Minter counts the tokens it issues and refuses more than the manifest's
// MaxVoters. That count is only per Minter (per process); the bound for the
// whole election is an IssuedPseudonyms store (BindIssued), which every
// issuing command binds. A caller
// that stores each token durably before handing it out uses MintCancelable,
// so that a token whose store fails gives its slot back.
type Minter struct {
	p      *Prepared
	ea     crypto.Signer
	key    []byte
	issued atomic.Uint64
	random io.Reader

	// The election-wide bound (BindIssued): the store, and the
	// pseudonyms it has admitted for this Minter.
	store    IssuedPseudonyms
	mu       sync.Mutex
	admitted map[[PseudonymLen]byte]bool

	// styles: each voter's ballot style (AssignStyles).
	styles map[string]int
}

// AssignStyles gives the voters of styles (voter id -> style id) their
// ballot styles. Without it, every voter gets the election's one style;
// in an election of several styles, a voter without one gets no token.
func (mt *Minter) AssignStyles(styles map[string]string) error {
	m := make(map[string]int, len(styles))
	for voter, id := range styles {
		i := mt.p.Manifest.StyleIndex(id)
		if i < 0 {
			return fmt.Errorf("election: voter %q: %q is no ballot style of election %q", truncate(voter, 80), truncate(id, 80), mt.p.Manifest.ElectionID)
		}
		m[voter] = i
	}
	mt.mu.Lock()
	defer mt.mu.Unlock()
	mt.styles = m
	return nil
}

// styleOf is the index of voterID's ballot style.
func (mt *Minter) styleOf(voterID string) (int, error) {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	if i, ok := mt.styles[voterID]; ok {
		return i, nil
	}
	if len(mt.p.Manifest.Styles) == 1 {
		return 0, nil
	}
	return 0, fmt.Errorf("election: voter %q has no ballot style, and election %q has %d", truncate(voterID, 80), mt.p.Manifest.ElectionID, len(mt.p.Manifest.Styles))
}

// IssuedPseudonyms is an election's record of the pseudonyms its tokens
// were issued to, shared by every process that issues them (ea serve,
// register --offline and ballot --bulk, on any roll): the one bound of
// MaxVoters per election. Package registrar keeps it in a file.
type IssuedPseudonyms interface {
	// Admit records pseuds as issued. It records none and fails,
	// wrapping ErrRollFull, when that would make more than max distinct
	// pseudonyms; a pseudonym recorded before takes no new slot.
	Admit(pseuds [][PseudonymLen]byte, max uint64) error
}

// BindIssued makes every later token count against store: Mint admits
// its pseudonym there first, unless Admit already did.
func (mt *Minter) BindIssued(store IssuedPseudonyms) {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	mt.store, mt.admitted = store, make(map[[PseudonymLen]byte]bool)
}

// Admit admits the pseudonyms of voterIDs to the bound store in one step,
// as a caller that mints many tokens does before minting them; without a
// store it does nothing. It fails, admitting none, when they do not fit
// under MaxVoters.
func (mt *Minter) Admit(voterIDs []string) error {
	pseuds := make([][PseudonymLen]byte, 0, len(voterIDs))
	for _, id := range voterIDs {
		ps, err := Pseudonym(mt.key, mt.p.Manifest.ElectionID, id)
		if err != nil {
			return err
		}
		pseuds = append(pseuds, ps)
	}
	return mt.admit(pseuds)
}

func (mt *Minter) admit(pseuds [][PseudonymLen]byte) error {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	if mt.store == nil {
		return nil
	}
	var fresh [][PseudonymLen]byte
	for _, ps := range pseuds {
		if !mt.admitted[ps] {
			fresh = append(fresh, ps)
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	if err := mt.store.Admit(fresh, mt.p.Manifest.MaxVoters); err != nil {
		return err
	}
	for _, ps := range fresh {
		mt.admitted[ps] = true
	}
	return nil
}

// NewMinter checks that ea is the manifest's token key and that pseudKey is
// the key the manifest commits to (ErrPseudonymKeyMismatch otherwise).
// random nil means crypto/rand.
//
// Every path that issues tokens (ea serve, register --offline, ballot --bulk)
// goes through NewMinter, so this one check keeps all of them on the
// election's own K_pseud.
func NewMinter(random io.Reader, p *Prepared, ea crypto.Signer, pseudKey []byte) (*Minter, error) {
	if len(pseudKey) != PseudonymKeyLen {
		return nil, fmt.Errorf("election: pseudonym key has %d bytes, want %d", len(pseudKey), PseudonymKeyLen)
	}
	if ea == nil || !p.TokenKey.Equal(ea.Public()) {
		return nil, errors.New("election: the authority key is not the manifest's tokenKey")
	}
	if err := p.CheckPseudonymKey(pseudKey); err != nil {
		return nil, err
	}
	return &Minter{p: p, ea: ea, key: append([]byte(nil), pseudKey...), random: random}, nil
}

// Mint returns the token of voterID for voterPub. It fails once MaxVoters
// tokens are issued (ErrRollFull), and for a bad voter id or key. The token
// counts as issued once Mint returns.
func (mt *Minter) Mint(voterID string, voterPub []byte) ([]byte, error) {
	tok, _, err := mt.MintCancelable(voterID, voterPub)
	return tok, err
}

// MintCancelable is Mint for a caller that records the token durably before
// handing it out (the registrar's state). cancel, called when that record
// fails and the token is never handed out, gives its slot back; later calls
// of it do nothing. The slot is taken before the token is made and held
// until cancel, so concurrent callers never together pass MaxVoters, and a
// failed record never counts: after repeated disk errors the Minter still
// issues MaxVoters tokens.
func (mt *Minter) MintCancelable(voterID string, voterPub []byte) (tok []byte, cancel func(), err error) {
	pseud, err := Pseudonym(mt.key, mt.p.Manifest.ElectionID, voterID)
	if err != nil {
		return nil, nil, err
	}
	style, err := mt.styleOf(voterID)
	if err != nil {
		return nil, nil, err
	}
	// The election-wide bound first: a pseudonym it admits stays admitted
	// even if this token is cancelled, and costs no slot when its voter
	// comes back.
	if err := mt.admit([][PseudonymLen]byte{pseud}); err != nil {
		return nil, nil, err
	}
	if n := mt.issued.Add(1); n > mt.p.Manifest.MaxVoters {
		mt.issued.Add(^uint64(0))
		return nil, nil, fmt.Errorf("%w (maxVoters = %d)", ErrRollFull, mt.p.Manifest.MaxVoters)
	}
	tok, err = mt.p.IssueToken(mt.random, mt.ea, pseud, style, voterPub)
	if err != nil {
		mt.issued.Add(^uint64(0))
		return nil, nil, err
	}
	var once sync.Once
	return tok, func() { once.Do(func() { mt.issued.Add(^uint64(0)) }) }, nil
}

// Issued is the number of tokens this Minter has issued, less those
// cancelled: the slots of MaxVoters in use.
func (mt *Minter) Issued() uint64 { return mt.issued.Load() }
