package docs

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// notCLI are the module's programs that are no command-line tool: chaincode
// services, which a peer's builder starts and the environment configures.
var notCLI = map[string]bool{
	"github.com/fabvote/fabvote/chaincode/ballot/cmd/ballot-cc":         true,
	"github.com/fabvote/fabvote/chaincode/delaywork/cmd/delaywork-cc":   true,
	"github.com/fabvote/fabvote/chaincode/kvtransfer/cmd/kvtransfer-cc": true,
}

// TestEveryToolFollowsTheConvention: every program of the module but the
// chaincode services is on internal/cli's convention and has its pages in
// docs/cli, so a tool left out of `make docs` (CLI_TOOLS) fails here.
func TestEveryToolFollowsTheConvention(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", `{{if eq .Name "main"}}{{.ImportPath}} {{join .Imports ","}}{{end}}`, "./...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	tools := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, " ")
		if pkg == "" || notCLI[pkg] {
			continue
		}
		tools++
		if !slices.Contains(strings.Split(imports, ","), "github.com/fabvote/fabvote/internal/cli") {
			t.Errorf("%s does not use internal/cli", pkg)
		}
		page := filepath.Join("cli", path.Base(pkg)+".md")
		if _, err := os.Stat(page); err != nil {
			t.Errorf("%s has no page docs/%s: add it to CLI_TOOLS (cmd/fabvote/fabvote.mk) and run make docs", pkg, page)
		}
	}
	if tools == 0 {
		t.Fatal("go list found no command-line tool")
	}
}
