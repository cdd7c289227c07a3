// Package compose writes compose files from the typed topology of
// network/fabnet, for two deployments:
//
//   - the single-host Docker network (NetworkFile, from
//     fabnet.Containers): a service per orderer, per peer and per chaincode
//     service, and a tools container, with the host ports of the native
//     network's port plan from <prefix>050, published on 127.0.0.1 only.
//     network/docker-compose.yaml is its committed output (`fabnet
//     compose`); docs/OPERATORS.md explains operation.
//   - an organisation of the multi-host procedure (Runtime): its own
//     compose project, with its nodes on its host's network at the
//     topology's addresses (`fabnet orderers|peer --runtime compose`;
//     docs/MULTIHOST.md).
package compose

import (
	"bytes"
	"fmt"
	"path"

	"gopkg.in/yaml.v3"

	"github.com/fabvote/fabvote/network/fabnet"
	"github.com/fabvote/fabvote/network/portplan"
)

// Compose's own interpolations, written literally into the file.
const (
	dirVar = "${FABVOTE_DOCKER_DIR:-../run/docker}"
	tagVar = "${FABVOTE_IMAGE_TAG:-latest}"
)

var (
	// hostBase is the port plan's base of the stack docker
	// (network/portplan); the file writes every host port as prefixVar,
	// the base's thousands, and the last three digits.
	hostBase  = portplan.MustBase("docker")
	prefixVar = fmt.Sprintf("${FABVOTE_PORT_PREFIX:-%d}", hostBase/1000)
)

// file is a compose file.
type file struct {
	Services services             `yaml:"services"`
	Volumes  map[string]*struct{} `yaml:"volumes"`
}

type service struct {
	name        string
	Image       string             `yaml:"image"`
	Hostname    string             `yaml:"hostname"`
	EnvFile     string             `yaml:"env_file,omitempty"`
	Environment map[string]*string `yaml:"environment"`
	Volumes     []string           `yaml:"volumes"`
	Ports       []quoted           `yaml:"ports,omitempty"`
	Healthcheck *healthcheck       `yaml:"healthcheck,omitempty"`
	WorkingDir  string             `yaml:"working_dir,omitempty"`
	Command     []string           `yaml:"command,omitempty,flow"`
	Restart     string             `yaml:"restart"`
}

type healthcheck struct {
	Test        []string `yaml:"test,flow"`
	Interval    string   `yaml:"interval"`
	Timeout     string   `yaml:"timeout"`
	Retries     int      `yaml:"retries"`
	StartPeriod string   `yaml:"start_period"`
}

// services keep their order in the file: orderers, then each
// organisation's peer and chaincode services, then tools.
type services []service

func (s services) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, svc := range s {
		var v yaml.Node
		if err := v.Encode(svc); err != nil {
			return nil, err
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: svc.name}, &v)
	}
	return n, nil
}

// quoted is written double-quoted: a port mapping, which YAML 1.1 parsers
// could otherwise read as a number in base 60.
type quoted string

func (q quoted) MarshalYAML() (any, error) {
	return &yaml.Node{Kind: yaml.ScalarNode, Style: yaml.DoubleQuotedStyle, Value: string(q)}, nil
}

// Profile is the single-host Docker network's profile, and Chaincodes its
// chaincodes: the compose file, and the scripts that make its material
// and run it (fabnet topology env --docker), read them here.
const Profile = "three-orgs"

// Chaincodes is the Docker network's one chaincode, the ballot contract.
func Chaincodes() []fabnet.Chaincode {
	return []fabnet.Chaincode{{Name: "ballot", Version: "1.0", Ballot: true}}
}

// DockerNetwork returns the single-host Docker network's compose file:
// Profile with Chaincodes (network/docker-compose.yaml).
func DockerNetwork() ([]byte, error) {
	containers, err := fabnet.Containers(Profile, Chaincodes())
	if err != nil {
		return nil, err
	}
	host, err := fabnet.Profile(Profile, hostBase, nil, Chaincodes())
	if err != nil {
		return nil, err
	}
	return NetworkFile(containers, host)
}

// NetworkFile returns the Docker network's compose file for containers,
// the topology as the containers see it, and host, the same network's
// port plan from hostBase as the host sees it.
func NetworkFile(containers, host *fabnet.Topology) ([]byte, error) {
	if len(containers.Orgs) != len(host.Orgs) || len(containers.OrdererOrg.Orderers) != len(host.OrdererOrg.Orderers) {
		return nil, fmt.Errorf("the container and host topologies differ in shape")
	}
	f := file{Volumes: map[string]*struct{}{}}
	authority := containers.Orgs[0].MSPID // the election authority's organisation comes first
	oo := containers.OrdererOrg
	for i, o := range oo.Orderers {
		f.Services = append(f.Services, orderer(oo, o, host.OrdererOrg.Orderers[i]))
		f.Volumes[o.Name+"-data"] = nil
	}
	for j := range containers.Orgs {
		o, h := &containers.Orgs[j], &host.Orgs[j]
		f.Services = append(f.Services, peer(o, h))
		f.Volumes[o.Peer.Name+"-"+o.Name+"-data"] = nil
		for k, cc := range containers.Chaincodes {
			f.Services = append(f.Services, chaincodeService(o, cc, o.Peer.Services[k], h.Peer.Services[k], authority))
		}
	}
	f.Services = append(f.Services, tools(containers))
	f.Volumes["tools-work"] = nil
	var b bytes.Buffer
	b.WriteString(header(containers))
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

// publish maps a container port to its host port, on 127.0.0.1 only.
func publish(hostPort, containerPort int) quoted {
	return quoted(fmt.Sprintf("127.0.0.1:%s%03d:%d", prefixVar, hostPort-hostBase+50, containerPort))
}

// dir is a path in the generated material, as the file names it.
func dir(elem ...string) string { return dirVar + "/" + path.Join(elem...) }

func health(test ...string) *healthcheck {
	return &healthcheck{Test: append([]string{"CMD", "fabvote-healthcheck"}, test...), Interval: "5s", Timeout: "4s", Retries: 24, StartPeriod: "5s"}
}
