//go:build browser

package bboard

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/internal/devtools"
)

// keyboardPage opens url in a browser whose page takes the keyboard
// focus (a headless page has none unless emulated) and waits until the
// document has loaded and holds it.
func keyboardPage(t *testing.T, url string) *devtools.Browser {
	t.Helper()
	b := devtools.Start(t, "--window-size=1280,900")
	b.Call(t, "Emulation.setFocusEmulationEnabled", map[string]any{"enabled": true}, nil)
	b.Call(t, "Page.bringToFront", nil, nil)
	b.Navigate(t, url)
	b.WaitFor(t, `document.readyState === "complete" && document.hasFocus()`, 20*time.Second)
	return b
}

// focused describes the focused element: tag, id and text.
func focused(t *testing.T, b *devtools.Browser) string {
	t.Helper()
	return b.EvalString(t, `(function(e){return e.tagName.toLowerCase()+"#"+e.id+" "+(e.textContent||"").trim().slice(0,40)})(document.activeElement)`)
}

func tab(t *testing.T, b *devtools.Browser)   { b.Key(t, "Tab", "Tab", 9, "") }
func enter(t *testing.T, b *devtools.Browser) { b.Key(t, "Enter", "Enter", 13, "\r") }

// A voter using only the keyboard: the first Tab reaches the skip link,
// which moves to the main content with a visible focus ring; more Tabs
// reach the search box; typing a hash and pressing Enter shows the answer
// in the live region without leaving the page.
func TestBrowserKeyboard(t *testing.T) {
	site := browserSite(t)
	c := keyboardPage(t, fileURL(site, "search.html"))

	tab(t, c)
	if f := focused(t, c); !strings.HasPrefix(f, "a# Skip to main content") {
		t.Fatalf("first Tab focuses %q, want the skip link", f)
	}
	if o := c.Eval(t, `getComputedStyle(document.activeElement).outlineStyle`); o == "none" {
		t.Error("the focused skip link has no visible outline")
	}
	c.Screenshot(t, filepath.Join(artifacts(t), "keyboard-skip-link.png"))
	enter(t, c)
	c.WaitFor(t, `location.hash === "#main"`, 20*time.Second)
	if f := focused(t, c); !strings.HasPrefix(f, "main#main") {
		t.Errorf("the skip link moved focus to %q, want main", f)
	}

	var path []string
	for i := 0; i < 20 && !strings.HasPrefix(focused(t, c), "input#q"); i++ {
		tab(t, c)
		path = append(path, focused(t, c))
	}
	if !strings.HasPrefix(focused(t, c), "input#q") {
		t.Fatalf("Tab never reached the search box; focus went %q", path)
	}
	t.Logf("Tab order after the skip link: %q", path)
	if o := c.Eval(t, `getComputedStyle(document.activeElement).outlineStyle`); o == "none" {
		t.Error("the focused search box has no visible outline")
	}

	b := ballotN(0)
	c.Call(t, "Input.insertText", map[string]any{"text": b.BallotHash}, nil)
	enter(t, c)
	c.WaitFor(t, `/Found|Not found|Not a ballot/.test(document.getElementById("result").textContent)`, 20*time.Second)
	got, _ := c.Eval(t, `document.getElementById("result").textContent`).(string)
	if !strings.Contains(got, "Found: your ballot was recorded (counted)") || !strings.Contains(got, b.TxID) {
		t.Errorf("answer after Enter: %q", got)
	}
	c.Screenshot(t, filepath.Join(artifacts(t), "keyboard-search.png"))
	if f := focused(t, c); !strings.HasPrefix(f, "input#q") {
		t.Errorf("after the search, focus is on %q, want still the search box", f)
	}
	if live := c.Eval(t, `document.getElementById("result").getAttribute("aria-live")`); live != "polite" {
		t.Errorf("answer region aria-live=%v", live)
	}
}
