package multihost

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/fabvote/fabvote/network/fabrun"
)

// TestComposePerOrganisation runs the same procedure with every
// organisation's orderers, peer and ballot chaincode service as containers
// of its own compose project (fabnet --runtime compose): each organisation
// runs compose on its own file, in its own home, for its own nodes only.
// The organisations share this machine's loopback (the port plan from
// 23050 keeps them apart), so unlike TestElectionOnSeparateHosts it does
// not show network separation. make docker-test runs it, with the engine
// and the fabvote/* images it has built.
func TestComposePerOrganisation(t *testing.T) {
	if os.Getenv("FABVOTE_COMPOSE_TEST") != "1" {
		t.Skip("set FABVOTE_COMPOSE_TEST=1 (make docker-test): needs a Docker engine and the fabvote/* images")
	}
	tag := os.Getenv("FABVOTE_IMAGE_TAG")
	if tag == "" {
		tag = "latest"
	}
	s := newSite(t)
	s.runtime = []string{"--runtime", "compose", "--image-tag", tag}
	t.Logf("three-orgs network up, each organisation's nodes in its own compose project, in %.1f s", s.up().Seconds())
	s.checkContainers(map[string][]string{"orderer": {"orderer0", "orderer1", "orderer2"},
		"ea": {"cc.ballot", "peer0"}, "party1": {"cc.ballot", "peer0"}, "party2": {"cc.ballot", "peer0"}})
	v := s.prepareElection(30)
	v.open(20 * time.Second)
	s.run("ea", v.fv, "cast", "--network", s.netJSON("ea"), "--ballots", "ballots.bin", "--concurrency", "8")
	v.tallyAndVerify("party1", "party2")
	s.downRemovesContainers()
}

// downRemovesContainers: fabnet status lists an organisation's containers,
// and fabnet down removes them, with its native CA servers.
func (s *site) downRemovesContainers() {
	t := s.t
	fabnetBin := filepath.Join(s.tools, "fabnet")
	for _, o := range orgs {
		want := "peer0"
		if o == "orderer" {
			want = "orderer0"
		}
		if out := s.run(o, fabnetBin, "status", "--home", s.home(o)); !strings.Contains(out, "fabvote-"+o+"_"+want) && !strings.Contains(out, "fabvote-"+o+"-"+want) {
			t.Errorf("fabnet status of %s does not list its %s container:\n%s", o, want, out)
		}
		native := s.nativePids(o) // its CA servers, before down removes their pid files
		s.run(o, fabnetBin, "down", "--home", s.home(o))
		out, err := exec.Command("docker", "ps", "-a", "-q", "--filter", "label=com.docker.compose.project=fabvote-"+o).Output()
		if err != nil || strings.TrimSpace(string(out)) != "" {
			t.Errorf("after fabnet down, %s's project still has containers %q (%v)", o, out, err)
		}
		for n, pid := range native {
			if alive(pid) {
				t.Errorf("after fabnet down, %s still runs %s (pid %d)", o, n, pid)
			}
		}
	}
	s.joined = nil // stopped: the cleanup has nothing left to do
}

// alive reports whether process pid exists and has not exited: a zombie
// waiting for its parent to reap it has.
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command name, which is in parentheses.
	_, rest, _ := strings.Cut(string(stat), ") ")
	return rest != "" && rest[0] != 'Z' && rest[0] != 'X'
}

// nativePids are the org's running native nodes, by name.
func (s *site) nativePids(org string) map[string]int {
	home := fabrun.Home{Dir: s.home(org)}
	nodes, err := home.Nodes()
	if err != nil {
		s.t.Fatal(err)
	}
	pids := map[string]int{}
	for _, n := range nodes {
		if pid, ok := home.Running(n); ok {
			pids[n] = pid
		}
	}
	if len(pids) == 0 {
		s.t.Fatalf("%s runs no native node before down (its CA servers should)", org)
	}
	return pids
}

// checkContainers asserts that each organisation's compose file holds its
// own nodes and nothing else, that compose runs each of them, and that no
// orderer, peer or chaincode service runs as a native process of the home
// (only the CA servers do).
func (s *site) checkContainers(want map[string][]string) {
	t := s.t
	for org, nodes := range want {
		var f struct {
			Project  string `yaml:"x-fabvote-project"`
			Services map[string]struct {
				Volumes     []string `yaml:"volumes"`
				NetworkMode string   `yaml:"network_mode"`
				User        string   `yaml:"user"`
				CapDrop     []string `yaml:"cap_drop"`
			} `yaml:"services"`
		}
		if err := yaml.Unmarshal(s.read(org, "fabric", "compose.yaml"), &f); err != nil {
			t.Fatalf("%s's compose.yaml: %v", org, err)
		}
		var got []string
		for name, svc := range f.Services {
			got = append(got, name)
			s.checkMounts(org, name, svc.Volumes)
			if svc.NetworkMode != "host" || svc.User != fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid()) || !slices.Equal(svc.CapDrop, []string{"ALL"}) {
				t.Errorf("%s's %s: network %q, user %q, cap_drop %v", org, name, svc.NetworkMode, svc.User, svc.CapDrop)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, nodes) {
			t.Errorf("%s's compose file runs %v, want %v", org, got, nodes)
		}
		out, err := exec.Command("docker", "ps", "--filter", "label=com.docker.compose.project="+f.Project,
			"--format", "{{.Label \"com.docker.compose.service\"}}").Output()
		if err != nil {
			t.Fatalf("docker ps: %v", err)
		}
		running := strings.Fields(string(out))
		slices.Sort(running)
		if !slices.Equal(running, nodes) {
			t.Errorf("project %s runs %v, want %v", f.Project, running, nodes)
		}
		pids, _ := filepath.Glob(filepath.Join(s.home(org), "pids", "*.pid"))
		for _, p := range pids {
			if n := strings.TrimSuffix(filepath.Base(p), ".pid"); !strings.HasPrefix(n, "ca") && !strings.HasPrefix(n, "tlsca") {
				t.Errorf("%s runs %s natively", org, n)
			}
		}
	}
}

// checkMounts: a node's container gets its own directory read-write, and
// read-only only its own keys and certificates, its org's TLS root and
// (a peer) the external builder: never the CAs' directory, another node's
// keys or the organisation's users.
func (s *site) checkMounts(org, node string, vols []string) {
	home := s.home(org)
	if len(vols) == 0 || vols[0] != filepath.Join(home, "nodes", node)+":"+filepath.Join(home, "nodes", node) {
		s.t.Errorf("%s's %s: first mount %v, want its node directory read-write", org, node, vols)
	}
	for _, v := range vols[1:] {
		src, mode, _ := strings.Cut(strings.TrimPrefix(v, home+"/"), ":")
		ok := strings.HasSuffix(mode, ":ro")
		switch {
		case strings.HasPrefix(src, "crypto/fabric-ca"), strings.HasPrefix(src, "crypto/users"):
			ok = false
		case strings.HasPrefix(src, "crypto/peers/") || strings.HasPrefix(src, "crypto/orderers/"):
			ok = ok && (strings.Contains(src, "/"+node+".") || node == "cc.ballot" && strings.Contains(src, "/ccaas0."))
		case strings.HasPrefix(src, "crypto/tlsca/"), src == "builder":
		default:
			ok = false
		}
		if !ok {
			s.t.Errorf("%s's %s mounts %s", org, node, v)
		}
	}
}
