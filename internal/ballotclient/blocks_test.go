package ballotclient

import (
	"testing"

	"github.com/fabvote/fabvote/internal/chain"
	"github.com/fabvote/fabvote/internal/gateway"
)

// TestBlocksFollowsOwnOrgOnly: with OwnOrgOnly the block reader is the
// connection's own-org qscc (gateway.Conn.HeightInOwnOrg, BlockInOwnOrg,
// tested in package gateway), without it the connection's plain one.
func TestBlocksFollowsOwnOrgOnly(t *testing.T) {
	conn := &gateway.Conn{}
	for _, tc := range []struct {
		ownOrgOnly bool
		want       chain.Reader
	}{
		{false, conn},
		{true, ownOrgBlocks{conn}},
	} {
		c := &Client{Conn: conn, OwnOrgOnly: tc.ownOrgOnly}
		if got := c.Blocks(); got != tc.want {
			t.Errorf("OwnOrgOnly %v: Blocks() = %#v, want %#v", tc.ownOrgOnly, got, tc.want)
		}
	}
}
