package portprobe

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fabvote/fabvote/network/portplan"
)

// Holder is the process that listens on a port.
type Holder struct {
	PID     int
	Command string
}

func (h Holder) String() string { return fmt.Sprintf("pid %d (%s)", h.PID, h.Command) }

// HolderOf finds the process that listens on addr: its socket's inode in
// the kernel's tables, then the process with a file descriptor on that
// socket. ok is false when nothing listens there or its process is not
// visible to this user.
func HolderOf(addr string) (h Holder, ok bool) {
	inode, _ := listeningInode(addr)
	if inode == "" || inode == "?" || inode == "0" {
		return Holder{}, false
	}
	return holderOfInode("/proc", "socket:["+inode+"]")
}

func holderOfInode(proc, link string) (Holder, bool) {
	pids, _ := filepath.Glob(filepath.Join(proc, "[0-9]*"))
	for _, dir := range pids {
		fds, _ := filepath.Glob(filepath.Join(dir, "fd", "*"))
		for _, fd := range fds {
			if target, err := os.Readlink(fd); err == nil && target == link {
				pid, _ := strconv.Atoi(filepath.Base(dir))
				return Holder{PID: pid, Command: command(dir)}, true
			}
		}
	}
	return Holder{}, false
}

// command is a process's command line, shortened for a message.
func command(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "cmdline"))
	if err != nil || len(b) == 0 {
		b, _ = os.ReadFile(filepath.Join(dir, "comm"))
	}
	args := strings.Fields(strings.ReplaceAll(string(b), "\x00", " "))
	if len(args) == 0 {
		return "?"
	}
	args[0] = filepath.Base(args[0])
	s := strings.Join(args, " ")
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// Taken is a planned listener whose port something already listens on.
type Taken struct {
	portplan.Listener
	Holder *Holder // nil when the process is not visible
}

func (t Taken) String() string {
	by := "a process this user cannot see"
	if t.Holder != nil {
		by = t.Holder.String()
	}
	return fmt.Sprintf("%s, for %s, is taken by %s; set %s to move it", t.Address(), t.Owner, by, t.Var)
}

// TakenOf lists the listeners whose port something already listens on
// (from the kernel's tables; where they cannot be read, by connecting).
func TakenOf(ls []portplan.Listener) []Taken {
	var taken []Taken
	for _, l := range ls {
		if !Accepting(l.Address()) { // the kernel's tables, else a connection
			continue
		}
		t := Taken{Listener: l}
		if h, ok := HolderOf(l.Address()); ok {
			t.Holder = &h
		}
		taken = append(taken, t)
	}
	return taken
}

// Free returns an error naming every listener whose port is taken, what
// holds it and the setting that moves it; nil when every port is free.
func Free(ls []portplan.Listener) error {
	var local []portplan.Listener
	for _, l := range ls { // a listener on a host name: only its own host can tell
		if _, err := netip.ParseAddr(l.Host); err == nil {
			local = append(local, l)
		}
	}
	taken := TakenOf(local)
	if len(taken) == 0 {
		return nil
	}
	lines := make([]string, len(taken))
	for i, t := range taken {
		lines[i] = "port " + t.String()
	}
	return errors.New(strings.Join(lines, "\n"))
}
