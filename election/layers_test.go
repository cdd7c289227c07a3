package election_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// module is the import path prefix of fabvote's packages.
const module = "github.com/fabvote/fabvote/"

// testLeaves are the packages above crypto/ and election/ that their test
// files may import, each importing only the standard library: the
// benchmarks' CPU clock and the -update flag of generated files.
var testLeaves = []string{module + "internal/benchcpu", module + "internal/gentest"}

// importAllowed reports whether the file at rel (a path from the
// repository's root) may import path: crypto/ imports only crypto/,
// election/ imports crypto/ and election/, and test files may also import
// testLeaves. Imports from outside the module are not this rule's concern.
func importAllowed(rel, path string) bool {
	if !strings.HasPrefix(path, module) {
		return true
	}
	below := []string{"crypto/"}
	if strings.HasPrefix(rel, "election/") {
		below = append(below, "election/")
	}
	inner := strings.TrimPrefix(path, module) + "/"
	for _, b := range below {
		if strings.HasPrefix(inner, b) {
			return true
		}
	}
	return strings.HasSuffix(rel, "_test.go") && slices.Contains(testLeaves, path)
}

// The rule admits what sits below a file and refuses what sits above it.
func TestImportAllowed(t *testing.T) {
	tests := []struct {
		rel, path string
		want      bool
	}{
		{"crypto/zkp/batch.go", module + "crypto/paillier", true},
		{"crypto/zkp/batch.go", "math/big", true},
		{"crypto/zkp/batch.go", module + "election", false},
		{"crypto/zkp/batch.go", module + "electiontest", false},
		{"crypto/zkp/batch.go", module + "internal/audit", false},
		{"crypto/zkp/batch.go", module + "internal/benchcpu", false},
		{"crypto/zkp/bench_test.go", module + "internal/benchcpu", true},
		{"crypto/zkp/bench_test.go", module + "internal/audit", false},
		{"election/spoiled_test.go", module + "internal/gentest", true},
		{"election/spoiled.go", module + "internal/gentest", false},
		{"crypto/paillier/threshold/seal.go", module + "crypto/paillier/threshold/internal/testseal", true},
		{"crypto/paillier/threshold/seal.go", module + "cmd/fabvote", false},
		{"election/ballot.go", module + "crypto/zkp", true},
		{"election/ballot.go", module + "election/electiontest", true},
		{"election/ballot.go", module + "validation/ballotcheck", false},
		{"election/electiontest/fixture.go", module + "network/portplan", false},
		{"election/ballot.go", module + "chaincode/ballot", false},
	}
	for _, tc := range tests {
		if got := importAllowed(tc.rel, tc.path); got != tc.want {
			t.Errorf("importAllowed(%q, %q) = %v, want %v", tc.rel, tc.path, got, tc.want)
		}
	}
}

// The crypto packages import nothing of fabvote's above them, and election
// imports only crypto: every Go file under crypto/ and election/, test files
// included (build tags ignored), is checked.
func TestImportsPointDown(t *testing.T) {
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(self), "..")
	fset := token.NewFileSet()
	checked := 0
	for _, top := range []string{"crypto", "election"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			if strings.Contains("/"+rel, "/testdata/") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			checked++
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if !importAllowed(rel, p) {
					t.Errorf("%s imports %s, which sits above it", rel, p)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked == 0 {
		t.Fatal("no Go file under crypto/ or election/: the check looked in the wrong place")
	}
}
