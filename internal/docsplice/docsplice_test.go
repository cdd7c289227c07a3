package docsplice

import (
	"strings"
	"testing"
)

func TestSplice(t *testing.T) {
	const b, e = "<!-- BEGIN x -->", "<!-- END x -->"
	got, err := Splice("head\n"+b+"\nold\n"+e+"\ntail\n", b, e, b+"\nnew\n"+e+"\n")
	if err != nil || got != "head\n"+b+"\nnew\n"+e+"\ntail\n" {
		t.Errorf("Splice: %q, %v", got, err)
	}
	for name, doc := range map[string]string{
		"no markers":  "text\n",
		"no end":      b + "\n",
		"end first":   e + "\n" + b + "\n",
		"begin twice": b + "\n" + b + "\n" + e + "\n",
		"end twice":   b + "\n" + e + "\n" + e + "\n",
	} {
		if _, err := Splice(doc, b, e, ""); err == nil || !strings.Contains(err.Error(), "want one") {
			t.Errorf("%s: error %v", name, err)
		}
	}
}
