package loadgen

import (
	"context"
	"errors"
	"regexp"
	"strings"

	"github.com/hyperledger/fabric-protos-go-apiv2/peer"
	"google.golang.org/grpc/status"
)

// Failure reasons are short, stable strings "PHASE: DETAIL" so that runs can
// be compared and summed:
//
//	endorse: fabvote DUPLICATE      the contract rejected the ballot (its code)
//	endorse: grpc Unavailable       the gateway call failed with a gRPC code
//	submit: grpc Aborted            the orderer did not accept the transaction
//	commit: MVCC_READ_CONFLICT      the block committed the tx as invalid (validation code)
//	commit: fabvote PROOF           the peers' ballot validation refused it (the contract's code)
//	commit: unknown                 the commit status could not be learned (bench --client)
//	commit: timeout                 no commit seen within --commit-timeout
//	commit: grpc …                  the commit status call failed
//	cast: …                         bench --client's call failed otherwise (timeout, grpc …)
var contractCodeRE = regexp.MustCompile(`fabvote ([A-Z][A-Z_]{0,15}):`)

// ErrorReason names err for the failure table of phase ("endorse", "submit", "commit").
func ErrorReason(phase string, err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return phase + ": timeout"
	}
	if errors.Is(err, context.Canceled) {
		return phase + ": cancelled"
	}
	text := err.Error()
	if st, ok := status.FromError(err); ok {
		var b strings.Builder
		b.WriteString(text)
		for _, d := range st.Details() {
			if ed, ok := d.(interface{ GetMessage() string }); ok {
				b.WriteString("; ")
				b.WriteString(ed.GetMessage())
			}
		}
		text = b.String()
		if m := contractCodeRE.FindStringSubmatch(text); m != nil {
			return phase + ": fabvote " + m[1]
		}
		return phase + ": grpc " + st.Code().String()
	}
	if m := contractCodeRE.FindStringSubmatch(text); m != nil {
		return phase + ": fabvote " + m[1]
	}
	return phase + ": error"
}

// CommitReason names an invalid transaction by its validation code.
func CommitReason(code peer.TxValidationCode) string {
	return "commit: " + code.String()
}
