package delaywork

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/chaincode/internal/stubtest"
)

func TestParseRequest(t *testing.T) {
	key, d, err := ParseRequest([]byte(`{"key":"w-0001","delay":"50ms"}`))
	if err != nil || key != "w-0001" || d != 50*time.Millisecond {
		t.Fatalf("ParseRequest = %q, %v, %v; want w-0001, 50ms, nil", key, d, err)
	}
	for _, tc := range []struct{ name, raw, want string }{
		{"not JSON", `w-0001`, "invalid character"},
		{"unknown field", `{"key":"a","delay":"1ms","cpu":true}`, "unknown field"},
		{"empty", ` `, "request is empty"},
		{"data after the object", `{"key":"a","delay":"1ms"} {}`, "data after"},
		{"stray bracket after the object", `{"key":"a","delay":"1ms"}]`, "data after"},
		{"not an object", `["a","1ms"]`, "cannot unmarshal array"},
		{"empty key", `{"key":"","delay":"1ms"}`, "key of 0 bytes"},
		{"long key", `{"key":"` + strings.Repeat("k", MaxKeyLen+1) + `","delay":"1ms"}`, "key of 65 bytes"},
		{"space in key", `{"key":"a b","delay":"1ms"}`, "not printable"},
		{"control byte in key", `{"key":"a\u0001","delay":"1ms"}`, "not printable"},
		{"delay missing", `{"key":"a"}`, `delay ""`},
		{"delay without unit", `{"key":"a","delay":"50"}`, "missing unit"},
		{"negative delay", `{"key":"a","delay":"-1ms"}`, "want 0..10s"},
		{"delay over the bound", `{"key":"a","delay":"11s"}`, "want 0..10s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ParseRequest([]byte(tc.raw))
			if !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ParseRequest(%s) = %v; want ErrBadRequest naming %q", tc.raw, err, tc.want)
			}
		})
	}
}

func TestWorkReadsSleepsWrites(t *testing.T) {
	stub := stubtest.New()
	var slept []time.Duration
	c := &Contract{sleep: func(d time.Duration) { slept = append(slept, d) }}
	if err := c.Work(stub.Context(), `{"key":"w-1","delay":"200ms"}`); err != nil {
		t.Fatal(err)
	}
	stub.End(true)
	if got := string(stub.State["w-1"]); got != "200ms" || stub.Reads != 1 || len(slept) != 1 || slept[0] != 200*time.Millisecond {
		t.Fatalf("after Work: value %q, %d reads, slept %v; want 200ms, 1 read, [200ms]", got, stub.Reads, slept)
	}
}

func TestWorkRefusesAWrittenKey(t *testing.T) {
	stub := stubtest.New()
	stub.State["w-1"] = []byte("50ms")
	c := &Contract{sleep: func(time.Duration) { t.Fatal("slept for a refused request") }}
	err := c.Work(stub.Context(), `{"key":"w-1","delay":"1ms"}`)
	if !errors.Is(err, ErrWritten) || len(stub.Pending) != 0 {
		t.Fatalf("Work on a written key = %v with %d writes; want ErrWritten, none", err, len(stub.Pending))
	}
}

func TestWorkRefusesABadRequestBeforeReading(t *testing.T) {
	stub := stubtest.New()
	c := &Contract{sleep: func(time.Duration) { t.Fatal("slept for a refused request") }}
	err := c.Work(stub.Context(), `{"key":"w-1","delay":"1h"}`)
	if !errors.Is(err, ErrBadRequest) || stub.Reads != 0 || len(stub.Pending) != 0 {
		t.Fatalf("Work(bad) = %v, %d reads, %d writes; want ErrBadRequest, nothing touched", err, stub.Reads, len(stub.Pending))
	}
}

func TestNewServesTheContract(t *testing.T) {
	cc, err := New()
	if err != nil {
		t.Fatal(err)
	}
	if cc.Info.Title != "delaywork" || cc.DefaultContract != "Contract" {
		t.Fatalf("chaincode info %+v", cc.Info)
	}
}

func FuzzParseRequest(f *testing.F) {
	f.Add([]byte(`{"key":"w-0001","delay":"50ms"}`))
	f.Add([]byte(`{"key":"","delay":"-1s"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		key, d, err := ParseRequest(raw)
		if err != nil {
			if !errors.Is(err, ErrBadRequest) {
				t.Fatalf("error %v does not wrap ErrBadRequest", err)
			}
			return
		}
		if checkKey(key) != nil || d < 0 || d > MaxDelay {
			t.Fatalf("accepted key %q delay %v", key, d)
		}
	})
}
