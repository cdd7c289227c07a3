package trustee_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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
