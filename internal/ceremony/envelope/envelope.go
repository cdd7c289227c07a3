// Package envelope is the signed message of a key ceremony, as trustees
// exchange it through an untrusted relay:
//
//	"FVCM" 0x01 ‖ ceremony id (16) ‖ config digest (32) ‖ round u16 ‖
//	batch u32 ‖ from u8 ‖ to u8 (0 = broadcast) ‖ seq u32 ‖ prevHash (32) ‖
//	bodyLen u32 ‖ body ‖ sig (64)
//
// integers big-endian. sig is the sender's Ed25519 signature over
// "fabvote/ceremony/envelope/v1" 0x00 and every byte before it. A private
// message's body is age-encrypted (X25519) to the recipient's age
// recipient from the ceremony config; a broadcast's body is in the clear.
// The relay sees headers, broadcasts and ciphertexts; it can drop a
// message, which a receiver sees as the sender's silence, but not alter
// one, which fails the signature.
//
// seq numbers a sender's messages 1, 2, … across the ceremony, and prevHash
// is Hash of its previous message (zero for seq 1): each sender's messages
// form a hash chain, which Chain follows. Two validly signed messages with
// the same sender and seq are equivocation, the signed proof that the
// sender sent different things to different trustees.
//
// Decoding is strict: every field has one fixed width, and a message of
// any other length than its header states is refused.
package envelope

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
)

// Sizes and bounds of the encoding.
const (
	Magic     = "FVCM"
	Version   = 0x01
	HeaderLen = 4 + 1 + 16 + 32 + 2 + 4 + 1 + 1 + 4 + 32 + 4
	SigLen    = 64
	// MaxBody bounds a body as sent (a private body's ciphertext).
	MaxBody = 64 << 20
	// MaxLen bounds a whole envelope.
	MaxLen = HeaderLen + MaxBody + SigLen
	// MaxTrustee is the largest trustee index the encoding may carry; the
	// ceremony config bounds it further.
	MaxTrustee = 255
)

// sigTag separates envelope signatures from any other use of the key.
const sigTag = "fabvote/ceremony/envelope/v1\x00"

// chainTag separates the chain hash from other SHA-256 uses.
const chainTag = "fabvote/ceremony/chain/v1\x00"

// Broadcast is the To of a message for every trustee.
const Broadcast = 0

// Header is everything before the body.
type Header struct {
	Ceremony     [16]byte
	ConfigDigest [32]byte
	Round        uint16
	Batch        uint32
	From         uint8 // sender's trustee index, 1..n
	To           uint8 // receiver's index, or Broadcast
	Seq          uint32
	PrevHash     [32]byte
}

// Envelope is a decoded message. Body is as sent: a private message's is
// ciphertext (see Body).
type Envelope struct {
	Header
	Body []byte
	Sig  [SigLen]byte
	raw  []byte
}

// Raw is the message's encoding.
func (e *Envelope) Raw() []byte { return e.raw }

// Hash is the chain hash of the message: the next message of its sender
// carries it as PrevHash.
func (e *Envelope) Hash() [32]byte { return Hash(e.raw) }

// Hash is the chain hash of an encoded message.
func Hash(raw []byte) [32]byte {
	h := sha256.New()
	h.Write([]byte(chainTag))
	h.Write(raw)
	return [32]byte(h.Sum(nil))
}

// Errors of the encoding.
var (
	ErrTruncated = errors.New("envelope: truncated")
	ErrTooLarge  = errors.New("envelope: too large")
	ErrMalformed = errors.New("envelope: malformed")
)

// Parse decodes raw strictly without verifying anything but its structure:
// this is all the relay checks. The Envelope keeps raw.
func Parse(raw []byte) (*Envelope, error) {
	if len(raw) > MaxLen {
		return nil, fmt.Errorf("%w: %d bytes, more than %d", ErrTooLarge, len(raw), MaxLen)
	}
	if len(raw) < HeaderLen {
		return nil, fmt.Errorf("%w: %d bytes, a header alone is %d", ErrTruncated, len(raw), HeaderLen)
	}
	if string(raw[:4]) != Magic || raw[4] != Version {
		return nil, fmt.Errorf("%w: not an FVCM version %d message", ErrMalformed, Version)
	}
	e := &Envelope{raw: raw}
	h := &e.Header
	p := raw[5:]
	p = p[copy(h.Ceremony[:], p):]
	p = p[copy(h.ConfigDigest[:], p):]
	h.Round, p = binary.BigEndian.Uint16(p), p[2:]
	h.Batch, p = binary.BigEndian.Uint32(p), p[4:]
	h.From, h.To, p = p[0], p[1], p[2:]
	h.Seq, p = binary.BigEndian.Uint32(p), p[4:]
	p = p[copy(h.PrevHash[:], p):]
	n := binary.BigEndian.Uint32(p)
	if n > MaxBody {
		return nil, fmt.Errorf("%w: body of %d bytes, more than %d", ErrTooLarge, n, MaxBody)
	}
	if want := HeaderLen + int(n) + SigLen; len(raw) != want {
		if len(raw) < want {
			return nil, fmt.Errorf("%w: %d bytes, its header states %d", ErrTruncated, len(raw), want)
		}
		return nil, fmt.Errorf("%w: %d bytes after the signature", ErrMalformed, len(raw)-want)
	}
	if err := h.check(); err != nil {
		return nil, err
	}
	e.Body = raw[HeaderLen : HeaderLen+int(n)]
	copy(e.Sig[:], raw[HeaderLen+int(n):])
	return e, nil
}

// check refuses header values no valid message has.
func (h *Header) check() error {
	switch {
	case h.From == 0:
		return fmt.Errorf("%w: sender 0", ErrMalformed)
	case h.To == h.From:
		return fmt.Errorf("%w: trustee %d writes to itself", ErrMalformed, h.From)
	case h.Seq == 0:
		return fmt.Errorf("%w: seq 0 (a sender's messages count from 1)", ErrMalformed)
	case h.Seq == 1 && h.PrevHash != [32]byte{}:
		return fmt.Errorf("%w: trustee %d's first message links to a previous one", ErrMalformed, h.From)
	}
	return nil
}

// encode is the header and body, ready to be signed.
func encode(h *Header, body []byte) []byte {
	b := make([]byte, 0, HeaderLen+len(body)+SigLen)
	b = append(b, Magic...)
	b = append(b, Version)
	b = append(b, h.Ceremony[:]...)
	b = append(b, h.ConfigDigest[:]...)
	b = binary.BigEndian.AppendUint16(b, h.Round)
	b = binary.BigEndian.AppendUint32(b, h.Batch)
	b = append(b, h.From, h.To)
	b = binary.BigEndian.AppendUint32(b, h.Seq)
	b = append(b, h.PrevHash[:]...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(body)))
	return append(b, body...)
}

// signedMessage is what the signature covers.
func signedMessage(signed []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(sigTag) + len(signed))
	b.WriteString(sigTag)
	b.Write(signed)
	return b.Bytes()
}
