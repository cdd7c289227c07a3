// Package sha256x is the SHA-256 of fabvote's Fabric fork (optimisation O-I).
//
// Fabric hashes every proposal, transaction and block with SHA-256. The
// fork's patches make those call sites use New and Sum256 from this package
// instead of crypto/sha256, so that one binary can run with either
// implementation and both can be measured on the same machine:
//
//	FABVOTE_SHA256=stdlib   crypto/sha256 (the default: stock behaviour)
//	FABVOTE_SHA256=simd     github.com/minio/sha256-simd
//
// The choice is made once, when the process starts; an invalid value
// selects stdlib and is reported by ConfigError (the fork's BCCSP logs it).
// Both produce the same digests (sha256x_test.go checks it); they differ
// only in speed. Since Go 1.21 crypto/sha256 uses the SHA-NI instructions
// itself where the CPU has them, so the gain of simd is small on such CPUs.
//
// The package imports only the standard library and sha256-simd so that it
// can be copied unchanged into the patched Fabric tree.
package sha256x

import (
	"crypto/sha256"
	"fmt"
	"hash"
	"os"
	"strings"

	simd "github.com/minio/sha256-simd"
)

// Size is the size of a SHA-256 digest in bytes.
const Size = sha256.Size

// BlockSize is the block size of SHA-256 in bytes.
const BlockSize = sha256.BlockSize

// EnvVar names the environment variable read at process start.
const EnvVar = "FABVOTE_SHA256"

// Impl names a SHA-256 implementation.
type Impl uint8

const (
	// Stdlib is crypto/sha256.
	Stdlib Impl = iota
	// SIMD is github.com/minio/sha256-simd.
	SIMD
)

// String returns the name ParseImpl accepts for i.
func (i Impl) String() string {
	switch i {
	case Stdlib:
		return "stdlib"
	case SIMD:
		return "simd"
	default:
		return fmt.Sprintf("Impl(%d)", uint8(i))
	}
}

// ParseImpl parses "stdlib" or "simd" (case and surrounding blanks ignored).
func ParseImpl(s string) (Impl, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "stdlib":
		return Stdlib, nil
	case "simd":
		return SIMD, nil
	default:
		return Stdlib, fmt.Errorf("sha256x: unknown SHA-256 implementation %q (allowed: \"stdlib\", \"simd\")", s)
	}
}

// ImplFromEnv reads EnvVar: unset or blank means Stdlib; an invalid value
// returns Stdlib and an error naming the variable.
func ImplFromEnv() (Impl, error) {
	v, ok := os.LookupEnv(EnvVar)
	if !ok || strings.TrimSpace(v) == "" {
		return Stdlib, nil
	}
	i, err := ParseImpl(v)
	if err != nil {
		return Stdlib, fmt.Errorf("sha256x: environment variable %s=%q is not a SHA-256 implementation (allowed: \"stdlib\", \"simd\"); using stdlib", EnvVar, v)
	}
	return i, nil
}

var (
	active    Impl
	configErr error
	newFunc   func() hash.Hash
	sumFunc   func([]byte) [Size]byte
)

func init() {
	active, configErr = ImplFromEnv()
	newFunc, sumFunc = funcs(active)
}

func funcs(i Impl) (func() hash.Hash, func([]byte) [Size]byte) {
	if i == SIMD {
		return simd.New, simd.Sum256
	}
	return sha256.New, sha256.Sum256
}

// Active returns the implementation selected at process start.
func Active() Impl { return active }

// ConfigError returns the error of an invalid EnvVar value, or nil.
func ConfigError() error { return configErr }

// New returns a new SHA-256 hash of the active implementation.
func New() hash.Hash { return newFunc() }

// Sum256 returns the SHA-256 digest of data, computed by the active
// implementation.
func Sum256(data []byte) [Size]byte { return sumFunc(data) }

// NewImpl returns a new SHA-256 hash of implementation i, whatever is
// active; for tests and benchmarks.
func NewImpl(i Impl) hash.Hash {
	n, _ := funcs(i)
	return n()
}

// Sum256Impl returns the SHA-256 digest of data computed by implementation
// i; for tests and benchmarks.
func Sum256Impl(i Impl, data []byte) [Size]byte {
	_, s := funcs(i)
	return s(data)
}
