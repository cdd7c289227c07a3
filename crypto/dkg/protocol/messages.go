package protocol

import (
	"fmt"
	"math/big"
)

// kind tags a body with the message it carries, so that a body of one kind
// is never read as another.
type kind uint8

// The kinds, one per message of the ceremony.
const (
	kindSieveDeal    kind = iota + 1 // per prime: A, ρ, zero shares
	kindSieveShape                   // per prime: e_j
	kindSieveReshare                 // per prime: sub-shares of the local products
	kindSieveOpen                    // per prime: share of y
	kindModulusDeal                  // per candidate: P, Q, zero shares
	kindModulusOpen                  // per candidate: share of N
	kindBiprimeFirst                 // per survivor: G_i of round 1
	kindBiprimeRest                  // one list per survivor: G_i of rounds 2..80
	kindKeyDeal                      // M, β, R, zero shares
	kindGamma                        // share of γ
	kindCommitment                   // C_0..C_{K−1}
	kindSubShare                     // f_i(j)
	kindSigma                        // σ_1..σ_80
	kindRoots                        // two lists: x_1..x_80, z_1..z_80
	kindPartial                      // Ci, E, Z of a self-test partial
	kindEnd                          // first unused kind
)

var kindNames = [...]string{"", "sieve deal", "sieve shape", "sieve resharing", "sieve opening",
	"modulus deal", "modulus opening", "biprimality round 1", "biprimality rounds 2..80",
	"key-share deal", "γ opening", "commitment", "sub-share", "σ values", "roots", "self-test partial"}

func (k kind) String() string {
	if k > 0 && k < kindEnd {
		return kindNames[k]
	}
	return fmt.Sprintf("kind %d", uint8(k))
}

// shape is what a round expects of a body: its kind, its number of lists
// and the number of integers in each.
type shape struct {
	kind         kind
	lists, width int
}

// flat is a shape of one list of width integers.
func flat(k kind, width int) shape { return shape{kind: k, lists: 1, width: width} }

// encode encodes lists, which must have the shape (a mismatch is a bug of
// the caller, reported as an error).
func (s shape) encode(lists ...[]*big.Int) ([]byte, error) {
	if err := s.check(lists); err != nil {
		return nil, fmt.Errorf("protocol: encoding: %w", err)
	}
	return body{kind: s.kind, lists: lists}.encode()
}

// decode parses a body and requires the shape.
func (s shape) decode(data []byte) ([][]*big.Int, error) {
	b, err := decodeBody(data)
	if err != nil {
		return nil, err
	}
	if b.kind != s.kind {
		return nil, fmt.Errorf("%w: a %s body, want a %s body", ErrMalformed, b.kind, s.kind)
	}
	if err := s.check(b.lists); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return b.lists, nil
}

func (s shape) check(lists [][]*big.Int) error {
	if len(lists) != s.lists {
		return fmt.Errorf("%s body with %d lists, the round wants %d", s.kind, len(lists), s.lists)
	}
	for l, list := range lists {
		if len(list) != s.width {
			return fmt.Errorf("%s body: list %d has %d integers, the round wants %d", s.kind, l, len(list), s.width)
		}
	}
	return nil
}
