//go:build e2e && browser

package e2e

import (
	"bytes"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"testing"
	"time"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/boothtest"
	"github.com/fabvote/fabvote/internal/box"
	"github.com/fabvote/fabvote/internal/nettest"
)

// boothTLS is the servers' certificate (fabvote ea tls-cert, for
// 127.0.0.1), which the browser and the test's clients trust.
type boothTLS struct {
	caCert, cert, key string // files
	leaf              *x509.Certificate
}

func newBoothTLS(t *testing.T, e *env) boothTLS {
	b := boothTLS{caCert: e.path("ca.crt"), cert: e.path("tls.crt"), key: e.path("tls.key")}
	e.Must(t, "ea", "tls-cert", "--ca-cert", b.caCert, "--ca-key", e.path("ca.key"), "--tls-cert", b.cert, "--tls-key", b.key, "--hosts", "127.0.0.1")
	raw, err := os.ReadFile(b.cert)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(raw)
	if block == nil {
		t.Fatalf("%s holds no PEM certificate", b.cert)
	}
	if b.leaf, err = x509.ParseCertificate(block.Bytes); err != nil {
		t.Fatal(err)
	}
	return b
}

// chromiumFlags make the browser accept the servers' certificate, and no
// other that its own roots do not: the SPKI hash of the leaf every server
// of the test presents.
func (b boothTLS) chromiumFlags() []string {
	h := sha256.Sum256(b.leaf.RawSubjectPublicKeyInfo)
	return []string{"--ignore-certificate-errors-spki-list=" + base64.StdEncoding.EncodeToString(h[:])}
}

// client is an HTTPS client that trusts the test's CA.
func (b boothTLS) client(t *testing.T) *http.Client {
	raw, err := os.ReadFile(b.caCert)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(raw) {
		t.Fatalf("%s holds no certificate", b.caCert)
	}
	return &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
}

// startServers starts a ballot box run by a party org, another party
// org's box (a second box a ballot can be replayed to), and the registrar
// that serves the booth and points it at the first box.
func (r *boothRun) startServers(t *testing.T) {
	var parties []string
	for _, o := range r.net.Orgs {
		if o.MSPID != r.m.AuthorityMSP {
			parties = append(parties, o.MSPID)
		}
	}
	if len(parties) < 2 {
		t.Fatalf("the network has party orgs %v; the booth's test needs two (profile three-orgs)", parties)
	}
	siteAddr := nettest.FreeAddr(t)
	r.site = "https://" + siteAddr
	r.box = &boxClient{url: r.startBox(t, parties[0], r.site), http: r.tls.client(t)}
	r.box2 = &boxClient{url: r.startBox(t, parties[1], r.site), http: r.tls.client(t)}
	r.startRegistrar(t, siteAddr, r.box.url, "roll.state.db")
}

// startBox runs fabvote box serve for the election as org's identity,
// answering the booth's origin, and returns its URL.
func (r *boothRun) startBox(t *testing.T, org, origin string) string {
	addr := nettest.FreeAddr(t)
	// The test's spoiled ballots all come from one address: the browser
	// voters' and the bad input's.
	r.serve(t, "box serve "+org, regexp.MustCompile(`taking ballots of election`), "box", "serve", "--election", r.m.ElectionID,
		"--addr", addr, "--tls-cert", r.tls.cert, "--tls-key", r.tls.key, "--allow-origin", origin,
		"--network", r.netPath, "--org", org, "--spoil-burst", "10")
	return "https://" + addr
}

// startRegistrar runs fabvote ea serve on addr with the booth, pointed at
// the box boxURL, with its own registration state.
func (r *boothRun) startRegistrar(t *testing.T, addr, boxURL, state string) {
	r.serve(t, "ea serve", regexp.MustCompile(`serving the booth at https://`), "ea", "serve", "--init-state", "--state", r.path(state),
		"--addr", addr, "--manifest", r.el.Manifest(), "--roll", "roll.csv", "--tls-cert", r.tls.cert, "--tls-key", r.tls.key,
		"--ea-key", r.el.EAKey(), "--booth", r.boothDir, "--box", boxURL, "--board", "https://board.example/"+r.m.ElectionID+"/")
}

// serve runs fabvote with args until the test ends, once its log shows
// ready; its log is shown when the test fails.
func (r *boothRun) serve(t *testing.T, name string, ready *regexp.Regexp, args ...string) {
	cmd := exec.Command(r.Bin, args...)
	cmd.Dir = r.Dir
	log := startLogged(t, name, cmd)
	for deadline := time.Now().Add(30 * time.Second); !ready.MatchString(log.String()); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not start:\n%s", name, log.String())
		}
	}
}

// boxClient sends requests to a ballot box (internal/box's HTTP API).
type boxClient struct {
	url  string
	http *http.Client
}

// boxAnswer is a box's answer: its status and, for a refusal, its code.
type boxAnswer struct {
	status int
	Code   string `json:"code"`
	Error  string `json:"error"`
	body   []byte
}

// post sends body to the box's path.
func (b *boxClient) post(t *testing.T, path string, body []byte) boxAnswer {
	resp, err := b.http.Post(b.url+path, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s%s: %v", b.url, path, err)
	}
	defer resp.Body.Close()
	a := boxAnswer{status: resp.StatusCode}
	if a.body, err = io.ReadAll(resp.Body); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		if err := json.Unmarshal(a.body, &a); err != nil {
			t.Fatalf("POST %s%s: %d %q: %v", b.url, path, resp.StatusCode, a.body, err)
		}
	}
	return a
}

// castBallot posts a ballot as the booth does.
func (b *boxClient) castBallot(t *testing.T, ballot []byte) boxAnswer {
	body, err := json.Marshal(box.BallotRequest{Ballot: base64.StdEncoding.EncodeToString(ballot)})
	if err != nil {
		t.Fatal(err)
	}
	return b.post(t, box.BallotsPath, body)
}

// droppingBox is a ballot box that answers every ballot with a plausible
// receipt (the ballot's own tracker, hash and pseudonym) and submits
// nothing: what the receipt check must catch.
type droppingBox struct {
	t        *testing.T
	origin   string // the booth's, which CORS lets in
	manifest []byte // the ledger's
}

func (d *droppingBox) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	w.Header().Set("Access-Control-Allow-Origin", d.origin)
	switch {
	case req.Method == http.MethodOptions:
		w.Header().Set("Access-Control-Allow-Methods", "GET, POST")
		w.Header().Set("Access-Control-Allow-Headers", "Content-Type")
		w.WriteHeader(http.StatusNoContent)
	case req.Method == http.MethodGet && req.URL.Path == box.ManifestPrefix+d.manifestID()+box.ManifestSuffix:
		w.Header().Set("Content-Type", "application/json")
		w.Write(d.manifest)
	case req.Method == http.MethodPost && req.URL.Path == box.BallotsPath:
		d.drop(w, req)
	default:
		d.t.Errorf("dropping box: unexpected %s %s", req.Method, req.URL.Path)
		http.NotFound(w, req)
	}
}

func (d *droppingBox) manifestID() string {
	m, err := election.ParseManifest(d.manifest)
	if err != nil {
		d.t.Error(err)
		return ""
	}
	return m.ElectionID
}

// drop answers the ballot's receipt, with a made-up transaction id.
func (d *droppingBox) drop(w http.ResponseWriter, req *http.Request) {
	var in box.BallotRequest
	err := json.NewDecoder(req.Body).Decode(&in)
	var raw []byte
	if err == nil {
		raw, err = base64.StdEncoding.DecodeString(in.Ballot)
	}
	var b *election.Ballot
	if err == nil {
		b, err = election.ParseBallot(raw)
	}
	if err != nil {
		d.t.Errorf("dropping box: the booth sent no ballot: %v", err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	hash := b.Hash()
	tx := sha256.Sum256(append([]byte("dropped"), raw...))
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(box.Receipt{ElectionID: b.ElectionID, Tracker: b.TrackerHex(), BallotHash: hex.EncodeToString(hash[:]),
		Pseudonym: b.PseudonymHex(), TxID: hex.EncodeToString(tx[:]), Block: 1})
}

// droppedBallot: a third voter casts, through a second registrar's booth,
// into a box that drops the ballot. The page shows a receipt; the receipt
// check finds no such ballot on the ledger and says so.
func (r *boothRun) droppedBallot(t *testing.T) {
	manifest, err := r.voter.GetManifest(r.c, r.m.ElectionID)
	if err != nil {
		t.Fatal(err)
	}
	siteAddr := nettest.FreeAddr(t)
	drop := &droppingBox{t: t, origin: "https://" + siteAddr, manifest: manifest}
	srv := httptest.NewUnstartedServer(drop)
	cert, err := tls.LoadX509KeyPair(r.tls.cert, r.tls.key)
	if err != nil {
		t.Fatal(err)
	}
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	r.startRegistrar(t, siteAddr, srv.URL, "roll-drop.state.db")

	v := &boothVoter{name: "dropped", d: boothtest.Pointer{}, lang: "en", roll: 2, cast: 0}
	p := boothtest.Open(t, drop.origin, v.lang, false, r.msgs, r.tls.chromiumFlags()...)
	v.d.Fill(t, p, r.codes[v.roll][0], r.codes[v.roll][1])
	p.WaitStep(t, "ballot")
	v.d.Choose(t, p, option(v.cast))
	v.d.Press(t, p, "make-button")
	p.WaitStep(t, "check")
	r.castShown(t, p, v, p.Tracker(t, "check-tracker"))

	pseud := r.pseudonym(t, r.codes[v.roll][0])
	rc := r.receiptFile(t, "dropped-receipt.json", r.codes[v.roll][0], v.hash, v.txID)
	out, code := r.Run(t, "receipt", "check", "--network", r.netPath, "--receipt", rc)
	if code != 1 || !regexp.MustCompile(fmt.Sprintf(`ballot of voter %s not found on the ledger`, pseud)).MatchString(out) {
		t.Fatalf("receipt check of a dropped ballot: exit %d, want 1 naming voter %s's missing ballot\n%s", code, pseud, out)
	}
}
