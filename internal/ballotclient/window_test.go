package ballotclient

import (
	"strings"
	"testing"
)

func TestParseWindowClosed(t *testing.T) {
	tests := []struct {
		in      string
		want    bool
		wantErr bool
	}{
		{"true", true, false},
		{"false", false, false},
		{" true\n", true, false},
		{"", false, true},
		{"1", false, true},
		{`"true"`, false, true},
		{"null", false, true},
		{"true false", false, true},
	}
	for _, tc := range tests {
		got, err := parseWindowClosed([]byte(tc.in))
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("parseWindowClosed(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

// FuzzParseWindowClosed: only the JSON literals true and false (with
// surrounding white space) are answers.
func FuzzParseWindowClosed(f *testing.F) {
	for _, s := range []string{"true", "false", "null", `"true"`, "1", " false "} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := parseWindowClosed(b)
		if err != nil {
			return
		}
		if s := strings.TrimSpace(string(b)); (s != "true" || !got) && (s != "false" || got) {
			t.Fatalf("parseWindowClosed(%q) = %v, want an error", b, got)
		}
	})
}
