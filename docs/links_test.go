package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// markdownFiles returns README.md and every Markdown file under docs/, as
// paths relative to this directory (the test runs in docs/).
func markdownFiles(t *testing.T) []string {
	t.Helper()
	files := []string{filepath.Join("..", "README.md")}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (d.Name() == "cli" || strings.HasPrefix(d.Name(), ".")) {
			// docs/cli is generated from the CLI and checked by its own generator.
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// prose returns the lines of a Markdown file outside fenced code blocks,
// with inline code spans removed, each with its line number.
func prose(t *testing.T, path string) (lines []string, numbers []int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fence := false
	for i, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		lines = append(lines, codeSpanRE.ReplaceAllString(l, "``"))
		numbers = append(numbers, i+1)
	}
	return lines, numbers
}

var (
	codeSpanRE = regexp.MustCompile("`[^`]*`")
	// [text](target) and ![alt](target); the target ends at the first
	// space (an optional title follows) or closing parenthesis.
	linkRE = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	// A path to a file of docs/ named in running text or code, which must
	// exist as written, relative to the repository root.
	docsPathRE = regexp.MustCompile(`(?:^|[\s(` + "`" + `"'])(docs/[A-Za-z0-9_./-]*[A-Za-z0-9_/-])`)
)

// ignoredRoots are the repository's top-level directories that git ignores
// (.gitignore): made by the build and the tools, never committed.
var ignoredRoots = map[string]bool{"build": true, "bin": true, "run": true, ".cache": true}

// inRepository reports whether path (relative to docs/) stays inside the
// repository and outside its ignored directories.
func inRepository(path string) bool {
	rel := filepath.ToSlash(filepath.Clean(filepath.Join("docs", path)))
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return false
	}
	first, _, _ := strings.Cut(rel, "/")
	return !ignoredRoots[first]
}

// Every relative link in README.md and docs/ points to a file or
// directory of the repository, and no link leaves the repository.
func TestLinksResolve(t *testing.T) {
	checked := 0
	for _, md := range markdownFiles(t) {
		lines, numbers := prose(t, md)
		for i, l := range lines {
			for _, m := range linkRE.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					t.Errorf("%s:%d: link outside the repository: %s", md, numbers[i], target)
					continue
				}
				file, _, _ := strings.Cut(target, "#")
				if file == "" { // an anchor in the same file
					continue
				}
				checked++
				p := filepath.Join(filepath.Dir(md), filepath.FromSlash(file))
				if !inRepository(p) {
					t.Errorf("%s:%d: link %q points outside the repository's committed files", md, numbers[i], target)
					continue
				}
				if _, err := os.Stat(p); err != nil {
					t.Errorf("%s:%d: broken link %q: %s does not exist", md, numbers[i], target, p)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative link found: the checker would not notice a broken one")
	}
}

// A path such as docs/bench/raw/… or docs/PROTOCOL.md named anywhere in
// README.md or docs/ (code included) names a file or directory that exists.
func TestDocsPathsExist(t *testing.T) {
	checked := 0
	for _, md := range markdownFiles(t) {
		b, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		for n, l := range strings.Split(string(b), "\n") {
			for _, m := range docsPathRE.FindAllStringSubmatch(l, -1) {
				p := strings.TrimSuffix(m[1], ".")
				if strings.ContainsAny(p, "*<>") {
					continue
				}
				checked++
				if _, err := os.Stat(filepath.Join("..", filepath.FromSlash(p))); err != nil {
					t.Errorf("%s:%d: names %s, which is not in the repository", md, n+1, p)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no docs/ path found: the checker would not notice a missing one")
	}
}

// The names these checks look for are assembled from parts, so that this
// file, which the same rules cover, does not spell them itself.
var (
	tracker  = "iss" + "ue"           // the word of a tracker reference
	noteName = "des" + "ign" + `\.md` // the maintainers' note outside the repository
	noteRE   = regexp.MustCompile(`(?i)` + noteName)
	// The tracker word with a number (optionally after '#', also in the
	// plural), or '#' and a number standing alone.
	trackerRE = regexp.MustCompile(`(?i)\b` + tracker + `s?\s+#?\d+|(?:^|[\s(\[])#\d+\b`)
)

// The documentation describes the product: it names no file outside the
// repository such as the maintainers' note, and no tracker numbers.
func TestNoOutsideReferences(t *testing.T) {
	for _, md := range markdownFiles(t) {
		b, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		for n, l := range strings.Split(string(b), "\n") {
			if m := noteRE.FindString(l); m != "" {
				t.Errorf("%s:%d: names %s, which is not part of the repository's documentation", md, n+1, m)
			}
			if m := trackerRE.FindString(l); m != "" {
				t.Errorf("%s:%d: tracker reference %q", md, n+1, strings.TrimSpace(m))
			}
		}
	}
}

// The checks above notice what they are meant to notice.
func TestLinkCheckersCatch(t *testing.T) {
	if m := linkRE.FindStringSubmatch("see [the spec](PROTOCOL.md#7-1) and"); m == nil || m[1] != "PROTOCOL.md#7-1" {
		t.Errorf("linkRE: %q", m)
	}
	if m := linkRE.FindStringSubmatch(`![plot](bench/x.png "title")`); m == nil || m[1] != "bench/x.png" {
		t.Errorf("linkRE with title: %q", m)
	}
	for path, want := range map[string]bool{
		"PROTOCOL.md": true, "../README.md": true, "../network/README.md": true,
		"../run/demo/site/index.html": false, "../../shared/x.md": false, "../build/x": false,
	} {
		if inRepository(path) != want {
			t.Errorf("inRepository(%q) = %v", path, !want)
		}
	}
	if m := docsPathRE.FindStringSubmatch("raw reports in `docs/bench/raw/2026-11-25-o4-40k`;"); m == nil || m[1] != "docs/bench/raw/2026-11-25-o4-40k" {
		t.Errorf("docsPathRE: %q", m)
	}
	upper := strings.ToUpper(tracker[:1]) + tracker[1:]
	for _, s := range []string{"see " + tracker + " 12", upper + " #7", tracker + "s 3 and 4", "(#" + "12)", "done in #" + "3"} {
		if !trackerRE.MatchString(s) {
			t.Errorf("%q is not caught", s)
		}
	}
	if note := "../shared/" + strings.ToUpper("des"+"ign") + ".md"; !noteRE.MatchString(note) {
		t.Errorf("%q is not caught", note)
	}
	for _, s := range []string{"PKCS#11", "a PKCS#11 token", "C#", "t" + tracker + " 3"} {
		if trackerRE.MatchString(s) {
			t.Errorf("%q is caught as a tracker reference", s)
		}
	}
}
