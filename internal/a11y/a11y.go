// Package a11y checks a page against the accessibility rules the
// project's pages promise (the bulletin board, the booth): a subset of
// WCAG 2.1 that a static check of the HTML can decide. The browser tests
// run it on the DOM a page has at each step.
package a11y

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Problems checks a page against every rule and returns one line per
// problem, each starting with its rule's name.
func Problems(r io.Reader) []string {
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
