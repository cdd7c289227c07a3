// The fabvote-org chart, rendered by the real helm and checked by the real
// kubeconform against the Kubernetes release's own schemas (make helm-test
// builds both from their Go modules and sets the variables below). There is
// no cluster here: what these tests show is that the chart renders valid,
// strict Kubernetes objects, carries no key, and refuses bad values.
package helmchart

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

type tools struct{ helm, kubeconform, schemas string }

func needTools(t *testing.T) tools {
	t.Helper()
	tl := tools{os.Getenv("FABVOTE_HELM"), os.Getenv("FABVOTE_KUBECONFORM"), os.Getenv("FABVOTE_K8S_SCHEMAS")}
	if tl.helm == "" || tl.kubeconform == "" || tl.schemas == "" {
		t.Skip("FABVOTE_HELM, FABVOTE_KUBECONFORM and FABVOTE_K8S_SCHEMAS are not set: run `make helm-test`")
	}
	return tl
}

// Node configuration files the examples take with --set-file: the Docker
// network's own override files stand in for whole core.yaml/orderer.yaml.
var (
	coreYaml    = "../../network/docker/config/core.yaml"
	ordererYaml = "../../network/docker/config/orderer.yaml"
)

type example struct {
	release string
	args    []string
	kinds   map[string]int // objects of each kind the release renders
}

var examples = []example{
	{"ea", []string{"-f", "examples/ea.yaml", "--set-file", "config.peer0=" + coreYaml},
		map[string]int{"ConfigMap": 1, "Service": 5, "StatefulSet": 2, "Deployment": 1, "NetworkPolicy": 3}},
	{"party1", []string{"-f", "examples/party1.yaml", "--set-file", "config.peer0=" + coreYaml},
		map[string]int{"ConfigMap": 1, "Service": 5, "StatefulSet": 2, "Deployment": 1, "NetworkPolicy": 3}},
	{"orderer", []string{"-f", "examples/orderer.yaml", "--set-file", "config.orderer0=" + ordererYaml,
		"--set-file", "config.orderer1=" + ordererYaml, "--set-file", "config.orderer2=" + ordererYaml},
		map[string]int{"ConfigMap": 3, "Service": 8, "StatefulSet": 4, "NetworkPolicy": 4}},
}

func (tl tools) render(t *testing.T, release string, args ...string) ([]byte, error) {
	t.Helper()
	cmd := exec.Command(tl.helm, append([]string{"template", release, "fabvote-org"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, &renderError{err, stderr.String()}
	}
	return out, nil
}

// renderError is a refused render; render returns what helm wrote to its
// standard output with it, which must be nothing.
type renderError struct {
	err    error
	stderr string
}

func (e *renderError) Error() string { return e.err.Error() + ": " + e.stderr }

func (tl tools) validate(t *testing.T, manifests []byte) (string, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "manifests.yaml")
	if err := os.WriteFile(path, manifests, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(tl.kubeconform, "-strict", "-summary",
		"-schema-location", filepath.Join(tl.schemas, "{{ .ResourceKind }}{{ .KindSuffix }}.json"), path).CombinedOutput()
	return string(out), err
}

// objects decodes the rendered documents.
func objects(t *testing.T, manifests []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	dec := yaml.NewDecoder(bytes.NewReader(manifests))
	for {
		var o map[string]any
		if err := dec.Decode(&o); err != nil {
			if err.Error() == "EOF" {
				return out
			}
			t.Fatal(err)
		}
		if o != nil {
			out = append(out, o)
		}
	}
}

func TestExamplesRenderValid(t *testing.T) {
	tl := needTools(t)
	if out, err := exec.Command(tl.helm, "lint", "--strict", "fabvote-org", "-f", "examples/ea.yaml", "--set-file", "config.peer0="+coreYaml).CombinedOutput(); err != nil {
		t.Fatalf("helm lint: %v\n%s", err, out)
	}
	for _, ex := range examples {
		t.Run(ex.release, func(t *testing.T) {
			m, err := tl.render(t, ex.release, ex.args...)
			if err != nil {
				t.Fatal(err)
			}
			if out, err := tl.validate(t, m); err != nil {
				t.Fatalf("kubeconform: %v\n%s", err, out)
			}
			got := map[string]int{}
			for _, o := range objects(t, m) {
				got[o["kind"].(string)]++
			}
			for kind, n := range ex.kinds {
				if got[kind] != n {
					t.Errorf("%d %s objects, want %d (all: %v)", got[kind], kind, n, got)
				}
			}
			if len(got) != len(ex.kinds) {
				t.Errorf("kinds %v, want %v", got, ex.kinds)
			}
			// The organisation's keys never pass through the chart.
			if bytes.Contains(m, []byte("PRIVATE KEY")) || got["Secret"] > 0 {
				t.Error("the rendered release holds a key or a Secret")
			}
		})
	}
}

// The ea peer advertises its external address and mounts its own MSP and
// TLS Secrets; the operations ports stay off the external Services.
func TestExternalAddressesAndSecrets(t *testing.T) {
	tl := needTools(t)
	m, err := tl.render(t, examples[0].release, examples[0].args...)
	if err != nil {
		t.Fatal(err)
	}
	s := string(m)
	for _, want := range []string{
		"{name: CORE_PEER_GOSSIP_EXTERNALENDPOINT, value: \"peer0.ea.fabvote.example:7051\"}",
		"{name: CORE_PEER_ADDRESS, value: \"peer0.ea.fabvote.example:7051\"}",
		"{name: CORE_PEER_LOCALMSPID, value: \"EAMSP\"}",
		"name: peer0-ea-msp",
		"secretName: peer0-ea-tls",
		"secretName: peer0-ccaas-tls",
		"secretName: ca-ea",
		"{name: FABVOTE_OPS_ADDR, value: \"0.0.0.0:9443\"}",
		"{name: FABVOTE_COMMIT_GATE, value: \"lockless\"}",
		"{name: FABRIC_CA_SERVER_BOOT, value: \"$(BOOTSTRAP_USER):$(BOOTSTRAP_PASSWORD)\"}",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the ea release lacks %s", want)
		}
	}
	// The Services that leave the cluster (all but the headless internal
	// ones and the chaincode's ClusterIP) carry no operations port.
	for _, o := range objects(t, m) {
		if o["kind"] != "Service" {
			continue
		}
		spec := o["spec"].(map[string]any)
		name := o["metadata"].(map[string]any)["name"].(string)
		if spec["clusterIP"] == "None" || strings.HasSuffix(name, "-ballot-cc") {
			continue
		}
		for _, p := range spec["ports"].([]any) {
			if n := p.(map[string]any)["name"]; n == "operations" || n == "chaincode" {
				t.Errorf("Service %s exposes its %s port", name, n)
			}
		}
	}
	if strings.Contains(s, "-b ") || strings.Contains(s, "--boot") {
		t.Error("the CA's registrar secret is on a command line")
	}
}

// Bad values are refused with an error naming what is wrong, and nothing is rendered.
func TestBadValuesRefused(t *testing.T) {
	tl := needTools(t)
	base := examples[0].args
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no node configuration", []string{"-f", "examples/ea.yaml"}, "config.peer0"},
		{"address without port", append(base, "--set", "peers[0].name=peer0,peers[0].externalAddress=peer0.example,peers[0].mspSecret=m,peers[0].tlsSecret=t,peers[0].service.type=ClusterIP,peers[0].storage.size=1Gi"), "externalAddress"},
		{"bad package id", append(base, "--set", "chaincode.packageID=ballot"), "packageID"},
		{"misspelt field", append(base, "--set", "ca.secrt=x"), "secrt"},
		{"unknown switch", append(base, "--set", "peers[0].name=peer0,peers[0].externalAddress=p:1,peers[0].mspSecret=m,peers[0].tlsSecret=t,peers[0].service.type=ClusterIP,peers[0].storage.size=1Gi,peers[0].switches.PATH=/tmp"), "PATH"},
		{"unknown top-level field", append(base, "--set", "chaincod.enabled=false"), "chaincod"},
		{"port out of range", append(base, "--set", "ca.externalAddress=ca.example:99999"), "externalAddress"},
		{"chaincode without package id", []string{"-f", "testdata/ea-no-package.yaml", "--set-file", "config.peer0=" + coreYaml}, "packageID"},
		{"CA without address", append(base, "--set", "ca.externalAddress=null"), "externalAddress"},
		{"orderer without admin address", []string{"-f", "testdata/orderer-no-admin.yaml", "--set-file", "config.orderer0=" + ordererYaml}, "adminAddress"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := tl.render(t, "ea", c.args...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one naming %q", err, c.want)
			}
			if len(out) != 0 {
				t.Fatal("a refused release rendered objects")
			}
		})
	}
}

// The schemas are strict: kubeconform refuses a misspelt field, so the
// check above can fail.
func TestKubeconformIsStrict(t *testing.T) {
	tl := needTools(t)
	m, err := tl.render(t, examples[0].release, examples[0].args...)
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Replace(m, []byte("imagePullPolicy:"), []byte("imagePulPolicy:"), 1)
	if out, err := tl.validate(t, bad); err == nil || !strings.Contains(out, "imagePulPolicy") {
		t.Fatalf("kubeconform accepted a misspelt field: %v\n%s", err, out)
	}
}
