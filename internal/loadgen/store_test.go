package loadgen

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/internal/ballotstream"
)

func TestStoreRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	st, err := CreateStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Meta(); err == nil || !strings.Contains(err.Error(), "did not finish") {
		t.Fatalf("Meta of an unfinished store: %v", err)
	}
	// Out of order puts, beyond one byte of index: iteration is by index.
	idx := []int{300, 2, 0, 256, 1}
	for _, i := range idx {
		if err := st.Put(i, []byte(fmt.Sprintf("tx-%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	meta := StoreMeta{Fingerprint: "f", Fn: "CastBallot", Count: len(idx), Created: time.Unix(1, 0).UTC()}
	if err := st.SetMeta(meta); err != nil {
		t.Fatal(err)
	}
	st.Close()

	st, err = OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, err := st.Meta()
	if err != nil || got != meta {
		t.Fatalf("Meta = %+v, %v; want %+v", got, err, meta)
	}
	src := st.Source()
	defer src.Close()
	var seq []string
	for {
		b, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		seq = append(seq, string(b))
	}
	want := "tx-0,tx-1,tx-2,tx-256,tx-300"
	if strings.Join(seq, ",") != want {
		t.Fatalf("order %v, want %s", seq, want)
	}
}

func TestBallotFileSkip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.bin")
	var buf bytes.Buffer
	w, err := ballotstream.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		if err := w.Write([]byte{byte('a' + i)}); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	os.WriteFile(path, buf.Bytes(), 0o644)
	tests := []struct {
		skip    int
		first   string
		wantErr string
	}{
		{0, "a", ""},
		{3, "d", ""},
		{6, "", "has only 5"},
	}
	for _, tc := range tests {
		bf, err := OpenBallots(path)
		if err != nil {
			t.Fatal(err)
		}
		err = bf.Skip(tc.skip)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Skip(%d) = %v, want %q", tc.skip, err, tc.wantErr)
			}
			bf.Close()
			continue
		}
		b, err := bf.Next()
		if err != nil || string(b) != tc.first {
			t.Errorf("after Skip(%d): %q, %v; want %q", tc.skip, b, err, tc.first)
		}
		bf.Close()
	}
	if _, err := OpenBallots(filepath.Join(t.TempDir(), "missing")); err == nil || !strings.Contains(err.Error(), "--ballots") {
		t.Fatalf("missing file error %v should name --ballots", err)
	}
}
