package fabrun

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeBuilder is a stand-in for ccaas-builder's connection subcommand: it
// writes its arguments to the file after --out, or fails when told to.
func fakeBuilder(t *testing.T, fail bool) string {
	t.Helper()
	script := "#!/bin/sh\nwhile [ $# -gt 0 ]; do case $1 in --out) out=$2;; --address) addr=$2;; esac; shift; done\n" +
		"printf '{\"address\":\"%s\"}' \"$addr\" > \"$out\"\n"
	if fail {
		script = "#!/bin/sh\necho 'no such root certificate' >&2\nexit 1\n"
	}
	p := filepath.Join(t.TempDir(), "ccaas-builder")
	if err := os.WriteFile(p, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestServicePackageWrite(t *testing.T) {
	dir := t.TempDir()
	sp := ServicePackage{Label: "ballot_1.0", Address: "127.0.0.1:7153", RootCert: "ca.pem", ClientCert: "c.pem", ClientKey: "k.pem"}
	path := filepath.Join(dir, "ballot.tgz")
	if err := sp.Write(fakeBuilder(t, false), path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	files, order := untar(t, b)
	if strings.Join(order, ",") != "code.tar.gz,metadata.json" {
		t.Errorf("package holds %v", order)
	}
	if got := string(files["metadata.json"]); got != `{"type":"ccaas","label":"ballot_1.0"}`+"\n" {
		t.Errorf("metadata.json = %q", got)
	}
	inner, _ := untar(t, files["code.tar.gz"])
	if got := string(inner["connection.json"]); got != `{"address":"127.0.0.1:7153"}` {
		t.Errorf("connection.json = %q", got)
	}
	// The same inputs give the same bytes: one package id.
	again := filepath.Join(dir, "again.tgz")
	if err := sp.Write(fakeBuilder(t, false), again); err != nil {
		t.Fatal(err)
	}
	if b2, _ := os.ReadFile(again); !bytes.Equal(b, b2) {
		t.Error("two packages of the same service differ")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("the directory holds %d entries, want the 2 packages (no temporary left)", len(entries))
	}
}

func TestServicePackageWriteRefuses(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		sp      ServicePackage
		builder string
		want    string
	}{
		{"no label", ServicePackage{Address: "127.0.0.1:7153"}, fakeBuilder(t, false), "label"},
		{"no address", ServicePackage{Label: "ballot_1.0"}, fakeBuilder(t, false), "address"},
		{"the builder fails", ServicePackage{Label: "ballot_1.0", Address: "127.0.0.1:7153"}, fakeBuilder(t, true), "no such root certificate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "p.tgz")
			if err := tt.sp.Write(tt.builder, path); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Write = %v, want an error naming %q", err, tt.want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("a refused package left %d entries", len(entries))
			}
		})
	}
}
