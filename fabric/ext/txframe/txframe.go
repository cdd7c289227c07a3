// Package txframe checks that the transactions of a block are framed so that
// the block's data hash binds each transaction, not only their concatenation.
//
// Fabric 2.5 hashes block data as SHA-256 over the transactions' bytes laid
// end to end, with no length in between. Two different lists of byte strings
// with the same concatenation therefore have the same data hash, and a block
// whose transactions are cut at other boundaries passes the hash and
// signature checks (the crosslinking transaction attack, CVE-2023-46132).
//
// The fix here accepts a transaction only when its bytes are what the
// orderer writes into a block: the canonical protobuf encoding of an Envelope
// with a non-empty payload and a non-empty signature,
//
//	0x0a  varint(len(payload))    payload
//	0x12  varint(len(signature))  signature
//
// with minimal varints and nothing before or between, followed by nothing
// or by well-formed fields the Envelope message does not define (the
// orderer re-encodes each envelope it orders, and protobuf keeps fields it
// does not know and writes them after the known ones; refusing them here
// would let one client's envelope stop every peer's channel). This is
// exactly what upstream's check accepts: bytes equal to their own
// re-encoding. It is a prefix-free code: a transaction starts with the
// payload tag 0x0a and holds no other payload field at its top level, so in
// a concatenation each payload tag starts the next transaction, the split
// into envelopes is unique, and the data hash again determines the list.
//
// The package imports only the standard library and protowire, so the
// fork's protoutil can call it and its tests run in the root module.
package txframe

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// The field numbers of common.Envelope (fabric-protos common/common.proto).
const (
	payloadField   protowire.Number = 1
	signatureField protowire.Number = 2
)

// Errors, wrapped with the position they concern.
var (
	ErrNoTransactions = errors.New("block has no transactions")
	ErrTrailingBytes  = errors.New("trailing bytes after the signature")
	ErrNotCanonical   = errors.New("not the canonical encoding")
	ErrEmptyField     = errors.New("empty field")
	ErrTruncated      = errors.New("truncated")
	ErrMissing        = errors.New("missing")
	ErrUnexpected     = errors.New("unexpected field")
)

// CheckData checks every transaction of a block's data in order and names the
// first one that is not a canonical envelope.
func CheckData(txs [][]byte) error {
	if len(txs) == 0 {
		return ErrNoTransactions
	}
	for i, raw := range txs {
		if err := CheckEnvelope(raw); err != nil {
			return fmt.Errorf("transaction %d: %w", i, err)
		}
	}
	return nil
}

// CheckEnvelope reports whether raw is exactly the canonical encoding of an
// Envelope with a non-empty payload followed by a non-empty signature.
func CheckEnvelope(raw []byte) error {
	rest, err := consumeField(raw, payloadField, "payload")
	if err != nil {
		return err
	}
	rest, err = consumeField(rest, signatureField, "signature")
	if err != nil {
		return err
	}
	return checkUnknownFields(rest)
}

// checkUnknownFields accepts zero or more well-formed fields after the
// signature, none of which may be a payload or signature field: protobuf
// would read those as the Envelope's own fields, and a payload tag here is
// where a second envelope begins.
func checkUnknownFields(b []byte) error {
	for len(b) > 0 {
		num, typ, _ := protowire.ConsumeTag(b)
		if typ == protowire.BytesType && (num == payloadField || num == signatureField) {
			return fmt.Errorf("%w: field %d after the signature", ErrUnexpected, num)
		}
		n, err := canonicalField(b)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrTrailingBytes, err)
		}
		b = b[n:]
	}
	return nil
}

// canonicalField returns the length of the field at the start of b, which
// must be a well-formed field with a minimal tag: protobuf keeps an unknown
// field's value bytes as they came but writes its tag afresh.
func canonicalField(b []byte) (int, error) {
	num, typ, tagLen := protowire.ConsumeTag(b)
	if tagLen < 0 || num > protowire.MaxValidNumber {
		return 0, fmt.Errorf("%d bytes that are not a field", len(b))
	}
	if tagLen != protowire.SizeTag(num) {
		return 0, fmt.Errorf("field %d tag: %w", num, ErrNotCanonical)
	}
	n := protowire.ConsumeFieldValue(num, typ, b[tagLen:])
	if n < 0 {
		return 0, fmt.Errorf("field %d: %w", num, ErrTruncated)
	}
	return tagLen + n, nil
}

// consumeField reads one length-delimited field that must be field num, in
// its minimal encoding and non-empty, and returns what follows it.
func consumeField(b []byte, num protowire.Number, name string) ([]byte, error) {
	if len(b) == 0 {
		return nil, fmt.Errorf("%s: %w", name, ErrMissing)
	}
	gotNum, typ, tagLen := protowire.ConsumeTag(b)
	if tagLen < 0 {
		return nil, fmt.Errorf("%s tag: %w", name, ErrTruncated)
	}
	if gotNum != num || typ != protowire.BytesType {
		return nil, fmt.Errorf("%w: field %d wire type %d where the %s (field %d, bytes) belongs",
			ErrUnexpected, gotNum, typ, name, num)
	}
	if tagLen != protowire.SizeTag(num) {
		return nil, fmt.Errorf("%s tag: %w", name, ErrNotCanonical)
	}
	value, n := protowire.ConsumeBytes(b[tagLen:])
	if n < 0 {
		return nil, fmt.Errorf("%s: %w", name, ErrTruncated)
	}
	if n != protowire.SizeBytes(len(value)) {
		return nil, fmt.Errorf("%s length: %w", name, ErrNotCanonical)
	}
	if len(value) == 0 {
		return nil, fmt.Errorf("%s: %w", name, ErrEmptyField)
	}
	return b[tagLen+n:], nil
}
