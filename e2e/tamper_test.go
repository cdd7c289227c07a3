//go:build e2e

package e2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/asn1"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/crypto/paillier/threshold/thresholdtest"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/easigner"
	"github.com/fabvote/fabvote/internal/gateway"
	"github.com/fabvote/fabvote/internal/nettest"
	"github.com/hyperledger/fabric-gateway/pkg/client"
	"github.com/hyperledger/fabric-protos-go-apiv2/common"
	gatewaypb "github.com/hyperledger/fabric-protos-go-apiv2/gateway"
	"github.com/hyperledger/fabric-protos-go-apiv2/ledger/rwset"
	"github.com/hyperledger/fabric-protos-go-apiv2/ledger/rwset/kvrwset"
	"github.com/hyperledger/fabric-protos-go-apiv2/msp"
	"github.com/hyperledger/fabric-protos-go-apiv2/peer"
	"google.golang.org/protobuf/proto"
)

// tamperElection is a sibling election for the ledger-side tests that must
// not touch the main election's counts: one ballot per voter (two tokens of
// one voter id), a ballot deleted before the result by colluding endorsers,
// and then the manifest key written again with the same bytes, so that a
// block walk starting at the latest manifest write would not see the
// deletion.
type tamperElection struct {
	m        *election.Manifest
	deleted  string // pseudonym of the deleted ballot
	delTx    string
	reopenTx string // the second write of the manifest key
}

// tamperDuringWindow opens the sibling with a short window and, inside it:
// casts two ballots, checks that a second token of one voter id lands on the
// first one's key and is DUPLICATE, and deletes one ballot with a
// transaction endorsed by every peer's own key (what a policy-satisfying
// set of colluding endorsers can sign), on the real network; then writes
// the manifest key again, with the same bytes, the same way.
func tamperDuringWindow(t *testing.T, e *env, main *election.Manifest, eaKey *ecdsa.PrivateKey) *tamperElection {
	c := ctx(t)
	now := time.Now()
	m, mb := sibling(t, main, main.ElectionID+"-tamper", now.Add(-5*time.Second), now.Add(40*time.Second))
	if _, err := e.ea.OpenElection(c, mb); err != nil {
		t.Fatalf("opening the tamper election: %v", err)
	}
	p, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	victim := tamperBallot(t, p, eaKey, m, "tamper-victim", 0)
	twiceA := tamperBallot(t, p, eaKey, m, "tamper-twice", 1)
	for _, b := range []*election.Ballot{victim, twiceA} {
		if _, err := e.voter.CastBallot(c, b.Marshal()); err != nil {
			t.Fatalf("cast in the tamper election: %v", err)
		}
	}
	t.Run("two tokens for one voter id", func(t *testing.T) {
		secondTokenRefused(t, e, m, twiceA, tamperBallot(t, p, eaKey, m, "tamper-twice", 2))
	})
	te := &tamperElection{m: m, deleted: victim.PseudonymHex()}
	forgeDeletion(t, e, te, mb, func() *election.Ballot { return tamperBallot(t, p, eaKey, m, "tamper-template", 3) })
	return te
}

// tamperBallot is a valid ballot of m for choice, from a fresh key with a
// token of roll id voterID.
func tamperBallot(t *testing.T, p *election.Prepared, eaKey *ecdsa.PrivateKey, m *election.Manifest, voterID string, choice int) *election.Ballot {
	k, pub := nettest.VoterKey(t)
	b, err := p.NewBallot(rand.Reader, k, tokenFor(t, eaKey, m, voterID, pub), choice)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// secondTokenRefused casts twiceB, whose token the authority key minted
// directly for a second key of first's roll entry (same pseudonym, same
// ledger key): DUPLICATE, and first's ballot stays.
func secondTokenRefused(t *testing.T, e *env, m *election.Manifest, first, twiceB *election.Ballot) {
	c := ctx(t)
	if twiceB.PseudonymHex() != first.PseudonymHex() {
		t.Fatal("two tokens of one voter id carry different pseudonyms")
	}
	before, err := e.voter.GetBallot(c, m.ElectionID, first.PseudonymHex())
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.voter.CastBallot(c, twiceB.Marshal())
	nettest.WantClearReject(t, "second token of one voter", err, election.CodeDuplicate)
	after, err := e.voter.GetBallot(c, m.ElectionID, first.PseudonymHex())
	if err != nil || after.BallotHash != before.BallotHash || after.TxID != before.TxID {
		t.Fatalf("the first ballot changed: %+v -> %+v (%v)", before, after, err)
	}
	if n, err := e.voter.CountBallots(c, m.ElectionID); err != nil || n != 2 {
		t.Fatalf("the election holds %d ballots (%v), want 2", n, err)
	}
}

// forgeDeletion has colluding endorsers delete te's victim ballot and then
// write the manifest key (mb) again, each forged from a fresh template
// ballot. With the ballot validation plugin on, every peer refuses the
// deletion, whoever endorsed it: the ballot stays and te.deleted is cleared.
func forgeDeletion(t *testing.T, e *env, te *tamperElection, mb []byte, template func() *election.Ballot) {
	c := ctx(t)
	victim := te.deleted
	key := election.LedgerKey(election.ObjBallot, te.m.ElectionID, victim)
	if pluginOn() {
		forgeWrite(t, e, template(), key, nil, false)
		if _, err := e.voter.GetBallot(c, te.m.ElectionID, victim); err != nil {
			t.Fatalf("after the refused forged deletion, GetBallot: %v; want the ballot", err)
		}
		te.deleted = ""
		t.Logf("the peers' ballot validation refused the colluding endorsers' deletion of %s", victim)
		return
	}
	te.delTx = forgeWrite(t, e, template(), key, nil, true)
	_, err := e.voter.GetBallot(c, te.m.ElectionID, victim)
	var re *gateway.RejectError
	if !errors.As(err, &re) || re.Code != election.CodeNotFound {
		t.Fatalf("after the forged deletion, GetBallot: %v; want NOT_FOUND", err)
	}
	te.reopenTx = forgeWrite(t, e, template(), election.LedgerKey(election.ObjManifest, te.m.ElectionID), mb, true)
	t.Logf("colluding endorsers deleted ballot %s in tx %s and wrote the manifest again in tx %s", te.deleted, te.delTx, te.reopenTx)
}

// tamperAfterWindow publishes the (consistent) result of the remaining
// ballot and requires `fabvote verify` to fail, naming the deletion.
func tamperAfterWindow(t *testing.T, e *env, te *tamperElection) {
	c := ctx(t)
	time.Sleep(time.Until(te.m.ResultNotBefore()) + 2*time.Second)
	res := thresholdResult(t, e, te.m)
	if te.deleted == "" { // the ballot validation plugin refused the deletion
		rb, err := res.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if res.BallotCount != 2 {
			t.Fatalf("the state holds %d ballots, want 2 (the deletion was refused)", res.BallotCount)
		}
		if _, err := e.ea.PublishResult(c, rb); err != nil {
			t.Fatalf("publishing the result: %v", err)
		}
		if out, code := e.Run(t, "verify", "--network", e.netPath, "--election", te.m.ElectionID); code != 0 {
			t.Fatalf("verify after a refused forged deletion: exit %d, want 0\n%s", code, out)
		}
		return
	}
	if res.BallotCount != 1 {
		t.Fatalf("the state holds %d ballots after the deletion, want 1", res.BallotCount)
	}
	rb, err := res.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.ea.PublishResult(c, rb); err != nil {
		t.Fatalf("the result without the deleted ballot is refused: %v", err)
	}
	out, code := e.Run(t, "verify", "--network", e.netPath, "--election", te.m.ElectionID)
	for _, want := range []string{
		fmt.Sprintf("[COMMIT_ORDER] ballot %s (tx %s): this ballot key is deleted before the result", te.deleted, te.delTx),
		fmt.Sprintf("[COMMIT_ORDER] manifest (tx %s): the manifest key is written again, with the same bytes,", te.reopenTx),
	} {
		if code != 1 || !strings.Contains(out, "RESULT: FAIL") || !strings.Contains(out, want) {
			t.Fatalf("verify of an election with a ballot deleted before the result and its manifest written again: exit %d, want 1 and %q\n%s", code, want, out)
		}
	}
	t.Logf("verify:\n%s", out)
}

// forgeWrite commits a transaction whose write set writes value to key in
// the ballot namespace, or deletes key if value is nil. It takes a real
// endorsement of a cast of template (never submitted) for its header and
// chaincode id, replaces the ballot namespace's read-write set with that
// one write, and re-endorses it with
// every peer org's peer0 key, as colluding endorsers would. It returns the
// transaction id once the transaction committed as valid (wantValid) or was
// marked ENDORSEMENT_POLICY_FAILURE by the peers' ballot validation.
func forgeWrite(t *testing.T, e *env, template *election.Ballot, key string, value []byte, wantValid bool) string {
	c := ctx(t)
	gw := e.voter.Conn.Gateway()
	prop, err := gw.GetNetwork(e.net.Channel).GetContract("ballot").NewProposal("CastBallot", client.WithBytesArguments(template.Marshal()))
	if err != nil {
		t.Fatal(err)
	}
	endorsed, err := prop.EndorseWithContext(c)
	if err != nil {
		t.Fatalf("endorsing the template cast: %v", err)
	}
	raw, err := endorsed.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	forged, err := gw.NewTransaction(rewriteEndorsed(t, e, raw, &kvrwset.KVWrite{Key: key, Value: value, IsDelete: value == nil}))
	if err != nil {
		t.Fatal(err)
	}
	commit, err := forged.SubmitWithContext(c)
	if err != nil {
		t.Fatalf("submitting the forged write: %v", err)
	}
	st, err := commit.StatusWithContext(c)
	if !wantValid {
		if err != nil || st.Code != peer.TxValidationCode_ENDORSEMENT_POLICY_FAILURE {
			t.Fatalf("the forged write: status %+v, %v; want ENDORSEMENT_POLICY_FAILURE from the ballot validation", st, err)
		}
		return forged.TransactionID()
	}
	if err != nil || !st.Successful {
		t.Fatalf("the forged write did not commit as valid (status %+v, %v)", st, err)
	}
	return forged.TransactionID()
}

// rewriteEndorsed takes an endorsed transaction (a serialized
// PreparedTransaction), makes w the ballot namespace's only write, signs
// the new proposal response with every org's peer0 key in place of the
// real endorsements, and returns it serialized again, unsigned: the gateway
// connection's identity, the creator, signs it again.
func rewriteEndorsed(t *testing.T, e *env, raw []byte, w *kvrwset.KVWrite) []byte {
	var pt gatewaypb.PreparedTransaction
	var payload common.Payload
	var tx peer.Transaction
	var cap peer.ChaincodeActionPayload
	var prp peer.ProposalResponsePayload
	var act peer.ChaincodeAction
	var rws rwset.TxReadWriteSet
	mustUnmarshal(t, raw, &pt)
	mustUnmarshal(t, pt.Envelope.Payload, &payload)
	mustUnmarshal(t, payload.Data, &tx)
	mustUnmarshal(t, tx.Actions[0].Payload, &cap)
	mustUnmarshal(t, cap.Action.ProposalResponsePayload, &prp)
	mustUnmarshal(t, prp.Extension, &act)
	mustUnmarshal(t, act.Results, &rws)
	found := false
	for _, ns := range rws.NsRwset {
		if ns.Namespace == "ballot" {
			ns.Rwset = mustMarshal(t, &kvrwset.KVRWSet{Writes: []*kvrwset.KVWrite{w}})
			found = true
		}
	}
	if !found {
		t.Fatal("the template endorsement has no ballot namespace")
	}
	act.Results = mustMarshal(t, &rws)
	prp.Extension = mustMarshal(t, &act)
	prpBytes := mustMarshal(t, &prp)
	cap.Action.ProposalResponsePayload = prpBytes
	cap.Action.Endorsements = nil
	for _, org := range e.net.Orgs {
		id, k := peerIdentity(t, org)
		cap.Action.Endorsements = append(cap.Action.Endorsements, &peer.Endorsement{Endorser: id, Signature: signLowS(t, k, append(append([]byte(nil), prpBytes...), id...))})
	}
	tx.Actions[0].Payload = mustMarshal(t, &cap)
	payload.Data = mustMarshal(t, &tx)
	pt.Envelope.Payload = mustMarshal(t, &payload)
	pt.Envelope.Signature = nil
	return mustMarshal(t, &pt)
}

// pluginOn reports whether the network's ballot chaincode definition names
// the ballot validation plugin (scripts/e2e.sh passes the network tool's
// switch through).
func pluginOn() bool {
	return os.Getenv("FABVOTE_VALIDATION_PLUGIN") == "ballotvscc"
}

// peerIdentity returns org's peer0 serialized identity and signing key, from
// the network's crypto material next to the org's admin identity.
func peerIdentity(t *testing.T, org gateway.Org) ([]byte, *ecdsa.PrivateKey) {
	admin, ok := org.Identities["admin"]
	if !ok {
		t.Fatalf("org %s has no admin identity in network.json", org.MSPID)
	}
	orgDir := admin.Cert
	for i := 0; i < 5; i++ { // signcerts, msp, Admin@domain, users, org
		orgDir = filepath.Dir(orgDir)
	}
	peerMSP := filepath.Join(orgDir, "peers", "peer0."+org.Domain, "msp")
	certs, _ := filepath.Glob(filepath.Join(peerMSP, "signcerts", "*.pem"))
	if len(certs) != 1 {
		t.Fatalf("want one certificate in %s/signcerts, found %d", peerMSP, len(certs))
	}
	cert, err := os.ReadFile(certs[0])
	if err != nil {
		t.Fatal(err)
	}
	key, err := easigner.LoadPEM(filepath.Join(peerMSP, "keystore", "priv_sk"))
	if err != nil {
		t.Fatal(err)
	}
	return mustMarshal(t, &msp.SerializedIdentity{Mspid: org.MSPID, IdBytes: cert}), key
}

// signLowS is Fabric's endorsement signature: ECDSA over SHA-256(msg), DER,
// with S in the lower half (Fabric's verifier refuses high S).
func signLowS(t *testing.T, k *ecdsa.PrivateKey, msg []byte) []byte {
	d := sha256.Sum256(msg)
	r, s, err := ecdsa.Sign(rand.Reader, k, d[:])
	if err != nil {
		t.Fatal(err)
	}
	n := elliptic.P256().Params().N
	if s.Cmp(new(big.Int).Rsh(n, 1)) > 0 {
		s.Sub(n, s)
	}
	der, err := asn1.Marshal(struct{ R, S *big.Int }{r, s})
	if err != nil {
		t.Fatal(err)
	}
	return der
}

// thresholdResult computes m's result from the ledger's ballots with
// trustees 1 and 2's sealed shares, without the CLI.
func thresholdResult(t *testing.T, e *env, m *election.Manifest) *election.Result {
	c := ctx(t)
	p, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	var cs []*big.Int
	err = e.voter.Ballots(c, m.ElectionID, 100)(func(be election.BallotEntry) error {
		b, err := election.ParseBallot(be.Ballot)
		if err != nil {
			return err
		}
		ct, err := p.PublicKey.DecodeCiphertext(b.Ciphertext)
		cs = append(cs, ct)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	prod := big.NewInt(1)
	if len(cs) > 0 {
		prod = p.PublicKey.Product(cs)
	}
	res := &election.Result{Version: election.ResultVersion, ElectionID: m.ElectionID, BallotCount: uint64(len(cs)), Product: p.PublicKey.EncodeCiphertext(prod)}
	var parts []*threshold.PartialDecryption
	for _, i := range []int{1, 2} {
		pd, err := thresholdtest.PartialDecrypt(openShare(t, e, i), p.Threshold, prod)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := pd.Marshal(p.Threshold)
		if err != nil {
			t.Fatal(err)
		}
		parts, res.Partials = append(parts, pd), append(res.Partials, enc)
	}
	tally, err := p.Threshold.Combine(prod, parts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Contests, err = p.NewContestResults(tally, []uint64{uint64(len(cs))}); err != nil {
		t.Fatal(err)
	}
	res.Tally = election.EncodeInt(tally)
	return res
}

func mustMarshal(t *testing.T, m proto.Message) []byte {
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustUnmarshal(t *testing.T, b []byte, m proto.Message) {
	if err := proto.Unmarshal(b, m); err != nil {
		t.Fatalf("decoding %T: %v", m, err)
	}
}
