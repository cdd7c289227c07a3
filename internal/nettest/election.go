package nettest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/internal/sharebox"
)

const (
	// Candidates is the candidate list of the suites' elections.
	Candidates = "Alice,Bob,Carol,Dave"
	// Trustees is how many trustees an election of CreateElection has,
	// Threshold how many of them decrypt together.
	Trustees  = 3
	Threshold = 2
)

// Election is an election directory as CreateElection lays it out:
//
//	el/                           manifest.json, ea.key, pseudonym.key, trustee-i.share.age
//	trustees/trustee-i/           identity.txt, recipient.txt (`trustee keygen`)
//	trustee-recipients.txt        the trustees' recipients, for `election create`
//	voters.jsonl, ballots.bin     GenerateBallots' voters and their ballots
type Election struct {
	ID  string
	Dir string
}

// Path is p inside the election directory.
func (e Election) Path(p string) string { return filepath.Join(e.Dir, p) }

// ElDir holds the authority's files and the sealed shares.
func (e Election) ElDir() string { return e.Path("el") }

// TrusteesDir holds one directory per trustee.
func (e Election) TrusteesDir() string { return e.Path("trustees") }

// Manifest is the manifest file `election create` writes (and `election
// open` rewrites with the window).
func (e Election) Manifest() string { return filepath.Join(e.ElDir(), "manifest.json") }

// EAKey is the authority's token signing key.
func (e Election) EAKey() string { return filepath.Join(e.ElDir(), "ea.key") }

// PseudonymKey is the authority's pseudonym key K_pseud.
func (e Election) PseudonymKey() string { return filepath.Join(e.ElDir(), "pseudonym.key") }

// Share is trustee i's sealed share (1-based).
func (e Election) Share(i int) string { return ShareFile(e.ElDir(), i) }

// Identity is trustee i's age identity (1-based).
func (e Election) Identity(i int) string { return IdentityFile(e.TrusteesDir(), i) }

// ShareFile is where `election create --out elDir` seals trustee i's share.
func ShareFile(elDir string, i int) string {
	return filepath.Join(elDir, fmt.Sprintf("trustee-%d.share.age", i))
}

// TrusteeDir is trustee i's `trustee keygen --out` directory under trusteesDir.
func TrusteeDir(trusteesDir string, i int) string {
	return filepath.Join(trusteesDir, fmt.Sprintf("trustee-%d", i))
}

// IdentityFile is trustee i's age identity under trusteesDir.
func IdentityFile(trusteesDir string, i int) string {
	return filepath.Join(TrusteeDir(trusteesDir, i), sharebox.IdentityFile)
}

// CreateElection has each of the Trustees trustees make its own age key
// pair and the authority create the election (any Threshold of them
// decrypt, the dealer sealing share i to trustee i) in cli.Dir, with the
// fabvote CLI. The election is not opened. flags are more `election
// create` flags (--channel, --trustee-msps, …). The peers of a test
// network share one host's clock, hence the short clock skew.
func CreateElection(t testing.TB, cli CLI, id string, maxVoters int, flags ...string) Election {
	t.Helper()
	e := Election{ID: id, Dir: cli.Dir}
	recipients := trusteeKeygen(t, cli, e)
	args := []string{"election", "create", "--election", id, "--candidates", Candidates,
		"--max-voters", strconv.Itoa(maxVoters), "--trustees", strconv.Itoa(Trustees),
		"--threshold", strconv.Itoa(Threshold), "--trustee-recipients", recipients,
		"--out", "el", "--max-clock-skew", "2s"}
	cli.Must(t, append(args, flags...)...)
	return e
}

// trusteeKeygen runs `trustee keygen` for every trustee, each into its own
// directory, and writes their recipients, one a line, into the file it
// returns.
func trusteeKeygen(t testing.TB, cli CLI, e Election) string {
	t.Helper()
	var lines []string
	for i := 1; i <= Trustees; i++ {
		dir := TrusteeDir(e.TrusteesDir(), i)
		cli.Must(t, "trustee", "keygen", "--out", dir)
		b, err := os.ReadFile(filepath.Join(dir, sharebox.RecipientFile))
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.TrimSpace(string(b)))
	}
	rf := e.Path("trustee-recipients.txt")
	if err := os.WriteFile(rf, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return rf
}

// GenerateBallots registers voters offline (`register --offline`, into
// voters.jsonl) and has `ballot --bulk` make their ballots into
// ballots.bin, each voter's choice from the choices file (one candidate
// index a line) or, with choices "", the generator's own (recorded in
// ballots.bin.choices.csv). It returns the ballots in stream order, which
// is the order they completed in, not the voters' order.
func (e Election) GenerateBallots(t testing.TB, cli CLI, voters int, choices string) [][]byte {
	t.Helper()
	cli.Must(t, "register", "--offline", "--manifest", e.Manifest(), "--voters", strconv.Itoa(voters),
		"--ea-key", e.EAKey(), "--out", e.Path("voters.jsonl"))
	args := []string{"ballot", "--bulk", "--manifest", e.Manifest(), "--voters-file", e.Path("voters.jsonl")}
	if choices != "" {
		args = append(args, "--choices", choices)
	}
	cli.Must(t, append(args, "--out", e.Path("ballots.bin"), "--quiet")...)
	ballots := ReadBallotStream(t, e.Path("ballots.bin"))
	if len(ballots) != voters {
		t.Fatalf("ballot --bulk wrote %d ballots, want %d", len(ballots), voters)
	}
	return ballots
}
