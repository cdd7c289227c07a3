package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestServePprofRefusesNonLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "10.0.0.1:6060", ":6060", "example.com:6060", "nonsense"} {
		if err := servePprof(addr); err == nil {
			t.Errorf("servePprof(%q) succeeded; want an error", addr)
		} else if !strings.Contains(err.Error(), "FABVOTE_PPROF_ADDR") {
			t.Errorf("servePprof(%q) error %q does not name the variable", addr, err)
		}
	}
}

func TestServePprofOnLoopback(t *testing.T) {
	if err := servePprof("127.0.0.1:0"); err != nil {
		t.Fatalf("servePprof on loopback: %v", err)
	}
	// The profile handlers must be registered on the mux the listener serves.
	rec := httptest.NewRecorder()
	http.DefaultServeMux.ServeHTTP(rec, httptest.NewRequest("GET", "/debug/pprof/", nil))
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "goroutine") {
		t.Fatalf("/debug/pprof/ answered %d %q", rec.Code, rec.Body.String())
	}
}
