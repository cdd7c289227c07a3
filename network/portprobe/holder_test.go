package portprobe

import (
	"fmt"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/network/portplan"
)

func TestHolderOf(t *testing.T) {
	if _, known := Listening("127.0.0.1:1"); !known {
		t.Skip("no /proc/net/tcp here")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	h, ok := HolderOf(addr)
	if !ok || h.PID != os.Getpid() || !strings.Contains(h.Command, "portprobe.test") {
		t.Errorf("HolderOf(%s) = %+v, %v; want this process (pid %d)", addr, h, ok, os.Getpid())
	}
	ln.Close()
	if h, ok := HolderOf(addr); ok {
		t.Errorf("HolderOf(%s) = %+v after the listener closed", addr, h)
	}
}

func TestFree(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	freePort := free.Addr().(*net.TCPAddr).Port
	free.Close()
	ls := []portplan.Listener{
		{Owner: "demo: registration service", Host: "127.0.0.1", Port: port, Var: "EA_ADDR"},
		{Owner: "demo: orderer0 (gRPC)", Host: "127.0.0.1", Port: freePort, Var: "BASE_PORT"},
		{Owner: "a node on another host", Host: "peer0.example.org", Port: port, Var: "BASE_PORT"},
	}
	err = Free(ls)
	want := fmt.Sprintf("port 127.0.0.1:%d, for demo: registration service, is taken by pid %d", port, os.Getpid())
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "set EA_ADDR to move it") {
		t.Fatalf("Free: %v; want %q and the variable", err, want)
	}
	if strings.Contains(err.Error(), "orderer0") || strings.Contains(err.Error(), "example.org") {
		t.Errorf("Free named a free port or another host's: %v", err)
	}
	if err := Free(ls[1:2]); err != nil {
		t.Errorf("Free of a free port: %v", err)
	}
}
