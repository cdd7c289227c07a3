//go:build e2e && browser

package e2e

import (
	"context"
	"crypto/ecdsa"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/boothtest"
	"github.com/fabvote/fabvote/internal/box"
	"github.com/fabvote/fabvote/internal/easigner"
	"github.com/fabvote/fabvote/internal/nettest"
	"github.com/fabvote/fabvote/internal/registrar"
)

// boothWindow is how long the booth's election accepts ballots: the
// browser voters' five ballots and the bad input must fit in it (about
// 20 s on a quiet 2-core machine; make test runs it beside the unit tests,
// which slow Chromium's WebAssembly several times), and the tally waits for
// its end.
const boothWindow = 150 * time.Second

// boothRun is the booth's election on the real network and what its
// steps hand on to each other.
type boothRun struct {
	*env
	c        context.Context
	el       nettest.Election
	m        *election.Manifest
	prep     *election.Prepared
	eaKey    *ecdsa.PrivateKey
	pseudKey []byte
	codes    [][2]string // the roll: voter id and code
	boothDir string
	digest   string // the booth's digest, in the manifest
	msgs     boothtest.Messages
	tls      boothTLS
	site     string // ea serve's origin, where the booth is
	box      *boxClient
	box2     *boxClient // another party org's box
}

// boothVoter is one voter's visit to the booth: a ballot for candidate
// audit, audited; then a ballot for candidate cast, cast. vote fills in
// what the page showed and sent.
type boothVoter struct {
	name        string
	d           boothtest.Driver
	lang        string
	roll        int // the voter's line in the roll
	audit, cast int // candidate indices

	audited string // the audited ballot's tracker
	tracker string // the cast ballot's tracker, as the receipt shows it
	hash    string // the receipt's ballot hash
	txID    string // the receipt's transaction id
	ballot  []byte // the ballot the page sent to the box
}

// TestBooth runs the voter's booth in headless Chromium on the real
// network, with the real registrar (fabvote ea serve --booth) and a real
// ballot box (fabvote box serve) run by a party org: one voter audits a
// ballot and casts another by pointer, one by keyboard alone; a third
// casts into a box that drops the ballot, which the receipt check finds.
// Bad input sent to the boxes is refused, each kind with its code, and
// leaves the ledger as it was. After the window, the tally counts the two
// cast ballots and no spoiled one; the record's two verifiers check the
// spoiled ballots' openings (V32), and the bulletin board lists them.
func TestBooth(t *testing.T) {
	start := time.Now()
	r := newBoothRun(t)
	voters := []*boothVoter{
		{name: "pointer", d: boothtest.Pointer{}, lang: "en", roll: 0, audit: 2, cast: 1},
		// The keyboard voter casts the choice it audited: the fresh ballot
		// keeps it, and a radio group is one tab stop at its checked button.
		{name: "keyboard", d: boothtest.Keyboard{}, lang: "de", roll: 1, audit: 3, cast: 3},
	}
	for _, v := range voters {
		if !t.Run(v.name, func(t *testing.T) { r.vote(t, r.site, v) }) {
			t.FailNow()
		}
	}
	t.Run("a box that drops the ballot", r.droppedBallot)
	t.Run("bad input", func(t *testing.T) { r.badInput(t, voters[0]) })
	if !t.Run("ledger", func(t *testing.T) { r.checkLedger(t, voters) }) {
		t.FailNow()
	}
	r.tally(t, voters)
	t.Run("record and board", func(t *testing.T) { r.recordAndBoard(t, voters) })
	t.Logf("the booth's end-to-end test took %s", time.Since(start).Round(time.Second))
}

// newBoothRun creates and opens the booth's election, with the digest of
// the booth `make booth` built in its manifest, and starts the boxes and
// the registrar that serves the booth.
func newBoothRun(t *testing.T) *boothRun {
	r := &boothRun{env: setup(t), boothDir: builtBooth(t)}
	r.c = ctx(t)
	r.digest = strings.TrimSpace(r.Must(t, "booth", "digest", "--dir", r.boothDir))
	r.msgs = boothtest.ReadMessages(t, r.boothDir)
	id := fmt.Sprintf("booth-%d", time.Now().Unix())
	r.el = nettest.CreateElection(t, r.CLI, id, 20, "--channel", r.net.Channel, "--booth-digest", r.digest)
	r.Must(t, "election", "open", "--network", r.netPath, "--manifest", r.el.Manifest(), "--start", "-5s", "--end", "+"+boothWindow.String())
	r.m = nettest.ReadManifest(t, r.el.Manifest())
	if r.m.BoothDigest != r.digest {
		t.Fatalf("the manifest's booth digest is %q, want %q", r.m.BoothDigest, r.digest)
	}
	var err error
	if r.prep, err = election.Prepare(r.m); err != nil {
		t.Fatal(err)
	}
	if r.eaKey, err = easigner.LoadPEM(r.el.EAKey()); err != nil {
		t.Fatal(err)
	}
	if r.pseudKey, err = easigner.LoadPseudonymKey(r.el.PseudonymKey()); err != nil {
		t.Fatal(err)
	}
	r.Must(t, "ea", "roll", "--voters", "3", "--out", "roll.csv")
	if r.codes, err = registrar.ReadRollCodes(r.path("roll.csv")); err != nil {
		t.Fatal(err)
	}
	r.tls = newBoothTLS(t, r.env)
	r.startServers(t)
	return r
}

// builtBooth is the directory `make booth` built (FABVOTE_BOOTH_DIR,
// which scripts/e2e.sh sets).
func builtBooth(t *testing.T) string {
	dir := os.Getenv("FABVOTE_BOOTH_DIR")
	if dir == "" {
		dir = filepath.Join("..", "build", "booth")
	}
	if _, err := os.Stat(filepath.Join(dir, "booth.wasm")); err != nil {
		t.Fatalf("no booth in %s (run make booth): %v", dir, err)
	}
	return dir
}

// vote is one voter's visit to the booth at site: sign in, audit a
// ballot, make a fresh one and cast it.
func (r *boothRun) vote(t *testing.T, site string, v *boothVoter) {
	p := boothtest.Open(t, site, v.lang, false, r.msgs, r.tls.chromiumFlags()...)
	v.d.Fill(t, p, r.codes[v.roll][0], r.codes[v.roll][1])
	p.WaitStep(t, "ballot")
	v.d.Choose(t, p, option(v.audit))
	v.d.Press(t, p, "make-button")
	p.WaitStep(t, "check")
	v.audited = p.Tracker(t, "check-tracker")
	v.d.Press(t, p, "audit-button")
	p.WaitStep(t, "audited")
	if shown := p.Tracker(t, "audited-tracker"); shown != v.audited {
		t.Fatalf("the audit shows tracker %s, the ballot had %s", shown, v.audited)
	}
	v.d.Press(t, p, "again-button")
	p.WaitStep(t, "ballot")
	v.d.Choose(t, p, option(v.cast))
	v.d.Press(t, p, "make-button")
	p.WaitStep(t, "check")
	final := p.Tracker(t, "check-tracker")
	r.castShown(t, p, v, final)
}

// castShown casts the ballot of tracker final and reads its receipt.
func (r *boothRun) castShown(t *testing.T, p *boothtest.Page, v *boothVoter, final string) {
	v.d.Press(t, p, "cast-button")
	p.WaitStep(t, "receipt")
	v.tracker = p.Tracker(t, "receipt-tracker")
	v.hash, v.txID = p.Text(t, "receipt-hash"), p.Text(t, "receipt-tx")
	if v.tracker != final {
		t.Fatalf("the receipt shows tracker %s, the ballot cast had %s", v.tracker, final)
	}
	v.ballot = sentBallot(t, p)
	b, err := election.ParseBallot(v.ballot)
	if err != nil {
		t.Fatal(err)
	}
	if hash := b.Hash(); b.TrackerHex() != v.tracker || hex.EncodeToString(hash[:]) != v.hash {
		t.Fatalf("the page sent a ballot of tracker %s and hash %x; its receipt shows %s and %s", b.TrackerHex(), hash, v.tracker, v.hash)
	}
	if want := r.pseudonym(t, r.codes[v.roll][0]); b.PseudonymHex() != want {
		t.Fatalf("the page sent a ballot of pseudonym %s; the registrar's for roll id %s is %s", b.PseudonymHex(), r.codes[v.roll][0], want)
	}
	for _, l := range p.Logged() {
		t.Errorf("the browser logged an error: %s", l)
	}
}

// sentBallot is the last ballot the page sent to a box.
func sentBallot(t *testing.T, p *boothtest.Page) []byte {
	reqs := p.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if reqs[i].Method != "POST" || !strings.HasSuffix(reqs[i].URL, box.BallotsPath) {
			continue
		}
		var req box.BallotRequest
		if err := json.Unmarshal([]byte(reqs[i].Body), &req); err != nil {
			t.Fatalf("the page sent %q to the box: %v", reqs[i].Body, err)
		}
		b, err := base64.StdEncoding.DecodeString(req.Ballot)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	t.Fatal("the page sent no ballot to a box")
	return nil
}

// option is the id of candidate i's radio button in the booth.
func option(i int) string { return fmt.Sprintf("c0-o%d", i) }

// pseudonym is the ballot key the registrar gives roll id voterID.
func (r *boothRun) pseudonym(t *testing.T, voterID string) string {
	ps, err := election.Pseudonym(r.pseudKey, r.m.ElectionID, voterID)
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(ps[:])
}

// receiptFile writes the receipt the page showed voter roll id voterID,
// with its pseudonym, as fabvote receipt check reads it.
func (r *boothRun) receiptFile(t *testing.T, name, voterID, hash, txID string) string {
	b, err := json.Marshal(election.Receipt{ElectionID: r.m.ElectionID, Pseudonym: r.pseudonym(t, voterID), BallotHash: hash, TxID: txID})
	if err != nil {
		t.Fatal(err)
	}
	path := r.path(name)
	writeFile(t, path, b)
	return path
}

// checkLedger: each audited ballot is on the ledger as a spoiled ballot
// that reveals the choice the voter clicked, and each cast ballot's
// receipt, as the page showed it, checks out against the ledger.
func (r *boothRun) checkLedger(t *testing.T, voters []*boothVoter) {
	for _, v := range voters {
		if got := r.spoiledChoice(t, v.audited); !slices.Equal(got, []int{v.audit}) {
			t.Errorf("%s: the ledger's spoiled ballot %s reveals %v, the voter chose %d", v.name, v.audited, got, v.audit)
		}
		rc := r.receiptFile(t, v.name+"-receipt.json", r.codes[v.roll][0], v.hash, v.txID)
		if out := r.Must(t, "receipt", "check", "--network", r.netPath, "--receipt", rc); !strings.Contains(out, "OK: ") {
			t.Errorf("%s: receipt check:\n%s", v.name, out)
		}
	}
}

// spoiledChoice is the choice the ledger's spoiled ballot of tracker
// reveals, checked with CheckSpoiled.
func (r *boothRun) spoiledChoice(t *testing.T, tracker string) []int {
	raw, err := r.voter.Conn.Evaluate(r.c, "GetSpoiled", []byte(r.m.ElectionID), []byte(tracker))
	if err != nil {
		t.Fatalf("GetSpoiled %s: %v", tracker, err)
	}
	s, err := election.ParseSpoiledBallot(raw)
	if err != nil {
		t.Fatal(err)
	}
	sels, err := r.prep.CheckSpoiled(s)
	if err != nil {
		t.Fatalf("the ledger's spoiled ballot %s: %v", tracker, err)
	}
	if s.TrackerHex() != tracker || len(sels) != 1 {
		t.Fatalf("the ledger's spoiled ballot under %s has tracker %s and %d contests", tracker, s.TrackerHex(), len(sels))
	}
	return selectionOptions(sels[0])
}

func selectionOptions(s votecode.Selection) []int {
	if s.Blank {
		return nil
	}
	return s.Options
}

// tally waits for the window's end; trustee 2 decrypts and the authority,
// also trustee 1, tallies: the result counts the two cast ballots with
// their choices, and no audited one.
func (r *boothRun) tally(t *testing.T, voters []*boothVoter) {
	time.Sleep(time.Until(r.m.ResultNotBefore()) + 3*time.Second)
	r.Must(t, "trustee", "decrypt", "--network", r.netPath, "--manifest", r.el.Manifest(), "--share", r.el.Share(2),
		"--age-identity", r.el.Identity(2), "--out", r.path("p2.bin"), "--wait", "--quiet")
	r.Must(t, "tally", "--network", r.netPath, "--manifest", r.el.Manifest(), "--share", r.el.Share(1),
		"--age-identity", r.el.Identity(1), "--partial", r.path("p2.bin"), "--quiet")
	raw, err := r.voter.GetResult(r.c, r.m.ElectionID)
	if err != nil || raw == nil {
		t.Fatalf("GetResult: %q, %v", raw, err)
	}
	res, err := election.ParseResult(raw)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]uint64, len(r.m.Contests[0].Options))
	for _, v := range voters {
		want[v.cast]++
	}
	if res.BallotCount != uint64(len(voters)) || !slices.Equal(res.Contests[0].Counts, want) {
		t.Fatalf("the result counts %d ballots %v; the voters cast %d: %v", res.BallotCount, res.Contests[0].Counts, len(voters), want)
	}
}

// recordAndBoard exports the election's record: both verifiers pass it,
// with the spoiled ballots' openings and the ciphertext claims checked (V32),
// and give the same report; the bulletin board made from it lists each
// audited ballot's tracker with its revealed choice, each cast ballot's
// tracker beside its hash, and the booth's digest.
func (r *boothRun) recordAndBoard(t *testing.T, voters []*boothVoter) {
	dir, genesis, rec := exportRecord(t, r.env, r.m.ElectionID)
	if !passedCheck(rec, "V32") {
		t.Errorf("fabvote's report of the record has no passed V32: %+v", rec.Checks)
	}
	py := r.pyVerifyJSON(t, pyVerifier(t), 0, "--record", dir, "--genesis-hash", genesis)
	if !reflect.DeepEqual(py, rec) {
		t.Errorf("the Python verifier's report differs from fabvote's:\npython  %+v\nfabvote %+v", py, rec)
	}
	site := r.path("site")
	r.Must(t, "record", "site", "--record", dir, "--out", site, "--genesis-hash", genesis)
	spoiled := readFile(t, filepath.Join(site, "spoiled.html"))
	ballots := siteText(t, site, "ballots*.html")
	for _, v := range voters {
		choice := r.m.Contests[0].Title + ": " + r.m.Contests[0].Options[v.audit]
		if row := tableRow(spoiled, v.audited); !strings.Contains(row, choice) {
			t.Errorf("%s: the board's audited ballots show tracker %s with %q, want the choice %q", v.name, v.audited, row, choice)
		}
		if row := tableRow(ballots, v.hash); !strings.Contains(row, v.tracker) {
			t.Errorf("%s: the board's ballots show ballot %s with %q, want its tracker %s", v.name, v.hash, row, v.tracker)
		}
	}
	if all := siteText(t, site, "*.html"); !strings.Contains(all, r.digest) {
		t.Errorf("no page of the board shows the booth's digest %s", r.digest)
	}
}

// siteText is the text of the site's pages that match pattern.
func siteText(t *testing.T, site, pattern string) string {
	files, err := filepath.Glob(filepath.Join(site, pattern))
	if err != nil || len(files) == 0 {
		t.Fatalf("no page %s in the board %s (%v)", pattern, site, err)
	}
	var b strings.Builder
	for _, f := range files {
		b.WriteString(readFile(t, f))
	}
	return b.String()
}

// tableRow is the table row of page that holds s, or "".
func tableRow(page, s string) string {
	i := strings.Index(page, s)
	if i < 0 {
		return ""
	}
	start := strings.LastIndex(page[:i], "<tr>")
	end := strings.Index(page[i:], "</tr>")
	if start < 0 || end < 0 {
		return ""
	}
	return page[start : i+end]
}
