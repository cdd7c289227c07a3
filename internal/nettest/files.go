package nettest

import (
	"bufio"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/ballotstream"
)

// ReadManifest reads and parses the manifest file at path.
func ReadManifest(t testing.TB, path string) *election.Manifest {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := election.ParseManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// ReadBallotStream reads every ballot of a ballot stream file (`ballot
// --bulk` output) in stream order. A stream that does not end cleanly
// fails the test, rather than handing back a silently shorter set.
func ReadBallotStream(t testing.TB, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := ballotstream.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out [][]byte
	for {
		b, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, append([]byte(nil), b...))
	}
}

// ReadChoices reads a `ballot --bulk` choices record (lines "pseudonym,
// choice") into pseudonym (hex) -> candidate index. Lines that are not a
// pair with a numeric choice (the header) are skipped.
func ReadChoices(t testing.TB, path string) map[string]int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	choice := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		vkh, c, ok := strings.Cut(strings.TrimSpace(sc.Text()), ",")
		if !ok {
			continue
		}
		ci, err := strconv.Atoi(c)
		if err != nil {
			continue
		}
		choice[vkh] = ci
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return choice
}

// FirstLine is s up to its first newline.
func FirstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// Tail is the last n lines of s: a command's or a log's end, where its
// error is, without flooding the test output.
func Tail(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}
