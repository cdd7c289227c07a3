package trustee_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/internal/trustee"
)

// module is the import path prefix of fabvote's packages.
const module = "github.com/fabvote/fabvote/"

// repoRoot is the repository's root directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(self), "..", "..")
}

// This package claimed the program's Sealer when it was initialised: no
// other package of the program can claim it any more.
func TestTrusteeHoldsTheSealer(t *testing.T) {
	if !trustee.HoldsSealer() {
		t.Fatal("package trustee did not claim threshold's Sealer")
	}
	if s, err := threshold.ClaimSealer(); !errors.Is(err, threshold.ErrSealerClaimed) || s != nil {
		t.Fatalf("ClaimSealer after trustee's init = %p, %v; want ErrSealerClaimed", s, err)
	}
}

// Had another package of the program claimed the Sealer first, Recompute
// refuses, before it reads the ledger, and says so.
func TestRecomputeWithoutTheSealer(t *testing.T) {
	w := newWorld(t)
	f := w.ledger(true)
	restore := trustee.LoseSealer()
	defer restore()
	tally, err := trustee.Recompute(context.Background(), w.of(f), w.raw, opts)
	if !errors.Is(err, trustee.ErrNoSealer) || !errors.Is(err, threshold.ErrSealerClaimed) || tally != nil {
		t.Fatalf("Recompute without the Sealer = %v, %v; want ErrNoSealer", tally, err)
	}
	if !strings.Contains(err.Error(), "another package of this program claimed threshold's Sealer first") {
		t.Errorf("the error does not say why: %v", err)
	}
	if f.ballotReads != 0 {
		t.Errorf("ballots read %d times, want 0", f.ballotReads)
	}
}

// forged is a program that seals a ciphertext of its choosing through
// threshold's test hook and has a share decrypt it.
const forged = `package forged

import (
	"crypto/rand"
	"math/big"

	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/crypto/paillier/threshold/internal/testseal"
)

func Decrypt(ks *threshold.KeyShare, pp *threshold.PublicParams, c *big.Int) (*threshold.PartialDecryption, error) {
	return ks.DecryptTally(rand.Reader, pp, testseal.Seal(c).(*threshold.SealedTally))
}
`

// The Go toolchain refuses to build the forged program anywhere outside
// crypto/paillier/threshold (here: as a package of the CLI's tree), and
// builds it under threshold, so the refusal is the internal-package rule
// and not a mistake in the program.
func TestSealHookOnlyUnderThreshold(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go toolchain")
	}
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	root := repoRoot(t)
	src := filepath.Join(t.TempDir(), "forged.go")
	if err := os.WriteFile(src, []byte(forged), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dir     string
		builds  bool
		message string
	}{
		{"cmd/fabvote/forged", false, "use of internal package"},
		{"internal/forged", false, "use of internal package"},
		{"crypto/paillier/threshold/forged", true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.dir, func(t *testing.T) {
			overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{
				filepath.Join(root, tc.dir, "forged.go"): src,
			}})
			ov := filepath.Join(t.TempDir(), "overlay.json")
			if err := os.WriteFile(ov, overlay, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(goBin, "build", "-overlay", ov, "./"+tc.dir)
			cmd.Dir = root
			out, err := cmd.CombinedOutput()
			if tc.builds && err != nil {
				t.Fatalf("go build ./%s failed:\n%s", tc.dir, out)
			}
			if !tc.builds && (err == nil || !strings.Contains(string(out), tc.message)) {
				t.Fatalf("go build ./%s: %v, want a failure naming %q:\n%s", tc.dir, err, tc.message, out)
			}
		})
	}
}

// goList runs go list in the repository's root with env added to the
// environment and returns its output's lines.
func goList(t *testing.T, env []string, args ...string) []string {
	t.Helper()
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), append([]string{"list"}, args...)...)
	cmd.Dir = repoRoot(t)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v", strings.Join(args, " "), err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// mainPackages are the module's programs: every package main (the module
// has no test-only one; test helpers are packages of their own names).
func mainPackages(t *testing.T) []string {
	var mains []string
	for _, p := range goList(t, nil, "-f", `{{if eq .Name "main"}}{{.ImportPath}}{{end}}`, "./...") {
		if p != "" {
			mains = append(mains, p)
		}
	}
	if !slices.Contains(mains, module+"cmd/fabvote") {
		t.Fatalf("the module's main packages %v leave out cmd/fabvote: the query is wrong", mains)
	}
	return mains
}

// The programs fabvote ships (every package main of the module, test files
// left out, and the booth's WebAssembly module, built for js/wasm) link
// neither the test-only partial decryption (thresholdtest) nor any package
// other than threshold that imports threshold's test hook, and they link
// this package, the one claimer of the Sealer
// (TestOnlyTrusteeClaimsTheSealer). So the only way the shipped code has a
// share decrypt is Recompute.
func TestShippedProgramsUseTheSealOnlyThroughTrustee(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go toolchain")
	}
	const format = `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`
	native := goList(t, nil, append([]string{"-deps", "-f", format}, mainPackages(t)...)...)
	if !slices.Contains(firstFields(native), module+"internal/trustee") {
		t.Fatal("the shipped programs do not link internal/trustee: the check looked at the wrong packages")
	}
	wasm := goList(t, []string{"GOOS=js", "GOARCH=wasm"}, "-deps", "-f", format, "./booth/wasm")
	if !slices.Contains(firstFields(wasm), module+"booth/wasm") {
		t.Fatal("go list for js/wasm does not list booth/wasm: the check looked at the wrong packages")
	}
	for _, line := range append(native, wasm...) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if strings.HasSuffix(f[0], "/thresholdtest") {
			t.Errorf("a shipped program links %s", f[0])
		}
		if slices.Contains(f[1:], module+"crypto/paillier/threshold/internal/testseal") && f[0] != module+"crypto/paillier/threshold" {
			t.Errorf("%s, linked into a shipped program, imports threshold's test hook", f[0])
		}
	}
}

// firstFields is the first word of each line: go list -deps' package.
func firstFields(lines []string) []string {
	var first []string
	for _, l := range lines {
		if f := strings.Fields(l); len(f) > 0 {
			first = append(first, f[0])
		}
	}
	return first
}
