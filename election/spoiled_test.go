package election_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/gentest"
)

// seededReader is the deterministic stream SHA-256(seed ‖ counter): for
// the known-answer vector ONLY, never for a real ballot.
type seededReader struct {
	seed    string
	counter uint64
	buf     []byte
}

func (r *seededReader) Read(p []byte) (int, error) {
	for n := 0; n < len(p); {
		if len(r.buf) == 0 {
			sum := sha256.Sum256(binary.BigEndian.AppendUint64([]byte(r.seed), r.counter))
			r.counter++
			r.buf = sum[:]
		}
		c := copy(p[n:], r.buf)
		r.buf, n = r.buf[c:], n+c
	}
	return len(p), nil
}

// spoiledVotes are the selections of the spoiled ballots of the tests, a
// ballot of style "north" of contestManifest("per-option"): mayor Ben,
// council Eli and Gus, referendum No.
var spoiledVotes = []votecode.Selection{{Options: []int{1}}, {Options: []int{0, 2}}, {Options: []int{1}}}

type spoiledFixture struct {
	p       *election.Prepared
	ballot  *election.Ballot
	opening *election.Opening
	spoiled *election.SpoiledBallot
	other   *election.Opening // the opening of another ballot of the same style
}

var (
	spoiledOnce sync.Once
	spoiledFix  spoiledFixture
)

// spoiledBallot makes, once, a ballot of style north with its opening and
// its spoiled form, from the seeded stream (so the vector file is fixed).
func spoiledBallot(t testing.TB) *spoiledFixture {
	t.Helper()
	spoiledOnce.Do(func() {
		m := contestManifest("per-option")
		p, err := election.Prepare(m)
		if err != nil {
			panic(err)
		}
		token := fx.TokenStyle(m, "voter-spoil", "north", fx.Voters[0])
		make := func(seed string) (*election.Ballot, *election.Opening) {
			bp, err := p.PrecomputeBallot(&seededReader{seed: seed}, 0)
			if err != nil {
				panic(err)
			}
			b, o, err := bp.Finish(fx.Voters[0], token, spoiledVotes)
			if err != nil {
				panic(err)
			}
			return b, o
		}
		b, o := make("fabvote spoiled-ballot vector")
		_, other := make("fabvote spoiled-ballot vector, another ballot")
		s, err := election.NewSpoiledBallot(b, o)
		if err != nil {
			panic(err)
		}
		spoiledFix = spoiledFixture{p: p, ballot: b, opening: o, spoiled: s, other: other}
	})
	return &spoiledFix
}

func TestSpoiledBallotRoundTrip(t *testing.T) {
	f := spoiledBallot(t)
	js := f.spoiled.Marshal()
	s, err := election.ParseSpoiledBallot(js)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(s.Marshal(), js) {
		t.Fatal("Parse∘Marshal is not the identity")
	}
	sels, err := f.p.CheckSpoiled(s)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sels, spoiledVotes) {
		t.Fatalf("CheckSpoiled reveals %+v, want %+v", sels, spoiledVotes)
	}
	if s.Tracker() != f.ballot.Tracker() || s.TrackerHex() != f.ballot.TrackerHex() {
		t.Fatal("the spoiled ballot's tracker differs from its ballot's")
	}
	for _, leak := range [][]byte{f.ballot.VoterPub, f.ballot.Token[:election.PseudonymLen], f.ballot.Signature, f.ballot.Proof[:64]} {
		if bytes.Contains(js, []byte(hex.EncodeToString(leak))) {
			t.Fatal("the spoiled ballot carries a field of the voter's")
		}
	}
}

// TestTrackerDomainSeparated: the tracker is no plain hash of the ballot,
// commits to the election, contests and ciphertexts, and ignores every
// field that identifies the voter.
func TestTrackerDomainSeparated(t *testing.T) {
	f := spoiledBallot(t)
	b := f.ballot
	if b.Tracker() == b.Hash() || b.Tracker() == sha256.Sum256(b.Ciphertext) {
		t.Fatal("the tracker is a plain SHA-256 of the ballot")
	}
	for name, change := range map[string]func(c *election.Ballot){
		"voter key": func(c *election.Ballot) { c.VoterPub = fx.Ballot(fixM0(t), fx.Voters[1], 0).VoterPub },
		"token":     func(c *election.Ballot) { c.Token[0] ^= 1 },
		"signature": func(c *election.Ballot) { c.Signature[0] ^= 1 },
		"proof":     func(c *election.Ballot) { c.Proof[0] ^= 1 },
	} {
		c := clone(b)
		change(c)
		if c.Tracker() != b.Tracker() {
			t.Fatalf("the tracker changes with the %s", name)
		}
	}
	for name, change := range map[string]func(c *election.Ballot){
		"election":   func(c *election.Ballot) { c.ElectionID += "x" },
		"contests":   func(c *election.Ballot) { c.Contests[0] ^= 1 },
		"ciphertext": func(c *election.Ballot) { c.Ciphertext[0] ^= 1 },
		"a byte moved from the election to the contests": func(c *election.Ballot) {
			c.ElectionID, c.Contests = c.ElectionID[:len(c.ElectionID)-1], append([]byte(c.ElectionID[len(c.ElectionID)-1:]), c.Contests...)
		},
	} {
		c := clone(b)
		change(c)
		if c.Tracker() == b.Tracker() {
			t.Fatalf("the tracker does not change with the %s", name)
		}
	}
}

func fixM0(t testing.TB) *election.Manifest { m, _, _ := fixtures(t); return m }

// spoiledVector is testdata/spoiled-ballot.json: a valid spoiled ballot,
// its tracker, the selections it reveals, and the manifest it checks
// under, for other implementations (the Python verifier) to check.
type spoiledVector struct {
	Comment    string               `json:"comment"`
	Manifest   json.RawMessage      `json:"manifest"`
	Spoiled    json.RawMessage      `json:"spoiled"`
	Tracker    string               `json:"tracker"`
	Selections []votecode.Selection `json:"selections"`
}

const spoiledVectorFile = "testdata/spoiled-ballot.json"

// TestSpoiledVector checks the vector file against what the code makes
// now (-update writes it).
func TestSpoiledVector(t *testing.T) {
	f := spoiledBallot(t)
	manifest, err := f.p.Manifest.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	v := spoiledVector{
		Comment:    "A spoiled ballot of style north of the manifest, its tracker (hex) and the selections CheckSpoiled reveals. Regenerate: go test ./election -run TestSpoiledVector -update",
		Manifest:   manifest,
		Spoiled:    f.spoiled.Marshal(),
		Tracker:    f.spoiled.TrackerHex(),
		Selections: spoiledVotes,
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	gentest.Check(t, spoiledVectorFile, append(out, '\n'), "go test ./election -run TestSpoiledVector -update")
}

// TestSpoiledVectorChecks reads the committed vector and checks it as an
// independent reader would: parse, tracker, CheckSpoiled's selections.
func TestSpoiledVectorChecks(t *testing.T) {
	raw, err := os.ReadFile(spoiledVectorFile)
	if err != nil {
		t.Fatal(err)
	}
	var v spoiledVector
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, v.Manifest); err != nil {
		t.Fatal(err)
	}
	m, err := election.ParseManifest(compact.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	p := prepare(t, m)
	compact.Reset()
	if err := json.Compact(&compact, v.Spoiled); err != nil {
		t.Fatal(err)
	}
	s, err := election.ParseSpoiledBallot(compact.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if s.TrackerHex() != v.Tracker {
		t.Fatalf("tracker %s, the vector says %s", s.TrackerHex(), v.Tracker)
	}
	sels, err := p.CheckSpoiled(s)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sels, v.Selections) {
		t.Fatalf("CheckSpoiled reveals %+v, the vector says %+v", sels, v.Selections)
	}
}

// openingWith is o with ciphertext i's plaintext and nonce replaced (nil:
// kept).
func openingWith(t *testing.T, o *election.Opening, i int, m, r *big.Int) *election.Opening {
	t.Helper()
	var in struct {
		Ciphertexts []struct {
			Plaintext string `json:"plaintext"`
			Nonce     string `json:"nonce"`
		} `json:"ciphertexts"`
	}
	js, _ := json.Marshal(o)
	if err := json.Unmarshal(js, &in); err != nil {
		t.Fatal(err)
	}
	if m != nil {
		in.Ciphertexts[i].Plaintext = m.Text(16)
	}
	if r != nil {
		in.Ciphertexts[i].Nonce = r.Text(16)
	}
	js, _ = json.Marshal(in)
	var out election.Opening
	if err := json.Unmarshal(js, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

// perOptionPlaintexts replaces the council's six plaintexts (ciphertexts
// 1..6 of a north ballot: its five options, then blank) with bits.
func perOptionPlaintexts(t *testing.T, o *election.Opening, bits ...int64) *election.Opening {
	for j, b := range bits {
		o = openingWith(t, o, 1+j, big.NewInt(b), nil)
	}
	return o
}

// TestCheckSpoiledRejects: one case per kind of spoiled ballot that does
// not check, with its code and what the message names.
func TestCheckSpoiledRejects(t *testing.T) {
	f := spoiledBallot(t)
	n := f.p.PublicKey.N
	factor := fx.P
	for _, tc := range []struct {
		name   string
		change func(s *election.SpoiledBallot)
		code   string
		names  string
	}{
		{"wrong election", func(s *election.SpoiledBallot) { s.ElectionID = "other" }, election.CodeNoElection, "other"},
		{"a contest in no style", func(s *election.SpoiledBallot) { s.Contests = []byte{0, 1, 3} }, election.CodeNotInStyle, "contests[2]"},
		{"a style's contest left out", func(s *election.SpoiledBallot) { s.Contests = []byte{0, 1} }, election.CodeContestMissing, "referendum"},
		{"a contest repeated", func(s *election.SpoiledBallot) { s.Contests = []byte{0, 1, 1} }, election.CodeContestRepeat, "council"},
		{"contests out of order", func(s *election.SpoiledBallot) { s.Contests = []byte{1, 0, 2} }, election.CodeContestOrder, "mayor"},
		{"the other style's contests", func(s *election.SpoiledBallot) { s.Contests = []byte{0, 2} }, election.CodeCiphertext, "ciphertexts"},
		{"ciphertext 0", func(s *election.SpoiledBallot) { s.Ciphertexts[0] = make([]byte, len(s.Ciphertexts[0])) }, election.CodeCiphertext, "ciphertext 0"},
		{"ciphertext not below N²", func(s *election.SpoiledBallot) { s.Ciphertexts[2] = bytes.Repeat([]byte{0xff}, len(s.Ciphertexts[2])) }, election.CodeCiphertext, "ciphertext 2"},
		{"ciphertext too short", func(s *election.SpoiledBallot) {
			for i := range s.Ciphertexts {
				s.Ciphertexts[i] = s.Ciphertexts[i][1:]
			}
		}, election.CodeCiphertext, "ciphertext 0"},
		{"nonce 0", func(s *election.SpoiledBallot) { s.Opening = openingWith(t, s.Opening, 3, nil, big.NewInt(0)) }, election.CodeOpening, "ciphertext 3: its nonce"},
		{"nonce N", func(s *election.SpoiledBallot) { s.Opening = openingWith(t, s.Opening, 3, nil, n) }, election.CodeOpening, "ciphertext 3: its nonce"},
		{"nonce above N", func(s *election.SpoiledBallot) {
			s.Opening = openingWith(t, s.Opening, 3, nil, new(big.Int).Add(n, big.NewInt(1)))
		}, election.CodeOpening, "ciphertext 3: its nonce"},
		{"nonce not coprime to N", func(s *election.SpoiledBallot) { s.Opening = openingWith(t, s.Opening, 3, nil, factor) }, election.CodeOpening, "ciphertext 3: its nonce"},
		{"packed plaintext under min", func(s *election.SpoiledBallot) { s.Opening = openingWith(t, s.Opening, 0, big.NewInt(0), nil) }, election.CodeOpening, `contest "mayor"`},
		{"packed plaintext of no selection", func(s *election.SpoiledBallot) { s.Opening = openingWith(t, s.Opening, 0, big.NewInt(3), nil) }, election.CodeOpening, `contest "mayor"`},
		{"per-option plaintexts over max", func(s *election.SpoiledBallot) { s.Opening = perOptionPlaintexts(t, s.Opening, 1, 1, 1, 0, 0, 0) }, election.CodeOpening, "too many"},
		{"blank with options", func(s *election.SpoiledBallot) { s.Opening = perOptionPlaintexts(t, s.Opening, 1, 0, 0, 0, 0, 1) }, election.CodeOpening, "blank"},
		{"a valid choice, not the one encrypted", func(s *election.SpoiledBallot) { s.Opening = perOptionPlaintexts(t, s.Opening, 0, 1, 0, 0, 0, 0) }, election.CodeOpening, "ciphertext 1: its opening does not encrypt to it"},
		{"the opening of another ballot", func(s *election.SpoiledBallot) { s.Opening = f.other }, election.CodeOpening, "ciphertext 0: its opening does not encrypt to it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := election.ParseSpoiledBallot(f.spoiled.Marshal())
			if err != nil {
				t.Fatal(err)
			}
			tc.change(s)
			_, err = f.p.CheckSpoiled(s)
			wantCode(t, err, tc.code)
			if !strings.Contains(err.Error(), tc.names) {
				t.Fatalf("error %q does not name %q", err, tc.names)
			}
		})
	}
}

// TestParseSpoiledBallotRejects: one case per kind of malformed JSON.
func TestParseSpoiledBallotRejects(t *testing.T) {
	good := string(spoiledBallot(t).spoiled.Marshal())
	replace := func(old, new string) string {
		if !strings.Contains(good, old) {
			t.Fatalf("the spoiled ballot has no %q", old)
		}
		return strings.Replace(good, old, new, 1)
	}
	firstNonce := good[strings.Index(good, `"nonce":"`)+len(`"nonce":"`):]
	firstNonce = firstNonce[:strings.IndexByte(firstNonce, '"')]
	firstOpened := good[strings.Index(good, `{"plaintext":`):]
	firstOpened = firstOpened[:strings.Index(firstOpened, `"},`)+3]
	firstCT := good[strings.Index(good, `"ciphertexts":["`)+len(`"ciphertexts":["`):]
	firstCT = firstCT[:strings.IndexByte(firstCT, '"')]
	for _, tc := range []struct {
		name, data, code, names string
	}{
		{"empty", "", election.CodeDecode, "not one JSON object"},
		{"not an object", "[]", election.CodeDecode, "not one JSON object"},
		{"extra key", replace(`{"format"`, `{"voter":"x","format"`), election.CodeDecode, `unknown key "voter"`},
		{"missing key", replace(`"version":1,`, ``), election.CodeDecode, `key "version" is missing`},
		{"misspelt key", replace(`"electionID"`, `"electionId"`), election.CodeDecode, `key "electionID" is missing`},
		{"repeated key", replace(`"version":1,`, `"version":1,"version":1,`), election.CodeDecode, "canonical"},
		{"keys out of order", replace(`"format":"fabvote/spoiled-ballot","version":1`, `"version":1,"format":"fabvote/spoiled-ballot"`), election.CodeDecode, "canonical"},
		{"a space", replace(`,"version"`, `, "version"`), election.CodeDecode, "canonical"},
		{"trailing data", good + "{}", election.CodeDecode, "after top-level value"},
		{"an unknown key inside the opening", replace(`"nonce":`, `"extra":"1","nonce":`), election.CodeDecode, "canonical"},
		{"wrong format", replace(`fabvote/spoiled-ballot`, `fabvote/ballot`), election.CodeDecode, "format"},
		{"wrong version", replace(`"version":1`, `"version":2`), election.CodeDecode, "version 2"},
		{"bad election id", replace(`"electionID":"`, `"electionID":"/`), election.CodeDecode, "electionID"},
		{"no contests", replace(`"contests":[0,1,2]`, `"contests":[]`), election.CodeDecode, "0 contests"},
		{"contest index out of range", replace(`"contests":[0,1,2]`, `"contests":[0,1,300]`), election.CodeDecode, "contests[2]"},
		{"uppercase ciphertext hex", replace(firstCT, strings.ToUpper(firstCT)), election.CodeDecode, "canonical"},
		{"odd ciphertext hex", replace(firstCT, firstCT[1:]), election.CodeDecode, "ciphertexts[0]"},
		{"ciphertexts of two lengths", replace(firstCT, firstCT[2:]), election.CodeDecode, "ciphertexts[1]"},
		{"a nonce with a leading zero", replace(`"nonce":"`, `"nonce":"0`), election.CodeDecode, "nonce"},
		{"uppercase nonce hex", replace(firstNonce, strings.ToUpper(firstNonce)), election.CodeDecode, "nonce"},
		{"an opening short of a ciphertext", replace(firstOpened, ``), election.CodeDecode, "opened"},
		{"no opening", replace(good[strings.Index(good, `"opening":`):len(good)-1], `"opening":null`), election.CodeDecode, "opened"},
		{"too large", good[:len(good)-1] + strings.Repeat(" ", election.MaxSpoiledSize) + "}", election.CodeSize, "limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := election.ParseSpoiledBallot([]byte(tc.data))
			wantCode(t, err, tc.code)
			if !strings.Contains(err.Error(), tc.names) {
				t.Fatalf("error %q does not name %q", err, tc.names)
			}
		})
	}
}

func TestParseTrackerHex(t *testing.T) {
	tr := spoiledBallot(t).ballot.TrackerHex()
	if got, err := election.ParseTrackerHex(tr); err != nil || hex.EncodeToString(got[:]) != tr {
		t.Fatalf("ParseTrackerHex(%s) = %x, %v", tr, got, err)
	}
	for _, bad := range []string{"", tr[2:], strings.ToUpper(tr), "zz" + tr[2:], tr + "00"} {
		_, err := election.ParseTrackerHex(bad)
		wantCode(t, err, election.CodeDecode)
	}
}

func TestNewSpoiledBallotRefusesAMismatchedOpening(t *testing.T) {
	f := spoiledBallot(t)
	_, err := election.NewSpoiledBallot(f.ballot, &election.Opening{})
	wantCode(t, err, election.CodeDecode)
}

// FuzzParseSpoiledBallot: the parser never panics, gives every refusal a
// code, accepts only canonical input within the limit, and CheckSpoiled
// never panics on what it accepts.
func FuzzParseSpoiledBallot(f *testing.F) {
	sf := spoiledBallot(f)
	f.Add(sf.spoiled.Marshal())
	f.Add([]byte(`{"format":"fabvote/spoiled-ballot","version":1,"electionID":"e","contests":[0],"ciphertexts":["01"],"opening":{"ciphertexts":[{"plaintext":"1","nonce":"1"}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := election.ParseSpoiledBallot(data)
		if err != nil {
			if election.CodeOf(err) == "" {
				t.Fatalf("error without a code: %v", err)
			}
			return
		}
		if !bytes.Equal(s.Marshal(), data) || len(data) > election.MaxSpoiledSize {
			t.Fatal("accepted a non-canonical or oversize spoiled ballot")
		}
		if _, err := sf.p.CheckSpoiled(s); err != nil && election.CodeOf(err) == "" {
			t.Fatalf("CheckSpoiled error without a code: %v", err)
		}
	})
}
