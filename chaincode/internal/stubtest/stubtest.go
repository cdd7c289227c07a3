// Package stubtest is the in-memory chaincode stub of the test chaincodes'
// unit tests (kvtransfer, delaywork): committed state in a map and a
// transaction's writes buffered until End, as in Fabric, where a transaction
// does not read its own writes. Only the methods those contracts call are
// implemented; any other call panics on the nil embedded interface.
package stubtest

import (
	"sort"

	"github.com/hyperledger/fabric-chaincode-go/v2/shim"
	"github.com/hyperledger/fabric-contract-api-go/v2/contractapi"
	"github.com/hyperledger/fabric-protos-go-apiv2/ledger/queryresult"
)

// Stub is the fake stub.
type Stub struct {
	shim.ChaincodeStubInterface
	State   map[string][]byte // committed
	Pending map[string][]byte // written by the transaction in progress
	Reads   int               // GetState calls
}

// New returns a stub with empty state.
func New() *Stub {
	return &Stub{State: map[string][]byte{}, Pending: map[string][]byte{}}
}

// Context returns a transaction context around s.
func (s *Stub) Context() contractapi.TransactionContextInterface {
	ctx := &contractapi.TransactionContext{}
	ctx.SetStub(s)
	return ctx
}

// GetState reads committed state.
func (s *Stub) GetState(key string) ([]byte, error) {
	s.Reads++
	return s.State[key], nil
}

// PutState buffers a write until End.
func (s *Stub) PutState(key string, v []byte) error {
	s.Pending[key] = append([]byte(nil), v...)
	return nil
}

// GetStateByRange iterates committed state in [start, end), in key order.
func (s *Stub) GetStateByRange(start, end string) (shim.StateQueryIteratorInterface, error) {
	var keys []string
	for k := range s.State {
		if k >= start && k < end {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	it := &iter{}
	for _, k := range keys {
		it.kvs = append(it.kvs, &queryresult.KV{Key: k, Value: s.State[k]})
	}
	return it, nil
}

// End commits the buffered writes of a successful transaction and drops
// those of a failed one.
func (s *Stub) End(ok bool) {
	if ok {
		for k, v := range s.Pending {
			s.State[k] = v
		}
	}
	s.Pending = map[string][]byte{}
}

type iter struct {
	kvs []*queryresult.KV
	i   int
}

func (it *iter) HasNext() bool { return it.i < len(it.kvs) }

func (it *iter) Next() (*queryresult.KV, error) {
	it.i++
	return it.kvs[it.i-1], nil
}

func (it *iter) Close() error { return nil }
