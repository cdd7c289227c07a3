package fabnet

import (
	"net"
	"strconv"
)

// ListenHost is the address a node binds: the host's IP, or every
// interface when the host is a DNS name (a container's or a machine's).
func ListenHost(host string) string {
	if net.ParseIP(host) != nil {
		return host
	}
	return "0.0.0.0"
}

// DialHost is where this host reaches its own node bound to ListenHost(host).
func DialHost(host string) string {
	if net.ParseIP(host) != nil {
		return host
	}
	return "127.0.0.1"
}

// PeerEndpoint is the address the other organisations dial the peer at.
func (o *PeerOrg) PeerEndpoint() string {
	return net.JoinHostPort(o.Host, strconv.Itoa(o.Peer.Port))
}

// PeerDial is the address the organisation's own host dials its peer at.
func (o *PeerOrg) PeerDial() string {
	return net.JoinHostPort(DialHost(o.Host), strconv.Itoa(o.Peer.Port))
}

// IsLabel tells a name that can be an organisation's, a node's or a
// directory's: a DNS label, so it never leaves a directory.
func IsLabel(name string) bool { return labelRE.MatchString(name) }
