//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/ballotclient"
	"github.com/fabvote/fabvote/internal/chain"
	"github.com/fabvote/fabvote/internal/easigner"
	"github.com/fabvote/fabvote/internal/gateway"
	"github.com/fabvote/fabvote/internal/nettest"
	"github.com/hyperledger/fabric-gateway/pkg/client"
)

const (
	voters = 50
	// window is how long the main election accepts ballots; everything that
	// needs the window open (50 casts, the rejection cases) must fit in it.
	window = 90 * time.Second
)

type env struct {
	nettest.CLI                  // the fabvote binary, run in the test's directory
	el          nettest.Election // the main election, in that directory
	netPath     string           // network.json of the running network
	net         *gateway.Network
	ea          *ballotclient.Client // authority admin
	voter       *ballotclient.Client // the gateway identity that submits voters' ballots
	outsider    *ballotclient.Client // a party org's identity (nil in solo-org)
}

// setup connects to the network scripts/e2e.sh started, or skips the test
// when it runs outside `make e2e-test`.
func setup(t *testing.T) *env {
	netPath := os.Getenv("FABVOTE_E2E_NETWORK")
	bin := os.Getenv("FABVOTE_BIN")
	if netPath == "" || bin == "" {
		t.Skip("FABVOTE_E2E_NETWORK and FABVOTE_BIN are not set: run `make e2e-test`, which starts a network")
	}
	net, err := gateway.LoadNetwork(netPath)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	e := &env{CLI: nettest.CLI{Bin: bin, Dir: dir}, netPath: netPath, net: net}
	e.ea = e.connect(t, "EAMSP", "admin")
	e.voter = e.connect(t, "EAMSP", "user1")
	for _, o := range net.Orgs {
		if o.MSPID != "EAMSP" {
			e.outsider = e.connect(t, o.MSPID, "user1")
			break
		}
	}
	return e
}

func (e *env) connect(t *testing.T, msp, id string) *ballotclient.Client {
	c, err := gateway.Connect(e.net, gateway.Options{Org: msp, Identity: id})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return ballotclient.New(c)
}

func (e *env) path(p string) string { return filepath.Join(e.Dir, p) }

// ctx bounds the network calls of one test or step by the suite's timeout.
func ctx(t *testing.T) context.Context { return nettest.Context(t, 20*time.Minute) }

// sibling returns a copy of m under another id and window (same keys).
func sibling(t *testing.T, m *election.Manifest, id string, start, end time.Time) (*election.Manifest, []byte) {
	c := *m
	c.ElectionID, c.Title = id, id
	c.Start, c.End = start.UTC().Truncate(time.Second), end.UTC().Truncate(time.Second)
	b, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return &c, b
}

// pseudKey is the election's K_pseud (el/pseudonym.key), loaded by TestElection.
var pseudKey []byte

// voterIDOf is the roll id the test gives the holder of pub.
func voterIDOf(pub []byte) string {
	h := sha256.Sum256(pub)
	return "e2e-voter-" + hex.EncodeToString(h[:8])
}

// token mints, with signer as the authority's key, the token of roll id
// voterIDOf(pub) for pub in the election of m.
func token(t *testing.T, signer *ecdsa.PrivateKey, m *election.Manifest, pub []byte) []byte {
	return tokenFor(t, signer, m, voterIDOf(pub), pub)
}

// tokenFor mints the token of roll id voterID for pub: what the registrar
// does, directly with the authority key and the pseudonym key.
func tokenFor(t *testing.T, signer *ecdsa.PrivateKey, m *election.Manifest, voterID string, pub []byte) []byte {
	p, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := election.Pseudonym(pseudKey, m.ElectionID, voterID)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := p.IssueToken(rand.Reader, signer, ps, 0, pub)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// pseudOf is the hex pseudonym (ballot key) of the holder of pub in m.
func pseudOf(t *testing.T, m *election.Manifest, pub []byte) string {
	ps, err := election.Pseudonym(pseudKey, m.ElectionID, voterIDOf(pub))
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(ps[:])
}

func resign(t *testing.T, b *election.Ballot, k *ecdsa.PrivateKey) []byte {
	if err := b.Sign(k); err != nil {
		t.Fatal(err)
	}
	return b.Marshal()
}

// TestElection runs a whole election on the network, step by step: every
// step needs what the steps before it left on the ledger, so a failed step
// ends the test (t.Fatal), except the subtests, which each check one
// property and leave the election as they found it.
func TestElection(t *testing.T) {
	s := &electionRun{env: setup(t), c: ctx(t), id: fmt.Sprintf("e2e-%d", time.Now().Unix())}
	s.create(t)
	s.generateBallots(t)
	s.open(t)
	s.openSiblings(t)
	s.castAll(t)
	s.withholdEndorsement(t)
	// One ballot per voter id, and a ballot deleted before the result, in a
	// sibling election (the main election's counts stay the voters' choices).
	s.tamper = tamperDuringWindow(t, s.env, s.m, s.eaKey)
	s.rejectDuringWindow(t)
	s.refuseDecryptionDuringWindow(t)
	s.decryptAfterWindow(t)
	s.publish(t)
	s.submitWithheld(t)
	s.checkPublishedCounts(t)
	s.audit(t)

	// The election record, exported from a peer, verifies offline with the
	// same counts, and fails with its kind when tampered with.
	t.Run("election record", func(t *testing.T) { recordChecks(t, s.env, s.id) })
	// The ballot deleted before the sibling's result is reported.
	t.Run("ballot deleted before the result", func(t *testing.T) { tamperAfterWindow(t, s.env, s.tamper) })
	// Every org's peer validated all of it alike (docs/PROTOCOL.md 7.11),
	// the invalid ballots of the rejection cases included.
	t.Run("peers of every org agree", func(t *testing.T) { peersAgree(t, s.env, s.id, s.opening) })
}

// electionRun is what TestElection's steps hand on to each other.
type electionRun struct {
	*env
	c       context.Context
	id      string
	mPath   string             // the manifest file, rewritten by `election open`
	m       *election.Manifest // the manifest as opened
	eaKey   *ecdsa.PrivateKey
	want    []uint64 // the counts of the voters' choices
	ballots [][]byte // the cast ballots, in stream order
	first   *offlineVoter
	opening uint64 // the chain height before the election was opened

	early, late *election.Manifest // siblings: not yet open, already closed
	held        withheldBallot
	tamper      *tamperElection
	result      []byte // the correct result, before it is published
	published   []byte // the result as the ledger holds it
}

// withheldBallot is a valid ballot endorsed inside the window and submitted
// only after the result is published (docs/PROTOCOL.md 7.7).
type withheldBallot struct {
	ballot *election.Ballot
	tx     *client.Transaction
}

// count is the number of ballots election eid holds on the ledger.
func (s *electionRun) count(t *testing.T, eid string) int {
	n, err := s.voter.CountBallots(s.c, eid)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// create: the authority creates the election (3 trustees, any 2 decrypt),
// each trustee making its own age key and the dealer sealing share i to
// trustee i; no directory may then hold two usable shares.
func (s *electionRun) create(t *testing.T) {
	s.el = nettest.CreateElection(t, s.CLI, s.id, 1000, "--channel", s.net.Channel)
	s.mPath = s.el.Manifest()
	if pm, err := election.Prepare(nettest.ReadManifest(t, s.mPath)); err != nil {
		t.Fatal(err)
	} else {
		checkSharesApart(t, s.env, nettest.Trustees, pm.Threshold)
	}
	var err error
	if s.eaKey, err = easigner.LoadPEM(s.el.EAKey()); err != nil {
		t.Fatal(err)
	}
	if pseudKey, err = easigner.LoadPseudonymKey(s.el.PseudonymKey()); err != nil {
		t.Fatal(err)
	}
}

// generateBallots: the test decides every voter's choice and generates the
// ballots in bulk.
func (s *electionRun) generateBallots(t *testing.T) {
	var choiceLines []string
	s.want = make([]uint64, 4)
	for i := 0; i < voters; i++ {
		ch := (i * 7 / 5) % 4 // deterministic, uneven
		s.want[ch]++
		choiceLines = append(choiceLines, strconv.Itoa(ch))
	}
	if err := os.WriteFile(s.path("choices.txt"), []byte(strings.Join(choiceLines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s.ballots = s.el.GenerateBallots(t, s.CLI, voters, s.path("choices.txt"))
	s.first = readVoter(t, s.el.Path("voters.jsonl"))
}

// open opens the election with a window that covers the casts and the
// rejection cases; a second open is refused and leaves the manifest file
// alone. The chain's height before it is where the determinism check
// starts reading.
func (s *electionRun) open(t *testing.T) {
	var err error
	if s.opening, err = s.voter.Conn.Height(s.c); err != nil {
		t.Fatal(err)
	}
	s.Must(t, "election", "open", "--network", s.netPath, "--manifest", s.mPath, "--start", "-5s", "--end", "+"+window.String())
	s.m = nettest.ReadManifest(t, s.mPath)
	if out, code := s.Run(t, "election", "open", "--network", s.netPath, "--manifest", s.mPath, "--end", "+1h"); code != 1 || !strings.Contains(out, "already open") {
		t.Fatalf("opening the election again: exit %d\n%s", code, out)
	}
	if again := nettest.ReadManifest(t, s.mPath); !again.End.Equal(s.m.End) {
		t.Fatal("a refused re-open rewrote the manifest file")
	}
}

// openSiblings opens sibling elections with the same keys: one not yet
// open, one already closed.
func (s *electionRun) openSiblings(t *testing.T) {
	var earlyBytes, lateBytes []byte
	s.early, earlyBytes = sibling(t, s.m, s.id+"-early", time.Now().Add(time.Hour), time.Now().Add(2*time.Hour))
	s.late, lateBytes = sibling(t, s.m, s.id+"-late", time.Now().Add(-2*time.Hour), time.Now().Add(-time.Hour))
	for _, b := range [][]byte{earlyBytes, lateBytes} {
		if _, err := s.ea.OpenElection(s.c, b); err != nil {
			t.Fatalf("opening a sibling election: %v", err)
		}
	}
}

// castAll casts every ballot through the CLI (real gateway, retries,
// receipts) and checks one receipt through the CLI.
func (s *electionRun) castAll(t *testing.T) {
	out := s.Must(t, "cast", "--network", s.netPath, "--ballots", s.el.Path("ballots.bin"), "--concurrency", "16",
		"--receipts-out", s.path("receipts.jsonl"), "--quiet")
	if !strings.Contains(out, fmt.Sprintf("%d committed, 0 not recorded", voters)) {
		t.Fatalf("cast output:\n%s", out)
	}
	t.Logf("cast: %s", nettest.FirstLine(out))
	if n := s.count(t, s.id); n != voters {
		t.Fatalf("ledger holds %d ballots after casting, want %d", n, voters)
	}
	receipt := nettest.FirstLine(readFile(t, s.path("receipts.jsonl")))
	os.WriteFile(s.path("r0.json"), []byte(receipt), 0o644)
	if out := s.Must(t, "receipt", "check", "--network", s.netPath, "--receipt", s.path("r0.json")); !strings.Contains(out, "OK: ") {
		t.Fatalf("receipt check: %s", out)
	}
}

// withholdEndorsement has a valid ballot endorsed now, inside the window;
// submitWithheld submits it after the result. Its choice (Carol) is not in
// want: it must not count.
func (s *electionRun) withholdEndorsement(t *testing.T) {
	p, err := election.Prepare(s.m)
	if err != nil {
		t.Fatal(err)
	}
	heldKey, heldPub := nettest.VoterKey(t)
	s.held.ballot, err = p.NewBallot(rand.Reader, heldKey, token(t, s.eaKey, s.m, heldPub), 2)
	if err != nil {
		t.Fatal(err)
	}
	proposal, err := s.voter.Conn.Gateway().GetNetwork(s.net.Channel).GetContract("ballot").
		NewProposal("CastBallot", client.WithBytesArguments(s.held.ballot.Marshal()))
	if err != nil {
		t.Fatal(err)
	}
	if s.held.tx, err = proposal.EndorseWithContext(s.c); err != nil {
		t.Fatalf("endorsing the withheld ballot: %v", err)
	}
}

// rejectDuringWindow runs every rejection case (a clear error at the
// client, and the ledger unchanged), then requires the audit to FAIL,
// naming the missing result, while none is published.
func (s *electionRun) rejectDuringWindow(t *testing.T) {
	t.Run("rejections", func(t *testing.T) { rejections(t, s.env, s.m, s.eaKey, s.ballots, s.first, s.early, s.late) })
	if n := s.count(t, s.id); n != voters {
		t.Fatalf("after the rejection cases the ledger holds %d ballots, want %d", n, voters)
	}
	for _, sib := range []*election.Manifest{s.early, s.late} {
		if n := s.count(t, sib.ElectionID); n != 0 {
			t.Fatalf("election %s holds %d ballots, want 0", sib.ElectionID, n)
		}
	}
	if out, code := s.Run(t, "verify", "--network", s.netPath, "--election", s.id); code != 1 ||
		!strings.Contains(out, "RESULT_MISSING") || !strings.Contains(out, "RESULT: FAIL") {
		t.Fatalf("verify before the result is published: exit %d, want 1 naming RESULT_MISSING\n%s", code, out)
	}
}

// refuseDecryptionDuringWindow: before the window closes, neither the tally
// command nor a trustee decrypts (the ledger's WindowClosed says false),
// and neither writes its output; the chaincode's own refusal of an early
// result is the rejection case "result before the window closes".
func (s *electionRun) refuseDecryptionDuringWindow(t *testing.T) {
	if out, code := s.Run(t, "tally", "--network", s.netPath, "--manifest", s.mPath, "--share", s.el.Share(1),
		"--age-identity", s.el.Identity(1), "--no-publish", "--result-out", s.path("early-by-cli.json")); code != 1 || !strings.Contains(out, "window closed") {
		t.Fatalf("tally during the window: exit %d, want 1 naming the window\n%s", code, out)
	}
	wantNoFile(t, "tally during the window", s.path("early-by-cli.json"))
	if out, code := s.Run(t, "trustee", "decrypt", "--network", s.netPath, "--manifest", s.mPath, "--share", s.el.Share(1),
		"--age-identity", s.el.Identity(1), "--out", s.path("early-p1.bin")); code != 1 || !strings.Contains(out, "window closed") {
		t.Fatalf("trustee decrypt during the window: exit %d, want 1 naming the window\n%s", code, out)
	}
	wantNoFile(t, "trustee decrypt during the window", s.path("early-p1.bin"))
	if got := s.windowClosed(t); got != "false" {
		t.Fatalf("WindowClosed during the window = %s, want false", got)
	}
}

// windowClosed is the peers' own answer, by the same rule as the result
// check.
func (s *electionRun) windowClosed(t *testing.T) string {
	out, err := s.voter.Conn.Evaluate(s.c, "WindowClosed", []byte(s.id))
	if err != nil {
		t.Fatalf("WindowClosed: %v", err)
	}
	return string(out)
}

// decryptAfterWindow waits for the window's end plus the clock skew on the
// peers' clocks; then each of trustees 2 and 3 recomputes the tally from
// the ledger on its own and decrypts it (--wait: until the ledger shows the
// window closed), and the trustee journal and identity checks run.
func (s *electionRun) decryptAfterWindow(t *testing.T) {
	time.Sleep(time.Until(s.m.ResultNotBefore()) + 3*time.Second)
	if got := s.windowClosed(t); got != "true" {
		t.Fatalf("WindowClosed after end + clock skew = %s, want true", got)
	}
	for _, i := range []int{2, 3} {
		s.Must(t, "trustee", "decrypt", "--network", s.netPath, "--manifest", s.mPath, "--share", s.el.Share(i),
			"--age-identity", s.el.Identity(i), "--out", s.path(fmt.Sprintf("p%d.bin", i)), "--wait", "--quiet")
	}
	trusteeJournalAndIdentity(t, s.env, s.m, s.mPath)
}

// publish: a partial of a ciphertext that is not the ledger's tally is
// refused by name and nothing is written; the correct result, built without
// publishing, goes through the publish rejections; then the tallier
// publishes it, and a second result is refused.
func (s *electionRun) publish(t *testing.T) {
	s.refuseForeignPartial(t)
	s.Must(t, "tally", "--network", s.netPath, "--manifest", s.mPath, "--partial", s.path("p2.bin"), "--partial", s.path("p3.bin"),
		"--no-publish", "--result-out", s.path("result.json"))
	s.result = []byte(readFile(t, s.path("result.json")))
	t.Run("publish rejections", func(t *testing.T) { publishRejections(t, s.env, s.id, s.result, s.want) })
	out := s.Must(t, "tally", "--network", s.netPath, "--manifest", s.mPath, "--partial", s.path("p2.bin"), "--partial", s.path("p3.bin"))
	t.Logf("tally:\n%s", out)
	var err error
	if s.published, err = s.voter.GetResult(s.c, s.id); err != nil || s.published == nil {
		t.Fatalf("GetResult after publishing: %q, %v", s.published, err)
	}
	t.Run("second result", func(t *testing.T) {
		_, err := s.ea.PublishResult(s.c, s.result)
		nettest.WantClearReject(t, "second result", err, election.CodeExists)
		if again, err := s.voter.GetResult(s.c, s.id); err != nil || !bytes.Equal(again, s.published) {
			t.Fatalf("the published result changed after a second publish (%v)", err)
		}
	})
}

// refuseForeignPartial brings a partial of one voter's ballot,
// re-randomised, to the tally: refused by name, and nothing is written.
func (s *electionRun) refuseForeignPartial(t *testing.T) {
	foreign := foreignPartial(t, s.env, s.m, 2)
	if out, code := s.Run(t, "tally", "--network", s.netPath, "--manifest", s.mPath, "--partial", foreign, "--partial", s.path("p3.bin"),
		"--no-publish", "--result-out", s.path("foreign-result.json"), "--quiet"); code != 1 ||
		!strings.Contains(out, "is not a decryption of the tally product recomputed from the ledger") {
		t.Fatalf("tally with a partial of a re-randomised ballot: exit %d\n%s", code, out)
	}
	wantNoFile(t, "tally with a foreign partial", s.path("foreign-result.json"))
	if r, err := s.voter.GetResult(s.c, s.id); err != nil || r != nil {
		t.Fatalf("after the refused tally, GetResult = %.80q, %v; want none", r, err)
	}
}

// submitWithheld submits the withheld ballot now. Fabric puts no expiry on
// an endorsement, so it commits after the result; the result is unchanged,
// and the receipt checks tell the late ballot from a counted one.
func (s *electionRun) submitWithheld(t *testing.T) {
	commit, err := s.held.tx.SubmitWithContext(s.c)
	if err != nil {
		t.Fatalf("submitting the withheld ballot: %v", err)
	}
	if st, err := commit.StatusWithContext(s.c); err != nil || !st.Successful {
		t.Fatalf("the withheld ballot did not commit after the result (status %+v, %v): update docs/PROTOCOL.md 7.7 and this test", st, err)
	}
	if n := s.count(t, s.id); n != voters+1 {
		t.Fatalf("ledger holds %d ballots after the withheld one committed, want %d", n, voters+1)
	}
	if again, err := s.voter.GetResult(s.c, s.id); err != nil || !bytes.Equal(again, s.published) {
		t.Fatalf("the published result changed when a late ballot committed (%v)", err)
	}
	s.checkReceiptsAfterResult(t)
}

// checkReceiptsAfterResult: the withheld voter's receipt check says the
// ballot is recorded but not counted; an ordinary voter's says it is
// counted.
func (s *electionRun) checkReceiptsAfterResult(t *testing.T) {
	heldReceipt, err := json.Marshal(election.Receipt{ElectionID: s.id, Pseudonym: s.held.ballot.PseudonymHex(),
		BallotHash: fmt.Sprintf("%x", election.BallotHash(s.held.ballot.Marshal())), TxID: s.held.tx.TransactionID()})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.path("held-receipt.json"), heldReceipt, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, code := s.Run(t, "receipt", "check", "--network", s.netPath, "--receipt", s.path("held-receipt.json")); code != 1 || !strings.Contains(out, "after the result") || !strings.Contains(out, "does NOT count it") {
		t.Fatalf("receipt check of the withheld ballot: exit %d, want 1 saying it is not counted\n%s", code, out)
	}
	if out := s.Must(t, "receipt", "check", "--network", s.netPath, "--receipt", s.path("r0.json")); !strings.Contains(out, "before the result") || !strings.Contains(out, "the result must count it") {
		t.Fatalf("receipt check of a counted ballot after the result:\n%s", out)
	}
}

// checkPublishedCounts: the published counts are the choices the test made.
func (s *electionRun) checkPublishedCounts(t *testing.T) {
	wantPublished(t, s.c, s.env, s.id, s.want, voters)
}

// wantPublished: election id's published result counts ballots ballots
// and, in its one contest, the counts want.
func wantPublished(t *testing.T, c context.Context, e *env, id string, want []uint64, ballots uint64) {
	rb, err := e.voter.GetResult(c, id)
	if err != nil || rb == nil {
		t.Fatalf("GetResult: %q, %v", rb, err)
	}
	res, err := election.ParseResult(rb)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if res.Contests[0].Counts[i] != want[i] {
			t.Fatalf("published counts %v, the voters chose %v", res.Contests[0].Counts, want)
		}
	}
	if res.BallotCount != ballots {
		t.Fatalf("ballot count %d, want %d", res.BallotCount, ballots)
	}
}

// audit: the independent audit passes, names the counts it checked and
// the late ballot, reads every block of the real chain, and fails when the
// expected counts or the auditor's manifest differ from the ledger's.
func (s *electionRun) audit(t *testing.T) {
	expect := fmt.Sprintf("%d,%d,%d,%d", s.want[0], s.want[1], s.want[2], s.want[3])
	out, code := s.Run(t, "verify", "--network", s.netPath, "--election", s.id, "--expect-counts", expect)
	if code != 0 || !strings.Contains(out, "RESULT: PASS") {
		t.Fatalf("verify: exit %d\n%s", code, out)
	}
	// It reads the commit order from the blocks and names the late ballot,
	// checked but not counted.
	lateLine := fmt.Sprintf("LATE ballot %s (tx %s)", s.held.ballot.PseudonymHex(), s.held.tx.TransactionID())
	if !strings.Contains(out, "1 ballot(s) committed after it") || !strings.Contains(out, lateLine) ||
		!strings.Contains(out, fmt.Sprintf("%d on the ledger, %d valid", voters+1, voters+1)) {
		t.Fatalf("verify does not report the withheld ballot as late (want %q):\n%s", lateLine, out)
	}
	t.Logf("verify:\n%s", out)
	s.walkChain(t)
	s.auditFailures(t)
}

// walkChain: the block decoder behind the audit reads every block of the
// real chain (the genesis and config blocks, lifecycle transactions,
// ballots, the result), their hashes link, and the withheld ballot is
// written once, validly.
func (s *electionRun) walkChain(t *testing.T) {
	height, err := s.voter.Conn.Height(s.c)
	if err != nil {
		t.Fatal(err)
	}
	heldWrites := 0
	var prevHash []byte
	for n := uint64(0); n < height; n++ {
		raw, err := s.voter.Conn.Block(s.c, n)
		if err != nil {
			t.Fatalf("reading block %d: %v", n, err)
		}
		b, err := chain.ParseBlock(raw)
		if err != nil {
			t.Fatalf("block %d of the real chain does not parse: %v", n, err)
		}
		if n > 0 && !bytes.Equal(b.PreviousHash, prevHash) {
			t.Fatalf("block %d's previous hash is not block %d's header hash as chain.ParseBlock computes it", n, n-1)
		}
		prevHash = b.Hash
		heldWrites += s.heldWritesIn(b)
	}
	if heldWrites != 1 {
		t.Fatalf("the chain holds %d valid writes of the withheld ballot, want 1", heldWrites)
	}
}

// heldWritesIn counts the valid writes of the withheld ballot in b.
func (s *electionRun) heldWritesIn(b *chain.Block) int {
	n := 0
	for _, tx := range b.Txs {
		for _, w := range tx.Writes {
			if tx.Valid && tx.ID == s.held.tx.TransactionID() && strings.HasPrefix(w.Key, election.LedgerKey(election.ObjBallot, s.id)) {
				n++
			}
		}
	}
	return n
}

// auditFailures: the audit fails, with exit 1, when the expected counts
// differ, and when the auditor's copy of the manifest is not the ledger's.
func (s *electionRun) auditFailures(t *testing.T) {
	wrong := fmt.Sprintf("%d,%d,%d,%d", s.want[0]+1, s.want[1], s.want[2], s.want[3])
	out, code := s.Run(t, "verify", "--network", s.netPath, "--election", s.id, "--expect-counts", wrong)
	if code != 1 || !strings.Contains(out, "RESULT: FAIL") || !strings.Contains(out, "EXPECTED_COUNTS") || !strings.Contains(out, "Alice") {
		t.Fatalf("verify with wrong expected counts: exit %d\n%s", code, out)
	}
	forged := *s.m
	forged.Title = "not the election on the ledger"
	fb, err := forged.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.path("forged-manifest.json"), fb, 0o644); err != nil {
		t.Fatal(err)
	}
	out, code = s.Run(t, "verify", "--network", s.netPath, "--manifest", s.path("forged-manifest.json"))
	if code != 1 || !strings.Contains(out, "RESULT: FAIL") || !strings.Contains(out, "[MANIFEST]") || !strings.Contains(out, "differs from the manifest on the ledger") {
		t.Fatalf("verify with a manifest that differs from the ledger's: exit %d\n%s", code, out)
	}
}

// offlineVoter is one line of `register --offline` output.
type offlineVoter struct {
	key   *ecdsa.PrivateKey
	token []byte
}

func readVoter(t *testing.T, path string) *offlineVoter {
	var l struct {
		VoterID string `json:"voterID"`
		Key     []byte `json:"key"`
		Token   []byte `json:"token"`
	}
	if err := json.Unmarshal([]byte(nettest.FirstLine(readFile(t, path))), &l); err != nil {
		t.Fatal(err)
	}
	k, err := x509.ParsePKCS8PrivateKey(l.Key)
	if err != nil {
		t.Fatal(err)
	}
	return &offlineVoter{key: k.(*ecdsa.PrivateKey), token: l.Token}
}

func readFile(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
