package fabnet

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// testChaincodes is a ballot contract at index 0 and an ordinary one at 1.
func testChaincodes() []Chaincode {
	return []Chaincode{
		{Name: "ballot", Version: "1.0", Ballot: true},
		{Name: "registry", Version: "1.0"},
	}
}

// threeOrgs is the three-orgs profile from port 7050 with testChaincodes.
func threeOrgs(t testing.TB, hosts map[string]string) *Topology {
	t.Helper()
	top, err := Profile("three-orgs", 7050, hosts, testChaincodes())
	if err != nil {
		t.Fatalf("Profile(three-orgs): %v", err)
	}
	return top
}

func mustPeerOrg(t testing.TB, top *Topology, name string) *PeerOrg {
	t.Helper()
	o, err := top.PeerOrg(name)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestProfilePortPlan(t *testing.T) {
	three := threeOrgs(t, nil)
	solo, err := Profile("solo-org", 7050, nil, testChaincodes())
	if err != nil {
		t.Fatalf("Profile(solo-org): %v", err)
	}
	noCC, err := Profile("three-orgs", 7050, nil, nil)
	if err != nil {
		t.Fatalf("Profile(three-orgs, no chaincodes): %v", err)
	}
	org := func(top *Topology, name string) *PeerOrg { return mustPeerOrg(t, top, name) }
	tests := []struct {
		name string
		got  int
		want int
	}{
		{"three-orgs orderers", len(three.OrdererOrg.Orderers), 3},
		{"three-orgs peer orgs", len(three.Orgs), 3},
		{"orderer0 port", three.OrdererOrg.Orderers[0].Port, 7050},
		{"orderer1 port", three.OrdererOrg.Orderers[1].Port, 7060},
		{"orderer1 admin port", three.OrdererOrg.Orderers[1].AdminPort, 7061},
		{"orderer1 ops port", three.OrdererOrg.Orderers[1].OpsPort, 7062},
		{"orderer2 port", three.OrdererOrg.Orderers[2].Port, 7070},
		{"orderer CA", three.OrdererOrg.CAPort, 7440},
		{"ea peer", org(three, "ea").Peer.Port, 7150},
		{"ea chaincode callback", org(three, "ea").Peer.ChaincodePort, 7151},
		{"ea peer ops", org(three, "ea").Peer.OpsPort, 7152},
		{"ea ballot service", org(three, "ea").Peer.Services[0].Port, 7153},
		{"ea ballot service ops", org(three, "ea").Peer.Services[0].OpsPort, 7250},
		{"ea CA", org(three, "ea").CAPort, 7350},
		{"party1 peer", org(three, "party1").Peer.Port, 7160},
		{"party1 ballot service", org(three, "party1").Peer.Services[0].Port, 7163},
		// The documented plan (package doc, net.sh ccaas_ops_port) is
		// basePort+200+10j+k: party1 is j=1, so 7260.
		{"party1 ballot service ops", org(three, "party1").Peer.Services[0].OpsPort, 7260},
		{"party1 second service", org(three, "party1").Peer.Services[1].Port, 7164},
		{"party1 non-ballot service has no ops", org(three, "party1").Peer.Services[1].OpsPort, 0},
		{"party1 CA", org(three, "party1").CAPort, 7360},
		// basePort+300+10j with j=2.
		{"party2 CA", org(three, "party2").CAPort, 7370},
		{"party2 peer", org(three, "party2").Peer.Port, 7170},
		{"party2 services", len(org(three, "party2").Peer.Services), 2},
		{"solo-org orderers", len(solo.OrdererOrg.Orderers), 1},
		{"solo-org peer orgs", len(solo.Orgs), 1},
		{"solo-org orderer0 port", solo.OrdererOrg.Orderers[0].Port, 7050},
		{"solo-org orderer CA", solo.OrdererOrg.CAPort, 7440},
		{"solo-org ea peer", org(solo, "ea").Peer.Port, 7150},
		{"solo-org ea ballot ops", org(solo, "ea").Peer.Services[0].OpsPort, 7250},
		{"solo-org ea CA", org(solo, "ea").CAPort, 7350},
		{"no chaincodes, no services", len(org(noCC, "party1").Peer.Services), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %d, want %d", tc.got, tc.want)
			}
		})
	}
}

func TestProfileNames(t *testing.T) {
	top := threeOrgs(t, nil)
	if top.Channel != "fabvote" || top.OrdererOrg.Name != "orderer" || top.OrdererOrg.MSPID != "OrdererMSP" {
		t.Errorf("channel/orderer org = %q/%q/%q", top.Channel, top.OrdererOrg.Name, top.OrdererOrg.MSPID)
	}
	wantMSP := map[string]string{"ea": "EAMSP", "party1": "Party1MSP", "party2": "Party2MSP"}
	var names []string
	for _, o := range top.Orgs {
		names = append(names, o.Name)
		if o.MSPID != wantMSP[o.Name] {
			t.Errorf("%s: MSP id %q, want %q", o.Name, o.MSPID, wantMSP[o.Name])
		}
		if o.Domain != o.Name+".fabvote.local" {
			t.Errorf("%s: domain %q", o.Name, o.Domain)
		}
	}
	if want := []string{"ea", "party1", "party2"}; !reflect.DeepEqual(names, want) {
		t.Errorf("orgs %v, want %v", names, want)
	}
}

func TestProfileHosts(t *testing.T) {
	tests := []struct {
		name  string
		hosts map[string]string
		want  map[string]string // org -> host; "orderer" is the orderer org
	}{
		{"default loopback", nil,
			map[string]string{"orderer": "127.0.0.1", "ea": "127.0.0.1", "party1": "127.0.0.1", "party2": "127.0.0.1"}},
		{"some orgs elsewhere", map[string]string{"orderer": "10.0.0.10", "party1": "party1.example.org"},
			map[string]string{"orderer": "10.0.0.10", "ea": "127.0.0.1", "party1": "party1.example.org", "party2": "127.0.0.1"}},
		{"empty address means default", map[string]string{"ea": ""},
			map[string]string{"orderer": "127.0.0.1", "ea": "127.0.0.1", "party1": "127.0.0.1", "party2": "127.0.0.1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			top := threeOrgs(t, tc.hosts)
			got := map[string]string{"orderer": top.OrdererOrg.Host}
			for _, o := range top.Orgs {
				got[o.Name] = o.Host
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("hosts %v, want %v", got, tc.want)
			}
		})
	}
}

func TestProfileRefused(t *testing.T) {
	tests := []struct {
		name    string
		profile string
		base    int
		hosts   map[string]string
		cc      []Chaincode
		want    string
	}{
		{"unknown profile", "four-orgs", 7050, nil, nil, `profile "four-orgs"`},
		{"empty profile", "", 7050, nil, nil, `profile ""`},
		{"bad host", "three-orgs", 7050, map[string]string{"ea": "10.0.0.1,x"}, nil, "10.0.0.1,x"},
		{"ports beyond 65535", "three-orgs", 65300, nil, nil, "out of range"},
		{"bad chaincode", "solo-org", 7050, nil, []Chaincode{{Name: "Ballot", Version: "1"}}, `"Ballot"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Profile(tc.profile, tc.base, tc.hosts, tc.cc)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Profile(%q): error %v, want one containing %q", tc.profile, err, tc.want)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Topology)
		want   []string // substrings of the error; nil: valid
	}{
		{"profile is valid", func(*Topology) {}, nil},
		{"bad channel name", func(t *Topology) { t.Channel = "Fab_Vote" }, []string{"channel", `"Fab_Vote"`}},
		{"channel leaving the directory", func(t *Topology) { t.Channel = "../x" }, []string{"channel", `"../x"`}},
		{"zero batch size", func(t *Topology) { t.Batch.MaxMessageCount = 0 }, []string{"batch", "maxMessageCount"}},
		{"no batch timeout", func(t *Topology) { t.Batch.Timeout = "" }, []string{"batch", "timeout"}},
		{"no peer orgs", func(t *Topology) { t.Orgs = nil }, []string{"at least one peer organisation"}},
		{"no orderers", func(t *Topology) { t.OrdererOrg.Orderers = nil }, []string{"one orderer"}},
		{"org name with slash", func(t *Topology) { t.Orgs[1].Name = "party/1" }, []string{`"party/1"`, "DNS label"}},
		{"orderer org name with dot-dot", func(t *Topology) { t.OrdererOrg.Name = ".." }, []string{`".."`, "DNS label"}},
		{"bad MSP id", func(t *Topology) { t.Orgs[1].MSPID = "Party 1 MSP" }, []string{"party1", "MSP id", `"Party 1 MSP"`}},
		{"bad domain", func(t *Topology) { t.Orgs[2].Domain = "party2" }, []string{"party2", "domain", `"party2"`}},
		{"bad domain characters", func(t *Topology) { t.Orgs[0].Domain = "ea.fab vote.local" }, []string{"ea", "domain"}},
		{"bad host", func(t *Topology) { t.Orgs[0].Host = "10.0.0.1,x" }, []string{"ea", "host", `"10.0.0.1,x"`}},
		{"bad orderer host", func(t *Topology) { t.OrdererOrg.Host = "" }, []string{"orderer", "host"}},
		{"bad orderer name", func(t *Topology) { t.OrdererOrg.Orderers[1].Name = "Orderer1" }, []string{`"Orderer1"`}},
		{"two listeners on one host:port", func(t *Topology) { t.Orgs[1].Peer.Port = t.Orgs[0].Peer.Port },
			[]string{"ea's peer", "party1's peer", "127.0.0.1:7150"}},
		{"peer port on an orderer's port", func(t *Topology) { t.Orgs[0].Peer.OpsPort = 7061 },
			[]string{"orderer1", "ea's peer", "127.0.0.1:7061"}},
		{"CA range overlapping another org's", func(t *Topology) { t.Orgs[2].CAPort = t.Orgs[1].CAPort + 2 },
			[]string{"party1's CAs", "party2's CAs", "127.0.0.1:7362"}},
		{"service ops port on a peer port", func(t *Topology) { t.Orgs[1].Peer.Services[0].OpsPort = t.Orgs[1].Peer.Port },
			[]string{"party1's peer", "127.0.0.1:7160"}},
		{"duplicate org name", func(t *Topology) {
			t.Orgs[2].Name = "party1"
		}, []string{`"party1"`, "twice"}},
		{"peer org named as the orderer org", func(t *Topology) { t.Orgs[0].Name = "orderer" }, []string{`"orderer"`, "twice"}},
		{"too few chaincode services", func(t *Topology) { t.Orgs[1].Peer.Services = t.Orgs[1].Peer.Services[:1] },
			[]string{"party1", "1 chaincode services for 2 chaincodes"}},
		{"too many chaincode services", func(t *Topology) { t.Chaincodes = t.Chaincodes[:1] },
			[]string{"ea", "2 chaincode services for 1 chaincodes"}},
		{"bad chaincode name", func(t *Topology) { t.Chaincodes[1].Name = "Reg/istry" }, []string{"chaincode", `"Reg/istry"`}},
		{"chaincode without version", func(t *Topology) { t.Chaincodes[0].Version = "" }, []string{"chaincode", `"ballot"`, "version"}},
		{"batch timeout not a duration", func(t *Topology) { t.Batch.Timeout = "250ms\nx: y" }, []string{"batch", "timeout"}},
		{"batch size not a size", func(t *Topology) { t.Batch.PreferredMaxBytes = "" }, []string{"batch", "preferredMaxBytes"}},
		{"chaincode version with a quote", func(t *Topology) { t.Chaincodes[0].Version = `1"` }, []string{"chaincode", "version"}},
		{"chaincode twice", func(t *Topology) { t.Chaincodes[1].Name = "ballot" }, []string{`"ballot"`, "twice"}},
		{"orderer twice", func(t *Topology) { t.OrdererOrg.Orderers[2].Name = "orderer0" }, []string{`"orderer0"`, "twice"}},
		{"peer name leaving the directory", func(t *Topology) { t.Orgs[1].Peer.Name = "../../etc" }, []string{"party1", "peer name", `"../../etc"`}},
		{"peer named as the chaincode service", func(t *Topology) { t.Orgs[1].Peer.Name = "ccaas0" }, []string{"party1", "peer name"}},
		{"port out of range", func(t *Topology) { t.Orgs[1].Peer.Port = 70000 }, []string{"party1's peer", "70000", "out of range"}},
		{"port zero", func(t *Topology) { t.OrdererOrg.Orderers[0].AdminPort = 0 }, []string{"orderer0", "port 0", "out of range"}},
		{"negative service port", func(t *Topology) { t.Orgs[0].Peer.Services[1].Port = -1 }, []string{"ea's chaincode service 1", "-1", "out of range"}},
		{"orderer host not a name", func(t *Topology) { t.OrdererOrg.Orderers[1].Host = "bad host" }, []string{"orderer1", "bad host"}},
		{"orderer host IPv6", func(t *Topology) { t.OrdererOrg.Orderers[1].Host = "::1" }, []string{"orderer1", "IPv6"}},
		{"two orderers on one own host:port", func(t *Topology) {
			t.OrdererOrg.Orderers[0].Host, t.OrdererOrg.Orderers[1].Host = "o.example.org", "o.example.org"
			t.OrdererOrg.Orderers[1].Port = t.OrdererOrg.Orderers[0].Port
		}, []string{"orderer0", "orderer1", "o.example.org"}},
		{"service host not a name", func(t *Topology) { t.Orgs[1].Peer.Services[0].Host = "a_b" }, []string{"party1's chaincode service 0", "a_b"}},
		{"CA range past 65535", func(t *Topology) { t.OrdererOrg.CAPort = 65534 }, []string{"orderer org's CAs", "65536", "out of range"}},
		{"a DNS name is a host", func(t *Topology) { t.Orgs[1].Host = "party1.example.org" }, nil},
		{"an IPv6 host", func(t *Topology) { t.Orgs[0].Host = "fd00::1" }, []string{"ea", "IPv6", "DNS name"}},
		{"two orgs with one MSP id", func(t *Topology) { t.Orgs[2].MSPID = "EAMSP" }, []string{"party2", `"EAMSP"`, "another organisation's"}},
		{"a peer org with the orderer org's MSP id", func(t *Topology) { t.Orgs[0].MSPID = "OrdererMSP" }, []string{"ea", `"OrdererMSP"`}},
		{"two orgs with one domain", func(t *Topology) { t.Orgs[1].Domain = "ea.fabvote.local" }, []string{"party1", `"ea.fabvote.local"`}},
		{"MSP id starting with a digit", func(t *Topology) { t.Orgs[1].MSPID = "0x1F" }, []string{"party1", "MSP id"}},
		{"no chaincodes at all", func(t *Topology) {
			t.Chaincodes = nil
			for i := range t.Orgs {
				t.Orgs[i].Peer.Services = nil
			}
		}, nil},
		{"orgs on different hosts reuse ports", func(t *Topology) {
			// party1 and party2 on their own hosts, with exactly ea's ports.
			for i, h := range map[int]string{1: "10.0.0.2", 2: "party2.example.org"} {
				t.Orgs[i].Host = h
				t.Orgs[i].CAPort = t.Orgs[0].CAPort
				t.Orgs[i].Peer.Port = t.Orgs[0].Peer.Port
				t.Orgs[i].Peer.ChaincodePort = t.Orgs[0].Peer.ChaincodePort
				t.Orgs[i].Peer.OpsPort = t.Orgs[0].Peer.OpsPort
				t.Orgs[i].Peer.Services = append([]Service(nil), t.Orgs[0].Peer.Services...)
			}
		}, nil},
		{"orderer org on its own host reuses a peer's ports", func(t *Topology) {
			t.OrdererOrg.Host = "10.0.0.10"
			t.OrdererOrg.Orderers[0].Port = t.Orgs[0].Peer.Port
			t.OrdererOrg.CAPort = t.Orgs[0].CAPort
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			top := threeOrgs(t, nil)
			tc.mutate(top)
			err := top.Check()
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Check accepted it; want an error naming %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Check: %v; want it to name %q", err, w)
				}
			}
		})
	}
}

func TestPeerOrg(t *testing.T) {
	top := threeOrgs(t, nil)
	o, err := top.PeerOrg("party2")
	if err != nil || o.Name != "party2" {
		t.Fatalf("PeerOrg(party2) = %v, %v", o, err)
	}
	// The result points into the topology.
	o.Host = "10.9.9.9"
	if top.Orgs[2].Host != "10.9.9.9" {
		t.Errorf("PeerOrg returned a copy")
	}
	for _, name := range []string{"orderer", "party3", ""} {
		if _, err := top.PeerOrg(name); err == nil || !strings.Contains(err.Error(), `"`+name+`"`) {
			t.Errorf("PeerOrg(%q): error %v, want one naming it", name, err)
		}
	}
}

func TestLoadSaveRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		top  *Topology
	}{
		{"three-orgs", threeOrgs(t, map[string]string{"orderer": "10.0.0.10", "party2": "party2.example.org"})},
		{"solo-org without chaincodes", func() *Topology {
			top, err := Profile("solo-org", 9000, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			return top
		}()},
		{"validation plugin", func() *Topology {
			top := threeOrgs(t, nil)
			top.Chaincodes[0].ValidationPlugin = "vscc-ballot"
			return top
		}()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "topology.json")
			if err := tc.top.Save(path); err != nil {
				t.Fatalf("Save: %v", err)
			}
			got, err := Load(path)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if !reflect.DeepEqual(got, tc.top) {
				t.Errorf("Load(Save(t)) = %+v, want %+v", got, tc.top)
			}
			// Saving again gives the same bytes.
			first, _ := os.ReadFile(path)
			if err := got.Save(path); err != nil {
				t.Fatal(err)
			}
			second, _ := os.ReadFile(path)
			if string(first) != string(second) {
				t.Errorf("second Save differs:\n%s\n---\n%s", first, second)
			}
		})
	}
}

func TestLoadRefused(t *testing.T) {
	valid := threeOrgs(t, nil)
	invalid := threeOrgs(t, nil)
	invalid.Orgs[1].Peer.Port = invalid.Orgs[0].Peer.Port
	tests := []struct {
		name  string
		write func(path string) error
		want  []string
	}{
		{"malformed JSON", func(p string) error { return os.WriteFile(p, []byte(`{"channel": "fabvote",`), 0o644) },
			[]string{"unexpected end of JSON"}},
		{"wrong type", func(p string) error { return os.WriteFile(p, []byte(`{"channel": 7}`), 0o644) },
			[]string{"channel"}},
		{"trailing garbage", func(p string) error {
			if err := valid.Save(p); err != nil {
				return err
			}
			b, _ := os.ReadFile(p)
			return os.WriteFile(p, append(b, "}"...), 0o644)
		}, []string{"invalid character"}},
		{"empty file", func(p string) error { return os.WriteFile(p, nil, 0o644) }, []string{"unexpected end of JSON"}},
		{"fails Check", invalid.Save, []string{"both listen on 127.0.0.1:7150"}},
		{"misspelt field", func(p string) error {
			if err := valid.Save(p); err != nil {
				return err
			}
			b, _ := os.ReadFile(p)
			return os.WriteFile(p, bytes.Replace(b, []byte(`"caPort"`), []byte(`"caport_"`), 1), 0o644)
		}, []string{"unknown field", "caport_"}},
		{"empty object fails Check", func(p string) error { return os.WriteFile(p, []byte(`{}`), 0o644) }, []string{"channel"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "topo.json")
			if err := tc.write(path); err != nil {
				t.Fatal(err)
			}
			top, err := Load(path)
			if err == nil {
				t.Fatalf("Load accepted it: %+v", top)
			}
			for _, w := range append([]string{path}, tc.want...) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Load: %v; want it to name %q", err, w)
				}
			}
		})
	}
	t.Run("missing file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "absent.json")
		_, err := Load(path)
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), path) {
			t.Fatalf("Load: %v, want a not-exist error naming %s", err, path)
		}
	})
}

func TestSaveIsAtomicAndReadable(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "topology.json")
	if err := threeOrgs(t, nil).Save(path); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644 (the topology is public)", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("Save left %d entries in the directory, want 1", len(entries))
	}
	if err := threeOrgs(t, nil).Save(filepath.Join(dir, "missing", "t.json")); err == nil {
		t.Error("Save into a missing directory succeeded")
	}
}
