package zkp

import (
	"bytes"
	"sync"
	"testing"
)

var (
	fuzzOnce  sync.Once
	fuzzCtx   *Context
	fuzzProof []byte
	fuzzC     []byte
)

// fuzzBallot is one valid ballot shared by the fuzz targets.
func fuzzBallot(f *testing.F) (*Context, []byte, []byte) {
	fuzzOnce.Do(func() {
		// Deterministic, so every fuzzing worker process builds the same ballot.
		fuzzCtx = testContext(f, testKey(f, 2048), "fuzz-voter")
		rnd := &detReader{seed: []byte("fabvote fuzz ballot")}
		c, r, err := fuzzCtx.PublicKey.Encrypt(rnd, fuzzCtx.Messages[1])
		if err != nil {
			f.Fatal(err)
		}
		pr, err := ProveValidity(rnd, fuzzCtx, c, 1, r)
		if err != nil {
			f.Fatal(err)
		}
		fuzzProof = pr.Marshal(fuzzCtx)
		fuzzC = fuzzCtx.PublicKey.EncodeCiphertext(c)
	})
	return fuzzCtx, fuzzC, fuzzProof
}

// FuzzParseValidityProof: whatever parses is in range and re-encodes to the input.
func FuzzParseValidityProof(f *testing.F) {
	ctx, _, proof := fuzzBallot(f)
	f.Add(proof)
	f.Add(proof[:len(proof)-1])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		pr, err := ParseValidityProof(ctx, b)
		if err != nil {
			return
		}
		if err := checkRanges(ctx, nil, pr); err != nil {
			t.Fatalf("parsed proof out of range: %v", err)
		}
		if !bytes.Equal(pr.Marshal(ctx), b) {
			t.Fatal("accepted a non-canonical encoding")
		}
	})
}

// FuzzVerifyValidity: a fuzzed ciphertext or proof never verifies. The one
// honest (ciphertext, proof) pair is skipped; everything else must fail.
func FuzzVerifyValidity(f *testing.F) {
	ctx, cb, proof := fuzzBallot(f)
	f.Add(cb, proof)
	flipped := bytes.Clone(proof)
	flipped[len(flipped)-1] ^= 1
	f.Add(cb, flipped)
	f.Add(cb[:10], proof)
	f.Fuzz(func(t *testing.T, cBytes, b []byte) {
		if bytes.Equal(cBytes, cb) && bytes.Equal(b, proof) {
			return
		}
		c, err := ctx.PublicKey.DecodeCiphertext(cBytes)
		if err != nil {
			return
		}
		pr, err := ParseValidityProof(ctx, b)
		if err != nil {
			return
		}
		if err := VerifyValidity(ctx, c, pr); err == nil {
			t.Fatal("a fuzzed ballot verified")
		}
	})
}
