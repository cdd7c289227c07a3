// Command k8sschema writes the JSON Schemas that kubeconform validates
// fabvote's Helm charts against, from the OpenAPI (Swagger 2.0) document of
// a Kubernetes release (api/openapi-spec/swagger.json in the
// k8s.io/kubernetes module), so that the check needs no network:
//
//	k8sschema --swagger swagger.json --out DIR [--kinds Deployment,Service,...]
//
// (docs/cli/k8sschema.md; exit status 0 success, 1 failure, 2 bad usage).
//
// Each kind gets DIR/<kind>-<group>-<version>.json (kubeconform's naming:
// `{{ .ResourceKind }}{{ .KindSuffix }}.json`), standalone: the definitions it
// reaches are copied under "definitions". The schemas are strict: an object
// with declared properties accepts no other, so a misspelt field fails, as
// with `kubectl apply --validate=strict`. IntOrString accepts a string or an
// integer and Quantity a string or a number, as the API server does.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fabvote/fabvote/internal/cli"
)

const refPrefix = "#/definitions/"

func main() { cli.Main(newRootCommand) }

func newRootCommand(stderr io.Writer) *cobra.Command {
	var swagger, out, kinds string
	root := &cobra.Command{
		Use:   "k8sschema --swagger swagger.json --out DIR [--kinds Deployment,Service,...]",
		Short: "write the JSON Schemas kubeconform checks the Helm charts against, from a Kubernetes swagger.json",
		Args:  cli.NoArgs,
	}
	fs := root.Flags()
	fs.StringVar(&swagger, "swagger", "", "Kubernetes swagger.json (required)")
	fs.StringVar(&out, "out", "", "directory to write the schemas to (required)")
	fs.StringVar(&kinds, "kinds", "", "comma-separated kinds to write (default: every kind)")
	root.RunE = func(*cobra.Command, []string) error {
		if err := cli.Required(fs, "swagger", "out"); err != nil {
			return err
		}
		return writeSchemas(swagger, out, kinds)
	}
	cli.Configure(root, stderr)
	return root
}

type gvk struct{ Group, Version, Kind string }

// writeSchemas writes to out the schema of every kind of the swagger file
// (of kinds, if not empty).
func writeSchemas(swagger, out, kinds string) error {
	b, err := os.ReadFile(swagger)
	if err != nil {
		return err
	}
	var doc struct {
		Definitions map[string]any `json:"definitions"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return fmt.Errorf("%s: %w", swagger, err)
	}
	want := map[string]bool{}
	for _, k := range strings.Split(kinds, ",") {
		if k = strings.TrimSpace(k); k != "" {
			want[k] = true
		}
	}
	type target struct {
		g    gvk
		name string
	}
	var targets []target
	found := map[string]bool{}
	for name, def := range doc.Definitions {
		for _, g := range kindsOf(def) {
			if len(want) == 0 || want[g.Kind] {
				targets = append(targets, target{g, name})
				found[g.Kind] = true
			}
		}
	}
	for k := range want {
		if !found[k] {
			return fmt.Errorf("kind %s is not in %s", k, swagger)
		}
	}
	// Written to a sibling directory and renamed at the end, so a failed
	// run leaves no partial set of schemas.
	tmp := out + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	for _, tg := range targets {
		if err := writeSchema(tmp, tg.g, tg.name, doc.Definitions); err != nil {
			os.RemoveAll(tmp)
			return err
		}
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	return os.Rename(tmp, out)
}

// kindsOf lists the group-version-kinds a definition is the top-level
// object of.
func kindsOf(def any) []gvk {
	m, _ := def.(map[string]any)
	list, _ := m["x-kubernetes-group-version-kind"].([]any)
	var out []gvk
	for _, e := range list {
		em, _ := e.(map[string]any)
		g, _ := em["group"].(string)
		v, _ := em["version"].(string)
		k, _ := em["kind"].(string)
		if k != "" && v != "" {
			out = append(out, gvk{g, v, k})
		}
	}
	return out
}

// fileName is kubeconform's `{{ .ResourceKind }}{{ .KindSuffix }}.json`:
// the kind in lower case, the group's first label, the version.
func fileName(g gvk) string {
	suffix := "-" + g.Version
	if g.Group != "" {
		suffix = "-" + strings.ToLower(strings.Split(g.Group, ".")[0]) + "-" + g.Version
	}
	return strings.ToLower(g.Kind) + suffix + ".json"
}

func writeSchema(out string, g gvk, name string, defs map[string]any) error {
	reached := map[string]bool{}
	reach(defs[name], defs, reached)
	definitions := map[string]any{}
	names := make([]string, 0, len(reached))
	for n := range reached {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		definitions[n] = convert(n, defs[n])
	}
	schema := convert(name, defs[name]).(map[string]any)
	schema["$schema"] = "http://json-schema.org/draft-07/schema#"
	schema["definitions"] = definitions
	b, err := json.MarshalIndent(schema, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, fileName(g)), b, 0o644)
}

// reach marks every definition node refers to, transitively.
func reach(node any, defs map[string]any, seen map[string]bool) {
	switch n := node.(type) {
	case map[string]any:
		if ref, ok := n["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, refPrefix)
			if !seen[name] {
				seen[name] = true
				reach(defs[name], defs, seen)
			}
		}
		for _, v := range n {
			reach(v, defs, seen)
		}
	case []any:
		for _, v := range n {
			reach(v, defs, seen)
		}
	}
}

// convert returns node as strict JSON Schema (a copy).
func convert(name string, node any) any {
	switch n := node.(type) {
	case map[string]any:
		if name == "io.k8s.apimachinery.pkg.api.resource.Quantity" {
			return map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "number"}}}
		}
		if n["format"] == "int-or-string" {
			return map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}}
		}
		out := map[string]any{}
		for k, v := range n {
			if k == "properties" {
				props := map[string]any{}
				for pk, pv := range v.(map[string]any) {
					props[pk] = convert("", pv)
				}
				out[k] = props
				continue
			}
			out[k] = convert("", v)
		}
		if _, ok := out["properties"]; ok {
			if _, set := out["additionalProperties"]; !set {
				out["additionalProperties"] = false
			}
		}
		return out
	case []any:
		out := make([]any, len(n))
		for i, v := range n {
			out[i] = convert("", v)
		}
		return out
	}
	return node
}
