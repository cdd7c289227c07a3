/*
SPDX-License-Identifier: Apache-2.0
*/

package sw

// fabvote: the O-I and O-II switches as the SW BCCSP sees them. Runs on the
// patched tree only; fabric/build.sh test runs it with FABVOTE_ECDSA=go and
// =openssl, FABVOTE_SHA256=stdlib and =simd.

import (
	"crypto/sha256"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/hyperledger/fabric/bccsp"
	"github.com/hyperledger/fabric/bccsp/utils"
	"github.com/hyperledger/fabric/fabvote/osslecdsa"
	"github.com/hyperledger/fabric/fabvote/sha256x"
)

func TestFabvoteSwitchesFollowTheEnvironment(t *testing.T) {
	wantECDSA := osslecdsa.Go
	if strings.TrimSpace(os.Getenv(osslecdsa.EnvVar)) == "openssl" {
		wantECDSA = osslecdsa.OpenSSL
		if err := osslecdsa.Load(); err != nil {
			t.Fatalf("%s=openssl but OpenSSL does not load: %v", osslecdsa.EnvVar, err)
		}
	}
	if got := osslecdsa.Active(); got != wantECDSA {
		t.Errorf("ECDSA implementation %v, want %v", got, wantECDSA)
	}
	wantSHA := sha256x.Stdlib
	if strings.TrimSpace(os.Getenv(sha256x.EnvVar)) == "simd" {
		wantSHA = sha256x.SIMD
	}
	if got := sha256x.Active(); got != wantSHA {
		t.Errorf("SHA-256 implementation %v, want %v", got, wantSHA)
	}
}

// Cross-vectors through the BCCSP: what the BCCSP signs verifies with both
// implementations, and what either implementation signs (normalised as
// Fabric does) verifies through the BCCSP.
func TestFabvoteECDSACrossImplementations(t *testing.T) {
	if err := osslecdsa.Load(); err != nil {
		t.Fatalf("OpenSSL does not load: %v", err)
	}
	csp := fabvoteCSP(t)
	key, err := csp.KeyGen(&bccsp.ECDSAP256KeyGenOpts{Temporary: true})
	if err != nil {
		t.Fatal(err)
	}
	pub, err := key.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	priv := key.(*ecdsaPrivateKey).privKey
	for i := 0; i < 16; i++ {
		digest := sha256.Sum256([]byte(fmt.Sprintf("ballot %d", i)))
		sig, err := csp.Sign(key, digest[:], nil)
		if err != nil {
			t.Fatal(err)
		}
		r, s, err := utils.UnmarshalECDSASignature(sig)
		if err != nil {
			t.Fatal(err)
		}
		for _, impl := range []osslecdsa.Impl{osslecdsa.Go, osslecdsa.OpenSSL} {
			if !osslecdsa.VerifyWith(impl, &priv.PublicKey, digest[:], r, s) {
				t.Fatalf("BCCSP (%v) signature %d does not verify with %v", osslecdsa.Active(), i, impl)
			}
			wrong := sha256.Sum256([]byte(fmt.Sprintf("other ballot %d", i)))
			if osslecdsa.VerifyWith(impl, &priv.PublicKey, wrong[:], r, s) {
				t.Fatalf("BCCSP signature %d verifies a wrong digest with %v", i, impl)
			}

			r2, s2, err := osslecdsa.SignWith(impl, priv, digest[:])
			if err != nil {
				t.Fatalf("%v: %v", impl, err)
			}
			if s2, err = utils.ToLowS(&priv.PublicKey, s2); err != nil {
				t.Fatal(err)
			}
			der, err := utils.MarshalECDSASignature(r2, s2)
			if err != nil {
				t.Fatal(err)
			}
			if ok, err := csp.Verify(pub, der, digest[:], nil); !ok || err != nil {
				t.Fatalf("signature %d made by %v does not verify through the BCCSP (%v): %v %v", i, impl, osslecdsa.Active(), ok, err)
			}
		}
	}
}

func TestFabvoteHashMatchesStdlib(t *testing.T) {
	csp := fabvoteCSP(t)
	for _, n := range []int{0, 1, 55, 56, 64, 256, 1024, 2048, 8192, 8193} {
		msg := make([]byte, n)
		for i := range msg {
			msg[i] = byte(i * 7)
		}
		want := sha256.Sum256(msg)
		for _, opts := range []bccsp.HashOpts{&bccsp.SHA256Opts{}, &bccsp.SHAOpts{}} {
			got, err := csp.Hash(msg, opts)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want[:]) {
				t.Fatalf("%T, %d bytes, %v: %x, want %x", opts, n, sha256x.Active(), got, want)
			}
		}
	}
}

func BenchmarkFabvoteBCCSPVerify(b *testing.B) {
	csp := fabvoteCSP(b)
	key, err := csp.KeyGen(&bccsp.ECDSAP256KeyGenOpts{Temporary: true})
	if err != nil {
		b.Fatal(err)
	}
	pub, _ := key.PublicKey()
	digest := sha256.Sum256([]byte("bench"))
	sig, err := csp.Sign(key, digest[:], nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("impl="+osslecdsa.Active().String(), func(b *testing.B) {
		fabvoteReportCPU(b, func() {
			if ok, err := csp.Verify(pub, sig, digest[:], nil); !ok || err != nil {
				b.Fatal(ok, err)
			}
		})
	})
}

func BenchmarkFabvoteBCCSPSign(b *testing.B) {
	csp := fabvoteCSP(b)
	key, err := csp.KeyGen(&bccsp.ECDSAP256KeyGenOpts{Temporary: true})
	if err != nil {
		b.Fatal(err)
	}
	digest := sha256.Sum256([]byte("bench"))
	b.Run("impl="+osslecdsa.Active().String(), func(b *testing.B) {
		fabvoteReportCPU(b, func() {
			if _, err := csp.Sign(key, digest[:], nil); err != nil {
				b.Fatal(err)
			}
		})
	})
}

func BenchmarkFabvoteBCCSPHash(b *testing.B) {
	csp := fabvoteCSP(b)
	for _, n := range []int{64, 256, 1024, 2048, 8192} {
		msg := make([]byte, n)
		b.Run(fmt.Sprintf("impl=%s/%dB", sha256x.Active(), n), func(b *testing.B) {
			b.SetBytes(int64(n))
			fabvoteReportCPU(b, func() {
				if _, err := csp.Hash(msg, &bccsp.SHA256Opts{}); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// fabvoteReportCPU runs the benchmark loop f and reports the process's CPU
// time per operation ("cpu-ns/op") beside the wall time, which on a shared
// machine measures contention as much as the code.
func fabvoteReportCPU(b *testing.B, f func()) {
	cpu := func() int64 {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return ru.Utime.Nano() + ru.Stime.Nano()
	}
	start, n := cpu(), 0
	for b.Loop() {
		f()
		n++
	}
	if n > 0 {
		b.ReportMetric(float64(cpu()-start)/float64(n), "cpu-ns/op")
	}
}
