//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/gateway"
	"github.com/fabvote/fabvote/internal/nettest"
)

// rejectionCases are the casts and calls the chaincode must refuse while
// the main election's window is open, with what they need: the election
// (m, p), the authority's key for tokens, the first offline voter and its
// cast ballot, and the siblings that are not yet open (early) and closed
// (late). Each case leaves the ledger as it found it, so one failing case
// does not stop the others.
type rejectionCases struct {
	e           *env
	c           context.Context
	m           *election.Manifest
	p           *election.Prepared
	eaKey       *ecdsa.PrivateKey
	first       *offlineVoter
	firstCast   *election.Ballot
	firstBytes  []byte
	early, late *election.Manifest
}

func rejections(t *testing.T, e *env, m *election.Manifest, eaKey *ecdsa.PrivateKey, cast [][]byte, first *offlineVoter, early, late *election.Manifest) {
	p, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	r := &rejectionCases{e: e, c: ctx(t), m: m, p: p, eaKey: eaKey, first: first, early: early, late: late}
	r.firstCast, r.firstBytes = firstVotersBallot(t, cast, first)
	for _, tc := range []struct {
		name string
		run  func(*testing.T)
	}{
		{"double vote", r.doubleVote},
		{"before the window", func(t *testing.T) { r.outsideWindow(t, "vote before the window", r.early) }},
		{"after the window", func(t *testing.T) { r.outsideWindow(t, "vote after the window", r.late) }},
		{"token from another election", r.tokenOfAnotherElection},
		{"token for another key", r.tokenForAnotherKey},
		{"token not from the authority", r.tokenNotFromAuthority},
		{"ballot copied from another voter", r.copiedBallot},
		{"mauled proof", r.mauledProof},
		{"forged proof for a double-weight vote", r.forgedProof},
		{"bad signature", r.badSignature},
		{"non-authority opens an election", r.outsiderOpens},
		{"open the same election twice", r.openTwice},
		{"oversize payload", r.oversize},
		{"malformed input", r.malformed},
		{"unknown election", r.unknownElection},
		{"result before the window closes", r.resultDuringWindow},
	} {
		t.Run(tc.name, tc.run)
	}
}

// firstVotersBallot finds the first offline voter's ballot among the cast
// ones: the bulk generator writes ballots in completion order.
func firstVotersBallot(t *testing.T, cast [][]byte, first *offlineVoter) (*election.Ballot, []byte) {
	firstPub, _ := first.key.PublicKey.Bytes()
	var firstCast *election.Ballot
	var firstBytes []byte
	for _, raw := range cast {
		b, err := election.ParseBallot(raw)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(b.VoterPub, firstPub) {
			firstCast, firstBytes = b, raw
		}
	}
	if firstCast == nil {
		t.Fatal("the first offline voter's ballot is not in the ballot stream")
	}
	return firstCast, firstBytes
}

// fresh is a new registered voter's valid ballot (for candidate 1), not
// cast: the cases alter it.
func (r *rejectionCases) fresh(t *testing.T) (*ecdsa.PrivateKey, []byte, *election.Ballot) {
	k, pub := nettest.VoterKey(t)
	b, err := r.p.NewBallot(rand.Reader, k, token(t, r.eaKey, r.m, pub), 1)
	if err != nil {
		t.Fatal(err)
	}
	return k, pub, b
}

// notRecorded asserts that the voter has no ballot in election id.
func (r *rejectionCases) notRecorded(t *testing.T, what, id, pseudonym string) {
	t.Helper()
	_, err := r.e.voter.GetBallot(r.c, id, pseudonym)
	var re *gateway.RejectError
	if !errors.As(err, &re) || re.Code != election.CodeNotFound {
		t.Fatalf("%s: the ledger holds a ballot for the voter (GetBallot err %v)", what, err)
	}
}

// unchanged asserts that the election still holds exactly the cast ballots.
func (r *rejectionCases) unchanged(t *testing.T, what string) {
	t.Helper()
	n, err := r.e.voter.CountBallots(r.c, r.m.ElectionID)
	if err != nil || n != voters {
		t.Fatalf("%s: the election holds %d ballots (%v), want the %d cast before", what, n, err, voters)
	}
}

// refusedCast signs b with k, casts it, and requires the rejection code
// and no ballot of the voter pub in the main election.
func (r *rejectionCases) refusedCast(t *testing.T, what string, b *election.Ballot, k *ecdsa.PrivateKey, pub []byte, code string) {
	t.Helper()
	_, err := r.e.voter.CastBallot(r.c, resign(t, b, k))
	nettest.WantClearReject(t, what, err, code)
	r.notRecorded(t, what, r.m.ElectionID, pseudOf(t, r.m, pub))
}

// doubleVote: the same ballot again, and a second ballot of the same
// registered voter, are DUPLICATE, through the client and the CLI, and the
// stored ballot stays.
func (r *rejectionCases) doubleVote(t *testing.T) {
	id, pseud := r.m.ElectionID, r.firstCast.PseudonymHex()
	before, err := r.e.voter.GetBallot(r.c, id, pseud)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.e.voter.CastBallot(r.c, r.firstBytes)
	nettest.WantClearReject(t, "the same ballot again", err, election.CodeDuplicate)
	// The same registered voter, a new ballot for another candidate.
	again, err := r.p.NewBallot(rand.Reader, r.first.key, r.first.token, 3)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.e.voter.CastBallot(r.c, again.Marshal())
	nettest.WantClearReject(t, "a second ballot of the same voter", err, election.CodeDuplicate)
	after, err := r.e.voter.GetBallot(r.c, id, pseud)
	if err != nil || after.BallotHash != before.BallotHash || after.TxID != before.TxID {
		t.Fatalf("the stored ballot changed: %+v -> %+v (%v)", before, after, err)
	}
	// Through the CLI too: exit status 1 and the code in the message.
	os.WriteFile(r.e.path("dup.bin"), r.firstBytes, 0o600)
	out, code := r.e.Run(t, "cast", "--network", r.e.netPath, "--ballot", r.e.path("dup.bin"))
	if code != 1 || !strings.Contains(out, "fabvote DUPLICATE:") {
		t.Fatalf("CLI double vote: exit %d\n%s", code, out)
	}
}

// outsideWindow casts a valid ballot of sibling election sib, whose window
// is not open: refused as WINDOW, and not recorded.
func (r *rejectionCases) outsideWindow(t *testing.T, what string, sib *election.Manifest) {
	sp, _ := election.Prepare(sib)
	k, pub := nettest.VoterKey(t)
	b, err := sp.NewBallot(rand.Reader, k, token(t, r.eaKey, sib, pub), 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.e.voter.CastBallot(r.c, b.Marshal())
	nettest.WantClearReject(t, what, err, election.CodeWindow)
	r.notRecorded(t, what, sib.ElectionID, b.PseudonymHex())
}

func (r *rejectionCases) tokenOfAnotherElection(t *testing.T) {
	k, pub, b := r.fresh(t)
	b.Token = token(t, r.eaKey, r.early, pub)
	r.refusedCast(t, "token of another election", b, k, pub, election.CodeToken)
}

func (r *rejectionCases) tokenForAnotherKey(t *testing.T) {
	k, pub, b := r.fresh(t)
	_, otherPub := nettest.VoterKey(t)
	b.Token = token(t, r.eaKey, r.m, otherPub)
	r.refusedCast(t, "token of another key", b, k, pub, election.CodeToken)
	r.notRecorded(t, "token of another key", r.m.ElectionID, pseudOf(t, r.m, otherPub))
}

func (r *rejectionCases) tokenNotFromAuthority(t *testing.T) {
	k, pub, b := r.fresh(t)
	rogue, _ := nettest.VoterKey(t)
	b.Token = token(t, rogue, r.m, pub)
	r.refusedCast(t, "token signed by a non-authority key", b, k, pub, election.CodeToken)
}

// copiedBallot: a registered voter takes a cast ballot's ciphertext and
// proof as their own; the proof binds the original voter's key, so it
// fails.
// copiedBallot: another voter's ciphertext and proof under a new voter's
// key. Copied from a ballot not cast, the proof, which binds its voter's
// key, does not verify (PROOF: the Helios replay attack); copied from a
// cast ballot, the ciphertext is already claimed (DUPLICATE), which the
// contract checks before the proof.
func (r *rejectionCases) copiedBallot(t *testing.T) {
	_, _, source := r.fresh(t)
	k, pub, b := r.fresh(t)
	b.Ciphertext, b.Proof = source.Ciphertext, source.Proof
	r.refusedCast(t, "ciphertext and proof copied from a ballot not cast", b, k, pub, election.CodeProof)
	k, pub, b = r.fresh(t)
	b.Ciphertext, b.Proof = r.firstCast.Ciphertext, r.firstCast.Proof
	r.refusedCast(t, "ciphertext and proof copied from a cast ballot", b, k, pub, election.CodeDuplicate)
}

func (r *rejectionCases) mauledProof(t *testing.T) {
	k, pub, b := r.fresh(t)
	b.Proof[len(b.Proof)/2] ^= 0x01
	r.refusedCast(t, "mauled proof", b, k, pub, election.CodeProof)
}

// forgedProof encrypts 2 votes for candidate 0 and attaches the proof of an
// honest ballot of the same voter: a cheater's best try without a real
// proof.
func (r *rejectionCases) forgedProof(t *testing.T) {
	k, pub, b := r.fresh(t)
	c2, _, err := r.p.PublicKey.Encrypt(rand.Reader, big.NewInt(2))
	if err != nil {
		t.Fatal(err)
	}
	b.Ciphertext = r.p.PublicKey.EncodeCiphertext(c2)
	r.refusedCast(t, "forged proof", b, k, pub, election.CodeProof)
}

func (r *rejectionCases) badSignature(t *testing.T) {
	_, pub, b := r.fresh(t)
	other, _ := nettest.VoterKey(t)
	r.refusedCast(t, "signature by another key", b, other, pub, election.CodeSignature)
}

func (r *rejectionCases) outsiderOpens(t *testing.T) {
	if r.e.outsider == nil {
		t.Skip("the network has one org only (solo-org); run e2e on three-orgs for this case")
	}
	s, sb := sibling(t, r.m, r.m.ElectionID+"-party", time.Now(), time.Now().Add(time.Hour))
	_, err := r.e.outsider.OpenElection(r.c, sb)
	nettest.WantClearReject(t, "OpenElection by a party org", err, election.CodeAccess)
	_, err = r.e.voter.GetManifest(r.c, s.ElectionID)
	var re *gateway.RejectError
	if !errors.As(err, &re) || re.Code != election.CodeNoElection {
		t.Fatalf("after the refused open, GetManifest: %v; want NO_ELECTION", err)
	}
}

func (r *rejectionCases) openTwice(t *testing.T) {
	mb, _ := r.m.Marshal()
	_, err := r.e.ea.OpenElection(r.c, mb)
	nettest.WantClearReject(t, "second OpenElection", err, election.CodeExists)
	got, err := r.e.voter.GetManifest(r.c, r.m.ElectionID)
	if err != nil || !bytes.Equal(got, mb) {
		t.Fatalf("the manifest on the ledger changed (%v)", err)
	}
}

func (r *rejectionCases) oversize(t *testing.T) {
	big := make([]byte, election.MaxBallotSize+1)
	big[0] = election.BallotVersion
	_, err := r.e.voter.CastBallot(r.c, big)
	nettest.WantClearReject(t, "oversize ballot", err, election.CodeSize)
	huge := bytes.Repeat([]byte("A"), 4*election.MaxBallotSize)
	_, err = r.e.voter.CastBallot(r.c, huge)
	nettest.WantClearReject(t, "oversize base64 ballot", err, election.CodeSize)
	r.unchanged(t, "oversize payload")
}

func (r *rejectionCases) malformed(t *testing.T) {
	_, pub, b := r.fresh(t)
	enc := b.Marshal()
	cases := map[string][]byte{
		"truncated ballot":   enc[:len(enc)-10],
		"trailing bytes":     append(append([]byte(nil), enc...), 0),
		"not base64 text":    []byte("this is not a ballot"),
		"old version byte 1": append([]byte{1}, enc[1:]...),
	}
	for name, in := range cases {
		_, err := r.e.voter.CastBallot(r.c, in)
		nettest.WantClearReject(t, name, err, election.CodeDecode)
	}
	r.notRecorded(t, "malformed input", r.m.ElectionID, pseudOf(t, r.m, pub))
	r.unchanged(t, "malformed input")
	// A bad query argument is named too.
	_, err := r.e.voter.GetBallot(r.c, r.m.ElectionID, "not-hex")
	nettest.WantClearReject(t, "GetBallot with a bad hash", err, election.CodeArgument)
}

func (r *rejectionCases) unknownElection(t *testing.T) {
	_, _, b := r.fresh(t)
	k, _ := nettest.VoterKey(t)
	b.ElectionID = r.m.ElectionID + "-nope"
	_, err := r.e.voter.CastBallot(r.c, resign(t, b, k))
	nettest.WantClearReject(t, "ballot for an unknown election", err, election.CodeNoElection)
	_, err = r.e.voter.GetManifest(r.c, b.ElectionID)
	nettest.WantClearReject(t, "the unknown election after the refused ballot", err, election.CodeNoElection)
	r.unchanged(t, "ballot for an unknown election")
}

// resultDuringWindow submits a correct result of the ballots cast so far,
// decrypted by two trustees, while the window is open.
func (r *rejectionCases) resultDuringWindow(t *testing.T) {
	early := earlyResult(t, r.e, r.m)
	if left := time.Until(r.m.End); left < 10*time.Second {
		t.Fatalf("only %s of the voting window is left: raise the test's window constant", left.Round(time.Second))
	}
	_, err := r.e.ea.PublishResult(r.c, early)
	nettest.WantClearReject(t, "result during the voting window", err, election.CodeWindow)
	if res, err := r.e.voter.GetResult(r.c, r.m.ElectionID); err != nil || res != nil {
		t.Fatalf("after the refused publish, GetResult = %.80q, %v; want none", res, err)
	}
	r.unchanged(t, "result during the voting window")
}

// publishCases are the results the chaincode must refuse after the window
// has closed and before the real result (good) is published. Each case
// reads the result key afterwards: nothing may be written.
type publishCases struct {
	e        *env
	c        context.Context
	id       string
	good     []byte
	res      *election.Result // good, parsed
	from, to int              // a candidate with at least one vote, and another one
}

func publishRejections(t *testing.T, e *env, id string, good []byte, want []uint64) {
	res, err := election.ParseResult(good)
	if err != nil {
		t.Fatal(err)
	}
	pc := &publishCases{e: e, c: ctx(t), id: id, good: good, res: res}
	for want[pc.from] == 0 {
		pc.from++
	}
	pc.to = (pc.from + 1) % len(want)
	t.Run("non-authority publishes", pc.outsiderPublishes)
	t.Run("counts moved between candidates", pc.countsMoved)
	t.Run("ballot count short by one", pc.countShort)
	t.Run("malformed result", pc.malformed)
}

// noResult asserts that no result is on the ledger.
func (pc *publishCases) noResult(t *testing.T, what string) {
	t.Helper()
	if r, err := pc.e.voter.GetResult(pc.c, pc.id); err != nil || r != nil {
		t.Fatalf("%s: after the refused publish, GetResult = %.80q, %v; want none", what, r, err)
	}
}

// tampered is the good result with edit applied, encoded.
func (pc *publishCases) tampered(t *testing.T, edit func(r *election.Result)) []byte {
	r := *pc.res
	r.Contests = []election.ContestResult{pc.res.Contests[0]}
	r.Contests[0].Counts = append([]uint64(nil), pc.res.Contests[0].Counts...)
	edit(&r)
	b, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// outsiderPublishes: a party org (neither authority nor trustee) submits
// the correct result.
func (pc *publishCases) outsiderPublishes(t *testing.T) {
	if pc.e.outsider == nil {
		t.Skip("the network has one org only (solo-org); run e2e on three-orgs for this case")
	}
	_, err := pc.e.outsider.PublishResult(pc.c, pc.good)
	nettest.WantClearReject(t, "result published by a party org", err, election.CodeAccess)
	pc.noResult(t, "result published by a party org")
}

// countsMoved: same sum and ballot count, one vote moved; the tally's
// digits disagree.
func (pc *publishCases) countsMoved(t *testing.T) {
	b := pc.tampered(t, func(r *election.Result) { r.Contests[0].Counts[pc.from]--; r.Contests[0].Counts[pc.to]++ })
	msg := nettest.WantClearReject(t, "tampered counts", nettest.Rejection(pc.e.ea.PublishResult(pc.c, b)), election.CodeResult)
	if !strings.Contains(msg, "but the tally says") {
		t.Fatalf("the rejection does not name the wrong count: %s", msg)
	}
	pc.noResult(t, "tampered counts")
}

// countShort: consistent on its own (counts sum to ballotCount) but one
// ballot short of the ledger; the chaincode counts the ledger's ballots
// itself.
func (pc *publishCases) countShort(t *testing.T) {
	b := pc.tampered(t, func(r *election.Result) { r.Contests[0].Counts[pc.from]--; r.Contests[0].Ballots--; r.BallotCount-- })
	msg := nettest.WantClearReject(t, "short ballot count", nettest.Rejection(pc.e.ea.PublishResult(pc.c, b)), election.CodeResult)
	if !strings.Contains(msg, fmt.Sprintf("the ledger holds %d ballots", voters)) {
		t.Fatalf("the rejection does not name the ledger's ballot count: %s", msg)
	}
	pc.noResult(t, "short ballot count")
}

func (pc *publishCases) malformed(t *testing.T) {
	cases := []struct {
		name string
		in   []byte
		code string
	}{
		{"not JSON", []byte("this is not a result"), election.CodeDecode},
		{"truncated JSON", pc.good[:len(pc.good)/2], election.CodeDecode},
		{"non-canonical encoding", append(append([]byte(nil), pc.good...), ' '), election.CodeDecode},
		{"oversize payload", bytes.Repeat([]byte("A"), election.MaxResultSize+1), election.CodeSize},
	}
	for _, tc := range cases {
		_, err := pc.e.ea.PublishResult(pc.c, tc.in)
		nettest.WantClearReject(t, tc.name, err, tc.code)
	}
	pc.noResult(t, "malformed result")
}
