package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const miniSwagger = `{"definitions": {
  "io.k8s.api.apps.v1.Deployment": {"type": "object",
    "x-kubernetes-group-version-kind": [{"group": "apps", "version": "v1", "kind": "Deployment"}],
    "properties": {"spec": {"$ref": "#/definitions/io.k8s.api.apps.v1.DeploymentSpec"}}},
  "io.k8s.api.apps.v1.DeploymentSpec": {"type": "object",
    "properties": {"port": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.util.intstr.IntOrString"},
                   "cpu": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.api.resource.Quantity"},
                   "labels": {"type": "object", "additionalProperties": {"type": "string"}}}},
  "io.k8s.apimachinery.pkg.util.intstr.IntOrString": {"type": "string", "format": "int-or-string"},
  "io.k8s.apimachinery.pkg.api.resource.Quantity": {"type": "string"},
  "io.k8s.api.core.v1.Service": {"type": "object",
    "x-kubernetes-group-version-kind": [{"group": "", "version": "v1", "kind": "Service"}],
    "properties": {"kind": {"type": "string"}}},
  "io.k8s.api.networking.v1.NetworkPolicy": {"type": "object",
    "x-kubernetes-group-version-kind": [{"group": "networking.k8s.io", "version": "v1", "kind": "NetworkPolicy"}],
    "properties": {"kind": {"type": "string"}}},
  "io.k8s.unreached.Thing": {"type": "object"}
}}`

func TestSchemas(t *testing.T) {
	dir := t.TempDir()
	sw := filepath.Join(dir, "swagger.json")
	os.WriteFile(sw, []byte(miniSwagger), 0o644)
	out := filepath.Join(dir, "out")
	if err := writeSchemas(sw, out, ""); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"deployment-apps-v1.json", "service-v1.json", "networkpolicy-networking-v1.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("kubeconform's file name %s not written: %v", f, err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(out, "deployment-apps-v1.json"))
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	defs := s["definitions"].(map[string]any)
	if _, ok := defs["io.k8s.unreached.Thing"]; ok || len(defs) != 3 {
		t.Errorf("definitions %v: want exactly the three the Deployment reaches", keys(defs))
	}
	if s["additionalProperties"] != false {
		t.Error("the Deployment schema is not strict")
	}
	spec := defs["io.k8s.api.apps.v1.DeploymentSpec"].(map[string]any)
	if spec["additionalProperties"] != false {
		t.Error("a nested object is not strict")
	}
	if labels := spec["properties"].(map[string]any)["labels"].(map[string]any); labels["additionalProperties"] == false {
		t.Error("a map type lost its value schema")
	}
	for name, alt := range map[string]string{"io.k8s.apimachinery.pkg.util.intstr.IntOrString": "integer", "io.k8s.apimachinery.pkg.api.resource.Quantity": "number"} {
		if got, _ := json.Marshal(defs[name]); !strings.Contains(string(got), `"type":"`+alt+`"`) {
			t.Errorf("%s = %s, want a string or %s", name, got, alt)
		}
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestRunRefuses(t *testing.T) {
	dir := t.TempDir()
	sw := filepath.Join(dir, "swagger.json")
	os.WriteFile(sw, []byte(miniSwagger), 0o644)
	for _, c := range []struct{ swagger, out, kinds, want string }{
		{filepath.Join(dir, "none.json"), dir, "", "none.json"},
		{sw, filepath.Join(dir, "o"), "Deployment,CronJob", "kind CronJob"},
	} {
		if err := writeSchemas(c.swagger, c.out, c.kinds); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("writeSchemas(%q, %q, %q) = %v, want an error naming %q", c.swagger, c.out, c.kinds, err, c.want)
		}
	}
}
