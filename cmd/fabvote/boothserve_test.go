package main

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/booth"
	"github.com/fabvote/fabvote/internal/registrar"
)

// writeBoothDir writes a small booth and returns its directory and digest.
func writeBoothDir(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{"index.html": "<!DOCTYPE html><title>booth</title>", "booth.js": "1"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := booth.Digest(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, d
}

// `ea serve --booth` serves the booth the manifest commits to beside the
// registration endpoint, and refuses to start with any other.
func TestServeBooth(t *testing.T) {
	dir, digest := writeBoothDir(t)
	e := newServeEnv(t, 2, 10)
	e.m.BoothDigest = digest
	raw, err := e.m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(e.p("manifest.json"), raw, 0o644)
	boothArgs := []string{"--init-state", "--booth", dir, "--box", "https://box.example:8443", "--board", "https://board.example/"}
	s, err := startServe(t, e.serveArgs(boothArgs...))
	if err != nil {
		t.Fatal(err)
	}
	pem, _ := os.ReadFile(e.p("ca.crt"))
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := hc.Get(s.url + "/booth/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "connect-src 'self' https://box.example:8443;") {
		t.Fatalf("/booth/: HTTP %d, CSP %q", resp.StatusCode, resp.Header.Get("Content-Security-Policy"))
	}
	if _, err := e.client(t, s.url).Register(t.Context(), &registrar.Request{ElectionID: "serve-1", VoterID: e.codes[0][0], Code: e.codes[0][1], VoterPub: newVoterPub(t)}); err != nil {
		t.Fatalf("registration beside the booth: %v", err)
	}

	os.WriteFile(filepath.Join(dir, "booth.js"), []byte("2"), 0o644)
	changed, _ := booth.Digest(dir)
	if code, errs := fv(t, e.serveArgs(boothArgs[1:]...)...); code != 1 || !strings.Contains(errs, digest) || !strings.Contains(errs, changed) {
		t.Fatalf("changed booth: exit %d, %s; want exit 1 naming %s and %s", code, errs, digest, changed)
	}
	for _, args := range [][]string{{"--booth", dir}, {"--box", "https://box.example"}} {
		if code, errs := fv(t, e.serveArgs(args...)...); code != 2 || !strings.Contains(errs, "--box") {
			t.Errorf("%v: exit %d, %s; want a usage error", args, code, errs)
		}
	}
}
