// Package record writes and verifies an election record (docs/RECORD.md,
// format version 2): a directory with the manifest, the result, an index
// of the ballots and every block of the channel, signed by the orderers,
// from which anyone can verify an election with no network.
//
// Export writes a record from a chain.Reader (a peer's qscc); Verify checks
// one in the order of RECORD.md section 6 and returns the same audit.Report
// as a live `fabvote verify`, whose JSON rendering (Report.JSON) is the
// shared report of section 7.
package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"unicode/utf8"
)

// Format and Version are record.json's fixed fields. Version 2 holds
// elections of several contests (manifest version 5, which says how the
// key was made; ballot version 3, result version 2).
const (
	Format  = "fabvote-election-record"
	Version = 2
)

// File names of a record (RECORD.md section 1).
const (
	RecordFile   = "record.json"
	ManifestFile = "manifest.json"
	ResultFile   = "result.json"
	BallotsFile  = "ballots.json"
	BlocksDir    = "blocks"
)

// Info is record.json.
type Info struct {
	Format     string `json:"format"`
	Version    int    `json:"version"`
	ElectionID string `json:"electionID"`
	Channel    string `json:"channel"`
	Chaincode  string `json:"chaincode"`
	LastBlock  uint64 `json:"lastBlock"`
}

// Entry is one ballot of ballots.json.
type Entry struct {
	Pseudonym  string `json:"pseudonym"`
	BallotHash string `json:"ballotHash"`
	TxID       string `json:"txID"`
	Block      uint64 `json:"block"`
	Index      int    `json:"index"`
}

// lowerHex64 is a SHA-256 or a pseudonym: 64 lower-case hex digits. The
// spec's pseudonyms and ballot hashes are both 32 bytes.
var lowerHex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)

// decodeStrict decodes exactly one JSON value into v, refusing unknown
// fields and trailing data: a verifier must not skip what it does not know.
func decodeStrict(b []byte, v any) error {
	if bytes.HasPrefix(b, []byte("\xef\xbb\xbf")) {
		return errors.New("starts with a byte order mark")
	}
	if !utf8.Valid(b) {
		return errors.New("is not UTF-8") // Go's decoder would replace the bad bytes
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if _, err := d.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// requireFields reports the first of names missing from a JSON object: Go's
// decoder would leave a missing field zero, which the schema forbids. It
// also refuses a key that is not exactly one of names: Go's decoder
// matches keys case-insensitively ("LastBlock" for "lastBlock"), the
// schema and other readers do not.
func requireFields(b []byte, names ...string) error {
	fields, err := objectFields(b)
	if err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if !slices.Contains(names, k) {
			return fmt.Errorf("unknown field %q", k)
		}
	}
	for _, n := range names {
		if v, ok := fields[n]; !ok || string(v) == "null" {
			return fmt.Errorf("field %q is missing", n)
		}
	}
	return nil
}

// objectFields reads a JSON object's fields in one pass and refuses a key
// twice (RECORD.md 1): two decoders could each take another of the two
// values.
func objectFields(b []byte) (map[string]json.RawMessage, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	fields := map[string]json.RawMessage{}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil, err
		}
		k, _ := t.(string)
		if _, twice := fields[k]; twice {
			return nil, fmt.Errorf("field %q appears twice", k)
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, err
		}
		fields[k] = v
	}
	return fields, nil
}

// ParseRecordJSON decodes record.json and checks its format, version and
// fields.
func ParseRecordJSON(b []byte) (*Info, error) {
	var in Info
	if err := decodeStrict(b, &in); err != nil {
		return nil, fmt.Errorf("%s does not decode: %w", RecordFile, err)
	}
	if err := requireFields(b, "format", "version", "electionID", "channel", "chaincode", "lastBlock"); err != nil {
		return nil, fmt.Errorf("%s: %w", RecordFile, err)
	}
	switch {
	case in.Format != Format:
		return nil, fmt.Errorf("%s: format is %q, not %q", RecordFile, in.Format, Format)
	case in.Version != Version:
		return nil, fmt.Errorf("%s: a record of format version %d; this verifier reads version %d only (a version-1 record is of an election of one question, before contests: verify it with the fabvote release that made it)", RecordFile, in.Version, Version)
	case in.ElectionID == "" || in.Channel == "" || in.Chaincode == "":
		return nil, fmt.Errorf("%s: electionID, channel and chaincode must not be empty", RecordFile)
	}
	return &in, nil
}

// ParseBallotIndex decodes ballots.json: an array of entries with every
// field, lower-case hex, sorted by pseudonym with none twice.
func ParseBallotIndex(b []byte) ([]Entry, error) { return decodeBallotIndex(b, true) }

// DecodeBallotIndex is ParseBallotIndex without the order rule: what a
// reader that shows an index, rather than verifies it, needs (the bulletin
// board shows the verifier's verdict on the order beside the entries).
func DecodeBallotIndex(b []byte) ([]Entry, error) { return decodeBallotIndex(b, false) }

func decodeBallotIndex(b []byte, sorted bool) ([]Entry, error) {
	var raw []json.RawMessage
	if err := decodeStrict(b, &raw); err != nil {
		return nil, fmt.Errorf("%s does not decode: %w", BallotsFile, err)
	}
	if raw == nil {
		return nil, fmt.Errorf("%s is not an array", BallotsFile)
	}
	out := make([]Entry, len(raw))
	for i, r := range raw {
		if err := parseEntry(r, &out[i]); err != nil {
			return nil, fmt.Errorf("%s, entry %d: %w", BallotsFile, i, err)
		}
		if sorted && i > 0 && out[i-1].Pseudonym >= out[i].Pseudonym {
			return nil, fmt.Errorf("%s, entry %d: pseudonym %s is not after %s (sorted, none twice)", BallotsFile, i, out[i].Pseudonym, out[i-1].Pseudonym)
		}
	}
	return out, nil
}

func parseEntry(r json.RawMessage, e *Entry) error {
	if err := decodeStrict(r, e); err != nil {
		return err
	}
	if err := requireFields(r, "pseudonym", "ballotHash", "txID", "block", "index"); err != nil {
		return err
	}
	switch {
	case !lowerHex64.MatchString(e.Pseudonym):
		return fmt.Errorf("pseudonym %q is not 64 lower-case hex digits", e.Pseudonym)
	case !lowerHex64.MatchString(e.BallotHash):
		return fmt.Errorf("ballotHash %q is not 64 lower-case hex digits", e.BallotHash)
	case e.TxID == "":
		return errors.New("txID is empty")
	case e.Index < 0:
		return fmt.Errorf("index %d is negative", e.Index)
	}
	return nil
}

// MarshalBallotIndex is ballots.json's encoding of entries (sorted by the
// caller): one entry a line, so that a diff of two records is readable.
func MarshalBallotIndex(entries []Entry) []byte {
	var buf bytes.Buffer
	buf.WriteString("[")
	for i, e := range entries {
		if i > 0 {
			buf.WriteString(",")
		}
		b, _ := json.Marshal(e) // strings and integers always encode
		buf.WriteString("\n")
		buf.Write(b)
	}
	if len(entries) > 0 {
		buf.WriteString("\n")
	}
	buf.WriteString("]\n")
	return buf.Bytes()
}

// MarshalRecordJSON is record.json's encoding.
func MarshalRecordJSON(in *Info) []byte {
	b, _ := json.Marshal(in) // strings and integers always encode
	return append(b, '\n')
}
