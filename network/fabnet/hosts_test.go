package fabnet

import (
	"testing"
)

func TestListenAndDialHost(t *testing.T) {
	tests := []struct{ host, listen, dial string }{
		{"127.0.0.1", "127.0.0.1", "127.0.0.1"},
		{"10.0.0.2", "10.0.0.2", "10.0.0.2"},
		{"fd00::1", "fd00::1", "fd00::1"},
		{"party1.example.org", "0.0.0.0", "127.0.0.1"},
		{"localhost", "0.0.0.0", "127.0.0.1"},
	}
	for _, tc := range tests {
		if got := ListenHost(tc.host); got != tc.listen {
			t.Errorf("ListenHost(%q) = %q, want %q", tc.host, got, tc.listen)
		}
		if got := DialHost(tc.host); got != tc.dial {
			t.Errorf("DialHost(%q) = %q, want %q", tc.host, got, tc.dial)
		}
	}
}
