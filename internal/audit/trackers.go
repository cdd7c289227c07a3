package audit

import (
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/fabvote/fabvote/election"
)

// TrackerWrite is one valid write under the election's tracker prefix or
// its ciphertext claim prefix since the opening, in commit order.
type TrackerWrite struct {
	Rest    string // the key after the prefix ("<64 hex>\x00" for a tracker or claim key)
	Claim   bool   // under the ciphertext claim prefix (election.ObjCiphertext), not the tracker's
	TxID    string
	Block   uint64
	Index   int // the transaction's position in its block
	Deleted bool
	Value   []byte
}

// keyAttr is a tracker or claim key's rest: 64 lowercase hex digits and
// the composite key's separator.
var keyAttr = regexp.MustCompile(`^[0-9a-f]{64}\x00$`)

// firstWrite is a key's first write: its transaction and its value (nil
// for a deletion).
type firstWrite struct {
	txID  string
	value []byte
}

// heldBy is a holder of ciphertexts as its claims must name it: a valid
// cast ballot (ClaimCast, its pseudonym) or a valid spoiled ballot
// (ClaimSpoiled, its tracker).
type heldBy struct {
	claim     election.CiphertextClaim
	subject   string
	pseudonym string
	digests   [][32]byte
}

// CheckTrackers is docs/VERIFY.md V32: each tracker and claim key written
// once; each tracker key's first write a spoiled ballot under its own
// tracker whose opening checks; each claim canonical and on a ciphertext
// that a valid ballot or a spoiled ballot holds; and each valid ballot's
// and valid spoiled ballot's ciphertexts carrying the claim that names it
// (a valid ballot's only when the blocks hold any claim). A spoiled ballot
// is never under a ballot key: it cannot reach the product, whatever this
// check finds.
func CheckTrackers(p *election.Prepared, writes []TrackerWrite, cast []CastBallot) []Failure {
	var trackerWs, claimWs []TrackerWrite
	for _, w := range writes {
		if w.Claim {
			claimWs = append(claimWs, w)
		} else {
			trackerWs = append(trackerWs, w)
		}
	}
	fs, trackers := firstWrites("tracker", trackerWs)
	held := map[[32]byte]bool{}
	var holders []heldBy
	for _, k := range sortedKeys(trackers) {
		w := trackers[k]
		if w.value == nil {
			continue
		}
		h, f := checkSpoiledValue(p, k, "tracker "+k+" (tx "+w.txID+")", w.value, held)
		fs = append(fs, f...)
		if h != nil {
			holders = append(holders, *h)
		}
	}
	for _, c := range cast {
		for _, d := range c.Digests {
			held[d] = true
		}
	}
	claimFs, firsts := firstWrites("ciphertext", claimWs)
	fs = append(fs, claimFs...)
	claims, f := checkClaims(firsts, held)
	fs = append(fs, f...)
	if len(claimWs) > 0 { // blocks with no claim write are of a contract without ciphertext claims
		for _, c := range cast {
			h := heldBy{claim: election.CiphertextClaim{Kind: election.ClaimCast}, subject: c.Subject, pseudonym: c.Pseudonym, digests: c.Digests}
			if _, err := hex.Decode(h.claim.Holder[:], []byte(c.Pseudonym)); err == nil {
				fs = append(fs, checkHeld(h, claims)...)
			}
		}
	}
	for _, h := range holders {
		fs = append(fs, checkHeld(h, claims)...)
	}
	return fs
}

// firstWrites is V32's rule 1 on the keys under one prefix (what:
// "tracker" or "ciphertext"): its failures, and each well-formed key's
// first write by its attribute.
func firstWrites(what string, writes []TrackerWrite) ([]Failure, map[string]firstWrite) {
	var fs []Failure
	first := map[string]firstWrite{}
	fail := func(subject, format string, args ...any) {
		fs = append(fs, Failure{Kind: KindTracker, Subject: subject, Err: fmt.Sprintf(format, args...)})
	}
	for _, w := range writes {
		k := strings.TrimSuffix(w.Rest, "\x00")
		subject := what + " " + k + " (tx " + w.TxID + ")"
		if !keyAttr.MatchString(w.Rest) {
			fail(subject, "block %d writes a key under the %s prefix that is no %s key", w.Block, what, what)
			continue
		}
		_, again := first[k]
		switch {
		case w.Deleted:
			fail(subject, "the %s key is deleted (block %d); the contract never deletes one", what, w.Block)
		case again:
			fail(subject, "the %s key is written again (block %d); the contract writes it once", what, w.Block)
		}
		if !again {
			fw := firstWrite{txID: w.TxID}
			if !w.Deleted {
				fw.value = w.Value
			}
			first[k] = fw
		}
	}
	return fs, first
}

// checkSpoiledValue is V32's rule 3 on tracker k's first write: a spoiled
// ballot under its own tracker whose opening checks. The ciphertexts of
// one that decodes are held; one that passes is a holder.
func checkSpoiledValue(p *election.Prepared, k, subject string, value []byte, held map[[32]byte]bool) (*heldBy, []Failure) {
	one := func(err error) []Failure {
		return []Failure{{Kind: KindSpoiled, Code: election.CodeOf(err), Subject: subject, Err: err.Error()}}
	}
	s, err := election.ParseSpoiledBallot(value)
	if err != nil {
		return nil, one(err)
	}
	h := &heldBy{claim: *s.CiphertextClaim(), subject: subject}
	for _, c := range s.Ciphertexts {
		d := election.CiphertextDigest(c)
		held[d] = true
		h.digests = append(h.digests, d)
	}
	if got := s.TrackerHex(); got != k {
		return nil, []Failure{{Kind: KindSpoiled, Subject: subject, Err: fmt.Sprintf("the spoiled ballot's tracker is %s, not its key's", got)}}
	}
	if _, err := p.CheckSpoiled(s); err != nil {
		return nil, one(err)
	}
	return h, nil
}

// checkClaims is V32's rules 2 and 4 on each claim key's first write: it
// decodes, and its ciphertext is held. It returns the claims by digest,
// nil for one that does not decode.
func checkClaims(first map[string]firstWrite, held map[[32]byte]bool) (map[[32]byte]*election.CiphertextClaim, []Failure) {
	var fs []Failure
	claims := map[[32]byte]*election.CiphertextClaim{}
	for _, k := range sortedKeys(first) {
		w := first[k]
		if w.value == nil {
			continue
		}
		var d [32]byte
		hex.Decode(d[:], []byte(k)) // k matched keyAttr
		subject := "ciphertext " + k + " (tx " + w.txID + ")"
		c, err := election.ParseCiphertextClaim(w.value)
		claims[d] = c
		switch {
		case err != nil:
			fs = append(fs, Failure{Kind: KindTracker, Code: election.CodeOf(err), Subject: subject, Err: err.Error()})
		case !held[d]:
			f := Failure{Kind: KindTracker, Subject: subject,
				Err: fmt.Sprintf("the %s claim names %s, but no valid ballot and no spoiled ballot holds the ciphertext", c.Kind, c.HolderHex())}
			if c.Kind == election.ClaimCast {
				f.Pseudonym = c.HolderHex()
			}
			fs = append(fs, f)
		}
	}
	return claims, fs
}

// checkHeld is V32's rule 5 on a holder: each of its ciphertexts carries
// the claim naming it; the first that does not fails, once.
func checkHeld(h heldBy, claims map[[32]byte]*election.CiphertextClaim) []Failure {
	for i, d := range h.digests {
		c, ok := claims[d]
		if ok && (c == nil || *c == h.claim) { // a claim that does not decode failed rule 2
			continue
		}
		f := Failure{Kind: KindTracker, Subject: h.subject, Pseudonym: h.pseudonym}
		switch {
		case !ok:
			f.Err = fmt.Sprintf("no claim on its ciphertext %d (%x)", i, d)
		case c.Kind != h.claim.Kind:
			f.Code = map[election.ClaimKind]string{election.ClaimCast: election.CodeSpoiled, election.ClaimSpoiled: election.CodeCastOpened}[h.claim.Kind]
		default:
			f.Code = map[election.ClaimKind]string{election.ClaimCast: election.CodeDuplicate, election.ClaimSpoiled: election.CodeExists}[h.claim.Kind]
		}
		if ok {
			f.Err = fmt.Sprintf("its ciphertext %d (%x) is claimed by the %s ballot %s", i, d, c.Kind, c.HolderHex())
		}
		return []Failure{f}
	}
	return nil
}

// sortedKeys are m's keys in order, so that failures of equal sort keys
// come out in one order.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
