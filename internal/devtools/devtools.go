//go:build browser

// Package devtools drives a headless Chromium (Debian package chromium)
// over the DevTools protocol, for the real-browser tests of the bulletin
// board and the booth. It is built only with the build tag browser: no
// binary links it.
//
// The browser runs with --remote-debugging-pipe: NUL-terminated JSON
// messages on its file descriptors 3 and 4. One page is attached; Call
// runs a command on it, and events that arrive meanwhile are kept for
// WaitEvent and passed to OnEvent.
package devtools

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

// The phone EmulatePhone emulates: 390 × 844 CSS pixels at 3 device
// pixels each, a mobile viewport (the meta viewport tag applies).
const (
	PhoneWidth  = 390
	PhoneHeight = 844
)

// Chromium returns the browser's path, or skips the test, or fails it
// when FABVOTE_BROWSER_TEST is set (so that CI cannot pass vacuously).
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("FABVOTE_BROWSER_TEST") != "" {
		t.Fatal("FABVOTE_BROWSER_TEST is set but no chromium is installed (Debian package chromium)")
	}
	t.Skip("chromium not installed; set FABVOTE_BROWSER_TEST=1 to make this a failure")
	return ""
}

// Message is one DevTools message: an answer (ID) or an event (Method,
// Params).
type Message struct {
	ID     int
	Method string
	Params json.RawMessage
	Result json.RawMessage
	Error  *struct{ Message string }
}

// Browser is a running headless Chromium with one page attached.
type Browser struct {
	in      io.Writer
	out     *bufio.Reader
	next    int
	session string
	events  []Message // events read while waiting for an answer, oldest first
	// OnEvent, when set, sees every event as it is read.
	OnEvent func(Message)
	// workerDomains are enabled in every worker the page starts (AttachWorkers).
	workerDomains []string
}

// Start starts the browser with extra command-line flags and one page
// attached, and stops it when the test ends.
func Start(t testing.TB, flags ...string) *Browser {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
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
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--user-data-dir=" + profile, "--remote-debugging-pipe"}, flags...)
	cmd := exec.CommandContext(ctx, Chromium(t), append(args, "about:blank")...)
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
	b := &Browser{in: ourEnd, out: bufio.NewReader(fromBrowser)}
	var target struct{ TargetID string }
	b.call(t, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var attached struct{ SessionID string }
	b.call(t, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	b.session = attached.SessionID
	b.Call(t, "Page.enable", nil, nil)
	return b
}

// EmulatePhone makes the page a PhoneWidth × PhoneHeight mobile screen.
func (b *Browser) EmulatePhone(t testing.TB) {
	t.Helper()
	b.Call(t, "Emulation.setDeviceMetricsOverride", map[string]any{
		"width": PhoneWidth, "height": PhoneHeight, "deviceScaleFactor": 3, "mobile": true}, nil)
}

// Call runs one command on the page and waits for its answer; into, when
// given, receives the result.
func (b *Browser) Call(t testing.TB, method string, params any, into any) {
	t.Helper()
	b.call(t, b.session, method, params, into)
}

func (b *Browser) call(t testing.TB, session, method string, params any, into any) {
	t.Helper()
	id := b.send(t, session, method, params)
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

// send sends one command and returns its id.
func (b *Browser) send(t testing.TB, session, method string, params any) int {
	t.Helper()
	b.next++
	msg := map[string]any{"id": b.next, "method": method}
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
	return b.next
}

func (b *Browser) read(t testing.TB, waitingFor string) Message {
	t.Helper()
	raw, err := b.out.ReadBytes(0)
	if err != nil {
		t.Fatalf("waiting for %s: the browser closed its pipe: %v", waitingFor, err)
	}
	var m Message
	if err := json.Unmarshal(raw[:len(raw)-1], &m); err != nil {
		t.Fatalf("waiting for %s: %v", waitingFor, err)
	}
	if m.Method == "Target.attachedToTarget" && b.workerDomains != nil {
		b.startWorker(t, m)
	}
	if m.Method != "" && b.OnEvent != nil {
		b.OnEvent(m)
	}
	return m
}

// AttachWorkers makes the page's workers report to this browser too:
// each worker the page starts is attached, the enable commands (such as
// "Network.enable") run in it, and then it starts. Its events come to
// OnEvent like the page's.
func (b *Browser) AttachWorkers(t testing.TB, enable ...string) {
	t.Helper()
	b.workerDomains = append([]string{}, enable...)
	b.Call(t, "Target.setAutoAttach", map[string]any{"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true}, nil)
}

// startWorker enables the worker domains in a newly attached worker and
// lets it run. The commands are sent without waiting for their answers,
// since it runs while another command may be waiting for its own; the
// answers are read and dropped by that wait.
func (b *Browser) startWorker(t testing.TB, m Message) {
	t.Helper()
	var p struct{ SessionID string }
	if err := json.Unmarshal(m.Params, &p); err != nil {
		t.Fatalf("Target.attachedToTarget: %v", err)
	}
	for _, method := range append(b.workerDomains, "Runtime.runIfWaitingForDebugger") {
		b.send(t, p.SessionID, method, nil)
	}
}

// WaitEvent returns the first event named method, whether it came while
// Call waited for an answer or comes now; events before it are dropped.
// The browser is killed when the test's deadline passes, which ends the
// wait with a failure.
func (b *Browser) WaitEvent(t testing.TB, method string) Message {
	t.Helper()
	for i, m := range b.events {
		if m.Method == method {
			b.events = b.events[i+1:]
			return m
		}
	}
	b.events = nil
	for {
		if m := b.read(t, method); m.Method == method {
			return m
		}
	}
}

// Navigate loads url and waits for its load event.
func (b *Browser) Navigate(t testing.TB, url string) {
	t.Helper()
	b.events = nil // nothing before this navigation is about this page
	b.Call(t, "Page.navigate", map[string]any{"url": url}, nil)
	b.WaitEvent(t, "Page.loadEventFired")
}

// Eval evaluates expression on the page (awaiting a promise) and returns
// its value; an exception fails the test.
func (b *Browser) Eval(t testing.TB, expression string) any {
	t.Helper()
	var res struct {
		Result struct {
			Type  string
			Value any
		}
		ExceptionDetails *struct {
			Text      string
			Exception *struct{ Description string }
		}
	}
	b.Call(t, "Runtime.evaluate", map[string]any{"expression": expression, "returnByValue": true, "awaitPromise": true}, &res)
	if e := res.ExceptionDetails; e != nil {
		if e.Exception != nil {
			t.Fatalf("%s: threw %s", expression, e.Exception.Description)
		}
		t.Fatalf("%s: threw %s", expression, e.Text)
	}
	return res.Result.Value
}

// EvalString is Eval of an expression whose value is a string.
func (b *Browser) EvalString(t testing.TB, expression string) string {
	t.Helper()
	v := b.Eval(t, expression)
	s, ok := v.(string)
	if !ok {
		t.Fatalf("%s: returned %T %v, not a string", expression, v, v)
	}
	return s
}

// WaitFor polls expression until it is true, and fails the test after
// timeout.
func (b *Browser) WaitFor(t testing.TB, expression string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if b.Eval(t, expression) == true {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("timed out after %s waiting for %s", timeout, expression)
}

// Key presses and releases one key: name as DevTools names it ("Tab",
// "Enter", " "), its Windows virtual key code, and the text it types
// ("" for none).
func (b *Browser) Key(t testing.TB, name, code string, keyCode int, text string) {
	t.Helper()
	down := map[string]any{"type": "keyDown", "key": name, "code": code, "windowsVirtualKeyCode": keyCode}
	if text != "" {
		down["text"] = text
	}
	b.Call(t, "Input.dispatchKeyEvent", down, nil)
	b.Call(t, "Input.dispatchKeyEvent", map[string]any{"type": "keyUp", "key": name, "code": code, "windowsVirtualKeyCode": keyCode}, nil)
}

// PhonePage loads url and returns the string that expression evaluates
// to there.
func (b *Browser) PhonePage(t testing.TB, url, expression string) string {
	t.Helper()
	b.Navigate(t, url)
	return b.EvalString(t, expression)
}

// Screenshot writes what the page shows to path (PNG), for a person to
// look at.
func (b *Browser) Screenshot(t testing.TB, path string) {
	t.Helper()
	var shot struct{ Data []byte } // base64 in JSON
	b.Call(t, "Page.captureScreenshot", map[string]any{"format": "png"}, &shot)
	if !bytes.HasPrefix(shot.Data, []byte("\x89PNG")) {
		t.Fatalf("%s: the browser sent no PNG", path)
	}
	if err := os.WriteFile(path, shot.Data, 0o644); err != nil {
		t.Fatal(err)
	}
}
