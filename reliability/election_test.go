//go:build reliability

package reliability

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/ballotclient"
	"github.com/fabvote/fabvote/internal/gateway"
	"github.com/fabvote/fabvote/internal/nettest"
)

// electionFix is an election made with the fabvote CLI: manifest, trustee
// shares (3, any 2 decrypt), voters and their ballots generated in bulk.
type electionFix struct {
	bin, dir, id, manifest string
	ballots                [][]byte
	choice                 map[string]int // pseudonym (hex) -> candidate index
	keys                   tallyKeys      // key material for `fabvote tally`
}

// newElection creates the election and its ballots with the CLI (not opened yet).
// Extra flags for `election create` (e.g. --trustee-msps) go in create:
// every manifest field but the window is bound by the tokens, so it cannot
// be changed once the ballots are made.
func newElection(t *testing.T, bin, id string, voters int, create ...string) *electionFix {
	t.Helper()
	return generateElection(t, bin, t.TempDir(), id, voters, create...)
}

// generateElection is newElection in a given directory.
func generateElection(t *testing.T, bin, dir, id string, voters int, create ...string) *electionFix {
	t.Helper()
	t0 := time.Now()
	cli := nettest.CLI{Bin: bin, Dir: dir}
	el := nettest.CreateElection(t, cli, id, voters+10, create...)
	e := &electionFix{bin: bin, dir: dir, id: id, manifest: el.Manifest(),
		keys: trusteeKeys(el.ElDir(), el.TrusteesDir(), 1, 3)}
	e.ballots = el.GenerateBallots(t, cli, voters, "")
	e.choice = nettest.ReadChoices(t, el.Path("ballots.bin.choices.csv"))
	if len(e.choice) != voters {
		t.Fatalf("choices record has %d voters, want %d", len(e.choice), voters)
	}
	t.Logf("election %s: %d ballots generated in %s", id, voters, time.Since(t0).Round(time.Millisecond))
	return e
}

// cli runs the fabvote binary in the election's directory.
func (e *electionFix) cli() nettest.CLI { return nettest.CLI{Bin: e.bin, Dir: e.dir} }

// tallyKeys is the key material for `fabvote tally`: a single Paillier
// key, or trustees: the first brings its sealed share to the tally, the
// others their partial decryptions (`fabvote trustee decrypt`), so that no
// process holds two shares.
type tallyKeys struct {
	paillierKey        string
	elDir, trusteesDir string
	trustees           []int
}

// trusteeKeys are the given trustees' sealed shares in elDir, each with
// its identity under trusteesDir (trustee-i/identity.txt, from `trustee
// keygen`).
func trusteeKeys(elDir, trusteesDir string, trustees ...int) tallyKeys {
	return tallyKeys{elDir: elDir, trusteesDir: trusteesDir, trustees: trustees}
}

// args are the `fabvote tally` flags. Every trustee but the first first
// runs `trustee decrypt --wait` (which waits for the window to close) and
// writes its partial into cli.Dir.
func (k tallyKeys) args(t *testing.T, cli nettest.CLI, netJSON, manifest string) []string {
	t.Helper()
	if k.paillierKey != "" {
		return []string{"--paillier-key", k.paillierKey}
	}
	share := func(i int) []string {
		return []string{"--share", nettest.ShareFile(k.elDir, i), "--age-identity", nettest.IdentityFile(k.trusteesDir, i)}
	}
	args := share(k.trustees[0])
	for _, i := range k.trustees[1:] {
		// One file per network: a test may tally on several.
		out := filepath.Join(cli.Dir, fmt.Sprintf("partial-%s-%d.bin", filepath.Base(filepath.Dir(netJSON)), i))
		cli.Must(t, append([]string{"trustee", "decrypt", "--network", netJSON, "--manifest", manifest,
			"--out", out, "--wait", "--quiet"}, share(i)...)...)
		args = append(args, "--partial", out)
	}
	return args
}

// open opens the election on the network for window from now.
func (e *electionFix) open(t *testing.T, netJSON string, window time.Duration) time.Time {
	t.Helper()
	e.cli().Must(t, "election", "open", "--network", netJSON, "--manifest", e.manifest,
		"--start", "-5s", "--end", "+"+window.Round(time.Second).String())
	return time.Now().Add(window)
}

// tallyAndVerify waits for the window to close, tallies with two trustee
// shares, publishes, and runs `fabvote verify` with the counts the voters of
// the committed ballots chose. It returns the published result.
func (e *electionFix) tallyAndVerify(t *testing.T, c *ballotclient.Client, netJSON string, committed map[string]bool) *election.Result {
	t.Helper()
	keys := e.keys.args(t, e.cli(), netJSON, e.manifest)
	out := e.cli().Must(t, append([]string{"tally", "--network", netJSON, "--manifest", e.manifest, "--wait", "--quiet"}, keys...)...)
	t.Logf("tally %s:\n%s", e.id, nettest.Tail(out, 8))
	want := make([]int, len(strings.Split(nettest.Candidates, ",")))
	for vkh := range committed {
		want[e.choice[vkh]]++
	}
	var sw []string
	for _, w := range want {
		sw = append(sw, strconv.Itoa(w))
	}
	out = e.cli().Must(t, "verify", "--network", netJSON, "--election", e.id, "--expect-counts", strings.Join(sw, ","))
	if !strings.Contains(out, "RESULT: PASS") {
		t.Fatalf("fabvote verify %s did not pass:\n%s", e.id, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rb, err := c.GetResult(ctx, e.id)
	if err != nil {
		t.Fatalf("GetResult %s: %v", e.id, err)
	}
	res, err := election.ParseResult(rb)
	if err != nil {
		t.Fatalf("published result of %s: %v", e.id, err)
	}
	if res.BallotCount != uint64(len(committed)) {
		t.Fatalf("published ballot count %d, the client saw %d ballots committed", res.BallotCount, len(committed))
	}
	var sum uint64
	for _, n := range res.Contests[0].Counts {
		sum += n
	}
	if sum != uint64(len(committed)) {
		t.Fatalf("published counts %v sum to %d, want %d committed ballots", res.Contests[0].Counts, sum, len(committed))
	}
	t.Logf("%s: verify PASS, counts %v = the choices of the %d committed ballots", e.id, res.Contests[0].Counts, len(committed))
	return res
}

func voterHash(t *testing.T, ballot []byte) string {
	b, err := election.ParseBallot(ballot)
	if err != nil {
		t.Fatalf("ballot does not decode: %v", err)
	}
	return b.PseudonymHex()
}

func ballotHashHex(ballot []byte) string {
	h := sha256.Sum256(ballot)
	return hex.EncodeToString(h[:])
}

// checkLedger asserts that every ballot the client saw committed is on the
// ledger unchanged, that the ledger holds no other ballot of the election and
// no voter twice.
func checkLedger(t *testing.T, c *ballotclient.Client, id string, committed map[string][]byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	seen := map[string]bool{}
	bookmark := ""
	total := 0
	for {
		page, err := c.ListBallots(ctx, id, 500, bookmark)
		if err != nil {
			t.Fatalf("ListBallots %s: %v", id, err)
		}
		for _, r := range page.Ballots {
			total++
			b, err := election.ParseBallot(r.Ballot)
			if err != nil {
				t.Fatalf("ledger ballot does not decode: %v", err)
			}
			vkh := b.PseudonymHex()
			if seen[vkh] {
				t.Fatalf("voter %s has two ballots on the ledger", vkh)
			}
			seen[vkh] = true
			mine, ok := committed[vkh]
			if !ok {
				t.Fatalf("the ledger holds a ballot of voter %s that the client never saw committed", vkh)
			}
			if ballotHashHex(mine) != ballotHashHex(r.Ballot) {
				t.Fatalf("voter %s: the ledger's ballot differs from the one cast", vkh)
			}
		}
		if page.Bookmark == "" || len(page.Ballots) == 0 {
			break
		}
		bookmark = page.Bookmark
	}
	for vkh := range committed {
		if !seen[vkh] {
			t.Fatalf("ballot of voter %s was committed (receipt) but is not on the ledger", vkh)
		}
	}
	if total != len(committed) {
		t.Fatalf("ledger holds %d ballots of %s, the client saw %d committed", total, id, len(committed))
	}
	t.Logf("%s: ledger holds exactly the %d committed ballots, one per voter", id, total)
}

// isDuplicate reports a DUPLICATE rejection.
func isDuplicate(err error) bool {
	var re *gateway.RejectError
	return errors.As(err, &re) && re.Code == election.CodeDuplicate
}
