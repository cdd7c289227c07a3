package kvtransfer

import (
	"errors"
	"sort"
	"testing"

	"github.com/hyperledger/fabric-chaincode-go/v2/shim"
	"github.com/hyperledger/fabric-contract-api-go/v2/contractapi"
	"github.com/hyperledger/fabric-protos-go-apiv2/ledger/queryresult"
)

// fakeStub keeps committed state in a map and buffers a transaction's writes,
// like Fabric: a transaction does not read its own writes. Only the methods the
// contract calls are implemented; any other call panics on the nil interface.
type fakeStub struct {
	shim.ChaincodeStubInterface
	state   map[string][]byte
	pending map[string][]byte
}

func newFakeStub() *fakeStub {
	return &fakeStub{state: map[string][]byte{}, pending: map[string][]byte{}}
}

func (s *fakeStub) GetState(key string) ([]byte, error) { return s.state[key], nil }

func (s *fakeStub) PutState(key string, v []byte) error {
	s.pending[key] = append([]byte(nil), v...)
	return nil
}

func (s *fakeStub) GetStateByRange(start, end string) (shim.StateQueryIteratorInterface, error) {
	var keys []string
	for k := range s.state {
		if k >= start && k < end {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	it := &fakeIter{}
	for _, k := range keys {
		it.kvs = append(it.kvs, &queryresult.KV{Key: k, Value: s.state[k]})
	}
	return it, nil
}

// commit applies the buffered writes (after a successful transaction) or drops them.
func (s *fakeStub) end(ok bool) {
	if ok {
		for k, v := range s.pending {
			s.state[k] = v
		}
	}
	s.pending = map[string][]byte{}
}

type fakeIter struct {
	kvs []*queryresult.KV
	i   int
}

func (it *fakeIter) HasNext() bool { return it.i < len(it.kvs) }
func (it *fakeIter) Next() (*queryresult.KV, error) {
	it.i++
	return it.kvs[it.i-1], nil
}
func (it *fakeIter) Close() error { return nil }

func ctxFor(s *fakeStub) contractapi.TransactionContextInterface {
	ctx := &contractapi.TransactionContext{}
	ctx.SetStub(s)
	return ctx
}

func TestInit(t *testing.T) {
	tests := []struct {
		name    string
		n       int
		amount  int64
		wantErr error
		total   int64
	}{
		{"ten accounts", 10, 100, nil, 1000},
		{"one account", 1, 7, nil, 7},
		{"zero accounts", 0, 7, ErrBadArgument, 0},
		{"too many", MaxAccounts + 1, 1, ErrBadArgument, 0},
		{"negative amount", 3, -1, ErrBadArgument, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newFakeStub()
			c := &Contract{}
			err := c.Init(ctxFor(s), tc.n, tc.amount)
			s.end(err == nil)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Init error = %v, want %v", err, tc.wantErr)
			}
			got, err := c.Total(ctxFor(s))
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.total {
				t.Fatalf("Total = %d, want %d", got, tc.total)
			}
		})
	}
}

func TestInitTwice(t *testing.T) {
	s := newFakeStub()
	c := &Contract{}
	if err := c.Init(ctxFor(s), 2, 5); err != nil {
		t.Fatal(err)
	}
	s.end(true)
	err := c.Init(ctxFor(s), 2, 5)
	if !errors.Is(err, ErrExists) {
		t.Fatalf("second Init error = %v, want %v", err, ErrExists)
	}
}

func TestTransfer(t *testing.T) {
	tests := []struct {
		name     string
		from, to string
		amount   int64
		wantErr  error
		fromBal  int64
		toBal    int64
	}{
		{"move 30", AccountKey(0), AccountKey(1), 30, nil, 70, 130},
		{"move all", AccountKey(0), AccountKey(1), 100, nil, 0, 200},
		{"overdraw", AccountKey(0), AccountKey(1), 101, ErrInsufficient, 100, 100},
		{"zero", AccountKey(0), AccountKey(1), 0, ErrBadArgument, 100, 100},
		{"negative", AccountKey(0), AccountKey(1), -5, ErrBadArgument, 100, 100},
		{"self", AccountKey(0), AccountKey(0), 5, ErrBadArgument, 100, 100},
		{"unknown from", "acct999999", AccountKey(1), 5, ErrNoAccount, 100, 100},
		{"unknown to", AccountKey(0), "nobody", 5, ErrNoAccount, 100, 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newFakeStub()
			c := &Contract{}
			if err := c.Init(ctxFor(s), 3, 100); err != nil {
				t.Fatal(err)
			}
			s.end(true)
			err := c.Transfer(ctxFor(s), tc.from, tc.to, tc.amount)
			s.end(err == nil)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Transfer error = %v, want %v", err, tc.wantErr)
			}
			got, err := c.ReadMany(ctxFor(s), []string{AccountKey(0)})
			if err != nil || got != tc.fromBal {
				t.Fatalf("from balance = %d (%v), want %d", got, err, tc.fromBal)
			}
			got, err = c.ReadMany(ctxFor(s), []string{AccountKey(1)})
			if err != nil || got != tc.toBal {
				t.Fatalf("to balance = %d (%v), want %d", got, err, tc.toBal)
			}
			total, err := c.Total(ctxFor(s))
			if err != nil || total != 300 {
				t.Fatalf("Total = %d (%v), want 300", total, err)
			}
		})
	}
}

func TestReadMany(t *testing.T) {
	s := newFakeStub()
	c := &Contract{}
	if err := c.Init(ctxFor(s), 4, 25); err != nil {
		t.Fatal(err)
	}
	s.end(true)
	s.state["acct000003"] = []byte("x1")
	tests := []struct {
		name    string
		keys    []string
		want    int64
		wantErr error
	}{
		{"two", []string{AccountKey(0), AccountKey(1)}, 50, nil},
		{"three", []string{AccountKey(0), AccountKey(1), AccountKey(2)}, 75, nil},
		{"none", nil, 0, ErrBadArgument},
		{"missing", []string{AccountKey(0), "acct000777"}, 0, ErrNoAccount},
		{"empty name", []string{""}, 0, ErrBadArgument},
		{"corrupt", []string{AccountKey(3)}, 0, ErrCorruptBalance},
		{"too many", make([]string, MaxReadMany+1), 0, ErrBadArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := c.ReadMany(ctxFor(s), tc.keys)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("ReadMany error = %v, want %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Fatalf("ReadMany = %d, want %d", got, tc.want)
			}
		})
	}
	if _, err := c.Total(ctxFor(s)); !errors.Is(err, ErrCorruptBalance) {
		t.Fatalf("Total over a corrupt balance: error = %v, want %v", err, ErrCorruptBalance)
	}
}

func TestNewExposesFunctions(t *testing.T) {
	cc, err := New()
	if err != nil {
		t.Fatal(err)
	}
	if cc.Info.Title != "kvtransfer" {
		t.Fatalf("title = %q", cc.Info.Title)
	}
}
