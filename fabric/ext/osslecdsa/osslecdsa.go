// Package osslecdsa is the ECDSA of fabvote's Fabric fork (optimisation O-II):
// P-256 signature verification and signing through OpenSSL 3 instead of
// crypto/ecdsa, selected at process start by an environment variable:
//
//	FABVOTE_ECDSA=go        crypto/ecdsa (the default: stock behaviour)
//	FABVOTE_ECDSA=openssl   OpenSSL's libcrypto (3.x; 1.1.1 works too),
//	                        loaded at run time with dlopen
//	FABVOTE_OPENSSL_LIB     optional: the libcrypto to load (soname or path)
//
// Every endorsement, transaction and block that a Fabric peer handles is
// checked with several ECDSA verifications, and OpenSSL's P-256 code is
// faster than Go's (Paneru 2021 measured 16%).
//
// The fork's patch to bccsp/sw/ecdsa.go keeps Fabric's own DER parsing and
// low-S rule and replaces only the two calls into crypto/ecdsa by Verify and
// Sign. Verify hands OpenSSL the integers (r, s), never the DER bytes, so the
// outcome depends on (key, digest, r, s) alone, exactly as ecdsa.Verify's
// does; Sign returns (r, s) and the caller normalises and encodes them as
// before. Curves other than P-256 always use crypto/ecdsa, and so does any
// case OpenSSL cannot handle (a key it rejects, an internal error), so the
// answer is always the one crypto/ecdsa would give.
//
// libcrypto is loaded with dlopen, not linked, so a binary built with this
// package starts on a machine without OpenSSL. If OpenSSL is selected but
// cannot be loaded, Go is used and LoadError says why (the fork's BCCSP logs
// it once). OpenSSL key objects are built once per key and kept in a small
// bounded cache: building one costs more than a verification.
//
// The binding (libcrypto.go) is a few lines of cgo of our own: it declares
// the prototypes it needs, so neither OpenSSL's headers nor the library are
// needed to build, and it calls the EC_KEY functions directly, which is
// faster with OpenSSL 3.0 than the EVP interface that golang-fips/openssl
// uses (docs/bench/2026-11-22-sha256-ecdsa.md). The package imports only the standard library
// so that it can be copied unchanged into the patched Fabric tree.
package osslecdsa

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"fmt"
	"math/big"
	"os"
	"strings"
	"sync"
)

// EnvVar names the environment variable read at process start.
const EnvVar = "FABVOTE_ECDSA"

// LibEnvVar names an optional environment variable with the libcrypto to
// load (a soname or a path, passed to dlopen); when set, it is the only
// library Load tries.
const LibEnvVar = "FABVOTE_OPENSSL_LIB"

// Libraries are the libcrypto sonames Load tries, in order, when LibEnvVar
// is unset.
var Libraries = []string{"libcrypto.so.3", "libcrypto.so.1.1"}

func libraries() []string {
	if lib := strings.TrimSpace(os.Getenv(LibEnvVar)); lib != "" {
		return []string{lib}
	}
	return Libraries
}

// Impl names an ECDSA implementation.
type Impl uint8

const (
	// Go is crypto/ecdsa.
	Go Impl = iota
	// OpenSSL is OpenSSL's libcrypto.
	OpenSSL
)

// String returns the name ParseImpl accepts for i.
func (i Impl) String() string {
	switch i {
	case Go:
		return "go"
	case OpenSSL:
		return "openssl"
	default:
		return fmt.Sprintf("Impl(%d)", uint8(i))
	}
}

// ParseImpl parses "go" or "openssl" (case and surrounding blanks ignored).
func ParseImpl(s string) (Impl, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "go":
		return Go, nil
	case "openssl":
		return OpenSSL, nil
	default:
		return Go, fmt.Errorf("osslecdsa: unknown ECDSA implementation %q (allowed: \"go\", \"openssl\")", s)
	}
}

// ImplFromEnv reads EnvVar: unset or blank means Go; an invalid value
// returns Go and an error naming the variable.
func ImplFromEnv() (Impl, error) {
	v, ok := os.LookupEnv(EnvVar)
	if !ok || strings.TrimSpace(v) == "" {
		return Go, nil
	}
	i, err := ParseImpl(v)
	if err != nil {
		return Go, fmt.Errorf("osslecdsa: environment variable %s=%q is not an ECDSA implementation (allowed: \"go\", \"openssl\"); using go", EnvVar, v)
	}
	return i, nil
}

var (
	loadOnce sync.Once
	loadErr  error
	loadedAs string
)

// Load loads and initialises libcrypto once per process and returns the
// error of that one attempt (nil when OpenSSL is usable).
func Load() error {
	loadOnce.Do(func() {
		var errs []string
		libs := libraries()
		for _, lib := range libs {
			err := loadLibrary(lib)
			if err == nil {
				loadedAs = lib
				return
			}
			errs = append(errs, err.Error())
		}
		loadErr = fmt.Errorf("osslecdsa: cannot load OpenSSL (%s): %s", strings.Join(libs, ", "), strings.Join(errs, "; "))
	})
	return loadErr
}

// Version returns OpenSSL's version text, or "" if it is not loaded.
func Version() string {
	if Load() != nil {
		return ""
	}
	return loadedAs + " (" + libraryVersion() + ")"
}

var (
	active    Impl
	configErr error
)

func init() {
	active, configErr = ImplFromEnv()
	if active == OpenSSL && Load() != nil {
		active = Go
	}
}

// Active returns the implementation in use: OpenSSL only if it was selected
// and loads.
func Active() Impl { return active }

// ConfigError returns the error of an invalid EnvVar value, or nil.
func ConfigError() error { return configErr }

// LoadError returns why OpenSSL was selected but is not used, or nil.
func LoadError() error {
	if i, _ := ImplFromEnv(); i != OpenSSL {
		return nil
	}
	return Load()
}

// Verify reports whether (r, s) is a valid signature of digest by pub, like
// ecdsa.Verify, using the active implementation.
func Verify(pub *ecdsa.PublicKey, digest []byte, r, s *big.Int) bool {
	return VerifyWith(active, pub, digest, r, s)
}

// Sign signs digest with priv, like ecdsa.Sign with crypto/rand, using the
// active implementation. The caller normalises s (Fabric's low-S rule).
func Sign(priv *ecdsa.PrivateKey, digest []byte) (r, s *big.Int, err error) {
	return SignWith(active, priv, digest)
}

// VerifyWith is Verify with implementation i; for tests and benchmarks.
func VerifyWith(i Impl, pub *ecdsa.PublicKey, digest []byte, r, s *big.Int) bool {
	if i != OpenSSL || pub == nil || pub.Curve != elliptic.P256() || Load() != nil {
		return ecdsa.Verify(pub, digest, r, s)
	}
	if r == nil || s == nil || r.Sign() <= 0 || s.Sign() <= 0 {
		return false // as ecdsa.Verify
	}
	key, err := publicKey(pub)
	if err != nil {
		return ecdsa.Verify(pub, digest, r, s)
	}
	var rb, sb [32]byte
	rs, ss := rb[:], sb[:]
	if r.BitLen() <= 256 {
		r.FillBytes(rs)
	} else {
		rs = r.Bytes()
	}
	if s.BitLen() <= 256 {
		s.FillBytes(ss)
	} else {
		ss = s.Bytes()
	}
	switch key.verify(digest, rs, ss) {
	case 1:
		return true
	case 0:
		return false
	default:
		return ecdsa.Verify(pub, digest, r, s)
	}
}

// SignWith is Sign with implementation i; for tests and benchmarks. Like
// VerifyWith, it uses crypto/ecdsa where OpenSSL cannot be used.
func SignWith(i Impl, priv *ecdsa.PrivateKey, digest []byte) (r, s *big.Int, err error) {
	if i != OpenSSL || priv == nil || priv.Curve != elliptic.P256() || Load() != nil {
		return ecdsa.Sign(rand.Reader, priv, digest)
	}
	key, err := privateKey(priv)
	if err != nil {
		return ecdsa.Sign(rand.Reader, priv, digest)
	}
	rb, sb, ok := key.sign(digest)
	if !ok {
		return ecdsa.Sign(rand.Reader, priv, digest)
	}
	return new(big.Int).SetBytes(rb[:]), new(big.Int).SetBytes(sb[:]), nil
}
