package box

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/gateway"
	"github.com/fabvote/fabvote/internal/registrar"
)

// The box's own refusal codes; a refusal by the contract carries the
// contract's code (election's Code* constants).
const (
	CodeRate          = "RATE"           // too many requests from this client address (429)
	CodeUnavailable   = "UNAVAILABLE"    // the gateway cannot be reached, or the box is full (503)
	CodeCommitUnknown = "COMMIT_UNKNOWN" // submitted, but its commit was not confirmed in time (504)
	CodeOrigin        = "ORIGIN"         // a browser page of an origin the box does not answer (403)
	CodeMethod        = "METHOD"         // a method the route does not take (405)
	CodeNotFound      = election.CodeNotFound
	codeOK            = "OK" // the metrics' outcome of an answered request
)

// Refusal is the body of every refusal.
type Refusal struct {
	Error string `json:"error"` // what went wrong and what the voter should do
	Code  string `json:"code"`
}

// refusal is a request answered with an error status.
type refusal struct {
	status     int
	code, msg  string
	retryAfter time.Duration // for 429 and 503
	cause      error         // the ledger's error, for the log only
}

func (r *refusal) Error() string { return r.code + ": " + r.msg }

func badRequest(format string, args ...any) *refusal {
	return &refusal{status: http.StatusBadRequest, code: election.CodeDecode, msg: fmt.Sprintf(format, args...)}
}

// refuse writes rf, counts it and logs it. A refusal of the request (4xx)
// is logged with the client address and the code only; a failure of the
// ledger (5xx) with the ledger's error and no address. No line joins an
// address to a ballot's pseudonym or transaction, which would link a voter
// to their vote. Lines beyond the log rate are left out.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, route string, rf *refusal) {
	if rf.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(roundUp(rf.retryAfter)/time.Second)))
	}
	writeJSON(w, rf.status, Refusal{Error: rf.msg, Code: rf.code})
	s.metrics.count(route, rf.code)
	switch {
	case !s.logLimit.Allow():
	case rf.status >= 500 && rf.cause != nil:
		s.logf("%s %s: %d %s: %v", r.Method, route, rf.status, rf.code, rf.cause)
	default:
		s.logf("%s %s from %s: %d %s", r.Method, route, registrar.ClientIP(r), rf.status, rf.code)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// nothingRecorded ends the guidance of a refusal that left the ledger as it was.
const nothingRecorded = "; nothing was recorded"

// guidance says what the voter should do after the contract's refusal of
// a ballot or a spoiled ballot with the code.
var guidance = map[string]string{
	election.CodeDuplicate:  "this voter has already cast a ballot; nothing was changed",
	"SPOILED":               "this ballot was audited, so its choice is public and it cannot be cast; make a new ballot and cast that one" + nothingRecorded,
	"CAST_OPENED":           "this ballot was cast, and a cast ballot is never opened; nothing was changed",
	election.CodeExists:     "this audited ballot is already published; nothing was changed",
	"OPENING":               "the revealed choice does not match the ballot's encryption: the booth that made it is faulty; do not vote with it, and tell the election authority" + nothingRecorded,
	election.CodeWindow:     "the election is not open for voting now" + nothingRecorded,
	election.CodeClock:      "the ledger's clocks disagree; send it again in a minute" + nothingRecorded,
	election.CodeToken:      "the authority's token does not fit this ballot (another election or another voter key); register again and make a new ballot" + nothingRecorded,
	election.CodeNoElection: "this election is not on the ledger; check the election your booth names" + nothingRecorded,
	election.CodeAccess:     "this ballot box's organisation may not submit it; use another organisation's ballot box" + nothingRecorded,
	election.CodeInternal:   "the ledger failed to process it; send it again later, or through another organisation's ballot box" + nothingRecorded,
}

// faultyBallot is the guidance for the ballot's own checks: a booth that
// runs the election's code does not make such a ballot.
const faultyBallot = "the ballot does not pass the election's checks: the booth that made it is faulty or out of date; reload the booth and vote again" + nothingRecorded

// invalidated says what to do after a transaction the peers invalidated at
// commit, by validation code; others get the general advice.
var invalidated = map[string]string{
	"MVCC_READ_CONFLICT":         "the ledger invalidated the transaction because another one changed what it read; send it again",
	"ENDORSEMENT_POLICY_FAILURE": "the organisations' endorsements do not satisfy the channel's policy; send it again later, or through another organisation's ballot box",
}

// ledgerRefusal maps a submission's error to the box's answer: a contract
// refusal 422 with its code, an invalid commit 409 with the validation
// code, an unconfirmed commit 504, an unreachable gateway 503.
func ledgerRefusal(err error) *refusal {
	var re *gateway.RejectError
	var ce *gateway.CommitError
	var te *gateway.TransientError
	switch {
	case errors.As(err, &re):
		g, ok := guidance[re.Code]
		if !ok {
			g = faultyBallot
		}
		return &refusal{status: http.StatusUnprocessableEntity, code: re.Code, msg: g + " (" + re.Msg + ")", cause: err}
	case errors.As(err, &ce):
		code := ce.Code.String()
		g, ok := invalidated[code]
		if !ok {
			g = "the peers invalidated the transaction (" + code + "); send it again later, or through another organisation's ballot box"
		}
		return &refusal{status: http.StatusConflict, code: code, msg: g + nothingRecorded, cause: err}
	case errors.Is(err, gateway.ErrCommitStatusUnknown):
		return &refusal{status: http.StatusGatewayTimeout, code: CodeCommitUnknown, cause: err,
			msg: "the ledger took it but did not confirm its commit in time; look for its tracker on the bulletin board before sending it again (a ballot sent twice is refused as DUPLICATE, never counted twice)"}
	case errors.As(err, &te):
		return unavailable(err)
	}
	return &refusal{status: http.StatusBadGateway, code: election.CodeInternal, cause: err,
		msg: "the ledger answered with an error this ballot box does not know; look for the tracker on the bulletin board before sending it again, or use another organisation's ballot box"}
}

func unavailable(err error) *refusal {
	return &refusal{status: http.StatusServiceUnavailable, code: CodeUnavailable, retryAfter: 30 * time.Second, cause: err,
		msg: "the ledger cannot be reached now" + nothingRecorded + "; send it again in a minute, or through another organisation's ballot box"}
}

// busy is the refusal when MaxInFlight submissions are in flight.
var busy = &refusal{status: http.StatusServiceUnavailable, code: CodeUnavailable, retryAfter: 5 * time.Second,
	msg: "the ballot box is busy" + nothingRecorded + "; send it again in a few seconds"}
