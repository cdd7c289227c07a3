package a11y

import (
	"slices"
	"strings"
	"testing"
)

// Each rule catches the fault it is for: a good page passes, and each
// broken variant fails with the rule named (and maybe others: a page
// without an h1 also has its headings out of order).
func TestAccessibilityRulesFail(t *testing.T) {
	const good = `<!DOCTYPE html><html lang="en"><head><title>T</title></head><body>
<a href="#main">Skip to main content</a><main id="main"><h1>Title</h1><h2>Part</h2><h3>Sub</h3>
<form><label for="q">Hash</label><input id="q" name="q"><button type="submit">Go</button></form>
<table><caption>C</caption><tr><th scope="col">A</th></tr><tr><td>1</td></tr></table>
<img src="x.png" alt="x"><a href="index.html">Home page</a></main></body></html>`
	if p := Problems(strings.NewReader(good)); len(p) != 0 {
		t.Fatalf("good page fails: %v", p)
	}
	cases := []struct{ rule, from, to string }{
		{"lang", `<html lang="en">`, `<html>`},
		{"title", `<title>T</title>`, ``},
		{"one-h1", `<h2>Part</h2>`, `<h1>Part</h1><h2>Part</h2>`},
		{"one-h1", `<h1>Title</h1><h2>Part</h2>`, `<h2>Part</h2>`},
		{"heading-order", `<h3>Sub</h3>`, `<h4>Sub</h4>`},
		{"label", `<label for="q">Hash</label>`, `<span>Hash</span>`},
		{"label", `<label for="q">Hash</label>`, `<label for="other">Hash</label>`},
		{"table-caption", `<caption>C</caption>`, ``},
		{"th-scope", `<th scope="col">`, `<th>`},
		{"img-alt", `alt="x"`, ``},
		{"link-text", `>Home page</a>`, `></a>`},
		{"link-text", `>Home page</a>`, `>click here</a>`},
		{"link-local", `href="index.html"`, `href="https://example.org/"`},
		{"skip-link", `<a href="#main">`, `<a href="index.html">`},
		{"skip-link", `<a href="#main">`, `<a href="#nowhere">`},
		{"unique-id", `<input id="q" name="q">`, `<input id="q" name="q"><span id="q"></span>`},
	}
	for _, tc := range cases {
		t.Run(tc.rule, func(t *testing.T) {
			if !strings.Contains(good, tc.from) {
				t.Fatalf("good page lacks %q", tc.from)
			}
			p := Problems(strings.NewReader(strings.Replace(good, tc.from, tc.to, 1)))
			if !slices.ContainsFunc(p, func(s string) bool { return strings.HasPrefix(s, tc.rule+":") }) {
				t.Errorf("got %v, want a %s problem", p, tc.rule)
			}
		})
	}
}
