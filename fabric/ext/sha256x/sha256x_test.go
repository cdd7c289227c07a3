package sha256x

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"testing"
)

// sizes covers the empty message, every length around the padding
// boundaries (55/56/64 bytes), Fabric's typical message sizes and 8 KiB.
var sizes = []int{0, 1, 3, 31, 32, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129,
	255, 256, 1000, 1024, 2048, 4095, 4096, 8191, 8192, 8193, 65536}

func TestImplsAgreeWithStdlib(t *testing.T) {
	for _, impl := range []Impl{Stdlib, SIMD} {
		for _, n := range sizes {
			t.Run(fmt.Sprintf("%s/%d", impl, n), func(t *testing.T) {
				data := make([]byte, n)
				if _, err := rand.Read(data); err != nil {
					t.Fatal(err)
				}
				want := sha256.Sum256(data)
				if got := Sum256Impl(impl, data); got != want {
					t.Fatalf("Sum256 = %x, want %x", got, want)
				}
				// Streaming in uneven pieces exercises the partial-block buffer.
				h := NewImpl(impl)
				for rest := data; len(rest) > 0; {
					k := min(len(rest), 1+len(rest)%37)
					h.Write(rest[:k])
					rest = rest[k:]
				}
				if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
					t.Fatalf("streamed digest = %x, want %x", got, want)
				}
				if h.Size() != Size || h.BlockSize() != BlockSize {
					t.Fatalf("Size/BlockSize = %d/%d, want %d/%d", h.Size(), h.BlockSize(), Size, BlockSize)
				}
				h.Reset()
				h.Write(data)
				if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
					t.Fatalf("digest after Reset = %x, want %x", got, want)
				}
			})
		}
	}
}

// Known-answer vectors (FIPS 180-2 examples) guard against a stdlib and
// simd that agree with each other but not with SHA-256.
func TestKnownAnswers(t *testing.T) {
	vectors := []struct{ in, want string }{
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
	}
	for _, impl := range []Impl{Stdlib, SIMD} {
		for _, v := range vectors {
			if got := fmt.Sprintf("%x", Sum256Impl(impl, []byte(v.in))); got != v.want {
				t.Errorf("%s: Sum256(%q) = %s, want %s", impl, v.in, got, v.want)
			}
		}
	}
}

func TestParseImpl(t *testing.T) {
	tests := []struct {
		in      string
		want    Impl
		wantErr bool
	}{
		{"stdlib", Stdlib, false},
		{"simd", SIMD, false},
		{" SIMD ", SIMD, false},
		{"Stdlib", Stdlib, false},
		{"", Stdlib, true},
		{"openssl", Stdlib, true},
		{"sim d", Stdlib, true},
	}
	for _, tt := range tests {
		got, err := ParseImpl(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseImpl(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
		if got.String() != tt.want.String() {
			t.Errorf("String() = %q, want %q", got.String(), tt.want.String())
		}
	}
}

func TestImplFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		set     bool
		val     string
		want    Impl
		wantErr bool
	}{
		{"unset", false, "", Stdlib, false},
		{"blank", true, "  ", Stdlib, false},
		{"stdlib", true, "stdlib", Stdlib, false},
		{"simd", true, "simd", SIMD, false},
		{"invalid", true, "fast", Stdlib, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.set {
				t.Setenv(EnvVar, tt.val)
			} else {
				t.Setenv(EnvVar, "")
				unsetenv(t, EnvVar)
			}
			got, err := ImplFromEnv()
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("ImplFromEnv() = %v, %v; want %v, error %v", got, err, tt.want, tt.wantErr)
			}
			if err != nil && !bytes.Contains([]byte(err.Error()), []byte(EnvVar)) {
				t.Fatalf("error %q does not name %s", err, EnvVar)
			}
		})
	}
}

// The active implementation (whatever FABVOTE_SHA256 says for this test
// process) must produce SHA-256.
func TestActive(t *testing.T) {
	data := []byte("fabvote")
	want := sha256.Sum256(data)
	if got := Sum256(data); got != want {
		t.Fatalf("Sum256 with %s = %x, want %x", Active(), got, want)
	}
	h := New()
	h.Write(data)
	if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
		t.Fatalf("New with %s = %x, want %x", Active(), got, want)
	}
	// Nothing in this process changed the environment before this test.
	wantImpl, wantErr := ImplFromEnv()
	if Active() != wantImpl || (ConfigError() == nil) != (wantErr == nil) {
		t.Fatalf("Active() = %v, ConfigError() = %v; the environment says %v, %v", Active(), ConfigError(), wantImpl, wantErr)
	}
}

var benchSizes = []int{64, 256, 1024, 2048, 8192}

func BenchmarkSum256(b *testing.B) {
	for _, impl := range []Impl{Stdlib, SIMD} {
		for _, n := range benchSizes {
			data := make([]byte, n)
			b.Run(fmt.Sprintf("%s/%dB", impl, n), func(b *testing.B) {
				b.SetBytes(int64(n))
				reportCPU(b, func() { Sum256Impl(impl, data) })
			})
		}
	}
}

func BenchmarkNewWriteSum(b *testing.B) {
	for _, impl := range []Impl{Stdlib, SIMD} {
		for _, n := range benchSizes {
			data := make([]byte, n)
			b.Run(fmt.Sprintf("%s/%dB", impl, n), func(b *testing.B) {
				b.SetBytes(int64(n))
				buf := make([]byte, 0, Size)
				reportCPU(b, func() {
					h := NewImpl(impl)
					h.Write(data)
					buf = h.Sum(buf[:0])
				})
			})
		}
	}
}
