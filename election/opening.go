package election

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
)

// Opening is what a Benaloh audit of a ballot reveals: for each of its
// ciphertexts, in ballot order, the plaintext and the nonce r it was
// encrypted with. Anyone can then re-encrypt each plaintext with its nonce
// (paillier.EncryptWithNonce) and compare. A ballot whose opening is
// revealed must never be cast: the opening is its vote. String never
// prints a nonce; MarshalJSON, the audit's reveal, does.
type Opening struct {
	plaintexts []*big.Int
	nonces     []*big.Int
}

// openingJSON is the JSON form of an Opening: lowercase hex, no leading zeros.
type openingJSON struct {
	Ciphertexts []openedJSON `json:"ciphertexts"`
}

type openedJSON struct {
	Plaintext string `json:"plaintext"`
	Nonce     string `json:"nonce"`
}

func (o *Opening) add(m, r *big.Int) {
	o.plaintexts = append(o.plaintexts, new(big.Int).Set(m))
	o.nonces = append(o.nonces, new(big.Int).Set(r))
}

// Len is the number of ciphertexts the opening opens (0 for nil).
func (o *Opening) Len() int {
	if o == nil {
		return 0
	}
	return len(o.plaintexts)
}

// Plaintext is the plaintext of ciphertext i (a copy).
func (o *Opening) Plaintext(i int) *big.Int { return new(big.Int).Set(o.plaintexts[i]) }

// Nonce is the nonce r of ciphertext i (a copy): a secret until the audit.
func (o *Opening) Nonce(i int) *big.Int { return new(big.Int).Set(o.nonces[i]) }

// String lists the plaintexts, never the nonces.
func (o *Opening) String() string {
	parts := make([]string, len(o.plaintexts))
	for i, m := range o.plaintexts {
		parts[i] = m.Text(16)
	}
	return fmt.Sprintf("opening of %d ciphertexts, plaintexts [%s], nonces withheld", len(parts), strings.Join(parts, " "))
}

// MarshalJSON reveals the opening, nonces included.
func (o *Opening) MarshalJSON() ([]byte, error) {
	out := openingJSON{Ciphertexts: make([]openedJSON, len(o.plaintexts))}
	for i := range o.plaintexts {
		out.Ciphertexts[i] = openedJSON{Plaintext: o.plaintexts[i].Text(16), Nonce: o.nonces[i].Text(16)}
	}
	return json.Marshal(out)
}

// UnmarshalJSON parses the form MarshalJSON writes. Errors: DECODE,
// naming the value that is not canonical lowercase hex.
func (o *Opening) UnmarshalJSON(b []byte) error {
	var in openingJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return wrapf(CodeDecode, err, "opening")
	}
	var parsed Opening
	for i, c := range in.Ciphertexts {
		m, err := parseHexInt(c.Plaintext)
		if err != nil {
			return wrapf(CodeDecode, err, "opening: ciphertexts[%d].plaintext", i)
		}
		r, err := parseHexInt(c.Nonce)
		if err != nil {
			return wrapf(CodeDecode, err, "opening: ciphertexts[%d].nonce", i)
		}
		parsed.add(m, r)
	}
	*o = parsed
	return nil
}

// parseHexInt parses a non-negative integer in canonical lowercase hex.
func parseHexInt(s string) (*big.Int, error) {
	x, ok := new(big.Int).SetString(s, 16)
	if !ok || x.Sign() < 0 || x.Text(16) != s {
		return nil, fmt.Errorf("%q is not canonical lowercase hex", s)
	}
	return x, nil
}
