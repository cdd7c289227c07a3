package txframe

import (
	"bytes"
	"errors"
	"testing"

	"github.com/hyperledger/fabric-protos-go-apiv2/common"
	"google.golang.org/protobuf/proto"
)

func envelope(t testing.TB, payload, sig []byte) []byte {
	t.Helper()
	raw, err := proto.Marshal(&common.Envelope{Payload: payload, Signature: sig})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// Fields the Envelope does not define, after the signature, are what the
// orderer writes when a client sent them (protobuf keeps unknown fields and
// re-encodes them last): accepted, as upstream's re-encoding check does.
func TestCheckEnvelopeAcceptsTrailingUnknownFields(t *testing.T) {
	for _, raw := range [][]byte{
		{0x0a, 0x01, 'p', 0x12, 0x01, 's', 0x1a, 0x01, 'x'},
		{0x0a, 0x01, 'p', 0x12, 0x01, 's', 0x18, 0x05, 0x1a, 0x00},
		{0x0a, 0x01, 'p', 0x12, 0x01, 's', 0x08, 0x01}, // field 1 as a varint: unknown to protobuf
	} {
		if err := CheckEnvelope(raw); err != nil {
			t.Errorf("CheckEnvelope(%x): %v", raw, err)
		}
		env := &common.Envelope{}
		if err := proto.Unmarshal(raw, env); err != nil {
			t.Fatal(err)
		}
		if again, _ := proto.Marshal(env); !bytes.Equal(again, raw) {
			t.Errorf("%x re-encodes to %x: the orderer would not write it", raw, again)
		}
	}
}

// A known-answer vector: the bytes of Envelope{Payload: "ab", Signature: "s"}.
func TestCheckEnvelopeKnownAnswer(t *testing.T) {
	want := []byte{0x0a, 0x02, 'a', 'b', 0x12, 0x01, 's'}
	if got := envelope(t, []byte("ab"), []byte("s")); !bytes.Equal(got, want) {
		t.Fatalf("proto.Marshal gave %x, the vector is %x", got, want)
	}
	if err := CheckEnvelope(want); err != nil {
		t.Fatalf("canonical envelope rejected: %v", err)
	}
	long := envelope(t, bytes.Repeat([]byte{7}, 300), bytes.Repeat([]byte{9}, 72))
	if err := CheckEnvelope(long); err != nil {
		t.Fatalf("canonical envelope with a two-byte length rejected: %v", err)
	}
}

func TestCheckEnvelopeRejects(t *testing.T) {
	cases := []struct {
		name string
		raw  []byte
		want error
	}{
		{"empty", nil, ErrMissing},
		{"payload only", []byte{0x0a, 0x01, 'p'}, ErrMissing},
		{"truncated tag", []byte{0x8a}, ErrTruncated},
		{"empty payload", []byte{0x0a, 0x00, 0x12, 0x01, 's'}, ErrEmptyField},
		{"empty signature", []byte{0x0a, 0x01, 'p', 0x12, 0x00}, ErrEmptyField},
		{"signature first", []byte{0x12, 0x01, 's', 0x0a, 0x01, 'p'}, ErrUnexpected},
		{"payload again after the signature", []byte{0x0a, 0x01, 'p', 0x12, 0x01, 's', 0x0a, 0x01, 'q'}, ErrUnexpected},
		{"signature again", []byte{0x0a, 0x01, 'p', 0x12, 0x01, 's', 0x12, 0x01, 't'}, ErrUnexpected},
		{"truncated unknown field", []byte{0x0a, 0x01, 'p', 0x12, 0x01, 's', 0x1a, 0x05, 'x'}, ErrTruncated},
		{"unknown field between", []byte{0x0a, 0x01, 'p', 0x1a, 0x01, 'x', 0x12, 0x01, 's'}, ErrUnexpected},
		{"payload as varint", []byte{0x08, 0x01, 0x12, 0x01, 's'}, ErrUnexpected},
		{"repeated payload", []byte{0x0a, 0x01, 'p', 0x0a, 0x01, 'q', 0x12, 0x01, 's'}, ErrUnexpected},
		{"non-minimal length", []byte{0x0a, 0x81, 0x00, 'p', 0x12, 0x01, 's'}, ErrNotCanonical},
		{"non-minimal tag", []byte{0x8a, 0x00, 0x01, 'p', 0x12, 0x01, 's'}, ErrNotCanonical},
		{"length past the end", []byte{0x0a, 0x05, 'p', 0x12, 0x01, 's'}, ErrTruncated},
		{"trailing zero byte", []byte{0x0a, 0x01, 'p', 0x12, 0x01, 's', 0x00}, ErrTrailingBytes},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckEnvelope(c.raw)
			if !errors.Is(err, c.want) {
				t.Fatalf("CheckEnvelope(%x) = %v, want %v", c.raw, err, c.want)
			}
		})
	}
}

func TestCheckDataNamesTheTransaction(t *testing.T) {
	good := envelope(t, []byte("p"), []byte("s"))
	if err := CheckData(nil); !errors.Is(err, ErrNoTransactions) {
		t.Fatalf("no transactions: %v", err)
	}
	err := CheckData([][]byte{good, good, append(good[:len(good):len(good)], 0)})
	if !errors.Is(err, ErrTrailingBytes) || err.Error()[:13] != "transaction 2" {
		t.Fatalf("got %v, want an error naming transaction 2", err)
	}
	if err := CheckData([][]byte{good, good}); err != nil {
		t.Fatal(err)
	}
}

// The attack itself: every other way of cutting the concatenation of a
// block's transactions into pieces (same data hash) is rejected.
func TestCheckDataRejectsEveryResplit(t *testing.T) {
	a := envelope(t, []byte("payload-a"), []byte("sig-a"))
	b := envelope(t, []byte("payload-b-longer"), []byte("sig-b"))
	c := envelope(t, []byte("c"), []byte("s"))
	joined := bytes.Join([][]byte{a, b, c}, nil)
	accepted := 0
	for i := 1; i < len(joined); i++ {
		for j := i + 1; j < len(joined); j++ {
			split := [][]byte{joined[:i], joined[i:j], joined[j:]}
			if CheckData(split) == nil {
				accepted++
				if i != len(a) || j != len(a)+len(b) {
					t.Fatalf("resplit at %d,%d accepted", i, j)
				}
			}
		}
	}
	if accepted != 1 {
		t.Fatalf("%d splits accepted, want exactly the original", accepted)
	}
	for _, two := range [][][]byte{{joined[:len(a)], joined[len(a):]}, {joined[:len(a)+len(b)], c}} {
		if CheckData(two) == nil {
			t.Fatal("two-transaction merge accepted")
		}
	}
	if CheckData([][]byte{joined}) == nil {
		t.Fatal("the whole block as one transaction accepted")
	}
}

// FuzzCheckEnvelope: CheckEnvelope accepts exactly the Envelopes whose
// re-encoding is the input itself, with both fields non-empty (the property
// upstream's fix checks by re-marshalling): whatever it accepts re-encodes to
// itself, and whatever the orderer could write (a re-encoding) it accepts.
func FuzzCheckEnvelope(f *testing.F) {
	f.Add([]byte{0x0a, 0x02, 'a', 'b', 0x12, 0x01, 's'})
	f.Add([]byte{0x0a, 0x81, 0x00, 'p', 0x12, 0x01, 's'})
	f.Add([]byte{0x0a, 0x01, 'p', 0x12, 0x01, 's', 0x1a, 0x01, 'x'})
	f.Fuzz(func(t *testing.T, raw []byte) {
		if err := CheckEnvelope(raw); err != nil {
			env := &common.Envelope{}
			if proto.Unmarshal(raw, env) == nil && len(env.Payload) > 0 && len(env.Signature) > 0 {
				if again, _ := proto.Marshal(env); bytes.Equal(again, raw) {
					t.Fatalf("refused %x, which re-encodes to itself: %v", raw, err)
				}
			}
			return
		}
		env := &common.Envelope{}
		if err := proto.Unmarshal(raw, env); err != nil {
			t.Fatalf("accepted %x but proto.Unmarshal fails: %v", raw, err)
		}
		if len(env.Payload) == 0 || len(env.Signature) == 0 {
			t.Fatalf("accepted %x with an empty field", raw)
		}
		again, err := proto.MarshalOptions{Deterministic: true}.Marshal(env)
		if err != nil || !bytes.Equal(again, raw) {
			t.Fatalf("accepted %x, re-encodes to %x (%v)", raw, again, err)
		}
	})
}
