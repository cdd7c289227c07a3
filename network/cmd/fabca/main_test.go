package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunRefuses(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	os.WriteFile(good, []byte("registrar:pw\n"), 0o600)
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte("no colon\n"), 0o600)
	base := []string{"--client", "/bin/false", "--domain", "ea.local", "--dir", dir, "--nodes", "peer0",
		"--ca", "127.0.0.1:1", "--ca-tls-cert", good, "--tlsca", "127.0.0.1:2", "--tlsca-tls-cert", good}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no registrar files", base, "--ca-registrar-file is required"},
		{"no TLS CA registrar", append(base, "--ca-registrar-file", good), "--tlsca-registrar-file is required"},
		{"missing registrar file", append(base, "--ca-registrar-file", filepath.Join(dir, "none"), "--tlsca-registrar-file", good), "--ca-registrar-file"},
		{"malformed registrar file", append(base, "--ca-registrar-file", good, "--tlsca-registrar-file", bad), "want one line user:password"},
		{"stray argument", append(base, "--ca-registrar-file", good, "--tlsca-registrar-file", good, "extra"), `unexpected argument "extra"`},
		{"no domain", []string{"--client", "x"}, "--domain is required"},
	}
	for _, c := range cases {
		if err := run(c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

func TestSplit(t *testing.T) {
	if got := split(" peer0, ,ccaas0,"); len(got) != 2 || got[0] != "peer0" || got[1] != "ccaas0" {
		t.Fatalf("split = %q", got)
	}
}
