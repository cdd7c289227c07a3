package nettest

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// CLI runs the fabvote binary Bin in the working directory Dir, where the
// relative paths of its arguments (an election's "el", …) land.
type CLI struct {
	Bin string
	Dir string
}

// Run runs fabvote with args and returns its combined output and exit
// code. A binary that cannot be started fails the test: tests assert on
// the exit code of a command that ran, never on a missing binary.
func (c CLI) Run(t testing.TB, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(c.Bin, args...)
	cmd.Dir = c.Dir
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(out), ee.ExitCode()
	}
	if err != nil {
		t.Fatalf("fabvote %s: %v", strings.Join(args, " "), err)
	}
	return string(out), 0
}

// Must runs fabvote with args and fails the test unless it exits 0. The
// failure shows the last 40 lines of the output, where the CLI names its
// error.
func (c CLI) Must(t testing.TB, args ...string) string {
	t.Helper()
	out, code := c.Run(t, args...)
	if code != 0 {
		t.Fatalf("fabvote %s: exit %d\n%s", strings.Join(args, " "), code, Tail(out, 40))
	}
	return out
}
