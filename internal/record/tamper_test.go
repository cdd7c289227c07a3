package record_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/elliptic"
	"encoding/asn1"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/fabvote/fabvote/internal/audit"
	"github.com/fabvote/fabvote/internal/chain"
	"github.com/fabvote/fabvote/internal/chain/chaintest"
	"github.com/fabvote/fabvote/internal/record"
	"github.com/fabvote/fabvote/internal/record/recordtest"
	"github.com/hyperledger/fabric-protos-go-apiv2/common"
	"google.golang.org/protobuf/proto"
)

const goodFixture = fixturesDir + "/good"

// copyRecord copies the good fixture into a fresh directory.
func copyRecord(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "rec")
	recordtest.CopyDir(t, goodFixture, dst)
	return dst
}

func rawBlock(t *testing.T, dir string, n uint64) []byte {
	t.Helper()
	raw, err := (&record.Dir{Path: dir, LastBlock: n}).Block(context.Background(), n)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func block(t *testing.T, dir string, n uint64) *common.Block {
	t.Helper()
	var b common.Block
	if err := proto.Unmarshal(rawBlock(t, dir, n), &b); err != nil {
		t.Fatal(err)
	}
	return &b
}

func putRaw(t *testing.T, dir string, n uint64, raw []byte) {
	t.Helper()
	if err := record.WriteBlockFile(dir, n, raw); err != nil {
		t.Fatal(err)
	}
}

func putBlock(t *testing.T, dir string, n uint64, b *common.Block) {
	putRaw(t, dir, n, chaintest.Marshal(b))
}

func editIndex(t *testing.T, dir string, edit func([]record.Entry) []record.Entry) {
	t.Helper()
	p := filepath.Join(dir, record.BallotsFile)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	es, err := record.ParseBallotIndex(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, record.MarshalBallotIndex(edit(es)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// flipInBallot flips one byte in the middle of the first ballot of block 2,
// in the block's own bytes: the orderer's data hash no longer covers it.
func flipInBallot(t *testing.T, dir string) {
	raw := rawBlock(t, dir, 2)
	b, err := chain.ParseBlock(raw)
	if err != nil {
		t.Fatal(err)
	}
	v := b.Txs[0].Writes[0].Value
	i := bytes.Index(raw, v)
	if i < 0 {
		t.Fatal("ballot not found in block 2")
	}
	raw[i+len(v)/2] ^= 0x01
	putRaw(t, dir, 2, raw)
}

// highS replaces block 3's signature by its other valid form (n − s).
func highS(t *testing.T, dir string) {
	b := block(t, dir, 3)
	var md common.Metadata
	if err := proto.Unmarshal(b.Metadata.Metadata[0], &md); err != nil {
		t.Fatal(err)
	}
	var rs struct{ R, S *big.Int }
	if _, err := asn1.Unmarshal(md.Signatures[0].Signature, &rs); err != nil {
		t.Fatal(err)
	}
	rs.S.Sub(elliptic.P256().Params().N, rs.S)
	sig, err := asn1.Marshal(rs)
	if err != nil {
		t.Fatal(err)
	}
	md.Signatures[0].Signature = sig
	b.Metadata.Metadata[0] = chaintest.Marshal(&md)
	putBlock(t, dir, 3, b)
}

// TestTamper changes a copy of the good record at the file level; each
// change must give exactly its kinds.
func TestTamper(t *testing.T) {
	cases := []struct {
		name   string
		tamper func(t *testing.T, dir string)
		opts   record.Options
		kinds  []string
	}{
		{"untouched", func(*testing.T, string) {}, record.Options{}, []string{}},
		{"byte flipped in a ballot", flipInBallot, record.Options{}, []string{audit.KindBlockChain}},
		{"ballot removed from the index", func(t *testing.T, d string) {
			editIndex(t, d, func(es []record.Entry) []record.Entry { return es[1:] })
		}, record.Options{}, []string{audit.KindRecordBallots}},
		{"ballot added to the index", func(t *testing.T, d string) {
			editIndex(t, d, func(es []record.Entry) []record.Entry {
				e := es[len(es)-1]
				e.Pseudonym = strings.Repeat("f", 64)
				return append(es, e)
			})
		}, record.Options{}, []string{audit.KindRecordBallots}},
		{"ballot hash changed in the index", func(t *testing.T, d string) {
			editIndex(t, d, func(es []record.Entry) []record.Entry { es[0].BallotHash = strings.Repeat("0", 64); return es })
		}, record.Options{}, []string{audit.KindRecordBallots}},
		{"ballot place changed in the index", func(t *testing.T, d string) {
			editIndex(t, d, func(es []record.Entry) []record.Entry { es[0].Index++; return es })
		}, record.Options{}, []string{audit.KindRecordBallots}},
		{"index unsorted", func(t *testing.T, d string) {
			editIndex(t, d, func(es []record.Entry) []record.Entry { es[0], es[1] = es[1], es[0]; return es })
		}, record.Options{}, []string{audit.KindRecord}},
		{"block file removed", func(t *testing.T, d string) {
			os.Remove(filepath.Join(d, record.BlockFile(2)))
		}, record.Options{}, []string{audit.KindRecord}},
		{"last block file removed", func(t *testing.T, d string) {
			os.Remove(filepath.Join(d, record.BlockFile(4)))
		}, record.Options{}, []string{audit.KindRecord}},
		{"two blocks swapped", func(t *testing.T, d string) {
			b2, b3 := rawBlock(t, d, 2), rawBlock(t, d, 3)
			putRaw(t, d, 2, b3)
			putRaw(t, d, 3, b2)
		}, record.Options{}, []string{audit.KindBlockChain}},
		{"signature of another block", func(t *testing.T, d string) {
			b2, b3 := block(t, d, 2), block(t, d, 3)
			b3.Metadata.Metadata[0] = b2.Metadata.Metadata[0]
			putBlock(t, d, 3, b3)
		}, record.Options{}, []string{audit.KindBlockSignature}},
		{"signed by an orderer of another CA", func(t *testing.T, d string) {
			b := block(t, d, 2)
			recordtest.NewOrderer(recordtest.OrdererMSP).Sign(b, 0)
			putBlock(t, d, 2, b)
		}, record.Options{}, []string{audit.KindBlockSignature}},
		{"signature with a high S", highS, record.Options{}, []string{audit.KindBlockSignature}},
		{"signature removed", func(t *testing.T, d string) {
			b := block(t, d, 4)
			b.Metadata.Metadata[0] = nil
			putBlock(t, d, 4, b)
		}, record.Options{}, []string{audit.KindBlockSignature}},
		{"unknown file", func(t *testing.T, d string) {
			writeFile(t, filepath.Join(d, "notes.txt"), "hello")
		}, record.Options{}, []string{audit.KindRecord}},
		{"unknown file in blocks", func(t *testing.T, d string) {
			writeFile(t, filepath.Join(d, record.BlocksDir, "0000000005.block"), "x")
		}, record.Options{}, []string{audit.KindRecord}},
		// RECORD.md 1: a record is its own files; a symbolic link, even to
		// an identical copy outside it, or a special file is refused.
		{"block file a symbolic link", symlinkOut(filepath.Join(record.BlocksDir, "0000000001.block.gz")), record.Options{}, []string{audit.KindRecord}},
		{"manifest a symbolic link", symlinkOut(record.ManifestFile), record.Options{}, []string{audit.KindRecord}},
		{"result a symbolic link", symlinkOut(record.ResultFile), record.Options{}, []string{audit.KindRecord}},
		{"blocks a symbolic link", symlinkOut(record.BlocksDir), record.Options{}, []string{audit.KindRecord}},
		{"result a named pipe", pipeIn(record.ResultFile), record.Options{}, []string{audit.KindRecord}},
		// RECORD.md 5: a header CRC that does not match makes the block
		// file unreadable; empty members after the block are allowed.
		{"gzip header CRC wrong", gzipWithHeaderCRC(0x1234), record.Options{}, []string{audit.KindBlockChain}},
		{"gzip header CRC right, and empty members after", gzipWithHeaderCRC(-1), record.Options{}, []string{}},
		// A block file past 256 MiB (a sparse tail) is refused before it is read.
		{"block file too large", func(t *testing.T, d string) {
			if err := os.Truncate(filepath.Join(d, record.BlockFile(2)), 300<<20); err != nil {
				t.Fatal(err)
			}
			if rep := verify(t, d, record.Options{}); rep.RecordDigest != nil {
				t.Fatalf("a record with an oversized block file has digest %x, want none", rep.RecordDigest)
			}
		}, record.Options{}, []string{audit.KindBlockChain}},
		{"record.json a named pipe", pipeIn(record.RecordFile), record.Options{}, []string{audit.KindRecord}},
		{"record.json a symbolic link", symlinkOut(record.RecordFile), record.Options{}, []string{audit.KindRecord}},
		// RECORD.md 5.1: a group is an unknown field, skipped, even one
		// numbered as metadata [3]: it is no second metadata.
		{"an empty group numbered 3 in a block", func(t *testing.T, d string) {
			putRaw(t, d, 2, append(rawBlock(t, d, 2), 0x1b, 0x1c))
		}, record.Options{}, []string{}},
		// RECORD.md 4: an index of 2^63 or more does not decode, in both verifiers.
		{"ballot index position past int64", func(t *testing.T, d string) {
			p := filepath.Join(d, record.BallotsFile)
			b, _ := os.ReadFile(p)
			i := bytes.Index(b, []byte(`"index":`))
			j := i + bytes.IndexAny(b[i:], ",}")
			writeFile(t, p, string(b[:i])+`"index":9223372036854775808`+string(b[j:]))
		}, record.Options{}, []string{audit.KindRecord}},
		// RECORD.md 6 step 2: another channel fails once per block (the
		// Python verifier's test_another_channel_one_failure_per_block).
		{"record.json names another channel", func(t *testing.T, d string) {
			p := filepath.Join(d, record.RecordFile)
			b, _ := os.ReadFile(p)
			writeFile(t, p, strings.Replace(string(b), `"channel":"fabvote"`, `"channel":"other"`, 1))
			if rep := verify(t, d, record.Options{}); len(rep.Failures) != 5 || rep.Failures[4].Subject != "block 4" {
				t.Fatalf("failures %v, want one for each of blocks 0 to 4", rep.Failures)
			}
		}, record.Options{}, []string{audit.KindBlockChain}},
		// Groups nest as deep as protobuf-go allows (10001), in both verifiers.
		{"groups nested 10001 deep in a block", func(t *testing.T, d string) {
			putRaw(t, d, 2, append(rawBlock(t, d, 2), nestedGroups(10001)...))
		}, record.Options{}, []string{}},
		{"groups nested 10002 deep in a block", func(t *testing.T, d string) {
			putRaw(t, d, 2, append(rawBlock(t, d, 2), nestedGroups(10002)...))
		}, record.Options{}, []string{audit.KindBlockChain}},
		// RECORD.md 5: a header is read as Go's compress/gzip reads it (the
		// Python verifier's test_gzip_header_as_go_reads_it).
		{"gzip file name of 512 bytes", gzipWithName(512, 0), record.Options{}, []string{audit.KindBlockChain}},
		{"gzip file name of 511 bytes, reserved flags set", gzipWithName(511, 0xe0), record.Options{}, []string{}},
		// RECORD.md 1: a key twice, or an integer written as 20.0, is a
		// RECORD failure in both verifiers (test_json_read_alike).
		{"record.json with a key twice", func(t *testing.T, d string) {
			p := filepath.Join(d, record.RecordFile)
			b, _ := os.ReadFile(p)
			writeFile(t, p, strings.Replace(string(b), `"channel":"fabvote"`, `"channel":"fabvote","channel":"fabvote"`, 1))
		}, record.Options{}, []string{audit.KindRecord}},
		{"a ballot entry with a key twice", func(t *testing.T, d string) {
			p := filepath.Join(d, record.BallotsFile)
			b, _ := os.ReadFile(p)
			writeFile(t, p, strings.Replace(string(b), `"index":`, `"index":0,"index":`, 1))
		}, record.Options{}, []string{audit.KindRecord}},
		{"a block number written as 20.0", func(t *testing.T, d string) {
			p := filepath.Join(d, record.BallotsFile)
			b, _ := os.ReadFile(p)
			i := bytes.Index(b, []byte(`"block":`)) + len(`"block":`)
			j := i + bytes.IndexAny(b[i:], ",}")
			writeFile(t, p, string(b[:i])+string(b[i:j])+".0"+string(b[j:]))
		}, record.Options{}, []string{audit.KindRecord}},
		// A JSON file nested 200,000 deep: a RECORD failure in both verifiers.
		{"ballots.json nested deep", func(t *testing.T, d string) {
			writeFile(t, filepath.Join(d, record.BallotsFile), strings.Repeat("[", 200_000)+strings.Repeat("]", 200_000))
		}, record.Options{}, []string{audit.KindRecord}},
		{"record.json nested deep", func(t *testing.T, d string) {
			writeFile(t, filepath.Join(d, record.RecordFile), strings.Repeat("[", 200_000)+strings.Repeat("]", 200_000))
		}, record.Options{}, []string{audit.KindRecord}},
		{"record.json version 1", func(t *testing.T, d string) {
			p := filepath.Join(d, record.RecordFile)
			b, _ := os.ReadFile(p)
			writeFile(t, p, strings.Replace(string(b), `"version":2`, `"version":1`, 1))
		}, record.Options{}, []string{audit.KindRecord}},
		{"result.json not the result in the blocks", func(t *testing.T, d string) {
			p := filepath.Join(d, record.ResultFile)
			b, _ := os.ReadFile(p)
			if !bytes.Contains(b, []byte(`"counts":[1,`)) {
				t.Fatalf("result.json has no counts [1,…: %.80s", b)
			}
			writeFile(t, p, strings.Replace(string(b), `"counts":[1,`, `"counts":[2,`, 1))
		}, record.Options{}, []string{audit.KindOrder, audit.KindResult}},
		{"genesis hash mismatch", func(*testing.T, string) {}, record.Options{GenesisHash: make([]byte, 32)}, []string{audit.KindBlockChain}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyRecord(t)
			tc.tamper(t, dir)
			rep := verify(t, dir, tc.opts)
			if got := kinds(rep); !reflect.DeepEqual(got, tc.kinds) {
				t.Fatalf("kinds %v, want %v; failures: %v", got, tc.kinds, rep.Failures)
			}
			agreeWithPython(t, dir, tc.opts, rep)
		})
	}
}

// gzipParts is block 2 of the record in d gzip'd as one member, split into
// its 10-byte fixed header and the rest, for a test to put fields between.
func gzipParts(t *testing.T, d string) (hdr, rest []byte) {
	var body bytes.Buffer
	zw := gzip.NewWriter(&body)
	zw.Write(rawBlock(t, d, 2))
	zw.Close()
	b := body.Bytes()
	return append([]byte(nil), b[:10]...), b[10:]
}

// gzipWithHeaderCRC rewrites block 2's file as one member whose header
// carries FHCRC (crc16, or the right one when crc16 < 0) and 1,000 empty
// members after it.
func gzipWithHeaderCRC(crc16 int) func(*testing.T, string) {
	return func(t *testing.T, d string) {
		hdr, rest := gzipParts(t, d)
		hdr[3] |= 0x02 // FHCRC
		sum := uint16(crc32.ChecksumIEEE(hdr))
		if crc16 >= 0 {
			sum = uint16(crc16)
		}
		out := append(binary.LittleEndian.AppendUint16(hdr, sum), rest...)
		var empty bytes.Buffer
		zw := gzip.NewWriter(&empty)
		zw.Close()
		out = append(out, bytes.Repeat(empty.Bytes(), 1000)...)
		writeFile(t, filepath.Join(d, record.BlockFile(2)), string(out))
	}
}

// gzipWithName rewrites block 2's file as one member whose header carries
// a file name of n bytes and the flag bits extra.
func gzipWithName(n int, extra byte) func(*testing.T, string) {
	return func(t *testing.T, d string) {
		hdr, rest := gzipParts(t, d)
		hdr[3] |= 0x08 | extra // FNAME
		out := append(append(append(hdr, bytes.Repeat([]byte("n"), n)...), 0), rest...)
		writeFile(t, filepath.Join(d, record.BlockFile(2)), string(out))
	}
}

// nestedGroups is depth empty groups of field 5, one inside the other.
func nestedGroups(depth int) []byte {
	return append(bytes.Repeat([]byte{5<<3 | 3}, depth), bytes.Repeat([]byte{5<<3 | 4}, depth)...)
}

// pipeIn replaces the record's file name with a named pipe, which a
// verifier that reads it would wait on for ever.
func pipeIn(name string) func(*testing.T, string) {
	return func(t *testing.T, d string) {
		p := filepath.Join(d, name)
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// symlinkOut moves the record's file name out of the record and leaves a
// symbolic link to it in its place.
func symlinkOut(name string) func(*testing.T, string) {
	return func(t *testing.T, d string) {
		inside, outside := filepath.Join(d, name), filepath.Join(t.TempDir(), "outside")
		if err := os.Rename(inside, outside); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, inside); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGenesisHashMatch: the right --genesis-hash passes.
func TestGenesisHashMatch(t *testing.T) {
	rep := verify(t, goodFixture, record.Options{})
	if !rep.OK() || len(rep.GenesisHash) != 32 {
		t.Fatalf("good record: ok %v, genesis %x", rep.OK(), rep.GenesisHash)
	}
	if rep2 := verify(t, goodFixture, record.Options{GenesisHash: rep.GenesisHash}); !rep2.OK() {
		t.Fatalf("the record's own genesis hash fails: %v", rep2.Failures)
	}
}

// TestUnreadable: no record.json is no report at all (exit status 2).
func TestUnreadable(t *testing.T) {
	for _, dir := range []string{t.TempDir(), filepath.Join(t.TempDir(), "none")} {
		if _, err := record.Verify(context.Background(), dir, record.Options{}); !errors.Is(err, record.ErrUnreadable) {
			t.Errorf("%s: err %v, want ErrUnreadable", dir, err)
		}
	}
}
