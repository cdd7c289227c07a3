package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/fabric"
)

func TestVersion(t *testing.T) {
	var out bytes.Buffer
	if err := printVersion(&out, true); err != nil {
		t.Fatal(err)
	}
	s, err := fabric.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"fabvote dev", "Fabric 2.5.0 (commit " + s.Commit,
		"fabvote patch series: " + s.Level + " (", "  0001-go-modules.patch\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("version output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := printVersion(&out, false); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), ".patch") || !strings.Contains(out.String(), s.Level) {
		t.Fatalf("without --patches: %q", out.String())
	}
}
