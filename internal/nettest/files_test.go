package nettest

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/election/electiontest"
	"github.com/fabvote/fabvote/internal/ballotstream"
)

func writeStream(t *testing.T, recs ...[]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := ballotstream.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReadBallotStream(t *testing.T) {
	recs := [][]byte{[]byte("first ballot"), []byte("second"), bytes.Repeat([]byte{7}, 3000)}
	path := filepath.Join(t.TempDir(), "ballots.bin")
	full := writeStream(t, recs...)
	if err := os.WriteFile(path, full, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := ReadBallotStream(t, path); !reflect.DeepEqual(got, recs) {
		t.Fatalf("ReadBallotStream = %q, want %q", got, recs)
	}
	empty := filepath.Join(t.TempDir(), "empty.bin")
	if err := os.WriteFile(empty, writeStream(t), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := ReadBallotStream(t, empty); len(got) != 0 {
		t.Fatalf("an empty stream read as %d ballots", len(got))
	}
	// A stream cut inside its last record fails rather than reading short.
	if err := os.WriteFile(path, full[:len(full)-10], 0o600); err != nil {
		t.Fatal(err)
	}
	if msg := failure(t, func(tb testing.TB) { ReadBallotStream(tb, path) }); !strings.Contains(msg, "truncated") {
		t.Fatalf("a truncated stream: failure %q, want one naming the truncation", msg)
	}
	if msg := failure(t, func(tb testing.TB) { ReadBallotStream(tb, path+".missing") }); msg == "" {
		t.Fatal("a missing stream file did not fail")
	}
}

func TestReadManifest(t *testing.T) {
	m := electiontest.Load().Manifest("nettest-manifest")
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "manifest.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	got := ReadManifest(t, path)
	if gb, err := got.Marshal(); err != nil || !bytes.Equal(gb, b) {
		t.Fatalf("ReadManifest does not give back the manifest written (%v)", err)
	}
	if err := os.WriteFile(path, []byte("{not a manifest"), 0o600); err != nil {
		t.Fatal(err)
	}
	if msg := failure(t, func(tb testing.TB) { ReadManifest(tb, path) }); msg == "" {
		t.Fatal("a file that is not a manifest did not fail")
	}
}

func TestReadChoices(t *testing.T) {
	path := filepath.Join(t.TempDir(), "choices.csv")
	in := "pseudonym,choice\nab01,2\n  cd02,0  \nnot a pair\nef03,x\n"
	if err := os.WriteFile(path, []byte(in), 0o600); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"ab01": 2, "cd02": 0}
	if got := ReadChoices(t, path); !reflect.DeepEqual(got, want) {
		t.Fatalf("ReadChoices = %v, want %v", got, want)
	}
}

func TestFirstLineAndTail(t *testing.T) {
	for _, tc := range []struct{ in, first, tail2 string }{
		{"", "", ""},
		{"one", "one", "one"},
		{"one\ntwo\nthree\n", "one", "two\nthree"},
		{"one\ntwo\n\n\n", "one", "one\ntwo"},
	} {
		if got := FirstLine(tc.in); got != tc.first {
			t.Errorf("FirstLine(%q) = %q, want %q", tc.in, got, tc.first)
		}
		if got := Tail(tc.in, 2); got != tc.tail2 {
			t.Errorf("Tail(%q, 2) = %q, want %q", tc.in, got, tc.tail2)
		}
	}
}
