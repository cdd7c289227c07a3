package zkp

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"math/big"
	"os"
	"testing"

	"github.com/fabvote/fabvote/crypto/votecode"
)

var update = flag.Bool("update", false, "rewrite testdata/vectors.json from the current implementation")

const vectorsFile = "testdata/vectors.json"

// detReader is a deterministic byte stream SHA-256(seed ‖ counter). It is for
// known-answer vectors ONLY: real proofs must use crypto/rand.
type detReader struct {
	seed    []byte
	counter uint64
	buf     []byte
}

func (r *detReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(r.buf) == 0 {
			var ctr [8]byte
			binary.BigEndian.PutUint64(ctr[:], r.counter)
			r.counter++
			sum := sha256.Sum256(append(append([]byte(nil), r.seed...), ctr[:]...))
			r.buf = sum[:]
		}
		c := copy(p[n:], r.buf)
		r.buf = r.buf[c:]
		n += c
	}
	return n, nil
}

type vector struct {
	Name          string `json:"name"`
	KeyFile       string `json:"key_file"`
	Manifest      string `json:"manifest"` // hashed with SHA-256 into ManifestDigest
	ElectionID    string `json:"election_id"`
	Pseudonym     string `json:"pseudonym"` // hashed with SHA-256 into Pseudonym
	VoterKey      string `json:"voter_key"` // hashed with SHA-256 into VoterKeyHash
	MaxVoters     uint64 `json:"max_voters"`
	Candidates    int    `json:"candidates"`
	ChallengeBits int    `json:"challenge_bits"`
	Choice        int    `json:"choice"`
	Seed          string `json:"seed"`
	// Expected values (hex, big-endian, fixed length where the format is fixed).
	Nonce      string `json:"nonce"`
	Ciphertext string `json:"ciphertext"`
	Challenge  string `json:"challenge"`
	Proof      string `json:"proof"`
	DecNonce   string `json:"decryption_nonce"`
}

type vectorFile struct {
	Comment string   `json:"comment"`
	Vectors []vector `json:"vectors"`
}

var vectorInputs = []vector{
	{Name: "2048-bit, 4 candidates, vote 0", KeyFile: "key2048.pem", Manifest: "manifest of kat-election-1", ElectionID: "kat-election-1", Pseudonym: "pseudonym of voter-key-A", VoterKey: "voter-key-A", MaxVoters: 1_000_000, Candidates: 4, ChallengeBits: 128, Choice: 0, Seed: "fabvote kat 1"},
	{Name: "2048-bit, 4 candidates, vote 3", KeyFile: "key2048.pem", Manifest: "manifest of kat-election-1", ElectionID: "kat-election-1", Pseudonym: "pseudonym of voter-key-B", VoterKey: "voter-key-B", MaxVoters: 1_000_000, Candidates: 4, ChallengeBits: 128, Choice: 3, Seed: "fabvote kat 2"},
	{Name: "2048-bit, 2 candidates, t=80", KeyFile: "key2048.pem", Manifest: "manifest of kat-election-2", ElectionID: "kat-election-2", Pseudonym: "pseudonym of voter-key-C", VoterKey: "voter-key-C", MaxVoters: 40_000, Candidates: 2, ChallengeBits: 80, Choice: 1, Seed: "fabvote kat 3"},
	{Name: "3072-bit, 5 candidates, t=256", KeyFile: "key3072.pem", Manifest: "manifest of kat-election-3", ElectionID: "kat-election-3", Pseudonym: "pseudonym of voter-key-D", VoterKey: "voter-key-D", MaxVoters: 100, Candidates: 5, ChallengeBits: 256, Choice: 2, Seed: "fabvote kat 4"},
}

// generate computes a vector's expected values from its inputs.
func generate(t *testing.T, in vector) (vector, *Context, *big.Int, *ValidityProof) {
	t.Helper()
	sk, err := readTestKey("testdata/" + in.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := votecode.New(in.MaxVoters, in.Candidates)
	if err != nil {
		t.Fatal(err)
	}
	ctx := &Context{
		ManifestDigest: sha256.Sum256([]byte(in.Manifest)),
		ElectionID:     in.ElectionID,
		PublicKey:      &sk.PublicKey,
		Messages:       enc.Messages(),
		Pseudonym:      sha256.Sum256([]byte(in.Pseudonym)),
		VoterKeyHash:   sha256.Sum256([]byte(in.VoterKey)),
		ChallengeBits:  in.ChallengeBits,
	}
	rnd := &detReader{seed: []byte(in.Seed)}
	c, r, err := sk.Encrypt(rnd, ctx.Messages[in.Choice])
	if err != nil {
		t.Fatal(err)
	}
	pr, err := ProveValidity(rnd, ctx, c, in.Choice, r)
	if err != nil {
		t.Fatal(err)
	}
	_, decR, err := ProveDecryption(sk, c)
	if err != nil {
		t.Fatal(err)
	}
	out := in
	out.Nonce = hex.EncodeToString(r.FillBytes(make([]byte, sk.ModulusLen())))
	out.Ciphertext = hex.EncodeToString(sk.EncodeCiphertext(c))
	out.Challenge = hex.EncodeToString(ctx.challenge(c, pr.A).FillBytes(make([]byte, ctx.challengeBits()/8)))
	out.Proof = hex.EncodeToString(pr.Marshal(ctx))
	out.DecNonce = hex.EncodeToString(decR.FillBytes(make([]byte, sk.ModulusLen())))
	return out, ctx, c, pr
}

func TestKnownAnswerVectors(t *testing.T) {
	var got vectorFile
	got.Comment = "fabvote validity-proof known-answer vectors. Randomness is SHA-256(seed || uint64 counter) " +
		"(test only). Regenerate with: go test ./crypto/zkp -run TestKnownAnswerVectors -update"
	var ctxs []*Context
	for _, in := range vectorInputs {
		v, ctx, _, _ := generate(t, in)
		got.Vectors = append(got.Vectors, v)
		ctxs = append(ctxs, ctx)
	}
	if *update {
		b, err := json.MarshalIndent(got, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		tmp := vectorsFile + ".tmp"
		if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, vectorsFile); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote %s", vectorsFile)
	}
	data, err := os.ReadFile(vectorsFile)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	var want vectorFile
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if len(want.Vectors) != len(got.Vectors) {
		t.Fatalf("%s has %d vectors, the generator %d", vectorsFile, len(want.Vectors), len(got.Vectors))
	}
	for i, w := range want.Vectors {
		g := got.Vectors[i]
		t.Run(w.Name, func(t *testing.T) {
			for _, f := range []struct{ name, want, got string }{
				{"nonce", w.Nonce, g.Nonce},
				{"ciphertext", w.Ciphertext, g.Ciphertext},
				{"challenge", w.Challenge, g.Challenge},
				{"proof", w.Proof, g.Proof},
				{"decryption_nonce", w.DecNonce, g.DecNonce},
			} {
				if f.want != f.got {
					t.Errorf("%s differs from %s", f.name, vectorsFile)
				}
			}
			if w.DecNonce != w.Nonce {
				t.Error("decryption did not recover the encryption nonce")
			}
			// The stored bytes must verify on their own, independent of the generator.
			ctx := ctxs[i]
			cb, _ := hex.DecodeString(w.Ciphertext)
			c, err := ctx.PublicKey.DecodeCiphertext(cb)
			if err != nil {
				t.Fatal(err)
			}
			pb, _ := hex.DecodeString(w.Proof)
			pr, err := ParseValidityProof(ctx, pb)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range verifiers {
				if err := v.f(ctx, c, pr); err != nil {
					t.Errorf("%s: stored proof rejected: %v", v.name, err)
				}
			}
		})
	}
}
