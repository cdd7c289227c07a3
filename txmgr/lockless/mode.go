package lockless

import (
	"fmt"
	"os"
	"strings"
)

// Mode selects how a Gate orders simulations against commits.
type Mode uint8

const (
	// Locked is Fabric's behaviour: every session holds the read lock from
	// Begin to Done, so a commit waits for all open sessions.
	Locked Mode = iota
	// Lockless lets a session read its first key without any lock and takes
	// the read lock only when it reads more (see the package documentation).
	Lockless
)

// EnvVar names the environment variable ModeFromEnv reads.
const EnvVar = "FABVOTE_COMMIT_GATE"

// String returns the name ParseMode accepts for m.
func (m Mode) String() string {
	switch m {
	case Locked:
		return "locked"
	case Lockless:
		return "lockless"
	default:
		return fmt.Sprintf("Mode(%d)", uint8(m))
	}
}

// ParseMode parses "locked" or "lockless" (case and surrounding blanks are
// ignored).
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "locked":
		return Locked, nil
	case "lockless":
		return Lockless, nil
	default:
		return Locked, fmt.Errorf("lockless: unknown commit gate mode %q (allowed: \"locked\", \"lockless\")", s)
	}
}

// ModeFromEnv reads EnvVar. Unset or empty means Locked, the stock
// behaviour; any other value must be one ParseMode accepts.
func ModeFromEnv() (Mode, error) {
	v, ok := os.LookupEnv(EnvVar)
	if !ok || strings.TrimSpace(v) == "" {
		return Locked, nil
	}
	m, err := ParseMode(v)
	if err != nil {
		return Locked, fmt.Errorf("lockless: environment variable %s=%q is not a commit gate mode (allowed: \"locked\", \"lockless\")", EnvVar, v)
	}
	return m, nil
}
