//go:build unix

package benchcpu

import (
	"crypto/sha256"
	"testing"
)

func TestNowAdvancesWithWork(t *testing.T) {
	start := Now(t)
	buf := make([]byte, 1<<20)
	for i := 0; i < 200; i++ {
		sum := sha256.Sum256(buf)
		buf[0] = sum[0]
	}
	if got := Now(t) - start; got <= 0 {
		t.Fatalf("CPU time did not advance over 200 MiB of hashing: %v", got)
	}
}
