//go:build e2e

package e2e

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"filippo.io/age"

	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/crypto/paillier/threshold/thresholdtest"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/audit"
	"github.com/fabvote/fabvote/internal/sharebox"
	"github.com/fabvote/fabvote/internal/sharebox/shareboxtest"
	"github.com/fabvote/fabvote/internal/tallyjournal"
)

func (e *env) identity(t *testing.T, i int) []age.Identity {
	ids, err := sharebox.ReadIdentityFile(e.el.Identity(i))
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// checkSharesApart: after `election create`, no file under the test's
// directory is a key share in the clear, and each sealed share opens with
// its own trustee's identity and no other, so no directory holds two
// usable shares.
func checkSharesApart(t *testing.T, e *env, n int, pp *threshold.PublicParams) {
	var ids [][]age.Identity
	for i := 1; i <= n; i++ {
		ids = append(ids, e.identity(t, i))
	}
	problems, sealed, err := shareboxtest.CheckApart(e.Dir, ids, pp)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	if sealed != n {
		t.Fatalf("%d sealed shares after election create, want %d", sealed, n)
	}
}

// openShare is trustee i's share, opened with its identity.
func openShare(t *testing.T, e *env, i int) *threshold.KeyShare {
	ks, err := sharebox.ReadSealedFile(e.el.Share(i), e.identity(t, i)...)
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

// earlyResult is the correct result of the ballots cast so far, decrypted
// by trustees 1 and 2 while the window is open. No fabvote command makes
// one (they refuse), so the test does, with the test-only partial
// decryption, to show that the chaincode refuses it too.
func earlyResult(t *testing.T, e *env, m *election.Manifest) []byte {
	p, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	tally, err := audit.CheckBallots(p, e.ea.Ballots(ctx(t), m.ElectionID, 0), audit.Options{})
	if err != nil || len(tally.Failures) > 0 {
		t.Fatalf("checking the ballots so far: %v %v", err, tally.Failures)
	}
	var parts []*threshold.PartialDecryption
	for _, i := range []int{1, 2} {
		pd, err := thresholdtest.PartialDecrypt(openShare(t, e, i), p.Threshold, tally.Product)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, pd)
	}
	r, err := audit.ResultFromPartials(p, tally, parts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// foreignPartial writes trustee i's partial decryption of one voter's
// ballot, re-randomised: what a tallier who got a trustee to decrypt a
// ciphertext of its choosing would bring. It returns the file.
func foreignPartial(t *testing.T, e *env, m *election.Manifest, i int) string {
	p, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	var first *election.Ballot
	errStop := errors.New("stop")
	err = e.ea.Ballots(ctx(t), m.ElectionID, 0)(func(en election.BallotEntry) error {
		first, err = election.ParseBallot(en.Ballot)
		if err != nil {
			return err
		}
		return errStop
	})
	if !errors.Is(err, errStop) {
		t.Fatalf("reading one ballot: %v", err)
	}
	cs, err := p.CheckShape(first)
	if err != nil {
		t.Fatal(err)
	}
	c := cs[0]
	zero, _, err := p.PublicKey.Encrypt(rand.Reader, big.NewInt(0))
	if err != nil {
		t.Fatal(err)
	}
	pd, err := thresholdtest.PartialDecrypt(openShare(t, e, i), p.Threshold, p.PublicKey.Add(c, zero))
	if err != nil {
		t.Fatal(err)
	}
	b, err := pd.Marshal(p.Threshold)
	if err != nil {
		t.Fatal(err)
	}
	path := e.path(fmt.Sprintf("foreign-%d.bin", i))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// wantNoFile fails if a refused command left its output behind.
func wantNoFile(t *testing.T, what, path string) {
	t.Helper()
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s: the refused command left %s (%v)", what, path, err)
	}
}

// trusteeJournalAndIdentity runs after trustees 2 and 3 have decrypted the
// final tally. Trustee 2 asked again decrypts the same tally (its journal
// holds it); trustee 1, whose journal says it decrypted another tally of
// this election (as after a held-back ballot), is refused by name and
// writes nothing; and trustee 1's identity does not open trustee 2's share.
func trusteeJournalAndIdentity(t *testing.T, e *env, m *election.Manifest, mPath string) {
	t.Helper()
	again := e.path("p2-again.bin")
	e.Must(t, "trustee", "decrypt", "--network", e.netPath, "--manifest", mPath, "--share", e.el.Share(2),
		"--age-identity", e.el.Identity(2), "--out", again, "--quiet")
	if _, err := os.Stat(filepath.Join(filepath.Dir(e.el.Identity(2)), tallyjournal.File)); err != nil {
		t.Fatalf("trustee 2 has no journal next to its identity: %v", err)
	}
	journal := filepath.Join(filepath.Dir(e.el.Identity(1)), tallyjournal.File)
	// Trustee 2's journal, with the product and count of another tally.
	var doc struct {
		Version   int                       `json:"version"`
		Elections map[string]map[string]any `json:"elections"`
	}
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(filepath.Dir(e.el.Identity(2)), tallyjournal.File))), &doc); err != nil || len(doc.Elections) != 1 {
		t.Fatalf("trustee 2's journal: %v, %d elections", err, len(doc.Elections))
	}
	for _, en := range doc.Elections {
		en["productSHA256"], en["ballots"] = strings.Repeat("0", 64), 1
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	other := string(b)
	if err := os.WriteFile(journal, []byte(other), 0o600); err != nil {
		t.Fatal(err)
	}
	out, code := e.Run(t, "trustee", "decrypt", "--network", e.netPath, "--manifest", mPath, "--share", e.el.Share(1),
		"--age-identity", e.el.Identity(1), "--out", e.path("p1-second.bin"), "--quiet")
	if code != 1 || !strings.Contains(out, "already decrypted another tally") || !strings.Contains(out, "of 1 ballots then") {
		t.Fatalf("trustee decrypt of a second tally: exit %d, want 1 naming both tallies\n%s", code, out)
	}
	wantNoFile(t, "trustee decrypt of a second tally", e.path("p1-second.bin"))
	if b, _ := os.ReadFile(journal); string(b) != other {
		t.Fatalf("the refused decryption changed trustee 1's journal:\n%s", b)
	}
	if err := os.Remove(journal); err != nil {
		t.Fatal(err)
	}
	out, code = e.Run(t, "trustee", "decrypt", "--network", e.netPath, "--manifest", mPath, "--share", e.el.Share(2),
		"--age-identity", e.el.Identity(1), "--out", e.path("p-wrong-id.bin"), "--quiet")
	if code != 1 || !strings.Contains(out, "not sealed to this identity") {
		t.Fatalf("trustee 1's identity on trustee 2's share: exit %d\n%s", code, out)
	}
	wantNoFile(t, "trustee decrypt with another's identity", e.path("p-wrong-id.bin"))
	if _, err := os.Stat(journal); !os.IsNotExist(err) {
		t.Fatalf("a share that did not open left a journal entry (%v)", err)
	}
}
