package compose

import (
	"os"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/fabvote/fabvote/fabric/switches"
	"github.com/fabvote/fabvote/network/fabnet"
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

// The switches passed through to the nodes and the MSPs the file names
// come from switches.Table and the topology: a peer switch added to the
// table reaches every node and the header, a chaincode switch none, and
// renamed organisations are named as renamed.
func TestFactsFromTableAndTopology(t *testing.T) {
	saved := switches.Table
	t.Cleanup(func() { switches.Table = saved })
	switches.Table = append(slices.Clone(saved),
		switches.Switch{Env: "FABVOTE_TEST_PEER", ReadBy: switches.ReadByPeer},
		switches.Switch{Env: "FABVOTE_TEST_CC", ReadBy: switches.ReadByChaincode})
	containers, err := fabnet.Containers(Profile, Chaincodes())
	if err != nil {
		t.Fatal(err)
	}
	host, err := fabnet.Profile(Profile, hostBase, nil, Chaincodes())
	if err != nil {
		t.Fatal(err)
	}
	containers.OrdererOrg.MSPID, containers.Orgs[0].MSPID, containers.Orgs[2].MSPID = "OrdersMSP", "AuthorityMSP", "ThirdMSP"
	text, err := NetworkFile(containers, host)
	if err != nil {
		t.Fatal(err)
	}
	p := parse(t, text)
	for _, name := range []string{"orderer1.orderer.fabvote.local", "peer0.party2.fabvote.local"} {
		env := p.Services[name].Environment
		if v, ok := env["FABVOTE_TEST_PEER"]; !ok || v != nil {
			t.Errorf("%s does not pass FABVOTE_TEST_PEER through: %v", name, env)
		}
		if _, ok := env["FABVOTE_TEST_CC"]; ok {
			t.Errorf("%s is given the chaincode's switch FABVOTE_TEST_CC", name)
		}
	}
	if got := p.Services["ballot-cc.party1.fabvote.local"].Environment["FABVOTE_AUTHORITY_MSPS"]; got == nil || *got != "${FABVOTE_AUTHORITY_MSPS:-AuthorityMSP}" {
		t.Errorf("party1's ballot service: FABVOTE_AUTHORITY_MSPS %v, want the first organisation's MSP", got)
	}
	for _, want := range []string{"3 Raft orderers (OrdersMSP)", "peer for each of AuthorityMSP, Party1MSP and ThirdMSP,",
		"FABVOTE_LEVELDB, FABVOTE_TEST_PEER and the chaincode's", "defaults to AuthorityMSP."} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the header does not say %q:\n%s", want, text[:strings.Index(string(text), "services:")])
		}
	}
	if strings.Contains(string(text), "FABVOTE_TEST_CC") {
		t.Error("the file names the chaincode's switch FABVOTE_TEST_CC")
	}
}

// wrapComment breaks between words, before a word that would pass the
// width, and never leaves a line with no word.
func TestWrapComment(t *testing.T) {
	long := strings.Repeat("x", commentWidth)
	tests := []struct{ first, text, want string }{
		{"# switches ", "A, B and C", "# switches A, B and C"},
		{"# ", strings.Repeat("word ", 20), "# " + strings.TrimSpace(strings.Repeat("word ", 15)) + "\n# " + strings.TrimSpace(strings.Repeat("word ", 5))},
		{"# ", long + " y", "# " + long + "\n# y"},
	}
	for _, tc := range tests {
		if got := wrapComment(tc.first, tc.text); got != tc.want {
			t.Errorf("wrapComment(%q, %q) =\n%s\nwant\n%s", tc.first, tc.text, got, tc.want)
		}
	}
}
