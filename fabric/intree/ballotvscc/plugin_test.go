package ballotvscc

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hyperledger/fabric-protos-go/common"
	"github.com/hyperledger/fabric-protos-go/ledger/rwset"
	"github.com/hyperledger/fabric-protos-go/ledger/rwset/kvrwset"
	"github.com/hyperledger/fabric-protos-go/peer"
	validation "github.com/hyperledger/fabric/core/handlers/validation/api"
	vs "github.com/hyperledger/fabric/core/handlers/validation/api/state"
	"github.com/hyperledger/fabric/fabvote/mod/election"
	"github.com/hyperledger/fabric/fabvote/mod/election/electiontest"
	"github.com/hyperledger/fabric/protoutil"
)

const ns = "ballot"

// envelope builds the endorser transaction envelope of a chaincode call
// on ns with the given reads and writes in ns (unsigned: the default
// validation, which checks signatures, is replaced by a fake here).
func envelope(txID string, args [][]byte, reads []*kvrwset.KVRead, writes []*kvrwset.KVWrite) []byte {
	kv := protoutil.MarshalOrPanic(&kvrwset.KVRWSet{Reads: reads, Writes: writes})
	results := protoutil.MarshalOrPanic(&rwset.TxReadWriteSet{
		DataModel: rwset.TxReadWriteSet_KV,
		NsRwset:   []*rwset.NsReadWriteSet{{Namespace: ns, Rwset: kv}},
	})
	act := protoutil.MarshalOrPanic(&peer.ChaincodeAction{Results: results, ChaincodeId: &peer.ChaincodeID{Name: ns}})
	prp := protoutil.MarshalOrPanic(&peer.ProposalResponsePayload{Extension: act})
	cis := protoutil.MarshalOrPanic(&peer.ChaincodeInvocationSpec{ChaincodeSpec: &peer.ChaincodeSpec{
		ChaincodeId: &peer.ChaincodeID{Name: ns}, Input: &peer.ChaincodeInput{Args: args},
	}})
	cap := protoutil.MarshalOrPanic(&peer.ChaincodeActionPayload{
		ChaincodeProposalPayload: protoutil.MarshalOrPanic(&peer.ChaincodeProposalPayload{Input: cis}),
		Action:                   &peer.ChaincodeEndorsedAction{ProposalResponsePayload: prp},
	})
	tx := protoutil.MarshalOrPanic(&peer.Transaction{Actions: []*peer.TransactionAction{{Payload: cap}}})
	chdr := protoutil.MarshalOrPanic(&common.ChannelHeader{Type: int32(common.HeaderType_ENDORSER_TRANSACTION), TxId: txID})
	payload := protoutil.MarshalOrPanic(&common.Payload{Header: &common.Header{ChannelHeader: chdr}, Data: tx})
	return protoutil.MarshalOrPanic(&common.Envelope{Payload: payload})
}

// castEnvelope is what CastBallot produces for b (ballot bytes raw), a
// ballot of e1's one ciphertext: its record under its ballot key, its cast
// claim under its ciphertext's claim key.
func castEnvelope(txID string, raw []byte, b *election.Ballot) []byte {
	return castEnvelopeAt(txID, raw, b, election.LedgerKey(election.ObjBallot, b.ElectionID, b.PseudonymHex()))
}

// castEnvelopeAt is castEnvelope with the record written under key.
func castEnvelopeAt(txID string, raw []byte, b *election.Ballot, key string) []byte {
	ckey := election.CiphertextKey(b.ElectionID, b.Ciphertext)
	rec := &election.Record{TxID: txID, Ballot: raw}
	return envelope(txID, [][]byte{[]byte("CastBallot"), raw},
		[]*kvrwset.KVRead{{Key: key}, {Key: ckey}},
		[]*kvrwset.KVWrite{{Key: key, Value: rec.Marshal()}, {Key: ckey, Value: b.CiphertextClaim().Marshal()}})
}

type fakeDefault struct {
	calls  atomic.Int64
	reject map[int]bool
}

func (f *fakeDefault) Init(...validation.Dependency) error { return nil }
func (f *fakeDefault) Validate(_ *common.Block, _ string, pos, _ int, _ ...validation.ContextDatum) error {
	f.calls.Add(1)
	if f.reject[pos] {
		return errors.New("endorsement policy not satisfied")
	}
	return nil
}

type fakeFetcher struct {
	state map[string][]byte
	fail  bool
}

func (f *fakeFetcher) FetchState() (vs.State, error) {
	if f.fail {
		return nil, errors.New("ledger closed")
	}
	return fakeState{f.state}, nil
}

type fakeState struct{ m map[string][]byte }

func (s fakeState) GetStateMultipleKeys(n string, keys []string) ([][]byte, error) {
	out := make([][]byte, len(keys))
	for i, k := range keys {
		out[i] = s.m[n+"/"+k]
	}
	return out, nil
}
func (fakeState) GetStateRangeScanIterator(string, string, string) (vs.ResultsIterator, error) {
	return nil, errors.New("unused")
}
func (fakeState) GetStateMetadata(string, string) (map[string][]byte, error) { return nil, nil }
func (fakeState) GetPrivateDataMetadataByHash(string, string, []byte) (map[string][]byte, error) {
	return nil, nil
}
func (fakeState) Done() {}

type fixture struct {
	block   *common.Block
	invalid map[int]string // position → expected fabvote code
	state   map[string][]byte
}

// mixedBlock: 10 real ballots, broken signatures at the first and last
// position, invalid proofs at 2 and 7, a wrong key at 5, and a transaction of another
// function that writes no ballot.
func mixedBlock(t testing.TB) *fixture {
	f := electiontest.Load()
	m := f.Manifest("e1")
	mraw, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var envs [][]byte
	var bs []*election.Ballot
	voters := make([]*ecdsa.PrivateKey, 10)
	for i := range voters {
		voters[i] = electiontest.NewVoter()
		bs = append(bs, f.Ballot(m, voters[i], i%4))
	}
	inv := map[int]string{}
	for i, b := range bs {
		id := fmt.Sprintf("tx%d", i)
		switch i {
		case 0, 9: // another voter's proof, re-signed: only the proof is wrong
			c, _ := election.ParseBallot(b.Marshal())
			c.Proof = bs[(i+1)%10].Proof
			c.Signature = bs[(i+1)%10].Signature // the signature breaks too …
			inv[i] = election.CodeSignature      // … and is checked first
			envs = append(envs, castEnvelope(id, c.Marshal(), c))
		case 2, 7: // another voter's proof, re-signed by the voter
			c, _ := election.ParseBallot(b.Marshal())
			c.Proof = bs[(i+1)%10].Proof
			if err := c.Sign(voters[i]); err != nil {
				t.Fatal(err)
			}
			inv[i] = election.CodeProof
			envs = append(envs, castEnvelope(id, c.Marshal(), c))
		case 5:
			other := election.LedgerKey(election.ObjBallot, "e1", bs[6].PseudonymHex())
			envs = append(envs, castEnvelopeAt(id, b.Marshal(), b, other))
			inv[i] = "KEY"
		default:
			envs = append(envs, castEnvelope(id, b.Marshal(), b))
		}
	}
	envs = append(envs, envelope("other", [][]byte{[]byte("GetBallot"), []byte("x")}, []*kvrwset.KVRead{{Key: "k"}}, nil))
	return &fixture{
		block:   &common.Block{Header: &common.BlockHeader{Number: 7, DataHash: []byte("h")}, Data: &common.BlockData{Data: envs}},
		invalid: inv,
		state:   map[string][]byte{ns + "/" + election.LedgerKey(election.ObjManifest, "e1"): mraw},
	}
}

func newPlugin(t testing.TB, def *fakeDefault, sf vs.StateFetcher) *Plugin {
	p := Factory{}.New().(*Plugin)
	p.def = def
	if err := p.Init(sf); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestValidateConcurrently: validator goroutines ask for every position at
// once; each gets its own verdict, the default validation runs for every
// transaction and takes precedence, and the block is checked once.
func TestValidateConcurrently(t *testing.T) {
	fx := mixedBlock(t)
	def := &fakeDefault{reject: map[int]bool{3: true}}
	p := newPlugin(t, def, &fakeFetcher{state: fx.state})
	n := len(fx.block.Data.Data)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs[i] = p.Validate(fx.block, ns, i, 0)
		}(i)
	}
	wg.Wait()
	if got := def.calls.Load(); got != int64(n) {
		t.Errorf("default validation ran %d times, want %d", got, n)
	}
	for i, err := range errs {
		switch {
		case i == 3:
			if err == nil || election.CodeOf(err) != "" {
				t.Errorf("tx 3: want the default validation's error, got %v", err)
			}
		case fx.invalid[i] != "":
			if election.CodeOf(err) != fx.invalid[i] {
				t.Errorf("tx %d: got %v, want %s", i, err, fx.invalid[i])
			}
		case err != nil:
			t.Errorf("tx %d: %v", i, err)
		}
	}
	if len(p.jobs) != 1 {
		t.Errorf("%d block jobs, want 1", len(p.jobs))
	}
}

func TestStateFailureFailsTheBlock(t *testing.T) {
	fx := mixedBlock(t)
	p := newPlugin(t, &fakeDefault{}, &fakeFetcher{fail: true})
	err := p.Validate(fx.block, ns, 1, 0)
	var ef *validation.ExecutionFailureError
	if !errors.As(err, &ef) {
		t.Fatalf("got %T %v, want an ExecutionFailureError", err, err)
	}
}

func TestInitNeedsStateFetcher(t *testing.T) {
	p := Factory{}.New().(*Plugin)
	p.def = &fakeDefault{}
	if err := p.Init(); err == nil {
		t.Fatal("Init without a state fetcher succeeded")
	}
}

// FuzzDecodeTx: decoding never panics, and a decoded transaction's
// writes are those of the namespace asked for.
func FuzzDecodeTx(f *testing.F) {
	fx := mixedBlock(f)
	for _, env := range fx.block.Data.Data[:2] {
		f.Add(env)
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, env []byte) {
		tx, err := decodeTx(env, ns)
		if err == nil && tx != nil && tx.TxID == "" && len(tx.Writes) > 0 && tx.Function == "CastBallot" && len(tx.Args) == 0 {
			t.Fatalf("decoded a cast without an argument")
		}
	})
}
