//go:build reliability

package reliability

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"filippo.io/age"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/ballotclient"
	"github.com/fabvote/fabvote/internal/easigner"
	"github.com/fabvote/fabvote/internal/gateway"
	"github.com/fabvote/fabvote/internal/nettest"
	"github.com/fabvote/fabvote/internal/sharebox"
	"github.com/fabvote/fabvote/network/fabrun"
	"github.com/fabvote/fabvote/network/netjson"
)

// TestAccess: on three-orgs with FABVOTE_AUTHORITY_MSPS=EAMSP, only the
// authority opens elections, only the authority or a trustee org publishes,
// a voter cannot write another voter's key; no secret reaches the ledger or a
// log; every gRPC endpoint refuses plaintext and the chaincode services
// refuse a client without a certificate.
func TestAccess(t *testing.T) {
	a := startAccess(t)
	t.Run("open election", a.openElection)
	for _, b := range a.e.ballots[:accessVoters-2] {
		if _, err := a.voterGW.CastBallot(a.ctx, b); err != nil {
			t.Fatalf("cast: %v", err)
		}
	}
	t.Run("voter keys", a.voterKeys)
	t.Run("publish result", a.publishResult)
	t.Run("secrets", func(t *testing.T) { scanSecrets(t, a.n, a.e) })
	t.Run("tls", func(t *testing.T) { checkTLS(t, a.n) })
}

// accessVoters is how many voters TestAccess's election has; all but two
// cast before the voter key cases.
const accessVoters = 12

// accessRun is TestAccess's network, its clients of each org, and its
// election: the authority's (id, manifest m, encoded mb) and a rogue one
// that Party1MSP created naming itself the authority (in rogueDir).
type accessRun struct {
	n                           *testNet
	ctx                         context.Context
	ea, voterGW, party1, party2 *ballotclient.Client
	id                          string
	e                           *electionFix
	rogueDir                    string
	m                           *election.Manifest
	mb                          []byte
}

// startAccess starts the network and creates both elections; the
// authority's gets a window that is open now and long enough for the cases
// before "publish result".
func startAccess(t *testing.T) *accessRun {
	bin := fabvoteBin(t)
	n := startNet(t, "access", "three-orgs", 1, "ballot=./chaincode/ballot/cmd/ballot-cc", "FABVOTE_AUTHORITY_MSPS=EAMSP")
	a := &accessRun{n: n, ctx: nettest.Context(t, 15*time.Minute),
		ea:      ballotclient.New(n.connect("EAMSP", "admin", "ballot", 8)),
		voterGW: ballotclient.New(n.connect("EAMSP", "user1", "ballot", 8)),
		party1:  ballotclient.New(n.connect("Party1MSP", "admin", "ballot", 8)),
		party2:  ballotclient.New(n.connect("Party2MSP", "admin", "ballot", 8)),
		id:      fmt.Sprintf("access-%d", time.Now().Unix()), rogueDir: t.TempDir()}
	// Party2 is a trustee org and may publish; Party1 is neither.
	a.e = newElection(t, bin, a.id, accessVoters, "--trustee-msps", "Party2MSP")
	nettest.CLI{Bin: bin, Dir: a.rogueDir}.Must(t, "election", "create", "--election", a.id+"-p1", "--candidates", nettest.Candidates,
		"--max-voters", "100", "--authority-msp", "Party1MSP", "--out", "el")
	a.m = nettest.ReadManifest(t, a.e.manifest)
	a.m.Start = time.Now().Add(-5 * time.Second).UTC().Truncate(time.Second)
	a.m.End = time.Now().Add(75 * time.Second).UTC().Truncate(time.Second)
	var err error
	if a.mb, err = a.m.Marshal(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(a.e.manifest, a.mb, 0o644); err != nil {
		t.Fatal(err)
	}
	return a
}

// openElection: neither Party1MSP nor an authority user may open an
// election that names Party1MSP the authority, nor Party1MSP the
// authority's; the authority's admin may.
func (a *accessRun) openElection(t *testing.T) {
	_, err := a.party1.OpenElection(a.ctx, a.mb)
	nettest.WantReject(t, "Party1MSP opens the EA's election", err, election.CodeAccess)
	rogue, err := os.ReadFile(filepath.Join(a.rogueDir, "el", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.party1.OpenElection(a.ctx, rogue)
	nettest.WantReject(t, "Party1MSP opens an election naming itself the authority", err, election.CodeAccess)
	_, err = a.voterGW.OpenElection(a.ctx, rogue)
	nettest.WantReject(t, "EAMSP user opens an election naming Party1MSP the authority", err, election.CodeAccess)
	if _, err := a.ea.OpenElection(a.ctx, a.mb); err != nil {
		t.Fatalf("the authority's admin cannot open the election: %v", err)
	}
	if _, err := a.party1.GetManifest(a.ctx, a.id+"-p1"); err == nil {
		t.Fatal("the refused election is on the ledger")
	}
}

// voterKeys: voter B cannot write a ballot under voter A's key, neither
// signing A's ballot nor bringing its own token; and a registered voter's
// ballot again is DUPLICATE.
func (a *accessRun) voterKeys(t *testing.T) {
	p, mint := a.minter(t)
	kA, pubA := nettest.VoterKey(t)
	kB, pubB := nettest.VoterKey(t)
	tokA, tokB := mintToken(t, mint, "access-A", pubA), mintToken(t, mint, "access-B", pubB)
	// B writes under A's key: A's key and token, signed by B.
	b, err := p.NewBallot(rand.Reader, kA, tokA, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Sign(kB); err != nil {
		t.Fatal(err)
	}
	_, err = a.voterGW.CastBallot(a.ctx, b.Marshal())
	nettest.WantReject(t, "ballot under voter A's key signed by voter B", err, election.CodeSignature)
	a.absent(t, "signed by B", tokA)
	// A's key, B's token, signed by B (B has no A key).
	b2, err := p.NewBallot(rand.Reader, kB, tokB, 2)
	if err != nil {
		t.Fatal(err)
	}
	b2.VoterPub = pubA
	if err := b2.Sign(kB); err != nil {
		t.Fatal(err)
	}
	_, err = a.voterGW.CastBallot(a.ctx, b2.Marshal())
	if err == nil {
		t.Fatal("a ballot with A's key, B's token and B's signature was accepted")
	}
	t.Logf("ACCESS ballot with A's key and B's token: rejected: %v", err)
	a.absent(t, "A's key with B's token", tokB)
	// A registered voter (first in the stream, already cast) overwritten by another's ballot resigned with A's key is impossible
	// without A's key; with A's key it is A's second ballot: DUPLICATE.
	_, err = a.voterGW.CastBallot(a.ctx, a.e.ballots[0])
	nettest.WantReject(t, "the same voter's ballot again", err, election.CodeDuplicate)
}

// minter mints tokens as the registrar would, with the election's
// authority key and pseudonym key.
func (a *accessRun) minter(t *testing.T) (*election.Prepared, *election.Minter) {
	p, err := election.Prepare(a.m)
	if err != nil {
		t.Fatal(err)
	}
	eaKey, err := easigner.LoadPEM(filepath.Join(a.e.dir, "el", "ea.key"))
	if err != nil {
		t.Fatal(err)
	}
	pseudKey, err := easigner.LoadPseudonymKey(filepath.Join(a.e.dir, "el", "pseudonym.key"))
	if err != nil {
		t.Fatal(err)
	}
	mint, err := election.NewMinter(nil, p, eaKey, pseudKey)
	if err != nil {
		t.Fatal(err)
	}
	return p, mint
}

func mintToken(t *testing.T, mint *election.Minter, voterID string, pub []byte) []byte {
	tk, err := mint.Mint(voterID, pub)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// absent asserts that the ledger holds no ballot under token's pseudonym.
func (a *accessRun) absent(t *testing.T, what string, token []byte) {
	_, err := a.voterGW.GetBallot(a.ctx, a.id, election.PseudonymHex(token))
	var re *gateway.RejectError
	if !errors.As(err, &re) || re.Code != election.CodeNotFound {
		t.Fatalf("%s: the ledger holds a ballot under the victim's key (GetBallot: %v)", what, err)
	}
}

// publishResult: after the window, Party1MSP (neither authority nor
// trustee) may not publish the correct result, the trustee org Party2MSP
// may, a second result is refused, and the audit passes.
func (a *accessRun) publishResult(t *testing.T) {
	time.Sleep(time.Until(a.m.ResultNotBefore()) + 3*time.Second)
	resPath := filepath.Join(a.e.dir, "result.json")
	keys := trusteeKeys(filepath.Join(a.e.dir, "el"), filepath.Join(a.e.dir, "trustees"), 1, 2).args(t, a.e.cli(), a.n.netJSON, a.e.manifest)
	a.e.cli().Must(t, append([]string{"tally", "--network", a.n.netJSON, "--manifest", a.e.manifest, "--quiet", "--no-publish",
		"--result-out", resPath, "--wait"}, keys...)...)
	rb, err := os.ReadFile(resPath)
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.party1.PublishResult(a.ctx, rb)
	nettest.WantReject(t, "Party1MSP (neither authority nor trustee) publishes", err, election.CodeAccess)
	if r, err := a.voterGW.GetResult(a.ctx, a.id); err == nil && r != nil {
		t.Fatal("a result is on the ledger after the refused publish")
	}
	if _, err := a.party2.PublishResult(a.ctx, rb); err != nil {
		t.Fatalf("the trustee org Party2MSP cannot publish: %v", err)
	}
	_, err = a.ea.PublishResult(a.ctx, rb)
	nettest.WantReject(t, "a second result", err, election.CodeExists)
	out := a.e.cli().Must(t, "verify", "--network", a.n.netJSON, "--election", a.id)
	if !strings.Contains(out, "RESULT: PASS") {
		t.Fatalf("verify:\n%s", out)
	}
}

// secretForms returns the byte strings that must not appear anywhere: each
// secret raw, in hex (both cases), standard and URL base64, and decimal.
func secretForms(name string, secret []byte) map[string][]byte {
	out := map[string][]byte{}
	add := func(form string, b []byte) { out[name+" "+form] = b }
	add("raw", secret)
	add("hex", []byte(hex.EncodeToString(secret)))
	add("HEX", []byte(strings.ToUpper(hex.EncodeToString(secret))))
	add("base64", []byte(base64.StdEncoding.EncodeToString(secret)))
	add("base64url", []byte(base64.RawURLEncoding.EncodeToString(secret)))
	add("decimal", []byte(new(big.Int).SetBytes(secret).String()))
	// A truncated copy (a log line cut short) still gives itself away.
	if len(secret) > 48 {
		add("raw prefix", secret[:24])
		add("hex prefix", []byte(hex.EncodeToString(secret[:24])))
	}
	return out
}

// scanSecrets searches every node's persisted data (block files, state and
// history databases, Raft WAL), every log under run/ and the network's files
// for the trustee shares' secrets and the EA's private token key.
func scanSecrets(t *testing.T, n *testNet, e *electionFix) {
	sc := &secretScan{needles: trusteeNeedles(t, e)}
	maps.Copy(sc.needles, eaKeyNeedles(t, e))
	sc.walk(n.runDir, false)                  // ledger, state, WAL, logs, config of this network
	sc.walk(filepath.Join(root, "run"), true) // every log under run/
	blocks, _ := filepath.Glob(filepath.Join(n.runDir, "nodes", "*", "data", "**", "chains", "*", "fabvote", "blockfile_*"))
	if sc.files == 0 {
		t.Fatal("nothing scanned")
	}
	t.Logf("SECRETS scanned %d files (%d MB, including %d block files found by glob) for %d secret forms: %d found",
		sc.files, sc.bytes>>20, len(blocks), len(sc.needles), len(sc.found))
	if len(sc.found) > 0 {
		t.Fatalf("secrets found:\n%s", strings.Join(sc.found, "\n"))
	}
}

// trusteeNeedles are the forms of every trustee's share secret and its age
// identity.
func trusteeNeedles(t *testing.T, e *electionFix) map[string][]byte {
	needles := map[string][]byte{}
	p, err := election.Prepare(nettest.ReadManifest(t, e.manifest))
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= nettest.Trustees; i++ {
		secret, ids := trusteeSecret(t, e, p.Threshold, i)
		maps.Copy(needles, secretForms(fmt.Sprintf("trustee-%d share", i), secret))
		for _, id := range ids {
			needles[fmt.Sprintf("trustee-%d age identity", i)] = []byte(id.(fmt.Stringer).String())
		}
	}
	return needles
}

// trusteeSecret opens trustee i's sealed share and returns its secret s_i
// (the trailing bytes of its encoding) and the trustee's identities. It
// checks that the bytes are s_i (V^(Δ·s_i) = V_i), or the scan would prove
// nothing.
func trusteeSecret(t *testing.T, e *electionFix, pp *threshold.PublicParams, i int) ([]byte, []age.Identity) {
	ids, err := sharebox.ReadIdentityFile(nettest.IdentityFile(filepath.Join(e.dir, "trustees"), i))
	if err != nil {
		t.Fatal(err)
	}
	ks, err := sharebox.ReadSealedFile(nettest.ShareFile(filepath.Join(e.dir, "el"), i), ids...)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := ks.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	w := (2*ks.N.BitLen() + 7) / 8
	secret := enc[len(enc)-w:]
	x := new(big.Int).Mul(pp.Delta(), new(big.Int).SetBytes(secret))
	if new(big.Int).Exp(pp.V, x, pp.PublicKey.NSquared).Cmp(pp.VerificationKeys[i-1]) != 0 {
		t.Fatalf("self-check: the bytes extracted from trustee %d's share are not its secret; the scan would prove nothing", i)
	}
	return secret, ids
}

// eaKeyNeedles are the forms of the authority's private token key: its
// scalar D, its DER encoding and the start of its PEM body.
func eaKeyNeedles(t *testing.T, e *electionFix) map[string][]byte {
	eaKey, err := easigner.LoadPEM(filepath.Join(e.dir, "el", "ea.key"))
	if err != nil {
		t.Fatal(err)
	}
	needles := secretForms("EA key D", eaKey.D.FillBytes(make([]byte, 32)))
	pemBytes, _ := os.ReadFile(filepath.Join(e.dir, "el", "ea.key"))
	if blk, _ := pem.Decode(pemBytes); blk != nil {
		needles["EA key DER"] = blk.Bytes
		needles["EA key PEM body"] = []byte(base64.StdEncoding.EncodeToString(blk.Bytes)[:64])
	}
	return needles
}

// secretScan searches files for needles (name -> bytes) and records where
// it found which.
type secretScan struct {
	needles map[string][]byte
	files   int
	bytes   int64
	found   []string
}

// walk scans every file under root, or with onlyLogs only the logs
// (*.log, or under a logs/ directory). Unreadable files are passed over: a
// node may be writing or rotating them.
func (sc *secretScan) walk(root string, onlyLogs bool) {
	_ = filepath.WalkDir(root, func(p string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return nil
		}
		if onlyLogs && !strings.HasSuffix(p, ".log") && !strings.Contains(p, "/logs/") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		sc.files++
		sc.bytes += int64(len(b))
		for name, nd := range sc.needles {
			if bytes.Contains(b, nd) {
				sc.found = append(sc.found, name+" in "+p)
			}
		}
		return nil
	})
}

type endpoint struct {
	name, addr, ca string
	mtls           bool // client certificate required
}

// endpoints lists every gRPC listener of the network: orderers (and their
// admin API), peers (and their chaincode callback port), chaincode services.
func endpoints(t *testing.T, n *testNet) (eps, ops []endpoint) {
	nf, err := netjson.Load(n.netJSON)
	if err != nil {
		t.Fatal(err)
	}
	plus1 := func(addr string) string {
		h, p, _ := net.SplitHostPort(addr)
		pn, _ := strconv.Atoi(p)
		return net.JoinHostPort(h, strconv.Itoa(pn+1))
	}
	for _, o := range nf.Orderers {
		eps = append(eps, endpoint{o.Name, o.Endpoint, o.TLSCACert, false})
		if o.AdminEndpoint != "" {
			eps = append(eps, endpoint{o.Name + " admin", o.AdminEndpoint, "", true})
		}
		ops = append(ops, endpoint{o.Name + " operations", o.OperationsEndpoint, o.TLSCACert, false})
	}
	for _, org := range nf.Orgs {
		for _, p := range org.Peers {
			eps = append(eps, endpoint{p.Name, p.Endpoint, p.TLSCACert, false})
			// The chaincode callback listener has a certificate from the peer's own
			// ephemeral chaincode CA and requires a client certificate from it.
			eps = append(eps, endpoint{p.Name + " chaincode callback", plus1(p.Endpoint), "", true})
			ops = append(ops, endpoint{p.Name + " operations", p.OperationsEndpoint, p.TLSCACert, false})
		}
		// Chaincode services of this org: their address is in the node's definition.
		defs, _ := filepath.Glob(filepath.Join(n.runDir, "nodes", "cc.*.peer0."+org.Name, "node.json"))
		for _, def := range defs {
			p, err := (fabrun.Home{Dir: n.runDir}).Defined(filepath.Base(filepath.Dir(def)))
			if err != nil {
				t.Fatal(err)
			}
			for _, kv := range p.Env {
				if a, ok := strings.CutPrefix(kv, "CHAINCODE_SERVER_ADDRESS="); ok {
					eps = append(eps, endpoint{p.Name, a, org.TLSCACert, true})
				}
			}
		}
	}
	return eps, ops
}

// checkTLS: a plaintext gRPC call to every endpoint fails; a TLS handshake
// with the org's CA succeeds where no client certificate is needed; the
// chaincode services and the orderer admin API refuse a client without one.
func checkTLS(t *testing.T, n *testNet) {
	eps, ops := endpoints(t, n)
	cc := 0
	for _, ep := range eps {
		if strings.HasPrefix(ep.name, "cc.") {
			cc++
		}
	}
	if cc == 0 {
		t.Fatal("no chaincode service endpoint found in the nodes' env files")
	}
	for _, ep := range eps {
		res := plaintextRefused(t, ep)
		res += "; " + tlsWithoutClientCert(t, ep)
		t.Logf("TLS %-40s %-16s %s", ep.name, ep.addr, res)
	}
	for _, o := range ops {
		if o.addr == "" {
			continue
		}
		t.Logf("TLS %-40s %-16s %s", o.name, o.addr, checkOps(t, o))
	}
}

// plaintextRefused requires a plaintext gRPC health check of ep to fail
// for want of TLS (an answer, even Unimplemented or NotFound, means the
// call got through) and says how it failed.
func plaintextRefused(t *testing.T, ep endpoint) string {
	conn, err := grpc.NewClient(ep.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	_, err = healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{}, grpc.WaitForReady(false))
	cancel()
	conn.Close()
	if err == nil || status.Code(err) == codes.Unimplemented || status.Code(err) == codes.NotFound {
		t.Fatalf("TLS %s (%s): a plaintext gRPC call was answered (%v)", ep.name, ep.addr, err)
	}
	return "plaintext refused (" + status.Code(err).String() + ")"
}

// tlsWithoutClientCert connects to ep over TLS without a client
// certificate: an mTLS endpoint must refuse, any other must complete the
// handshake with the org's CA. It says what happened.
func tlsWithoutClientCert(t *testing.T, ep endpoint) string {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, NextProtos: []string{"h2"}}
	if ep.ca != "" {
		pool := x509.NewCertPool()
		caPEM, _ := os.ReadFile(ep.ca)
		pool.AppendCertsFromPEM(caPEM)
		cfg.RootCAs = pool
	} else {
		cfg.InsecureSkipVerify = true // admin API, chaincode callback: only the client-certificate check matters here
	}
	tc, err := tls.DialWithDialer(&net.Dialer{Timeout: 3 * time.Second}, "tcp", ep.addr, cfg)
	if err == nil {
		// TLS 1.3 reports a missing client certificate on the first read.
		_ = tc.SetReadDeadline(time.Now().Add(2 * time.Second))
		_, err = tc.Read(make([]byte, 1))
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			err = nil // the server waits for us: handshake accepted
		}
		tc.Close()
	}
	if ep.mtls {
		if err == nil {
			t.Fatalf("TLS %s (%s): accepted a client without a certificate", ep.name, ep.addr)
		}
		return "TLS without client certificate refused (" + nettest.FirstLine(err.Error()) + ")"
	}
	if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
		// Peers/orderers send HTTP/2 settings first and may close on our silence; only a handshake error counts.
		if strings.Contains(err.Error(), "certificate") || strings.Contains(err.Error(), "handshake") {
			t.Fatalf("TLS %s (%s): handshake with the org's CA failed: %v", ep.name, ep.addr, err)
		}
	}
	return "TLS with the org CA ok"
}

// checkOps: an operations endpoint (network/config/*.yaml operations.tls)
// answers /healthz over TLS verified by the org's CA without a client
// certificate, refuses /metrics to a client without one (Fabric requires it
// whenever operations TLS is on), and does not serve plaintext HTTP.
func checkOps(t *testing.T, o endpoint) string {
	t.Helper()
	pemBytes, err := os.ReadFile(o.ca)
	if err != nil {
		t.Fatalf("%s: TLS CA: %v", o.name, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemBytes) {
		t.Fatalf("%s: no certificate in %s", o.name, o.ca)
	}
	get := func(path string, cfg *tls.Config) (int, error) {
		c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg}}
		scheme := "https"
		if cfg == nil {
			scheme = "http"
		}
		resp, err := c.Get(scheme + "://" + o.addr + path)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		return resp.StatusCode, nil
	}
	if code, err := get("/healthz", &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}); err != nil || code != http.StatusOK {
		t.Fatalf("%s (%s): GET https /healthz with the org's CA: status %d, %v", o.name, o.addr, code, err)
	}
	if code, err := get("/metrics", &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}); err == nil && code == http.StatusOK {
		t.Fatalf("%s (%s): GET https /metrics without a client certificate was answered", o.name, o.addr)
	}
	if code, err := get("/healthz", nil); err == nil && code == http.StatusOK {
		t.Fatalf("%s (%s): plaintext HTTP /healthz was answered", o.name, o.addr)
	}
	return "https /healthz ok with the org CA; /metrics needs a client certificate; plaintext refused"
}
