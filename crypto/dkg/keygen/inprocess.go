package keygen

import (
	"fmt"
	"io"
	"math/big"

	"github.com/fabvote/fabvote/crypto/dkg/keyshare"
	"github.com/fabvote/fabvote/crypto/dkg/phi"
	"github.com/fabvote/fabvote/crypto/dkg/wellformed"
	"github.com/fabvote/fabvote/crypto/paillier/threshold"
)

// FinishInProcess runs, for trustees holding additive shares ps[i], qs[i]
// of the primes of an accepted modulus n (as the sieve shapes them), the
// rest of the ceremony in this process: the key-share step for threshold
// k, the Πmod proof from the trustees' exponent shares, and every
// trustee's self-test partial. It returns the public result, verified, and
// trustee j's share at index j−1. random nil means crypto/rand.
func FinishInProcess(n *big.Int, k int, ps, qs []*big.Int, ceremony []byte, random io.Reader) (*Public, []*threshold.KeyShare, error) {
	if len(ps) != len(qs) {
		return nil, nil, fmt.Errorf("keygen: %d shares of p and %d of q", len(ps), len(qs))
	}
	ms := make([]*big.Int, len(ps))
	for i := range ps {
		m, err := phi.MShare(i+1, n, ps[i], qs[i])
		if err != nil {
			return nil, nil, err
		}
		ms[i] = m
	}
	params, err := keyshare.NewParams(n, len(ps), k, ceremony)
	if err != nil {
		return nil, nil, err
	}
	res, err := keyshare.Run(params, ms, random)
	if err != nil {
		return nil, nil, err
	}
	proof, err := proveModulus(n, ceremony, res.Exponents)
	if err != nil {
		return nil, nil, err
	}
	pub := &Public{Ceremony: append([]byte(nil), ceremony...), Params: res.Public, ModulusProof: proof}
	for _, ks := range res.Shares {
		pd, err := ks.DecryptSelfTest(random, res.Public, ceremony)
		if err != nil {
			return nil, nil, err
		}
		pub.SelfTest = append(pub.SelfTest, pd)
	}
	if err := pub.Verify(); err != nil {
		return nil, nil, err
	}
	return pub, res.Shares, nil
}

// proveModulus runs the two rounds of the distributed Πmod prover: every
// trustee's σ values give the sign bits, then every trustee's roots are
// multiplied into the proof.
func proveModulus(n *big.Int, ceremony []byte, exps []*wellformed.Share) (*wellformed.Proof, error) {
	st, err := wellformed.NewStatement(n, ceremony)
	if err != nil {
		return nil, err
	}
	sigmas := make([][]*big.Int, len(exps))
	for i, sh := range exps {
		if sigmas[i], err = st.Sigmas(sh); err != nil {
			return nil, fmt.Errorf("keygen: trustee %d: %w", i+1, err)
		}
	}
	a, err := st.Signs(sigmas)
	if err != nil {
		return nil, err
	}
	xs, zs := make([][]*big.Int, len(exps)), make([][]*big.Int, len(exps))
	for i, sh := range exps {
		if xs[i], zs[i], err = st.Roots(sh, a); err != nil {
			return nil, fmt.Errorf("keygen: trustee %d: %w", i+1, err)
		}
	}
	return st.Assemble(a, xs, zs)
}
