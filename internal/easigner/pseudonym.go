package easigner

import (
	"encoding/pem"
	"fmt"
	"os"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/atomicfile"
)

// PseudonymPEMType is the PEM block type of the authority's pseudonym key
// file (K_pseud, election.PseudonymKeyLen raw bytes).
const PseudonymPEMType = "FABVOTE PSEUDONYM KEY"

// GeneratePseudonymKey draws a fresh K_pseud from crypto/rand and writes it
// to path (mode 0600, atomically; an existing file is an error, so a second
// `election create` cannot silently change every voter's pseudonym).
func GeneratePseudonymKey(path string) ([]byte, error) {
	if _, err := os.Lstat(path); err == nil {
		return nil, fmt.Errorf("pseudonym key %s already exists", path)
	}
	k, err := election.NewPseudonymKey(nil)
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: PseudonymPEMType, Bytes: k}), 0o600); err != nil {
		return nil, err
	}
	return k, nil
}

// LoadPseudonymKey reads K_pseud from a file GeneratePseudonymKey wrote.
func LoadPseudonymKey(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("pseudonym key: %w", err)
	}
	return ParsePseudonymKey(data, path)
}

// ParsePseudonymKey parses the PEM form; name labels errors.
func ParsePseudonymKey(data []byte, name string) ([]byte, error) {
	block, rest := pem.Decode(data)
	switch {
	case block == nil:
		return nil, fmt.Errorf("pseudonym key %s: no PEM block found", name)
	case block.Type != PseudonymPEMType:
		return nil, fmt.Errorf("pseudonym key %s: PEM block type %q, want %q", name, block.Type, PseudonymPEMType)
	case len(block.Headers) != 0:
		return nil, fmt.Errorf("pseudonym key %s: unexpected PEM headers", name)
	case len(block.Bytes) != election.PseudonymKeyLen:
		return nil, fmt.Errorf("pseudonym key %s: %d bytes, want %d", name, len(block.Bytes), election.PseudonymKeyLen)
	case len(rest) != 0 && len(trimSpace(rest)) != 0:
		return nil, fmt.Errorf("pseudonym key %s: trailing data after the PEM block", name)
	}
	return block.Bytes, nil
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == '\n' || b[0] == '\r' || b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	return b
}
