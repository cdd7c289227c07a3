package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/fabvote/fabvote/crypto/dkg/protocol"
	"github.com/fabvote/fabvote/election"
)

// ceremonyResultFile is the name of a ceremony's public result in a
// trustee's --out directory.
const ceremonyResultFile = "ceremony.json"

// maxCeremonyResult bounds what --key-from reads: a 3072-bit result of five
// trustees is some tens of kilobytes.
const maxCeremonyResult = 1 << 22

// ceremonyResult is ceremony.json: a key ceremony's public result in the
// manifest's own fields, identical for every trustee. It holds no share and
// no factor of N: what the trustees keep is in their sealed shares.
type ceremonyResult struct {
	Ceremony     string               `json:"ceremony"`     // the config's ceremony id, hex
	ConfigDigest string               `json:"configDigest"` // the config's digest, hex
	N            int                  `json:"n"`            // trustees
	K            int                  `json:"k"`            // trustees needed to decrypt
	PaillierKey  []byte               `json:"paillierKey"`  // the manifest's paillierKey
	Threshold    []byte               `json:"threshold"`    // the manifest's threshold (version 2)
	KeyCeremony  election.KeyCeremony `json:"keyCeremony"`  // the manifest's keyCeremony
}

// newCeremonyResult encodes out's public result (verified by
// protocol.Run) of the ceremony whose config has digest digest.
func newCeremonyResult(out *protocol.Output, digest string) (*ceremonyResult, error) {
	pub := out.Public
	pp := pub.Params
	r := &ceremonyResult{Ceremony: hex.EncodeToString(pub.Ceremony), ConfigDigest: digest, N: pp.L, K: pp.K,
		KeyCeremony: election.KeyCeremony{ID: pub.Ceremony}}
	var err error
	if r.PaillierKey, err = pp.PublicKey.MarshalBinary(); err != nil {
		return nil, err
	}
	if r.Threshold, err = pp.MarshalBinary(); err != nil {
		return nil, err
	}
	if r.KeyCeremony.ModulusProof, err = pub.ModulusProof.Marshal(pp.PublicKey.N); err != nil {
		return nil, err
	}
	for _, pd := range pub.SelfTest {
		b, err := pd.Marshal(pp)
		if err != nil {
			return nil, err
		}
		r.KeyCeremony.SelfTest = append(r.KeyCeremony.SelfTest, b)
	}
	return r, nil
}

// readCeremonyResult reads ceremony.json strictly: an unknown field or
// trailing data is refused.
func readCeremonyResult(path string) (*ceremonyResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxCeremonyResult+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxCeremonyResult {
		return nil, fmt.Errorf("%s: more than %d bytes: not a ceremony result", path, maxCeremonyResult)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var r ceremonyResult
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: data after the JSON object", path)
	}
	if len(r.Threshold) == 0 || len(r.PaillierKey) == 0 {
		return nil, errors.New(path + ": no paillierKey or threshold: not a ceremony result")
	}
	return &r, nil
}

// apply puts the result into m as a distributed key and checks it
// (election.Manifest.CheckKeyOrigin: keygen.Public.Verify).
func (r *ceremonyResult) apply(m *election.Manifest) error {
	m.PaillierKey, m.Threshold = r.PaillierKey, r.Threshold
	m.KeyOrigin = election.KeyOriginDistributed
	kc := r.KeyCeremony
	m.KeyCeremony = &kc
	return m.CheckKeyOrigin()
}
