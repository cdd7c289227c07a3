package bboard

import (
	"strings"
	"testing"

	"github.com/fabvote/fabvote/internal/a11y"
)

// Every generated page passes every rule.
func TestAccessibility(t *testing.T) {
	for _, f := range []*fixture{newFixture("single"), newFixture("threshold").passing(), newFixture("contests").passing()} {
		_, files := build(t, f)
		for name, body := range files {
			if !strings.HasSuffix(name, ".html") {
				continue
			}
			for _, p := range a11y.Problems(strings.NewReader(body)) {
				t.Errorf("%s: %s", name, p)
			}
		}
	}
}
