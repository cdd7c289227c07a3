package main

import (
	"strings"
	"testing"

	"github.com/fabvote/fabvote/network/portplan"
)

func TestTopologyEnvRefusals(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown profile", []string{"--profile", "four-orgs"}, `profile "four-orgs": want one of solo-org, three-orgs`},
		{"--home with a profile flag", []string{"--home", t.TempDir(), "--profile", "three-orgs"}, "--profile does not apply with --home"},
		{"--home without a topology", []string{"--home", t.TempDir()}, "topology.json"},
		{"--containers on a stack", []string{"--containers", "--stack", "docker"}, "--containers: the containers' ports"},
		{"--docker with a profile", []string{"--docker", "--profile", "solo-org"}, "--docker: the Docker network's profile"},
		{"--docker with a chaincode", []string{"--docker", "--chaincode", "kv"}, "no --profile or --chaincode"},
		{"unknown stack", []string{"--stack", "nowhere"}, `no stack "nowhere"`},
		{"slot beyond the stack's", []string{"--stack", "default", "--slot", "1"}, "--slot 1: stack default has 1 networks"},
		{"base and prefix", []string{"--stack", "docker", "--base-port", "18050", "--port-prefix", "18"}, "give one"},
		{"prefix out of range", []string{"--stack", "docker", "--port-prefix", "99"}, "--port-prefix 99"},
		{"a base over another stack", []string{"--stack", "default", "--base-port", "8050"}, "over stack e2e"},
		{"stray argument", []string{"--profile", "solo-org", "extra"}, `unexpected argument "extra"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := run(append([]string{"topology", "env"}, tc.args...))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("topology env %v: %v, want an error containing %q", tc.args, err, tc.want)
			}
		})
	}
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
