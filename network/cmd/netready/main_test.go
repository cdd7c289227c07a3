package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The probe itself runs at the end of every `net.sh up` (make network-test);
// here: its argument and input errors name what is wrong.
func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"channel":""}`), 0o644); err != nil {
		t.Fatal(err)
	}
	noUser := filepath.Join(dir, "nouser.json")
	if err := os.WriteFile(noUser, []byte(`{"channel":"c","chaincodes":["kv"],"orgs":[{"name":"ea","mspID":"EAMSP",
		"peers":[{"endpoint":"127.0.0.1:1","tlsCACert":"/nonexistent"}],"identities":{}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, wantErr string
	}{
		{"no flag", "", "-network"},
		{"missing file", filepath.Join(dir, "none.json"), "none.json"},
		{"invalid description", bad, "channel"},
		{"no user1 identity", noUser, `"user1"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := run(tc.path, time.Second)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("run error = %v, want one naming %s", err, tc.wantErr)
			}
		})
	}
}
