package ballotvscc

import (
	"github.com/hyperledger/fabric-protos-go/common"
	"github.com/hyperledger/fabric/core/ledger/kvledger/txmgmt/rwsetutil"
	"github.com/hyperledger/fabric/fabvote/mod/validation/ballotcheck"
	"github.com/hyperledger/fabric/protoutil"
	"github.com/pkg/errors"
)

// decodeTx returns the ballot check's view of an endorser transaction in
// namespace ns: its id, the call (when it invokes ns itself) and its reads
// and writes in ns. It returns nil, nil for transactions that do not touch
// ns or are not endorser transactions; the default validation has already
// judged those. An error means a transaction the default validation
// accepted does not decode, which the plugin treats as invalid.
func decodeTx(envBytes []byte, ns string) (*ballotcheck.Tx, error) {
	env, err := protoutil.SharedEnvelopeFromBlock(envBytes) // O-VI: shared with the other stages when FABVOTE_DECODE_MEMO is on
	if err != nil {
		return nil, err
	}
	payload, err := protoutil.SharedPayload(env.Payload)
	if err != nil {
		return nil, err
	}
	if payload.Header == nil {
		return nil, errors.New("payload without header")
	}
	chdr, err := protoutil.UnmarshalChannelHeader(payload.Header.ChannelHeader)
	if err != nil {
		return nil, err
	}
	if common.HeaderType(chdr.Type) != common.HeaderType_ENDORSER_TRANSACTION {
		return nil, nil
	}
	tx, err := protoutil.SharedTransaction(payload.Data)
	if err != nil {
		return nil, err
	}
	if len(tx.Actions) != 1 {
		return nil, errors.Errorf("transaction has %d actions, want 1", len(tx.Actions))
	}
	cap, err := protoutil.SharedChaincodeActionPayload(tx.Actions[0].Payload)
	if err != nil {
		return nil, err
	}
	if cap.Action == nil {
		return nil, errors.New("chaincode action payload without action")
	}
	out := &ballotcheck.Tx{TxID: chdr.TxId}
	if err := decodeCall(cap.ChaincodeProposalPayload, ns, out); err != nil {
		return nil, err
	}
	touched, err := decodeRWSet(cap.Action.ProposalResponsePayload, ns, out)
	if err != nil || !touched {
		return nil, err
	}
	return out, nil
}

// decodeCall sets the function and arguments when the proposal invokes ns.
func decodeCall(proposalPayload []byte, ns string, out *ballotcheck.Tx) error {
	cpp, err := protoutil.UnmarshalChaincodeProposalPayload(proposalPayload)
	if err != nil {
		return err
	}
	cis, err := protoutil.UnmarshalChaincodeInvocationSpec(cpp.Input)
	if err != nil {
		return err
	}
	spec := cis.GetChaincodeSpec()
	if spec.GetChaincodeId().GetName() != ns || len(spec.GetInput().GetArgs()) == 0 {
		return nil
	}
	args := spec.GetInput().GetArgs()
	out.Function, out.Args = string(args[0]), args[1:]
	return nil
}

// decodeRWSet fills the reads and writes in ns and reports whether the
// transaction has a read-write set for ns at all.
func decodeRWSet(prpBytes []byte, ns string, out *ballotcheck.Tx) (bool, error) {
	prp, err := protoutil.SharedProposalResponsePayload(prpBytes)
	if err != nil {
		return false, err
	}
	act, err := protoutil.SharedChaincodeAction(prp.Extension)
	if err != nil {
		return false, err
	}
	rws := &rwsetutil.TxRwSet{}
	if err := rws.FromProtoBytes(act.Results); err != nil {
		return false, err
	}
	touched := false
	for _, nrw := range rws.NsRwSets {
		if nrw.NameSpace != ns || nrw.KvRwSet == nil {
			continue
		}
		touched = true
		for _, r := range nrw.KvRwSet.Reads {
			out.Reads = append(out.Reads, ballotcheck.Read{Key: r.Key, Absent: r.Version == nil})
		}
		for _, w := range nrw.KvRwSet.Writes {
			out.Writes = append(out.Writes, ballotcheck.Write{Key: w.Key, Value: w.Value, IsDelete: w.IsDelete})
		}
	}
	return touched, nil
}
