package fabnet

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

// accepting reports whether something accepts TCP connections on addr.
// It reads the kernel's socket tables rather than connecting, so that the
// check leaves no failed TLS handshake in the node's log; without them
// (not Linux) it connects.
func accepting(addr string) bool {
	if ok, known := listening(addr); known {
		return ok
	}
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		c.Close()
	}
	return err == nil
}

// listening looks addr up among the listening sockets of
// /proc/net/tcp and tcp6: one bound to its port and to its address or to
// every address. known is false when neither table can be read.
func listening(addr string) (ok, known bool) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil { // a host name: leave it to a connection
		return false, false
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
				return true, true
			}
		}
		f.Close()
	}
	return false, known
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
