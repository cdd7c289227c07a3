// Package gatewaytest checks a running network the way clients use it: through
// the Fabric Gateway, reading everything from the network.json that
// `make network-up` writes. It proves what the fabvote CLI relies on: the
// connection description is complete, TLS verifies, user identities can
// submit, and (three-orgs) a gateway collects the MAJORITY endorsements from
// other organisations by service discovery.
//
// The test needs a network with the kvtransfer chaincode initialised; it is
// skipped unless FABVOTE_NETWORK_JSON names the network.json. network/test.sh
// (make network-test) runs it.
package gatewaytest

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/fabvote/fabvote/network/netjson"
	"github.com/hyperledger/fabric-gateway/pkg/client"
)

func loadNetwork(t *testing.T) *netjson.Network {
	t.Helper()
	path := os.Getenv("FABVOTE_NETWORK_JSON")
	if path == "" {
		t.Skip("FABVOTE_NETWORK_JSON not set: no running network to test (make network-test sets it)")
	}
	n, err := netjson.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// connect opens a gateway to org i's first peer as its user1.
func connect(t *testing.T, n *netjson.Network, i int) *client.Gateway {
	t.Helper()
	gw, conn, err := n.Orgs[i].Connect("user1", 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		gw.Close()
		conn.Close()
	})
	return gw
}

func evalInt(t *testing.T, c *client.Contract, fn string, args ...string) int64 {
	t.Helper()
	out, err := c.EvaluateTransaction(fn, args...)
	if err != nil {
		t.Fatalf("evaluate %s%v: %v", fn, args, err)
	}
	v, err := strconv.ParseInt(string(out), 10, 64)
	if err != nil {
		t.Fatalf("evaluate %s: result %q is not an integer", fn, out)
	}
	return v
}

// waitFor polls ReadMany(keys) until it returns want (up to 30 s).
func waitFor(t *testing.T, c *client.Contract, keys string, want int64) {
	t.Helper()
	var got int64
	for range 150 {
		if got = evalInt(t, c, "ReadMany", keys); got == want {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("ReadMany(%s) = %d, want %d", keys, got, want)
}

// TestTransferThroughEveryGateway submits one transfer through each org's
// gateway and checks the balances and the invariant total on every org's peer.
func TestTransferThroughEveryGateway(t *testing.T) {
	n := loadNetwork(t)
	const from, to = "acct000002", "acct000003"
	contracts := make([]*client.Contract, len(n.Orgs))
	for i := range n.Orgs {
		contracts[i] = connect(t, n, i).GetNetwork(n.Channel).GetContract("kvtransfer")
	}
	total := evalInt(t, contracts[0], "Total")
	if total <= 0 {
		t.Fatalf("Total = %d: kvtransfer is not initialised", total)
	}
	keys := fmt.Sprintf(`[%q]`, from)
	before := evalInt(t, contracts[0], "ReadMany", keys)
	for i, c := range contracts {
		org := n.Orgs[i].Name
		ok := t.Run("submit via "+org, func(t *testing.T) {
			// This org's peer may not have committed the previous org's
			// transfer yet; endorsing on a stale state would fail MVCC.
			waitFor(t, c, keys, before-int64(i))
			_, commit, err := c.SubmitAsync("Transfer", client.WithArguments(from, to, "1"))
			if err != nil {
				t.Fatalf("submit via %s: %v", org, err)
			}
			st, err := commit.Status()
			if err != nil {
				t.Fatalf("commit status via %s: %v", org, err)
			}
			if !st.Successful {
				t.Fatalf("transaction %s via %s: validation code %v", st.TransactionID, org, st.Code)
			}
			got := evalInt(t, c, "ReadMany", keys)
			if want := before - int64(i+1); got != want {
				t.Fatalf("balance of %s on %s = %d, want %d", from, org, got, want)
			}
		})
		if !ok {
			t.FailNow() // later orgs would wait for a balance that never comes
		}
	}
	for i, c := range contracts {
		waitFor(t, c, keys, before-int64(len(contracts)))
		if got := evalInt(t, c, "Total"); got != total {
			t.Errorf("Total on %s = %d, want %d", n.Orgs[i].Name, got, total)
		}
	}
}
