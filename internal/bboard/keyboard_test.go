//go:build browser

package bboard

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/internal/devtools"
)

// cdp is a minimal Chrome DevTools Protocol client over
// --remote-debugging-pipe (file descriptors 3 and 4, messages ended by a
// NUL byte), so that the keyboard test needs nothing beyond the standard
// library. Calls are synchronous: events are read and dropped.
type cdp struct {
	t       *testing.T
	w       *os.File
	r       *bufio.Reader
	next    int
	session string
}

func startCDP(t *testing.T) *cdp {
	t.Helper()
	toChrome, ourEnd, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	ourRead, fromChrome, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	cmd := exec.CommandContext(ctx, devtools.Chromium(t), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--user-data-dir="+t.TempDir(), "--remote-debugging-pipe", "--window-size=1280,900", "about:blank")
	cmd.ExtraFiles = []*os.File{toChrome, fromChrome} // fd 3: Chromium reads; fd 4: it writes
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toChrome.Close()
	fromChrome.Close()
	c := &cdp{t: t, w: ourEnd, r: bufio.NewReader(ourRead)}
	t.Cleanup(func() {
		ourEnd.Close() // Chromium exits when its command pipe closes
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		cancel()
		ourRead.Close()
	})
	return c
}

// call sends one command (to the attached page once there is one) and
// returns its result.
func (c *cdp) call(method string, params map[string]any) map[string]any {
	c.t.Helper()
	c.next++
	msg := map[string]any{"id": c.next, "method": method, "params": params}
	if c.session != "" && !strings.HasPrefix(method, "Target.") {
		msg["sessionId"] = c.session
	}
	b, _ := json.Marshal(msg)
	if _, err := c.w.Write(append(b, 0)); err != nil {
		c.t.Fatalf("cdp %s: %v", method, err)
	}
	for {
		line, err := c.r.ReadBytes(0)
		if err != nil {
			c.t.Fatalf("cdp %s: reading: %v", method, err)
		}
		var resp struct {
			ID     int             `json:"id"`
			Result map[string]any  `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(line[:len(line)-1], &resp); err != nil {
			c.t.Fatalf("cdp %s: %v", method, err)
		}
		if resp.ID != c.next {
			continue // an event
		}
		if resp.Error != nil {
			c.t.Fatalf("cdp %s: %s", method, resp.Error)
		}
		return resp.Result
	}
}

// open attaches to a new blank page, then navigates it to url and waits
// until that document has loaded and holds the keyboard focus. Creating the
// target at url directly races: its first document is about:blank, which is
// already "complete", so keys could land before the real page exists.
func (c *cdp) open(url string) {
	c.t.Helper()
	target := c.call("Target.createTarget", map[string]any{"url": "about:blank"})["targetId"]
	c.session, _ = c.call("Target.attachToTarget", map[string]any{"targetId": target, "flatten": true})["sessionId"].(string)
	// A headless page has no window focus unless emulated; without it no
	// element receives keyboard focus.
	c.call("Emulation.setFocusEmulationEnabled", map[string]any{"enabled": true})
	c.call("Page.bringToFront", map[string]any{})
	c.call("Page.navigate", map[string]any{"url": url})
	want, _ := json.Marshal(url)
	c.waitFor(`location.href === new URL(` + string(want) + `).href && document.readyState === "complete" && document.hasFocus()`)
}

// eval returns the value of a JavaScript expression in the page.
func (c *cdp) eval(expr string) any {
	c.t.Helper()
	r := c.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true})
	v, _ := r["result"].(map[string]any)
	return v["value"]
}

func (c *cdp) waitFor(expr string) {
	c.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if c.eval(expr) == true {
			return
		}
	}
	c.t.Fatalf("timed out waiting for %s", expr)
}

// key presses and releases one key, as a keyboard would.
func (c *cdp) key(name string, code int, text string) {
	c.t.Helper()
	down := map[string]any{"type": "keyDown", "key": name, "code": name, "windowsVirtualKeyCode": code}
	if text != "" {
		down["text"] = text
	}
	c.call("Input.dispatchKeyEvent", down)
	c.call("Input.dispatchKeyEvent", map[string]any{"type": "keyUp", "key": name, "code": name, "windowsVirtualKeyCode": code})
}

// screenshot saves the page as the user sees it, focus ring included, to
// the artifacts directory.
func (c *cdp) screenshot(name string) {
	c.t.Helper()
	data, _ := c.call("Page.captureScreenshot", map[string]any{"format": "png"})["data"].(string)
	b, err := base64.StdEncoding.DecodeString(data)
	if err == nil {
		err = os.WriteFile(filepath.Join(artifacts(c.t), name), b, 0o644)
	}
	if err != nil || len(b) < 10000 {
		c.t.Errorf("screenshot %s: %d bytes, %v", name, len(b), err)
	}
}

// focused describes the focused element: tag, id and text.
func (c *cdp) focused() string {
	c.t.Helper()
	s, _ := c.eval(`(function(e){return e.tagName.toLowerCase()+"#"+e.id+" "+(e.textContent||"").trim().slice(0,40)})(document.activeElement)`).(string)
	return s
}

// A voter using only the keyboard: the first Tab reaches the skip link,
// which moves to the main content with a visible focus ring; more Tabs
// reach the search box; typing a hash and pressing Enter shows the answer
// in the live region without leaving the page.
func TestBrowserKeyboard(t *testing.T) {
	site := browserSite(t)
	c := startCDP(t)
	c.open(fileURL(site, "search.html"))

	c.key("Tab", 9, "")
	if f := c.focused(); !strings.HasPrefix(f, "a# Skip to main content") {
		t.Fatalf("first Tab focuses %q, want the skip link", f)
	}
	if o := c.eval(`getComputedStyle(document.activeElement).outlineStyle`); o == "none" {
		t.Error("the focused skip link has no visible outline")
	}
	c.screenshot("keyboard-skip-link.png")
	c.key("Enter", 13, "\r")
	c.waitFor(`location.hash === "#main"`)
	if f := c.focused(); !strings.HasPrefix(f, "main#main") {
		t.Errorf("the skip link moved focus to %q, want main", f)
	}

	var path []string
	for i := 0; i < 20 && !strings.HasPrefix(c.focused(), "input#q"); i++ {
		c.key("Tab", 9, "")
		path = append(path, c.focused())
	}
	if !strings.HasPrefix(c.focused(), "input#q") {
		t.Fatalf("Tab never reached the search box; focus went %q", path)
	}
	t.Logf("Tab order after the skip link: %q", path)
	if o := c.eval(`getComputedStyle(document.activeElement).outlineStyle`); o == "none" {
		t.Error("the focused search box has no visible outline")
	}

	b := ballotN(0)
	c.call("Input.insertText", map[string]any{"text": b.BallotHash})
	c.key("Enter", 13, "\r")
	c.waitFor(`/Found|Not found|Not a ballot/.test(document.getElementById("result").textContent)`)
	got, _ := c.eval(`document.getElementById("result").textContent`).(string)
	if !strings.Contains(got, "Found: your ballot was recorded (counted)") || !strings.Contains(got, b.TxID) {
		t.Errorf("answer after Enter: %q", got)
	}
	c.screenshot("keyboard-search.png")
	if f := c.focused(); !strings.HasPrefix(f, "input#q") {
		t.Errorf("after the search, focus is on %q, want still the search box", f)
	}
	if live := c.eval(`document.getElementById("result").getAttribute("aria-live")`); live != "polite" {
		t.Errorf("answer region aria-live=%v", live)
	}
}
