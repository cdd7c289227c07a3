package bboard

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// a11yProblems checks a page against the accessibility rules the bulletin
// board promises (a subset of WCAG 2.1 that a static check can decide) and
// returns one line per problem, each starting with its rule's name.
func a11yProblems(r io.Reader) []string {
	doc, err := html.Parse(r)
	if err != nil {
		return []string{"parse: " + err.Error()}
	}
	var nodes []*html.Node
	for n := range doc.Descendants() {
		if n.Type == html.ElementNode {
			nodes = append(nodes, n)
		}
	}
	var out []string
	for _, rule := range []func([]*html.Node) []string{
		ruleLang, ruleTitle, ruleOneH1, ruleHeadingOrder, ruleLabels, ruleTables, ruleImgAlt, ruleLinkText, ruleSkipLink, ruleUniqueIDs,
	} {
		out = append(out, rule(nodes)...)
	}
	return out
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func textOf(n *html.Node) string {
	var sb strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			sb.WriteString(d.Data)
		}
	}
	return strings.Join(strings.Fields(sb.String()), " ")
}

func ruleLang(ns []*html.Node) []string {
	for _, n := range ns {
		if n.DataAtom == atom.Html {
			if v, _ := attr(n, "lang"); strings.TrimSpace(v) != "" {
				return nil
			}
		}
	}
	return []string{"lang: <html> has no lang"}
}

func ruleTitle(ns []*html.Node) []string {
	for _, n := range ns {
		if n.DataAtom == atom.Title && textOf(n) != "" {
			return nil
		}
	}
	return []string{"title: no <title>"}
}

func headingLevel(n *html.Node) int {
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return int(n.Data[1] - '0')
	}
	return 0
}

func ruleOneH1(ns []*html.Node) []string {
	c := 0
	for _, n := range ns {
		if n.DataAtom == atom.H1 {
			c++
		}
	}
	if c != 1 {
		return []string{fmt.Sprintf("one-h1: %d <h1> elements", c)}
	}
	return nil
}

// ruleHeadingOrder: the first heading is an h1, and no heading is more than
// one level below the one before it.
func ruleHeadingOrder(ns []*html.Node) []string {
	prev := 0
	for _, n := range ns {
		l := headingLevel(n)
		if l == 0 {
			continue
		}
		if l > prev+1 {
			return []string{fmt.Sprintf("heading-order: <h%d> %q after <h%d>", l, textOf(n), prev)}
		}
		prev = l
	}
	return nil
}

// ruleLabels: every form field has a <label>, by for= or by enclosing it.
func ruleLabels(ns []*html.Node) []string {
	labelled := map[string]bool{}
	for _, n := range ns {
		if v, ok := attr(n, "for"); ok && n.DataAtom == atom.Label && textOf(n) != "" {
			labelled[v] = true
		}
	}
	var out []string
	for _, n := range ns {
		if n.DataAtom != atom.Input && n.DataAtom != atom.Select && n.DataAtom != atom.Textarea {
			continue
		}
		if t, _ := attr(n, "type"); slices.Contains([]string{"hidden", "submit", "button", "reset"}, t) {
			continue
		}
		id, _ := attr(n, "id")
		if labelled[id] && id != "" || insideLabel(n) {
			continue
		}
		out = append(out, fmt.Sprintf("label: <%s id=%q> has no label", n.Data, id))
	}
	return out
}

func insideLabel(n *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.DataAtom == atom.Label {
			return true
		}
	}
	return false
}

// ruleTables: data tables have a caption, and every header cell a scope.
func ruleTables(ns []*html.Node) []string {
	var out []string
	for _, n := range ns {
		switch n.DataAtom {
		case atom.Table:
			if !hasChild(n, atom.Caption) {
				out = append(out, "table-caption: a <table> has no <caption>")
			}
		case atom.Th:
			if s, _ := attr(n, "scope"); !slices.Contains([]string{"col", "row", "colgroup", "rowgroup"}, s) {
				out = append(out, fmt.Sprintf("th-scope: <th> %q has no scope", textOf(n)))
			}
		}
	}
	return out
}

func hasChild(n *html.Node, a atom.Atom) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.DataAtom == a {
			return true
		}
	}
	return false
}

func ruleImgAlt(ns []*html.Node) []string {
	var out []string
	for _, n := range ns {
		if _, ok := attr(n, "alt"); n.DataAtom == atom.Img && !ok {
			src, _ := attr(n, "src")
			out = append(out, fmt.Sprintf("img-alt: <img src=%q> has no alt", src))
		}
	}
	return out
}

// ruleLinkText: a link says where it goes, and no link leaves the site.
func ruleLinkText(ns []*html.Node) []string {
	vague := []string{"here", "click here", "more", "link", "this"}
	var out []string
	for _, n := range ns {
		href, ok := attr(n, "href")
		if n.DataAtom != atom.A || !ok {
			continue
		}
		t := textOf(n)
		if l, _ := attr(n, "aria-label"); t == "" && l == "" || slices.Contains(vague, strings.ToLower(t)) {
			out = append(out, fmt.Sprintf("link-text: link to %q has text %q", href, t))
		}
		if strings.Contains(href, "//") || strings.HasPrefix(href, "http") || strings.HasPrefix(href, "/") {
			out = append(out, fmt.Sprintf("link-local: link to %q leaves the site", href))
		}
	}
	return out
}

// ruleSkipLink: the first link of the body skips to an element that exists.
func ruleSkipLink(ns []*html.Node) []string {
	for _, n := range ns {
		if n.DataAtom != atom.A {
			continue
		}
		href, _ := attr(n, "href")
		target, ok := strings.CutPrefix(href, "#")
		if !ok || target == "" {
			return []string{fmt.Sprintf("skip-link: the first link goes to %q, not to the main content", href)}
		}
		for _, m := range ns {
			if id, _ := attr(m, "id"); id == target {
				return nil
			}
		}
		return []string{fmt.Sprintf("skip-link: its target #%s does not exist", target)}
	}
	return []string{"skip-link: the page has no link"}
}

func ruleUniqueIDs(ns []*html.Node) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range ns {
		if id, ok := attr(n, "id"); ok {
			if seen[id] {
				out = append(out, fmt.Sprintf("unique-id: id %q twice", id))
			}
			seen[id] = true
		}
	}
	return out
}

// Every generated page passes every rule.
func TestAccessibility(t *testing.T) {
	for _, f := range []*fixture{newFixture("single"), newFixture("threshold").passing(), newFixture("contests").passing()} {
		_, files := build(t, f)
		for name, body := range files {
			if !strings.HasSuffix(name, ".html") {
				continue
			}
			for _, p := range a11yProblems(strings.NewReader(body)) {
				t.Errorf("%s: %s", name, p)
			}
		}
	}
}

// Each rule catches the fault it is for: a good page passes, and each
// broken variant fails with the rule named (and maybe others: a page
// without an h1 also has its headings out of order).
func TestAccessibilityRulesFail(t *testing.T) {
	const good = `<!DOCTYPE html><html lang="en"><head><title>T</title></head><body>
<a href="#main">Skip to main content</a><main id="main"><h1>Title</h1><h2>Part</h2><h3>Sub</h3>
<form><label for="q">Hash</label><input id="q" name="q"><button type="submit">Go</button></form>
<table><caption>C</caption><tr><th scope="col">A</th></tr><tr><td>1</td></tr></table>
<img src="x.png" alt="x"><a href="index.html">Home page</a></main></body></html>`
	if p := a11yProblems(strings.NewReader(good)); len(p) != 0 {
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
			p := a11yProblems(strings.NewReader(strings.Replace(good, tc.from, tc.to, 1)))
			if !slices.ContainsFunc(p, func(s string) bool { return strings.HasPrefix(s, tc.rule+":") }) {
				t.Errorf("got %v, want a %s problem", p, tc.rule)
			}
		})
	}
}
