package election_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/crypto/dkg/keygen"
	"github.com/fabvote/fabvote/election"
)

// A dealt key and the committed distributed key both parse, check and
// round-trip; the distributed one's ceremony decodes to what was put in.
func TestKeyOriginAccepted(t *testing.T) {
	dist, pp, _ := fx.DistributedManifest("dist")
	for _, m := range []*election.Manifest{fx.Manifest("dealt"), dist} {
		t.Run(m.KeyOrigin, func(t *testing.T) {
			b, err := m.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			back, err := election.ParseManifest(b)
			if err != nil {
				t.Fatal(err)
			}
			if err := back.CheckKeyOrigin(); err != nil {
				t.Fatal(err)
			}
		})
	}
	pub, err := dist.KeyCeremonyPublic()
	if err != nil {
		t.Fatal(err)
	}
	if string(pub.Ceremony) != string(dist.KeyCeremony.ID) || pub.Params.PublicKey.N.Cmp(pp.PublicKey.N) != 0 || len(pub.SelfTest) != pp.L {
		t.Fatal("KeyCeremonyPublic does not give the manifest's ceremony")
	}
	if _, err := fx.Manifest("dealt").KeyCeremonyPublic(); election.CodeOf(err) != election.CodeManifest {
		t.Fatalf("KeyCeremonyPublic of a dealt key: %v, want MANIFEST", err)
	}
}

// Every kind of malformed keyOrigin or keyCeremony is refused by Validate
// (so by ParseManifest on every path), naming the field.
func TestKeyOriginMalformed(t *testing.T) {
	cases := []struct {
		name, want string
		edit       func(m *election.Manifest)
	}{
		{"empty keyOrigin", "keyOrigin is \"\"", func(m *election.Manifest) { m.KeyOrigin = "" }},
		{"unknown keyOrigin", "keyOrigin is \"trusted\"", func(m *election.Manifest) { m.KeyOrigin = "trusted" }},
		{"dealer with keyCeremony", "keyCeremony is set", func(m *election.Manifest) { m.KeyOrigin = election.KeyOriginDealer }},
		{"distributed without keyCeremony", "keyCeremony is missing", func(m *election.Manifest) { m.KeyCeremony = nil }},
		{"distributed without threshold", "threshold is empty", func(m *election.Manifest) { m.Threshold = nil }},
		{"distributed with version 1 threshold", "threshold is version 1", func(m *election.Manifest) {
			dealt, _, _ := fx.ThresholdManifest("v1", 2, 3)
			m.PaillierKey, m.Threshold = dealt.PaillierKey, dealt.Threshold
		}},
		{"short ceremony id", "keyCeremony.id has 15 bytes", func(m *election.Manifest) { m.KeyCeremony.ID = m.KeyCeremony.ID[1:] }},
		{"truncated modulus proof", "keyCeremony.modulusProof", func(m *election.Manifest) {
			m.KeyCeremony.ModulusProof = m.KeyCeremony.ModulusProof[:len(m.KeyCeremony.ModulusProof)-1]
		}},
		{"missing self-test partial", "keyCeremony.selfTest has 2 partials", func(m *election.Manifest) { m.KeyCeremony.SelfTest = m.KeyCeremony.SelfTest[1:] }},
		{"malformed self-test partial", "keyCeremony.selfTest[1]", func(m *election.Manifest) {
			m.KeyCeremony.SelfTest[1] = m.KeyCeremony.SelfTest[1][:10]
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, _, _ := fx.DistributedManifest("dist")
			tc.edit(m)
			err := m.Validate()
			wantCode(t, err, election.CodeManifest)
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not say %q", err, tc.want)
			}
		})
	}
}

// A well-formed keyCeremony that does not verify passes Validate (the
// proofs are not checked per transaction) and fails CheckKeyOrigin with
// MANIFEST, wrapping keygen.ErrInvalid.
func TestCheckKeyOriginRefuses(t *testing.T) {
	cases := []struct {
		name string
		edit func(kc *election.KeyCeremony)
	}{
		{"tampered modulus proof", func(kc *election.KeyCeremony) { kc.ModulusProof[len(kc.ModulusProof)-1] ^= 1 }},
		{"swapped self-test partials", func(kc *election.KeyCeremony) { kc.SelfTest[0], kc.SelfTest[1] = kc.SelfTest[1], kc.SelfTest[0] }},
		{"wrong ceremony id", func(kc *election.KeyCeremony) { kc.ID[0] ^= 1 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, _, _ := fx.DistributedManifest("dist")
			tc.edit(m.KeyCeremony)
			if err := m.Validate(); err != nil {
				t.Fatalf("Validate: %v, want the structure accepted", err)
			}
			err := m.CheckKeyOrigin()
			wantCode(t, err, election.CodeManifest)
			if !errors.Is(err, keygen.ErrInvalid) {
				t.Fatalf("error %v does not wrap keygen.ErrInvalid", err)
			}
		})
	}
}
