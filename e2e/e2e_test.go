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
	"errors"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/ballotclient"
	"github.com/fabvote/fabvote/internal/ballotstream"
	"github.com/fabvote/fabvote/internal/chain"
	"github.com/fabvote/fabvote/internal/easigner"
	"github.com/fabvote/fabvote/internal/gateway"
	"github.com/hyperledger/fabric-gateway/pkg/client"
)

const (
	voters     = 50
	candidates = "Alice,Bob,Carol,Dave"
	// window is how long the main election accepts ballots; everything that
	// needs the window open (50 casts, the rejection cases) must fit in it.
	window = 90 * time.Second
)

type env struct {
	t        *testing.T
	bin      string
	netPath  string
	net      *gateway.Network
	dir      string
	ea       *ballotclient.Client // authority admin
	voter    *ballotclient.Client // the gateway identity that submits voters' ballots
	outsider *ballotclient.Client // a party org's identity (nil in solo-org)
}

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
	e := &env{t: t, bin: bin, netPath: netPath, net: net, dir: t.TempDir()}
	e.ea = e.connect("EAMSP", "admin")
	e.voter = e.connect("EAMSP", "user1")
	for _, o := range net.Orgs {
		if o.MSPID != "EAMSP" {
			e.outsider = e.connect(o.MSPID, "user1")
			break
		}
	}
	return e
}

func (e *env) connect(msp, id string) *ballotclient.Client {
	c, err := gateway.Connect(e.net, gateway.Options{Org: msp, Identity: id})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { c.Close() })
	return ballotclient.New(c)
}

// fv runs the fabvote binary; it returns combined output and the exit code.
func (e *env) fv(args ...string) (string, int) {
	e.t.Helper()
	cmd := exec.Command(e.bin, args...)
	cmd.Dir = e.dir
	out, err := cmd.CombinedOutput()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatalf("fabvote %s: %v", strings.Join(args, " "), err)
	}
	return string(out), code
}

func (e *env) mustFV(args ...string) string {
	e.t.Helper()
	out, code := e.fv(args...)
	if code != 0 {
		e.t.Fatalf("fabvote %s: exit %d\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

func (e *env) path(p string) string { return filepath.Join(e.dir, p) }

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	t.Cleanup(cancel)
	return c
}

// wantReject asserts that err is the contract's rejection with code and
// returns its message.
func wantReject(t *testing.T, what string, err error, code string) string {
	t.Helper()
	var re *gateway.RejectError
	if !errors.As(err, &re) {
		t.Fatalf("%s: got %v, want a contract rejection %s", what, err, code)
	}
	if re.Code != code {
		t.Fatalf("%s: rejected with %s (%s), want %s", what, re.Code, re.Msg, code)
	}
	if !strings.Contains(re.Msg, "fabvote "+code+":") || len(re.Msg) < len("fabvote "+code+": ")+10 {
		t.Fatalf("%s: error message %q is not a clear one", what, re.Msg)
	}
	t.Logf("%s: rejected as expected: %s", what, re.Msg)
	return re.Msg
}

func readManifest(t *testing.T, path string) *election.Manifest {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := election.ParseManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

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

func newVoter(t *testing.T) (*ecdsa.PrivateKey, []byte) {
	k, err := easigner.GeneratePEM(filepath.Join(t.TempDir(), "v.key"))
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := k.PublicKey.Bytes()
	return k, pub
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
	tok, err := p.IssueToken(rand.Reader, signer, ps, pub)
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

func TestElection(t *testing.T) {
	e := setup(t)
	c := ctx(t)
	id := fmt.Sprintf("e2e-%d", time.Now().Unix())

	// 1. The authority creates the election (3 trustees, any 2 decrypt).
	// Each trustee makes its own age key; the dealer seals share i to trustee i.
	recipients := trusteeKeys(t, e, 3)
	e.mustFV("election", "create", "--id", id, "--candidates", candidates, "--max-voters", "1000",
		"--trustees", "3", "--threshold", "2", "--trustee-recipients", recipients, "--out", "el",
		"--channel", e.net.Channel, "--max-clock-skew", "2s") // one host: the peers share a clock
	mPath := e.path("el/manifest.json")
	if pm, err := election.Prepare(readManifest(t, mPath)); err != nil {
		t.Fatal(err)
	} else {
		checkSharesApart(t, e, 3, pm.Threshold)
	}
	eaKey, err := easigner.LoadPEM(e.path("el/ea.key"))
	if err != nil {
		t.Fatal(err)
	}
	if pseudKey, err = easigner.LoadPseudonymKey(e.path("el/pseudonym.key")); err != nil {
		t.Fatal(err)
	}

	// 2. The test decides every voter's choice and generates the ballots in bulk.
	var choiceLines []string
	want := make([]uint64, 4)
	for i := 0; i < voters; i++ {
		ch := (i * 7 / 5) % 4 // deterministic, uneven
		want[ch]++
		choiceLines = append(choiceLines, strconv.Itoa(ch))
	}
	if err := os.WriteFile(e.path("choices.txt"), []byte(strings.Join(choiceLines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.mustFV("register", "--offline", "--manifest", mPath, "--voters", strconv.Itoa(voters), "--ea-key", e.path("el/ea.key"),
		"--out", e.path("voters.jsonl"))
	e.mustFV("ballot", "--bulk", "--manifest", mPath, "--voters-file", e.path("voters.jsonl"),
		"--choices", e.path("choices.txt"), "--out", e.path("ballots.bin"), "--quiet")
	firstVoter := readVoter(t, e.path("voters.jsonl"))
	ballots := readStream(t, e.path("ballots.bin"))
	if len(ballots) != voters {
		t.Fatalf("bulk generation wrote %d ballots, want %d", len(ballots), voters)
	}

	// 3. Open, with a window that covers the casts and the rejection cases.
	// The chain's height now is where the determinism check starts reading.
	opening, err := e.voter.Conn.Height(c)
	if err != nil {
		t.Fatal(err)
	}
	e.mustFV("election", "open", "--network", e.netPath, "--manifest", mPath, "--start", "-5s", "--end", "+"+window.String())
	m := readManifest(t, mPath)
	if out, code := e.fv("election", "open", "--network", e.netPath, "--manifest", mPath, "--end", "+1h"); code != 1 || !strings.Contains(out, "already open") {
		t.Fatalf("opening the election again: exit %d\n%s", code, out)
	}
	if again := readManifest(t, mPath); !again.End.Equal(m.End) {
		t.Fatal("a refused re-open rewrote the manifest file")
	}

	// Sibling elections with the same keys: one not yet open, one already closed.
	early, earlyBytes := sibling(t, m, id+"-early", time.Now().Add(time.Hour), time.Now().Add(2*time.Hour))
	late, lateBytes := sibling(t, m, id+"-late", time.Now().Add(-2*time.Hour), time.Now().Add(-time.Hour))
	for _, b := range [][]byte{earlyBytes, lateBytes} {
		if _, err := e.ea.OpenElection(c, b); err != nil {
			t.Fatalf("opening a sibling election: %v", err)
		}
	}

	// 4. Cast all ballots through the CLI (real gateway, retries, receipts).
	out := e.mustFV("cast", "--network", e.netPath, "--ballots", e.path("ballots.bin"), "--concurrency", "16",
		"--receipts-out", e.path("receipts.jsonl"), "--quiet")
	if !strings.Contains(out, fmt.Sprintf("%d committed, 0 not recorded", voters)) {
		t.Fatalf("cast output:\n%s", out)
	}
	t.Logf("cast: %s", firstLine(out))
	count := func(eid string) int {
		n, err := e.voter.CountBallots(c, eid)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(id); n != voters {
		t.Fatalf("ledger holds %d ballots after casting, want %d", n, voters)
	}
	// A receipt checks out through the CLI.
	receipt := firstLine(readFile(t, e.path("receipts.jsonl")))
	os.WriteFile(e.path("r0.json"), []byte(receipt), 0o644)
	if out := e.mustFV("receipt", "check", "--network", e.netPath, "--receipt", e.path("r0.json")); !strings.Contains(out, "OK: ") {
		t.Fatalf("receipt check: %s", out)
	}

	// A withheld endorsement (docs/PROTOCOL.md 7.7): a valid ballot is
	// endorsed now, inside the window, and submitted only after the result
	// is published. Its choice (Carol) is not in want: it must not count.
	p, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	heldKey, heldPub := newVoter(t)
	heldBallot, err := p.NewBallot(rand.Reader, heldKey, token(t, eaKey, m, heldPub), 2)
	if err != nil {
		t.Fatal(err)
	}
	heldProposal, err := e.voter.Conn.Gateway().GetNetwork(e.net.Channel).GetContract("ballot").
		NewProposal("CastBallot", client.WithBytesArguments(heldBallot.Marshal()))
	if err != nil {
		t.Fatal(err)
	}
	heldTx, err := heldProposal.EndorseWithContext(c)
	if err != nil {
		t.Fatalf("endorsing the withheld ballot: %v", err)
	}

	// One ballot per voter id, and a ballot deleted before the result, in a
	// sibling election (the main election's counts stay the voters' choices).
	tamper := tamperDuringWindow(t, e, m, eaKey)

	// 5. Every rejection: a clear error at the client, and the ledger unchanged.
	t.Run("rejections", func(t *testing.T) { rejections(t, e, m, eaKey, ballots, firstVoter, early, late) })
	if n := count(id); n != voters {
		t.Fatalf("after the rejection cases the ledger holds %d ballots, want %d", n, voters)
	}
	for _, s := range []*election.Manifest{early, late} {
		if n := count(s.ElectionID); n != 0 {
			t.Fatalf("election %s holds %d ballots, want 0", s.ElectionID, n)
		}
	}

	// The audit FAILs, naming the missing result, while none is published.
	if out, code := e.fv("verify", "--network", e.netPath, "--election", id); code != 1 ||
		!strings.Contains(out, "RESULT_MISSING") || !strings.Contains(out, "RESULT: FAIL") {
		t.Fatalf("verify before the result is published: exit %d, want 1 naming RESULT_MISSING\n%s", code, out)
	}

	// 6. Before the window closes, neither the tally command nor a trustee
	// decrypts (the ledger's WindowClosed says false), and neither writes
	// its output; the chaincode's own refusal of an early result is the
	// rejection case "result before the window closes".
	if out, code := e.fv("tally", "--network", e.netPath, "--manifest", mPath, "--share", e.sharePath(1),
		"--age-identity", e.identityPath(1), "--no-publish", "--result-out", e.path("early-by-cli.json")); code != 1 || !strings.Contains(out, "window closed") {
		t.Fatalf("tally during the window: exit %d, want 1 naming the window\n%s", code, out)
	}
	wantNoFile(t, "tally during the window", e.path("early-by-cli.json"))
	if out, code := e.fv("trustee", "decrypt", "--network", e.netPath, "--manifest", mPath, "--share", e.sharePath(1),
		"--age-identity", e.identityPath(1), "--out", e.path("early-p1.bin")); code != 1 || !strings.Contains(out, "window closed") {
		t.Fatalf("trustee decrypt during the window: exit %d, want 1 naming the window\n%s", code, out)
	}
	wantNoFile(t, "trustee decrypt during the window", e.path("early-p1.bin"))

	// The peers' own answer, by the same rule as the result check.
	windowClosed := func() string {
		out, err := e.voter.Conn.Evaluate(c, "WindowClosed", []byte(id))
		if err != nil {
			t.Fatalf("WindowClosed: %v", err)
		}
		return string(out)
	}
	if got := windowClosed(); got != "false" {
		t.Fatalf("WindowClosed during the window = %s, want false", got)
	}

	// 7. After the window (end + clock skew on the peers' clocks).
	time.Sleep(time.Until(m.ResultNotBefore()) + 3*time.Second)
	if got := windowClosed(); got != "true" {
		t.Fatalf("WindowClosed after end + clock skew = %s, want true", got)
	}
	// Each trustee recomputes the tally from the
	// ledger on its own and decrypts it (--wait: until the ledger shows the
	// window closed); the tallier combines and publishes.
	for _, i := range []int{2, 3} {
		e.mustFV("trustee", "decrypt", "--network", e.netPath, "--manifest", mPath, "--share", e.sharePath(i),
			"--age-identity", e.identityPath(i), "--out", e.path(fmt.Sprintf("p%d.bin", i)), "--wait", "--quiet")
	}
	trusteeJournalAndIdentity(t, e, m, mPath)
	// A partial of a ciphertext that is not the ledger's tally (one voter's
	// ballot, re-randomised) is refused by name, and nothing is written.
	foreign := foreignPartial(t, e, m, 2)
	if out, code := e.fv("tally", "--network", e.netPath, "--manifest", mPath, "--partial", foreign, "--partial", e.path("p3.bin"),
		"--no-publish", "--result-out", e.path("foreign-result.json"), "--quiet"); code != 1 ||
		!strings.Contains(out, "is not a decryption of the tally product recomputed from the ledger") {
		t.Fatalf("tally with a partial of a re-randomised ballot: exit %d\n%s", code, out)
	}
	wantNoFile(t, "tally with a foreign partial", e.path("foreign-result.json"))
	if r, err := e.voter.GetResult(c, id); err != nil || r != nil {
		t.Fatalf("after the refused tally, GetResult = %.80q, %v; want none", r, err)
	}
	// The correct result, built without publishing: the rejection cases
	// below submit it (or a tampered copy) directly.
	e.mustFV("tally", "--network", e.netPath, "--manifest", mPath, "--partial", e.path("p2.bin"), "--partial", e.path("p3.bin"),
		"--no-publish", "--result-out", e.path("result.json"))
	resultBytes := []byte(readFile(t, e.path("result.json")))
	t.Run("publish rejections", func(t *testing.T) { publishRejections(t, e, id, resultBytes, want) })
	out = e.mustFV("tally", "--network", e.netPath, "--manifest", mPath, "--partial", e.path("p2.bin"), "--partial", e.path("p3.bin"))
	t.Logf("tally:\n%s", out)
	published, err := e.voter.GetResult(c, id)
	if err != nil || published == nil {
		t.Fatalf("GetResult after publishing: %q, %v", published, err)
	}
	t.Run("second result", func(t *testing.T) {
		_, err := e.ea.PublishResult(c, resultBytes)
		wantReject(t, "second result", err, election.CodeExists)
		if again, err := e.voter.GetResult(c, id); err != nil || !bytes.Equal(again, published) {
			t.Fatalf("the published result changed after a second publish (%v)", err)
		}
	})

	// The withheld ballot is submitted now. Fabric puts no expiry on an
	// endorsement, so it commits after the result; the result is unchanged.
	heldCommit, err := heldTx.SubmitWithContext(c)
	if err != nil {
		t.Fatalf("submitting the withheld ballot: %v", err)
	}
	if st, err := heldCommit.StatusWithContext(c); err != nil || !st.Successful {
		t.Fatalf("the withheld ballot did not commit after the result (status %+v, %v): update docs/PROTOCOL.md 7.7 and this test", st, err)
	}
	if n := count(id); n != voters+1 {
		t.Fatalf("ledger holds %d ballots after the withheld one committed, want %d", n, voters+1)
	}
	if again, err := e.voter.GetResult(c, id); err != nil || !bytes.Equal(again, published) {
		t.Fatalf("the published result changed when a late ballot committed (%v)", err)
	}

	// The withheld voter's receipt check says the ballot is recorded but
	// not counted; an ordinary voter's says it is counted.
	heldReceipt, err := json.Marshal(election.Receipt{ElectionID: id, Pseudonym: heldBallot.PseudonymHex(),
		BallotHash: fmt.Sprintf("%x", election.BallotHash(heldBallot.Marshal())), TxID: heldTx.TransactionID()})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.path("held-receipt.json"), heldReceipt, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, code := e.fv("receipt", "check", "--network", e.netPath, "--receipt", e.path("held-receipt.json")); code != 1 || !strings.Contains(out, "after the result") || !strings.Contains(out, "does NOT count it") {
		t.Fatalf("receipt check of the withheld ballot: exit %d, want 1 saying it is not counted\n%s", code, out)
	}
	if out := e.mustFV("receipt", "check", "--network", e.netPath, "--receipt", e.path("r0.json")); !strings.Contains(out, "before the result") || !strings.Contains(out, "the result must count it") {
		t.Fatalf("receipt check of a counted ballot after the result:\n%s", out)
	}

	// 8. The published counts are the choices the test made.
	rb, err := e.voter.GetResult(c, id)
	if err != nil || rb == nil {
		t.Fatalf("GetResult: %q, %v", rb, err)
	}
	res, err := election.ParseResult(rb)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if res.Counts[i] != want[i] {
			t.Fatalf("published counts %v, the voters chose %v", res.Counts, want)
		}
	}
	if res.BallotCount != voters {
		t.Fatalf("ballot count %d, want %d", res.BallotCount, voters)
	}

	// 9. The independent audit passes, and names the counts it checked.
	expect := fmt.Sprintf("%d,%d,%d,%d", want[0], want[1], want[2], want[3])
	out, code := e.fv("verify", "--network", e.netPath, "--election", id, "--expect-counts", expect)
	if code != 0 || !strings.Contains(out, "RESULT: PASS") {
		t.Fatalf("verify: exit %d\n%s", code, out)
	}
	// It reads the commit order from the blocks and names the late ballot,
	// checked but not counted.
	lateLine := fmt.Sprintf("LATE ballot %s (tx %s)", heldBallot.PseudonymHex(), heldTx.TransactionID())
	if !strings.Contains(out, "1 ballot(s) committed after it") || !strings.Contains(out, lateLine) ||
		!strings.Contains(out, fmt.Sprintf("%d on the ledger, %d valid", voters+1, voters+1)) {
		t.Fatalf("verify does not report the withheld ballot as late (want %q):\n%s", lateLine, out)
	}
	t.Logf("verify:\n%s", out)
	// The block decoder behind it reads every block of the real chain: the
	// genesis and config blocks, lifecycle transactions, ballots, the result.
	height, err := e.voter.Conn.Height(c)
	if err != nil {
		t.Fatal(err)
	}
	heldWrites := 0
	var prevHash []byte
	for n := uint64(0); n < height; n++ {
		raw, err := e.voter.Conn.Block(c, n)
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
		for _, tx := range b.Txs {
			for _, w := range tx.Writes {
				if tx.Valid && tx.ID == heldTx.TransactionID() && strings.HasPrefix(w.Key, election.LedgerKey(election.ObjBallot, id)) {
					heldWrites++
				}
			}
		}
	}
	if heldWrites != 1 {
		t.Fatalf("the chain holds %d valid writes of the withheld ballot, want 1", heldWrites)
	}
	// …and fails, with exit 1, when the expected counts differ.
	wrong := fmt.Sprintf("%d,%d,%d,%d", want[0]+1, want[1], want[2], want[3])
	out, code = e.fv("verify", "--network", e.netPath, "--election", id, "--expect-counts", wrong)
	if code != 1 || !strings.Contains(out, "RESULT: FAIL") || !strings.Contains(out, "EXPECTED_COUNTS") || !strings.Contains(out, "Alice") {
		t.Fatalf("verify with wrong expected counts: exit %d\n%s", code, out)
	}
	// …and when the auditor's copy of the manifest is not the ledger's.
	forged := *m
	forged.Title = "not the election on the ledger"
	fb, err := forged.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.path("forged-manifest.json"), fb, 0o644); err != nil {
		t.Fatal(err)
	}
	out, code = e.fv("verify", "--network", e.netPath, "--manifest", e.path("forged-manifest.json"))
	if code != 1 || !strings.Contains(out, "RESULT: FAIL") || !strings.Contains(out, "[MANIFEST]") || !strings.Contains(out, "differs from the manifest on the ledger") {
		t.Fatalf("verify with a manifest that differs from the ledger's: exit %d\n%s", code, out)
	}

	// …and its election record, exported from a peer, verifies offline
	// with the same counts, and fails with its kind when tampered with.
	t.Run("election record", func(t *testing.T) { recordChecks(t, e, id) })

	// 10. The ballot deleted before the sibling's result is reported.
	t.Run("ballot deleted before the result", func(t *testing.T) { tamperAfterWindow(t, e, tamper) })

	// 11. Every org's peer validated all of it alike (docs/PROTOCOL.md 7.11),
	// the invalid ballots of the rejection cases included.
	t.Run("peers of every org agree", func(t *testing.T) { peersAgree(t, e, id, opening) })
}

// publishRejections submits results that the chaincode must refuse, after
// the window has closed and before the real result is published. Each case
// reads the result key afterwards: nothing may be written.
func publishRejections(t *testing.T, e *env, id string, good []byte, want []uint64) {
	c := ctx(t)
	noResult := func(what string) {
		t.Helper()
		if r, err := e.voter.GetResult(c, id); err != nil || r != nil {
			t.Fatalf("%s: after the refused publish, GetResult = %.80q, %v; want none", what, r, err)
		}
	}
	res, err := election.ParseResult(good)
	if err != nil {
		t.Fatal(err)
	}
	// from is a candidate with at least one vote, to is another one.
	from := 0
	for want[from] == 0 {
		from++
	}
	to := (from + 1) % len(want)
	tampered := func(edit func(r *election.Result)) []byte {
		r := *res
		r.Counts = append([]uint64(nil), res.Counts...)
		edit(&r)
		b, err := r.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	t.Run("non-authority publishes", func(t *testing.T) {
		if e.outsider == nil {
			t.Skip("the network has one org only (solo-org); run e2e on three-orgs for this case")
		}
		// A party org (neither authority nor trustee) submits the correct result.
		_, err := e.outsider.PublishResult(c, good)
		wantReject(t, "result published by a party org", err, election.CodeAccess)
		noResult("result published by a party org")
	})

	t.Run("counts moved between candidates", func(t *testing.T) {
		// Same sum and ballot count, one vote moved: the tally's digits disagree.
		b := tampered(func(r *election.Result) { r.Counts[from]--; r.Counts[to]++ })
		msg := wantReject(t, "tampered counts", rejection(e.ea.PublishResult(c, b)), election.CodeResult)
		if !strings.Contains(msg, "but the tally says") {
			t.Fatalf("the rejection does not name the wrong count: %s", msg)
		}
		noResult("tampered counts")
	})

	t.Run("ballot count short by one", func(t *testing.T) {
		// Consistent on its own (counts sum to ballotCount) but one ballot short
		// of the ledger: the chaincode counts the ledger's ballots itself.
		b := tampered(func(r *election.Result) { r.Counts[from]--; r.BallotCount-- })
		msg := wantReject(t, "short ballot count", rejection(e.ea.PublishResult(c, b)), election.CodeResult)
		if !strings.Contains(msg, fmt.Sprintf("the ledger holds %d ballots", voters)) {
			t.Fatalf("the rejection does not name the ledger's ballot count: %s", msg)
		}
		noResult("short ballot count")
	})

	t.Run("malformed result", func(t *testing.T) {
		cases := []struct {
			name string
			in   []byte
			code string
		}{
			{"not JSON", []byte("this is not a result"), election.CodeDecode},
			{"truncated JSON", good[:len(good)/2], election.CodeDecode},
			{"non-canonical encoding", append(append([]byte(nil), good...), ' '), election.CodeDecode},
			{"oversize payload", bytes.Repeat([]byte("A"), election.MaxResultSize+1), election.CodeSize},
		}
		for _, tc := range cases {
			_, err := e.ea.PublishResult(c, tc.in)
			wantReject(t, tc.name, err, tc.code)
		}
		noResult("malformed result")
	})
}

// rejection drops a call's first result, for wantReject.
func rejection[T any](_ T, err error) error { return err }

func rejections(t *testing.T, e *env, m *election.Manifest, eaKey *ecdsa.PrivateKey, cast [][]byte, first *offlineVoter, early, late *election.Manifest) {
	c := ctx(t)
	p, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	fresh := func() (*ecdsa.PrivateKey, []byte, *election.Ballot) {
		k, pub := newVoter(t)
		b, err := p.NewBallot(rand.Reader, k, token(t, eaKey, m, pub), 1)
		if err != nil {
			t.Fatal(err)
		}
		return k, pub, b
	}
	// notRecorded asserts that the voter has no ballot in election id.
	notRecorded := func(what, id, pseudonym string) {
		_, err := e.voter.GetBallot(c, id, pseudonym)
		var re *gateway.RejectError
		if !errors.As(err, &re) || re.Code != election.CodeNotFound {
			t.Fatalf("%s: the ledger holds a ballot for the voter (GetBallot err %v)", what, err)
		}
	}
	// unchanged asserts that the election still holds exactly the cast ballots.
	unchanged := func(what string) {
		t.Helper()
		n, err := e.voter.CountBallots(c, m.ElectionID)
		if err != nil || n != voters {
			t.Fatalf("%s: the election holds %d ballots (%v), want the %d cast before", what, n, err, voters)
		}
	}
	// The bulk generator writes ballots in completion order: find the first voter's.
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

	t.Run("double vote", func(t *testing.T) {
		before, err := e.voter.GetBallot(c, m.ElectionID, firstCast.PseudonymHex())
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.voter.CastBallot(c, firstBytes)
		wantReject(t, "the same ballot again", err, election.CodeDuplicate)
		// The same registered voter, a new ballot for another candidate.
		again, err := p.NewBallot(rand.Reader, first.key, first.token, 3)
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.voter.CastBallot(c, again.Marshal())
		wantReject(t, "a second ballot of the same voter", err, election.CodeDuplicate)
		after, err := e.voter.GetBallot(c, m.ElectionID, firstCast.PseudonymHex())
		if err != nil || after.BallotHash != before.BallotHash || after.TxID != before.TxID {
			t.Fatalf("the stored ballot changed: %+v -> %+v (%v)", before, after, err)
		}
		// Through the CLI too: exit status 1 and the code in the message.
		os.WriteFile(e.path("dup.bin"), firstBytes, 0o600)
		out, code := e.fv("cast", "--network", e.netPath, "--ballot", e.path("dup.bin"))
		if code != 1 || !strings.Contains(out, "fabvote DUPLICATE:") {
			t.Fatalf("CLI double vote: exit %d\n%s", code, out)
		}
	})

	t.Run("before the window", func(t *testing.T) {
		ep, _ := election.Prepare(early)
		k, pub := newVoter(t)
		b, err := ep.NewBallot(rand.Reader, k, token(t, eaKey, early, pub), 0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.voter.CastBallot(c, b.Marshal())
		wantReject(t, "vote before the window", err, election.CodeWindow)
		notRecorded("vote before the window", early.ElectionID, b.PseudonymHex())
	})

	t.Run("after the window", func(t *testing.T) {
		lp, _ := election.Prepare(late)
		k, pub := newVoter(t)
		b, err := lp.NewBallot(rand.Reader, k, token(t, eaKey, late, pub), 0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.voter.CastBallot(c, b.Marshal())
		wantReject(t, "vote after the window", err, election.CodeWindow)
		notRecorded("vote after the window", late.ElectionID, b.PseudonymHex())
	})

	t.Run("token from another election", func(t *testing.T) {
		k, pub, b := fresh()
		b.Token = token(t, eaKey, early, pub)
		_, err := e.voter.CastBallot(c, resign(t, b, k))
		wantReject(t, "token of another election", err, election.CodeToken)
		notRecorded("token of another election", m.ElectionID, pseudOf(t, m, pub))
	})

	t.Run("token for another key", func(t *testing.T) {
		k, pub, b := fresh()
		_, otherPub := newVoter(t)
		b.Token = token(t, eaKey, m, otherPub)
		_, err := e.voter.CastBallot(c, resign(t, b, k))
		wantReject(t, "token of another key", err, election.CodeToken)
		notRecorded("token of another key", m.ElectionID, pseudOf(t, m, pub))
		notRecorded("token of another key", m.ElectionID, pseudOf(t, m, otherPub))
	})

	t.Run("token not from the authority", func(t *testing.T) {
		k, pub, b := fresh()
		rogue, _ := newVoter(t)
		b.Token = token(t, rogue, m, pub)
		_, err := e.voter.CastBallot(c, resign(t, b, k))
		wantReject(t, "token signed by a non-authority key", err, election.CodeToken)
		notRecorded("token signed by a non-authority key", m.ElectionID, pseudOf(t, m, pub))
	})

	t.Run("ballot copied from another voter", func(t *testing.T) {
		// A registered voter takes a cast ballot's ciphertext and proof as
		// their own: the proof binds the original voter's key, so it fails.
		k, pub, b := fresh()
		b.Ciphertext, b.Proof = firstCast.Ciphertext, firstCast.Proof
		_, err := e.voter.CastBallot(c, resign(t, b, k))
		wantReject(t, "copied ciphertext and proof", err, election.CodeProof)
		notRecorded("copied ciphertext and proof", m.ElectionID, pseudOf(t, m, pub))
	})

	t.Run("mauled proof", func(t *testing.T) {
		k, pub, b := fresh()
		b.Proof[len(b.Proof)/2] ^= 0x01
		_, err := e.voter.CastBallot(c, resign(t, b, k))
		wantReject(t, "mauled proof", err, election.CodeProof)
		notRecorded("mauled proof", m.ElectionID, pseudOf(t, m, pub))
	})

	t.Run("forged proof for a double-weight vote", func(t *testing.T) {
		// Encrypt 2 votes for candidate 0 and attach the proof of an honest
		// ballot of the same voter: a cheater's best try without a real proof.
		k, pub, b := fresh()
		c2, _, err := p.PublicKey.Encrypt(rand.Reader, big.NewInt(2))
		if err != nil {
			t.Fatal(err)
		}
		b.Ciphertext = p.PublicKey.EncodeCiphertext(c2)
		_, err = e.voter.CastBallot(c, resign(t, b, k))
		wantReject(t, "forged proof", err, election.CodeProof)
		notRecorded("forged proof", m.ElectionID, pseudOf(t, m, pub))
	})

	t.Run("bad signature", func(t *testing.T) {
		_, pub, b := fresh()
		other, _ := newVoter(t)
		_, err := e.voter.CastBallot(c, resign(t, b, other))
		wantReject(t, "signature by another key", err, election.CodeSignature)
		notRecorded("signature by another key", m.ElectionID, pseudOf(t, m, pub))
	})

	t.Run("non-authority opens an election", func(t *testing.T) {
		if e.outsider == nil {
			t.Skip("the network has one org only (solo-org); run e2e on three-orgs for this case")
		}
		s, sb := sibling(t, m, m.ElectionID+"-party", time.Now(), time.Now().Add(time.Hour))
		_, err := e.outsider.OpenElection(c, sb)
		wantReject(t, "OpenElection by a party org", err, election.CodeAccess)
		_, err = e.voter.GetManifest(c, s.ElectionID)
		var re *gateway.RejectError
		if !errors.As(err, &re) || re.Code != election.CodeNoElection {
			t.Fatalf("after the refused open, GetManifest: %v; want NO_ELECTION", err)
		}
	})

	t.Run("open the same election twice", func(t *testing.T) {
		mb, _ := m.Marshal()
		_, err := e.ea.OpenElection(c, mb)
		wantReject(t, "second OpenElection", err, election.CodeExists)
		got, err := e.voter.GetManifest(c, m.ElectionID)
		if err != nil || !bytes.Equal(got, mb) {
			t.Fatalf("the manifest on the ledger changed (%v)", err)
		}
	})

	t.Run("oversize payload", func(t *testing.T) {
		big := make([]byte, election.MaxBallotSize+1)
		big[0] = election.BallotVersion
		_, err := e.voter.CastBallot(c, big)
		wantReject(t, "oversize ballot", err, election.CodeSize)
		huge := bytes.Repeat([]byte("A"), 4*election.MaxBallotSize)
		_, err = e.voter.CastBallot(c, huge)
		wantReject(t, "oversize base64 ballot", err, election.CodeSize)
		unchanged("oversize payload")
	})

	t.Run("malformed input", func(t *testing.T) {
		_, pub, b := fresh()
		enc := b.Marshal()
		cases := map[string][]byte{
			"truncated ballot":   enc[:len(enc)-10],
			"trailing bytes":     append(append([]byte(nil), enc...), 0),
			"not base64 text":    []byte("this is not a ballot"),
			"old version byte 1": append([]byte{1}, enc[1:]...),
		}
		for name, in := range cases {
			_, err := e.voter.CastBallot(c, in)
			wantReject(t, name, err, election.CodeDecode)
		}
		notRecorded("malformed input", m.ElectionID, pseudOf(t, m, pub))
		unchanged("malformed input")
		// A bad query argument is named too.
		_, err := e.voter.GetBallot(c, m.ElectionID, "not-hex")
		wantReject(t, "GetBallot with a bad hash", err, election.CodeArgument)
	})

	t.Run("unknown election", func(t *testing.T) {
		_, _, b := fresh()
		k, _ := newVoter(t)
		b.ElectionID = m.ElectionID + "-nope"
		_, err := e.voter.CastBallot(c, resign(t, b, k))
		wantReject(t, "ballot for an unknown election", err, election.CodeNoElection)
		_, err = e.voter.GetManifest(c, b.ElectionID)
		wantReject(t, "the unknown election after the refused ballot", err, election.CodeNoElection)
		unchanged("ballot for an unknown election")
	})

	t.Run("result before the window closes", func(t *testing.T) {
		// A correct result of the ballots cast so far, decrypted by two
		// trustees but submitted while the window is open.
		early := earlyResult(t, e, m)
		if left := time.Until(m.End); left < 10*time.Second {
			t.Fatalf("only %s of the voting window is left: raise the test's window constant", left.Round(time.Second))
		}
		_, err := e.ea.PublishResult(c, early)
		wantReject(t, "result during the voting window", err, election.CodeWindow)
		if r, err := e.voter.GetResult(c, m.ElectionID); err != nil || r != nil {
			t.Fatalf("after the refused publish, GetResult = %.80q, %v; want none", r, err)
		}
		unchanged("result during the voting window")
	})
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
	if err := json.Unmarshal([]byte(firstLine(readFile(t, path))), &l); err != nil {
		t.Fatal(err)
	}
	k, err := x509.ParsePKCS8PrivateKey(l.Key)
	if err != nil {
		t.Fatal(err)
	}
	return &offlineVoter{key: k.(*ecdsa.PrivateKey), token: l.Token}
}

func readStream(t *testing.T, path string) [][]byte {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := ballotstream.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for {
		b, err := r.Next()
		if err != nil {
			break
		}
		out = append(out, b)
	}
	return out
}

func readFile(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
