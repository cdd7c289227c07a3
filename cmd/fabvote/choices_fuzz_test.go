package main

import (
	"reflect"
	"testing"

	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
)

// FuzzParseChoices: any text either is refused or reads as choices that
// the contests' limits allow and that formatChoices writes back as text
// reading the same.
func FuzzParseChoices(f *testing.F) {
	p, err := election.Prepare(electiontest.Load().ContestManifest("fuzz-choices"))
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"mayor=Ben;council=Eli,Ida;referendum=No", "mayor=0;council=blank;referendum=1", "mayor=0;council=;referendum=0",
		"mayor=0;referendum=1", "mayor=0;mayor=1", "council=4,4", "=;=", ";;", "mayor=-1"} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(1))
	}
	f.Fuzz(func(t *testing.T, spec string, style uint8) {
		s := int(style) % len(p.Manifest.Styles)
		sels, err := parseChoices(p.Manifest, p.Layout, s, spec)
		if err != nil {
			return
		}
		for i, ci := range p.Manifest.StyleContests(s) {
			if err := p.Layout.Contests[ci].Check(sels[i]); err != nil {
				t.Fatalf("%q: contest %d: %v", spec, ci, err)
			}
		}
		text := formatChoices(p.Manifest, s, sels)
		again, err := parseChoices(p.Manifest, p.Layout, s, text)
		if err != nil || !reflect.DeepEqual(normal(again), normal(sels)) {
			t.Fatalf("%q wrote %q, which reads %v (%v), not %v", spec, text, again, err, sels)
		}
	})
}

// normal makes empty and nil option lists alike.
func normal(sels []votecode.Selection) []votecode.Selection {
	out := make([]votecode.Selection, len(sels))
	for i, s := range sels {
		if len(s.Options) == 0 {
			s.Options = nil
		}
		out[i] = s
	}
	return out
}
