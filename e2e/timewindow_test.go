//go:build e2e

package e2e

import (
	"crypto/sha256"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/internal/gateway"
	"github.com/hyperledger/fabric-gateway/pkg/client"
	"github.com/hyperledger/fabric-gateway/pkg/identity"
	"github.com/hyperledger/fabric-protos-go-apiv2/common"
	gatewaypb "github.com/hyperledger/fabric-protos-go-apiv2/gateway"
	"github.com/hyperledger/fabric-protos-go-apiv2/peer"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// TestProposalTimeWindow: on the real network, a correctly signed proposal
// dated an hour away from the peers' clocks is refused by the Gateway
// (fork patch 0012, CVE-2024-45244), and the same proposal dated now reaches
// the chaincode, which answers that the election does not exist (so the
// re-signed proposal is valid in every other respect).
func TestProposalTimeWindow(t *testing.T) {
	e := setup(t)
	conn, err := gateway.Connect(e.net, gateway.Options{Org: "EAMSP", Identity: "user1"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	sign := signerOf(t, e.net, "EAMSP", "user1")
	contract := conn.Gateway().GetNetwork(e.net.Channel).GetContract(conn.Chaincode())

	for _, c := range []struct {
		name  string
		shift time.Duration
		stale bool
	}{{"an hour old", -time.Hour, true}, {"an hour ahead", time.Hour, true}, {"now", 0, false}} {
		t.Run(c.name, func(t *testing.T) {
			p, err := contract.NewProposal("GetManifest", client.WithArguments("no-such-election"))
			if err != nil {
				t.Fatal(err)
			}
			raw, err := p.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			redated, digest := redate(t, raw, time.Now().Add(c.shift))
			sig, err := sign(digest)
			if err != nil {
				t.Fatal(err)
			}
			signed, err := conn.Gateway().NewSignedProposal(redated, sig)
			if err != nil {
				t.Fatal(err)
			}
			_, err = signed.EvaluateWithContext(ctx(t))
			if c.stale {
				if err == nil || !strings.Contains(err.Error(), "outside the peer's time window") {
					t.Fatalf("proposal dated %s away was not refused for the time window: %v", c.shift, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), `no election "no-such-election"`) {
				t.Fatalf("current proposal did not reach the chaincode: %v", err)
			}
		})
	}
}

// redate sets the channel header timestamp of a serialized
// ProposedTransaction and returns it with the digest to sign.
func redate(t *testing.T, raw []byte, at time.Time) ([]byte, []byte) {
	t.Helper()
	ptx := &gatewaypb.ProposedTransaction{}
	prop := &peer.Proposal{}
	hdr := &common.Header{}
	chdr := &common.ChannelHeader{}
	must(t, proto.Unmarshal(raw, ptx))
	must(t, proto.Unmarshal(ptx.GetProposal().GetProposalBytes(), prop))
	must(t, proto.Unmarshal(prop.GetHeader(), hdr))
	must(t, proto.Unmarshal(hdr.GetChannelHeader(), chdr))
	chdr.Timestamp = timestamppb.New(at)
	hdr.ChannelHeader = marshal(t, chdr)
	prop.Header = marshal(t, hdr)
	ptx.Proposal.ProposalBytes = marshal(t, prop)
	digest := sha256.Sum256(ptx.Proposal.ProposalBytes)
	return marshal(t, ptx), digest[:]
}

func signerOf(t *testing.T, net *gateway.Network, msp, id string) identity.Sign {
	t.Helper()
	for _, o := range net.Orgs {
		if o.MSPID != msp {
			continue
		}
		keyPEM, err := os.ReadFile(o.Identities[id].Key)
		must(t, err)
		key, err := identity.PrivateKeyFromPEM(keyPEM)
		must(t, err)
		sign, err := identity.NewPrivateKeySign(key)
		must(t, err)
		return sign
	}
	t.Fatalf("no org %s in the network", msp)
	return nil
}

func marshal(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	must(t, err)
	return b
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
