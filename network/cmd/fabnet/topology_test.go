package main

import (
	"testing"

	"github.com/fabvote/fabvote/internal/cli/clitest"
	"github.com/fabvote/fabvote/network/portplan"
)

// TestTopologyEnvRefusals: each kind of bad input is refused, a usage
// error with exit status 2, a failure with 1, and the message names what
// is wrong.
func TestTopologyEnvRefusals(t *testing.T) {
	env := func(args ...string) []string { return append([]string{"topology", "env"}, args...) }
	clitest.CheckExit(t, newRootCommand, []clitest.Case{
		{Name: "unknown profile", Args: env("--profile", "four-orgs"), Code: 1, Want: `profile "four-orgs": want one of solo-org, three-orgs`},
		{Name: "--home with a profile flag", Args: env("--home", t.TempDir(), "--profile", "three-orgs"), Code: 2, Want: "--profile does not apply with --home"},
		{Name: "--home without a topology", Args: env("--home", t.TempDir()), Code: 1, Want: "topology.json"},
		{Name: "--containers on a stack", Args: env("--containers", "--stack", "docker"), Code: 2, Want: "--containers: the containers' ports"},
		{Name: "--docker with a profile", Args: env("--docker", "--profile", "solo-org"), Code: 2, Want: "--docker: the Docker network's profile"},
		{Name: "--docker with a chaincode", Args: env("--docker", "--chaincode", "kv"), Code: 2, Want: "no --profile or --chaincode"},
		{Name: "unknown stack", Args: env("--stack", "nowhere"), Code: 1, Want: `no stack "nowhere"`},
		{Name: "slot beyond the stack's", Args: env("--stack", "default", "--slot", "1"), Code: 2, Want: "--slot 1: stack default has 1 networks"},
		{Name: "base and prefix", Args: env("--stack", "docker", "--base-port", "18050", "--port-prefix", "18"), Code: 2, Want: "give one"},
		{Name: "prefix out of range", Args: env("--stack", "docker", "--port-prefix", "99"), Code: 2, Want: "--port-prefix 99"},
		{Name: "a base over another stack", Args: env("--stack", "default", "--base-port", "8050"), Code: 1, Want: "over stack e2e"},
		{Name: "stray argument", Args: env("--profile", "solo-org", "extra"), Code: 2, Want: `unexpected argument "extra"`},
	})
}

// TestTopologyEnvPlacement: --port-prefix keeps the stack's last three
// digits (the Docker stacks' FABVOTE_PORT_PREFIX), --slot steps through a
// stack's networks.
func TestTopologyEnvPlacement(t *testing.T) {
	docker, test := portplan.MustBase("docker"), portplan.MustBase("network-test")
	tests := []struct {
		name string
		f    envFlags
		want int
	}{
		{"the stack's base", envFlags{stack: "docker"}, docker},
		{"a prefix", envFlags{stack: "docker", prefix: 18}, 18000 + docker%1000},
		{"a slot", envFlags{stack: "network-test", slot: 2}, test + 2*portplan.SlotStep},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.f.placement()
			if err != nil || got != tc.want {
				t.Fatalf("placement = %d, %v; want %d", got, err, tc.want)
			}
		})
	}
}
