package booth_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/booth"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
)

// The booth's native build: precompute, finish, verify, with the inputs
// as the page sends them.
func TestBoothRoundTrip(t *testing.T) {
	fx := electiontest.Load()
	m := fx.Manifest("booth-native")
	in := voterInput(t, fx, m, 2, 1)
	bo := booth.New()
	h, err := bo.Precompute(in.Manifest, 0)
	if err != nil {
		t.Fatal(err)
	}
	f, err := bo.Finish(h, in.VoterKey, in.Token, `[{"options":[1]}]`)
	if err != nil {
		t.Fatal(err)
	}
	if err := booth.Verify(in.Manifest, f.Ballot); err != nil {
		t.Fatalf("Verify of the booth's ballot: %v", err)
	}
	p, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	b := checkWasmBallot(t, p, ballotOutput{Ballot: f.Ballot, Tracker: f.Tracker, BallotHash: f.BallotHash, Pseudonym: f.Pseudonym})
	checkWasmOpening(t, fx, p, b, string(f.Opening))
	s, err := booth.Spoil(f.Ballot, string(f.Opening))
	if err != nil {
		t.Fatal(err)
	}
	checkSpoiled(t, p, b, s.Spoiled, s.Tracker)
	if _, err := bo.Finish(h, in.VoterKey, in.Token, `[{"options":[1]}]`); !errors.Is(err, booth.ErrNoHandle) {
		t.Fatalf("a finished handle again: %v, want ErrNoHandle", err)
	}
}

// A refused finish leaves the handle usable.
func TestBoothFinishRefusalKeepsHandle(t *testing.T) {
	fx := electiontest.Load()
	in := voterInput(t, fx, fx.Manifest("booth-retry"), 3, 0)
	bo := booth.New()
	h, err := bo.Precompute(in.Manifest, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bo.Finish(h, in.VoterKey, in.Token, `[{"options":[0,1]}]`); err == nil {
		t.Fatal("two options in a one-choice contest accepted")
	}
	if _, err := bo.Finish(h, in.VoterKey, in.Token, `[{"options":[0]}]`); err != nil {
		t.Fatalf("after a refusal: %v", err)
	}
}

func TestBoothRejects(t *testing.T) {
	fx := electiontest.Load()
	in := voterInput(t, fx, fx.Manifest("booth-rejects"), 0, 0)
	bo := booth.New()
	h, err := bo.Precompute(in.Manifest, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		call func() error
		want string // a part of the error
		code string
	}{
		{"manifest not JSON", func() error { _, err := bo.Precompute("{", 0); return err }, "", election.CodeDecode},
		{"style out of range", func() error { _, err := bo.Precompute(in.Manifest, 7); return err }, "style 7", election.CodeToken},
		{"unknown handle", func() error { _, err := bo.Finish(h+1, in.VoterKey, in.Token, `[]`); return err }, "no such precomputation", ""},
		{"token not base64", func() error { _, err := bo.Finish(h, in.VoterKey, "@@", `[]`); return err }, "token: not standard base64", ""},
		{"token of another voter", func() error {
			other := voterInput(t, fx, fx.Manifest("booth-rejects"), 1, 0)
			_, err := bo.Finish(h, in.VoterKey, other.Token, `[{"options":[0]}]`)
			return err
		}, "token is not valid", election.CodeToken},
		{"ballot not base64", func() error { return booth.Verify(in.Manifest, "@@") }, "not standard base64", election.CodeDecode},
		{"ballot truncated", func() error { return booth.Verify(in.Manifest, "AwAA") }, "", election.CodeDecode},
		{"spoil: ballot not base64", func() error { _, err := booth.Spoil("@@", `{"ciphertexts":[]}`); return err }, "not standard base64", election.CodeDecode},
		{"spoil: opening not JSON", func() error {
			_, err := booth.Spoil(base64.StdEncoding.EncodeToString(fx.Ballot(fx.Manifest("booth-rejects"), fx.Voters[0], 0).Marshal()), "{")
			return err
		}, "opening", election.CodeDecode},
		{"tokenStyle: not base64", func() error { _, err := booth.TokenStyle("@@"); return err }, "not standard base64", election.CodeDecode},
		{"tokenStyle: too short", func() error { _, err := booth.TokenStyle("AAAA"); return err }, "token has 3 bytes", election.CodeDecode},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if err == nil || !strings.Contains(err.Error(), tc.want) || election.CodeOf(err) != tc.code {
				t.Fatalf("got %v (code %q), want an error with %q and code %q", err, election.CodeOf(err), tc.want, tc.code)
			}
		})
	}
}

func TestParseVoterKeyRejects(t *testing.T) {
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(p384)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, pem, want string }{
		{"no PEM", "not a key", "no PEM block"},
		{"other block type", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1}})), `PEM block "CERTIFICATE"`},
		{"garbage PKCS#8", string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1, 2}})), "voter key:"},
		{"P-384 key", string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})), "not an ECDSA P-256 key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := booth.ParseVoterKey(tc.pem); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}

func TestParseSelections(t *testing.T) {
	sels, err := booth.ParseSelections(`[{"options":[0,3]},{"blank":true},{"options":[]}]`)
	if err != nil {
		t.Fatal(err)
	}
	if len(sels) != 3 || len(sels[0].Options) != 2 || sels[0].Options[1] != 3 || !sels[1].Blank || len(sels[2].Options) != 0 {
		t.Fatalf("parsed %+v", sels)
	}
	for _, tc := range []struct{ name, js string }{
		{"not JSON", `[`},
		{"not a list", `{"options":[1]}`},
		{"unknown field", `[{"option":[1]}]`},
		{"option not a number", `[{"options":["a"]}]`},
		{"trailing data", `[] []`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := booth.ParseSelections(tc.js); err == nil || !strings.HasPrefix(err.Error(), "booth: selections") {
				t.Fatalf("got %v, want a selections error", err)
			}
		})
	}
}

// TokenStyle reads the style index a token carries, so that the page
// precomputes the voter's ballot.
func TestTokenStyle(t *testing.T) {
	fx := electiontest.Load()
	m := fx.ContestManifest("booth-styles")
	for want, style := range []string{"north", "south"} {
		tok := fx.TokenStyle(m, "voter-"+style, style, fx.Voters[want])
		got, err := booth.TokenStyle(base64.StdEncoding.EncodeToString(tok))
		if err != nil || got != want {
			t.Errorf("style %s: TokenStyle = %d, %v; want %d", style, got, err, want)
		}
	}
}
