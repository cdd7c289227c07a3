package election

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"strings"
)

// TrackerDomain is the domain tag of a ballot's tracker.
const TrackerDomain = "fabvote/tracker/v1"

// ObjTracker is the ledger object type of trackers: the key
// (ObjTracker, electionID, hex(tracker)) holds the one claim on a tracker,
// a cast ballot's (TrackerClaim) or a spoiled ballot (SpoiledBallot).
const ObjTracker = "tracker"

// Tracker is SHA-256(lp("fabvote/tracker/v1") ‖ lp(electionID) ‖
// lp(contests) ‖ lp(ciphertext)), lp(x) = 4-byte big-endian len(x) ‖ x:
// what a voter sees before choosing to cast or to audit a ballot, and what
// the board lists for every cast and every spoiled ballot. It commits to
// the vote (which contests, which ciphertexts) and to nothing that
// identifies the voter: no voter key, token, proof or signature (a proof's
// challenge binds the hash of the voter's key, so publishing it with an
// audited ballot would link that ballot to its voter).
func Tracker(electionID string, contests, ciphertext []byte) [32]byte {
	return digest([]byte(TrackerDomain), []byte(electionID), contests, ciphertext)
}

// Tracker is the ballot's tracker.
func (b *Ballot) Tracker() [32]byte { return Tracker(b.ElectionID, b.Contests, b.Ciphertext) }

// TrackerHex is the lowercase hex of the ballot's tracker: the last
// attribute of its tracker key.
func (b *Ballot) TrackerHex() string {
	t := b.Tracker()
	return hex.EncodeToString(t[:])
}

// ParseTrackerHex parses a tracker as 64 lowercase hex digits. Errors:
// DECODE, naming what is wrong.
func ParseTrackerHex(s string) ([32]byte, error) {
	var t [32]byte
	if len(s) != 2*len(t) || strings.ToLower(s) != s {
		return t, errorf(CodeDecode, "tracker %q is not 64 lowercase hex digits", truncate(s, 80))
	}
	if _, err := hex.Decode(t[:], []byte(s)); err != nil {
		return t, wrapf(CodeDecode, err, "tracker %q", truncate(s, 80))
	}
	return t, nil
}

// TrackerClaimFormat is the format of a cast ballot's claim on its tracker.
const TrackerClaimFormat = "fabvote/tracker-claim"

// TrackerClaim is what a cast writes under its ballot's tracker key: the
// pseudonym whose ballot claimed the tracker, so that the tracker can never
// be spoiled afterwards, nor another ballot with the same tracker cast.
// JSON: {"format":"fabvote/tracker-claim","version":1,"cast":"<hex>"}.
type TrackerClaim struct {
	Cast [PseudonymLen]byte // the casting ballot's pseudonym: its ballot key
}

type trackerClaimJSON struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	Cast    string `json:"cast"`
}

// maxTrackerClaimSize bounds a claim's encoding well above its fixed length.
const maxTrackerClaimSize = 256

// CastClaim is the claim ballot b's cast writes.
func (b *Ballot) CastClaim() *TrackerClaim { return &TrackerClaim{Cast: b.Pseudonym()} }

// Marshal is the claim's canonical JSON.
func (c *TrackerClaim) Marshal() []byte {
	out, err := json.Marshal(trackerClaimJSON{Format: TrackerClaimFormat, Version: 1, Cast: hex.EncodeToString(c.Cast[:])})
	if err != nil {
		panic(err) // strings and an int always marshal
	}
	return out
}

// CastHex is the lowercase hex of the casting ballot's pseudonym.
func (c *TrackerClaim) CastHex() string { return hex.EncodeToString(c.Cast[:]) }

// ParseTrackerClaim decodes a claim in exactly its canonical form.
// Errors: SIZE, DECODE naming the key or value that is wrong.
func ParseTrackerClaim(data []byte) (*TrackerClaim, error) {
	if len(data) > maxTrackerClaimSize {
		return nil, errorf(CodeSize, "tracker claim has %d bytes, the limit is %d", len(data), maxTrackerClaimSize)
	}
	var in trackerClaimJSON
	if err := decodeStrict(data, "tracker claim", []string{"format", "version", "cast"}, &in); err != nil {
		return nil, err
	}
	if err := checkFormat("tracker claim", in.Format, TrackerClaimFormat, in.Version); err != nil {
		return nil, err
	}
	var c TrackerClaim
	if len(in.Cast) != 2*PseudonymLen {
		return nil, errorf(CodeDecode, "tracker claim: cast has %d hex digits, want %d", len(in.Cast), 2*PseudonymLen)
	}
	if _, err := hex.Decode(c.Cast[:], []byte(in.Cast)); err != nil {
		return nil, wrapf(CodeDecode, err, "tracker claim: cast")
	}
	if err := checkCanonical(data, c.Marshal(), "tracker claim"); err != nil {
		return nil, err
	}
	return &c, nil
}

// checkFormat is DECODE unless a document's format and version are want's
// first version.
func checkFormat(what, format, want string, version int) error {
	if format != want {
		return errorf(CodeDecode, "%s: format %q, want %q", what, truncate(format, 40), want)
	}
	if version != 1 {
		return errorf(CodeDecode, "%s: version %d, want 1", what, version)
	}
	return nil
}

// ParseTrackerValue decodes the value of a tracker key: a cast ballot's
// claim (claim non-nil) or a spoiled ballot (spoiled non-nil), told apart
// by their format. Errors: as ParseTrackerClaim and ParseSpoiledBallot.
func ParseTrackerValue(data []byte) (claim *TrackerClaim, spoiled *SpoiledBallot, err error) {
	if bytes.HasPrefix(data, []byte(`{"format":"`+TrackerClaimFormat+`"`)) {
		claim, err = ParseTrackerClaim(data)
		return claim, nil, err
	}
	spoiled, err = ParseSpoiledBallot(data)
	return nil, spoiled, err
}
