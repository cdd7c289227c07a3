package keyshare

import (
	"crypto/rand"
	"io"
	"math/big"

	"github.com/fabvote/fabvote/crypto/dkg/wellformed"
	"github.com/fabvote/fabvote/crypto/paillier/threshold"
)

// Result is the outcome of the key-share step run in one process.
type Result struct {
	Gamma  *big.Int
	Public *threshold.PublicParams
	// Shares[j−1] and Exponents[j−1] are trustee j's.
	Shares    []*threshold.KeyShare
	Exponents []*wellformed.Share
}

// Run runs the key-share step for n trustees in this process, from
// ms[i−1] = trustee i's share of φ(N)/4. random nil means crypto/rand. For
// tests and measurements: a real ceremony runs each Party in its own
// process.
func Run(params *Params, ms []*big.Int, random io.Reader) (*Result, error) {
	res, _, err := run(params, ms, random, hooks{})
	return res, err
}

// hooks let tests see every value handed to a trustee and alter sub-shares
// in transit.
type hooks struct {
	deliver func(to int, values ...*big.Int)
	tamper  func(subs []SubShare)
}

// run returns the parties too, so that tests can check their secrets.
func run(params *Params, ms []*big.Int, random io.Reader, h hooks) (*Result, []*Party, error) {
	if random == nil {
		random = rand.Reader
	}
	if h.deliver == nil {
		h.deliver = func(int, ...*big.Int) {}
	}
	if len(ms) != params.Trustees {
		return nil, nil, errCount("shares of m", len(ms), params.Trustees)
	}
	parties, gamma, err := openRounds(params, ms, random, h)
	if err != nil {
		return nil, nil, err
	}
	commits := make([]Commitment, len(parties))
	inbox := make([][]SubShare, len(parties))
	for i, p := range parties {
		var subs []SubShare
		if commits[i], subs, err = p.Deal(gamma); err != nil {
			return nil, nil, err
		}
		if h.tamper != nil {
			h.tamper(subs)
		}
		for _, s := range subs {
			inbox[s.To-1] = append(inbox[s.To-1], s)
			h.deliver(s.To, s.Value)
		}
	}
	for to := 1; to <= len(parties); to++ {
		for _, c := range commits {
			h.deliver(to, c.C...)
		}
	}
	res := &Result{Gamma: gamma, Shares: make([]*threshold.KeyShare, len(parties)), Exponents: make([]*wellformed.Share, len(parties))}
	for i, p := range parties {
		if res.Shares[i], err = p.Receive(commits, inbox[i]); err != nil {
			return nil, nil, err
		}
		if res.Exponents[i], err = p.Exponents(); err != nil {
			return nil, nil, err
		}
	}
	if res.Public, err = PublicParams(params, gamma, commits); err != nil {
		return nil, nil, err
	}
	return res, parties, nil
}

// openRounds starts every trustee, delivers the field shares and opens γ.
func openRounds(params *Params, ms []*big.Int, random io.Reader, h hooks) ([]*Party, *big.Int, error) {
	parties := make([]*Party, params.Trustees)
	inbox := make([][]Dealt, params.Trustees)
	for i := range parties {
		p, out, err := NewParty(params, i+1, ms[i], random)
		if err != nil {
			return nil, nil, err
		}
		parties[i] = p
		for _, d := range out {
			inbox[d.To-1] = append(inbox[d.To-1], d)
			h.deliver(d.To, d.M, d.Beta, d.R, d.Zero)
		}
	}
	openings := make([]Opening, len(parties))
	for i, p := range parties {
		var err error
		if openings[i], err = p.Open(inbox[i]); err != nil {
			return nil, nil, err
		}
	}
	for to := 1; to <= len(parties); to++ {
		for _, o := range openings {
			h.deliver(to, o.Gamma)
		}
	}
	gamma, err := OpenGamma(params, openings)
	if err != nil {
		return nil, nil, err
	}
	return parties, gamma, nil
}
