//go:build reliability

package reliability

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/ballotclient"
	"github.com/fabvote/fabvote/internal/easigner"
	"github.com/fabvote/fabvote/internal/gateway"
	"github.com/fabvote/fabvote/internal/sharebox"
)

func wantReject(t *testing.T, what string, err error, code string) {
	t.Helper()
	var re *gateway.RejectError
	if !errors.As(err, &re) {
		t.Fatalf("%s: got %v, want the contract's rejection %s", what, err, code)
	}
	if re.Code != code {
		t.Fatalf("%s: rejected with %s (%s), want %s", what, re.Code, re.Msg, code)
	}
	t.Logf("ACCESS %s: rejected: %s", what, re.Msg)
}

// TestAccess: on three-orgs with FABVOTE_AUTHORITY_MSPS=EAMSP, only the
// authority opens elections, only the authority or a trustee org publishes,
// a voter cannot write another voter's key; no secret reaches the ledger or a
// log; every gRPC endpoint refuses plaintext and the chaincode services
// refuse a client without a certificate.
func TestAccess(t *testing.T) {
	bin := fabvoteBin(t)
	n := startNet(t, "access", "three-orgs", 1, "ballot=./chaincode/ballot/cmd/ballot-cc", "FABVOTE_AUTHORITY_MSPS=EAMSP")
	ctx := testCtx(t, 15*time.Minute)
	ea := ballotclient.New(n.connect("EAMSP", "admin", "ballot", 8))
	voterGW := ballotclient.New(n.connect("EAMSP", "user1", "ballot", 8))
	party1 := ballotclient.New(n.connect("Party1MSP", "admin", "ballot", 8))
	party2 := ballotclient.New(n.connect("Party2MSP", "admin", "ballot", 8))

	id := fmt.Sprintf("access-%d", time.Now().Unix())
	const voters = 12
	// Party2 is a trustee org and may publish; Party1 is neither.
	e := newElection(t, bin, id, voters, "--trustee-msps", "Party2MSP")
	rogueDir := t.TempDir()
	fv(t, bin, rogueDir, "election", "create", "--id", id+"-p1", "--candidates", candidates, "--max-voters", "100",
		"--authority-msp", "Party1MSP", "--out", "el")
	m := readManifestFile(t, e.manifest)
	m.Start = time.Now().Add(-5 * time.Second).UTC().Truncate(time.Second)
	window := 75 * time.Second
	m.End = time.Now().Add(window).UTC().Truncate(time.Second)
	mb, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.manifest, mb, 0o644); err != nil {
		t.Fatal(err)
	}

	t.Run("open election", func(t *testing.T) {
		_, err := party1.OpenElection(ctx, mb)
		wantReject(t, "Party1MSP opens the EA's election", err, election.CodeAccess)
		rogue, err := os.ReadFile(filepath.Join(rogueDir, "el", "manifest.json"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = party1.OpenElection(ctx, rogue)
		wantReject(t, "Party1MSP opens an election naming itself the authority", err, election.CodeAccess)
		_, err = voterGW.OpenElection(ctx, rogue)
		wantReject(t, "EAMSP user opens an election naming Party1MSP the authority", err, election.CodeAccess)
		if _, err := ea.OpenElection(ctx, mb); err != nil {
			t.Fatalf("the authority's admin cannot open the election: %v", err)
		}
		if _, err := party1.GetManifest(ctx, id+"-p1"); err == nil {
			t.Fatal("the refused election is on the ledger")
		}
	})

	committed := map[string]bool{}
	for _, b := range e.ballots[:voters-2] {
		if _, err := voterGW.CastBallot(ctx, b); err != nil {
			t.Fatalf("cast: %v", err)
		}
		committed[voterHash(t, b)] = true
	}

	t.Run("voter keys", func(t *testing.T) {
		p, err := election.Prepare(m)
		if err != nil {
			t.Fatal(err)
		}
		eaKey, err := easigner.LoadPEM(filepath.Join(e.dir, "el", "ea.key"))
		if err != nil {
			t.Fatal(err)
		}
		newKey := func() (*ecdsa.PrivateKey, []byte) {
			k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			if err != nil {
				t.Fatal(err)
			}
			pub, err := k.PublicKey.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			return k, pub
		}
		pseudKey, err := easigner.LoadPseudonymKey(filepath.Join(e.dir, "el", "pseudonym.key"))
		if err != nil {
			t.Fatal(err)
		}
		mint, err := election.NewMinter(nil, p, eaKey, pseudKey)
		if err != nil {
			t.Fatal(err)
		}
		tok := func(voterID string, pub []byte) []byte {
			tk, err := mint.Mint(voterID, pub)
			if err != nil {
				t.Fatal(err)
			}
			return tk
		}
		absent := func(what string, token []byte) {
			_, err := voterGW.GetBallot(ctx, id, election.PseudonymHex(token))
			var re *gateway.RejectError
			if !errors.As(err, &re) || re.Code != election.CodeNotFound {
				t.Fatalf("%s: the ledger holds a ballot under the victim's key (GetBallot: %v)", what, err)
			}
		}
		kA, pubA := newKey()
		kB, pubB := newKey()
		// B writes under A's key: A's key and token, signed by B.
		tokA, tokB := tok("access-A", pubA), tok("access-B", pubB)
		b, err := p.NewBallot(rand.Reader, kA, tokA, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Sign(kB); err != nil {
			t.Fatal(err)
		}
		_, err = voterGW.CastBallot(ctx, b.Marshal())
		wantReject(t, "ballot under voter A's key signed by voter B", err, election.CodeSignature)
		absent("signed by B", tokA)
		// A's key, B's token, signed by B (B has no A key).
		b2, err := p.NewBallot(rand.Reader, kB, tokB, 2)
		if err != nil {
			t.Fatal(err)
		}
		b2.VoterPub = pubA
		if err := b2.Sign(kB); err != nil {
			t.Fatal(err)
		}
		_, err = voterGW.CastBallot(ctx, b2.Marshal())
		if err == nil {
			t.Fatal("a ballot with A's key, B's token and B's signature was accepted")
		}
		t.Logf("ACCESS ballot with A's key and B's token: rejected: %v", err)
		absent("A's key with B's token", tokB)
		// A registered voter (first in the stream, already cast) overwritten by another's ballot resigned with A's key is impossible
		// without A's key; with A's key it is A's second ballot: DUPLICATE.
		_, err = voterGW.CastBallot(ctx, e.ballots[0])
		wantReject(t, "the same voter's ballot again", err, election.CodeDuplicate)
	})

	t.Run("publish result", func(t *testing.T) {
		time.Sleep(time.Until(m.ResultNotBefore()) + 3*time.Second)
		resPath := filepath.Join(e.dir, "result.json")
		fv(t, bin, e.dir, append([]string{"tally", "--network", n.netJSON, "--manifest", e.manifest, "--quiet", "--no-publish",
			"--result-out", resPath, "--wait"}, trusteeKeys(filepath.Join(e.dir, "el"), filepath.Join(e.dir, "trustees"), 1, 2).args(t, bin, e.dir, n.netJSON, e.manifest)...)...)
		rb, err := os.ReadFile(resPath)
		if err != nil {
			t.Fatal(err)
		}
		_, err = party1.PublishResult(ctx, rb)
		wantReject(t, "Party1MSP (neither authority nor trustee) publishes", err, election.CodeAccess)
		if r, err := voterGW.GetResult(ctx, id); err == nil && r != nil {
			t.Fatal("a result is on the ledger after the refused publish")
		}
		if _, err := party2.PublishResult(ctx, rb); err != nil {
			t.Fatalf("the trustee org Party2MSP cannot publish: %v", err)
		}
		_, err = ea.PublishResult(ctx, rb)
		wantReject(t, "a second result", err, election.CodeExists)
		out := fv(t, bin, e.dir, "verify", "--network", n.netJSON, "--election", id)
		if !strings.Contains(out, "RESULT: PASS") {
			t.Fatalf("verify:\n%s", out)
		}
	})
	_ = committed

	t.Run("secrets", func(t *testing.T) { scanSecrets(t, n, e) })
	t.Run("tls", func(t *testing.T) { checkTLS(t, n) })
}

func readManifestFile(t *testing.T, p string) *election.Manifest {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	m, err := election.ParseManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	return m
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
	needles := map[string][]byte{}
	p, err := election.Prepare(readManifestFile(t, e.manifest))
	if err != nil {
		t.Fatal(err)
	}
	pp := p.Threshold
	for i := 1; i <= 3; i++ {
		idPath := filepath.Join(e.dir, "trustees", fmt.Sprintf("trustee-%d", i), "identity.txt")
		ids, err := sharebox.ReadIdentityFile(idPath)
		if err != nil {
			t.Fatal(err)
		}
		ks, err := sharebox.ReadSealedFile(filepath.Join(e.dir, "el", fmt.Sprintf("trustee-%d.share.age", i)), ids...)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := ks.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		w := (2*ks.N.BitLen() + 7) / 8
		secret := enc[len(enc)-w:]
		// Self-check: the extracted bytes are s_i (V^(Δ·s_i) = V_i), or the
		// scan would prove nothing.
		x := new(big.Int).Mul(pp.Delta(), new(big.Int).SetBytes(secret))
		if new(big.Int).Exp(pp.V, x, pp.PublicKey.NSquared).Cmp(pp.VerificationKeys[i-1]) != 0 {
			t.Fatalf("self-check: the bytes extracted from trustee %d's share are not its secret; the scan would prove nothing", i)
		}
		for k, v := range secretForms(fmt.Sprintf("trustee-%d share", i), secret) {
			needles[k] = v
		}
		for _, id := range ids {
			needles[fmt.Sprintf("trustee-%d age identity", i)] = []byte(id.(fmt.Stringer).String())
		}
	}
	eaKey, err := easigner.LoadPEM(filepath.Join(e.dir, "el", "ea.key"))
	if err != nil {
		t.Fatal(err)
	}
	d := eaKey.D.FillBytes(make([]byte, 32))
	for k, v := range secretForms("EA key D", d) {
		needles[k] = v
	}
	pemBytes, _ := os.ReadFile(filepath.Join(e.dir, "el", "ea.key"))
	if blk, _ := pem.Decode(pemBytes); blk != nil {
		needles["EA key DER"] = blk.Bytes
		needles["EA key PEM body"] = []byte(base64.StdEncoding.EncodeToString(blk.Bytes)[:64])
	}
	// Any other secret file of the election directory (a single Paillier key, …).
	files, bytesScanned := 0, int64(0)
	var found []string
	scan := func(root string, onlyLogs bool) {
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
			files++
			bytesScanned += int64(len(b))
			for name, nd := range needles {
				if bytes.Contains(b, nd) {
					found = append(found, name+" in "+p)
				}
			}
			return nil
		})
	}
	scan(n.runDir, false)                  // ledger, state, WAL, logs, config of this network
	scan(filepath.Join(root, "run"), true) // every log under run/
	blocks, _ := filepath.Glob(filepath.Join(n.runDir, "nodes", "*", "data", "**", "chains", "*", "fabvote", "blockfile_*"))
	if files == 0 {
		t.Fatal("nothing scanned")
	}
	t.Logf("SECRETS scanned %d files (%d MB, including %d block files found by glob) for %d secret forms: %d found",
		files, bytesScanned>>20, len(blocks), len(needles), len(found))
	if len(found) > 0 {
		t.Fatalf("secrets found:\n%s", strings.Join(found, "\n"))
	}
}

type netFile struct {
	Orgs []struct {
		Name      string `json:"name"`
		TLSCACert string `json:"tlsCACert"`
		Peers     []struct {
			Name       string `json:"name"`
			Endpoint   string `json:"endpoint"`
			TLSCACert  string `json:"tlsCACert"`
			Operations string `json:"operationsEndpoint"`
		} `json:"peers"`
	} `json:"orgs"`
	Orderers []struct {
		Name       string `json:"name"`
		Endpoint   string `json:"endpoint"`
		TLSCACert  string `json:"tlsCACert"`
		Admin      string `json:"adminEndpoint"`
		Operations string `json:"operationsEndpoint"`
	} `json:"orderers"`
}

type endpoint struct {
	name, addr, ca string
	mtls           bool // client certificate required
}

// endpoints lists every gRPC listener of the network: orderers (and their
// admin API), peers (and their chaincode callback port), chaincode services.
func endpoints(t *testing.T, n *testNet) (eps, ops []endpoint) {
	b, err := os.ReadFile(n.netJSON)
	if err != nil {
		t.Fatal(err)
	}
	var nf netFile
	if err := json.Unmarshal(b, &nf); err != nil {
		t.Fatal(err)
	}
	plus1 := func(addr string) string {
		h, p, _ := net.SplitHostPort(addr)
		pn, _ := strconv.Atoi(p)
		return net.JoinHostPort(h, strconv.Itoa(pn+1))
	}
	for _, o := range nf.Orderers {
		eps = append(eps, endpoint{o.Name, o.Endpoint, o.TLSCACert, false})
		if o.Admin != "" {
			eps = append(eps, endpoint{o.Name + " admin", o.Admin, "", true})
		}
		ops = append(ops, endpoint{o.Name + " operations", o.Operations, o.TLSCACert, false})
	}
	for _, org := range nf.Orgs {
		for _, p := range org.Peers {
			eps = append(eps, endpoint{p.Name, p.Endpoint, p.TLSCACert, false})
			// The chaincode callback listener has a certificate from the peer's own
			// ephemeral chaincode CA and requires a client certificate from it.
			eps = append(eps, endpoint{p.Name + " chaincode callback", plus1(p.Endpoint), "", true})
			ops = append(ops, endpoint{p.Name + " operations", p.Operations, p.TLSCACert, false})
		}
		// Chaincode services of this org: their address is in the node's env.
		envs, _ := filepath.Glob(filepath.Join(n.runDir, "nodes", "cc.*.peer0."+org.Name, "env"))
		for _, ef := range envs {
			eb, _ := os.ReadFile(ef)
			for _, line := range strings.Split(string(eb), "\n") {
				if a, ok := strings.CutPrefix(line, "CHAINCODE_SERVER_ADDRESS="); ok {
					eps = append(eps, endpoint{filepath.Base(filepath.Dir(ef)), strings.Trim(a, `"'`), org.TLSCACert, true})
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
		res := "plaintext refused (" + status.Code(err).String() + ")"
		// TLS without a client certificate.
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
			res += "; TLS without client certificate refused (" + firstLine(err.Error()) + ")"
		} else {
			if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
				// Peers/orderers send HTTP/2 settings first and may close on our silence; only a handshake error counts.
				if strings.Contains(err.Error(), "certificate") || strings.Contains(err.Error(), "handshake") {
					t.Fatalf("TLS %s (%s): handshake with the org's CA failed: %v", ep.name, ep.addr, err)
				}
			}
			res += "; TLS with the org CA ok"
		}
		t.Logf("TLS %-40s %-16s %s", ep.name, ep.addr, res)
	}
	for _, o := range ops {
		if o.addr == "" {
			continue
		}
		t.Logf("TLS %-40s %-16s %s", o.name, o.addr, checkOps(t, o))
	}
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

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
