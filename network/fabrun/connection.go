package fabrun

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/network/fabnet"
	"github.com/fabvote/fabvote/network/netjson"
)

// WriteConnection writes the org's network.json (fabnet.OrgConnection):
// every org's peer at its topology address with the TLS root from its
// bundle, the orderers, and the identities of this org only.
func WriteConnection(t *fabnet.Topology, h Home) error {
	c := fabnet.OrgConnection{Org: h.Org, RunDir: h.Dir, Crypto: h.Crypto(), TLSCA: map[string]string{}}
	c.TLSCA[t.OrdererOrg.Name] = h.orgTLSCA(t.OrdererOrg.Name, t.OrdererOrg.Domain)
	for _, o := range t.Orgs {
		c.TLSCA[o.Name] = h.orgTLSCA(o.Name, o.Domain)
	}
	b, err := json.MarshalIndent(c.Network(t), "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(h.NetworkJSON(), append(b, '\n'), 0o600)
}

// WaitGateway waits until the org's gateway, with the org's network.json,
// can gather endorsements for every chaincode, so that its clients can
// submit at once (net.sh up waits the same way, with netready).
func WaitGateway(ctx context.Context, h Home) error {
	n, err := netjson.Load(h.NetworkJSON())
	if err != nil {
		return err
	}
	timeout := 2 * time.Minute
	if d, ok := ctx.Deadline(); ok {
		timeout = time.Until(d)
	}
	for i := range n.Orgs {
		if n.Orgs[i].Name == h.Org {
			return n.WaitEndorsable(&n.Orgs[i], timeout)
		}
	}
	return fmt.Errorf("%s: no organisation %s in %s", h.Org, h.Org, h.NetworkJSON())
}
