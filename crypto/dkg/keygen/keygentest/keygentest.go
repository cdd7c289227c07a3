// Package keygentest gives tests outside crypto/dkg a distributed key: the
// committed public result of one in-process key ceremony (2-of-3 trustees,
// N of 2048 bits from the committed test primes) and the trustees' shares,
// which a real ceremony never writes anywhere. Only tests import it; the
// Python verifier's tests read the same file.
package keygentest

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/fabvote/fabvote/crypto/dkg/keygen"
	"github.com/fabvote/fabvote/crypto/dkg/wellformed"
	"github.com/fabvote/fabvote/crypto/paillier/threshold"
)

// File is the layout of testdata/distributed-key.json: the manifest's
// fields for a distributed key (paillierKey, threshold, keyCeremony) and
// the trustees' key shares, each as its binary encoding (base64 in JSON).
type File struct {
	Comment      string   `json:"comment"`
	PaillierKey  []byte   `json:"paillierKey"`  // paillier.PublicKey encoding
	Threshold    []byte   `json:"threshold"`    // threshold.PublicParams encoding ("FVTP", version 2)
	Ceremony     []byte   `json:"ceremony"`     // keygen.CeremonyIDLen bytes
	ModulusProof []byte   `json:"modulusProof"` // wellformed.Proof encoding ("FVPM")
	SelfTest     [][]byte `json:"selfTest"`     // trustee j's self-test partial ("FVPD") at j−1
	KeyShares    [][]byte `json:"keyShares"`    // trustee j's threshold.KeyShare encoding at j−1: test secrets
}

//go:embed testdata/distributed-key.json
var fileJSON []byte

// Load returns the committed file, decoded.
func Load() (*File, error) {
	var f File
	if err := json.Unmarshal(fileJSON, &f); err != nil {
		return nil, fmt.Errorf("keygentest: testdata/distributed-key.json: %w", err)
	}
	return &f, nil
}

// Key returns the committed ceremony's public result (not verified) and
// the trustees' key shares.
func Key() (*keygen.Public, []*threshold.KeyShare, error) {
	f, err := Load()
	if err != nil {
		return nil, nil, err
	}
	return f.Decode()
}

// Decode decodes f's encodings into the public result and the shares.
func (f *File) Decode() (*keygen.Public, []*threshold.KeyShare, error) {
	pp, err := threshold.ParsePublicParams(f.Threshold)
	if err != nil {
		return nil, nil, err
	}
	proof, err := wellformed.Parse(pp.PublicKey.N, f.ModulusProof)
	if err != nil {
		return nil, nil, err
	}
	pub := &keygen.Public{Ceremony: f.Ceremony, Params: pp, ModulusProof: proof}
	for _, b := range f.SelfTest {
		pd, err := threshold.ParsePartialDecryption(pp, b)
		if err != nil {
			return nil, nil, err
		}
		pub.SelfTest = append(pub.SelfTest, pd)
	}
	var shares []*threshold.KeyShare
	for _, b := range f.KeyShares {
		ks, err := threshold.ParseKeyShare(b)
		if err != nil {
			return nil, nil, err
		}
		shares = append(shares, ks)
	}
	return pub, shares, nil
}

// Encode is Decode's inverse: the file for a ceremony's result and shares.
func Encode(pub *keygen.Public, shares []*threshold.KeyShare) (*File, error) {
	f := &File{
		Comment:  "A distributed 2-of-3 key for tests (crypto/dkg/keygen/keygentest): regenerate with go test ./crypto/dkg/keygen/keygentest -update. The key shares are test secrets.",
		Ceremony: pub.Ceremony,
	}
	var err error
	if f.PaillierKey, err = pub.Params.PublicKey.MarshalBinary(); err != nil {
		return nil, err
	}
	if f.Threshold, err = pub.Params.MarshalBinary(); err != nil {
		return nil, err
	}
	if f.ModulusProof, err = pub.ModulusProof.Marshal(pub.Params.PublicKey.N); err != nil {
		return nil, err
	}
	for _, pd := range pub.SelfTest {
		b, err := pd.Marshal(pub.Params)
		if err != nil {
			return nil, err
		}
		f.SelfTest = append(f.SelfTest, b)
	}
	for _, ks := range shares {
		b, err := ks.MarshalBinary()
		if err != nil {
			return nil, err
		}
		f.KeyShares = append(f.KeyShares, b)
	}
	return f, nil
}
