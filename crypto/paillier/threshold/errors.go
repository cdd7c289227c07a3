package threshold

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error returned by this package wraps one of them (or
// an I/O error) together with a message naming the offending field or trustee.
var (
	// ErrInvalidParams: the public parameters are malformed or inconsistent.
	ErrInvalidParams = errors.New("threshold: invalid public parameters")
	// ErrInvalidShare: a key share is malformed or does not belong to the parameters.
	ErrInvalidShare = errors.New("threshold: invalid key share")
	// ErrInvalidCiphertext: the ciphertext is not an element of Z*_{N²}.
	ErrInvalidCiphertext = errors.New("threshold: invalid ciphertext")
	// ErrInvalidPartial: a partial decryption is malformed or out of range.
	ErrInvalidPartial = errors.New("threshold: invalid partial decryption")
	// ErrInvalidProof: the proof of correct partial decryption does not verify.
	ErrInvalidProof = errors.New("threshold: invalid partial decryption proof")
	// ErrDuplicateIndex: two partial decryptions carry the same trustee index.
	ErrDuplicateIndex = errors.New("threshold: duplicate trustee index")
	// ErrTooFewPartials: fewer than K partial decryptions were supplied.
	ErrTooFewPartials = errors.New("threshold: fewer than K partial decryptions")
	// ErrUnsealedTally: DecryptTally was given no sealed tally ciphertext.
	ErrUnsealedTally = errors.New("threshold: not a sealed tally")
	// ErrSealerClaimed: ClaimSealer was called after the Sealer was handed out.
	ErrSealerClaimed = errors.New("threshold: the process's Sealer is already claimed")
	// ErrMalformed: an encoding is not the canonical encoding of a value.
	ErrMalformed = errors.New("threshold: malformed encoding")
)

// PartialError reports a problem with the partial decryption of one trustee.
// Index is the trustee index carried by the partial (1..L), or 0 when the
// partial itself was missing; Position is its place in the slice given to
// Combine (-1 from VerifyPartial).
type PartialError struct {
	Index    int
	Position int
	Err      error
}

func (e *PartialError) Error() string {
	if e.Position >= 0 {
		return fmt.Sprintf("threshold: partial decryption #%d (trustee %d): %v", e.Position, e.Index, e.Err)
	}
	return fmt.Sprintf("threshold: partial decryption of trustee %d: %v", e.Index, e.Err)
}

func (e *PartialError) Unwrap() error { return e.Err }

// fieldError wraps a sentinel with the name of the field that failed.
func fieldError(sentinel error, field, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", sentinel, field, fmt.Sprintf(format, args...))
}
