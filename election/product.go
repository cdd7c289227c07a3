package election

import (
	"math/big"

	"github.com/fabvote/fabvote/crypto/paillier"
)

// Product is the homomorphic tally of ballots, kept slot by slot: slot i is
// the product of ciphertext i of every ballot that answers its contest,
// and each contest counts the ballots that answer it. A per-option
// contest's slot is raised to its tally weight M^(offset+j) once, in
// Packed, not once per ballot (docs/PROTOCOL.md section 3.7).
type Product struct {
	pk          *paillier.PublicKey
	weights     []*big.Int // per slot; 1 where the slot is at its digits already
	slots       []*big.Int
	contestSlot []int    // each contest's first slot
	ballots     []uint64 // per contest
}

// NewProduct returns the product of no ballots: every slot is 1, the
// encryption of 0 with nonce 1.
func (p *Prepared) NewProduct() *Product {
	t := &Product{pk: p.PublicKey, contestSlot: p.contestSlot, ballots: make([]uint64, len(p.Layout.Contests))}
	for ci := range p.Layout.Contests {
		t.weights = append(t.weights, p.Layout.Contests[ci].TallyWeights()...)
	}
	t.slots = make([]*big.Int, len(t.weights))
	for i := range t.slots {
		t.slots[i] = big.NewInt(1)
	}
	return t
}

// Add multiplies a ballot's ciphertexts (from CheckShape: nil at the slots
// of contests it does not answer) in.
func (t *Product) Add(cs []*big.Int) {
	for i, c := range cs {
		if c != nil {
			t.slots[i] = t.pk.Add(t.slots[i], c)
		}
	}
	t.count(cs, 1)
}

// Remove divides a ballot's ciphertexts out (ciphertexts are units of
// Z_{N²}, as CheckShape checks).
func (t *Product) Remove(cs []*big.Int) {
	for i, c := range cs {
		if c != nil {
			inv := new(big.Int).ModInverse(c, t.pk.NSquared)
			t.slots[i] = t.pk.Add(t.slots[i], inv)
		}
	}
	t.count(cs, ^uint64(0))
}

// count adds delta to the ballots of every contest cs answers.
func (t *Product) count(cs []*big.Int, delta uint64) {
	for ci, slot := range t.contestSlot {
		if cs[slot] != nil {
			t.ballots[ci] += delta
		}
	}
}

// Ballots is the number of ballots in the product that answer each
// contest, in the manifest's order.
func (t *Product) Ballots() []uint64 { return append([]uint64(nil), t.ballots...) }

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

// ProductOf is the product of many ballots' ciphertexts (each from
// CheckShape), each slot multiplied on every core.
func (p *Prepared) ProductOf(ballots [][]*big.Int) *Product {
	t := p.NewProduct()
	column := make([]*big.Int, 0, len(ballots))
	for i := range t.slots {
		column = column[:0]
		for _, cs := range ballots {
			if cs[i] != nil {
				column = append(column, cs[i])
			}
		}
		if len(column) > 0 {
			t.slots[i] = p.PublicKey.Product(column)
		}
	}
	for _, cs := range ballots {
		t.count(cs, 1)
	}
	return t
}
