//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/ballotclient"
	"github.com/fabvote/fabvote/internal/chain"
	"github.com/fabvote/fabvote/internal/gateway"
	"github.com/hyperledger/fabric-protos-go-apiv2/peer"
)

// peersAgree is the determinism check of docs/PROTOCOL.md §7.11: every
// org's peer, read on its own, holds the same blocks from the election's
// opening (from: the chain height before it was opened) to the tip, with
// the same validation code for every transaction and the same commit hash,
// and the same election state. With the ballot validation plugin on, the
// rejected ballots are in those blocks as invalid transactions, so the
// check compares verdicts the plugin gave, not only the chaincode's.
func peersAgree(t *testing.T, e *env, id string, from uint64) {
	if len(e.net.Orgs) < 2 {
		t.Skip("the network has one org only (solo-org); run e2e on three-orgs for this check")
	}
	c := ctx(t)
	orgs := orgClients(t, e)
	tip := sameHeight(t, c, orgs) - 1
	invalid := blocksAgree(t, c, orgs, from, tip, election.LedgerKey(election.ObjBallot, id))
	t.Logf("blocks %d to %d agree on %d orgs' peers; %d ballot transactions of the election in them are ENDORSEMENT_POLICY_FAILURE", from, tip, len(orgs), invalid)
	if pluginOn() && invalid == 0 {
		t.Fatalf("no ballot of election %s is marked invalid in blocks %d to %d: the rejections with a bad proof did not reach a block, so the check compared no plugin verdict", id, from, tip)
	}
	stateAgrees(t, c, orgs, id)
}

// orgClients connects to one peer of every org (gateway.Options.PeerOrg),
// as the authority's voter identity, and keeps every query and block read
// in that peer's org (OwnOrgOnly): the gateway would otherwise answer from
// another org's peer when its own org's fails, and compare an org with
// itself.
func orgClients(t *testing.T, e *env) []*ballotclient.Client {
	var out []*ballotclient.Client
	for _, o := range e.net.Orgs {
		conn, err := gateway.Connect(e.net, gateway.Options{Org: "EAMSP", Identity: "user1", PeerOrg: o.MSPID})
		if err != nil {
			t.Fatalf("connecting to %s's peer: %v", o.MSPID, err)
		}
		t.Cleanup(func() { conn.Close() })
		out = append(out, &ballotclient.Client{Conn: conn, OwnOrgOnly: true})
	}
	return out
}

// sameHeight waits until every org's peer has committed the same number of
// blocks and returns it: a gateway reports a commit once its own peer has
// it, so the other orgs' peers may still be a block behind.
func sameHeight(t *testing.T, c context.Context, orgs []*ballotclient.Client) uint64 {
	deadline := time.Now().Add(time.Minute)
	for {
		var hs []uint64
		for _, o := range orgs {
			h, err := o.Blocks().Height(c)
			if err != nil {
				t.Fatalf("%s's chain height: %v", o.Conn.PeerMSP(), err)
			}
			hs = append(hs, h)
		}
		if slices.Min(hs) == slices.Max(hs) {
			return hs[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("the orgs' peers (%s) stay at heights %v", msps(orgs), hs)
		}
		time.Sleep(time.Second)
	}
}

// blocksAgree compares blocks from to tip as each org's peer returns them
// with the first org's copy (chain.SameCommit) and returns how many
// transactions writing under prefix (the election's ballots) every peer
// marked ENDORSEMENT_POLICY_FAILURE, the code the ballot validation gives.
func blocksAgree(t *testing.T, c context.Context, orgs []*ballotclient.Client, from, tip uint64, prefix string) int {
	invalid := 0
	for n := from; n <= tip; n++ {
		var first *chain.Block
		for _, o := range orgs {
			raw, err := o.Blocks().Block(c, n)
			if err != nil {
				t.Fatalf("reading block %d from %s's peer: %v", n, o.Conn.PeerMSP(), err)
			}
			b, err := chain.ParseBlock(raw)
			if err != nil {
				t.Fatalf("block %d from %s's peer: %v", n, o.Conn.PeerMSP(), err)
			}
			if first == nil {
				first = b
				continue
			}
			if err := chain.SameCommit(first, b); err != nil {
				t.Fatalf("%s's and %s's peers disagree: %v", orgs[0].Conn.PeerMSP(), o.Conn.PeerMSP(), err)
			}
		}
		for _, tx := range first.Txs {
			if tx.Code == peer.TxValidationCode_ENDORSEMENT_POLICY_FAILURE && writesUnder(tx, prefix) {
				invalid++
			}
		}
	}
	return invalid
}

func writesUnder(tx chain.Tx, prefix string) bool {
	for _, w := range tx.Writes {
		if w.Namespace == "ballot" && strings.HasPrefix(w.Key, prefix) {
			return true
		}
	}
	return false
}

// stateAgrees requires each org's peer to answer the election's state
// queries byte for byte alike: its manifest, its result, and its ballot
// listing (every page's entries, without the bookmarks, which only page).
func stateAgrees(t *testing.T, c context.Context, orgs []*ballotclient.Client, id string) {
	for _, q := range []struct {
		name string
		read func(*ballotclient.Client) ([]byte, error)
	}{
		{"manifest", func(l *ballotclient.Client) ([]byte, error) { return l.GetManifest(c, id) }},
		{"result", func(l *ballotclient.Client) ([]byte, error) { return l.GetResult(c, id) }},
		{"ballot listing", func(l *ballotclient.Client) ([]byte, error) {
			var entries []election.BallotEntry
			err := l.Ballots(c, id, 0)(func(be election.BallotEntry) error { entries = append(entries, be); return nil })
			if err != nil {
				return nil, err
			}
			return json.Marshal(entries)
		}},
	} {
		var want []byte
		for i, o := range orgs {
			got, err := q.read(o)
			if err != nil {
				t.Fatalf("%s of election %s from %s's peer: %v", q.name, id, o.Conn.PeerMSP(), err)
			}
			if i == 0 {
				want = got
				continue
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("the %s of election %s differs between %s's peer (%d bytes) and %s's (%d bytes)", q.name, id,
					orgs[0].Conn.PeerMSP(), len(want), o.Conn.PeerMSP(), len(got))
			}
		}
		if len(want) == 0 {
			t.Fatalf("the %s of election %s is empty on every peer", q.name, id)
		}
	}
}

func msps(orgs []*ballotclient.Client) string {
	var s []string
	for _, o := range orgs {
		s = append(s, o.Conn.PeerMSP())
	}
	return strings.Join(s, ", ")
}
