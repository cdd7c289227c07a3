// Package cfgmerge writes a Fabric configuration file (core.yaml,
// orderer.yaml) as upstream's sampleconfig plus our overrides.
//
// The repository keeps only the overrides (network/config/*.yaml), so every
// setting we change is visible in one short file and an upgrade of Fabric picks
// up upstream's new defaults. Fabric can override scalars from the environment
// (CORE_*, ORDERER_*) but not structured values such as the external builder
// list; a YAML deep merge handles both.
//
// Merge rules: mappings merge key by key (keys match case-insensitively, as
// Fabric's viper does); any other override value (scalar, sequence) replaces
// the upstream value. ${NAME} in the override file is replaced by the value
// lookup gives NAME (only this braced form); an unknown name is an error.
package cfgmerge

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// File reads the upstream file base and the override file, expands the
// override's ${NAME} references with lookup and returns the merged document.
func File(base, override string, lookup func(string) (string, bool)) ([]byte, error) {
	baseText, err := os.ReadFile(base)
	if err != nil {
		return nil, err
	}
	ovText, err := os.ReadFile(override)
	if err != nil {
		return nil, err
	}
	expanded, err := ExpandEnv(string(ovText), lookup)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", override, err)
	}
	return Merge(baseText, []byte(expanded))
}

var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// ExpandEnv replaces ${NAME} using lookup; unset names are an error. Only the
// braced form is recognised, so a lone $ or a pattern like ${NODE_*} in a
// comment stays as it is.
func ExpandEnv(s string, lookup func(string) (string, bool)) (string, error) {
	missing := map[string]bool{}
	out := envRef.ReplaceAllStringFunc(s, func(ref string) string {
		name := envRef.FindStringSubmatch(ref)[1]
		v, ok := lookup(name)
		if !ok {
			missing[name] = true
		}
		return v
	})
	if len(missing) > 0 {
		var names []string
		for n := range missing {
			names = append(names, n)
		}
		sort.Strings(names)
		return "", fmt.Errorf("environment variables not set: %s", strings.Join(names, ", "))
	}
	return out, nil
}

// Merge deep-merges the override document onto the base document.
func Merge(base, override []byte) ([]byte, error) {
	var b, o yaml.Node
	if err := yaml.Unmarshal(base, &b); err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	if err := yaml.Unmarshal(override, &o); err != nil {
		return nil, fmt.Errorf("override: %w", err)
	}
	if len(b.Content) == 0 {
		return nil, errors.New("base: empty document")
	}
	if len(o.Content) > 0 {
		if err := mergeNode(b.Content[0], o.Content[0], ""); err != nil {
			return nil, err
		}
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(4)
	if err := enc.Encode(&b); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func mergeNode(dst, src *yaml.Node, path string) error {
	if src.Kind != yaml.MappingNode {
		*dst = *src
		return nil
	}
	if dst.Kind != yaml.MappingNode {
		if dst.Kind == yaml.ScalarNode && (dst.Tag == "!!null" || dst.Value == "") {
			*dst = *src
			return nil
		}
		return fmt.Errorf("override %q: a mapping cannot replace a %s in the base", path, kindName(dst.Kind))
	}
	for i := 0; i+1 < len(src.Content); i += 2 {
		k, v := src.Content[i], src.Content[i+1]
		p := k.Value
		if path != "" {
			p = path + "." + k.Value
		}
		found := false
		for j := 0; j+1 < len(dst.Content); j += 2 {
			if strings.EqualFold(dst.Content[j].Value, k.Value) {
				if err := mergeNode(dst.Content[j+1], v, p); err != nil {
					return err
				}
				found = true
				break
			}
		}
		if !found {
			dst.Content = append(dst.Content, k, v)
		}
	}
	return nil
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.SequenceNode:
		return "sequence"
	case yaml.ScalarNode:
		return "scalar"
	case yaml.AliasNode:
		return "alias"
	}
	return "node"
}
