// Package portprobe tells whether something listens on a TCP address of
// this machine and which process it is, from the kernel's socket tables,
// without connecting: a connection would leave a failed TLS handshake in
// the listener's log.
package portprobe

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"
)

// Accepting reports whether something accepts TCP connections on addr.
// It reads the kernel's socket tables rather than connecting, so that the
// check leaves no failed TLS handshake in the node's log; without them
// (not Linux) it connects.
func Accepting(addr string) bool {
	if ok, known := Listening(addr); known {
		return ok
	}
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		c.Close()
	}
	return err == nil
}

// Listening looks addr up among the listening sockets of
// /proc/net/tcp and tcp6: one bound to its port and to its address or to
// every address. known is false when neither table can be read.
func Listening(addr string) (ok, known bool) {
	inode, known := listeningInode(addr)
	return inode != "", known
}

// listeningInode is the inode of the socket that listens on addr ("" when
// none does).
func listeningInode(addr string) (inode string, known bool) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil { // a host name: leave it to a connection
		return "", false
	}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		known = true
		s := bufio.NewScanner(f)
		for s.Scan() {
			if local, ok := listeningSocket(s.Text()); ok && local.Port() == ap.Port() &&
				(local.Addr().IsUnspecified() || local.Addr().Unmap() == ap.Addr().Unmap()) {
				f.Close()
				return socketInode(s.Text()), true
			}
		}
		f.Close()
	}
	return "", known
}

// socketInode is the inode column of a /proc/net/tcp line.
func socketInode(line string) string {
	if f := strings.Fields(line); len(f) > 9 {
		return f[9]
	}
	return "?"
}

// listeningSocket parses a line of /proc/net/tcp{,6}: the local address of
// a socket in state LISTEN (0A). The kernel prints an address held in
// network byte order as 32-bit words in host byte order.
func listeningSocket(line string) (netip.AddrPort, bool) {
	f := strings.Fields(line)
	if len(f) < 4 || f[3] != "0A" {
		return netip.AddrPort{}, false
	}
	ipHex, portHex, ok := strings.Cut(f[1], ":")
	raw, err := hex.DecodeString(ipHex)
	port, perr := strconv.ParseUint(portHex, 16, 16)
	if !ok || err != nil || perr != nil || (len(raw) != 4 && len(raw) != 16) {
		return netip.AddrPort{}, false
	}
	for w := 0; w < len(raw); w += 4 {
		binary.NativeEndian.PutUint32(raw[w:], binary.BigEndian.Uint32(raw[w:]))
	}
	ip, _ := netip.AddrFromSlice(raw)
	return netip.AddrPortFrom(ip, uint16(port)), true
}
