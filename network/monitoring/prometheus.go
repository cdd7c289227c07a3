// Package monitoring generates the monitoring configuration of a fabvote
// network from its network.json: the Prometheus scrape configuration for the
// peers, orderers, chaincode services and registration services, and the
// Grafana dashboard that reads them.
//
// Fabric's peers and orderers serve /metrics over TLS and want a client
// certificate from their organisation's TLS CA, so each organisation is one
// job with its own TLS client pair (network.json's monitoringClient, and
// ordererAdmin for the orderers). fabvote's own services serve plain HTTP on
// their operations listener (package internal/opsserve).
package monitoring

import (
	"errors"
	"fmt"
	"net"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/fabvote/fabvote/network/netjson"
)

// Job names, which the dashboard's queries select on.
const (
	JobOrderers  = "fabvote-orderers"
	JobPeerOrg   = "fabvote-peer-" // + org name
	JobChaincode = "fabvote-chaincode"
	JobRegistrar = "fabvote-registrar"
)

// PromConfig is the part of Prometheus's configuration file this package
// writes.
type PromConfig struct {
	Global        PromGlobal     `yaml:"global"`
	ScrapeConfigs []ScrapeConfig `yaml:"scrape_configs"`
}

// PromGlobal holds the scrape interval and timeout of every job.
type PromGlobal struct {
	ScrapeInterval string `yaml:"scrape_interval"`
	ScrapeTimeout  string `yaml:"scrape_timeout"`
}

// ScrapeConfig is one job.
type ScrapeConfig struct {
	JobName       string         `yaml:"job_name"`
	Scheme        string         `yaml:"scheme"`
	TLSConfig     *TLSConfig     `yaml:"tls_config,omitempty"`
	StaticConfigs []StaticConfig `yaml:"static_configs"`
}

// TLSConfig verifies the targets and presents a client certificate.
type TLSConfig struct {
	CAFile   string `yaml:"ca_file"`
	CertFile string `yaml:"cert_file"`
	KeyFile  string `yaml:"key_file"`
}

// StaticConfig is a group of targets with common labels.
type StaticConfig struct {
	Targets []string          `yaml:"targets"`
	Labels  map[string]string `yaml:"labels,omitempty"`
}

// Options are what network.json does not say.
type Options struct {
	// Interval between scrapes, whole milliseconds; 0 means 15 s.
	Interval time.Duration
	// Registrars are the operations endpoints (host:port) of `ea serve`.
	Registrars []string
}

// Prometheus returns the scrape configuration of the network n describes.
// It refuses a network.json that lacks a TLS client pair a job needs.
func Prometheus(n *netjson.Network, o Options) (*PromConfig, error) {
	interval := o.Interval
	if interval == 0 {
		interval = 15 * time.Second
	}
	iv, err := promDuration(interval)
	if err != nil {
		return nil, fmt.Errorf("scrape interval: %w", err)
	}
	to, _ := promDuration(min(interval, 10*time.Second))
	c := &PromConfig{Global: PromGlobal{ScrapeInterval: iv, ScrapeTimeout: to}}
	for _, r := range o.Registrars {
		if _, port, err := net.SplitHostPort(r); err != nil || port == "" {
			return nil, fmt.Errorf("registrar %q: want host:port", r)
		}
	}
	if len(n.Orderers) > 0 {
		job, err := ordererJob(n)
		if err != nil {
			return nil, err
		}
		c.ScrapeConfigs = append(c.ScrapeConfigs, job)
	}
	for _, org := range n.Orgs {
		job, err := peerJob(org)
		if err != nil {
			return nil, err
		}
		c.ScrapeConfigs = append(c.ScrapeConfigs, job)
	}
	if job, ok := chaincodeJob(n); ok {
		c.ScrapeConfigs = append(c.ScrapeConfigs, job)
	}
	if len(o.Registrars) > 0 {
		c.ScrapeConfigs = append(c.ScrapeConfigs, ScrapeConfig{JobName: JobRegistrar, Scheme: "http",
			StaticConfigs: []StaticConfig{{Targets: o.Registrars}}})
	}
	return c, nil
}

func ordererJob(n *netjson.Network) (ScrapeConfig, error) {
	a := n.OrdererAdmin
	if a.Cert == "" || a.Key == "" || a.TLSCACert == "" {
		return ScrapeConfig{}, errors.New("network.json: ordererAdmin needs cert, key and tlsCACert to scrape the orderers")
	}
	var targets []string
	for _, o := range n.Orderers {
		if o.OperationsEndpoint == "" {
			return ScrapeConfig{}, fmt.Errorf("network.json: orderer %s has no operationsEndpoint", o.Name)
		}
		targets = append(targets, o.OperationsEndpoint)
	}
	return ScrapeConfig{JobName: JobOrderers, Scheme: "https",
		TLSConfig:     &TLSConfig{CAFile: a.TLSCACert, CertFile: a.Cert, KeyFile: a.Key},
		StaticConfigs: []StaticConfig{{Targets: targets}}}, nil
}

// peerJob scrapes one organisation's peers: a peer accepts only client
// certificates of its own organisation's TLS CA.
func peerJob(org netjson.Org) (ScrapeConfig, error) {
	m := org.MonitoringClient
	if m.Cert == "" || m.Key == "" || org.TLSCACert == "" {
		return ScrapeConfig{}, fmt.Errorf("network.json: org %s needs tlsCACert and a monitoringClient (cert, key) to scrape its peers", org.Name)
	}
	var targets []string
	for _, p := range org.Peers {
		if p.OperationsEndpoint == "" {
			return ScrapeConfig{}, fmt.Errorf("network.json: peer %s of org %s has no operationsEndpoint", p.Name, org.Name)
		}
		targets = append(targets, p.OperationsEndpoint)
	}
	return ScrapeConfig{JobName: JobPeerOrg + org.Name, Scheme: "https",
		TLSConfig:     &TLSConfig{CAFile: org.TLSCACert, CertFile: m.Cert, KeyFile: m.Key},
		StaticConfigs: []StaticConfig{{Targets: targets, Labels: map[string]string{"org": org.Name}}}}, nil
}

// chaincodeJob scrapes every chaincode service that has an operations
// endpoint, labelled with its org and chaincode name.
func chaincodeJob(n *netjson.Network) (ScrapeConfig, bool) {
	job := ScrapeConfig{JobName: JobChaincode, Scheme: "http"}
	for _, org := range n.Orgs {
		for _, cc := range org.ChaincodeServices {
			if cc.OperationsEndpoint == "" {
				continue
			}
			job.StaticConfigs = append(job.StaticConfigs, StaticConfig{Targets: []string{cc.OperationsEndpoint},
				Labels: map[string]string{"org": org.Name, "chaincode": cc.Name}})
		}
	}
	return job, len(job.StaticConfigs) > 0
}

// promDuration writes d as Prometheus reads durations: whole seconds or
// whole milliseconds ("1.5s" is not a Prometheus duration).
func promDuration(d time.Duration) (string, error) {
	switch {
	case d <= 0:
		return "", fmt.Errorf("%v is not positive", d)
	case d%time.Second == 0:
		return fmt.Sprintf("%ds", d/time.Second), nil
	case d%time.Millisecond == 0:
		return fmt.Sprintf("%dms", d/time.Millisecond), nil
	}
	return "", fmt.Errorf("%v is not a whole number of milliseconds", d)
}

// YAML is c as Prometheus reads it.
func (c *PromConfig) YAML() ([]byte, error) {
	b, err := yaml.Marshal(c)
	if err != nil {
		return nil, err
	}
	return append([]byte("# Generated by `fabmon prometheus` from network.json; regenerate rather than edit.\n"), b...), nil
}
