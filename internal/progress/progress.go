// Package progress draws a small progress bar for fabvote's long bulk jobs
// (generating and casting tens of thousands of ballots), so an operator can see
// the rate and the time left. On a terminal it redraws one line; elsewhere (CI
// logs) it prints a line every tenth of the job, so logs stay short.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Bar counts completed units of a job of known size. Add is safe for
// concurrent use; drawing happens on a separate ticker goroutine.
type Bar struct {
	label string
	total int64
	done  atomic.Int64
	out   io.Writer
	tty   bool
	start time.Time
	stop  chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
	tenth int64
}

// New starts a bar writing to out (usually os.Stderr).
func New(out io.Writer, label string, total int) *Bar {
	b := &Bar{label: label, total: int64(total), out: out, start: time.Now(), stop: make(chan struct{})}
	if f, ok := out.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			b.tty = true
		}
	}
	b.wg.Add(1)
	go b.loop()
	return b
}

// Add records n more completed units.
func (b *Bar) Add(n int) { b.done.Add(int64(n)) }

// Done returns the number of completed units.
func (b *Bar) Done() int64 { return b.done.Load() }

// Finish stops the ticker and prints the final line with the overall rate.
func (b *Bar) Finish() {
	close(b.stop)
	b.wg.Wait()
	b.draw(true)
}

func (b *Bar) loop() {
	defer b.wg.Done()
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
			b.draw(false)
		}
	}
}

// Line renders the bar's text for done of total after elapsed.
func Line(label string, done, total int64, elapsed time.Duration) string {
	const width = 30
	frac := 0.0
	if total > 0 {
		frac = float64(done) / float64(total)
	}
	if frac > 1 {
		frac = 1
	}
	filled := int(frac * width)
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(done) / s
	}
	eta := "?"
	if rate > 0 && total >= done {
		eta = (time.Duration(float64(total-done)/rate) * time.Second).Round(time.Second).String()
	}
	return fmt.Sprintf("%s [%s%s] %d/%d %5.1f%% %.1f/s eta %s", label,
		strings.Repeat("#", filled), strings.Repeat(".", width-filled),
		done, total, 100*frac, rate, eta)
}

func (b *Bar) draw(final bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	done := b.done.Load()
	line := Line(b.label, done, b.total, time.Since(b.start))
	switch {
	case b.tty && final:
		fmt.Fprintf(b.out, "\r%s\n", line)
	case b.tty:
		fmt.Fprintf(b.out, "\r%s", line)
	default:
		tenth := int64(0)
		if b.total > 0 {
			tenth = done * 10 / b.total
		}
		if final || tenth > b.tenth {
			b.tenth = tenth
			fmt.Fprintln(b.out, line)
		}
	}
}
