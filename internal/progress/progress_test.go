package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestLine(t *testing.T) {
	tests := []struct {
		done, total int64
		elapsed     time.Duration
		want        []string
	}{
		{0, 100, 0, []string{"0/100", "0.0%", "eta ?"}},
		{50, 100, 10 * time.Second, []string{"50/100", "50.0%", "5.0/s", "eta 10s"}},
		{100, 100, 20 * time.Second, []string{"100/100", "100.0%", "eta 0s"}},
	}
	for _, tc := range tests {
		got := Line("job", tc.done, tc.total, tc.elapsed)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("Line(%d,%d,%v) = %q, missing %q", tc.done, tc.total, tc.elapsed, got, w)
			}
		}
	}
}

func TestBarFinalLine(t *testing.T) {
	var buf bytes.Buffer
	b := New(&buf, "cast", 4)
	for i := 0; i < 4; i++ {
		b.Add(1)
	}
	b.Finish()
	if b.Done() != 4 {
		t.Fatalf("Done = %d, want 4", b.Done())
	}
	if !strings.Contains(buf.String(), "4/4") {
		t.Fatalf("output %q lacks the final count", buf.String())
	}
}
