// Package electiontest provides fixed keys and ready-made manifests, tokens
// and ballots for tests of the election package, the ballot chaincode and the
// CLI. Real key sizes (2048-bit N) are used, but the expensive parts — safe
// primes and the authority's and voters' keys — are committed in
// fixture.json, so tests stay fast and fuzz seed corpora stay valid.
//
// Never use these keys outside tests: their secrets are public.
package electiontest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"sync"
	"time"

	"github.com/fabvote/fabvote/crypto/dkg/keygen/keygentest"
	"github.com/fabvote/fabvote/crypto/paillier"
	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/election"
)

//go:embed fixture.json
var fixtureJSON []byte

// fixtureFile is the on-disk form of the fixture (all hex).
type fixtureFile struct {
	Comment string   `json:"comment"`
	P       string   `json:"p"` // safe primes, 1024 bits each
	Q       string   `json:"q"`
	EA      string   `json:"ea"`     // P-256 private scalar
	Voters  []string `json:"voters"` // P-256 private scalars
}

// Fixture holds the fixed test keys.
type Fixture struct {
	P, Q     *big.Int
	Paillier *paillier.PrivateKey
	EA       *ecdsa.PrivateKey
	Voters   []*ecdsa.PrivateKey
}

var (
	once    sync.Once
	loaded  *Fixture
	loadErr error
)

// Load parses the embedded fixture once. It panics if the fixture is corrupt,
// which is a bug in the repository, not a test failure.
func Load() *Fixture {
	once.Do(func() { loaded, loadErr = parse(fixtureJSON) })
	if loadErr != nil {
		panic("electiontest: " + loadErr.Error())
	}
	return loaded
}

func parse(b []byte) (*Fixture, error) {
	var ff fixtureFile
	if err := json.Unmarshal(b, &ff); err != nil {
		return nil, err
	}
	f := &Fixture{}
	var ok1, ok2 bool
	f.P, ok1 = new(big.Int).SetString(ff.P, 16)
	f.Q, ok2 = new(big.Int).SetString(ff.Q, 16)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("bad primes")
	}
	var err error
	if f.Paillier, err = paillier.NewPrivateKeyFromPrimes(f.P, f.Q); err != nil {
		return nil, err
	}
	if f.EA, err = ecKey(ff.EA); err != nil {
		return nil, err
	}
	for _, v := range ff.Voters {
		k, err := ecKey(v)
		if err != nil {
			return nil, err
		}
		f.Voters = append(f.Voters, k)
	}
	return f, nil
}

func ecKey(h string) (*ecdsa.PrivateKey, error) {
	d, err := hex.DecodeString(h)
	if err != nil {
		return nil, err
	}
	return ecdsa.ParseRawPrivateKey(elliptic.P256(), d)
}

// Fixed times of the default voting window.
var (
	Start = time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)
	End   = time.Date(2026, 11, 1, 20, 0, 0, 0, time.UTC)
)

// Channel is the default manifest's channel, and ClockSkewSeconds its
// maxClockSkewSeconds.
const (
	Channel          = "fabvote"
	ClockSkewSeconds = 120
)

// PseudonymKey is the fixed test K_pseud: SHA-256 of a public string.
var PseudonymKey = func() []byte { h := sha256.Sum256([]byte("electiontest pseudonym key")); return h[:] }()

// CommitTo returns election.PseudonymKeyCommitment(key) as the manifest
// field; it panics on a key of the wrong length.
func CommitTo(key []byte) []byte {
	c, err := election.PseudonymKeyCommitment(key)
	if err != nil {
		panic(err)
	}
	return c[:]
}

// Candidates is the default candidate list (4, as in the benchmark).
var Candidates = []string{"Alice", "Bob", "Carol", "Dave"}

// Manifest returns a valid single-key manifest for electionID with the
// fixture's Paillier and authority keys, 4 candidates, MaxVoters 1000, the
// window [Start, End), authority "AuthorityMSP" and trustee "TrusteeMSP",
// committing to PseudonymKey.
func (f *Fixture) Manifest(electionID string) *election.Manifest {
	pkb, err := f.Paillier.Public().MarshalBinary()
	if err != nil {
		panic(err)
	}
	tok, err := x509.MarshalPKIXPublicKey(&f.EA.PublicKey)
	if err != nil {
		panic(err)
	}
	title := "Test election " + electionID
	contests, styles := election.OneContest(title, Candidates)
	return &election.Manifest{
		Version:                election.ManifestVersion,
		ElectionID:             electionID,
		Channel:                Channel,
		Title:                  title,
		Contests:               contests,
		Styles:                 styles,
		EncodingBits:           10,
		MaxVoters:              1000,
		PaillierKey:            pkb,
		KeyOrigin:              election.KeyOriginDealer,
		TokenKey:               tok,
		PseudonymKeyCommitment: CommitTo(PseudonymKey),
		AuthorityMSP:           "AuthorityMSP",
		TrusteeMSPs:            []string{"TrusteeMSP"},
		Start:                  Start,
		End:                    End,
		MaxClockSkewSeconds:    ClockSkewSeconds,
		ChallengeBits:          128,
	}
}

// ContestManifest returns Manifest(electionID) with the contests of
// Contests3 and the styles of Styles2.
func (f *Fixture) ContestManifest(electionID string) *election.Manifest {
	m := f.Manifest(electionID)
	m.Contests, m.Styles = Contests3(), Styles2()
	return m
}

// Contests3 are three contests of the shapes of a municipal ballot: a
// mayor (1 of 4), a council (up to 2 of 5, or blank) and a referendum
// (yes/no). The council is laid out per option, which its shape does not
// make cheaper, so that tests go through both layouts.
func Contests3() []election.Contest {
	council := election.NewContest("council", "Council", []string{"Eli", "Fay", "Gus", "Hal", "Ida"}, 0, 2, true)
	council.Encoding = "per-option"
	return []election.Contest{
		election.NewContest("mayor", "Mayor", []string{"Ana", "Ben", "Cleo", "Dev"}, 1, 1, false),
		council,
		election.NewContest("referendum", "Referendum", []string{"Yes", "No"}, 1, 1, false),
	}
}

// Styles2 are two styles over Contests3: "north" has every contest,
// "south" no council.
func Styles2() []election.Style {
	return []election.Style{
		{ID: "north", Contests: []string{"mayor", "council", "referendum"}},
		{ID: "south", Contests: []string{"mayor", "referendum"}},
	}
}

// ThresholdManifest returns Manifest(electionID) with the key dealt as k-of-l
// trustee shares (a fresh dealing of the fixture's primes), and the shares.
func (f *Fixture) ThresholdManifest(electionID string, k, l int) (*election.Manifest, *threshold.PublicParams, []*threshold.KeyShare) {
	pp, shares, err := threshold.DealFromPrimes(rand.Reader, f.P, f.Q, k, l)
	if err != nil {
		panic(err)
	}
	b, err := pp.MarshalBinary()
	if err != nil {
		panic(err)
	}
	m := f.Manifest(electionID)
	m.Threshold = b
	return m, pp, shares
}

// VoterID is the roll id the fixture gives voter: "voter-" and 16 hex
// digits of the hash of its key, so distinct keys are distinct voters.
func VoterID(voter *ecdsa.PrivateKey) string {
	pub, err := voter.PublicKey.Bytes()
	if err != nil {
		panic(err)
	}
	h := sha256.Sum256(pub)
	return "voter-" + hex.EncodeToString(h[:8])
}

// Token issues the authority's token for voter in m's election, under the
// voter id VoterID(voter).
func (f *Fixture) Token(m *election.Manifest, voter *ecdsa.PrivateKey) []byte {
	return f.TokenFor(m, VoterID(voter), voter)
}

// TokenFor issues the token of roll entry voterID for voter's key: two
// calls with one voterID and two keys give two tokens with one pseudonym.
func (f *Fixture) TokenFor(m *election.Manifest, voterID string, voter *ecdsa.PrivateKey) []byte {
	return f.TokenStyle(m, voterID, "", voter)
}

// TokenStyle is TokenFor with the voter's ballot style (by id; "" for the
// election's one style).
func (f *Fixture) TokenStyle(m *election.Manifest, voterID, style string, voter *ecdsa.PrivateKey) []byte {
	pub, err := voter.PublicKey.Bytes()
	if err != nil {
		panic(err)
	}
	p, err := election.Prepare(m)
	if err != nil {
		panic(err)
	}
	mt, err := election.NewMinter(rand.Reader, p, f.EA, PseudonymKey)
	if err != nil {
		panic(err)
	}
	if style != "" {
		if err := mt.AssignStyles(map[string]string{voterID: style}); err != nil {
			panic(err)
		}
	}
	t, err := mt.Mint(voterID, pub)
	if err != nil {
		panic(err)
	}
	return t
}

// Ballot returns a valid ballot of voter for candidate choice in m.
func (f *Fixture) Ballot(m *election.Manifest, voter *ecdsa.PrivateKey, choice int) *election.Ballot {
	b, err := election.NewBallot(rand.Reader, m, voter, f.Token(m, voter), choice)
	if err != nil {
		panic(err)
	}
	return b
}

// NewVoter returns a fresh random voter key (for tests that need many voters).
func NewVoter() *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	return k
}

// DistributedManifest returns Manifest(electionID) with the distributed
// 2-of-3 key of crypto/dkg/keygen/keygentest (keyOrigin "distributed", its
// ceremony's public result as keyCeremony), its parameters and the
// trustees' shares.
func (f *Fixture) DistributedManifest(electionID string) (*election.Manifest, *threshold.PublicParams, []*threshold.KeyShare) {
	kf, err := keygentest.Load()
	if err != nil {
		panic(err)
	}
	pub, shares, err := kf.Decode()
	if err != nil {
		panic(err)
	}
	m := f.Manifest(electionID)
	m.PaillierKey, m.Threshold = kf.PaillierKey, kf.Threshold
	m.KeyOrigin = election.KeyOriginDistributed
	m.KeyCeremony = &election.KeyCeremony{ID: kf.Ceremony, ModulusProof: kf.ModulusProof, SelfTest: kf.SelfTest}
	return m, pub.Params, shares
}
