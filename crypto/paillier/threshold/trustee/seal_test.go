package trustee_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// forged is a program that seals a ciphertext of its choosing and has a
// share decrypt it.
const forged = `package forged

import (
	"crypto/rand"
	"math/big"

	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/crypto/paillier/threshold/internal/tallyseal"
)

func Decrypt(ks *threshold.KeyShare, pp *threshold.PublicParams, c *big.Int) (*threshold.PartialDecryption, error) {
	return ks.DecryptTally(rand.Reader, pp, tallyseal.Seal(c))
}
`

// The Go toolchain refuses to build the forged program anywhere outside
// crypto/paillier/threshold (here: as a package of the CLI's tree), and
// builds it under threshold, so the refusal is the internal-package rule
// and not a mistake in the program.
func TestSealOnlyUnderThreshold(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go toolchain")
	}
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(self), "..", "..", "..", "..")
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

// The programs fabvote ships (./cmd/... and ./chaincode/..., test files
// left out) link neither the test-only partial decryption (thresholdtest)
// nor any package that imports the seal other than threshold, which opens
// it, and threshold/trustee, which makes it after its checks. So the only
// way the shipped code has a share decrypt is trustee.Recompute.
func TestShippedProgramsUseTheSealOnlyThroughTrustee(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go toolchain")
	}
	const mod = "github.com/fabvote/fabvote/"
	const seal = mod + "crypto/paillier/threshold/internal/tallyseal"
	allowed := map[string]bool{mod + "crypto/paillier/threshold": true, mod + "crypto/paillier/threshold/trustee": true}
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(self), "..", "..", "..", "..")
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "list", "-deps",
		"-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./cmd/...", "./chaincode/...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	sawTrustee := false
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := f[0]
		if strings.HasSuffix(pkg, "/thresholdtest") {
			t.Errorf("a shipped program links %s", pkg)
		}
		if pkg == mod+"crypto/paillier/threshold/trustee" {
			sawTrustee = true
		}
		if slices.Contains(f[1:], seal) && !allowed[pkg] {
			t.Errorf("%s, linked into a shipped program, imports the seal", pkg)
		}
	}
	if !sawTrustee {
		t.Fatal("the shipped programs do not link threshold/trustee: the check looked at the wrong packages")
	}
}
