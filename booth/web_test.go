package booth

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// readWeb reads one file of the page.
func readWeb(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("web", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Every language has every message, and every message the page names
// exists: a key in data-msg or data-msg-aria in index.html, or in a
// t("key") or UserError("key") of booth.js.
func TestMessagesComplete(t *testing.T) {
	var langs map[string]map[string]string
	if err := json.Unmarshal([]byte(readWeb(t, "messages.json")), &langs); err != nil {
		t.Fatal(err)
	}
	en, ok := langs["en"]
	if !ok || len(langs) < 2 {
		t.Fatalf("messages.json has languages %v, want en and at least one more", slices.Sorted(maps.Keys(langs)))
	}
	for lang, msgs := range langs {
		for k := range en {
			if strings.TrimSpace(msgs[k]) == "" {
				t.Errorf("%s lacks %s", lang, k)
			}
		}
		for k := range msgs {
			if _, ok := en[k]; !ok {
				t.Errorf("%s has %s, which en lacks", lang, k)
			}
		}
	}
	used := regexp.MustCompile(`data-msg(?:-aria)?="([A-Za-z]+)"`).FindAllStringSubmatch(readWeb(t, "index.html"), -1)
	used = append(used, regexp.MustCompile(`(?:\bt|UserError|progress|done|step)\("([A-Za-z]+)"`).FindAllStringSubmatch(readWeb(t, "booth.js"), -1)...)
	used = append(used, regexp.MustCompile(`"(err[A-Z][A-Za-z]+|status[A-Z][A-Za-z]+)"`).FindAllStringSubmatch(readWeb(t, "booth.js"), -1)...)
	if len(used) < 20 {
		t.Fatalf("found only %d message keys in use: the patterns no longer match the page", len(used))
	}
	for _, m := range used {
		if _, ok := en[m[1]]; !ok {
			t.Errorf("the page uses the message %s, which messages.json lacks", m[1])
		}
	}
}

// The page holds no inline script, style or event handler and names no
// other origin: the CSP ('self' only) would block them.
func TestPageNeedsNoUnsafeCSP(t *testing.T) {
	doc, err := html.Parse(strings.NewReader(readWeb(t, "index.html")))
	if err != nil {
		t.Fatal(err)
	}
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		if n.Data == "style" || n.Data == "script" && n.FirstChild != nil {
			t.Errorf("inline <%s>", n.Data)
		}
		for _, a := range n.Attr {
			if a.Key == "style" || strings.HasPrefix(a.Key, "on") {
				t.Errorf("<%s %s=…>: inline style or handler", n.Data, a.Key)
			}
			if (a.Key == "src" || a.Key == "href") && (strings.Contains(a.Val, "//") || strings.HasPrefix(a.Val, "/")) {
				t.Errorf("<%s %s=%q>: not a file of the booth", n.Data, a.Key, a.Val)
			}
		}
	}
	for _, name := range []string{"booth.js", "worker.js"} {
		src := readWeb(t, name)
		for _, bad := range []string{"eval(", "new Function", "innerHTML", "http://", "https://"} {
			if strings.Contains(src, bad) {
				t.Errorf("%s uses %s", name, bad)
			}
		}
	}
}
