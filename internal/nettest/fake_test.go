package nettest

import (
	"fmt"
	"runtime"
	"testing"
)

// fakeTB records a helper's failure instead of failing the test, so that
// the unit tests can assert that a helper fails, and how.
type fakeTB struct {
	testing.TB
	failed bool
	msg    string
}

func (f *fakeTB) Helper()                   {}
func (f *fakeTB) Logf(string, ...any)       {}
func (f *fakeTB) Fatal(args ...any)         { f.fail(fmt.Sprint(args...)) }
func (f *fakeTB) Fatalf(s string, a ...any) { f.fail(fmt.Sprintf(s, a...)) }

// fail ends the helper's goroutine, as testing.T's FailNow does.
func (f *fakeTB) fail(msg string) {
	f.failed, f.msg = true, msg
	runtime.Goexit()
}

// failure runs fn with a fakeTB in its own goroutine and returns the
// failure message, or "" if fn did not fail.
func failure(t *testing.T, fn func(tb testing.TB)) string {
	t.Helper()
	f := &fakeTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(f)
	}()
	<-done
	if !f.failed {
		return ""
	}
	if f.msg == "" {
		t.Fatal("a helper failed without a message")
	}
	return f.msg
}
