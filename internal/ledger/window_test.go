package ledger

import "testing"

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
