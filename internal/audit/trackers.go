package audit

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"

	"github.com/fabvote/fabvote/election"
)

// TrackerWrite is one valid write under the election's tracker prefix
// since the opening, in commit order.
type TrackerWrite struct {
	Rest    string // the key after the prefix ("<64 hex>\x00" for a tracker key)
	TxID    string
	Block   uint64
	Index   int // the transaction's position in its block
	Deleted bool
	Value   []byte
}

// trackerAttr is a tracker key's rest: 64 lowercase hex digits and the
// composite key's separator.
var trackerAttr = regexp.MustCompile(`^[0-9a-f]{64}\x00$`)

// claimPrefix tells a cast claim from a spoiled ballot, as the contract's
// election.ParseTrackerValue does.
var claimPrefix = []byte(`{"format":"` + election.TrackerClaimFormat + `"`)

// IsCastClaim says whether a tracker key's value is a cast claim (well
// formed or not) rather than a spoiled ballot.
func IsCastClaim(value []byte) bool { return bytes.HasPrefix(value, claimPrefix) }

// CheckTrackers is docs/VERIFY.md V32: each tracker key written once, its
// first write a cast claim of a valid ballot with that tracker or a
// spoiled ballot under its own tracker whose opening checks; and, when the
// blocks hold any tracker write, each valid ballot's tracker key holding
// its own claim. A spoiled ballot is never under a ballot key: it cannot
// reach the product, whatever this check finds.
func CheckTrackers(p *election.Prepared, writes []TrackerWrite, cast []CastTracker) []Failure {
	var fs []Failure
	fail := func(kind, code, subject, pseudonym, format string, args ...any) {
		fs = append(fs, Failure{Kind: kind, Code: code, Subject: subject, Pseudonym: pseudonym, Err: fmt.Sprintf(format, args...)})
	}
	byPseudonym := make(map[string]CastTracker, len(cast))
	for _, c := range cast {
		byPseudonym[c.Pseudonym] = c
	}
	first := make(map[string]TrackerWrite) // tracker hex -> its first write
	for _, w := range writes {
		subject := "tracker " + strings.TrimSuffix(w.Rest, "\x00") + " (tx " + w.TxID + ")"
		if !trackerAttr.MatchString(w.Rest) {
			fail(KindTracker, "", subject, "", "block %d writes a key under the tracker prefix that is no tracker key", w.Block)
			continue
		}
		k := strings.TrimSuffix(w.Rest, "\x00")
		_, again := first[k]
		switch {
		case w.Deleted:
			fail(KindTracker, "", subject, "", "the tracker key is deleted (block %d); the contract never deletes one", w.Block)
		case again:
			fail(KindTracker, "", subject, "", "the tracker key is written again (block %d); the contract writes a tracker key once", w.Block)
		}
		if again {
			continue
		}
		first[k] = w
		if !w.Deleted {
			fs = append(fs, checkTrackerValue(p, k, subject, w.Value, byPseudonym)...)
		}
	}
	if len(writes) == 0 {
		return fs // blocks of a contract without trackers: no claim to ask for
	}
	for _, c := range cast {
		fs = append(fs, checkClaimed(c, first)...)
	}
	return fs
}

// checkTrackerValue is V32's rules 2 and 3 on tracker k's first write.
func checkTrackerValue(p *election.Prepared, k, subject string, value []byte, byPseudonym map[string]CastTracker) []Failure {
	one := func(kind, code, pseudonym string, err error) []Failure {
		return []Failure{{Kind: kind, Code: code, Subject: subject, Pseudonym: pseudonym, Err: err.Error()}}
	}
	if IsCastClaim(value) {
		claim, err := election.ParseTrackerClaim(value)
		if err != nil {
			return one(KindTracker, election.CodeOf(err), "", err)
		}
		ph := claim.CastHex()
		c, ok := byPseudonym[ph]
		switch {
		case !ok:
			return one(KindTracker, "", ph, fmt.Errorf("the cast claim names %s, which has no valid ballot", ph))
		case hex.EncodeToString(c.Tracker[:]) != k:
			return one(KindTracker, "", ph, fmt.Errorf("the cast claim names %s, whose ballot has tracker %x", ph, c.Tracker))
		}
		return nil
	}
	s, err := election.ParseSpoiledBallot(value)
	if err != nil {
		return one(KindSpoiled, election.CodeOf(err), "", err)
	}
	if got := s.TrackerHex(); got != k {
		return one(KindSpoiled, "", "", fmt.Errorf("the spoiled ballot's tracker is %s, not its key's", got))
	}
	if _, err := p.CheckSpoiled(s); err != nil {
		return one(KindSpoiled, election.CodeOf(err), "", err)
	}
	return nil
}

// checkClaimed is V32's rule 4: the ballot's tracker key holds its own
// cast claim.
func checkClaimed(c CastTracker, first map[string]TrackerWrite) []Failure {
	k := hex.EncodeToString(c.Tracker[:])
	w, ok := first[k]
	one := func(code, format string, args ...any) []Failure {
		return []Failure{{Kind: KindTracker, Code: code, Subject: c.Subject, Pseudonym: c.Pseudonym, Err: fmt.Sprintf(format, args...)}}
	}
	switch {
	case !ok || w.Deleted:
		return one("", "no cast claim under its tracker %s", k)
	case !IsCastClaim(w.Value):
		return one(election.CodeSpoiled, "its tracker %s is a spoiled ballot's: an opened ballot was cast", k)
	}
	claim, err := election.ParseTrackerClaim(w.Value)
	if err == nil && claim.CastHex() != c.Pseudonym {
		return one(election.CodeDuplicate, "its tracker %s is claimed by %s", k, claim.CastHex())
	}
	return nil
}
