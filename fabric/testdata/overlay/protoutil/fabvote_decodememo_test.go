/*
SPDX-License-Identifier: Apache-2.0
*/

package protoutil

// fabvote: the decode memo (O-VI) as the commit path uses it. fabric/build.sh
// test runs this package with FABVOTE_DECODE_MEMO unset (off) and =check.

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/golang/protobuf/proto"
	"github.com/hyperledger/fabric-protos-go/common"
	"github.com/hyperledger/fabric-protos-go/peer"
	"github.com/hyperledger/fabric/fabvote/decodememo"
)

// fabvoteEnvelope builds an endorser transaction's envelope bytes from its
// innermost chaincode action outwards; edit changes one level on the way.
func fabvoteEnvelope(t testing.TB, edit func(level string, m proto.Message)) []byte {
	t.Helper()
	if edit == nil {
		edit = func(string, proto.Message) {}
	}
	marshal := func(level string, m proto.Message) []byte {
		edit(level, m)
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	ca := marshal("action", &peer.ChaincodeAction{Results: []byte("rwset of a ballot"), ChaincodeId: &peer.ChaincodeID{Name: "ballot"}})
	prp := marshal("prp", &peer.ProposalResponsePayload{ProposalHash: []byte("hash"), Extension: ca})
	cap := marshal("cap", &peer.ChaincodeActionPayload{ChaincodeProposalPayload: []byte("input"), Action: &peer.ChaincodeEndorsedAction{ProposalResponsePayload: prp}})
	tx := marshal("tx", &peer.Transaction{Actions: []*peer.TransactionAction{{Header: []byte("shdr"), Payload: cap}}})
	payload := marshal("payload", &common.Payload{Header: &common.Header{ChannelHeader: []byte("chdr"), SignatureHeader: []byte("shdr")}, Data: tx})
	return marshal("envelope", &common.Envelope{Payload: payload, Signature: []byte("sig")})
}

// fabvoteAtLevel is an edit for fabvoteEnvelope that changes one level.
func fabvoteAtLevel(level string, edit func(proto.Message)) func(string, proto.Message) {
	return func(l string, m proto.Message) {
		if l == level {
			edit(m)
		}
	}
}

func fabvoteMemoOn() bool { return decodememo.Process() != nil }

func TestFabvoteDecodeMemoFollowsTheEnvironment(t *testing.T) {
	want, err := decodememo.ParseSetting(os.Getenv(decodememo.EnvVar))
	if err != nil {
		t.Fatal(err)
	}
	if got := decodememo.Setting(); got != want {
		t.Fatalf("setting %v, want %v (%s=%q)", got, want, decodememo.EnvVar, os.Getenv(decodememo.EnvVar))
	}
	if fabvoteMemoOn() != (want != decodememo.Off) {
		t.Fatalf("process memo present: %v with setting %v", fabvoteMemoOn(), want)
	}
}

// Every Shared function returns what its stock namesake returns; with the
// memo on, asking again for the same bytes returns the same message.
func TestFabvoteSharedDecodesAsStock(t *testing.T) {
	envBytes := fabvoteEnvelope(t, nil)
	env, _ := GetEnvelopeFromBlock(envBytes)
	payload, _ := UnmarshalPayload(env.Payload)
	tx, _ := UnmarshalTransaction(payload.Data)
	cap, _ := UnmarshalChaincodeActionPayload(tx.Actions[0].Payload)
	prp, _ := UnmarshalProposalResponsePayload(cap.Action.ProposalResponsePayload)
	sharedEnv, _ := SharedEnvelopeFromBlock(envBytes)
	sharedPayload, _ := SharedPayload(sharedEnv.Payload)
	sharedTx, _ := SharedTransaction(sharedPayload.Data)
	sharedCap, _ := SharedChaincodeActionPayload(sharedTx.Actions[0].Payload)
	sharedPrp, _ := SharedProposalResponsePayload(sharedCap.Action.ProposalResponsePayload)
	for _, tc := range []struct {
		name  string
		stock proto.Message
		again func() (proto.Message, error)
	}{
		{"envelope", env, func() (proto.Message, error) { return SharedEnvelopeFromBlock(envBytes) }},
		{"payload", payload, func() (proto.Message, error) { return SharedPayload(sharedEnv.Payload) }},
		{"transaction", tx, func() (proto.Message, error) { return SharedTransaction(sharedPayload.Data) }},
		{"chaincode action payload", cap, func() (proto.Message, error) { return SharedChaincodeActionPayload(sharedTx.Actions[0].Payload) }},
		{"proposal response payload", prp, func() (proto.Message, error) {
			return SharedProposalResponsePayload(sharedCap.Action.ProposalResponsePayload)
		}},
		{"chaincode action", mustAction(t, GetActionFromEnvelope, envBytes), func() (proto.Message, error) { return SharedChaincodeAction(sharedPrp.Extension) }},
		{"action from envelope", mustAction(t, GetActionFromEnvelope, envBytes), func() (proto.Message, error) { return SharedActionFromEnvelope(envBytes) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first, err := tc.again()
			if err != nil {
				t.Fatal(err)
			}
			second, err := tc.again()
			if err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(first, tc.stock) || !proto.Equal(second, tc.stock) {
				t.Fatalf("shared decode %v differs from stock's %v", first, tc.stock)
			}
			if same := first == second; same != fabvoteMemoOn() {
				t.Fatalf("second call returned the first message: %v, memo on: %v", same, fabvoteMemoOn())
			}
		})
	}
}

func mustAction(t *testing.T, get func([]byte) (*peer.ChaincodeAction, error), b []byte) *peer.ChaincodeAction {
	t.Helper()
	a, err := get(b)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// A transaction that does not decode gets stock's error, every time: the
// memo never remembers a failure.
func TestFabvoteSharedErrorsAsStock(t *testing.T) {
	garbage := []byte{0xff, 0xff, 0xff}
	for _, tc := range []struct {
		name  string
		level string // the message edit changes; none: the envelope bytes are garbage
		edit  func(proto.Message)
	}{
		{"envelope not protobuf", "", nil},
		{"payload not protobuf", "envelope", func(m proto.Message) { m.(*common.Envelope).Payload = garbage }},
		{"transaction not protobuf", "payload", func(m proto.Message) { m.(*common.Payload).Data = garbage }},
		{"transaction without actions", "tx", func(m proto.Message) { m.(*peer.Transaction).Actions = nil }},
		{"action payload not protobuf", "tx", func(m proto.Message) { m.(*peer.Transaction).Actions[0].Payload = garbage }},
		{"action payload without action", "cap", func(m proto.Message) { m.(*peer.ChaincodeActionPayload).Action = nil }},
		{"proposal response payload not protobuf", "cap", func(m proto.Message) {
			m.(*peer.ChaincodeActionPayload).Action.ProposalResponsePayload = garbage
		}},
		{"response payload without extension", "prp", func(m proto.Message) { m.(*peer.ProposalResponsePayload).Extension = nil }},
		{"chaincode action not protobuf", "prp", func(m proto.Message) { m.(*peer.ProposalResponsePayload).Extension = garbage }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := garbage
			if tc.edit != nil {
				env = fabvoteEnvelope(t, fabvoteAtLevel(tc.level, tc.edit))
			}
			_, stockErr := GetActionFromEnvelope(env)
			if stockErr == nil {
				t.Fatal("stock decodes this transaction; the case is wrong")
			}
			for i := 0; i < 2; i++ {
				got, err := SharedActionFromEnvelope(env)
				if got != nil || fmt.Sprint(err) != stockErr.Error() {
					t.Fatalf("call %d: got (%v, %v), want (nil, %q)", i+1, got, err, stockErr)
				}
			}
		})
	}
}

// In check mode, a caller that writes to a shared message is caught at the
// next decode of the same bytes.
func TestFabvoteDecodeMemoCheckCatchesAWrite(t *testing.T) {
	if decodememo.Setting() != decodememo.Check {
		t.Skipf("%s is not check", decodememo.EnvVar)
	}
	envBytes := fabvoteEnvelope(t, nil)
	env, err := SharedEnvelopeFromBlock(envBytes)
	if err != nil {
		t.Fatal(err)
	}
	saved := env.Signature
	env.Signature = []byte("changed by a caller")
	defer func() {
		env.Signature = saved
		r := recover()
		if r == nil || !strings.Contains(fmt.Sprint(r), "a caller modified it") {
			t.Fatalf("recovered %v, want the memo's panic about a modified message", r)
		}
	}()
	SharedEnvelopeFromBlock(envBytes)
}

// BenchmarkFabvoteCommitDecodes decodes one ballot-sized transaction (11 KB
// of read-write set) the way a block's commit does: eight stages, each from
// the envelope down to the chaincode action. Each iteration is a new block's
// bytes, so the memo, when on, decodes the first stage and shares it with the
// other seven. Run it with FABVOTE_DECODE_MEMO=off and =on to compare.
func BenchmarkFabvoteCommitDecodes(b *testing.B) {
	results := make([]byte, 11<<10)
	template := fabvoteEnvelope(b, fabvoteAtLevel("action", func(m proto.Message) { m.(*peer.ChaincodeAction).Results = results }))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		block := append([]byte(nil), template...)
		for stage := 0; stage < 8; stage++ {
			if _, err := SharedActionFromEnvelope(block); err != nil {
				b.Fatal(err)
			}
		}
	}
}
