package record_test

// Mutations of a real record for the differential test: each is a list of
// file changes (a Change), so that a mutant that made the verifiers
// disagree can be committed as it is and replayed for ever, whatever the
// mutator later becomes.

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// A Change is one file of a mutant: Op "write" (Data, base64, Repeat
// times), "append" (the same, after what the file holds), "delete",
// "symlink" (to a copy of the file outside the record, Data its content in
// base64),
// "fifo", "dir", "sparse" (Size bytes, all zero, without writing them) or
// "truncate" (to Size bytes: a sparse tail).
type Change struct {
	Path   string `json:"path"`
	Op     string `json:"op"`
	Data   string `json:"data,omitempty"`
	Repeat int    `json:"repeat,omitempty"`
	Size   int64  `json:"size,omitempty"`
}

// A Mutant is what the mutator made, and what a corpus file holds; a
// corpus file may also hold the report both verifiers must give, messages
// aside (RECORD.md 7): Expect.
type Mutant struct {
	What    string         `json:"what"`
	Changes []Change       `json:"changes"`
	Expect  map[string]any `json:"expect,omitempty"`
}

// readMutant reads a corpus file.
func readMutant(path string) (Mutant, error) {
	var m Mutant
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		return m, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// apply makes the mutant's changes to the record in dir.
func (m Mutant) apply(t testing.TB, dir string) {
	t.Helper()
	for _, c := range m.Changes {
		p := filepath.Join(dir, filepath.FromSlash(c.Path))
		if c.Op != "write" && c.Op != "append" && c.Op != "truncate" {
			if err := os.RemoveAll(p); err != nil {
				t.Fatal(err)
			}
		}
		var err error
		switch c.Op {
		case "write", "append":
			var b []byte
			if b, err = base64.StdEncoding.DecodeString(c.Data); err == nil {
				err = writeRepeated(p, c.Op == "append", b, max(c.Repeat, 1))
			}
		case "truncate":
			err = os.Truncate(p, c.Size)
		case "delete":
		case "symlink":
			out := filepath.Join(filepath.Dir(dir), "outside-"+filepath.Base(p))
			var b []byte
			if b, err = base64.StdEncoding.DecodeString(c.Data); err == nil {
				if err = os.WriteFile(out, b, 0o644); err == nil {
					err = os.Symlink(out, p)
				}
			}
		case "fifo":
			err = syscall.Mkfifo(p, 0o600)
		case "dir":
			err = os.Mkdir(p, 0o755)
		case "sparse":
			var f *os.File
			if f, err = os.Create(p); err == nil {
				err = f.Truncate(c.Size)
				f.Close()
			}
		default:
			err = fmt.Errorf("unknown op %q", c.Op)
		}
		if err != nil {
			t.Fatalf("%s %s: %v", c.Op, c.Path, err)
		}
	}
}

// writeRepeated writes b n times to p, after its content when appending.
func writeRepeated(p string, appending bool, b []byte, n int) error {
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if appending {
		flags = os.O_WRONLY | os.O_APPEND
	}
	f, err := os.OpenFile(p, flags, 0o644)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for range n {
		w.Write(b)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// mutator draws mutants of the record in dir.
type mutator struct {
	r     *rand.Rand
	dir   string
	files []string // the record's files, slash paths
}

func newMutator(t testing.TB, dir string, seed uint64) *mutator {
	t.Helper()
	m := &mutator{r: rand.New(rand.NewPCG(seed, seed^0x5eed)), dir: dir}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			m.files = append(m.files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func (m *mutator) read(path string) []byte {
	b, err := os.ReadFile(filepath.Join(m.dir, filepath.FromSlash(path)))
	if err != nil {
		panic(err)
	}
	return b
}

func (m *mutator) pick(paths []string) string { return paths[m.r.IntN(len(paths))] }

func (m *mutator) blockFiles() []string {
	var out []string
	for _, f := range m.files {
		if strings.HasPrefix(f, "blocks/") {
			out = append(out, f)
		}
	}
	return out
}

func write(path string, b []byte) Change {
	return Change{Path: path, Op: "write", Data: base64.StdEncoding.EncodeToString(b)}
}

// next draws one mutant: bytes, gzip framing, protobuf fields, JSON
// structure or file types, in about equal shares.
func (m *mutator) next() Mutant {
	switch m.r.IntN(5) {
	case 0:
		return m.bytes()
	case 1:
		return m.gzipFraming()
	case 2:
		return m.protobuf()
	case 3:
		return m.jsonStructure()
	default:
		return m.fileType()
	}
}

// bytes flips, sets, inserts or deletes a few bytes of one file.
func (m *mutator) bytes() Mutant {
	path := m.pick(m.files)
	b := append([]byte(nil), m.read(path)...)
	n := 1 + m.r.IntN(4)
	for range n {
		if len(b) == 0 {
			b = append(b, byte(m.r.IntN(256)))
			continue
		}
		i := m.r.IntN(len(b))
		switch m.r.IntN(4) {
		case 0:
			b[i] ^= 1 << m.r.IntN(8)
		case 1:
			b[i] = []byte{0, 0xff, '"', '{', '0', '-', 0x80}[m.r.IntN(7)]
		case 2:
			b = append(b[:i], append([]byte{byte(m.r.IntN(256))}, b[i:]...)...)
		default:
			b = append(b[:i], b[i+1:]...)
		}
	}
	return Mutant{What: fmt.Sprintf("%d byte change(s) in %s", n, path), Changes: []Change{write(path, b)}}
}

func gunzip(gz []byte) []byte {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		panic(err)
	}
	var out bytes.Buffer
	if _, err := out.ReadFrom(zr); err != nil {
		panic(err)
	}
	return out.Bytes()
}

func gzipMember(raw []byte) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(raw)
	zw.Close()
	return b.Bytes()
}

// gzipFraming re-frames one block file: header options, extra members,
// trailing bytes, a cut, a wrong trailer.
func (m *mutator) gzipFraming() Mutant {
	path := m.pick(m.blockFiles())
	raw := gunzip(m.read(path))
	member := gzipMember(raw)
	var out []byte
	var what string
	switch m.r.IntN(8) {
	case 0: // header options: FEXTRA, FNAME, FCOMMENT, FHCRC, reserved bits
		flags := byte(m.r.IntN(256))
		hdr := append([]byte(nil), member[:10]...)
		hdr[3] = flags
		if flags&0x04 != 0 {
			n := m.r.IntN(40)
			hdr = binary.LittleEndian.AppendUint16(hdr, uint16(n))
			hdr = append(hdr, bytes.Repeat([]byte{'x'}, n)...)
		}
		for _, f := range []byte{0x08, 0x10} {
			if flags&f != 0 {
				hdr = append(append(hdr, bytes.Repeat([]byte{'n'}, m.r.IntN(600))...), 0)
			}
		}
		if flags&0x02 != 0 {
			sum := uint16(crc32.ChecksumIEEE(hdr))
			if m.r.IntN(2) == 0 {
				sum ^= 1
			}
			hdr = binary.LittleEndian.AppendUint16(hdr, sum)
		}
		out, what = append(hdr, member[10:]...), fmt.Sprintf("gzip flags %#02x", flags)
	case 1:
		out, what = append(member, bytes.Repeat(gzipMember(nil), 1+m.r.IntN(50))...), "empty members after the block"
	case 2:
		half := m.r.IntN(len(raw) + 1)
		out, what = append(gzipMember(raw[:half]), gzipMember(raw[half:])...), "the block split over two members"
	case 3:
		out, what = append(member, gzipMember([]byte{0x0a, 0x00})...), "a second member with more bytes"
	case 4:
		out, what = append(member, []byte{0, 0, 0}[:1+m.r.IntN(3)]...), "trailing bytes after the member"
	case 5:
		out, what = member[:m.r.IntN(len(member))], "the member cut short"
	case 6:
		out = append([]byte(nil), member...)
		out[len(out)-8+m.r.IntN(8)] ^= 0x01
		what = "a wrong CRC-32 or ISIZE"
	default:
		out, what = member[:0], "an empty block file"
	}
	return Mutant{What: what + " in " + path, Changes: []Change{write(path, out)}}
}

// protobuf changes one field of a block at the wire level, at the top or
// one level down (header, data, metadata): delete, duplicate, an unknown
// field of any wire type, an overlong varint, a changed varint.
func (m *mutator) protobuf() Mutant {
	path := m.pick(m.blockFiles())
	raw := gunzip(m.read(path))
	fields := splitFields(raw)
	if len(fields) == 0 {
		return m.bytes()
	}
	i := m.r.IntN(len(fields))
	what := fmt.Sprintf("block field %d", fields[i].num)
	if fields[i].typ == protowire.BytesType && m.r.IntN(2) == 0 {
		inner := splitFields(fields[i].value)
		if len(inner) > 0 && looksLikeMessage(fields[i].value, inner) {
			j := m.r.IntN(len(inner))
			what += fmt.Sprintf(".%d", inner[j].num)
			d := m.mutateField(inner, j)
			fields[i].value = joinFields(inner)
			fields[i].raw = protowire.AppendBytes(protowire.AppendTag(nil, fields[i].num, protowire.BytesType), fields[i].value)
			return Mutant{What: what + ": " + d + " in " + path,
				Changes: []Change{write(path, gzipMember(joinFields(fields)))}}
		}
	}
	d := m.mutateField(fields, i)
	return Mutant{What: what + ": " + d + " in " + path, Changes: []Change{write(path, gzipMember(joinFields(fields)))}}
}

type wireField struct {
	num   protowire.Number
	typ   protowire.Type
	value []byte // a BytesType field's content
	raw   []byte // the whole field, tag included
}

func splitFields(b []byte) []wireField {
	var out []wireField
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return nil
		}
		f := wireField{num: num, typ: typ, raw: b[:n+m]}
		if typ == protowire.BytesType {
			f.value, _ = protowire.ConsumeBytes(b[n : n+m])
		}
		out = append(out, f)
		b = b[n+m:]
	}
	return out
}

// looksLikeMessage: the bytes split into fields that use every byte.
func looksLikeMessage(b []byte, fs []wireField) bool {
	n := 0
	for _, f := range fs {
		n += len(f.raw)
	}
	return n == len(b)
}

func joinFields(fs []wireField) []byte {
	var out []byte
	for _, f := range fs {
		out = append(out, f.raw...)
	}
	return out
}

// mutateField changes fs[i] (or the list around it) and says how.
func (m *mutator) mutateField(fs []wireField, i int) string {
	f := &fs[i]
	switch m.r.IntN(5) {
	case 0:
		copy(fs[i:], fs[i+1:])
		fs[len(fs)-1] = wireField{}
		return "deleted"
	case 1:
		fs[i].raw = append(append([]byte(nil), f.raw...), f.raw...)
		return "twice"
	case 2:
		typ := []protowire.Type{protowire.VarintType, protowire.Fixed32Type, protowire.Fixed64Type, protowire.BytesType, protowire.StartGroupType}[m.r.IntN(5)]
		num := protowire.Number(5 + m.r.IntN(40))
		tag := protowire.AppendTag(nil, num, typ)
		switch typ {
		case protowire.VarintType:
			tag = protowire.AppendVarint(tag, m.r.Uint64())
		case protowire.Fixed32Type:
			tag = protowire.AppendFixed32(tag, m.r.Uint32())
		case protowire.Fixed64Type:
			tag = protowire.AppendFixed64(tag, m.r.Uint64())
		case protowire.BytesType:
			tag = protowire.AppendBytes(tag, []byte("unknown"))
		default:
			tag = protowire.AppendTag(tag, num, protowire.EndGroupType)
		}
		fs[i].raw = append(append([]byte(nil), f.raw...), tag...)
		return fmt.Sprintf("an unknown field %d of wire type %d after it", num, typ)
	case 3: // the tag as an overlong varint (one more byte, same value)
		tag := protowire.AppendTag(nil, f.num, f.typ)
		over := append(append([]byte(nil), tag[:len(tag)-1]...), tag[len(tag)-1]|0x80, 0x00)
		fs[i].raw = append(over, f.raw[len(tag):]...)
		return "its tag as an overlong varint"
	default:
		if f.typ == protowire.VarintType {
			tag := protowire.AppendTag(nil, f.num, f.typ)
			fs[i].raw = protowire.AppendVarint(tag, []uint64{0, 1, 1 << 63, m.r.Uint64()}[m.r.IntN(4)])
			return "its value changed"
		}
		if f.typ == protowire.BytesType {
			tag := protowire.AppendTag(nil, f.num, f.typ)
			fs[i].raw = protowire.AppendBytes(tag, append(append([]byte(nil), f.value...), 0))
			return "a zero byte appended to its content"
		}
		return m.mutateField(fs, i)
	}
}

// jsonStructure changes one JSON file's text: a key twice, a number as
// 2.0 or 2e0 (or 20: a digit appended), a value of another type, nesting,
// a BOM, escapes.
func (m *mutator) jsonStructure() Mutant {
	var jsons []string
	for _, f := range m.files {
		if strings.HasSuffix(f, ".json") {
			jsons = append(jsons, f)
		}
	}
	path := m.pick(jsons)
	s := string(m.read(path))
	keys := jsonKeys(s)
	var out, what string
	switch m.r.IntN(8) {
	case 0:
		k := keys[m.r.IntN(len(keys))]
		out, what = strings.Replace(s, k, k+"0,"+k, 1), "a key twice"
	case 1:
		out, what = replaceNumber(s, m.r.IntN(3), []string{".0", "e0", "E+0", "0"}[m.r.IntN(4)]), "a number written otherwise"
	case 2:
		k := keys[m.r.IntN(len(keys))]
		out, what = strings.Replace(s, k, k+[]string{"null,", "true,", `"",`, "[],", "{},", "-1,", "1e400,", "18446744073709551616,"}[m.r.IntN(8)], 1), "a value of another type first"
	case 3:
		k := keys[m.r.IntN(len(keys))]
		out, what = strings.Replace(s, k, strings.TrimSuffix(k, ":")+"x:", 1), "a key renamed"
	case 4:
		out, what = "\ufeff"+s, "a byte-order mark"
	case 5:
		d := 1 + m.r.IntN(3000)
		out, what = strings.Repeat("[", d)+s+strings.Repeat("]", d), fmt.Sprintf("wrapped %d deep", d)
	case 6:
		out, what = strings.Replace(s, `"`, `"\u00`+fmt.Sprintf("%02x", 0x20+m.r.IntN(0x5e))+"", 1), "an escape in a string"
	default:
		out, what = " \n\t"+s+"\n", "whitespace around"
	}
	return Mutant{What: what + " in " + path, Changes: []Change{write(path, []byte(out))}}
}

// jsonKeys are the `"key":` strings of a JSON text.
func jsonKeys(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		if s[i] != '"' {
			continue
		}
		j := strings.IndexByte(s[i+1:], '"')
		if j < 0 {
			break
		}
		end := i + 1 + j
		if end+1 < len(s) && s[end+1] == ':' {
			out = append(out, s[i:end+2])
		}
		i = end
	}
	if len(out) == 0 {
		out = []string{`"x":`}
	}
	return out
}

// replaceNumber appends suffix to the nth integer after a colon.
func replaceNumber(s string, nth int, suffix string) string {
	seen := 0
	for i := 1; i < len(s); i++ {
		if s[i-1] == ':' && (s[i] >= '0' && s[i] <= '9' || s[i] == '-') {
			if seen == nth {
				j := i + 1
				for j < len(s) && s[j] >= '0' && s[j] <= '9' {
					j++
				}
				return s[:j] + suffix + s[j:]
			}
			seen++
		}
	}
	return s + suffix
}

// fileType replaces a file with a symbolic link to a copy of it, a named
// pipe, a directory or a sparse file; deletes it; or adds one.
func (m *mutator) fileType() Mutant {
	path := m.pick(m.files)
	switch m.r.IntN(6) {
	case 0:
		return Mutant{What: path + " a symbolic link to a copy", Changes: []Change{{Path: path, Op: "symlink", Data: base64.StdEncoding.EncodeToString(m.read(path))}}}
	case 1:
		return Mutant{What: path + " a named pipe", Changes: []Change{{Path: path, Op: "fifo"}}}
	case 2:
		return Mutant{What: path + " a directory", Changes: []Change{{Path: path, Op: "dir"}}}
	case 3:
		size := int64(1 + m.r.IntN(3<<20))
		if strings.HasPrefix(path, "blocks/") && m.r.IntN(2) == 0 {
			size = 257 << 20
		}
		return Mutant{What: fmt.Sprintf("%s %d zero bytes", path, size), Changes: []Change{{Path: path, Op: "sparse", Size: size}}}
	case 4:
		return Mutant{What: path + " deleted", Changes: []Change{{Path: path, Op: "delete"}}}
	default:
		extra := []string{"notes.txt", "blocks/0000000005.block.gz", "blocks/notes", ".hidden"}[m.r.IntN(4)]
		return Mutant{What: "an extra file " + extra, Changes: []Change{write(extra, []byte("x"))}}
	}
}
