package fabrun

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/network/fabnet"
)

// TestWaitOrdererStopped: the wait for an orderer that does not run ends
// at once with that reason, not at the deadline.
func TestWaitOrdererStopped(t *testing.T) {
	topo, err := fabnet.Profile("solo-org", freePort(t), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	err = WaitOrderer(ctx, fabnet.Layout{Dir: t.TempDir()}, topo, Home{Dir: t.TempDir()}, "orderer0")
	if err == nil || !strings.Contains(err.Error(), "orderer0 exited") {
		t.Fatalf("WaitOrderer = %v, want orderer0 exited", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("WaitOrderer took %v", d)
	}
}
