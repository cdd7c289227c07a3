package election

import (
	"github.com/fabvote/fabvote/crypto/dkg/keygen"
	"github.com/fabvote/fabvote/crypto/dkg/wellformed"
	"github.com/fabvote/fabvote/crypto/paillier/threshold"
)

// The values of a manifest's keyOrigin: how the election's Paillier key was
// made.
const (
	// KeyOriginDealer: one machine made the whole key and dealt the
	// trustees' shares (`fabvote election create`); it held the key while
	// it ran. For tests and benchmarks.
	KeyOriginDealer = "dealer"
	// KeyOriginDistributed: the trustees made the key in a ceremony with no
	// dealer; the manifest carries the ceremony's public result
	// (keyCeremony), which everyone checks before the key is used.
	KeyOriginDistributed = "distributed"
)

// KeyCeremony is the public record of a dealer-free key ceremony, as the
// manifest carries it: what keygen.Public holds beside the threshold
// parameters, which are the manifest's threshold field.
type KeyCeremony struct {
	// ID is the ceremony's id, keygen.CeremonyIDLen bytes.
	ID []byte `json:"id"`
	// ModulusProof is the proof that N is a Paillier–Blum modulus,
	// wellformed.Proof's encoding ("FVPM").
	ModulusProof []byte `json:"modulusProof"`
	// SelfTest[j−1] is trustee j's partial decryption of the self-test
	// ciphertext, threshold.PartialDecryption's encoding ("FVPD").
	SelfTest [][]byte `json:"selfTest"`
}

// checkKeyOrigin checks the form of keyOrigin and keyCeremony against the
// threshold parameters pp (nil for a single key): decodings, lengths and
// counts, not the proofs. It runs wherever a manifest is parsed, so it
// stays cheap; CheckKeyOrigin runs the proofs.
func (m *Manifest) checkKeyOrigin(pp *threshold.PublicParams) error {
	switch m.KeyOrigin {
	case KeyOriginDealer:
		if m.KeyCeremony != nil {
			return manifestErr("keyCeremony is set, but keyOrigin is %q: a dealt key has no ceremony", KeyOriginDealer)
		}
		return nil
	case KeyOriginDistributed:
		_, err := m.keyCeremonyPublic(pp)
		return err
	default:
		return manifestErr("keyOrigin is %q, want %q or %q", truncate(m.KeyOrigin, 80), KeyOriginDealer, KeyOriginDistributed)
	}
}

// keyCeremonyPublic decodes keyCeremony of a distributed key into the
// ceremony's public result, under the parameters pp.
func (m *Manifest) keyCeremonyPublic(pp *threshold.PublicParams) (*keygen.Public, error) {
	kc := m.KeyCeremony
	switch {
	case kc == nil:
		return nil, manifestErr("keyCeremony is missing: keyOrigin %q needs the ceremony's public result", KeyOriginDistributed)
	case pp == nil:
		return nil, manifestErr("threshold is empty: keyOrigin %q needs the trustees' parameters", KeyOriginDistributed)
	case pp.ShareBits == 0:
		return nil, manifestErr("threshold is version 1 (a dealer's shares): keyOrigin %q needs version 2 (integer shares)", KeyOriginDistributed)
	case len(kc.ID) != keygen.CeremonyIDLen:
		return nil, manifestErr("keyCeremony.id has %d bytes, want %d", len(kc.ID), keygen.CeremonyIDLen)
	case len(kc.SelfTest) != pp.L:
		return nil, manifestErr("keyCeremony.selfTest has %d partials, want one per trustee: %d", len(kc.SelfTest), pp.L)
	}
	proof, err := wellformed.Parse(pp.PublicKey.N, kc.ModulusProof)
	if err != nil {
		return nil, manifestErr("keyCeremony.modulusProof: %v", err)
	}
	pub := &keygen.Public{Ceremony: kc.ID, Params: pp, ModulusProof: proof}
	for i, b := range kc.SelfTest {
		pd, err := threshold.ParsePartialDecryption(pp, b)
		if err != nil {
			return nil, manifestErr("keyCeremony.selfTest[%d]: %v", i, err)
		}
		pub.SelfTest = append(pub.SelfTest, pd)
	}
	return pub, nil
}

// KeyCeremonyPublic returns the public result of the key ceremony that made
// the manifest's key, decoded but not verified (CheckKeyOrigin verifies
// it). It fails for a manifest whose keyOrigin is not "distributed".
func (m *Manifest) KeyCeremonyPublic() (*keygen.Public, error) {
	if m.KeyOrigin != KeyOriginDistributed {
		return nil, manifestErr("keyOrigin is %q: no key ceremony", truncate(m.KeyOrigin, 80))
	}
	pk, err := m.parsePaillierKey()
	if err != nil {
		return nil, err
	}
	pp, err := m.parseThreshold(pk)
	if err != nil {
		return nil, err
	}
	return m.keyCeremonyPublic(pp)
}

// CheckKeyOrigin checks how the key was made. A dealt key passes: the
// manifest says so, and nothing more can be checked. A distributed key
// passes only if its ceremony's public result verifies (keygen.Public.
// Verify: the proof that N is a Paillier–Blum modulus and the self-test,
// which checks every verification key). It costs about a second at 2048
// bits, so it runs once per election, not per transaction.
func (m *Manifest) CheckKeyOrigin() error {
	if m.KeyOrigin == KeyOriginDealer {
		return m.checkKeyOrigin(nil)
	}
	pub, err := m.KeyCeremonyPublic()
	if err != nil {
		return err
	}
	if err := pub.Verify(); err != nil {
		return wrapf(CodeManifest, err, "keyCeremony")
	}
	return nil
}
