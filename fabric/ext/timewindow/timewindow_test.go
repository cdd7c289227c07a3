package timewindow

import (
	"errors"
	"testing"
	"time"
)

func TestCheck(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	w := 15 * time.Minute
	cases := []struct {
		name    string
		ts      time.Time
		window  time.Duration
		present bool
		want    error
	}{
		{"now", now, w, true, nil},
		{"at the past edge", now.Add(-w), w, true, nil},
		{"at the future edge", now.Add(w), w, true, nil},
		{"just too old", now.Add(-w - time.Nanosecond), w, true, ErrOutside},
		{"just too new", now.Add(w + time.Nanosecond), w, true, ErrOutside},
		{"a day old", now.Add(-24 * time.Hour), w, true, ErrOutside},
		{"the epoch", time.Unix(0, 0), w, true, ErrOutside},
		{"missing", time.Time{}, w, false, ErrNoTimestamp},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Check(c.ts, now, c.window, c.present)
			if c.want == nil && err != nil {
				t.Fatalf("rejected: %v", err)
			}
			if c.want != nil && !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
		})
	}
}

func TestCheckRefusesANonPositiveWindow(t *testing.T) {
	now := time.Now()
	for _, w := range []time.Duration{0, -time.Second} {
		if err := Check(now, now, w, true); err == nil {
			t.Fatalf("window %s accepted", w)
		}
	}
}
