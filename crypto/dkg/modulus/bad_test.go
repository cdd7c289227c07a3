package modulus

import (
	"math/big"
	"strings"
	"testing"
)

// TestBadInput gives every function one kind of bad input per case and
// checks that the error names it; a trustee's state is unchanged by a
// malformed message (the last case still continues).
func TestBadInput(t *testing.T) {
	f := newFixture(t)
	fresh, err := NewTrustee(f.params, 1)
	if err != nil {
		t.Fatal(err)
	}
	first := f.start(t)
	tr := f.trustees[0]
	edit := func(change func([]Values)) []Values {
		in := make([]Values, len(first))
		for i, v := range first {
			in[i] = Values{From: v.From, First: v.First, G: append([]*big.Int(nil), v.G...)}
		}
		change(in)
		return in
	}
	continueWith := func(change func([]Values)) func() error {
		return func() error { _, err := tr.Continue(edit(change)); return err }
	}
	for _, tc := range []struct {
		name, want string
		call       func() error
	}{
		{"empty ceremony", "ceremony identifier is empty", func() error { _, err := NewParams(3, 512, nil); return err }},
		{"two trustees", "2 trustees", func() error { _, err := NewParams(2, 512, ceremony); return err }},
		{"modulus too small", "510 bits", func() error { _, err := NewParams(3, 510, ceremony); return err }},
		{"parameters missing", "trustee 1 has no parameters", func() error { _, err := NewTrustee(nil, 1); return err }},
		{"trustee 0", "trustee 0 outside 1..3", func() error { _, err := NewTrustee(f.params, 0); return err }},
		{"trustee n+1", "trustee 4 outside 1..3", func() error { _, err := NewTrustee(f.params, 4); return err }},
		{"N missing", "N is missing or not of 512 bits", func() error { _, err := fresh.Start(nil, f.ps[0], f.qs[0]); return err }},
		{"N of wrong size", "N is missing or not of 512 bits", func() error {
			_, err := fresh.Start(new(big.Int).Rsh(f.n, 1), f.ps[0], f.qs[0])
			return err
		}},
		{"prime share missing", "missing", func() error { _, err := fresh.Start(f.n, nil, f.qs[0]); return err }},
		{"unshaped shares", "not a multiple of 4", func() error {
			_, err := fresh.Start(f.n, new(big.Int).Add(f.ps[0], big.NewInt(1)), f.qs[0])
			return err
		}},
		{"start twice", "cannot take a candidate", func() error { _, err := tr.Start(f.n, f.ps[0], f.qs[0]); return err }},
		{"continue before start", "expects no round-1 values", func() error { _, err := fresh.Continue(first); return err }},
		{"finish before continue", "expects no values of rounds 2..80", func() error { return tr.Finish(first) }},
		{"share before acceptance", "has no accepted modulus", func() error { _, err := tr.Share(); return err }},
		{"message missing", "2 messages, need one from each of 3", func() error { _, err := tr.Continue(first[:2]); return err }},
		{"sender repeated", "trustee 1 is unexpected or repeated", continueWith(func(in []Values) { in[1] = in[0] })},
		{"sender unknown", "trustee 4 is unexpected", continueWith(func(in []Values) { in[2].From = 4 })},
		{"wrong rounds", "holds rounds 2..2, want 1..1", continueWith(func(in []Values) { in[2].First = 2 })},
		{"too many values", "holds rounds 1..2, want 1..1", continueWith(func(in []Values) { in[2].G = append(in[2].G, big.NewInt(1)) })},
		{"value missing", "outside [1, N)", continueWith(func(in []Values) { in[2].G[0] = nil })},
		{"value 0", "outside [1, N)", continueWith(func(in []Values) { in[2].G[0] = new(big.Int) })},
		{"value N", "outside [1, N)", continueWith(func(in []Values) { in[2].G[0] = new(big.Int).Set(f.n) })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if _, err := tr.Continue(first); err != nil {
		t.Fatalf("after the malformed messages, the good ones fail: %v", err)
	}
}
