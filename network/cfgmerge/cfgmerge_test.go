package cfgmerge

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestMerge(t *testing.T) {
	base := `
peer:
    id: jdoe
    tls:
        enabled: false
        cert:
            file: tls/server.crt
chaincode:
    externalBuilders: []
    mode: net
list: [a, b]
empty:
`
	tests := []struct {
		name     string
		override string
		check    map[string]any // dotted path -> expected value
		wantErr  string
	}{
		{"scalar deep", "peer:\n  tls:\n    enabled: true\n", map[string]any{"peer.tls.enabled": true, "peer.tls.cert.file": "tls/server.crt", "peer.id": "jdoe"}, ""},
		{"case-insensitive key", "PEER:\n  ID: other\n", map[string]any{"peer.id": "other"}, ""},
		{"sequence replaced", "list: [c]\nchaincode:\n  externalBuilders:\n    - name: x\n      path: /p\n",
			map[string]any{"list": []any{"c"}, "chaincode.externalBuilders": []any{map[string]any{"name": "x", "path": "/p"}}, "chaincode.mode": "net"}, ""},
		{"new key added", "extra:\n  a: 1\n", map[string]any{"extra.a": 1, "peer.id": "jdoe"}, ""},
		{"mapping onto empty", "empty:\n  k: v\n", map[string]any{"empty.k": "v"}, ""},
		{"mapping onto scalar", "peer:\n  id:\n    x: 1\n", nil, `"peer.id"`},
		{"bad override yaml", "peer: [\n", nil, "override"},
		{"empty override", "", map[string]any{"peer.id": "jdoe"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Merge([]byte(base), []byte(tc.override))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			if err := yaml.Unmarshal(out, &doc); err != nil {
				t.Fatalf("merged output does not parse: %v\n%s", err, out)
			}
			for path, want := range tc.check {
				var cur any = doc
				for _, part := range strings.Split(path, ".") {
					m, ok := cur.(map[string]any)
					if !ok {
						t.Fatalf("%s: not a mapping at %s", path, part)
					}
					cur = m[part]
				}
				if got, w := yamlString(t, cur), yamlString(t, want); got != w {
					t.Errorf("%s = %s, want %s", path, got, w)
				}
			}
		})
	}
}

func yamlString(t *testing.T, v any) string {
	t.Helper()
	b, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestExpandEnv(t *testing.T) {
	env := map[string]string{"A": "1", "B": "/x"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct {
		in, want, wantErr string
	}{
		{"a: ${A}\nb: ${B}/y", "a: 1\nb: /x/y", ""},
		{"plain", "plain", ""},
		{"cost $5, ${NODE_*} and $A", "cost $5, ${NODE_*} and $A", ""},
		{"a: ${MISSING} ${ALSO}", "", "ALSO, MISSING"},
	}
	for _, tc := range tests {
		got, err := ExpandEnv(tc.in, lookup)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("ExpandEnv(%q) error = %v, want %s", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Fatalf("ExpandEnv(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}
