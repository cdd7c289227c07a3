package record_test

import (
	"strings"
	"testing"

	"github.com/fabvote/fabvote/internal/record"
)

const (
	hexA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	hexB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

func TestParseRecordJSON(t *testing.T) {
	good := `{"format":"fabvote-election-record","version":2,"electionID":"e","channel":"c","chaincode":"b","lastBlock":3}`
	if in, err := record.ParseRecordJSON([]byte(good)); err != nil || in.LastBlock != 3 {
		t.Fatalf("good record.json: %+v, %v", in, err)
	}
	bad := map[string]string{
		"unknown field":   strings.Replace(good, `"lastBlock"`, `"extra":1,"lastBlock"`, 1),
		"wrong format":    strings.Replace(good, "fabvote-election-record", "other", 1),
		"version 1":       strings.Replace(good, `"version":2`, `"version":1`, 1),
		"version 3":       strings.Replace(good, `"version":2`, `"version":3`, 1),
		"version absent":  strings.Replace(good, `"version":2,`, ``, 1),
		"no lastBlock":    strings.Replace(good, `,"lastBlock":3`, ``, 1),
		"negative block":  strings.Replace(good, `3}`, `-1}`, 1),
		"empty channel":   strings.Replace(good, `"channel":"c"`, `"channel":""`, 1),
		"trailing data":   good + "{}",
		"byte order mark": "\ufeff" + good,
		"not an object":   `[]`,
	}
	for name, s := range bad {
		if _, err := record.ParseRecordJSON([]byte(s)); err == nil {
			t.Errorf("%s: accepted %s", name, s)
		}
	}
}

func entryJSON(p string) string {
	return `{"pseudonym":"` + p + `","ballotHash":"` + hexA + `","txID":"t","block":2,"index":0}`
}

func TestParseBallotIndex(t *testing.T) {
	good := "[" + entryJSON(hexA) + "," + entryJSON(hexB) + "]"
	if es, err := record.ParseBallotIndex([]byte(good)); err != nil || len(es) != 2 {
		t.Fatalf("good index: %v, %v", es, err)
	}
	if es, err := record.ParseBallotIndex([]byte("[]")); err != nil || len(es) != 0 {
		t.Fatalf("empty index: %v, %v", es, err)
	}
	bad := map[string]string{
		"unsorted":        "[" + entryJSON(hexB) + "," + entryJSON(hexA) + "]",
		"duplicate":       "[" + entryJSON(hexA) + "," + entryJSON(hexA) + "]",
		"upper-case hex":  "[" + entryJSON(strings.ToUpper(hexA)) + "]",
		"short pseudonym": "[" + entryJSON("ab") + "]",
		"unknown field":   "[" + strings.Replace(entryJSON(hexA), `"index"`, `"x":1,"index"`, 1) + "]",
		"missing index":   "[" + strings.Replace(entryJSON(hexA), `,"index":0`, ``, 1) + "]",
		"null":            "null",
		"object":          "{}",
		"empty txID":      "[" + strings.Replace(entryJSON(hexA), `"txID":"t"`, `"txID":""`, 1) + "]",
	}
	for name, s := range bad {
		if _, err := record.ParseBallotIndex([]byte(s)); err == nil {
			t.Errorf("%s: accepted %s", name, s)
		}
		// DecodeBallotIndex leaves out the order rule alone.
		_, err := record.DecodeBallotIndex([]byte(s))
		if order := name == "unsorted" || name == "duplicate"; (err == nil) != order {
			t.Errorf("%s: DecodeBallotIndex error %v, want one only for a malformed index", name, err)
		}
	}
}

// TestIndexRoundTrip: MarshalBallotIndex's output parses back.
func TestIndexRoundTrip(t *testing.T) {
	es := []record.Entry{{Pseudonym: hexA, BallotHash: hexB, TxID: "t1", Block: 2, Index: 1}, {Pseudonym: hexB, BallotHash: hexA, TxID: "t2", Block: 3}}
	got, err := record.ParseBallotIndex(record.MarshalBallotIndex(es))
	if err != nil || len(got) != 2 || got[0] != es[0] || got[1] != es[1] {
		t.Fatalf("round trip: %v, %v", got, err)
	}
}
