package netns

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// lab makes a lab of two hosts, or skips where namespaces cannot be made.
func lab(t *testing.T) *Lab {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("network namespaces need root")
	}
	for _, tool := range []string{"ip", "python3", "timeout"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	l, err := New(fmt.Sprintf("t%d", os.Getpid()%100000), "10.203.250", []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Error(err)
		}
	})
	return l
}

// dial makes a TCP connection from host's namespace to addr, giving up after 3 s.
func dial(l *Lab, host, addr string) error {
	h, p, _ := net.SplitHostPort(addr)
	out, err := l.Command(host, "timeout", "3", "bash", "-c", "exec 3<>/dev/tcp/"+h+"/"+p).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// listen runs a TCP listener on addr in host's namespace until the test ends.
func listen(t *testing.T, l *Lab, host, addr string) {
	t.Helper()
	h, p, _ := net.SplitHostPort(addr)
	cmd := l.Command(host, "python3", "-c", fmt.Sprintf(
		"import socket,time\ns=socket.socket()\ns.bind(('%s',%s))\ns.listen()\nprint('up',flush=True)\ntime.sleep(120)", h, p))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "up\n" {
		t.Fatalf("listener on %s in %s did not start: %q %v", addr, host, line, err)
	}
}

func TestHostsReachEachOtherOnlyOverTheSwitch(t *testing.T) {
	l := lab(t)
	b := l.Addr("b")
	listen(t, l, "b", b+":7051")
	if err := dial(l, "a", b+":7051"); err != nil {
		t.Fatalf("a cannot reach b's address: %v", err)
	}
	// b's loopback is b's own: neither a's loopback nor b's switch address leads to it.
	listen(t, l, "b", "127.0.0.1:7054")
	if err := dial(l, "a", "127.0.0.1:7054"); err == nil {
		t.Error("a reached b's loopback listener at 127.0.0.1")
	}
	if err := dial(l, "a", b+":7054"); err == nil {
		t.Error("a reached b's loopback listener through b's address")
	}
	// Nor does the machine's own loopback.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := dial(l, "a", ln.Addr().String()); err == nil {
		t.Errorf("a reached the machine's loopback at %s", ln.Addr())
	}
}

func TestCutAndHeal(t *testing.T) {
	l := lab(t)
	b := l.Addr("b") + ":7051"
	listen(t, l, "b", b)
	if err := l.Cut("b"); err != nil {
		t.Fatal(err)
	}
	if err := dial(l, "a", b); err == nil {
		t.Fatal("a reached b while b was cut off")
	}
	if err := l.Heal("b"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := dial(l, "a", b)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a cannot reach b after the heal: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func TestNewRefusesBadNames(t *testing.T) {
	for _, c := range []struct{ prefix, host, want string }{
		{"Bad!", "a", "prefix"},
		{"toolongx", "a", "prefix"},
	} {
		if _, err := New(c.prefix, "10.203.251", []string{c.host}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%q, %q) = %v, want an error naming the %s", c.prefix, c.host, err, c.want)
		}
	}
}
