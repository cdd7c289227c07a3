package compose

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/network/fabnet"
	"github.com/fabvote/fabvote/network/fabrun"
)

// fakeRuntime is a Runtime whose compose command is a script that records
// its arguments. Its docker has every image when images is true, and says
// of every container that it runs and never restarted.
func fakeRuntime(t *testing.T, images bool) (Runtime, string) {
	t.Helper()
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	imageExit := "0"
	if !images {
		imageExit = "1"
	}
	scripts := map[string]string{
		"compose": "#!/bin/sh\necho \"$*\" >> " + calls + "\necho fakeid\n",
		"docker":  "#!/bin/sh\n[ \"$1\" = image ] && exit " + imageExit + "\necho running 0\n",
	}
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return Runtime{Compose: []string{filepath.Join(dir, "compose")}, Docker: filepath.Join(dir, "docker"), Tag: "t1"}, calls
}

func readOrgFile(t *testing.T, h fabrun.Home) orgFile {
	t.Helper()
	b, err := os.ReadFile(OrgFile(h))
	if err != nil {
		t.Fatal(err)
	}
	f, err := parseOrgFile(b, true)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func listen(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l.Addr().String()
}

func TestStartWritesTheServiceAndRunsCompose(t *testing.T) {
	rt, calls := fakeRuntime(t, true)
	h := fabrun.Home{Dir: t.TempDir(), Org: "party1"}
	ready := listen(t)
	crypto := filepath.Join(h.Dir, "crypto", "peers", "peer0.party1.example.org")
	p := fabnet.Proc{Name: "peer0", Path: "/opt/bin/peer", Args: []string{"node", "start"}, Dir: filepath.Join(h.Dir, "nodes", "peer0"),
		Env: []string{"PATH=/usr/bin", "HOME=/root", "FABRIC_CFG_PATH=" + h.Dir + "/nodes/peer0", "FABVOTE_SIG_MEMO=on",
			"FABVOTE_PKCS11_PIN=1234", "FABVOTE_NOTE=a$b"},
		Ready: ready, Image: "fabvote/peer", ImageCmd: "peer", Mounts: []string{crypto}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := rt.Start(ctx, h, p); err != nil {
		t.Fatal(err)
	}
	f := readOrgFile(t, h)
	svc := f.Services["peer0"]
	if f.Project != "fabvote-party1" || svc.Image != "fabvote/peer:t1" || svc.NetworkMode != "host" || svc.WorkingDir != p.Dir {
		t.Errorf("compose file %+v", f)
	}
	wantVols := []string{p.Dir + ":" + p.Dir, crypto + ":" + crypto + ":ro"}
	if !reflect.DeepEqual(svc.Command, []string{"peer", "node", "start"}) || !reflect.DeepEqual(svc.Volumes, wantVols) {
		t.Errorf("command %v, volumes %v, want %v (the node's directory and its own files only)", svc.Command, svc.Volumes, wantVols)
	}
	if !reflect.DeepEqual(svc.CapDrop, []string{"ALL"}) || !reflect.DeepEqual(svc.SecurityOpt, []string{"no-new-privileges:true"}) {
		t.Errorf("cap_drop %v, security_opt %v", svc.CapDrop, svc.SecurityOpt)
	}
	want := map[string]string{"FABRIC_CFG_PATH": h.Dir + "/nodes/peer0", "FABVOTE_SIG_MEMO": "on", "FABVOTE_NOTE": "a$$b"}
	if !reflect.DeepEqual(svc.Environment, want) {
		t.Errorf("environment %v, want %v (the image's own PATH and HOME, no PIN, $ escaped)", svc.Environment, want)
	}
	if fi, err := os.Stat(p.Dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the node's directory: %v, %v", fi, err)
	}
	if uid := strings.Split(svc.User, ":")[0]; uid != strconv.Itoa(os.Getuid()) {
		t.Errorf("user %s, want the home's owner %d", svc.User, os.Getuid())
	}
	got, _ := os.ReadFile(calls)
	if !strings.Contains(string(got), "-p fabvote-party1 -f "+OrgFile(h)+" up -d --no-deps peer0") {
		t.Errorf("compose calls:\n%s", got)
	}
	if fi, err := os.Stat(OrgFile(h)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("compose.yaml mode %v, %v", fi.Mode(), err)
	}

	// A second node joins the same file; the first stays.
	p2 := p
	p2.Name, p2.Image, p2.ImageCmd, p2.Args = "cc.ballot", "fabvote/ballot-cc", "ballot-cc", nil
	if err := rt.Start(ctx, h, p2); err != nil {
		t.Fatal(err)
	}
	if f2 := readOrgFile(t, h); len(f2.Services) != 2 {
		t.Fatalf("after the second start: %d services, want 2", len(f2.Services))
	}
}

func TestStartRefusals(t *testing.T) {
	rt, _ := fakeRuntime(t, true)
	h := fabrun.Home{Dir: t.TempDir(), Org: "ea"}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := rt.Start(ctx, h, fabnet.Proc{Name: "cc.registry", Ready: listen(t)}); err == nil || !strings.Contains(err.Error(), "runs natively only") {
		t.Errorf("a node without an image: %v", err)
	}
	if _, err := os.Stat(OrgFile(h)); err == nil {
		t.Error("a refused start wrote compose.yaml")
	}
	noImages, _ := fakeRuntime(t, false)
	err := noImages.Start(ctx, h, fabnet.Proc{Name: "peer0", Dir: filepath.Join(h.Dir, "nodes", "peer0"), Image: "fabvote/peer", ImageCmd: "peer", Ready: listen(t)})
	if err == nil || !strings.Contains(err.Error(), "fabvote/peer:t1 is not on this machine") {
		t.Errorf("an image not built here: %v", err)
	}
	if _, err := os.Stat(OrgFile(h)); err == nil {
		t.Error("a refused start wrote compose.yaml")
	}
	if err := os.WriteFile(OrgFile(h), []byte("services: {}\nextra: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err = rt.Start(ctx, h, fabnet.Proc{Name: "peer0", Dir: filepath.Join(h.Dir, "nodes", "peer0"), Image: "fabvote/peer", ImageCmd: "peer", Ready: listen(t)})
	if err == nil || !strings.Contains(err.Error(), "extra") {
		t.Errorf("a compose.yaml with a field of its own: %v", err)
	}
}

// A node that never listens is removed, and the compose file is as it was.
func TestStartFailsWhenNothingListens(t *testing.T) {
	rt, calls := fakeRuntime(t, true)
	h := fabrun.Home{Dir: t.TempDir(), Org: "ea"}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := rt.Start(ctx, h, fabnet.Proc{Name: "peer0", Dir: filepath.Join(h.Dir, "nodes", "peer0"), Image: "fabvote/peer", ImageCmd: "peer", Ready: "127.0.0.1:1"})
	if err == nil || !strings.Contains(err.Error(), "did not listen on 127.0.0.1:1") {
		t.Errorf("Start = %v, want a timeout naming the address", err)
	}
	if _, err := os.Stat(OrgFile(h)); err == nil {
		t.Error("the failed node stays in compose.yaml")
	}
	got, _ := os.ReadFile(calls)
	if !strings.Contains(string(got), "rm -s -f peer0") {
		t.Errorf("the failed node's container was not removed; compose calls:\n%s", got)
	}
}
