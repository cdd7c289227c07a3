package compose

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/network/fabnet"
	"github.com/fabvote/fabvote/network/fabrun"
)

// Runtime runs an organisation's orderers, peer and ballot chaincode
// service as containers of a compose project of its own (fabvote-<org>),
// described in HOME/compose.yaml, one service per node. Each container
// shares the host's network, so it listens on the topology's address as
// the native process would. It gets its node's directory read-write and
// the node's own keys, certificates and TLS root read-only, at the same
// paths as on the host, and nothing else of the host: not the CAs' keys,
// not another node's keys. It runs as the home's owner, without
// capabilities or privilege escalation. Images are never pulled: Start
// refuses an image that was not built here (make docker-images).
type Runtime struct {
	Compose []string // the compose command: docker-compose, or docker compose
	Docker  string   // the docker CLI
	Tag     string   // the images' tag
}

// orgFile is an organisation's compose file. It names its own project,
// so that `fabnet down --home` finds the containers without the org.
type orgFile struct {
	Project  string                `yaml:"x-fabvote-project"`
	Services map[string]orgService `yaml:"services"`
}

type orgService struct {
	Image       string            `yaml:"image"`
	NetworkMode string            `yaml:"network_mode"`
	User        string            `yaml:"user"`
	CapDrop     []string          `yaml:"cap_drop,flow"`
	SecurityOpt []string          `yaml:"security_opt,flow"`
	WorkingDir  string            `yaml:"working_dir"`
	Command     []string          `yaml:"command,flow"`
	Environment map[string]string `yaml:"environment"`
	Volumes     []string          `yaml:"volumes"`
	Restart     string            `yaml:"restart"`
}

// OrgFile is the organisation's compose file in its home.
func OrgFile(h fabrun.Home) string { return orgFilePath(h.Dir) }

func orgFilePath(home string) string { return filepath.Join(home, "compose.yaml") }

// project is the organisation's compose project name.
func project(org string) string { return "fabvote-" + org }

// Start adds p to the organisation's compose file, starts its container
// and waits until it accepts TCP connections on p.Ready.
func (r Runtime) Start(ctx context.Context, h fabrun.Home, p fabnet.Proc) error {
	if p.Image == "" {
		return fmt.Errorf("%s has no container image: it runs natively only", p.Name)
	}
	image := p.Image + ":" + r.Tag
	if err := exec.CommandContext(ctx, r.Docker, "image", "inspect", image).Run(); err != nil {
		return fmt.Errorf("image %s is not on this machine: build it with make docker-images (fabnet never pulls one)", image)
	}
	svc, err := r.service(h, p, image)
	if err != nil {
		return err
	}
	before, err := os.ReadFile(OrgFile(h))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	f, err := parseOrgFile(before, true)
	if err != nil {
		return fmt.Errorf("%s: %w", OrgFile(h), err)
	}
	f.Project, f.Services[p.Name] = project(h.Org), svc
	if err := writeOrgFile(h, f); err != nil {
		return err
	}
	err = r.up(ctx, h.Dir, f.Project, p)
	if err != nil {
		// As a native node that never got ready: nothing stays behind.
		_, _ = r.compose(context.Background(), h.Dir, f.Project, "rm", "-s", "-f", p.Name)
		if before == nil {
			_ = os.Remove(OrgFile(h))
		} else {
			_ = atomicfile.WriteFile(OrgFile(h), before, 0o600)
		}
	}
	return err
}

// up starts p's service and waits until it is ready.
func (r Runtime) up(ctx context.Context, home, proj string, p fabnet.Proc) error {
	if err := os.MkdirAll(p.Dir, 0o700); err != nil {
		return err
	}
	if out, err := r.compose(ctx, home, proj, "up", "-d", "--no-deps", p.Name); err != nil {
		return fmt.Errorf("starting the container of %s: %v\n%s", p.Name, err, out)
	}
	if err := r.waitReady(ctx, home, proj, p); err != nil {
		logs, _ := r.compose(context.Background(), home, proj, "logs", "--tail", "40", p.Name)
		return fmt.Errorf("%w\n%s", err, logs)
	}
	return nil
}

func writeOrgFile(h fabrun.Home, f orgFile) error {
	text, err := yaml.Marshal(f)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(OrgFile(h), text, 0o600)
}

// service is p as a compose service: its image's binary with p's
// arguments, in p's directory, with p's environment but the image's own
// PATH and HOME, and no PKCS#11 PIN (no node uses one).
func (r Runtime) service(h fabrun.Home, p fabnet.Proc, image string) (orgService, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(h.Dir, &st); err != nil {
		return orgService{}, err
	}
	env := map[string]string{}
	for _, kv := range p.Env {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case k == "PATH", k == "HOME", k == "TMPDIR", k == "LD_LIBRARY_PATH", strings.HasPrefix(k, "FABVOTE_PKCS11"):
		default:
			env[k] = strings.ReplaceAll(v, "$", "$$") // compose would interpolate a lone $
		}
	}
	vols := []string{p.Dir + ":" + p.Dir}
	for _, m := range p.Mounts {
		vols = append(vols, m+":"+m+":ro")
	}
	return orgService{Image: image, NetworkMode: "host", User: fmt.Sprintf("%d:%d", st.Uid, st.Gid),
		CapDrop: []string{"ALL"}, SecurityOpt: []string{"no-new-privileges:true"},
		WorkingDir: p.Dir, Command: append([]string{p.ImageCmd}, p.Args...), Environment: env,
		Volumes: vols, Restart: "unless-stopped"}, nil
}

// parseOrgFile reads an organisation's compose file; strict refuses a
// field fabnet does not write (before fabnet rewrites the file).
func parseOrgFile(b []byte, strict bool) (orgFile, error) {
	f := orgFile{Services: map[string]orgService{}}
	if b == nil {
		return f, nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(strict)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return f, err
	}
	if f.Services == nil {
		f.Services = map[string]orgService{}
	}
	return f, nil
}

// readProject is the project named in the compose file of the home dir;
// "" without one.
func readProject(dir string) (string, error) {
	b, err := os.ReadFile(orgFilePath(dir))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	f, err := parseOrgFile(b, false)
	return f.Project, err
}

// waitReady polls p.Ready; a container that stops or restarts fails at once.
func (r Runtime) waitReady(ctx context.Context, home, proj string, p fabnet.Proc) error {
	for {
		c, err := net.DialTimeout("tcp", p.Ready, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if state, err := r.state(ctx, home, proj, p.Name); err == nil && state != "running" && state != "created" {
			return fmt.Errorf("the container of %s is %s before it listened on %s", p.Name, state, p.Ready)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s did not listen on %s: %w", p.Name, p.Ready, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// state is the state of service name's container (running, restarting,
// exited...), or "restarted" once Docker has restarted it.
func (r Runtime) state(ctx context.Context, home, proj, name string) (string, error) {
	id, err := r.compose(ctx, home, proj, "ps", "-q", name)
	if err != nil || strings.TrimSpace(id) == "" {
		return "", fmt.Errorf("no container for %s", name)
	}
	out, err := exec.CommandContext(ctx, r.Docker, "inspect", "-f", "{{.State.Status}} {{.RestartCount}}", strings.TrimSpace(id)).Output()
	if err != nil {
		return "", err
	}
	state, restarts, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	if n, err := strconv.Atoi(restarts); err == nil && n > 0 {
		return "restarted", nil
	}
	return state, nil
}

// Down stops and removes the containers of the organisation whose home is
// dir; the home, with the ledgers, stays. Without a compose file it does
// nothing.
func (r Runtime) Down(ctx context.Context, dir string) error {
	proj, err := readProject(dir)
	if err != nil || proj == "" {
		return err
	}
	if out, err := r.compose(ctx, dir, proj, "down", "--timeout", "10"); err != nil {
		return fmt.Errorf("stopping the containers of %s: %v\n%s", proj, err, out)
	}
	return nil
}

// Status lists the containers of the organisation whose home is dir, as
// compose ps prints them; "" without a compose file.
func (r Runtime) Status(ctx context.Context, dir string) (string, error) {
	proj, err := readProject(dir)
	if err != nil || proj == "" {
		return "", err
	}
	return r.compose(ctx, dir, proj, "ps")
}

func (r Runtime) compose(ctx context.Context, home, proj string, args ...string) (string, error) {
	full := append(append(slices.Clone(r.Compose[1:]), "-p", proj, "-f", orgFilePath(home)), args...)
	cmd := exec.CommandContext(ctx, r.Compose[0], full...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// Detect returns a Runtime with the compose command this machine has:
// the docker compose plugin, else docker-compose.
func Detect(tag string) (Runtime, error) {
	if exec.Command("docker", "compose", "version").Run() == nil {
		return Runtime{Compose: []string{"docker", "compose"}, Docker: "docker", Tag: tag}, nil
	}
	if p, err := exec.LookPath("docker-compose"); err == nil {
		return Runtime{Compose: []string{p}, Docker: "docker", Tag: tag}, nil
	}
	return Runtime{}, errors.New("neither 'docker compose' nor 'docker-compose' found")
}
