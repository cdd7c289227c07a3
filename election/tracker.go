package election

import (
	"encoding/hex"
	"strings"
)

// TrackerDomain is the domain tag of a ballot's tracker.
const TrackerDomain = "fabvote/tracker/v1"

// ObjTracker is the ledger object type of spoiled ballots: the key
// (ObjTracker, electionID, hex(tracker)) holds the SpoiledBallot with that
// tracker.
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
