package ballot

import (
	"bytes"
	"crypto/rand"
	"io"
	"slices"
	"sync"
	"testing"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
)

var (
	sharingOnce sync.Once
	sharingM    *election.Manifest
	sharingPair [2]audited
)

// sharingBallots makes, once, two ballots of style north of the contest
// manifest, of voters 0 and 1, with their spoiled forms, that share their
// first ciphertext (the mayor's: the same choice under the same nonce) and
// no other: what a booth that keeps its nonces can make, to open a cast
// ciphertext or cast an opened one under another tracker.
func sharingBallots(t *testing.T) (*election.Manifest, [2]audited) {
	t.Helper()
	sharingOnce.Do(func() {
		sharingM = fx.ContestManifest("contests")
		p, err := election.Prepare(sharingM)
		if err != nil {
			panic(err)
		}
		var nonce bytes.Buffer // the randomness of the first nonce, replayed
		if _, _, err := p.PublicKey.NoncePower(io.TeeReader(rand.Reader, &nonce)); err != nil {
			panic(err)
		}
		for i := range sharingPair {
			v := fx.Voters[i]
			bp, err := p.PrecomputeBallot(io.MultiReader(bytes.NewReader(nonce.Bytes()), rand.Reader), 0)
			if err != nil {
				panic(err)
			}
			b, o, err := bp.Finish(v, fx.TokenStyle(sharingM, electiontest.VoterID(v), "north", v), northSels)
			if err != nil {
				panic(err)
			}
			s, err := election.NewSpoiledBallot(b, o)
			if err != nil {
				panic(err)
			}
			sharingPair[i] = audited{ballot: b, spoiled: s}
		}
	})
	a, b := sharingPair[0].spoiled.Ciphertexts, sharingPair[1].spoiled.Ciphertexts
	if len(a) < 2 || !bytes.Equal(a[0], b[0]) || slices.ContainsFunc(a[1:], func(c []byte) bool {
		return slices.ContainsFunc(b[1:], func(d []byte) bool { return bytes.Equal(c, d) })
	}) {
		t.Fatal("the fixture's ballots do not share exactly their first ciphertext")
	}
	return sharingM, sharingPair
}

// claimKeysOf is the claim key of each ciphertext of s, in order, as
// election spells it for readers of blocks.
func claimKeysOf(s *election.SpoiledBallot) []string {
	var keys []string
	for _, c := range s.Ciphertexts {
		keys = append(keys, election.CiphertextKey(s.ElectionID, c))
	}
	return keys
}

// withoutManifest is reads less the manifest's key, which the first call
// of a process reads.
func withoutManifest(s *stub, electionID string) []string {
	mkey, _ := manifestKey(txctx(s, ""), electionID)
	return slices.DeleteFunc(slices.Clone(s.reads), func(k string) bool { return k == mkey })
}

// TestCastClaimsEveryCiphertext: a cast of k ciphertexts reads its ballot
// key and k claim keys, and writes its record and its cast claim on each.
func TestCastClaimsEveryCiphertext(t *testing.T) {
	m, pair := sharingBallots(t)
	e := newEnv(t, nil)
	e.open(m)
	b := pair[0].ballot
	_, s, err := e.cast(b.Marshal(), during)
	if err != nil {
		t.Fatal(err)
	}
	bkey, _ := ballotKey(txctx(s, ""), m.ElectionID, b.PseudonymHex())
	claims := claimKeysOf(pair[0].spoiled)
	if got, want := withoutManifest(s, m.ElectionID), append([]string{bkey}, claims...); !slices.Equal(got, want) {
		t.Fatalf("cast reads %q, want %q", got, want)
	}
	if len(s.writes) != 1+len(claims) || s.writes[bkey] == nil {
		t.Fatalf("cast writes %d keys, want the ballot key and %d claims", len(s.writes), len(claims))
	}
	for _, key := range claims {
		if !bytes.Equal(s.writes[key], b.CiphertextClaim().Marshal()) {
			t.Fatalf("claim %q is %q, want the cast claim of %s", key, s.writes[key], b.PseudonymHex())
		}
	}
}

// TestSpoilClaimsEveryCiphertext: a spoil of k ciphertexts reads its
// tracker key and k claim keys, and writes the spoiled ballot and its
// spoiled claim on each.
func TestSpoilClaimsEveryCiphertext(t *testing.T) {
	m, pair := sharingBallots(t)
	e := newEnv(t, nil)
	e.open(m)
	sp := pair[1].spoiled
	_, s, err := e.spoil(sp.Marshal(), during)
	if err != nil {
		t.Fatal(err)
	}
	tkey, _ := trackerKey(txctx(s, ""), m.ElectionID, sp.TrackerHex())
	claims := claimKeysOf(sp)
	if got, want := withoutManifest(s, m.ElectionID), append([]string{tkey}, claims...); !slices.Equal(got, want) {
		t.Fatalf("spoil reads %q, want %q", got, want)
	}
	if len(s.writes) != 1+len(claims) || !bytes.Equal(s.writes[tkey], sp.Marshal()) {
		t.Fatalf("spoil writes %d keys, want the spoiled ballot and %d claims", len(s.writes), len(claims))
	}
	for _, key := range claims {
		if !bytes.Equal(s.writes[key], sp.CiphertextClaim().Marshal()) {
			t.Fatalf("claim %q is %q, want the spoiled claim of %s", key, s.writes[key], sp.TrackerHex())
		}
	}
}

// TestOneSharedCiphertextIsRefused: two ballots of different trackers that
// share one ciphertext are never both on the ledger: whichever claims it
// second is refused with the code of the first claim's kind, the ledger
// unchanged.
func TestOneSharedCiphertextIsRefused(t *testing.T) {
	m, pair := sharingBallots(t)
	cast := func(e *env, a audited) func(s *stub) error {
		return func(s *stub) error {
			_, err := e.c.CastBallot(txctx(s, outsider), a.ballot.Marshal())
			return err
		}
	}
	spoil := func(e *env, a audited) func(s *stub) error {
		return func(s *stub) error {
			_, err := e.c.SpoilBallot(txctx(s, outsider), string(a.spoiled.Marshal()))
			return err
		}
	}
	for _, tc := range []struct {
		name          string
		first, second func(e *env, a audited) func(s *stub) error
		code          string
	}{
		{"a spoil opening a cast ciphertext", cast, spoil, election.CodeCastOpened},
		{"a cast holding an opened ciphertext", spoil, cast, election.CodeSpoiled},
		{"a cast holding another cast's ciphertext", cast, cast, election.CodeDuplicate},
		{"a spoil opening another spoil's ciphertext", spoil, spoil, election.CodeExists},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			e.open(m)
			s := e.w.tx(during)
			if err := tc.first(e, pair[0])(s); err != nil {
				t.Fatal(err)
			}
			s.commit()
			e.rejectedUnchanged(during, tc.code, tc.second(e, pair[1]))
		})
	}
}
