package ballot

import (
	"testing"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/validation/ballotcheck"
)

// noVerify fails the test if endorsement verifies a proof.
type noVerify struct{ t *testing.T }

func (v noVerify) Verify(election.Proofs) error {
	v.t.Error("cheap endorsement verified a proof")
	return nil
}

// TestCheapEndorsement: with the ballot validation plugin in the definition
// (ProofAtValidation), CastBallot makes every check but the proof
// verification; a ballot whose proof does not verify is endorsed, and the
// validation-time check of what it wrote rejects it.
func TestCheapEndorsement(t *testing.T) {
	m, ballots := e1(t)
	e := newEnv(t, noVerify{t})
	e.c = New(Config{Verifier: noVerify{t}, MaxClockSkew: DefaultMaxClockSkew, Now: e.now, ProofAtValidation: true})
	e.open(m)
	if _, _, err := e.cast(ballots[0].Marshal(), during); err != nil {
		t.Fatalf("valid ballot: %v", err)
	}
	v1 := fx.Voters[1]
	cases := []struct {
		name string
		arg  []byte
		code string
	}{
		{"duplicate", ballots[0].Marshal(), election.CodeDuplicate},
		{"token of another voter", func() []byte {
			b := clone(ballots[1])
			b.Token = ballots[2].Token
			return resign(b, v1)
		}(), election.CodeToken},
		{"signature of another ballot", func() []byte {
			b := clone(ballots[1])
			b.Signature = ballots[2].Signature
			return b.Marshal()
		}(), election.CodeSignature},
		{"proof of the wrong length", func() []byte {
			b := clone(ballots[1])
			b.Proof = b.Proof[:len(b.Proof)-1]
			return resign(b, v1)
		}(), election.CodeProof},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := e.cast(tc.arg, during)
			wantCode(t, err, tc.code)
		})
	}

	forged := clone(ballots[1])
	forged.Proof = ballots[2].Proof
	raw := resign(forged, v1)
	_, s, err := e.cast(raw, during)
	if err != nil {
		t.Fatalf("a ballot whose proof does not verify is rejected at cheap endorsement: %v", err)
	}
	if got := validationVerdict(t, s, raw); election.CodeOf(got) != election.CodeProof {
		t.Fatalf("validation-time check of the endorsed write: %v, want PROOF", got)
	}
}

// validationVerdict runs the validation-time ballot check on what the
// endorsement wrote.
func validationVerdict(t *testing.T, s *stub, arg []byte) error {
	t.Helper()
	m, _ := e1(t)
	raw, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	tx := &ballotcheck.Tx{TxID: s.txID, Function: "CastBallot", Args: [][]byte{arg}}
	for k, v := range s.writes {
		tx.Writes = append(tx.Writes, ballotcheck.Write{Key: k, Value: v})
		tx.Reads = append(tx.Reads, ballotcheck.Read{Key: k, Absent: true})
	}
	manifests := ballotcheck.ManifestCache(func(string) ([]byte, error) { return raw, nil })
	return ballotcheck.CheckBlock(nil, manifests, []*ballotcheck.Tx{tx})[0]
}

func TestValidationPluginSwitch(t *testing.T) {
	for v, want := range map[string]bool{"": false, "off": false, "vscc": false, "ballotvscc": true, " ballotvscc ": true} {
		cfg, err := ConfigFromEnv(func(k string) (string, bool) { return v, k == EnvValidationPlugin })
		if err != nil || cfg.ProofAtValidation != want {
			t.Errorf("%s=%q: ProofAtValidation %v, err %v; want %v", EnvValidationPlugin, v, cfg.ProofAtValidation, err, want)
		}
	}
	if _, err := ConfigFromEnv(func(k string) (string, bool) { return "ballot", k == EnvValidationPlugin }); err == nil {
		t.Error("an unknown plugin name was accepted")
	}
}
