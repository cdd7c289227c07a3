package election

import (
	"math/big"

	"github.com/fabvote/fabvote/crypto/paillier"
)

// Product is the homomorphic tally of ballots, kept slot by slot: slot i is
// the product of every ballot's ciphertext i. A per-option contest's slot
// is raised to its tally weight M^(offset+j) once, in Packed, not once per
// ballot (docs/PROTOCOL.md section 3.7).
type Product struct {
	pk      *paillier.PublicKey
	weights []*big.Int // per slot; 1 where the slot is at its digits already
	slots   []*big.Int
}

// NewProduct returns the product of no ballots: every slot is 1, the
// encryption of 0 with nonce 1.
func (p *Prepared) NewProduct() *Product {
	t := &Product{pk: p.PublicKey}
	for ci := range p.Layout.Contests {
		t.weights = append(t.weights, p.Layout.Contests[ci].TallyWeights()...)
	}
	t.slots = make([]*big.Int, len(t.weights))
	for i := range t.slots {
		t.slots[i] = big.NewInt(1)
	}
	return t
}

// Add multiplies a ballot's ciphertexts (from CheckShape) in.
func (t *Product) Add(cs []*big.Int) {
	for i, c := range cs {
		t.slots[i] = t.pk.Add(t.slots[i], c)
	}
}

// Remove divides a ballot's ciphertexts out (ciphertexts are units of
// Z_{N²}, as CheckShape checks).
func (t *Product) Remove(cs []*big.Int) {
	for i, c := range cs {
		inv := new(big.Int).ModInverse(c, t.pk.NSquared)
		t.slots[i] = t.pk.Add(t.slots[i], inv)
	}
}

// Packed is the ciphertext of the packed tally: Π slot_i^weight_i mod N²,
// which decrypts to every count of every contest at its digit.
func (t *Product) Packed() *big.Int {
	x := big.NewInt(1)
	for i, s := range t.slots {
		if t.weights[i].Cmp(big.NewInt(1)) != 0 {
			s = new(big.Int).Exp(s, t.weights[i], t.pk.NSquared)
		}
		x = t.pk.Add(x, s)
	}
	return x
}

// ProductOf is the packed product of many ballots' ciphertexts (each from
// CheckShape), each slot multiplied on every core.
func (p *Prepared) ProductOf(ballots [][]*big.Int) *big.Int {
	t := p.NewProduct()
	column := make([]*big.Int, len(ballots))
	for i := range t.slots {
		for j, cs := range ballots {
			column[j] = cs[i]
		}
		t.slots[i] = p.PublicKey.Product(column)
	}
	return t.Packed()
}
