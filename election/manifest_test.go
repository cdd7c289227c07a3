package election_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/crypto/paillier"
	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
)

func TestManifestRoundTrip(t *testing.T) {
	m := fx.Manifest("round-trip.1")
	enc, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	got, err := election.ParseManifest(enc)
	if err != nil {
		t.Fatal(err)
	}
	enc2, _ := got.Marshal()
	if !bytes.Equal(enc, enc2) {
		t.Fatal("re-encoding differs")
	}
	if !got.Start.Equal(m.Start) || !got.End.Equal(m.End) || got.Contests[0].Options[3] != m.Contests[0].Options[3] ||
		got.Contests[0].ID != election.OneContestID || got.Styles[0].ID != election.OneStyleID || got.Styles[0].Contests[0] != election.OneContestID {
		t.Fatal("fields changed in the round trip")
	}
	// A non-UTC time marshals to the same canonical bytes.
	m2 := fx.Manifest("round-trip.1")
	m2.Start = m2.Start.In(time.FixedZone("X", 3600))
	enc3, _ := m2.Marshal()
	if !bytes.Equal(enc, enc3) {
		t.Fatal("time zone leaks into the canonical encoding")
	}
	p, err := election.Prepare(got)
	if err != nil || p.Slots() != 1 || len(p.Layout.Contests) != 1 || len(p.Layout.Contests[0].Statements()[0].Messages) != 4 {
		t.Fatalf("Prepare: %v", err)
	}
	if l := p.Layout; l.Bits != 10 || l.Contests[0].Options != 4 || l.Contests[0].Kind != votecode.Packed || l.Contests[0].Offset != 0 {
		t.Fatalf("Layout = %+v", l)
	}
	// The manifest of several contests round-trips too, and lays its
	// contests out one after the other.
	cm := fx.ContestManifest("round-trip.3")
	enc, err = cm.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := election.ParseManifest(enc)
	if err != nil {
		t.Fatal(err)
	}
	if enc2, _ := back.Marshal(); !bytes.Equal(enc, enc2) || len(back.Contests) != 3 || len(back.Styles) != 2 || back.Styles[1].Contests[1] != "referendum" {
		t.Fatalf("contests and styles changed in the round trip: %+v %+v", back.Contests, back.Styles)
	}
	p = prepare(t, back)
	if l := p.Layout; len(l.Contests) != 3 || l.Contests[1].Offset != 4 || l.Contests[2].Offset != 4+6 || l.Digits() != 12 {
		t.Fatalf("Layout = %+v", l)
	}
}

func TestManifestValidateRejects(t *testing.T) {
	rsaLike, _ := x509.MarshalPKIXPublicKey(&mustKey(elliptic.P384()).PublicKey)
	small := fx.Manifest("x")
	cases := []struct {
		name string
		mod  func(m *election.Manifest)
		want string // substring naming the field
	}{
		{"version", func(m *election.Manifest) { m.Version = 1 }, "version"},
		{"version 2 (no pseudonym-key commitment)", func(m *election.Manifest) { m.Version = 2 }, "version"},
		{"version 3 (candidates)", func(m *election.Manifest) { m.Version = 3 }, "version is 3, want 5"},
		{"no channel", func(m *election.Manifest) { m.Channel = "" }, "channel"},
		{"channel with upper case", func(m *election.Manifest) { m.Channel = "Fabvote" }, "channel"},
		{"channel too long", func(m *election.Manifest) { m.Channel = strings.Repeat("c", election.MaxChannelLen+1) }, "channel"},
		{"clock skew zero", func(m *election.Manifest) { m.MaxClockSkewSeconds = 0 }, "maxClockSkewSeconds"},
		{"clock skew too large", func(m *election.Manifest) { m.MaxClockSkewSeconds = election.MaxClockSkewSeconds + 1 }, "maxClockSkewSeconds"},
		{"election id", func(m *election.Manifest) { m.ElectionID = "a b" }, "electionID"},
		{"title empty", func(m *election.Manifest) { m.Title = "" }, "title"},
		{"title control char", func(m *election.Manifest) { m.Title = "a\nb" }, "title"},
		{"one option", func(m *election.Manifest) { m.Contests[0].Options = m.Contests[0].Options[:1] }, "contests[0]: votecode: invalid: the contest offers a single valid selection"},
		{"65 options", func(m *election.Manifest) {
			m.Contests[0].Options = nil
			for i := 0; i < 65; i++ {
				m.Contests[0].Options = append(m.Contests[0].Options, strings.Repeat("c", i+1))
			}
		}, "contests[0]: votecode: invalid: 65 options"},
		{"empty option", func(m *election.Manifest) { m.Contests[0].Options[2] = "" }, "contests[0].options[2] is empty"},
		{"duplicate option", func(m *election.Manifest) { m.Contests[0].Options[2] = m.Contests[0].Options[0] }, "contests[0].options[2]"},
		{"max voters 0", func(m *election.Manifest) { m.MaxVoters = 0 }, "maxVoters"},
		{"2^b = max voters", func(m *election.Manifest) { m.MaxVoters = 1024 }, "encodingBits"},
		{"2^b < max voters", func(m *election.Manifest) { m.EncodingBits = 9 }, "encodingBits"},
		{"tally does not fit N", func(m *election.Manifest) {
			m.EncodingBits = 64
			m.MaxVoters = 1 << 40
			for len(m.Contests[0].Options) < 40 {
				m.Contests[0].Options = append(m.Contests[0].Options, "x"+strings.Repeat("y", len(m.Contests[0].Options)))
			}
		}, "fit"},
		{"paillier key missing", func(m *election.Manifest) { m.PaillierKey = nil }, "paillierKey"},
		{"paillier key truncated", func(m *election.Manifest) { m.PaillierKey = small.PaillierKey[:100] }, "paillierKey"},
		{"threshold garbage", func(m *election.Manifest) { m.Threshold = []byte("garbage") }, "threshold"},
		{"token key missing", func(m *election.Manifest) { m.TokenKey = nil }, "tokenKey"},
		{"token key P-384", func(m *election.Manifest) { m.TokenKey = rsaLike }, "tokenKey"},
		{"pseudonym-key commitment missing", func(m *election.Manifest) { m.PseudonymKeyCommitment = nil }, "pseudonymKeyCommitment"},
		{"pseudonym-key commitment short", func(m *election.Manifest) { m.PseudonymKeyCommitment = m.PseudonymKeyCommitment[:31] }, "pseudonymKeyCommitment"},
		{"pseudonym-key commitment long", func(m *election.Manifest) { m.PseudonymKeyCommitment = append(m.PseudonymKeyCommitment, 0) }, "pseudonymKeyCommitment"},
		{"authority empty", func(m *election.Manifest) { m.AuthorityMSP = "" }, "authorityMSP"},
		{"trustee twice", func(m *election.Manifest) { m.TrusteeMSPs = []string{"T", "T"} }, "trusteeMSPs[1]"},
		{"trustee bad chars", func(m *election.Manifest) { m.TrusteeMSPs = []string{"T\x00"} }, "trusteeMSPs[0]"},
		{"no start", func(m *election.Manifest) { m.Start = time.Time{} }, "start"},
		{"end before start", func(m *election.Manifest) { m.End = m.Start.Add(-time.Second) }, "end"},
		{"end equals start", func(m *election.Manifest) { m.End = m.Start }, "end"},
		{"challenge 64", func(m *election.Manifest) { m.ChallengeBits = 64 }, "challengeBits"},
		{"challenge 130", func(m *election.Manifest) { m.ChallengeBits = 130 }, "challengeBits"},
		{"challenge 512", func(m *election.Manifest) { m.ChallengeBits = 512 }, "challengeBits"},
		{"booth digest without sha256:", func(m *election.Manifest) { m.BoothDigest = strings.Repeat("a", 64) }, "boothDigest"},
		{"booth digest other hash", func(m *election.Manifest) { m.BoothDigest = "sha512:" + strings.Repeat("a", 64) }, "boothDigest"},
		{"booth digest short", func(m *election.Manifest) { m.BoothDigest = "sha256:" + strings.Repeat("a", 63) }, "boothDigest"},
		{"booth digest long", func(m *election.Manifest) { m.BoothDigest = "sha256:" + strings.Repeat("a", 65) }, "boothDigest"},
		{"booth digest upper case", func(m *election.Manifest) { m.BoothDigest = "sha256:" + strings.Repeat("A", 64) }, "boothDigest"},
		{"booth digest not hex", func(m *election.Manifest) { m.BoothDigest = "sha256:" + strings.Repeat("g", 64) }, "boothDigest"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := fx.Manifest("x")
			tc.mod(m)
			err := m.Validate()
			wantCode(t, err, election.CodeManifest)
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not name %q", err, tc.want)
			}
			if _, err := m.Marshal(); err == nil {
				t.Fatal("Marshal accepted an invalid manifest")
			}
		})
	}
}

func mustKey(c elliptic.Curve) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(c, rand.Reader)
	if err != nil {
		panic(err)
	}
	return k
}

func TestParseManifestRejects(t *testing.T) {
	good, err := fx.Manifest("p").Marshal()
	if err != nil {
		t.Fatal(err)
	}
	badJSON := jsonOf(t, fx.Manifest("p"))
	// A version 3 manifest: one list of candidates where version 4 has
	// contests and styles.
	i, j := bytes.Index(good, []byte(`"contests":`)), bytes.Index(good, []byte(`"encodingBits":`))
	if i < 0 || j < i {
		t.Fatalf("no contests in %s", good)
	}
	v3 := append(append(append([]byte(nil), good[:i]...), `"candidates":["Alice","Bob","Carol","Dave"],`...), good[j:]...)
	v3 = bytes.Replace(v3, []byte(`{"version":5`), []byte(`{"version":3`), 1)
	cases := []struct {
		name string
		in   []byte
		code string
	}{
		{"oversize", append(good, bytes.Repeat([]byte(" "), election.MaxManifestSize)...), election.CodeSize},
		{"empty", nil, election.CodeDecode},
		{"not json", []byte("manifest"), election.CodeDecode},
		{"unknown field", bytes.Replace(good, []byte(`{"version":5`), []byte(`{"extra":1,"version":5`), 1), election.CodeDecode},
		// A version 3 manifest: one list of candidates, no contests.
		{"version 3 (candidates)", v3, election.CodeDecode},
		{"trailing value", append(append([]byte(nil), good...), []byte(`{}`)...), election.CodeDecode},
		{"trailing space", append(append([]byte(nil), good...), ' '), election.CodeDecode},
		{"leading space", append([]byte(" "), good...), election.CodeDecode},
		{"case-folded field name", bytes.Replace(good, []byte(`"title"`), []byte(`"Title"`), 1), election.CodeDecode},
		{"non-UTC time", bytes.Replace(good, []byte(`T08:00:00Z`), []byte(`T09:00:00+01:00`), 1), election.CodeDecode},
		{"invalid field value", badJSON, election.CodeManifest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := election.ParseManifest(tc.in)
			wantCode(t, err, tc.code)
		})
	}
}

// jsonOf is m's canonical JSON with its one contest cut to one option,
// which Marshal would refuse to write (the contest then has a single
// valid selection).
func jsonOf(t *testing.T, m *election.Manifest) []byte {
	t.Helper()
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	out := bytes.Replace(b, []byte(`"options":["Alice","Bob","Carol","Dave"]`), []byte(`"options":["Alice"]`), 1)
	if bytes.Equal(out, b) {
		t.Fatalf("no options to patch in %s", b)
	}
	return out
}

func TestThresholdManifest(t *testing.T) {
	m, pp, _ := fx.ThresholdManifest("thr", 2, 3)
	p, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	if p.Threshold == nil || p.Threshold.K != 2 || p.Threshold.L != 3 || p.Threshold.PublicKey.N.Cmp(pp.PublicKey.N) != 0 {
		t.Fatal("threshold parameters not parsed")
	}
	// Threshold parameters for another modulus are rejected.
	sk, err := paillier.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	m.PaillierKey, _ = sk.Public().MarshalBinary()
	err = m.Validate()
	wantCode(t, err, election.CodeManifest)
	if !strings.Contains(err.Error(), "threshold") {
		t.Fatalf("error %q does not name the threshold field", err)
	}
}

// The manifest digest changes with every field but the window, which
// `election open` may still set after tokens were issued.
func TestManifestDigestBindsAllButTheWindow(t *testing.T) {
	digest := func(m *election.Manifest) [32]byte {
		p, err := election.Prepare(m)
		if err != nil {
			t.Fatal(err)
		}
		return p.ManifestDigest
	}
	base := digest(fx.Manifest("d1"))
	same := fx.Manifest("d1")
	same.Start, same.End = same.Start.Add(time.Hour), same.End.Add(2*time.Hour)
	if digest(same) != base {
		t.Fatal("moving the window changed the digest")
	}
	for name, mod := range map[string]func(m *election.Manifest){
		"election id": func(m *election.Manifest) { m.ElectionID = "d2" },
		"channel":     func(m *election.Manifest) { m.Channel = "other" },
		"title":       func(m *election.Manifest) { m.Title = "other" },
		"options": func(m *election.Manifest) {
			o := m.Contests[0].Options
			o[0], o[1] = o[1], o[0]
		},
		"contest title":    func(m *election.Manifest) { m.Contests[0].Title = "other" },
		"contest limits":   func(m *election.Manifest) { m.Contests[0].Max = 2 },
		"contest blank":    func(m *election.Manifest) { m.Contests[0].Blank = true },
		"contest encoding": func(m *election.Manifest) { m.Contests[0].Encoding = "per-option" },
		"contest id": func(m *election.Manifest) {
			m.Contests[0].ID = "other"
			m.Styles[0].Contests[0] = "other"
		},
		"style id":     func(m *election.Manifest) { m.Styles[0].ID = "other" },
		"maxVoters":    func(m *election.Manifest) { m.MaxVoters = 999 },
		"encodingBits": func(m *election.Manifest) { m.EncodingBits = 11 },
		"authority":    func(m *election.Manifest) { m.AuthorityMSP = "OtherMSP" },
		"trustees":     func(m *election.Manifest) { m.TrusteeMSPs = nil },
		"clock skew":   func(m *election.Manifest) { m.MaxClockSkewSeconds = 60 },
		"challenge":    func(m *election.Manifest) { m.ChallengeBits = 136 },
		"booth digest": func(m *election.Manifest) { m.BoothDigest = "sha256:" + strings.Repeat("0", 64) },
		"pseudonym-key commitment": func(m *election.Manifest) {
			m.PseudonymKeyCommitment = electiontest.CommitTo(bytes.Repeat([]byte{7}, election.PseudonymKeyLen))
		},
	} {
		m := fx.Manifest("d1")
		mod(m)
		if digest(m) == base {
			t.Errorf("changing %s did not change the digest", name)
		}
	}
}

// TestManifestContestsRefused: the rules of version 4's contests and
// styles, reached through Validate on Fixture.ContestManifest (mayor,
// council, referendum; north: all three, south: mayor and referendum),
// one case per kind of bad input, each refused as MANIFEST naming the
// field; ParseManifest refuses the same manifest's JSON.
func TestManifestContestsRefused(t *testing.T) {
	options := func(n int) []string {
		var o []string
		for i := 0; i < n; i++ {
			o = append(o, fmt.Sprintf("option %d", i))
		}
		return o
	}
	for _, tc := range []struct {
		name string
		mod  func(m *election.Manifest)
		want string
	}{
		{"version 3", func(m *election.Manifest) { m.Version = 3 }, "version is 3, want 5"},
		{"no contests", func(m *election.Manifest) { m.Contests = nil }, "contests: 0, want 1..32"},
		{"33 contests", func(m *election.Manifest) {
			for i := len(m.Contests); i <= election.MaxContests; i++ {
				c := m.Contests[2]
				c.ID = fmt.Sprintf("q%d", i)
				m.Contests = append(m.Contests, c)
				m.Styles[0].Contests = append(m.Styles[0].Contests, c.ID)
			}
		}, "contests: 33, want 1..32"},
		{"contest id with a space", func(m *election.Manifest) {
			m.Contests[1].ID = "city council"
			m.Styles[0].Contests[1] = "city council"
		}, `contests[1].id "city council" must be`},
		{"contest id empty", func(m *election.Manifest) { m.Contests[0].ID = "" }, `contests[0].id "" must be`},
		{"contest id too long", func(m *election.Manifest) { m.Contests[2].ID = strings.Repeat("r", election.MaxIDLen+1) }, "contests[2].id"},
		{"contest id twice", func(m *election.Manifest) { m.Contests[2].ID = "council" }, `contests[2].id "council" repeats contests[1]`},
		{"contest title empty", func(m *election.Manifest) { m.Contests[1].Title = "" }, "contests[1].title is empty"},
		{"option twice", func(m *election.Manifest) { m.Contests[0].Options[2] = "Ana" }, `contests[0].options[2] "Ana" repeats contests[0].options[0]`},
		{"option empty", func(m *election.Manifest) { m.Contests[1].Options[4] = "" }, "contests[1].options[4] is empty"},
		{"no options", func(m *election.Manifest) { m.Contests[2].Options = nil }, "contests[2]: votecode: invalid: 0 options"},
		{"more selections than options", func(m *election.Manifest) { m.Contests[2].Max = 3 }, "contests[2]: votecode: invalid: at most 3 selections"},
		{"no selection at most", func(m *election.Manifest) { m.Contests[1].Max = 0 }, "contests[1]: votecode: invalid: at most 0 selections"},
		{"least above most", func(m *election.Manifest) { m.Contests[1].Min = 3 }, "contests[1]: votecode: invalid: at least 3 selections"},
		{"a single valid selection", func(m *election.Manifest) { m.Contests[0].Min, m.Contests[0].Max = 4, 4 }, "contests[0]: votecode: invalid: the contest offers a single valid selection"},
		{"encoding empty", func(m *election.Manifest) { m.Contests[1].Encoding = "" }, `contests[1]: encoding "" is neither "packed" nor "per-option"`},
		{"encoding misspelt", func(m *election.Manifest) { m.Contests[2].Encoding = "per_option" }, `contests[2]: encoding "per_option" is neither`},
		{"packed past 1024 valid selections", func(m *election.Manifest) {
			// 0 to 5 of 12: 1 + 12 + 66 + 220 + 495 + 792 = 1586 selections, and blank.
			m.Contests[1] = election.NewContest("council", "Council", options(12), 0, 5, true)
			if m.Contests[1].Encoding != "per-option" {
				panic("the cost rule packs 1586 selections")
			}
			m.Contests[1].Encoding = "packed"
		}, "more than 1024 valid selections to pack"},
		{"no styles", func(m *election.Manifest) { m.Styles = nil }, "styles: 0, want 1..64"},
		{"65 styles", func(m *election.Manifest) {
			for i := len(m.Styles); i <= election.MaxStyles; i++ {
				m.Styles = append(m.Styles, election.Style{ID: fmt.Sprintf("s%d", i), Contests: []string{"mayor"}})
			}
		}, "styles: 65, want 1..64"},
		{"style id empty", func(m *election.Manifest) { m.Styles[1].ID = "" }, `styles[1].id "" must be`},
		{"style id with a slash", func(m *election.Manifest) { m.Styles[0].ID = "north/1" }, `styles[0].id "north/1" must be`},
		{"style id twice", func(m *election.Manifest) { m.Styles[1].ID = "north" }, `styles[1].id "north" repeats styles[0]`},
		{"style of no contest", func(m *election.Manifest) { m.Styles[1].Contests = nil }, "styles[1] lists no contest"},
		{"style of an unknown contest", func(m *election.Manifest) { m.Styles[1].Contests[1] = "senate" }, `styles[1].contests[1] "senate" is no contest of the election`},
		{"contest twice in a style", func(m *election.Manifest) {
			m.Styles[0].Contests = []string{"mayor", "council", "council", "referendum"}
		}, `styles[0].contests[2] "council" is listed twice or out of the contests' order`},
		{"contests out of order", func(m *election.Manifest) { m.Styles[1].Contests = []string{"referendum", "mayor"} }, `styles[1].contests[1] "mayor" is listed twice or out of the contests' order`},
		{"contest in no style", func(m *election.Manifest) { m.Styles[0].Contests = []string{"mayor", "referendum"} }, `contests[1] "council" is in no style`},
		{"layout does not fit N", func(m *election.Manifest) {
			// 30 + 6 + 2 digits of 64 bits: 2432 bits, past a 2048-bit N.
			m.EncodingBits, m.MaxVoters = 64, 1<<40
			m.Contests[0] = election.NewContest("mayor", "Mayor", options(30), 1, 1, false)
		}, "contests: votecode: invalid: M^digits = 2^2432 does not fit below the modulus"},
		{"a style's ballot past MaxBallotSize", func(m *election.Manifest) {
			// Approval of 64, per option: 64 ciphertexts and 64 0/1 proofs.
			m.Contests[1] = election.NewContest("council", "Council", options(64), 0, 64, false)
		}, "styles[0]: a ballot would have"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := fx.ContestManifest("contests")
			tc.mod(m)
			err := m.Validate()
			if election.CodeOf(err) != election.CodeManifest || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want MANIFEST containing %q", err, tc.want)
			}
			if _, err := m.Marshal(); err == nil {
				t.Fatal("Marshal accepted an invalid manifest")
			}
		})
	}
}

// A manifest may state an encoding other than the one NewContest would
// choose; the layout follows the manifest, and the manifest digest binds
// the choice.
func TestManifestStatesEncoding(t *testing.T) {
	m := fx.ContestManifest("contests")
	p := prepare(t, m)
	for i := range m.Contests {
		if got := p.Layout.Contests[i].Kind.String(); got != m.Contests[i].Encoding {
			t.Fatalf("contests[%d] laid out %s, the manifest says %s", i, got, m.Contests[i].Encoding)
		}
	}
	if p.Layout.Contests[0].Kind != votecode.Packed {
		t.Fatal("the test wants the mayor packed")
	}
	m.Contests[0].Encoding = "per-option"
	q := prepare(t, m)
	if q.Layout.Contests[0].Kind != votecode.PerOption || q.Slots() != p.Slots()+3 {
		t.Fatalf("the mayor per option: kind %v, %d slots (packed: %d)", q.Layout.Contests[0].Kind, q.Slots(), p.Slots())
	}
	if q.ManifestDigest == p.ManifestDigest {
		t.Fatal("the manifest digest does not bind the encoding")
	}
}

// A manifest without a booth digest encodes no boothDigest key (so that
// manifests made before the field keep their encoding); one with a digest
// round-trips through Marshal and ParseManifest.
func TestManifestBoothDigest(t *testing.T) {
	plain, err := fx.Manifest("b").Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(plain, []byte("boothDigest")) {
		t.Fatal("a manifest without a booth digest encodes the key")
	}
	m := fx.Manifest("b")
	m.BoothDigest = "sha256:" + strings.Repeat("0a", 32)
	enc, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := election.ParseManifest(enc)
	if err != nil {
		t.Fatal(err)
	}
	if back.BoothDigest != m.BoothDigest {
		t.Fatalf("boothDigest %q after a round trip, want %q", back.BoothDigest, m.BoothDigest)
	}
}
