/*
SPDX-License-Identifier: Apache-2.0
*/

package sw

// fabvote: ECDSA semantics of the SW BCCSP, asserted through the BCCSP
// interface only. fabric/build.sh test runs this file on the stock tree and
// on the patched tree with FABVOTE_ECDSA=go and =openssl and with
// FABVOTE_SIG_MEMO=on: passing everywhere means the fork answers and fails
// exactly like stock Fabric.

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"fmt"
	"math/big"
	"testing"

	"github.com/hyperledger/fabric/bccsp"
	"github.com/hyperledger/fabric/bccsp/utils"
)

func fabvoteCSP(t testing.TB) bccsp.BCCSP {
	t.Helper()
	csp, err := NewDefaultSecurityLevelWithKeystore(NewDummyKeyStore())
	if err != nil {
		t.Fatalf("creating the SW BCCSP: %v", err)
	}
	return csp
}

func fabvoteDER(t testing.TB, r, s *big.Int) []byte {
	t.Helper()
	b, err := asn1.Marshal(struct{ R, S *big.Int }{r, s})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestFabvoteECDSAVerifySemantics(t *testing.T) {
	csp := fabvoteCSP(t)
	key, err := csp.KeyGen(&bccsp.ECDSAP256KeyGenOpts{Temporary: true})
	if err != nil {
		t.Fatal(err)
	}
	other, err := csp.KeyGen(&bccsp.ECDSAP256KeyGenOpts{Temporary: true})
	if err != nil {
		t.Fatal(err)
	}
	pub, err := key.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	digest := sha256.Sum256([]byte("fabvote ballot"))
	otherDigest := sha256.Sum256([]byte("another ballot"))
	sig, err := csp.Sign(key, digest[:], nil)
	if err != nil {
		t.Fatal(err)
	}
	r, s, err := utils.UnmarshalECDSASignature(sig)
	if err != nil {
		t.Fatal(err)
	}
	n := elliptic.P256().Params().N
	half := new(big.Int).Rsh(n, 1)
	highS := new(big.Int).Sub(n, s)
	// The BCCSP wraps every verifier error with the options.
	wrapped := func(msg string) string { return "Failed verifing with opts [<nil>]: " + msg }
	highSErr := wrapped(fmt.Sprintf("Invalid S. Must be smaller than half the order [%s][%s].", highS, half))
	nErr := wrapped(fmt.Sprintf("Invalid S. Must be smaller than half the order [%s][%s].", n, half))
	malformed := func(b []byte) string {
		_, _, err := utils.UnmarshalECDSASignature(b)
		if err == nil {
			t.Fatalf("%x parses", b)
		}
		return wrapped(fmt.Sprintf("Failed unmashalling signature [%s]", err))
	}
	zeroR := fabvoteDER(t, big.NewInt(0), s)
	negS := fabvoteDER(t, r, new(big.Int).Neg(s))
	flipped := append([]byte(nil), sig...)
	flipped[len(flipped)-1] ^= 1

	tests := []struct {
		name    string
		key     bccsp.Key
		sig     []byte
		digest  []byte
		want    bool
		wantErr string
	}{
		{"valid", pub, sig, digest[:], true, ""},
		{"valid, private key verifier", key, sig, digest[:], true, ""},
		{"trailing bytes after the DER (stock accepts them)", pub, append(append([]byte(nil), sig...), 0xde, 0xad), digest[:], true, ""},
		{"high S", pub, fabvoteDER(t, r, highS), digest[:], false, highSErr},
		{"high S, private key verifier", key, fabvoteDER(t, r, highS), digest[:], false, highSErr},
		{"S = N", pub, fabvoteDER(t, r, n), digest[:], false, nErr},
		{"R = N", pub, fabvoteDER(t, n, s), digest[:], false, ""},
		{"wrong key", other, sig, digest[:], false, ""},
		{"wrong digest", pub, sig, otherDigest[:], false, ""},
		{"last signature byte flipped", pub, flipped, digest[:], false, ""},
		{"not DER", pub, []byte("not a signature"), digest[:], false, malformed([]byte("not a signature"))},
		{"truncated DER", pub, sig[:len(sig)-3], digest[:], false, malformed(sig[:len(sig)-3])},
		{"R = 0", pub, zeroR, digest[:], false, malformed(zeroR)},
		{"negative S", pub, negS, digest[:], false, malformed(negS)},
		{"empty signature", pub, nil, digest[:], false, "Invalid signature. Cannot be empty."},
		{"empty digest", pub, sig, nil, false, "Invalid digest. Cannot be empty."},
	}
	// Two rounds: the second asks again for every answer the first gave,
	// which is where a memo of earlier verifications (O-V) would answer.
	for round := 1; round <= 2; round++ {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("round %d/%s", round, tt.name), func(t *testing.T) {
				got, err := csp.Verify(tt.key, tt.sig, tt.digest, nil)
				gotErr := ""
				if err != nil {
					gotErr = err.Error()
				}
				if got != tt.want || gotErr != tt.wantErr {
					t.Fatalf("Verify = %v, %q; want %v, %q", got, gotErr, tt.want, tt.wantErr)
				}
			})
		}
	}
}

// Signatures are low-S normalised, DER encoded, and verify with crypto/ecdsa.
func TestFabvoteECDSASignSemantics(t *testing.T) {
	csp := fabvoteCSP(t)
	key, err := csp.KeyGen(&bccsp.ECDSAP256KeyGenOpts{Temporary: true})
	if err != nil {
		t.Fatal(err)
	}
	pub, err := key.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := pub.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := x509.ParsePKIXPublicKey(raw)
	if err != nil {
		t.Fatal(err)
	}
	goPub := parsed.(*ecdsa.PublicKey)
	half := new(big.Int).Rsh(elliptic.P256().Params().N, 1)
	// Half of all raw signatures have a high S: 64 signatures normalise
	// at least one with probability 1 - 2^-64.
	for i := 0; i < 64; i++ {
		digest := sha256.Sum256([]byte(fmt.Sprintf("ballot %d", i)))
		sig, err := csp.Sign(key, digest[:], nil)
		if err != nil {
			t.Fatal(err)
		}
		r, s, err := utils.UnmarshalECDSASignature(sig)
		if err != nil {
			t.Fatalf("signature %d does not parse: %v", i, err)
		}
		if s.Cmp(half) > 0 {
			t.Fatalf("signature %d has a high S", i)
		}
		if der := fabvoteDER(t, r, s); string(der) != string(sig) {
			t.Fatalf("signature %d is not canonical DER", i)
		}
		if !ecdsa.Verify(goPub, digest[:], r, s) {
			t.Fatalf("signature %d does not verify with crypto/ecdsa", i)
		}
		if ok, err := csp.Verify(pub, sig, digest[:], nil); !ok || err != nil {
			t.Fatalf("signature %d does not verify through the BCCSP: %v %v", i, ok, err)
		}
	}
}
