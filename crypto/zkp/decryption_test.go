package zkp

import (
	"errors"
	"math/big"
	"testing"
)

func TestDecryptionProof(t *testing.T) {
	sk := testKey(t, 2048)
	pk := &sk.PublicKey
	ctx := testContext(t, sk, "tally")
	var cs []*big.Int
	want := new(big.Int)
	for _, choice := range []int{0, 1, 1, 3, 3, 3} {
		c, _, err := pk.Encrypt(nil, ctx.Messages[choice])
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
		want.Add(want, ctx.Messages[choice])
	}
	total := pk.Product(cs)
	tally, r, err := ProveDecryption(sk, total)
	if err != nil {
		t.Fatal(err)
	}
	if tally.Cmp(want) != 0 {
		t.Fatalf("tally %v, want %v", tally, want)
	}
	if err := VerifyDecryption(pk, total, tally, r); err != nil {
		t.Fatalf("valid decryption proof rejected: %v", err)
	}
	p, _ := sk.Primes()
	for _, tc := range []struct {
		name    string
		c, t, r *big.Int
		want    error
	}{
		{"wrong tally", total, new(big.Int).Add(tally, big.NewInt(1)), r, ErrInvalidDecryption},
		{"wrong nonce", total, tally, new(big.Int).Add(r, big.NewInt(1)), ErrInvalidDecryption},
		{"T negative", total, big.NewInt(-1), r, ErrInvalidDecryption},
		{"T = N", total, pk.N, r, ErrInvalidDecryption},
		{"T nil", total, nil, r, ErrInvalidDecryption},
		{"R = 0", total, tally, big.NewInt(0), ErrInvalidDecryption},
		{"R = N", total, tally, pk.N, ErrInvalidDecryption},
		{"R + N", total, tally, new(big.Int).Add(r, pk.N), ErrInvalidDecryption},
		{"R not invertible", total, tally, p, ErrInvalidDecryption},
		{"other ciphertext", cs[0], tally, r, ErrInvalidDecryption},
		{"C = 0", big.NewInt(0), tally, r, ErrInvalidCiphertext},
		{"C = N²", pk.NSquared, tally, r, ErrInvalidCiphertext},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := VerifyDecryption(pk, tc.c, tc.t, tc.r); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
	if err := VerifyDecryption(&testKey(t, 3072).PublicKey, total, tally, r); err == nil {
		t.Fatal("decryption proof verified under another key")
	}
	if _, _, err := ProveDecryption(sk, big.NewInt(0)); !errors.Is(err, ErrInvalidCiphertext) {
		t.Fatalf("ProveDecryption(0): err = %v", err)
	}
}
