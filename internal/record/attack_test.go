package record_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/internal/audit"
	"github.com/fabvote/fabvote/internal/chain/chaintest"
	"github.com/fabvote/fabvote/internal/record"
	"github.com/fabvote/fabvote/internal/record/recordtest"
	"github.com/hyperledger/fabric-protos-go-apiv2/common"
	"github.com/hyperledger/fabric-protos-go-apiv2/peer"
	"google.golang.org/protobuf/proto"
)

// Attacks by a peer operator who exports a dishonest record without an
// orderer's key, or by a careless one. Each is a regression test.

// TestAttackMergedEnvelopes: the data hash is SHA-256 of the concatenated
// envelopes, so it does not fix where one envelope ends and the next
// begins, and the concatenation of two marshalled envelopes decodes, with
// protobuf's last-one-wins rule, as the second. Merging two data entries
// would drop the first transaction from the record with the header, the
// data hash and the orderer's signature intact (the exporter rewrites the
// unsigned filter and ballots.json to match). A data entry must be
// exactly one envelope: each of its fields at most once.
func TestAttackMergedEnvelopes(t *testing.T) {
	dir := copyRecord(t)
	b := block(t, dir, 3) // ballot 3, a transaction the peer marked invalid, ballot 4
	d := b.Data.Data
	if len(d) != 3 {
		t.Fatalf("block 3 has %d transactions, want 3", len(d))
	}
	b.Data.Data = [][]byte{d[0], append(append([]byte{}, d[1]...), d[2]...)}
	f := b.Metadata.Metadata[2]
	b.Metadata.Metadata[2] = []byte{f[0], f[2]}
	putBlock(t, dir, 3, b)
	editIndex(t, dir, func(es []record.Entry) []record.Entry {
		for i := range es {
			if es[i].Block == 3 && es[i].Index == 2 {
				es[i].Index = 1
			}
		}
		return es
	})
	keep(t, "merged-envelopes", dir)
	rep := verify(t, dir, record.Options{})
	if got := kinds(rep); !reflect.DeepEqual(got, []string{audit.KindBlockChain}) {
		t.Fatalf("kinds %v, want [BLOCK_CHAIN]: a transaction dropped by merging two envelopes; failures: %v", got, rep.Failures)
	}
}

// TestAttackLastBlockMax: lastBlock 2^64−1 with an empty blocks/ made
// lastBlock+1 wrap to 0 = the number of block files, and the block loop
// never end.
func TestAttackLastBlockMax(t *testing.T) {
	dir := copyRecord(t)
	p := filepath.Join(dir, record.RecordFile)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), `"lastBlock":4`, `"lastBlock":18446744073709551615`, 1)
	if s == string(b) {
		t.Fatalf("record.json has no lastBlock 4: %s", b)
	}
	writeFile(t, p, s)
	ents, _ := os.ReadDir(filepath.Join(dir, record.BlocksDir))
	for _, e := range ents {
		os.Remove(filepath.Join(dir, record.BlocksDir, e.Name()))
	}
	done := make(chan *audit.Report, 1)
	go func() {
		rep, err := record.Verify(context.Background(), dir, record.Options{})
		if err != nil {
			t.Error(err)
		}
		done <- rep
	}()
	select {
	case rep := <-done:
		if got := kinds(rep); !reflect.DeepEqual(got, []string{audit.KindRecord}) {
			t.Fatalf("kinds %v, want [RECORD]; failures: %v", got, rep.Failures)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Verify does not end on lastBlock 2^64-1 with no block files")
	}
}

// rechain lays out blocks 1… of each source chain after a genesis block of
// o's organisation, numbered and linked anew and signed by o (an honest
// orderer ordering every transaction it was sent); filter gives each
// transaction's validation code: the exporting peer's word.
func rechain(t *testing.T, o *recordtest.Orderer, filter func(src, n, i int) byte, srcs ...*chaintest.Chain) *chaintest.Chain {
	t.Helper()
	genesis := chaintest.Block(0, nil, chaintest.Tx{Valid: true, Config: true, ConfigData: o.ConfigEnvelope(), Channel: recordtest.Channel})
	c := &chaintest.Chain{Blocks: [][]byte{chaintest.Marshal(genesis)}}
	prev := chaintest.HeaderHash(genesis.Header)
	for si, src := range srcs {
		for n := 1; n < len(src.Blocks); n++ {
			var old common.Block
			if err := proto.Unmarshal(src.Blocks[n], &old); err != nil {
				t.Fatal(err)
			}
			b := &common.Block{Header: &common.BlockHeader{Number: uint64(len(c.Blocks)), PreviousHash: prev, DataHash: chaintest.DataHash(old.Data)},
				Data: old.Data, Metadata: &common.BlockMetadata{Metadata: make([][]byte, 5)}}
			f := make([]byte, len(old.Data.Data))
			for i := range f {
				f[i] = filter(si, n, i)
			}
			b.Metadata.Metadata[common.BlockMetadataIndex_TRANSACTIONS_FILTER] = f
			o.Sign(b, 0)
			prev = chaintest.HeaderHash(b.Header)
			c.Blocks = append(c.Blocks, chaintest.Marshal(b))
		}
	}
	return c
}

// TestAttackFilterFlipFabricatesElection documents a limit of format
// version 1 (RECORD.md section 9): the transactions filter is the
// exporting peer's word, and an orderer orders any transaction a channel
// writer sends it, endorsed or not. A peer organisation that submits a
// whole second election under the same election id (opening, ballots,
// result, with trustee keys of its own) has it ordered; honest peers mark
// it invalid (no endorsement), and an honest record of the channel passes
// with the real election. The same peer's export, with the filter of every
// real transaction flipped to invalid and of every one of its own to
// valid, passes too, with the other manifest and the other result, under
// the same genesis hash.
func TestAttackFilterFlipFabricatesElection(t *testing.T) {
	real, err := recordtest.Build(recordtest.Good)
	if err != nil {
		t.Fatal(err)
	}
	fake, err := recordtest.Build(recordtest.Good)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(real.Source.Manifest, fake.Source.Manifest) || bytes.Equal(real.Source.Result, fake.Source.Result) {
		t.Fatal("two builds gave the same manifest or result")
	}
	o := recordtest.NewOrderer(recordtest.OrdererMSP)
	const invalid = byte(peer.TxValidationCode_ENDORSEMENT_POLICY_FAILURE)
	origCode := func(c *chaintest.Chain, n, i int) byte { // the fixture's own verdict
		return block0(t, c.Blocks[n]).Metadata.Metadata[common.BlockMetadataIndex_TRANSACTIONS_FILTER][i]
	}
	honest := rechain(t, o, func(src, n, i int) byte {
		if src == 0 {
			return origCode(real.Chain, n, i)
		}
		return invalid
	}, real.Chain, fake.Chain)
	dishonest := rechain(t, o, func(src, n, i int) byte {
		if src == 1 {
			return origCode(fake.Chain, n, i)
		}
		return invalid
	}, real.Chain, fake.Chain)
	var genesis []byte
	for _, tc := range []struct {
		name   string
		blocks *chaintest.Chain
		e      *recordtest.Election
	}{{"honest", honest, real}, {"dishonest", dishonest, fake}} {
		src := tc.e.Source
		src.Blocks = tc.blocks
		dir := filepath.Join(t.TempDir(), tc.name)
		if _, err := record.Export(context.Background(), src, dir); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		keep(t, "flip-"+tc.name, dir)
		rep := verify(t, dir, record.Options{GenesisHash: genesis})
		if !rep.OK() {
			t.Fatalf("%s record fails: %v", tc.name, rep.Failures)
		}
		genesis = rep.GenesisHash
		// The published manifest anchors the election: the honest record
		// passes with it, the dishonest one fails.
		anchored := verify(t, dir, record.Options{GenesisHash: genesis, Manifest: real.Source.Manifest})
		if got := kinds(anchored); anchored.OK() != (tc.name == "honest") || (tc.name == "dishonest" && !slices.Equal(got, []string{audit.KindManifest})) {
			t.Fatalf("%s record with the published manifest: ok %v, kinds %v", tc.name, anchored.OK(), got)
		}
	}
}

func block0(t *testing.T, raw []byte) *common.Block {
	t.Helper()
	var b common.Block
	if err := proto.Unmarshal(raw, &b); err != nil {
		t.Fatal(err)
	}
	return &b
}

// TestAttackFiles: a careless operator's (or a dishonest one's) files.
func TestAttackFiles(t *testing.T) {
	cases := []struct {
		name   string
		tamper func(t *testing.T, dir string)
		kinds  []string
	}{
		{"block file a symlink to another", func(t *testing.T, d string) {
			p := filepath.Join(d, record.BlockFile(3))
			os.Remove(p)
			if err := os.Symlink(filepath.Join(d, record.BlockFile(2)), p); err != nil {
				t.Fatal(err)
			}
		}, []string{audit.KindRecord}},
		{"blocks/ a symlink", func(t *testing.T, d string) {
			b := filepath.Join(d, record.BlocksDir)
			if err := os.Rename(b, b+".real"); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(b+".real", b); err != nil {
				t.Fatal(err)
			}
		}, []string{audit.KindRecord}},
		{"lastBlock before the last block file", func(t *testing.T, d string) {
			editRecordJSON(t, d, `"lastBlock":4`, `"lastBlock":3`)
		}, []string{audit.KindRecord}},
		{"gzip with trailing garbage", func(t *testing.T, d string) {
			appendToFile(t, filepath.Join(d, record.BlockFile(2)), []byte("x"))
		}, []string{audit.KindBlockChain}},
		{"gzip padded with NUL bytes", func(t *testing.T, d string) {
			appendToFile(t, filepath.Join(d, record.BlockFile(2)), make([]byte, 16))
		}, []string{audit.KindBlockChain}},
		{"block file of two gzip members", func(t *testing.T, d string) {
			raw := rawBlock(t, d, 2)
			putRaw(t, d, 2, raw[:100])
			p := filepath.Join(d, record.BlockFile(2))
			gz, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			putRaw(t, d, 2, raw[100:])
			appendToFile(t, p, nil)
			rest, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, append(gz, rest...), 0o644); err != nil {
				t.Fatal(err)
			}
		}, []string{}},
		{"COMMIT_HASH metadata not a Metadata", func(t *testing.T, d string) {
			b := block(t, d, 2)
			b.Metadata.Metadata[common.BlockMetadataIndex_COMMIT_HASH] = []byte{0xff}
			putBlock(t, d, 2, b)
		}, []string{audit.KindBlockChain}}, // RECORD.md 5.1
		{"LAST_CONFIG and ORDERER metadata garbage", func(t *testing.T, d string) {
			b := block(t, d, 2)
			b.Metadata.Metadata[common.BlockMetadataIndex_LAST_CONFIG] = []byte{0xff}
			b.Metadata.Metadata[common.BlockMetadataIndex_ORDERER] = []byte{0xff}
			putBlock(t, d, 2, b)
		}, []string{}},
		{"record.json key in another case", func(t *testing.T, d string) {
			// Go's encoding/json matches keys case-insensitively; the
			// schema (and a Python reader) does not.
			editRecordJSON(t, d, `"lastBlock":4`, `"lastBlock":4,"LastBlock":4`)
		}, []string{audit.KindRecord}},
		{"ballots.json key in another case", func(t *testing.T, d string) {
			p := filepath.Join(d, record.BallotsFile)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			s := strings.Replace(string(b), `"txID":`, `"TxID":`, 1)
			writeFile(t, p, s)
		}, []string{audit.KindRecord}},
		{"record.json not UTF-8", func(t *testing.T, d string) {
			editRecordJSON(t, d, `"chaincode":"ballot"`, "\"chaincode\":\"ballot\xff\"")
		}, []string{audit.KindRecord}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyRecord(t)
			tc.tamper(t, dir)
			keep(t, "files-"+strings.ReplaceAll(tc.name, " ", "-"), dir)
			rep := verify(t, dir, record.Options{})
			if got := kinds(rep); !reflect.DeepEqual(got, tc.kinds) {
				t.Fatalf("kinds %v, want %v; failures: %v", got, tc.kinds, rep.Failures)
			}
		})
	}
}

func editRecordJSON(t *testing.T, dir, old, new string) {
	t.Helper()
	p := filepath.Join(dir, record.RecordFile)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), old, new, 1)
	if s == string(b) {
		t.Fatalf("record.json has no %s: %s", old, b)
	}
	writeFile(t, p, s)
}

func appendToFile(t *testing.T, p string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestAttackHiddenValidBallot: the exporter marks a counted ballot
// invalid and drops it from ballots.json. The index agrees with the
// blocks, but the result no longer matches the ballots.
func TestAttackHiddenValidBallot(t *testing.T) {
	dir := copyRecord(t)
	b := block(t, dir, 2)
	b.Metadata.Metadata[common.BlockMetadataIndex_TRANSACTIONS_FILTER][0] = byte(peer.TxValidationCode_MVCC_READ_CONFLICT)
	putBlock(t, dir, 2, b)
	editIndex(t, dir, func(es []record.Entry) []record.Entry {
		out := es[:0]
		for _, e := range es {
			if e.Block != 2 || e.Index != 0 {
				out = append(out, e)
			}
		}
		if len(out) != len(es)-1 {
			t.Fatal("no entry at block 2, index 0")
		}
		return out
	})
	rep := verify(t, dir, record.Options{})
	if rep.OK() {
		t.Fatal("a counted ballot hidden by the filter passes")
	}
	for _, k := range kinds(rep) {
		if k != audit.KindResult && k != audit.KindResultCount && k != audit.KindResultProduct {
			t.Fatalf("kinds %v, want result kinds only; failures: %v", kinds(rep), rep.Failures)
		}
	}
}

// TestAttackUndecodableInvalidTx: any channel writer can have ordered an
// endorser transaction whose payload data is no peer.Transaction (the
// orderer does not read it), and every peer marks it invalid. Its writes
// never reached the state, so the record exports and verifies (RECORD.md
// 5.1); the same blocks with that transaction marked VALID fail as
// BLOCK_CHAIN, and the exporter refuses to write them.
func TestAttackUndecodableInvalidTx(t *testing.T) {
	real, err := recordtest.Build(recordtest.Good)
	if err != nil {
		t.Fatal(err)
	}
	ch := chaintest.Marshal(&common.ChannelHeader{Type: int32(common.HeaderType_ENDORSER_TRANSACTION), ChannelId: recordtest.Channel, TxId: "junk"})
	junk := chaintest.Marshal(&common.Envelope{Payload: chaintest.Marshal(&common.Payload{Header: &common.Header{ChannelHeader: ch}, Data: []byte{0xff}})})
	b3 := block0(t, real.Chain.Blocks[3])
	b3.Data.Data = append(b3.Data.Data, junk)
	real.Chain.Blocks[3] = chaintest.Marshal(b3)
	o := recordtest.NewOrderer(recordtest.OrdererMSP)
	junkMarked := func(code peer.TxValidationCode) *chaintest.Chain {
		return rechain(t, o, func(_, n, i int) byte {
			switch {
			case n == 3 && i == 1: // the fixture's stray ballot
				return byte(peer.TxValidationCode_MVCC_READ_CONFLICT)
			case n == 3 && i == 3:
				return byte(code)
			}
			return 0
		}, real.Chain)
	}
	src := real.Source
	src.Blocks = junkMarked(peer.TxValidationCode_BAD_PAYLOAD)
	dir := filepath.Join(t.TempDir(), "rec")
	if _, err := record.Export(context.Background(), src, dir); err != nil {
		t.Fatalf("export of a chain with an undecodable invalid transaction: %v", err)
	}
	keep(t, "undecodable-invalid-tx", dir)
	if got := kinds(verify(t, dir, record.Options{})); !reflect.DeepEqual(got, []string{}) {
		t.Fatalf("marked invalid: kinds %v, want none", got)
	}

	valid := junkMarked(peer.TxValidationCode_VALID)
	src.Blocks = valid
	if _, err := record.Export(context.Background(), src, filepath.Join(t.TempDir(), "rec")); err == nil {
		t.Fatal("the export of a chain with an undecodable VALID transaction succeeds")
	}
	for n, raw := range valid.Blocks {
		putRaw(t, dir, uint64(n), raw)
	}
	keep(t, "undecodable-valid-tx", dir)
	if got := kinds(verify(t, dir, record.Options{})); !reflect.DeepEqual(got, []string{audit.KindBlockChain}) {
		t.Fatalf("marked valid: kinds %v, want [BLOCK_CHAIN]", got)
	}
}

// keep copies the record in dir to $ATTACK_OUT/name when that is set, for
// running another verifier on it.
func keep(t *testing.T, name, dir string) {
	out := os.Getenv("ATTACK_OUT")
	if out == "" {
		return
	}
	dst := filepath.Join(out, name)
	os.RemoveAll(dst)
	if err := os.CopyFS(dst, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
}

// TestAttackUnreadFieldNotUTF8: a transaction whose chaincode response
// message (a field no verifier needs) is not UTF-8. Go's protobuf refuses
// the whole ChaincodeAction: marked VALID, the record fails (RECORD.md 5.1:
// every field of a valid transaction must decode), and a verifier that
// decodes only the fields it reads would pass it; marked invalid, its
// endorser transaction is not decoded and the record passes.
func TestAttackUnreadFieldNotUTF8(t *testing.T) {
	real, err := recordtest.Build(recordtest.Good)
	if err != nil {
		t.Fatal(err)
	}
	o := recordtest.NewOrderer(recordtest.OrdererMSP)
	code := func(c *chaintest.Chain) func(_, n, i int) byte {
		return func(_, n, i int) byte {
			f := block0(t, c.Blocks[n]).Metadata.Metadata[common.BlockMetadataIndex_TRANSACTIONS_FILTER]
			if i < len(f) {
				return f[i]
			}
			return byte(peer.TxValidationCode_ENDORSEMENT_POLICY_FAILURE)
		}
	}
	dir := filepath.Join(t.TempDir(), "rec")
	src := real.Source
	src.Blocks = rechain(t, o, code(real.Chain), real.Chain)
	if _, err := record.Export(context.Background(), src, dir); err != nil {
		t.Fatal(err)
	}
	// The same chain with one more transaction at the end of block 3.
	ca := chaintest.Marshal(&peer.ChaincodeAction{Results: []byte{}, Response: &peer.Response{Status: 200, Message: "ZZZZ"}})
	i := bytes.Index(ca, []byte("ZZZZ"))
	ca[i] = 0xff
	prp := chaintest.Marshal(&peer.ProposalResponsePayload{Extension: ca})
	cap := chaintest.Marshal(&peer.ChaincodeActionPayload{Action: &peer.ChaincodeEndorsedAction{ProposalResponsePayload: prp}})
	tx := chaintest.Marshal(&peer.Transaction{Actions: []*peer.TransactionAction{{Payload: cap}}})
	ch := chaintest.Marshal(&common.ChannelHeader{Type: int32(common.HeaderType_ENDORSER_TRANSACTION), ChannelId: recordtest.Channel, TxId: "odd"})
	env := chaintest.Marshal(&common.Envelope{Payload: chaintest.Marshal(&common.Payload{Header: &common.Header{ChannelHeader: ch}, Data: tx})})
	orig := &chaintest.Chain{Blocks: slices.Clone(real.Chain.Blocks)}
	b3 := block0(t, real.Chain.Blocks[3])
	b3.Data.Data = append(b3.Data.Data, env)
	real.Chain.Blocks[3] = chaintest.Marshal(b3)
	for _, tc := range []struct {
		name      string
		code      byte
		wantKinds []string
	}{
		{"marked-invalid", byte(peer.TxValidationCode_ENDORSEMENT_POLICY_FAILURE), []string{}},
		{"marked-valid", byte(peer.TxValidationCode_VALID), []string{audit.KindBlockChain}},
	} {
		inner := code(orig)
		c := rechain(t, o, func(src, n, i int) byte {
			if n == 3 && i == len(block0(t, orig.Blocks[3]).Data.Data) {
				return tc.code
			}
			return inner(src, n, i)
		}, real.Chain)
		for n, raw := range c.Blocks {
			putRaw(t, dir, uint64(n), raw)
		}
		keep(t, "unread-field-not-utf8-"+tc.name, dir)
		rep := verify(t, dir, record.Options{})
		if got := kinds(rep); !reflect.DeepEqual(got, tc.wantKinds) {
			t.Fatalf("%s: kinds %v, want %v; failures: %v", tc.name, got, tc.wantKinds, rep.Failures)
		}
	}
}

// TestAttackSigners: who may sign a block, and a configuration that rides
// along with other transactions.
func TestAttackSigners(t *testing.T) {
	a := recordtest.NewOrderer(recordtest.OrdererMSP)
	tx := chaintest.Tx{ID: "tx", Valid: true, Writes: []string{"other/k=v"}}
	// A client (not an orderer) certificate of the orderer organisation's
	// CA: Fabric's default BlockValidation policy (ANY Writers, Writers =
	// OR('OrdererMSP.member')) accepts it, and so does RECORD.md 5.2.
	client := *a
	client.Key = genKeyForTest(t)
	client.CertPEM = a.Issue("client."+a.MSPID, &client.Key.PublicKey)
	if got := blockKinds(t, signedChain(a, step{tx, &client, 0})); !reflect.DeepEqual(got, []string{}) {
		t.Fatalf("signed by a non-orderer certificate of the orderer organisation: kinds %v, want []", got)
	}
	// A peer organisation's certificate presented under the orderer MSP id.
	peerOrg := recordtest.NewOrderer(recordtest.OrdererMSP)
	if got := blockKinds(t, signedChain(a, step{tx, peerOrg, 0})); !reflect.DeepEqual(got, []string{"BLOCK_SIGNATURE"}) {
		t.Fatalf("signed by another CA's certificate under the orderer MSP id: kinds %v", got)
	}
	// A CONFIG transaction that swaps the orderer CA, in a block with
	// another transaction.
	b := recordtest.NewOrderer(recordtest.OrdererMSP)
	c := signedChain(a)
	g := block0(t, c.Blocks[0])
	blk := chaintest.Block(1, chaintest.HeaderHash(g.Header), tx, chaintest.Tx{Valid: true, Config: true, ConfigData: b.ConfigEnvelope()})
	a.Sign(blk, 1)
	c.Blocks = append(c.Blocks, chaintest.Marshal(blk))
	if got := blockKinds(t, c); !reflect.DeepEqual(got, []string{"BLOCK_CHAIN"}) {
		t.Fatalf("a CONFIG transaction sharing its block: kinds %v, want [BLOCK_CHAIN]", got)
	}
}

func genKeyForTest(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}
