package election

import (
	"errors"
	"fmt"
	"strings"
)

// Error codes. Every rejection of a ballot, manifest or result carries exactly
// one of them, so that clients (and tests) can tell the reasons apart without
// parsing prose. The codes are part of the wire protocol: never reuse or rename.
const (
	CodeSize       = "SIZE"        // input larger than the protocol allows
	CodeDecode     = "DECODE"      // malformed encoding: truncated, trailing bytes, wrong lengths, bad point, non-canonical
	CodeManifest   = "MANIFEST"    // a manifest field is missing or out of range
	CodeNoElection = "NO_ELECTION" // no manifest on the ledger for this election id
	CodeWindow     = "WINDOW"      // transaction time outside the voting window (or result before its end)
	CodeClock      = "CLOCK"       // transaction timestamp too far from the peer's clock
	CodeCiphertext = "CIPHERTEXT"  // ciphertext not in Z*_{N²} or of the wrong length
	CodeToken      = "TOKEN"       // the authority's token does not verify for (election, voter key)
	CodeSignature  = "SIGNATURE"   // the voter's signature over the ballot does not verify
	CodeDuplicate  = "DUPLICATE"   // this voter key already has a ballot in this election
	CodeProof      = "PROOF"       // the validity proof is malformed or does not verify
	CodeLimit      = "LIMIT"       // a contest's proof of its number of selections does not verify: too many, too few, or blank with options
	// A ballot's list of contests against its token's ballot style.
	CodeNotInStyle     = "NOT_IN_STYLE"    // a contest that is not in the style (or no contest at all)
	CodeContestRepeat  = "CONTEST_REPEAT"  // a contest listed twice
	CodeContestOrder   = "CONTEST_ORDER"   // contests out of the manifest's order
	CodeContestMissing = "CONTEST_MISSING" // a contest of the style left out
	CodeAccess         = "ACCESS"          // the submitting identity may not call this function
	CodeExists         = "EXISTS"          // write-once object already on the ledger
	CodeResult         = "RESULT"          // the result does not verify
	CodeNotFound       = "NOT_FOUND"       // queried object absent
	CodeArgument       = "ARGUMENT"        // bad query argument (page size, hash format, …)
	CodeInternal       = "INTERNAL"        // ledger or configuration failure, not the caller's fault
	// Spoiled (audited) ballots and the ciphertexts that cast and spoiled ballots claim.
	CodeOpening    = "OPENING"     // a spoiled ballot's opening does not match its ciphertext or is no valid choice
	CodeSpoiled    = "SPOILED"     // a ciphertext of the ballot was opened by a spoiled ballot: its vote is public, it cannot be cast
	CodeCastOpened = "CAST_OPENED" // a ciphertext of the ballot is cast: a cast ballot is never opened
)

// Error is a protocol rejection. Its message always names the offending field.
type Error struct {
	Code string
	Msg  string
	Err  error // optional underlying cause (not part of the wire message)
}

func (e *Error) Error() string { return "fabvote " + e.Code + ": " + e.Msg }

// Unwrap exposes the underlying cause, if any, to errors.Is / errors.As.
func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, &Error{Code: X}) match any *Error with code X.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Msg == "" && t.Code == e.Code
}

func errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

func wrapf(code string, cause error, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if cause != nil {
		msg += ": " + cause.Error()
	}
	return &Error{Code: code, Msg: msg, Err: cause}
}

// Errorf builds an *Error; used by the chaincode for codes that arise there
// (ACCESS, EXISTS, WINDOW, …).
func Errorf(code, format string, args ...any) *Error { return errorf(code, format, args...) }

// CodeOf returns the protocol code of err: from an *Error in its chain, or, for
// errors that crossed the network as plain text (a gateway endorsement error
// wraps the chaincode's message), from the first "fabvote CODE:" in the text.
// It returns "" when err carries no code.
func CodeOf(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	s := err.Error()
	for {
		i := strings.Index(s, "fabvote ")
		if i < 0 {
			return ""
		}
		s = s[i+len("fabvote "):]
		j := strings.IndexByte(s, ':')
		if j > 0 && isCode(s[:j]) {
			return s[:j]
		}
	}
}

func isCode(s string) bool {
	if len(s) > 16 {
		return false
	}
	for _, c := range s {
		if (c < 'A' || c > 'Z') && c != '_' {
			return false
		}
	}
	return true
}
