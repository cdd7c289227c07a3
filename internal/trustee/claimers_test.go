package trustee_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// thresholdDir is package threshold's directory in the repository; an
// import path ending in it names threshold (also as Fabric's in-tree copy
// of it, fabvote/mod/crypto/paillier/threshold).
const thresholdDir = "crypto/paillier/threshold"

// claimSealerUses lists where file refers to threshold.ClaimSealer: through
// its import of threshold under any name (a dot import included), or, in
// package threshold itself, by its bare name. A declaration's name and a
// selector's member (x.ClaimSealer on a value) do not count.
func claimSealerUses(fset *token.FileSet, file *ast.File, inThreshold bool) []token.Position {
	names := map[string]bool{} // what threshold is called in file
	bare := inThreshold        // whether ClaimSealer may appear unqualified
	for _, imp := range file.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if path != thresholdDir && !strings.HasSuffix(path, "/"+thresholdDir) {
			continue
		}
		switch {
		case imp.Name == nil:
			names["threshold"] = true
		case imp.Name.Name == ".":
			bare = true
		default:
			names[imp.Name.Name] = true
		}
	}
	var uses []token.Position
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl: // its name declares, never refers
			if n.Recv != nil {
				ast.Inspect(n.Recv, visit)
			}
			ast.Inspect(n.Type, visit)
			if n.Body != nil {
				ast.Inspect(n.Body, visit)
			}
			return false
		case *ast.SelectorExpr: // its Sel is a member, never a bare ClaimSealer
			if x, ok := n.X.(*ast.Ident); ok && names[x.Name] && n.Sel.Name == "ClaimSealer" {
				uses = append(uses, fset.Position(n.Pos()))
			}
			ast.Inspect(n.X, visit)
			return false
		case *ast.Ident:
			if bare && n.Name == "ClaimSealer" {
				uses = append(uses, fset.Position(n.Pos()))
			}
		}
		return true
	}
	ast.Inspect(file, visit)
	return uses
}

// The detector finds every way of naming ClaimSealer, and nothing else.
func TestClaimSealerUsesCatch(t *testing.T) {
	const imp = `import "github.com/fabvote/fabvote/crypto/paillier/threshold"` + "\n"
	tests := []struct {
		name, src   string
		inThreshold bool
		want        int
	}{
		{"call", imp + `func f() { threshold.ClaimSealer() }`, false, 1},
		{"method value", imp + `var f = threshold.ClaimSealer`, false, 1},
		{"renamed import", `import th "github.com/fabvote/fabvote/crypto/paillier/threshold"` + "\n" + `var s, _ = th.ClaimSealer()`, false, 1},
		{"dot import", `import . "github.com/fabvote/fabvote/crypto/paillier/threshold"` + "\n" + `var s, _ = ClaimSealer()`, false, 1},
		{"Fabric's copy", `import "github.com/hyperledger/fabric/fabvote/mod/crypto/paillier/threshold"` + "\n" + `var s, _ = threshold.ClaimSealer()`, false, 1},
		{"inside threshold", `func f() { s, _ := ClaimSealer(); _ = s }`, true, 1},
		{"recursion in the declaration", `func ClaimSealer() { ClaimSealer() }`, true, 1},
		{"the declaration", `func ClaimSealer() {}`, true, 0},
		{"other package", `import "example.com/threshold"` + "\n" + `var s = threshold.ClaimSealer()`, false, 0},
		{"other selector", imp + `var s = threshold.ErrSealerClaimed`, false, 0},
		{"a field of that name", imp + `var _ = threshold.ErrSealerClaimed; func f(x T) { x.ClaimSealer() }`, true, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "x.go", "package x\n"+tc.src, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			if got := claimSealerUses(fset, f, tc.inThreshold); len(got) != tc.want {
				t.Errorf("found %v, want %d", got, tc.want)
			}
		})
	}
}

// skipDir reports whether a directory holds no source of fabvote's: what
// git ignores (build/ holds upstream Fabric, run/ a network's state),
// what Go ignores (testdata, names starting with . or _) and node modules.
func skipDir(rel, name string) bool {
	return rel == "build" || rel == "run" || name == "testdata" || name == "node_modules" ||
		(rel != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")))
}

// linknamesToThreshold lists file's //go:linkname directives that name
// package threshold or a package under it: such a directive reaches an
// unexported function (the Sealer's, a test hook's) past the import rules.
func linknamesToThreshold(fset *token.FileSet, file *ast.File) []token.Position {
	var found []token.Position
	for _, g := range file.Comments {
		for _, c := range g.List {
			directive, ok := strings.CutPrefix(c.Text, "//go:linkname ")
			if ok && strings.Contains(directive, thresholdDir) {
				found = append(found, fset.Position(c.Pos()))
			}
		}
	}
	return found
}

// The linkname detector finds a directive naming threshold or a package
// under it, and no other directive or comment.
func TestLinknamesToThresholdCatch(t *testing.T) {
	tests := []struct {
		name, src string
		want      int
	}{
		{"threshold", "import _ \"unsafe\"\n//go:linkname claim github.com/fabvote/fabvote/crypto/paillier/threshold.claimSealer\nfunc claim()", 1},
		{"under threshold", "//go:linkname seal github.com/fabvote/fabvote/crypto/paillier/threshold/internal/testseal.Seal\nfunc seal()", 1},
		{"in a declaration's doc", "// f does it.\n//go:linkname f github.com/fabvote/fabvote/crypto/paillier/threshold.f\nfunc f()", 1},
		{"another package", "//go:linkname now runtime.nanotime\nfunc now() int64", 0},
		{"a comment naming threshold", "// see crypto/paillier/threshold; //go:linkname is refused there\nfunc f()", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "x.go", "package x\n"+tc.src, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			if got := linknamesToThreshold(fset, f); len(got) != tc.want {
				t.Errorf("found %v, want %d", got, tc.want)
			}
		})
	}
}

// No package of the repository but this one claims threshold's Sealer, and
// this one does: every non-test Go file is parsed (Fabric's in-tree
// packages included, build/ and run/ left out). No Go file, test files
// included, reaches into threshold with //go:linkname.
func TestOnlyTrusteeClaimsTheSealer(t *testing.T) {
	root := repoRoot(t)
	fset := token.NewFileSet()
	var claimers []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if skipDir(rel, d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, p := range linknamesToThreshold(fset, f) {
			t.Errorf("%s:%d: a //go:linkname directive names %s", rel, p.Line, thresholdDir)
		}
		if strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		for _, p := range claimSealerUses(fset, f, dir == thresholdDir) {
			claimers = append(claimers, dir)
			if dir != "internal/trustee" {
				t.Errorf("%s:%d refers to threshold.ClaimSealer: only internal/trustee may claim the Sealer", rel, p.Line)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(claimers, "internal/trustee") {
		t.Fatal("internal/trustee does not call threshold.ClaimSealer: the check looked for the wrong name")
	}
}
