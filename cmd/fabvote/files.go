package main

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/internal/registrar"
)

func writeJSON(path string, v any, perm os.FileMode) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(data, '\n'), perm)
}

func readJSON(path, flagName string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("--%s: %w", flagName, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("--%s %s: %w", flagName, path, err)
	}
	return nil
}

// voterLine is one line of an offline voters file.
type voterLine struct {
	VoterID string `json:"voterID"`
	Key     []byte `json:"key"` // PKCS#8 DER
	Token   []byte `json:"token"`
}

type voterWriter struct {
	w *bufio.Writer
	e *json.Encoder
}

func newVoterWriter(w io.Writer) *voterWriter {
	bw := bufio.NewWriter(w)
	return &voterWriter{w: bw, e: json.NewEncoder(bw)}
}

func (v *voterWriter) write(id string, k *ecdsa.PrivateKey, tok []byte) error {
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return err
	}
	return v.e.Encode(&voterLine{VoterID: id, Key: der, Token: tok})
}

func (v *voterWriter) flush() error { return v.w.Flush() }

// parseVoterLine decodes one voters-file line.
func parseVoterLine(b []byte) (*voterLine, *ecdsa.PrivateKey, error) {
	var l voterLine
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, nil, err
	}
	k, err := x509.ParsePKCS8PrivateKey(l.Key)
	if err != nil {
		return nil, nil, fmt.Errorf("voter %s key: %w", l.VoterID, err)
	}
	ek, ok := k.(*ecdsa.PrivateKey)
	if !ok {
		return nil, nil, fmt.Errorf("voter %s key is not ECDSA", l.VoterID)
	}
	return &l, ek, nil
}

// tokenFile is what `register` writes and `ballot` reads.
type tokenFile = registrar.Token
