package fabnet

import (
	"fmt"

	"github.com/fabvote/fabvote/network/portplan"
)

// AddOrg appends a peer organisation to the topology in the next slot of
// the port plan from basePort (network/portplan), with its MSP id and
// domain derived from its name.
func (t *Topology) AddOrg(name, host string, basePort int) error {
	if !labelRE.MatchString(name) {
		return fmt.Errorf("organisation %q: not a DNS label", name)
	}
	if t.Writers == WritersSignature {
		// The new organisation's clients would be no writers of the channel
		// until the policy named them; fabnet's update adds the organisation
		// to the Application group only.
		return fmt.Errorf("organisation %s: the channel's Writers is a signature policy that names each organisation, and adding one does not update it; add organisations to a channel with Fabric's ImplicitMeta Writers", name)
	}
	j := len(t.Orgs)
	if j >= portplan.MaxPeerOrgs {
		return fmt.Errorf("organisation %s: the port plan holds at most %d peer organisations", name, portplan.MaxPeerOrgs)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	t.Orgs = append(t.Orgs, newPeerOrg(name, host, basePort, j, t.Chaincodes))
	if err := t.Check(); err != nil {
		t.Orgs = t.Orgs[:j]
		return err
	}
	return nil
}
