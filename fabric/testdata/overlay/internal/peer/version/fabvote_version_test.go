/*
SPDX-License-Identifier: Apache-2.0
*/

package version

import (
	"strings"
	"testing"

	"github.com/hyperledger/fabric/common/metadata"
)

// TestFabvotePatchSeriesInPeerVersion: `peer version` (and the start-up log,
// which prints the same text) names the fork's patch series.
func TestFabvotePatchSeriesInPeerVersion(t *testing.T) {
	saved := metadata.FabvotePatches
	defer func() { metadata.FabvotePatches = saved }()
	metadata.FabvotePatches = "0016 sha256:0123456789ab"
	if !strings.Contains(GetInfo(), "\n fabvote patch series: 0016 sha256:0123456789ab\n") {
		t.Fatalf("peer version does not name the patch series:\n%s", GetInfo())
	}
}
