package record_test

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/internal/record"
)

// tableCases are the auditor's cases that once made the verifiers crash,
// hang, pass wrongly or disagree, each as a committed test record: the
// changes to the good record in testdata/differential/table-*.json, with
// the report both verifiers must give (TestDifferential replays them).
// Regenerate with
//
//	go test ./internal/record -run TestTableCorpus -update
func tableCases(t *testing.T) map[string]Mutant {
	t.Helper()
	block2 := rawBlock(t, goodFixture, 2)
	empty := gzipMember(nil)
	blockFile := record.BlockFile(2)
	text := func(path string) string {
		b, err := os.ReadFile(filepath.Join(goodFixture, path))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	w := func(path string, b []byte) Change { return write(filepath.ToSlash(path), b) }
	ballots, rec, manifest := text(record.BallotsFile), text(record.RecordFile), text(record.ManifestFile)
	return map[string]Mutant{
		"empty-gzip-members": {What: "a block followed by 600,000 empty gzip members (RECORD.md 5 allows them)",
			Changes: []Change{{Path: blockFile, Op: "append", Data: b64(empty), Repeat: 600_000}}},
		"ballots-json-nested": {What: "ballots.json nested 200,000 deep",
			Changes: []Change{{Path: record.BallotsFile, Op: "write", Data: b64([]byte("[")), Repeat: 200_000},
				{Path: record.BallotsFile, Op: "append", Data: b64([]byte("]")), Repeat: 200_000}}},
		"record-json-nested": {What: "record.json nested 200,000 deep",
			Changes: []Change{{Path: record.RecordFile, Op: "write", Data: b64([]byte("[")), Repeat: 200_000},
				{Path: record.RecordFile, Op: "append", Data: b64([]byte("]")), Repeat: 200_000}}},
		"block-sparse-tail": {What: "a block file with a 2 GiB sparse tail",
			Changes: []Change{{Path: blockFile, Op: "truncate", Size: 2 << 30}}},
		"block-symlink": {What: "a block file a symbolic link to an identical copy outside the record",
			Changes: []Change{{Path: blockFile, Op: "symlink", Data: b64(gzipMember(block2))}}},
		"record-json-symlink": {What: "record.json a symbolic link to an identical copy outside the record",
			Changes: []Change{{Path: record.RecordFile, Op: "symlink", Data: b64([]byte(rec))}}},
		"gzip-fhcrc-wrong": {What: "a gzip header with FHCRC and a wrong CRC16",
			Changes: []Change{w(blockFile, gzipHeaderCRC(block2, 0x1234))}},
		"empty-group-3": {What: "an empty group numbered 3 after a block (RECORD.md 5.1: an unknown field)",
			Changes: []Change{w(blockFile, gzipMember(append(append([]byte(nil), block2...), 0x1b, 0x1c)))}},
		"manifest-json-not-canonical": {What: "manifest.json with a space added: not the bytes the opening wrote",
			Changes: []Change{w(record.ManifestFile, []byte(" "+manifest))}},
		"another-channel": {What: "record.json names another channel: one BLOCK_CHAIN failure per block",
			Changes: []Change{w(record.RecordFile, []byte(strings.Replace(rec, `"channel":"fabvote"`, `"channel":"other"`, 1)))}},
		"index-past-int64": {What: "a ballot's index of 2^63 in ballots.json",
			Changes: []Change{w(record.BallotsFile, []byte(replaceField(ballots, `"index":`, "9223372036854775808")))}},
		"empty-block-content": {What: "a block file whose gzip member holds no bytes",
			Changes: []Change{w(blockFile, empty)}},
		"block-number-float": {What: `a block number written as 2.0 in ballots.json (an integer written as a float)`,
			Changes: []Change{w(record.BallotsFile, []byte(strings.Replace(ballots, `"block":2,`, `"block":2.0,`, 1)))}},
		"record-json-key-twice": {What: "record.json with a key twice",
			Changes: []Change{w(record.RecordFile, []byte(strings.Replace(rec, `"channel":"fabvote"`, `"channel":"fabvote","channel":"fabvote"`, 1)))}},
	}
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// gzipHeaderCRC is raw gzip'd with FHCRC set and crc16 as the header CRC.
func gzipHeaderCRC(raw []byte, crc16 uint16) []byte {
	gz := gzipMember(raw)
	hdr := append([]byte(nil), gz[:10]...)
	hdr[3] |= 0x02
	if crc16 == uint16(crc32.ChecksumIEEE(hdr)) {
		crc16++
	}
	return append(binary.LittleEndian.AppendUint16(hdr, crc16), gz[10:]...)
}

// replaceField replaces the value after the first key in a JSON text.
func replaceField(s, key, value string) string {
	i := strings.Index(s, key) + len(key)
	j := i + strings.IndexAny(s[i:], ",}")
	return s[:i] + value + s[j:]
}

// TestTableCorpus keeps the committed table records what tableCases makes;
// with -update it writes them, with the Go verifier's report as expect.
func TestTableCorpus(t *testing.T) {
	for name, m := range tableCases(t) {
		path := filepath.Join(differentialCorpus, "table-"+name+".json")
		if *update {
			dir := filepath.Join(t.TempDir(), "rec")
			copyInto(t, dir)
			m.apply(t, dir)
			rep, err := record.Verify(t.Context(), dir, record.Options{})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			m.Expect = expectedPart(goJSON(t, rep))
			b, err := json.MarshalIndent(m, "", " ")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := readMutant(path)
		if err != nil {
			t.Fatalf("%v (regenerate with -update)", err)
		}
		if got.What != m.What || !reflect.DeepEqual(got.Changes, m.Changes) || got.Expect == nil {
			t.Errorf("%s is not what tableCases makes: regenerate with -update", path)
		}
	}
}

func copyInto(t *testing.T, dir string) {
	t.Helper()
	src := copyRecord(t)
	if err := os.Rename(src, dir); err != nil {
		t.Fatal(err)
	}
}
