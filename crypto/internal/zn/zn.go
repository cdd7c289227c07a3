// Package zn holds the two operations on Z_N that the dealer-free key
// packages share: deriving public elements of Z_N from a hash stream (the
// biprimality bases of crypto/dkg/biprime, the challenges of
// crypto/dkg/wellformed, the self-test ciphertext of
// crypto/paillier/threshold) and raising to a signed integer exponent (a
// trustee's additive share of φ(N)/4 is negative for every trustee but the
// first).
//
// The hash stream is part of the public protocol: verifier-py re-derives the
// same elements (fabvote_verifier/pimod.py), so its definition below is
// normative.
package zn

import (
	"crypto/sha256"
	"encoding/binary"
	"math/big"

	"github.com/fabvote/fabvote/crypto/paillier/arith"
)

// extraBytes is how many bytes beyond |N| each candidate draws before the
// reduction mod N: 128 extra bits make its distribution 2^-128-close to
// uniform on [0, N).
const extraBytes = 16

// Stream yields candidate elements of [0, N), derived from parts with SHA-256.
//
// The prefix is the concatenation over parts of u32be(len(part)) ‖ part.
// Candidate c (c = 0, 1, …) is the big-endian integer formed by the first
// |N|+16 bytes of SHA-256(prefix ‖ u32be(c) ‖ u32be(0)) ‖
// SHA-256(prefix ‖ u32be(c) ‖ u32be(1)) ‖ …, reduced mod N (|N| in bytes).
// Callers keep the first candidate that meets their condition.
type Stream struct {
	n      *big.Int
	prefix []byte
	next   uint32
}

// NewStream starts the stream of candidates for modulus n > 0 and parts.
func NewStream(n *big.Int, parts ...[]byte) *Stream {
	var prefix []byte
	for _, p := range parts {
		prefix = binary.BigEndian.AppendUint32(prefix, uint32(len(p)))
		prefix = append(prefix, p...)
	}
	return &Stream{n: n, prefix: prefix}
}

// Next returns the next candidate in [0, N).
func (s *Stream) Next() *big.Int {
	want := (s.n.BitLen()+7)/8 + extraBytes
	buf := make([]byte, 0, want+sha256.Size)
	for block := uint32(0); len(buf) < want; block++ {
		h := sha256.New()
		h.Write(s.prefix)
		h.Write(binary.BigEndian.AppendUint32(nil, s.next))
		h.Write(binary.BigEndian.AppendUint32(nil, block))
		buf = h.Sum(buf)
	}
	s.next++
	x := new(big.Int).SetBytes(buf[:want])
	return x.Mod(x, s.n)
}

// U32 is the 4-byte big-endian encoding of v, for counters in stream parts.
func U32(v int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }

// ExpSigned returns x^e mod n for x ∈ Z*_n and any integer e; a negative e
// raises the inverse of x. The exponent is treated as secret
// (arith.ExpSecret). It returns nil when e < 0 and x has no inverse mod n.
func ExpSigned(x, e, n *big.Int) *big.Int {
	if e.Sign() >= 0 {
		return arith.ExpSecret(x, e, n)
	}
	inv := new(big.Int).ModInverse(x, n)
	if inv == nil {
		return nil
	}
	return arith.ExpSecret(inv, new(big.Int).Neg(e), n)
}
