package decodememo

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// message is a decoded message in these tests: a copy of its bytes.
type message struct{ data []byte }

// counter is a decoder that copies its input and counts its calls.
type counter struct {
	mu    sync.Mutex
	calls int
}

func (c *counter) decode(b []byte) (any, error) {
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
	return &message{data: bytes.Clone(b)}, nil
}

func (c *counter) n() int { c.mu.Lock(); defer c.mu.Unlock(); return c.calls }

func equalMessages(a, b any) bool { return bytes.Equal(a.(*message).data, b.(*message).data) }

func TestDecodeSharesOnlyTheSameBytesAndKind(t *testing.T) {
	m := New(16, false, nil)
	var c counter
	b := []byte("envelope bytes")
	first, err := m.Decode(1, b, c.decode)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		kind      Kind
		b         []byte
		wantSame  bool
		wantCalls int
	}{
		{"same slice, same kind: shared", 1, b, true, 1},
		{"same slice again: shared", 1, b, true, 1},
		{"equal bytes in another array: decoded", 1, bytes.Clone(b), false, 2},
		{"a shorter slice of the same array: decoded", 1, b[:len(b)-1], false, 3},
		{"a later offset of the same array: decoded", 1, b[1:], false, 4},
		{"same slice, another kind: decoded", 2, b, false, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := m.Decode(tc.kind, tc.b, c.decode)
			if err != nil {
				t.Fatal(err)
			}
			if same := got == first; same != tc.wantSame {
				t.Errorf("shared the first message: %v, want %v", same, tc.wantSame)
			}
			if !bytes.Equal(got.(*message).data, tc.b) {
				t.Errorf("decoded %q, want %q", got.(*message).data, tc.b)
			}
			if c.n() != tc.wantCalls {
				t.Errorf("decoder called %d times, want %d", c.n(), tc.wantCalls)
			}
		})
	}
}

func TestFailedDecodeIsComputedEveryTime(t *testing.T) {
	m := New(16, false, nil)
	calls := 0
	partial := &message{data: []byte("partial")}
	failing := func([]byte) (any, error) { calls++; return partial, errors.New("truncated") }
	b := []byte("bad")
	for i := 1; i <= 3; i++ {
		got, err := m.Decode(1, b, failing)
		if err == nil || err.Error() != "truncated" || got != partial {
			t.Fatalf("call %d: got (%v, %v), want the decoder's own (partial, truncated)", i, got, err)
		}
		if calls != i {
			t.Fatalf("call %d: decoder called %d times", i, calls)
		}
	}
	if m.Len() != 0 {
		t.Fatalf("memo holds %d entries after failed decodes, want 0", m.Len())
	}
}

func TestEmptyBytesAreNotMemoised(t *testing.T) {
	m := New(16, false, nil)
	var c counter
	for _, b := range [][]byte{nil, {}, make([]byte, 0, 8)} {
		if _, err := m.Decode(1, b, c.decode); err != nil {
			t.Fatal(err)
		}
	}
	if c.n() != 3 || m.Len() != 0 {
		t.Fatalf("decoder calls %d, entries %d; want 3 and 0", c.n(), m.Len())
	}
}

func TestBoundedAndEvictsOldestFirst(t *testing.T) {
	m := New(3, false, nil)
	var c counter
	inputs := make([][]byte, 5)
	for i := range inputs {
		inputs[i] = []byte(fmt.Sprintf("tx %d", i))
		m.Decode(1, inputs[i], c.decode)
	}
	if m.Len() != 3 {
		t.Fatalf("memo holds %d entries, want its capacity 3", m.Len())
	}
	before := c.n()
	for _, i := range []int{2, 3, 4} { // the three newest: shared
		m.Decode(1, inputs[i], c.decode)
	}
	if c.n() != before {
		t.Fatalf("the newest entries were decoded again")
	}
	m.Decode(1, inputs[0], c.decode) // evicted: decoded
	if c.n() != before+1 {
		t.Fatalf("an evicted entry was not decoded again")
	}
}

func TestStats(t *testing.T) {
	m := New(4, false, nil)
	var c counter
	b := []byte("x")
	m.Decode(1, b, c.decode)
	m.Decode(1, b, c.decode)
	m.Decode(1, b, c.decode)
	if h, mi := m.Stats(); h != 2 || mi != 1 {
		t.Fatalf("stats (%d hits, %d misses), want (2, 1)", h, mi)
	}
}

// Check mode catches a caller that writes to a shared message or to the
// bytes it was decoded from.
func TestCheckModePanicsOnModification(t *testing.T) {
	for _, tc := range []struct {
		name   string
		modify func(b []byte, msg *message)
		want   string
	}{
		{"message modified", func(_ []byte, msg *message) { msg.data[0] ^= 1 }, "a caller modified it"},
		{"bytes modified", func(b []byte, _ *message) { b[0] ^= 1 }, "a caller modified it"},
		{"nothing modified", func([]byte, *message) {}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New(4, true, equalMessages)
			var c counter
			b := []byte("payload")
			got, _ := m.Decode(1, b, c.decode)
			tc.modify(b, got.(*message))
			panicked := catch(func() { m.Decode(1, b, c.decode) })
			if tc.want == "" && panicked != "" || !strings.Contains(panicked, tc.want) {
				t.Fatalf("panic %q, want one containing %q", panicked, tc.want)
			}
		})
	}
}

func catch(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}

func TestConcurrent(t *testing.T) {
	m := New(64, true, equalMessages)
	var c counter
	inputs := make([][]byte, 100)
	for i := range inputs {
		inputs[i] = []byte(fmt.Sprintf("transaction %d", i))
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := range inputs {
				b := inputs[(i+g*13)%len(inputs)]
				got, err := m.Decode(1, b, c.decode)
				if err != nil || !bytes.Equal(got.(*message).data, b) {
					t.Errorf("decoded %v, %v; want %q", got, err, b)
				}
			}
		}(g)
	}
	wg.Wait()
	if m.Len() > 64 {
		t.Fatalf("memo holds %d entries, over its capacity", m.Len())
	}
}

func TestParseSetting(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Mode
		wantErr bool
	}{
		{"", Off, false}, {"off", Off, false}, {" ON ", On, false}, {"Check", Check, false},
		{"yes", Off, true}, {"1", Off, true},
	} {
		got, err := ParseSetting(tc.in)
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("ParseSetting(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestNewRefusesBadArguments(t *testing.T) {
	if catch(func() { New(0, false, nil) }) == "" {
		t.Error("New(0) did not panic")
	}
	if catch(func() { New(4, true, nil) }) == "" {
		t.Error("check mode without an equality did not panic")
	}
}

func BenchmarkDecode(b *testing.B) {
	data := bytes.Repeat([]byte{7}, 6000) // about a ballot transaction
	decode := func(b []byte) (any, error) { return &message{data: bytes.Clone(b)}, nil }
	b.Run("computed", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			decode(data)
		}
	})
	b.Run("shared", func(b *testing.B) {
		m := New(Capacity, false, nil)
		for i := 0; i < b.N; i++ {
			m.Decode(1, data, decode)
		}
	})
}
