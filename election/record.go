package election

import (
	"crypto/sha256"
	"encoding/binary"
	"strings"
	"unicode/utf8"
)

// Ledger object types (the first attribute of fabvote's composite keys):
//
//	("manifest",   electionID)                        → canonical manifest JSON
//	("ballot",     electionID, hex(pseudonym))        → Record encoding
//	("result",     electionID)                        → canonical result JSON
//	("tracker",    electionID, hex(tracker))          → SpoiledBallot JSON (ObjTracker)
//	("ciphertext", electionID, hex(CiphertextDigest)) → CiphertextClaim JSON (ObjCiphertext)
const (
	ObjManifest = "manifest"
	ObjBallot   = "ballot"
	ObjResult   = "result"
)

// LedgerKey is the state key of (obj, attrs...): the chaincode shim's
// composite-key encoding, U+0000 ‖ obj ‖ U+0000 ‖ (attr ‖ U+0000)*, spelled
// out here so that clients reading blocks (fabvote verify) can recognise the
// keys without the shim. LedgerKey(ObjBallot, id) is the prefix of every
// ballot key of election id.
func LedgerKey(obj string, attrs ...string) string {
	var sb strings.Builder
	sb.WriteString("\x00" + obj + "\x00")
	for _, a := range attrs {
		sb.WriteString(a + "\x00")
	}
	return sb.String()
}

// RecordVersion is the first byte of a stored ballot record.
const RecordVersion = 1

// MaxTxIDLen bounds the transaction id stored with a ballot (Fabric's are 64 hex digits).
const MaxTxIDLen = 128

// Record is the value stored under a ballot key: the ballot and the id of the
// transaction that cast it, so that a receipt can be answered from one key.
// Encoding: 0x01 ‖ 2-byte big-endian len(txID) ‖ txID ‖ canonical ballot.
type Record struct {
	TxID   string
	Ballot []byte // canonical ballot encoding, exactly as submitted
}

// Marshal returns the record encoding.
func (r *Record) Marshal() []byte {
	out := make([]byte, 0, 3+len(r.TxID)+len(r.Ballot))
	out = append(out, RecordVersion)
	out = binary.BigEndian.AppendUint16(out, uint16(len(r.TxID)))
	out = append(out, r.TxID...)
	return append(out, r.Ballot...)
}

// ParseRecord decodes a stored record. It does not parse the ballot.
func ParseRecord(b []byte) (*Record, error) {
	if len(b) > MaxBallotSize+3+MaxTxIDLen {
		return nil, errorf(CodeSize, "ballot record has %d bytes", len(b))
	}
	if len(b) < 3 || b[0] != RecordVersion {
		return nil, errorf(CodeDecode, "ballot record: bad header")
	}
	n := int(binary.BigEndian.Uint16(b[1:3]))
	if n > MaxTxIDLen || len(b) < 3+n {
		return nil, errorf(CodeDecode, "ballot record: bad txID length %d", n)
	}
	// A transaction id is text: one that is not UTF-8 is no record, so
	// that every reader (and a JSON report naming it) sees the same id.
	if !utf8.Valid(b[3 : 3+n]) {
		return nil, errorf(CodeDecode, "ballot record: txID is not UTF-8")
	}
	return &Record{TxID: string(b[3 : 3+n]), Ballot: append([]byte(nil), b[3+n:]...)}, nil
}

// StoredBallot is the ballot a ballot key's value holds, as a reader of the
// blocks takes it: the ballot inside the record encoding, or, with
// ParseRecord's error, the whole value when it is no record encoding (the
// ballot checks then report it as not decoding; RECORD.md 4 hashes it
// whole).
func StoredBallot(value []byte) ([]byte, error) {
	rec, err := ParseRecord(value)
	if err != nil {
		return value, err
	}
	return rec.Ballot, nil
}

// BallotHash is the hash on a receipt: SHA-256 of the canonical ballot bytes.
func BallotHash(ballot []byte) [32]byte { return sha256.Sum256(ballot) }

// Receipt is what GetBallot returns (JSON): enough for a voter to check that
// the ballot recorded under their key is the one they cast.
type Receipt struct {
	ElectionID string `json:"electionID"`
	Pseudonym  string `json:"pseudonym"`  // lower-case hex: the ballot key
	BallotHash string `json:"ballotHash"` // lower-case hex of SHA-256(ballot bytes)
	TxID       string `json:"txID"`
}

// BallotEntry is one ballot in a ListBallots page.
type BallotEntry struct {
	Pseudonym string `json:"pseudonym"`
	TxID      string `json:"txID"`
	Ballot    []byte `json:"ballot"` // canonical encoding (base64 in JSON)
	// NotRecord is why the stored value is no record encoding, set by a
	// reader of the blocks (ParseRecord's error); the audit reports such
	// an entry as not decoding, whatever Ballot holds.
	NotRecord error `json:"-"`
}

// BallotPage is what ListBallots returns (JSON). An empty Bookmark means the
// last page has been read.
type BallotPage struct {
	Ballots  []BallotEntry `json:"ballots"`
	Bookmark string        `json:"bookmark"`
}
