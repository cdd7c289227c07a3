//go:build browser

package bboard

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"
)

// The phone the layout test emulates: 390 × 844 CSS pixels at 3 device
// pixels each, a mobile viewport (the meta viewport tag applies).
const (
	phoneWidth  = 390
	phoneHeight = 844
)

// devTools is a headless Chromium driven over the DevTools protocol on a
// pipe (--remote-debugging-pipe: NUL-terminated JSON messages on the
// browser's file descriptors 3 and 4), with one page attached.
type devTools struct {
	in      io.Writer
	out     *bufio.Reader
	next    int
	session string
	events  []devToolsMessage // events read while waiting for an answer, oldest first
}

// startDevTools starts the browser with one page attached and stops it when
// the test ends.
func startDevTools(t *testing.T) *devTools {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	toBrowser, ourEnd, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromBrowser, browserEnd, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	// The profile is removed once the browser has exited with its helper
	// processes, which write to it until then (t.TempDir's cleanup could
	// run first and fail on a directory not yet empty).
	profile, err := os.MkdirTemp("", "fabvote-devtools-")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, chromium(t), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--user-data-dir="+profile, "--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{toBrowser, browserEnd} // fds 3 and 4
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toBrowser.Close()
	browserEnd.Close()
	t.Cleanup(func() {
		// Closing its pipe asks the browser to quit; it is killed only if
		// it has not within 20 s.
		ourEnd.Close()
		stop := time.AfterFunc(20*time.Second, cancel)
		cmd.Wait()
		stop.Stop()
		cancel()
		fromBrowser.Close()
		for range 10 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
	})
	b := &devTools{in: ourEnd, out: bufio.NewReader(fromBrowser)}
	var target struct{ TargetID string }
	b.call(t, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var attached struct{ SessionID string }
	b.call(t, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	b.session = attached.SessionID
	b.call(t, b.session, "Emulation.setDeviceMetricsOverride", map[string]any{
		"width": phoneWidth, "height": phoneHeight, "deviceScaleFactor": 3, "mobile": true}, nil)
	b.call(t, b.session, "Page.enable", nil, nil)
	return b
}

// call sends one command and waits for its answer, skipping events; into,
// when given, receives the result.
func (b *devTools) call(t *testing.T, session, method string, params any, into any) {
	t.Helper()
	b.next++
	id := b.next
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	raw, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.in.Write(append(raw, 0)); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	for {
		m := b.read(t, method)
		if m.ID != id {
			if m.Method != "" {
				b.events = append(b.events, m) // an event may come before the answer it follows from
			}
			continue
		}
		if m.Error != nil {
			t.Fatalf("%s: %s", method, m.Error.Message)
		}
		if into != nil {
			if err := json.Unmarshal(m.Result, into); err != nil {
				t.Fatalf("%s: %v", method, err)
			}
		}
		return
	}
}

type devToolsMessage struct {
	ID     int
	Method string
	Result json.RawMessage
	Error  *struct{ Message string }
}

func (b *devTools) read(t *testing.T, waitingFor string) devToolsMessage {
	t.Helper()
	raw, err := b.out.ReadBytes(0)
	if err != nil {
		t.Fatalf("waiting for %s: the browser closed its pipe: %v", waitingFor, err)
	}
	var m devToolsMessage
	if err := json.Unmarshal(raw[:len(raw)-1], &m); err != nil {
		t.Fatalf("waiting for %s: %v", waitingFor, err)
	}
	return m
}

// phonePage loads url in the emulated phone, waits for its load event and
// returns the string that expression evaluates to there.
func (b *devTools) phonePage(t *testing.T, url, expression string) string {
	t.Helper()
	b.events = nil // nothing before this navigation is about this page
	b.call(t, b.session, "Page.navigate", map[string]any{"url": url}, nil)
	b.waitEvent(t, "Page.loadEventFired")
	var res struct {
		Result struct {
			Type  string
			Value any
		}
		ExceptionDetails *struct{ Text string }
	}
	b.call(t, b.session, "Runtime.evaluate", map[string]any{"expression": expression, "returnByValue": true}, &res)
	if res.ExceptionDetails != nil {
		t.Fatalf("%s: the probe threw: %s", url, res.ExceptionDetails.Text)
	}
	s, ok := res.Result.Value.(string)
	if !ok {
		t.Fatalf("%s: the probe returned %s, not a string", url, res.Result.Type)
	}
	return s
}

// waitEvent returns once an event named method has come, whether it came
// while call waited for an answer or comes now. The browser is killed when
// the test's deadline passes, which ends the wait with a failure.
func (b *devTools) waitEvent(t *testing.T, method string) {
	t.Helper()
	for i, m := range b.events {
		if m.Method == method {
			b.events = b.events[i+1:]
			return
		}
	}
	b.events = nil
	for b.read(t, method).Method != method {
	}
}

// screenshot writes what the emulated phone shows to path (PNG), for a
// person to look at.
func (b *devTools) screenshot(t *testing.T, path string) {
	t.Helper()
	var shot struct{ Data []byte } // base64 in JSON
	b.call(t, b.session, "Page.captureScreenshot", map[string]any{"format": "png"}, &shot)
	if !bytes.HasPrefix(shot.Data, []byte("\x89PNG")) {
		t.Fatalf("%s: the browser sent no PNG", path)
	}
	if err := os.WriteFile(path, shot.Data, 0o644); err != nil {
		t.Fatal(err)
	}
}
