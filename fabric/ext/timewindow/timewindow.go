// Package timewindow is the proposal timestamp check of fabvote's Fabric fork
// (CVE-2024-45244).
//
// A signed proposal carries the client's timestamp in its channel header.
// Fabric 2.5 never compares it with the peer's clock on the endorsement path,
// so a proposal signed long ago (or dated far ahead) is endorsed as if fresh,
// and a captured proposal can be replayed for endorsement at any time. The
// fork rejects a proposal whose timestamp lies further than the window from
// the peer's clock, on both ways a proposal reaches the endorser: the gRPC
// Endorser service and the Gateway, which calls the endorser in-process.
package timewindow

import (
	"errors"
	"fmt"
	"time"
)

// Default is the window when the peer configures none: the value of
// peer.authentication.timewindow in Fabric's sample core.yaml.
const Default = 15 * time.Minute

// ErrOutside is wrapped by every rejection.
var ErrOutside = errors.New("proposal timestamp outside the peer's time window")

// ErrNoTimestamp: the channel header has no timestamp at all.
var ErrNoTimestamp = errors.New("proposal has no timestamp")

// Check returns an error unless ts lies in [now-window, now+window]. A zero or
// negative window is a configuration error, not "no check": it is reported
// rather than taken as permission.
func Check(ts, now time.Time, window time.Duration, present bool) error {
	if window <= 0 {
		return fmt.Errorf("time window %s is not positive", window)
	}
	if !present {
		return ErrNoTimestamp
	}
	if ts.Before(now.Add(-window)) || ts.After(now.Add(window)) {
		return fmt.Errorf("%w: proposal time %s, peer time %s, window %s",
			ErrOutside, ts.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339), window)
	}
	return nil
}
