package main

import (
	"testing"

	"github.com/fabvote/fabvote/internal/gateway"
)

func TestOrgOr(t *testing.T) {
	id := map[string]gateway.Identity{"user1": {Cert: "c", Key: "k"}}
	every := &gateway.Network{Orgs: []gateway.Org{{Name: "ea", MSPID: "EAMSP", Identities: id}, {Name: "party1", MSPID: "Party1MSP", Identities: id}}}
	// One organisation's host: only its own identities are in the file.
	own := &gateway.Network{Orgs: []gateway.Org{{Name: "ea", MSPID: "EAMSP"}, {Name: "party1", MSPID: "Party1MSP", Identities: id}}}
	cases := []struct {
		name, flag, natural, want string
		net                       *gateway.Network
	}{
		{"flag wins", "party1", "EAMSP", "party1", every},
		{"natural org", "", "EAMSP", "EAMSP", every},
		{"no natural org: the first", "", "", "ea", every},
		{"natural org not in the file", "", "OtherMSP", "ea", every},
		{"natural org without identities: the host's own", "", "EAMSP", "party1", own},
		{"no natural org on a host: its own", "", "", "party1", own},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := &netFlags{org: c.flag}
			if got := n.orgOr(c.net, c.natural); got != c.want {
				t.Errorf("orgOr = %q, want %q", got, c.want)
			}
		})
	}
}
