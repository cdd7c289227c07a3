package envelope

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"

	"filippo.io/age"

	"github.com/fabvote/fabvote/internal/ceremony/config"
)

// Seal encodes and signs one message. A private message (h.To ≠ Broadcast)
// needs to, the receiver's age recipient, and its body is encrypted to it;
// a broadcast takes to = nil and its body goes in the clear.
func Seal(h Header, body []byte, signer ed25519.PrivateKey, to age.Recipient) ([]byte, error) {
	if err := h.check(); err != nil {
		return nil, err
	}
	if len(signer) != ed25519.PrivateKeySize {
		return nil, errors.New("envelope: the signing key is not an Ed25519 private key")
	}
	switch {
	case h.To == Broadcast && to != nil:
		return nil, errors.New("envelope: a broadcast is not encrypted: want no recipient")
	case h.To != Broadcast && to == nil:
		return nil, fmt.Errorf("envelope: a private message to trustee %d needs its age recipient", h.To)
	case h.To != Broadcast:
		var err error
		if body, err = encrypt(body, to); err != nil {
			return nil, fmt.Errorf("envelope: encrypting to trustee %d: %w", h.To, err)
		}
	}
	if len(body) > MaxBody {
		return nil, fmt.Errorf("%w: body of %d bytes, more than %d", ErrTooLarge, len(body), MaxBody)
	}
	raw := encode(&h, body)
	sig := ed25519.Sign(signer, signedMessage(raw))
	return append(raw, sig...), nil
}

func encrypt(body []byte, to age.Recipient) ([]byte, error) {
	var buf bytes.Buffer
	w, err := age.Encrypt(&buf, to)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(body); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Errors of Verify and Open; the returned errors wrap them and say more.
var (
	ErrWrongCeremony = errors.New("envelope: another ceremony's message")
	ErrWrongConfig   = errors.New("envelope: sent under another ceremony config")
	ErrUnknownSender = errors.New("envelope: not a trustee of the ceremony")
	ErrSignature     = errors.New("envelope: signature does not verify")
	ErrNotForMe      = errors.New("envelope: a private message to another trustee")
	ErrDecrypt       = errors.New("envelope: cannot decrypt the body")
)

// Verify parses raw and checks it belongs to cfg's ceremony, under cfg
// itself, from one of its trustees, to one of them, signed by the sender's
// key. A receiver verifies every message, also those to others, to follow
// each sender's chain. cfg must be valid (config.Parse).
func Verify(raw []byte, cfg *config.Config) (*Envelope, error) {
	e, err := Parse(raw)
	if err != nil {
		return nil, err
	}
	if e.Ceremony != cfg.ID() {
		return nil, fmt.Errorf("%w: ceremony %x, not %s", ErrWrongCeremony, e.Ceremony, cfg.Ceremony)
	}
	if e.ConfigDigest != cfg.Digest() {
		return nil, fmt.Errorf("%w: the message claiming trustee %d carries config digest %x, ours is %s", ErrWrongConfig, e.From, e.ConfigDigest, cfg.DigestHex())
	}
	sender, ok := cfg.Trustee(int(e.From))
	if !ok {
		return nil, fmt.Errorf("%w: sender %d of %d", ErrUnknownSender, e.From, cfg.N)
	}
	if int(e.To) > cfg.N {
		return nil, fmt.Errorf("%w: receiver %d of %d", ErrUnknownSender, e.To, cfg.N)
	}
	signed := raw[:len(raw)-SigLen]
	if !ed25519.Verify(sender.PublicKey(), signedMessage(signed), e.Sig[:]) {
		return nil, fmt.Errorf("%w: message %d of round %d claims to be from %s: altered on the way or not sent by it", ErrSignature, e.Seq, e.Round, sender)
	}
	return e, nil
}

// Open verifies raw (Verify) and returns its header and body for trustee
// me: a broadcast's body, or a private message to me decrypted with my age
// identities. A private message to another trustee is refused.
func Open(raw []byte, cfg *config.Config, me int, ids ...age.Identity) (Header, []byte, error) {
	e, err := Verify(raw, cfg)
	if err != nil {
		return Header{}, nil, err
	}
	body, err := e.BodyFor(me, ids...)
	if err != nil {
		return Header{}, nil, err
	}
	return e.Header, body, nil
}

// BodyFor is the plaintext body for trustee me: a broadcast's, or a private
// message to me decrypted with my age identities.
func (e *Envelope) BodyFor(me int, ids ...age.Identity) ([]byte, error) {
	if e.To == Broadcast {
		return e.Body, nil
	}
	if int(e.To) != me {
		return nil, fmt.Errorf("%w: trustee %d's message %d is to trustee %d, not to %d", ErrNotForMe, e.From, e.Seq, e.To, me)
	}
	r, err := age.Decrypt(bytes.NewReader(e.Body), ids...)
	if err != nil {
		return nil, fmt.Errorf("%w: trustee %d's message %d: %v", ErrDecrypt, e.From, e.Seq, err)
	}
	body, err := io.ReadAll(io.LimitReader(r, MaxBody))
	if err != nil {
		return nil, fmt.Errorf("%w: trustee %d's message %d: %v", ErrDecrypt, e.From, e.Seq, err)
	}
	return body, nil
}
