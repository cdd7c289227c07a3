package fabrun

import (
	"testing"

	"github.com/fabvote/fabvote/network/fabnet"
)

// testChaincodes is a ballot contract at index 0 and an ordinary one at 1.
func testChaincodes() []fabnet.Chaincode {
	return []fabnet.Chaincode{
		{Name: "ballot", Version: "1.0", Ballot: true},
		{Name: "registry", Version: "1.0"},
	}
}

// threeOrgs is the three-orgs profile from port 7050 with testChaincodes.
func threeOrgs(t testing.TB, hosts map[string]string) *fabnet.Topology {
	t.Helper()
	top, err := fabnet.Profile("three-orgs", 7050, hosts, testChaincodes())
	if err != nil {
		t.Fatalf("Profile(three-orgs): %v", err)
	}
	return top
}
