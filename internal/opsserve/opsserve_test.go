package opsserve

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

func get(t *testing.T, h http.Handler, method, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return rec.Code, rec.Body.String()
}

func TestHealthz(t *testing.T) {
	fail := errors.New("disk gone")
	cases := []struct {
		name   string
		checks map[string]Check
		code   int
		failed []FailedCheck
	}{
		{"no checks", nil, 200, nil},
		{"all pass", map[string]Check{"a": func(context.Context) error { return nil }}, 200, nil},
		{"one fails", map[string]Check{
			"b": func(context.Context) error { return fail },
			"a": func(context.Context) error { return nil },
		}, 503, []FailedCheck{{"b", "disk gone"}}},
		{"sorted", map[string]Check{
			"z": func(context.Context) error { return fail },
			"m": func(context.Context) error { return fail },
		}, 503, []FailedCheck{{"m", "disk gone"}, {"z", "disk gone"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := New()
			for k, v := range c.checks {
				s.AddCheck(k, v)
			}
			code, body := get(t, s.Handler(), "GET", "/healthz")
			if code != c.code {
				t.Fatalf("status %d, want %d: %s", code, c.code, body)
			}
			var h Health
			if err := json.Unmarshal([]byte(body), &h); err != nil {
				t.Fatal(err)
			}
			want := StatusOK
			if c.code != 200 {
				want = StatusUnavailable
			}
			if h.Status != want || h.Time.IsZero() || len(h.FailedChecks) != len(c.failed) {
				t.Fatalf("answer %+v, want status %q and failed %v", h, want, c.failed)
			}
			for i := range c.failed {
				if h.FailedChecks[i] != c.failed[i] {
					t.Errorf("failed[%d] = %+v, want %+v", i, h.FailedChecks[i], c.failed[i])
				}
			}
		})
	}
}

func TestCheckThatHangsFails(t *testing.T) {
	s := New()
	release := make(chan struct{})
	defer close(release)
	s.AddCheck("stuck", func(context.Context) error { <-release; return nil })
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	h := s.RunChecks(ctx)
	if h.Status != StatusUnavailable || len(h.FailedChecks) != 1 || h.FailedChecks[0].Component != "stuck" {
		t.Fatalf("a check past its deadline passed: %+v", h)
	}
}

func TestCheckThatPanicsFails(t *testing.T) {
	s := New()
	s.AddCheck("broken", func(context.Context) error { panic("nil map") })
	s.AddCheck("fine", func(context.Context) error { return nil })
	h := s.RunChecks(context.Background())
	if h.Status != StatusUnavailable || len(h.FailedChecks) != 1 || !strings.Contains(h.FailedChecks[0].Reason, "panicked: nil map") {
		t.Fatalf("a panicking check: %+v", h)
	}
}

func TestMetrics(t *testing.T) {
	s := New()
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: "fabvote_test_things_total", Help: "Things."})
	s.Registry.MustRegister(c)
	c.Add(3)
	code, body := get(t, s.Handler(), "GET", "/metrics")
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	for _, want := range []string{"fabvote_test_things_total 3", "go_goroutines ", "process_cpu_seconds_total "} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

func TestRoutes(t *testing.T) {
	s := New()
	cases := []struct {
		method, path string
		code         int
	}{
		{"GET", "/metrics", 200},
		{"HEAD", "/healthz", 200},
		{"POST", "/metrics", 405},
		{"DELETE", "/healthz", 405},
		{"GET", "/", 404},
		{"GET", "/debug/pprof/", 404},
		{"GET", "/logspec", 404},
	}
	for _, c := range cases {
		if code, _ := get(t, s.Handler(), c.method, c.path); code != c.code {
			t.Errorf("%s %s: %d, want %d", c.method, c.path, code, c.code)
		}
	}
}

func TestServeAndShutdown(t *testing.T) {
	s := New()
	ctx, cancel := context.WithCancel(context.Background())
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr()
	errc := s.Serve(ctx, ln)
	resp, err := http.Get("http://" + addr.String() + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"status":"OK"`) {
		t.Fatalf("GET /healthz: %d %s", resp.StatusCode, body)
	}
	cancel()
	select {
	case err, open := <-errc:
		if open && err != nil {
			t.Fatalf("server ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("server did not stop with its context")
	}
	if _, err := net.DialTimeout("tcp", addr.String(), time.Second); err == nil {
		t.Error("the listener still accepts after shutdown")
	}
}

func TestListenRefuses(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, addr := range []string{"", "not an address", busy.Addr().String()} {
		if ln, err := Listen(addr); err == nil {
			ln.Close()
			t.Errorf("Listen(%q) succeeded", addr)
		}
	}
}

func TestDialCheck(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := DialCheck(addr)(context.Background()); err != nil {
		t.Fatalf("open listener: %v", err)
	}
	ln.Close()
	if err := DialCheck(addr)(context.Background()); err == nil || !strings.Contains(err.Error(), addr) {
		t.Fatalf("closed listener: %v, want an error naming %s", err, addr)
	}
}
