package audit

import (
	"fmt"
	"math/big"

	"github.com/fabvote/fabvote/crypto/paillier"
	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/crypto/zkp"
	"github.com/fabvote/fabvote/election"
)

// ResultFromPartials combines trustees' partial decryptions of the tally
// product and builds the result to publish. It verifies what it builds.
func ResultFromPartials(p *election.Prepared, t *Tally, parts []*threshold.PartialDecryption) (*election.Result, error) {
	if p.Threshold == nil {
		return nil, fmt.Errorf("election %s has a single key, not trustees: use the Paillier key", p.Manifest.ElectionID)
	}
	tally, err := p.Threshold.Combine(t.Product, parts)
	if err != nil {
		return nil, fmt.Errorf("combining partial decryptions: %w", err)
	}
	enc := make([][]byte, len(parts))
	for i, pd := range parts {
		if enc[i], err = pd.Marshal(p.Threshold); err != nil {
			return nil, fmt.Errorf("encoding partial decryption of trustee %d: %w", pd.Index, err)
		}
	}
	return finish(p, t, tally, nil, enc)
}

// ResultFromKey decrypts the tally product with the single Paillier key and
// builds the result with its decryption proof.
func ResultFromKey(p *election.Prepared, t *Tally, sk *paillier.PrivateKey) (*election.Result, error) {
	if p.Threshold != nil {
		return nil, fmt.Errorf("election %s uses trustees (k-of-n shares), not a single key", p.Manifest.ElectionID)
	}
	if sk.N.Cmp(p.PublicKey.N) != 0 {
		return nil, fmt.Errorf("the Paillier key does not belong to election %s", p.Manifest.ElectionID)
	}
	tally, nonce, err := zkp.ProveDecryption(sk, t.Product)
	if err != nil {
		return nil, fmt.Errorf("decrypting the tally: %w", err)
	}
	return finish(p, t, tally, nonce, nil)
}

func finish(p *election.Prepared, t *Tally, tally, nonce *big.Int, partials [][]byte) (*election.Result, error) {
	contests, err := p.NewContestResults(tally, t.slots.Ballots())
	if err != nil {
		return nil, fmt.Errorf("decoding the tally: %w", err)
	}
	r := &election.Result{
		Version:     election.ResultVersion,
		ElectionID:  p.Manifest.ElectionID,
		BallotCount: uint64(t.Valid),
		Product:     p.PublicKey.EncodeCiphertext(t.Product),
		Tally:       election.EncodeInt(tally),
		Contests:    contests,
		Partials:    partials,
	}
	if nonce != nil {
		r.DecryptionNonce = election.EncodeInt(nonce)
	}
	if err := p.VerifyResult(r); err != nil {
		return nil, fmt.Errorf("the result does not verify (a trustee share or the ledger is inconsistent): %w", err)
	}
	return r, nil
}
