/*
SPDX-License-Identifier: Apache-2.0
*/

package sw

// fabvote: the verified-signature memo (O-V) as the SW BCCSP uses it.
// fabric/build.sh test runs this package with FABVOTE_SIG_MEMO=off (the
// default) and =on.

import (
	"crypto/sha256"
	"os"
	"strings"
	"testing"

	"github.com/hyperledger/fabric/bccsp"
	"github.com/hyperledger/fabric/fabvote/sigmemo"
)

func TestFabvoteSigMemoFollowsTheEnvironment(t *testing.T) {
	want := strings.EqualFold(strings.TrimSpace(os.Getenv(sigmemo.EnvVar)), "on")
	if got := sigmemo.Enabled(); got != want {
		t.Fatalf("memo on: %v, want %v (%s=%q)", got, want, sigmemo.EnvVar, os.Getenv(sigmemo.EnvVar))
	}
	if (sigmemo.Process() != nil) != want {
		t.Fatalf("process memo present: %v, want %v", sigmemo.Process() != nil, want)
	}
}

// With the memo on, a second verification of a valid signature is a lookup
// and a refused one is computed again; the answers are the same either way.
func TestFabvoteSigMemoAnswersAndCounts(t *testing.T) {
	m := sigmemo.Process()
	if m == nil {
		t.Skipf("%s is not on", sigmemo.EnvVar)
	}
	csp := fabvoteCSP(t)
	key, err := csp.KeyGen(&bccsp.ECDSAP256KeyGenOpts{Temporary: true})
	if err != nil {
		t.Fatal(err)
	}
	digest := sha256.Sum256([]byte("fabvote proposal"))
	sig, err := csp.Sign(key, digest[:], nil)
	if err != nil {
		t.Fatal(err)
	}
	other := sha256.Sum256([]byte("another proposal"))
	for _, tc := range []struct {
		name               string
		digest             []byte
		want               bool
		wantHits, wantMiss uint64
	}{
		{"valid, first time: computed", digest[:], true, 0, 1},
		{"valid, again: looked up", digest[:], true, 1, 0},
		{"wrong digest: computed", other[:], false, 0, 1},
		{"wrong digest, again: computed again", other[:], false, 0, 1},
	} {
		hits0, miss0 := m.Stats()
		ok, err := csp.Verify(key, sig, tc.digest, nil)
		if err != nil || ok != tc.want {
			t.Fatalf("%s: Verify = %v, %v; want %v", tc.name, ok, err, tc.want)
		}
		hits, miss := m.Stats()
		if hits-hits0 != tc.wantHits || miss-miss0 != tc.wantMiss {
			t.Fatalf("%s: %d hits, %d computed; want %d, %d", tc.name, hits-hits0, miss-miss0, tc.wantHits, tc.wantMiss)
		}
	}
}
