package loadgen

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/chaincode/delaywork"
)

// The records are what delaywork's Work accepts: one fresh key each, the delay asked for.
func TestDelaySourceMatchesTheChaincode(t *testing.T) {
	src, err := NewDelaySource(200*time.Millisecond, 3)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for i := 0; i < 3; i++ {
		rec, err := src.Next()
		if err != nil {
			t.Fatal(err)
		}
		key, d, err := delaywork.ParseRequest(rec)
		if err != nil || d != 200*time.Millisecond || keys[key] {
			t.Fatalf("record %d %s: key %q delay %v err %v; want a fresh key, 200ms", i, rec, key, d, err)
		}
		keys[key] = true
	}
	if _, err := src.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after count records: %v, want io.EOF", err)
	}
	other, _ := NewDelaySource(time.Millisecond, 1)
	rec, _ := other.Next()
	if k, _, _ := delaywork.ParseRequest(rec); keys[k] || strings.SplitN(k, "-", 2)[0] == src.prefix {
		t.Fatalf("two sources share the key prefix %q", src.prefix)
	}
}

func TestDelaySourceRefuses(t *testing.T) {
	if maxWorkDelay != delaywork.MaxDelay {
		t.Fatalf("maxWorkDelay %v, the chaincode's MaxDelay %v", maxWorkDelay, delaywork.MaxDelay)
	}
	for _, tc := range []struct {
		delay time.Duration
		count int
		want  string
	}{
		{-time.Millisecond, 10, "--work-delay"},
		{11 * time.Second, 10, "--work-delay"},
		{time.Millisecond, 0, "--count 0"},
	} {
		if _, err := NewDelaySource(tc.delay, tc.count); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewDelaySource(%v, %d) = %v; want an error naming %s", tc.delay, tc.count, err, tc.want)
		}
	}
}
