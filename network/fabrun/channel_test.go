package fabrun

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/fabvote/fabvote/network/fabnet"
)

// configtxDoc is the part of configtx.yaml the tests look at.
type configtxDoc struct {
	Organizations []struct {
		Name             string   `yaml:"Name"`
		ID               string   `yaml:"ID"`
		MSPDir           string   `yaml:"MSPDir"`
		OrdererEndpoints []string `yaml:"OrdererEndpoints"`
		AnchorPeers      []struct {
			Host string `yaml:"Host"`
			Port int    `yaml:"Port"`
		} `yaml:"AnchorPeers"`
		Policies map[string]struct {
			Type string `yaml:"Type"`
			Rule string `yaml:"Rule"`
		} `yaml:"Policies"`
	} `yaml:"Organizations"`
	Orderer struct {
		OrdererType  string `yaml:"OrdererType"`
		BatchTimeout string `yaml:"BatchTimeout"`
		BatchSize    struct {
			MaxMessageCount   int    `yaml:"MaxMessageCount"`
			AbsoluteMaxBytes  string `yaml:"AbsoluteMaxBytes"`
			PreferredMaxBytes string `yaml:"PreferredMaxBytes"`
		} `yaml:"BatchSize"`
		EtcdRaft struct {
			Consenters []struct {
				Host          string `yaml:"Host"`
				Port          int    `yaml:"Port"`
				ClientTLSCert string `yaml:"ClientTLSCert"`
				ServerTLSCert string `yaml:"ServerTLSCert"`
			} `yaml:"Consenters"`
		} `yaml:"EtcdRaft"`
	} `yaml:"Orderer"`
	Profiles map[string]struct {
		Orderer struct {
			OrdererType   string `yaml:"OrdererType"`
			Organizations []struct {
				ID string `yaml:"ID"`
			} `yaml:"Organizations"`
		} `yaml:"Orderer"`
		Application struct {
			Organizations []struct {
				ID     string `yaml:"ID"`
				MSPDir string `yaml:"MSPDir"`
			} `yaml:"Organizations"`
		} `yaml:"Application"`
	} `yaml:"Profiles"`
}

// ordererHome is the orderer org's home with every peer org's bundle received.
func ordererHome(t *testing.T, top *fabnet.Topology) Home {
	t.Helper()
	h := Home{Dir: t.TempDir(), Org: top.OrdererOrg.Name}
	for _, o := range top.Orgs {
		if err := os.MkdirAll(filepath.Join(h.Received(o.Name), "msp"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func TestConfigtx(t *testing.T) {
	hosts := map[string]string{"orderer": "10.0.0.10", "ea": "10.0.0.1", "party1": "party1.example.org", "party2": "10.0.0.3"}
	tests := []struct {
		name  string
		top   *fabnet.Topology
		batch int
	}{
		{"three-orgs on three hosts", threeOrgs(t, hosts), 500},
		{"three-orgs, small batches", func() *fabnet.Topology {
			top := threeOrgs(t, hosts)
			top.Batch.MaxMessageCount = 7
			top.Batch.Timeout = "2s"
			return top
		}(), 7},
		{"three-orgs as containers, every orderer a host of its own", func() *fabnet.Topology {
			top, err := fabnet.Containers("three-orgs", testChaincodes())
			if err != nil {
				t.Fatal(err)
			}
			return top
		}(), 500},
		{"solo-org", func() *fabnet.Topology {
			top, err := fabnet.Profile("solo-org", 8050, map[string]string{"orderer": "orderer.example.org"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			return top
		}(), 500},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			top := tc.top
			oo := top.OrdererOrg
			h := ordererHome(t, top)
			text, err := configtx(top, h)
			if err != nil {
				t.Fatalf("configtx: %v", err)
			}
			var doc configtxDoc
			if err := yaml.Unmarshal(text, &doc); err != nil {
				t.Fatalf("configtx.yaml does not parse: %v\n%s", err, text)
			}

			// The orderer org, then the peer orgs in topology order.
			if len(doc.Organizations) != 1+len(top.Orgs) {
				t.Fatalf("%d organizations, want %d", len(doc.Organizations), 1+len(top.Orgs))
			}
			ord := doc.Organizations[0]
			if ord.ID != oo.MSPID || ord.Name != oo.MSPID || ord.MSPDir != filepath.Join(h.Dir, "crypto", "msp") {
				t.Errorf("orderer org %q/%q MSPDir %q", ord.Name, ord.ID, ord.MSPDir)
			}
			var wantEndpoints []string
			for _, o := range oo.Orderers {
				wantEndpoints = append(wantEndpoints, net.JoinHostPort(oo.HostOf(o), strconv.Itoa(o.Port)))
			}
			if !reflect.DeepEqual(ord.OrdererEndpoints, wantEndpoints) {
				t.Errorf("OrdererEndpoints %v, want %v", ord.OrdererEndpoints, wantEndpoints)
			}
			if r := ord.Policies["Admins"].Rule; r != "OR('"+oo.MSPID+".admin')" {
				t.Errorf("orderer Admins rule %q", r)
			}
			for i, o := range top.Orgs {
				got := doc.Organizations[i+1]
				if got.ID != o.MSPID || got.Name != o.MSPID {
					t.Errorf("org %d: %q/%q, want %s", i, got.Name, got.ID, o.MSPID)
				}
				if want := filepath.Join(h.Dir, "received", o.Name, "msp"); got.MSPDir != want {
					t.Errorf("%s: MSPDir %q, want %q", o.Name, got.MSPDir, want)
				}
				if len(got.AnchorPeers) != 1 || got.AnchorPeers[0].Host != o.Host || got.AnchorPeers[0].Port != o.Peer.Port {
					t.Errorf("%s: anchor peers %+v, want %s:%d", o.Name, got.AnchorPeers, o.Host, o.Peer.Port)
				}
				if r := got.Policies["Endorsement"].Rule; r != "OR('"+o.MSPID+".peer')" {
					t.Errorf("%s: Endorsement rule %q", o.Name, r)
				}
			}

			// Raft: one consenter per orderer, at its host.
			cs := doc.Orderer.EtcdRaft.Consenters
			if len(cs) != len(oo.Orderers) {
				t.Fatalf("%d consenters, want %d", len(cs), len(oo.Orderers))
			}
			for i, o := range oo.Orderers {
				wantCert := filepath.Join(h.Dir, "crypto", "orderers", o.Name+"."+oo.Domain, "tls", "server.crt")
				if cs[i].Host != oo.HostOf(o) || cs[i].Port != o.Port || cs[i].ClientTLSCert != wantCert || cs[i].ServerTLSCert != wantCert {
					t.Errorf("consenter %d: %+v, want %s:%d with %s", i, cs[i], oo.HostOf(o), o.Port, wantCert)
				}
			}
			if doc.Orderer.OrdererType != "etcdraft" {
				t.Errorf("OrdererType %q", doc.Orderer.OrdererType)
			}
			if got := doc.Orderer.BatchSize.MaxMessageCount; got != tc.batch {
				t.Errorf("MaxMessageCount %d, want %d", got, tc.batch)
			}
			if doc.Orderer.BatchTimeout != top.Batch.Timeout ||
				doc.Orderer.BatchSize.AbsoluteMaxBytes != top.Batch.AbsoluteMaxBytes ||
				doc.Orderer.BatchSize.PreferredMaxBytes != top.Batch.PreferredMaxBytes {
				t.Errorf("batch %+v / %q, want %+v", doc.Orderer.BatchSize, doc.Orderer.BatchTimeout, top.Batch)
			}

			// The profile merges the defaults and lists every org.
			p, ok := doc.Profiles["FabvoteChannel"]
			if !ok {
				t.Fatalf("no FabvoteChannel profile")
			}
			if p.Orderer.OrdererType != "etcdraft" || len(p.Orderer.Organizations) != 1 || p.Orderer.Organizations[0].ID != oo.MSPID {
				t.Errorf("profile orderer %+v", p.Orderer)
			}
			var ids []string
			for _, o := range p.Application.Organizations {
				ids = append(ids, o.ID)
			}
			var wantIDs []string
			for _, o := range top.Orgs {
				wantIDs = append(wantIDs, o.MSPID)
			}
			if !reflect.DeepEqual(ids, wantIDs) {
				t.Errorf("profile application orgs %v, want %v", ids, wantIDs)
			}
		})
	}
}

func TestConfigtxMissingBundle(t *testing.T) {
	top := threeOrgs(t, nil)
	for _, missing := range []string{"ea", "party1", "party2"} {
		t.Run(missing, func(t *testing.T) {
			h := ordererHome(t, top)
			if err := os.RemoveAll(h.Received(missing)); err != nil {
				t.Fatal(err)
			}
			_, err := configtx(top, h)
			if err == nil {
				t.Fatal("configtx rendered without the bundle")
			}
			if !strings.Contains(err.Error(), missing+"'s bundle") || !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("configtx: %v; want a not-exist error naming %s's bundle", err, missing)
			}
		})
	}
}

func TestDefinitionFlags(t *testing.T) {
	top := threeOrgs(t, nil)
	tests := []struct {
		cc   fabnet.Chaincode
		want []string
	}{
		{fabnet.Chaincode{Name: "registry", Version: "1.0"},
			[]string{"--channelID", "fabvote", "--name", "registry", "--version", "1.0", "--sequence", "1"}},
		{fabnet.Chaincode{Name: "ballot", Version: "2", Ballot: true, ValidationPlugin: "vscc-ballot"},
			[]string{"--channelID", "fabvote", "--name", "ballot", "--version", "2", "--sequence", "1", "--validation-plugin", "vscc-ballot"}},
	}
	for _, tc := range tests {
		if got := definitionFlags(top, tc.cc, 1); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("definitionFlags(%+v) = %v, want %v", tc.cc, got, tc.want)
		}
	}
}

// untar reads a tar.gz into name -> content, checking each header is a
// plain, fixed-time file.
func untar(t *testing.T, b []byte) (map[string][]byte, []string) {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	files := map[string][]byte{}
	var order []string
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if hdr.Typeflag != tar.TypeReg || hdr.Mode != 0o644 || !hdr.ModTime.Equal(time.Unix(0, 0)) {
			t.Errorf("%s: type %c mode %o time %v", hdr.Name, hdr.Typeflag, hdr.Mode, hdr.ModTime)
		}
		c, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[hdr.Name] = c
		order = append(order, hdr.Name)
	}
	return files, order
}

func TestTarGz(t *testing.T) {
	inner, err := tarGz(map[string][]byte{"connection.json": []byte(`{"address":"127.0.0.1:7153"}`)})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		files map[string][]byte
	}{
		{"empty", map[string][]byte{}},
		{"one file", map[string][]byte{"connection.json": []byte(`{"address":"127.0.0.1:7153","dial_timeout":"10s"}`)}},
		{"ccaas package", map[string][]byte{
			"metadata.json": []byte(`{"type":"ccaas","label":"ballot_1.0"}` + "\n"),
			"code.tar.gz":   inner,
		}},
		{"many names", map[string][]byte{"z": []byte("1"), "a": nil, "m/n": []byte("3"), "b": bytes.Repeat([]byte{0, 1, 2}, 10000)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			first, err := tarGz(tc.files)
			if err != nil {
				t.Fatal(err)
			}
			// Map iteration order differs between calls; the bytes must not.
			for range 5 {
				again, err := tarGz(tc.files)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(first, again) {
					t.Fatal("tarGz of the same files gave different bytes (a different package id)")
				}
			}
			got, order := untar(t, first)
			if len(got) != len(tc.files) {
				t.Errorf("%d files, want %d", len(got), len(tc.files))
			}
			for name, want := range tc.files {
				if !bytes.Equal(got[name], want) {
					t.Errorf("%s: %d bytes back, want %d", name, len(got[name]), len(want))
				}
			}
			if want := sortedKeys(tc.files); !slices.Equal(order, want) {
				t.Errorf("order %v, want %v", order, want)
			}
		})
	}
	t.Run("different content, different bytes", func(t *testing.T) {
		a, _ := tarGz(map[string][]byte{"connection.json": []byte(`{"address":"127.0.0.1:7153"}`)})
		b, _ := tarGz(map[string][]byte{"connection.json": []byte(`{"address":"127.0.0.1:7163"}`)})
		if bytes.Equal(a, b) {
			t.Error("different content packed to the same bytes")
		}
	})
}

// refusingRuntime fails the test if anything is started with it.
type refusingRuntime struct{ t *testing.T }

func (r refusingRuntime) Start(_ context.Context, _ Home, p fabnet.Proc) error {
	r.t.Errorf("%s was started", p.Name)
	return nil
}

// With a container runtime, a chaincode without an image is refused before
// the peer starts.
func TestStartPeerRefusesAChaincodeWithoutImage(t *testing.T) {
	top := threeOrgs(t, nil) // ballot, and registry, which has no image
	h, err := NewHome(t.TempDir(), "ea")
	if err != nil {
		t.Fatal(err)
	}
	block := filepath.Join(h.Received("orderer"), top.Channel+".block")
	if err := os.MkdirAll(filepath.Dir(block), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(block, []byte("block"), 0o600); err != nil {
		t.Fatal(err)
	}
	err = StartPeer(context.Background(), top, h, Tools{}, NodeOptions{Runtime: refusingRuntime{t}})
	if err == nil || !strings.Contains(err.Error(), "chaincode registry has no container image") {
		t.Errorf("StartPeer = %v, want the registry chaincode refused", err)
	}
}

// TestConfigtxWriters: the channel's Writers policy is Fabric's ImplicitMeta
// default unless the topology asks for the signature policy, which names
// exactly the principals of the organisations' own Writers policies; a
// topology with any other value is refused.
func TestConfigtxWriters(t *testing.T) {
	type channelDoc struct {
		Channel struct {
			Policies map[string]struct {
				Type string `yaml:"Type"`
				Rule string `yaml:"Rule"`
			} `yaml:"Policies"`
		} `yaml:"Channel"`
	}
	writersOf := func(top *fabnet.Topology) (kind, rule string, orgRules []string) {
		text, err := configtx(top, ordererHome(t, top))
		if err != nil {
			t.Fatal(err)
		}
		var ch channelDoc
		var doc configtxDoc
		if err := yaml.Unmarshal(text, &ch); err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(text, &doc); err != nil {
			t.Fatal(err)
		}
		for _, o := range doc.Organizations {
			orgRules = append(orgRules, o.Policies["Writers"].Rule)
		}
		return ch.Channel.Policies["Writers"].Type, ch.Channel.Policies["Writers"].Rule, orgRules
	}
	top := threeOrgs(t, nil)
	if kind, rule, _ := writersOf(top); kind != "ImplicitMeta" || rule != "ANY Writers" {
		t.Fatalf("default Writers: %s %q, want ImplicitMeta \"ANY Writers\"", kind, rule)
	}
	top.Writers = fabnet.WritersSignature
	if err := top.Check(); err != nil {
		t.Fatal(err)
	}
	kind, rule, orgRules := writersOf(top)
	if kind != "Signature" {
		t.Fatalf("Writers type %s, want Signature", kind)
	}
	// The channel rule is the OR of the organisations' own Writers rules.
	var principals []string
	for _, r := range orgRules {
		principals = append(principals, strings.TrimSuffix(strings.TrimPrefix(r, "OR("), ")"))
	}
	want := "OR(" + strings.Join(append(principals[1:], principals[0]), ", ") + ")" // peer orgs, then the orderer org
	if rule != want {
		t.Fatalf("Writers rule %q, want %q", rule, want)
	}
	top.Writers = "implicitmeta"
	if err := top.Check(); err == nil || !strings.Contains(err.Error(), "writers policy") {
		t.Fatalf("Check accepted writers %q: %v", top.Writers, err)
	}
}
