package ballot

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/election"
)

// TestInvokeThroughContractAPI drives the contract the way the peer does:
// function name and string arguments through contractapi's serializer, the
// identity parsed from a serialized creator. It pins the wire format that
// docs/PROTOCOL.md documents (binary ballot arguments, JSON answers, error
// messages starting with "fabvote CODE:").
func TestInvokeThroughContractAPI(t *testing.T) {
	m, ballots := e1(t)
	cc, err := NewChaincode(Config{MaxClockSkew: DefaultMaxClockSkew, Now: func() time.Time { return during }})
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld()
	authorityCreator := creatorFor(t, authority)
	partyCreator := creatorFor(t, outsider)
	invoke := func(creator []byte, fn string, args ...string) (int32, string) {
		s := w.tx(during)
		s.creator, s.fn, s.args = creator, fn, args
		resp := cc.Invoke(s)
		if resp.Status == 200 {
			s.commit()
			return resp.Status, string(resp.Payload)
		}
		if len(s.writes) != 0 {
			t.Fatalf("%s failed with status %d but wrote state", fn, resp.Status)
		}
		return resp.Status, resp.Message
	}
	manifest, _ := m.Marshal()

	if st, msg := invoke(partyCreator, "OpenElection", string(manifest)); st != 500 || election.CodeOf(errString(msg)) != election.CodeAccess {
		t.Fatalf("party OpenElection: %d %q", st, msg)
	}
	if st, msg := invoke(authorityCreator, "OpenElection", string(manifest)); st != 200 {
		t.Fatalf("OpenElection: %d %q", st, msg)
	}
	if st, msg := invoke(authorityCreator, "ballot:OpenElection", string(manifest)); st != 500 || !strings.HasPrefix(msg, "fabvote EXISTS: ") {
		t.Fatalf("second OpenElection: %d %q", st, msg)
	}
	// Binary argument, as fabric-gateway's WithBytesArguments sends it.
	st, out := invoke(partyCreator, "CastBallot", string(ballots[0].Marshal()))
	if st != 200 {
		t.Fatalf("CastBallot: %d %q", st, out)
	}
	var rec election.Receipt
	if err := json.Unmarshal([]byte(out), &rec); err != nil || rec.Pseudonym != ballots[0].PseudonymHex() {
		t.Fatalf("receipt %q: %v", out, err)
	}
	// Base64 argument, as text-only clients send it.
	if st, out := invoke(partyCreator, "CastBallot", base64.StdEncoding.EncodeToString(ballots[1].Marshal())); st != 200 {
		t.Fatalf("CastBallot base64: %d %q", st, out)
	}
	if st, msg := invoke(partyCreator, "CastBallot", string(ballots[0].Marshal())); st != 500 || !strings.HasPrefix(msg, "fabvote DUPLICATE: ") {
		t.Fatalf("double vote: %d %q", st, msg)
	}
	if st, got := invoke(partyCreator, "GetBallot", "e1", rec.Pseudonym); st != 200 || got != out {
		t.Fatalf("GetBallot: %d %q, want %q", st, got, out)
	}
	st, pageJSON := invoke(partyCreator, "ListBallots", "e1", "1", "")
	var page election.BallotPage
	if st != 200 || json.Unmarshal([]byte(pageJSON), &page) != nil || len(page.Ballots) != 1 || page.Bookmark == "" {
		t.Fatalf("ListBallots: %d %q", st, pageJSON)
	}
	if st, got := invoke(partyCreator, "GetManifest", "e1"); st != 200 || got != string(manifest) {
		t.Fatalf("GetManifest: %d", st)
	}
	if st, msg := invoke(partyCreator, "GetResult", "e1"); st != 500 || !strings.HasPrefix(msg, "fabvote NOT_FOUND: ") {
		t.Fatalf("GetResult: %d %q", st, msg)
	}
	if st, got := invoke(partyCreator, "GetStats"); st != 200 || !strings.Contains(got, `"accepted":2`) {
		t.Fatalf("GetStats: %d %q", st, got)
	}
	// A spoiled ballot: its JSON as the one string argument.
	a := auditedBallot(t, m, 3, 1)
	js := string(a.spoiled.Marshal())
	if st, out := invoke(partyCreator, "SpoilBallot", js); st != 200 || !strings.Contains(out, `"tracker":"`+a.ballot.TrackerHex()+`"`) {
		t.Fatalf("SpoilBallot: %d %q", st, out)
	}
	if st, msg := invoke(partyCreator, "CastBallot", string(a.ballot.Marshal())); st != 500 || !strings.HasPrefix(msg, "fabvote SPOILED: ") {
		t.Fatalf("casting a spoiled ballot: %d %q", st, msg)
	}
	if st, got := invoke(partyCreator, "GetSpoiled", "e1", a.ballot.TrackerHex()); st != 200 || got != js {
		t.Fatalf("GetSpoiled: %d %q", st, got)
	}
	if st, got := invoke(partyCreator, "ListSpoiled", "e1", "10", ""); st != 200 || got != `{"spoiled":[`+js+`],"bookmark":""}` {
		t.Fatalf("ListSpoiled: %d %q", st, got)
	}
}

type errString string

func (e errString) Error() string { return string(e) }
