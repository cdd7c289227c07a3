package portprobe

import (
	"encoding/binary"
	"net"
	"net/netip"
	"strconv"
	"testing"
)

func TestListeningSocket(t *testing.T) {
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		t.Skip("the vectors are a little-endian kernel's")
	}
	tests := []struct {
		line string
		want string // "" when the line is no listening socket
	}{
		{"   0: 0100007F:1B9E 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0 100 0 0 10 0", "127.0.0.1:7070"},
		{"   1: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1", "0.0.0.0:8080"},
		{"   2: 0100007F:1B9E 0100007F:D1C2 01 00000000:00000000 00:00000000 00000000     0        0 1", ""},
		{"   0: 00000000000000000000000001000000:1B9E 00000000000000000000000000000000:0000 0A 0", "[::1]:7070"},
		{"   0: 0000000000000000FFFF00000B07CB0A:1B9E 00000000000000000000000000000000:0000 0A 0", "[::ffff:10.203.7.11]:7070"},
		{"  sl  local_address rem_address   st tx_queue rx_queue", ""},
		{"   0: 0100007:1B9E 00000000:0000 0A", ""},
		{"   0: 0100007F:FFFFF 00000000:0000 0A", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got, ok := listeningSocket(tt.line)
		if (tt.want == "") != !ok || (ok && got.String() != tt.want) {
			t.Errorf("listeningSocket(%q) = %v, %v; want %q", tt.line, got, ok, tt.want)
		}
	}
}

func TestListening(t *testing.T) {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if ok, known := Listening(addr); !known {
		t.Skip("no /proc/net/tcp")
	} else if !ok {
		t.Fatalf("Listening(%s) = false with a listener", addr)
	}
	port := l.Addr().(*net.TCPAddr).Port
	other := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.2"), uint16(port)).String()
	if ok, _ := Listening(other); ok {
		t.Errorf("Listening(%s) = true: a socket bound to 127.0.0.1 does not listen there", other)
	}
	l.Close()
	if ok, _ := Listening(addr); ok {
		t.Errorf("Listening(%s) = true after the listener closed", addr)
	}
	any, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer any.Close()
	loop := "127.0.0.1:" + strconv.Itoa(any.Addr().(*net.TCPAddr).Port)
	if ok, _ := Listening(loop); !ok || !Accepting(loop) {
		t.Errorf("Listening(%s) = false with a listener on every address", loop)
	}
}

// FuzzListeningSocket: a line of /proc/net/tcp{,6} never panics the
// parser, and a socket it reports prints back as an address.
func FuzzListeningSocket(f *testing.F) {
	f.Add("   0: 0100007F:1B9E 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1")
	f.Add("   0: 00000000000000000000000001000000:1B9E 00000000000000000000000000000000:0000 0A 0")
	f.Fuzz(func(t *testing.T, line string) {
		if ap, ok := listeningSocket(line); ok && !ap.IsValid() {
			t.Errorf("listeningSocket(%q) = %v, true: not a valid address", line, ap)
		}
	})
}
