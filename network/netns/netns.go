// Package netns puts each organisation of a test network on a host of its
// own on one machine: a Linux network namespace with its own loopback and
// one address on a private switch. The switch is a bridge in a namespace of
// its own, so the machine's own namespace (and its loopback) is not on it.
//
// It needs root and the ip command (iproute2).
package netns

import (
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
)

// Lab is a set of hosts on one switch.
type Lab struct {
	prefix string
	hosts  []string
	addr   map[string]string
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9]{0,5}$`)

// New makes a namespace per host (named prefix-host), each with lo up and
// the address subnet.N (N = 10, 11, ...) on a veth to the switch. prefix is
// at most 6 letters and digits and each host at most 6, so that every
// interface name fits Linux's 15 characters.
func New(prefix, subnet string, hosts []string) (l *Lab, err error) {
	if !nameRE.MatchString(prefix) {
		return nil, fmt.Errorf("netns: prefix %q: want up to 6 lower-case letters and digits", prefix)
	}
	l = &Lab{prefix: prefix, addr: map[string]string{}}
	defer func() {
		if err != nil {
			err = errors.Join(err, l.Close())
		}
	}()
	sw := l.switchNS()
	if err := ip("netns", "add", sw); err != nil {
		return l, err
	}
	l.hosts = append(l.hosts, "")
	for _, c := range [][]string{{"link", "add", "br0", "type", "bridge"}, {"link", "set", "br0", "up"}, {"link", "set", "lo", "up"}} {
		if err := ip(append([]string{"-n", sw}, c...)...); err != nil {
			return l, err
		}
	}
	for i, h := range hosts {
		if err := l.addHost(h, fmt.Sprintf("%s.%d", subnet, 10+i)); err != nil {
			return l, err
		}
	}
	return l, nil
}

func (l *Lab) switchNS() string      { return l.prefix + "-switch" }
func (l *Lab) NS(host string) string { return l.prefix + "-" + host }

// Addr is the host's address on the switch.
func (l *Lab) Addr(host string) string { return l.addr[host] }

// link is the switch side of the host's veth.
func (l *Lab) link(host string) string { return "v" + l.prefix + host }

func (l *Lab) addHost(h, addr string) error {
	if !nameRE.MatchString(h) {
		return fmt.Errorf("netns: host %q: want up to 6 lower-case letters and digits", h)
	}
	ns, sw := l.NS(h), l.switchNS()
	if err := ip("netns", "add", ns); err != nil {
		return err
	}
	l.hosts = append(l.hosts, h)
	cmds := [][]string{
		{"-n", sw, "link", "add", l.link(h), "type", "veth", "peer", "name", "eth0", "netns", ns},
		{"-n", sw, "link", "set", l.link(h), "master", "br0", "up"},
		{"-n", ns, "link", "set", "lo", "up"},
		{"-n", ns, "addr", "add", addr + "/24", "dev", "eth0"},
		{"-n", ns, "link", "set", "eth0", "up"},
	}
	for _, c := range cmds {
		if err := ip(c...); err != nil {
			return err
		}
	}
	l.addr[h] = addr
	return nil
}

// Command runs name with args on the host's namespace.
func (l *Lab) Command(host, name string, args ...string) *exec.Cmd {
	return exec.Command("ip", append([]string{"netns", "exec", l.NS(host), name}, args...)...)
}

// Cut takes the host off the switch (its link goes down); Heal puts it back.
func (l *Lab) Cut(host string) error {
	return ip("-n", l.switchNS(), "link", "set", l.link(host), "down")
}

// Heal reconnects a host that Cut took off.
func (l *Lab) Heal(host string) error {
	return ip("-n", l.switchNS(), "link", "set", l.link(host), "up")
}

// Pids lists the processes that run in the host's namespace.
func (l *Lab) Pids(host string) ([]string, error) {
	out, err := exec.Command("ip", "netns", "pids", l.NS(host)).Output()
	if err != nil {
		return nil, fmt.Errorf("ip netns pids %s: %w", l.NS(host), err)
	}
	return strings.Fields(string(out)), nil
}

// Close deletes every namespace it made (their veths go with them).
func (l *Lab) Close() error {
	var errs []error
	for _, h := range l.hosts {
		ns := l.switchNS()
		if h != "" {
			ns = l.NS(h)
		}
		errs = append(errs, ip("netns", "del", ns))
	}
	l.hosts = nil
	return errors.Join(errs...)
}

func ip(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}
