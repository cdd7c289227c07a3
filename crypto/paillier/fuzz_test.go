package paillier

import (
	"bytes"
	"os"
	"testing"
)

func mustRead(f *testing.F, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// FuzzDecodeCiphertext: anything accepted is in Z*_{N²} and re-encodes to the input.
func FuzzDecodeCiphertext(f *testing.F) {
	sk := fixedKey(f, "key2048")
	c, _, _ := sk.Encrypt(nil, one)
	f.Add(sk.EncodeCiphertext(c))
	f.Add(sk.EncodeCiphertext(one))
	f.Add([]byte{})
	f.Add(bytes.Repeat([]byte{0xff}, sk.CiphertextLen()))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := sk.DecodeCiphertext(b)
		if err != nil {
			return
		}
		if err := sk.ValidateCiphertext(c); err != nil {
			t.Fatalf("decoded an invalid ciphertext: %v", err)
		}
		if !bytes.Equal(sk.EncodeCiphertext(c), b) {
			t.Fatal("accepted a non-canonical encoding")
		}
	})
}

// FuzzParsePublicKey: anything accepted re-encodes to the input.
func FuzzParsePublicKey(f *testing.F) {
	sk := fixedKey(f, "key2048")
	pub, _ := sk.PublicKey.MarshalBinary()
	f.Add(pub)
	f.Add([]byte(publicKeyTag))
	f.Fuzz(func(t *testing.T, b []byte) {
		pk, err := ParsePublicKey(b)
		if err != nil {
			return
		}
		again, err := pk.MarshalBinary()
		if err != nil || !bytes.Equal(again, b) {
			t.Fatal("accepted a non-canonical public key encoding")
		}
		if pk.N.BitLen() < MinModulusBits || pk.N.Bit(0) == 0 {
			t.Fatal("accepted a modulus NewPublicKey must reject")
		}
	})
}

// FuzzParsePrivateKey: anything accepted re-encodes to the input and decrypts.
func FuzzParsePrivateKey(f *testing.F) {
	sk := fixedKey(f, "key2048")
	priv, _ := sk.MarshalBinary()
	f.Add(priv)
	f.Add(mustRead(f, "testdata/key3072.pem"))
	f.Fuzz(func(t *testing.T, b []byte) {
		k, err := ParsePrivateKey(b)
		if err != nil {
			return
		}
		again, err := k.MarshalBinary()
		if err != nil || !bytes.Equal(again, b) {
			t.Fatal("accepted a non-canonical private key encoding")
		}
		c, _, err := k.Encrypt(nil, one)
		if err != nil {
			t.Fatal(err)
		}
		if m, err := k.Decrypt(c); err != nil || m.Cmp(one) != 0 {
			t.Fatal("accepted key does not decrypt")
		}
	})
}
