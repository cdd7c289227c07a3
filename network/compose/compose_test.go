package compose

import (
	"os"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func testFile(t *testing.T) []byte {
	t.Helper()
	text, err := DockerNetwork()
	if err != nil {
		t.Fatal(err)
	}
	return text
}

type parsed struct {
	Services map[string]struct {
		Image       string             `yaml:"image"`
		Environment map[string]*string `yaml:"environment"`
		Volumes     []string           `yaml:"volumes"`
		Ports       []string           `yaml:"ports"`
	} `yaml:"services"`
	Volumes map[string]any `yaml:"volumes"`
}

func parse(t *testing.T, text []byte) parsed {
	t.Helper()
	var p parsed
	if err := yaml.Unmarshal(text, &p); err != nil {
		t.Fatalf("the compose file does not parse: %v", err)
	}
	return p
}

// The committed network/docker-compose.yaml is the generator's output
// (regenerate: go run ./network/cmd/fabnet compose --out network/docker-compose.yaml).
func TestCommittedFileIsCurrent(t *testing.T) {
	committed, err := os.ReadFile("../docker-compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if string(committed) != string(testFile(t)) {
		t.Fatal("network/docker-compose.yaml is stale: go run ./network/cmd/fabnet compose --out network/docker-compose.yaml")
	}
}

func TestServicesAndPorts(t *testing.T) {
	p := parse(t, testFile(t))
	want := map[string][]string{
		"orderer0.orderer.fabvote.local": {"127.0.0.1:${FABVOTE_PORT_PREFIX:-17}050:7050", "127.0.0.1:${FABVOTE_PORT_PREFIX:-17}051:7053", "127.0.0.1:${FABVOTE_PORT_PREFIX:-17}052:9443"},
		"orderer2.orderer.fabvote.local": {"127.0.0.1:${FABVOTE_PORT_PREFIX:-17}070:7050", "127.0.0.1:${FABVOTE_PORT_PREFIX:-17}071:7053", "127.0.0.1:${FABVOTE_PORT_PREFIX:-17}072:9443"},
		"peer0.party1.fabvote.local":     {"127.0.0.1:${FABVOTE_PORT_PREFIX:-17}160:7051", "127.0.0.1:${FABVOTE_PORT_PREFIX:-17}162:9443"},
		"ballot-cc.party2.fabvote.local": {"127.0.0.1:${FABVOTE_PORT_PREFIX:-17}270:9443"},
		"tools":                          nil,
	}
	for name, ports := range want {
		s, ok := p.Services[name]
		if !ok {
			t.Errorf("no service %s", name)
			continue
		}
		if strings.Join(s.Ports, " ") != strings.Join(ports, " ") {
			t.Errorf("%s publishes %v, want %v", name, s.Ports, ports)
		}
	}
	if len(p.Services) != 3+3*2+1 {
		t.Errorf("%d services, want 10", len(p.Services))
	}
	for name, s := range p.Services {
		for _, port := range s.Ports {
			if !strings.HasPrefix(port, "127.0.0.1:") {
				t.Errorf("%s publishes %s beyond the loopback", name, port)
			}
		}
	}
	if cc := p.Services["ballot-cc.ea.fabvote.local"]; cc.Image != "fabvote/ballot-cc:${FABVOTE_IMAGE_TAG:-latest}" ||
		*cc.Environment["FABVOTE_AUTHORITY_MSPS"] != "${FABVOTE_AUTHORITY_MSPS:-EAMSP}" || cc.Environment["FABVOTE_PROOF_BATCH"] != nil {
		t.Errorf("ea's ballot service: %+v", cc)
	}
	for _, v := range []string{"orderer0-data", "peer0-ea-data", "peer0-party2-data", "tools-work"} {
		if _, ok := p.Volumes[v]; !ok {
			t.Errorf("no volume %s", v)
		}
	}
}

// The tools container holds users' identities and TLS CA certificates, but
// no node's key and no CA's key: nothing of a node's msp/ or tls/, and of
// each tlsca/ only the certificate.
func TestToolsGetsNoNodeOrCAKey(t *testing.T) {
	tools := parse(t, testFile(t)).Services["tools"]
	if len(tools.Volumes) == 0 {
		t.Fatal("the tools service mounts nothing")
	}
	for _, v := range tools.Volumes {
		src, _, _ := strings.Cut(strings.TrimPrefix(v, dirVar), ":")
		switch {
		case strings.Contains(src, "/peers/"), strings.Contains(src, "/orderers/"):
			t.Errorf("tools mounts a node's files: %s", v)
		case strings.Contains(src, "/tlsca") && !strings.HasSuffix(src, "-cert.pem"):
			t.Errorf("tools mounts a TLS CA's directory (its key): %s", v)
		case strings.Contains(src, "/ca/"), strings.HasSuffix(src, "/ca"):
			t.Errorf("tools mounts an MSP CA's directory: %s", v)
		case strings.HasPrefix(src, "/nodes/") && !strings.HasSuffix(src, "/core.yaml"):
			t.Errorf("tools mounts a node's directory: %s", v)
		}
	}
}
