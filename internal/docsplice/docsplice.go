// Package docsplice replaces a generated section of a document: the text
// between a begin and an end marker line, the markers included. `make docs`
// writes the generated tables of docs/FORK.md with it, and their tests use
// it to find a stale copy.
package docsplice

import (
	"fmt"
	"strings"
)

// Splice returns doc with the text from begin to end (both markers and the
// newline after end included) replaced by section, which carries the
// markers itself. It is an error unless doc holds each marker once, begin
// first.
func Splice(doc, begin, end, section string) (string, error) {
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i || strings.Count(doc, begin) != 1 || strings.Count(doc, end) != 1 {
		return "", fmt.Errorf("want one %q and, after it, one %q", begin, end)
	}
	stop := j + len(end)
	if stop < len(doc) && doc[stop] == '\n' {
		stop++
	}
	return doc[:i] + section + doc[stop:], nil
}
