package gateway

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyperledger/fabric-protos-go-apiv2/peer"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		code      string
		retryable bool
	}{
		{"duplicate", status.Error(codes.Aborted, "failed to endorse transaction, see attached details for more info: chaincode response 500, fabvote DUPLICATE: voter key abc already voted"), "DUPLICATE", false},
		{"window", errors.New("rpc error: fabvote WINDOW: transaction time is after the end"), "WINDOW", false},
		{"unavailable", status.Error(codes.Unavailable, "connection refused"), "", true},
		{"deadline", status.Error(codes.DeadlineExceeded, "timeout"), "", true},
		{"stale", status.Error(codes.Unknown, "lockless: the simulation overlapped a ledger commit and must be retried"), "", true},
		{"lowercase is not a code", errors.New("fabvote duplicate: x"), "", false},
		{"peer overloaded", status.Error(codes.Unknown, "too many requests for /gateway.Gateway, exceeding concurrency limit (500)"), "", true},
		{"other", status.Error(codes.PermissionDenied, "access denied"), "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := classify("CastBallot", tc.err)
			var re *RejectError
			if got := errors.As(err, &re); got != (tc.code != "") {
				t.Fatalf("classify(%v) = %T %v, want reject=%v", tc.err, err, err, tc.code != "")
			}
			if re != nil && re.Code != tc.code {
				t.Fatalf("code %q, want %q", re.Code, tc.code)
			}
			if re != nil && !strings.HasPrefix(re.Msg, "fabvote "+tc.code+":") {
				t.Fatalf("message %q does not start with the contract's code", re.Msg)
			}
			if IsRetryable(err) != tc.retryable {
				t.Fatalf("IsRetryable = %v, want %v", IsRetryable(err), tc.retryable)
			}
		})
	}
}

func TestCommitErrorRetry(t *testing.T) {
	tests := []struct {
		code peer.TxValidationCode
		want bool
	}{
		{peer.TxValidationCode_MVCC_READ_CONFLICT, true},
		{peer.TxValidationCode_PHANTOM_READ_CONFLICT, true},
		{peer.TxValidationCode_ENDORSEMENT_POLICY_FAILURE, false},
		{peer.TxValidationCode_DUPLICATE_TXID, false},
	}
	for _, tc := range tests {
		if got := IsRetryable(&CommitError{Fn: "f", Code: tc.code}); got != tc.want {
			t.Errorf("%v: retryable %v, want %v", tc.code, got, tc.want)
		}
	}
}

func TestLoadNetwork(t *testing.T) {
	dir := t.TempDir()
	good := `{"profile":"solo-org","channel":"fabvote","chaincodes":["ballot"],
	 "orgs":[{"name":"ea","mspID":"EAMSP","peers":[{"name":"peer0","endpoint":"127.0.0.1:7051","tlsCACert":"ca.pem"}],
	   "identities":{"admin":{"cert":"/abs/c.pem","key":"k.pem"}}},
	  {"name":"party1","mspID":"Party1MSP","peers":[{"name":"p1","endpoint":"127.0.0.1:8051"}]}]}`
	tests := []struct {
		name, data, want string
	}{
		{"no channel", `{"orgs":[]}`, "no channel"},
		{"no orgs", `{"channel":"c"}`, "no orgs"},
		{"no peers", `{"channel":"c","orgs":[{"name":"x","mspID":"X"}]}`, "no mspID or no peers"},
		{"bad json", `{`, "network"},
	}
	for _, tc := range tests {
		p := filepath.Join(dir, tc.name+".json")
		os.WriteFile(p, []byte(tc.data), 0o644)
		if _, err := LoadNetwork(p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want mention of %q", tc.name, err, tc.want)
		}
	}
	p := filepath.Join(dir, "net.json")
	os.WriteFile(p, []byte(good), 0o644)
	n, err := LoadNetwork(p)
	if err != nil {
		t.Fatal(err)
	}
	o, err := n.Org("party1msp")
	if err != nil || o.Name != "party1" {
		t.Fatalf("Org(party1msp) = %v, %v", o, err)
	}
	ea, _ := n.Org("")
	if ea.Peers[0].TLSCACert != filepath.Join(dir, "ca.pem") {
		t.Fatalf("relative path not resolved: %s", ea.Peers[0].TLSCACert)
	}
	if ea.Identities["admin"].Cert != "/abs/c.pem" {
		t.Fatalf("absolute path changed: %s", ea.Identities["admin"].Cert)
	}
	if _, err := n.Org("nope"); err == nil || !strings.Contains(err.Error(), "ea/EAMSP") {
		t.Fatalf("unknown org error %v should list the orgs", err)
	}
	if _, err := Connect(n, Options{Org: "ea", Identity: "user9"}); err == nil || !strings.Contains(err.Error(), "has: admin") {
		t.Fatalf("unknown identity error %v should list identities", err)
	}
	if _, err := Connect(n, Options{Chaincode: "other"}); err == nil || !strings.Contains(err.Error(), "not deployed") {
		t.Fatalf("unknown chaincode: %v", err)
	}
}
