package ballotstream

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	recs := [][]byte{[]byte("a"), bytes.Repeat([]byte{7}, 5000), []byte("last")}
	var buf bytes.Buffer
	w, err := NewWriter(&buf)
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
	if w.Count() != len(recs) {
		t.Fatalf("Count = %d", w.Count())
	}
	r, err := NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range recs {
		got, err := r.Next()
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("record %d differs", i)
		}
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after last record: %v, want EOF", err)
	}
}

func TestReaderErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"bad magic", "NOTBALLS", "not a fabvote ballot file"},
		{"short header", "FV", "reading header"},
		{"zero length", Magic + "\x00\x00\x00\x00", "length 0"},
		{"huge length", Magic + "\xff\xff\xff\xff", "want 1.."},
		{"truncated length", Magic + "\x00\x00", "truncated length"},
		{"truncated body", Magic + "\x00\x00\x00\x05abc", "truncated (5 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewReader(strings.NewReader(tc.data))
			if err == nil {
				_, err = r.Next()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want mention of %q", err, tc.want)
			}
		})
	}
}

func TestWriterRejectsEmpty(t *testing.T) {
	w, _ := NewWriter(io.Discard)
	if err := w.Write(nil); err == nil {
		t.Fatal("empty record accepted")
	}
}

func FuzzReader(f *testing.F) {
	f.Add([]byte(Magic + "\x00\x00\x00\x01a"))
	f.Add([]byte(Magic + "\x00\x00\x00\x05abc"))
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		total := len(Magic)
		for {
			rec, err := r.Next()
			if err != nil {
				break
			}
			total += 4 + len(rec)
			if total > len(data) {
				t.Fatalf("reader returned more bytes than the input holds")
			}
		}
	})
}
