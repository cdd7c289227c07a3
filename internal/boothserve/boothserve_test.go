package boothserve

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/booth"
)

var testFiles = map[string]string{
	"index.html":   "<!DOCTYPE html><title>b</title>",
	"booth.css":    "body{}",
	"booth.js":     "x()",
	"booth.wasm":   "\x00asm",
	"config.json":  `{"electionID":"stale"}`,
	"sub/data.bin": "bytes",
}

var testConfig = Config{ElectionID: "e1", BoxURL: "https://box.example:8443/", BoardURL: "https://board.example/e1/"}

func boothDir(t *testing.T) (dir, digest string) {
	t.Helper()
	dir = t.TempDir()
	for p, c := range testFiles {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	digest, err := booth.Digest(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, digest
}

// Every file is served with its type and the booth's headers;
// config.json is the generated one, not the directory's.
func TestServe(t *testing.T) {
	dir, digest := boothDir(t)
	h, err := New(dir, digest, testConfig)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	conf, _ := json.Marshal(testConfig)
	tests := []struct {
		path, wantType, wantBody string
	}{
		{"/booth/", "text/html; charset=utf-8", testFiles["index.html"]},
		{"/booth/index.html", "text/html; charset=utf-8", testFiles["index.html"]},
		{"/booth/booth.css", "text/css; charset=utf-8", testFiles["booth.css"]},
		{"/booth/booth.js", "text/javascript; charset=utf-8", testFiles["booth.js"]},
		{"/booth/booth.wasm", "application/wasm", testFiles["booth.wasm"]},
		{"/booth/sub/data.bin", "application/octet-stream", testFiles["sub/data.bin"]},
		{"/booth/config.json", "application/json", string(conf)},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			resp, err := http.Get(srv.URL + tc.path)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK || string(body) != tc.wantBody {
				t.Fatalf("HTTP %d %q, want 200 %q", resp.StatusCode, body, tc.wantBody)
			}
			for k, want := range map[string]string{
				"Content-Type":            tc.wantType,
				"Content-Security-Policy": CSP("https://box.example:8443"),
				"X-Content-Type-Options":  "nosniff",
				"Referrer-Policy":         "no-referrer",
			} {
				if got := resp.Header.Get(k); got != want {
					t.Errorf("%s: %q, want %q", k, got, want)
				}
			}
		})
	}
}

// What is not a booth file is refused, with the booth's headers still set.
func TestServeRefuses(t *testing.T) {
	dir, digest := boothDir(t)
	h, err := New(dir, digest, testConfig)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		method, path string
		wantStatus   int
	}{
		{http.MethodGet, "/booth/missing.js", http.StatusNotFound},
		{http.MethodGet, "/booth/../etc/passwd", http.StatusNotFound},
		{http.MethodGet, "/other", http.StatusNotFound},
		{http.MethodPost, "/booth/index.html", http.StatusMethodNotAllowed},
		{http.MethodGet, "/booth", http.StatusMovedPermanently},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			w := httptest.NewRecorder()
			r := httptest.NewRequest(tc.method, "http://x"+tc.path, nil)
			h.ServeHTTP(w, r)
			if w.Code != tc.wantStatus || w.Header().Get("Content-Security-Policy") == "" {
				t.Fatalf("HTTP %d (CSP %q), want %d with the CSP", w.Code, w.Header().Get("Content-Security-Policy"), tc.wantStatus)
			}
		})
	}
}

// New refuses a booth whose digest is not the manifest's, a manifest
// without one, and settings that are no URLs of the right scheme.
func TestNewRefuses(t *testing.T) {
	dir, digest := boothDir(t)
	other := "sha256:" + strings.Repeat("0", 64)
	tests := []struct {
		name   string
		want   string
		cfg    Config
		errHas []string
	}{
		{"other digest", other, testConfig, []string{digest, other}},
		{"no digest", "", testConfig, []string{"no boothDigest", "--booth-digest"}},
		{"box not https", digest, Config{ElectionID: "e1", BoxURL: "http://box", BoardURL: "https://b/"}, []string{"--box", "https"}},
		{"box relative", digest, Config{ElectionID: "e1", BoxURL: "/box", BoardURL: "https://b/"}, []string{"--box", "absolute"}},
		{"board missing", digest, Config{ElectionID: "e1", BoxURL: "https://box"}, []string{"--board"}},
		{"board file", digest, Config{ElectionID: "e1", BoxURL: "https://box", BoardURL: "file:///tmp/site"}, []string{"--board"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(dir, tc.want, tc.cfg)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, s := range tc.errHas {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not name %q", err, s)
				}
			}
		})
	}
	if _, err := New(filepath.Join(dir, "none"), digest, testConfig); err == nil || !strings.Contains(err.Error(), "--booth") {
		t.Errorf("missing directory: %v, want a --booth error", err)
	}
}
