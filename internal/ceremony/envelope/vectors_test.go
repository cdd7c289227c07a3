package envelope_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	. "github.com/fabvote/fabvote/internal/ceremony/envelope"
)

var update = flag.Bool("update", false, "rewrite testdata/vectors.json")

// vector is one broadcast as another implementation must encode it. A
// private message's age ciphertext is random, so its encoding has no
// vector: its body is carried like a broadcast's.
type vector struct {
	Name     string `json:"name"`
	Seed     string `json:"seed"` // Ed25519 seed of the sender, hex
	Header   Header `json:"-"`
	Fields   fields `json:"header"`
	Body     string `json:"body"`     // hex
	Envelope string `json:"envelope"` // hex
}

// fields is a Header as a reader of the vectors file wants it.
type fields struct {
	Ceremony     string `json:"ceremony"`
	ConfigDigest string `json:"configDigest"`
	Round        uint16 `json:"round"`
	Batch        uint32 `json:"batch"`
	From         uint8  `json:"from"`
	To           uint8  `json:"to"`
	Seq          uint32 `json:"seq"`
	PrevHash     string `json:"prevHash"`
}

func fieldsOf(h Header) fields {
	return fields{hex.EncodeToString(h.Ceremony[:]), hex.EncodeToString(h.ConfigDigest[:]), h.Round, h.Batch, h.From, h.To, h.Seq, hex.EncodeToString(h.PrevHash[:])}
}

func vectorCases() []vector {
	var h Header
	for i := range h.Ceremony {
		h.Ceremony[i] = byte(i)
	}
	for i := range h.ConfigDigest {
		h.ConfigDigest[i] = byte(0xa0 + i)
	}
	h.Round, h.Batch, h.From, h.Seq = 3, 0x01020304, 2, 1
	second := h
	second.Round, second.Batch, second.From, second.To, second.Seq = 0xfffe, 0xffffffff, 5, 0, 2
	for i := range second.PrevHash {
		second.PrevHash[i] = 0x55
	}
	return []vector{
		{Name: "first broadcast, empty body", Seed: hex.EncodeToString(bytes.Repeat([]byte{2}, 32)), Header: h},
		{Name: "later broadcast with a body", Seed: hex.EncodeToString(bytes.Repeat([]byte{5}, 32)), Header: second, Body: hex.EncodeToString([]byte("fabvote ceremony"))},
	}
}

func TestVectors(t *testing.T) {
	path := filepath.Join("testdata", "vectors.json")
	cases := vectorCases()
	for i := range cases {
		seed, _ := hex.DecodeString(cases[i].Seed)
		body, _ := hex.DecodeString(cases[i].Body)
		raw, err := Seal(cases[i].Header, body, ed25519.NewKeyFromSeed(seed), nil)
		if err != nil {
			t.Fatal(err)
		}
		cases[i].Envelope = hex.EncodeToString(raw)
		cases[i].Fields = fieldsOf(cases[i].Header)
	}
	if *update {
		b, _ := json.MarshalIndent(cases, "", "  ")
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want []vector
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if len(want) != len(cases) {
		t.Fatalf("%d vectors on file, %d made", len(want), len(cases))
	}
	for i, v := range want {
		if cases[i].Envelope != v.Envelope || cases[i].Fields != v.Fields {
			t.Errorf("%s: Seal gives\n%s\nwant\n%s", v.Name, cases[i].Envelope, v.Envelope)
		}
		raw, _ := hex.DecodeString(v.Envelope)
		e, err := Parse(raw)
		if err != nil || fieldsOf(e.Header) != v.Fields || hex.EncodeToString(e.Body) != v.Body {
			t.Errorf("%s: Parse: %+v, %v", v.Name, e, err)
		}
	}
}
