package ballot

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hyperledger/fabric-chaincode-go/v2/shim"

	"github.com/fabvote/fabvote/election/electiontest"
	"github.com/hyperledger/fabric-contract-api-go/v2/contractapi"
	"github.com/hyperledger/fabric-protos-go-apiv2/ledger/queryresult"
	"github.com/hyperledger/fabric-protos-go-apiv2/msp"
	"github.com/hyperledger/fabric-protos-go-apiv2/peer"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// world is a fake ledger: committed state shared by the transactions (stubs)
// that run against it. Like Fabric, a transaction's writes are buffered and
// reach the state only if the transaction succeeds (commit).
type world struct {
	mu    sync.RWMutex
	state map[string][]byte
}

func newWorld() *world { return &world{state: map[string][]byte{}} }

func (w *world) snapshot() map[string][]byte {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return maps.Clone(w.state)
}

func (w *world) get(k string) []byte {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.state[k]
}

// stub is one transaction's view: embeds the shim interface (calling an
// unimplemented method panics, which a test would report) and implements
// what the contract uses.
type stub struct {
	shim.ChaincodeStubInterface
	w       *world
	txID    string
	channel string
	ts      *timestamppb.Timestamp
	creator []byte
	fn      string
	args    []string

	reads  []string // point reads
	ranges int      // range queries
	writes map[string][]byte
	events []string
}

var txSeq struct {
	sync.Mutex
	n int
}

func (w *world) tx(at time.Time) *stub {
	txSeq.Lock()
	txSeq.n++
	n := txSeq.n
	txSeq.Unlock()
	return &stub{
		w: w, txID: fmt.Sprintf("%064x", n),
		channel: electiontest.Channel, ts: timestamppb.New(at), writes: map[string][]byte{},
	}
}

// commit applies the buffered writes (what a valid transaction does).
func (s *stub) commit() {
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	for k, v := range s.writes {
		s.w.state[k] = v
	}
}

func (s *stub) GetTxID() string      { return s.txID }
func (s *stub) GetChannelID() string { return s.channel }
func (s *stub) GetTxTimestamp() (*timestamppb.Timestamp, error) {
	if s.ts == nil {
		return nil, errors.New("no timestamp")
	}
	return s.ts, nil
}
func (s *stub) GetCreator() ([]byte, error) { return s.creator, nil }
func (s *stub) GetFunctionAndParameters() (string, []string) {
	return s.fn, s.args
}
func (s *stub) GetArgs() [][]byte {
	out := [][]byte{[]byte(s.fn)}
	for _, a := range s.args {
		out = append(out, []byte(a))
	}
	return out
}
func (s *stub) GetStringArgs() []string { return append([]string{s.fn}, s.args...) }

func (s *stub) GetState(k string) ([]byte, error) {
	s.reads = append(s.reads, k)
	return s.w.get(k), nil
}

func (s *stub) PutState(k string, v []byte) error {
	if k == "" {
		return errors.New("empty key")
	}
	s.writes[k] = append([]byte(nil), v...)
	return nil
}

func (s *stub) SetEvent(name string, payload []byte) error {
	s.events = append(s.events, name)
	return nil
}

func (s *stub) CreateCompositeKey(obj string, attrs []string) (string, error) {
	return shim.CreateCompositeKey(obj, attrs)
}

func (s *stub) SplitCompositeKey(k string) (string, []string, error) {
	if len(k) < 2 || k[0] != 0 || k[len(k)-1] != 0 {
		return "", nil, errors.New("not a composite key")
	}
	parts := strings.Split(k[1:len(k)-1], "\x00")
	return parts[0], parts[1:], nil
}

// keysWithPrefix returns the committed keys of a partial composite key, sorted.
func (s *stub) keysWithPrefix(obj string, attrs []string) ([]string, error) {
	prefix, err := shim.CreateCompositeKey(obj, attrs)
	if err != nil {
		return nil, err
	}
	s.ranges++
	s.w.mu.RLock()
	defer s.w.mu.RUnlock()
	var keys []string
	for k := range s.w.state {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys, nil
}

func (s *stub) iter(keys []string) *iterator {
	it := &iterator{}
	for _, k := range keys {
		it.kvs = append(it.kvs, &queryresult.KV{Key: k, Value: s.w.get(k)})
	}
	return it
}

func (s *stub) GetStateByPartialCompositeKey(obj string, attrs []string) (shim.StateQueryIteratorInterface, error) {
	keys, err := s.keysWithPrefix(obj, attrs)
	if err != nil {
		return nil, err
	}
	return s.iter(keys), nil
}

// Pagination as in Fabric's LevelDB: the bookmark is the first key of the
// next page ("" when there is none).
func (s *stub) GetStateByPartialCompositeKeyWithPagination(obj string, attrs []string, size int32, bookmark string) (shim.StateQueryIteratorInterface, *peer.QueryResponseMetadata, error) {
	keys, err := s.keysWithPrefix(obj, attrs)
	if err != nil {
		return nil, nil, err
	}
	start := 0
	if bookmark != "" {
		start, _ = slices.BinarySearch(keys, bookmark)
	}
	end := min(start+int(size), len(keys))
	next := ""
	if end < len(keys) {
		next = keys[end]
	}
	return s.iter(keys[start:end]), &peer.QueryResponseMetadata{FetchedRecordsCount: int32(end - start), Bookmark: next}, nil
}

type iterator struct {
	kvs []*queryresult.KV
	i   int
}

func (it *iterator) HasNext() bool { return it.i < len(it.kvs) }
func (it *iterator) Next() (*queryresult.KV, error) {
	if !it.HasNext() {
		return nil, errors.New("no more")
	}
	it.i++
	return it.kvs[it.i-1], nil
}
func (it *iterator) Close() error { return nil }

// identity is a fake client identity with a given MSP id.
type identity struct{ msp string }

func (i identity) GetID() (string, error)                         { return "x509::CN=test::CN=ca", nil }
func (i identity) GetMSPID() (string, error)                      { return i.msp, nil }
func (i identity) GetAttributeValue(string) (string, bool, error) { return "", false, nil }
func (i identity) AssertAttributeValue(string, string) error      { return errors.New("no attributes") }
func (i identity) GetX509Certificate() (*x509.Certificate, error) { return nil, nil }

// txctx builds a transaction context for a direct call of a contract method.
func txctx(s *stub, msp string) *contractapi.TransactionContext {
	ctx := &contractapi.TransactionContext{}
	ctx.SetStub(s)
	if msp != "" {
		ctx.SetClientIdentity(identity{msp})
	}
	return ctx
}

// creatorFor returns a serialized Fabric identity of mspID with a fresh
// self-signed certificate, as the peer would pass it (GetCreator).
func creatorFor(t testing.TB, mspID string) []byte {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "client"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	b, err := proto.Marshal(&msp.SerializedIdentity{
		Mspid:   mspID,
		IdBytes: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}
