package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabvote/fabvote/crypto/dkg/keygen/keygentest"
	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/crypto/paillier/threshold/thresholdtest"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/ceremony/config"
	"github.com/fabvote/fabvote/internal/ceremony/envelope"
	"github.com/fabvote/fabvote/internal/ceremony/relay"
	"github.com/fabvote/fabvote/internal/cli/clitest"
	"github.com/fabvote/fabvote/internal/keyfile"
	"github.com/fabvote/fabvote/internal/sharebox"
)

// ceremonySetup is a 2-of-3 ceremony ready to run: the trustees' keygen
// directories, a configuration naming them and a relay.
type ceremonySetup struct {
	root   string
	dirs   []string // trustee i's keygen directory at i−1
	config string   // the configuration file
	digest string
}

// newCeremonySetup runs `trustee keygen` three times and `ceremony config`
// for a relay at relayURL.
func newCeremonySetup(t *testing.T, relayURL string) *ceremonySetup {
	t.Helper()
	root := t.TempDir()
	s := &ceremonySetup{root: root, config: filepath.Join(root, "ceremony-config.json")}
	args := []string{"ceremony", "config", "--k", "2", "--relay", relayURL, "--out", s.config}
	for _, name := range []string{"alice", "bob", "carol"} {
		d := filepath.Join(root, name)
		if code, stderr := fv(t, "trustee", "keygen", "--out", d); code != 0 {
			t.Fatalf("trustee keygen: exit %d: %s", code, stderr)
		}
		s.dirs = append(s.dirs, d)
		args = append(args, "--trustee", name+"="+d)
	}
	if code, stderr := fv(t, args...); code != 0 {
		t.Fatalf("ceremony config: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(s.config)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	s.digest = cfg.DigestHex()
	return s
}

// startRelay serves a relay on a loopback port of the system's choosing.
func startRelay(t *testing.T) string {
	t.Helper()
	s, err := relay.New(relay.DefaultLimits(), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv.URL
}

// The keygen directory holds both key pairs, and a second keygen into it
// is refused without touching either.
func TestTrusteeKeygenSigningKey(t *testing.T) {
	quietStdout(t)
	d := filepath.Join(t.TempDir(), "t")
	if code, stderr := fv(t, "trustee", "keygen", "--out", d); code != 0 {
		t.Fatalf("trustee keygen: exit %d: %s", code, stderr)
	}
	for _, f := range []string{sharebox.IdentityFile, sharebox.RecipientFile, keyfile.SigningKeyFile, keyfile.SigningPubFile} {
		if _, err := os.Stat(filepath.Join(d, f)); err != nil {
			t.Errorf("keygen wrote no %s: %v", f, err)
		}
	}
	if _, err := keyfile.ReadSigningKey(filepath.Join(d, keyfile.SigningKeyFile)); err != nil {
		t.Errorf("the signing key does not read back: %v", err)
	}
	before, _ := os.ReadFile(filepath.Join(d, keyfile.SigningKeyFile))
	code, stderr := fv(t, "trustee", "keygen", "--out", d)
	if code != 1 || !strings.Contains(stderr, "already exists") {
		t.Errorf("a second keygen: exit %d, stderr %q; want 1 and already exists", code, stderr)
	}
	if after, _ := os.ReadFile(filepath.Join(d, keyfile.SigningKeyFile)); !bytes.Equal(before, after) {
		t.Error("a refused keygen changed the signing key")
	}
	// An identity alone (of an older keygen) is refused too: keygen writes
	// no signing key without a fresh identity.
	d2 := filepath.Join(t.TempDir(), "old")
	if _, err := sharebox.GenerateIdentity(d2); err != nil {
		t.Fatal(err)
	}
	if code, _ := fv(t, "trustee", "keygen", "--out", d2); code != 1 {
		t.Errorf("keygen into a directory with an identity: exit %d, want 1", code)
	}
	if _, err := os.Stat(filepath.Join(d2, keyfile.SigningKeyFile)); !os.IsNotExist(err) {
		t.Errorf("a refused keygen wrote a signing key (stat: %v)", err)
	}
}

// ceremony config refuses each kind of bad trustee list, naming it, and
// writes nothing.
func TestCeremonyConfigRefusals(t *testing.T) {
	quietStdout(t)
	s := newCeremonySetup(t, "http://relay.invalid")
	out := filepath.Join(t.TempDir(), "c.json")
	base := []string{"ceremony", "config", "--k", "2", "--relay", "http://relay.invalid", "--out", out}
	trustees := []string{"--trustee", "a=" + s.dirs[0], "--trustee", "b=" + s.dirs[1], "--trustee", "c=" + s.dirs[2]}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no NAME=", append(append([]string{}, base...), "--trustee", s.dirs[0]), 2, "want NAME=DIR"},
		{"two trustees", append(append([]string{}, base...), trustees[:4]...), 2, "n 2"},
		{"k above n", append([]string{"ceremony", "config", "--k", "4", "--relay", "http://relay.invalid", "--out", out}, trustees...), 2, "k 4"},
		{"bad relay", append([]string{"ceremony", "config", "--k", "2", "--relay", "ftp://x", "--out", out}, trustees...), 2, "http or https"},
		{"same trustee twice", append(append([]string{}, base...), "--trustee", "a="+s.dirs[0], "--trustee", "b="+s.dirs[0], "--trustee", "c="+s.dirs[2]), 2, "the same"},
		{"no keygen dir", append(append([]string{}, base...), "--trustee", "a="+s.dirs[0], "--trustee", "b="+s.dirs[1], "--trustee", "c=/nonexistent"), 1, "--trustee c"},
		{"existing out", append([]string{"ceremony", "config", "--k", "2", "--relay", "http://relay.invalid", "--out", s.config}, trustees...), 1, "already exists"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stderr := fv(t, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("a refused ceremony config wrote %s", out)
			}
		})
	}
}

// trustee ceremony refuses each kind of bad input before or at its first
// round, with a clear error, and writes nothing into --out.
func TestTrusteeCeremonyRefusals(t *testing.T) {
	quietStdout(t)
	// A port that was free a moment ago: nothing answers there.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadURL := "http://" + ln.Addr().String()
	ln.Close()
	s := newCeremonySetup(t, deadURL)
	other := newCeremonySetup(t, deadURL)
	stranger := filepath.Join(t.TempDir(), "stranger")
	if code, stderr := fv(t, "trustee", "keygen", "--out", stranger); code != 0 {
		t.Fatal(stderr)
	}
	unreadable := filepath.Join(t.TempDir(), "unreadable")
	if err := os.MkdirAll(unreadable, 0o700); err != nil {
		t.Fatal(err)
	}
	full := t.TempDir()
	os.WriteFile(filepath.Join(full, "x"), []byte("x"), 0o600)
	run := func(cfg, digest, id, out string) []string {
		return []string{"trustee", "ceremony", "--config", cfg, "--expect-digest", digest, "--identity", id, "--out", out, "--timeout", "1s"}
	}
	for _, tc := range []struct {
		name string
		args func(out string) []string
		code int
		want string
	}{
		{"wrong digest", func(o string) []string { return run(s.config, other.digest, s.dirs[0], o) }, 1, "the trustees hold different configurations"},
		{"bad digest", func(o string) []string { return run(s.config, "xyz", s.dirs[0], o) }, 1, "hex digits"},
		{"unknown signing key", func(o string) []string { return run(s.config, s.digest, stranger, o) }, 1, "is not a trustee's of ceremony"},
		{"unreadable identity", func(o string) []string { return run(s.config, s.digest, unreadable, o) }, 1, "--identity"},
		{"config for another ceremony", func(o string) []string { return run(other.config, other.digest, s.dirs[0], o) }, 1, "is not a trustee's of ceremony"},
		{"out not empty", func(string) []string { return run(s.config, s.digest, s.dirs[0], full) }, 1, "is not empty"},
		{"relay unreachable", func(o string) []string { return run(s.config, s.digest, s.dirs[0], o) }, 1, "posting to the relay"},
		{"batch out of range", func(o string) []string { return append(run(s.config, s.digest, s.dirs[0], o), "--batch", "0") }, 2, "--batch 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			code, stderr := fv(t, tc.args(out)...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.want)
			}
			if entries, _ := os.ReadDir(out); len(entries) > 0 {
				t.Errorf("a failed ceremony left %d files in --out", len(entries))
			}
		})
	}
}

// A silent trustee is named when the round times out, and nothing is
// written.
func TestTrusteeCeremonySilentTrustee(t *testing.T) {
	quietStdout(t)
	s := newCeremonySetup(t, startRelay(t))
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range 2 { // carol never comes
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := &trusteeCeremonyOptions{configPath: s.config, digest: s.digest, identity: s.dirs[i],
				out: filepath.Join(s.root, fmt.Sprint("out-", i)), evidence: s.root, batch: 8, timeout: 2 * time.Second}
			errs[i] = o.run(context.Background())
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "trustee 3 (carol)") {
			t.Errorf("trustee %d: %v; want an error naming trustee 3 (carol)", i+1, err)
		}
		if _, err := os.Stat(filepath.Join(s.root, fmt.Sprint("out-", i))); !os.IsNotExist(err) {
			t.Errorf("trustee %d: a failed ceremony made --out (stat: %v)", i+1, err)
		}
	}
}

// TestCeremonyWhole runs a 2-of-3 ceremony of a 2048-bit N through a real
// relay, three trustee ceremony runs at once, then election create
// --key-from: the manifest's key verifies, any two trustees' sealed shares
// decrypt, and each --out holds its own sealed share and the public result
// only.
func TestCeremonyWhole(t *testing.T) {
	if testing.Short() {
		t.Skip("a 2048-bit ceremony")
	}
	quietStdout(t)
	s := newCeremonySetup(t, startRelay(t))
	outs := make([]string, 3)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for i := range 3 {
		outs[i] = filepath.Join(s.root, fmt.Sprint("out-", i+1))
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := &trusteeCeremonyOptions{configPath: s.config, digest: s.digest, identity: s.dirs[i],
				out: outs[i], evidence: s.root, batch: 256, timeout: 2 * time.Minute}
			errs[i] = o.run(context.Background())
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("trustee %d: %v", i+1, err)
		}
	}
	results := checkCeremonyOuts(t, s, outs)
	for i := 1; i < 3; i++ {
		if !bytes.Equal(results[i], results[0]) {
			t.Fatalf("trustee %d's ceremony.json differs from trustee 1's", i+1)
		}
	}
	el := filepath.Join(s.root, "election")
	code, stderr := fv(t, "election", "create", "--election", "c1", "--candidates", "a,b", "--max-voters", "10",
		"--out", el, "--key-from", filepath.Join(outs[0], ceremonyResultFile))
	if code != 0 {
		t.Fatalf("election create --key-from: exit %d: %s", code, stderr)
	}
	m, _, err := loadManifest(filepath.Join(el, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if m.KeyOrigin != election.KeyOriginDistributed || m.CheckKeyOrigin() != nil {
		t.Fatalf("manifest keyOrigin %q, CheckKeyOrigin %v; want distributed and nil", m.KeyOrigin, m.CheckKeyOrigin())
	}
	if matches, _ := filepath.Glob(filepath.Join(el, "*.share.age")); len(matches) > 0 {
		t.Errorf("election create --key-from wrote shares: %v", matches)
	}
	checkSharesDecrypt(t, m, s, outs)
}

// checkCeremonyOuts checks that each --out holds exactly its sealed share,
// which opens with its own trustee's identity only, and ceremony.json,
// which parses strictly as public data; it returns the ceremony.json bytes.
func checkCeremonyOuts(t *testing.T, s *ceremonySetup, outs []string) [][]byte {
	t.Helper()
	ids := identities(t, s.dirs)
	var results [][]byte
	for i, out := range outs {
		entries, err := os.ReadDir(out)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if strings.Join(names, ",") != ceremonyResultFile+","+trusteeShareFile {
			t.Errorf("trustee %d's --out holds %v, want %s and %s only", i+1, names, ceremonyResultFile, trusteeShareFile)
		}
		for j := range ids {
			ks, err := sharebox.ReadSealedFile(filepath.Join(out, trusteeShareFile), ids[j]...)
			if (err == nil) != (i == j) {
				t.Errorf("trustee %d's share opened with trustee %d's identity: %v", i+1, j+1, err)
			}
			if err == nil && ks.Index != i+1 {
				t.Errorf("trustee %d's --out holds the share of trustee %d", i+1, ks.Index)
			}
		}
		if _, err := readCeremonyResult(filepath.Join(out, ceremonyResultFile)); err != nil {
			t.Errorf("trustee %d's ceremony.json: %v", i+1, err)
		}
		b, _ := os.ReadFile(filepath.Join(out, ceremonyResultFile))
		var fields map[string]json.RawMessage
		json.Unmarshal(b, &fields)
		for k := range fields {
			switch k {
			case "ceremony", "configDigest", "n", "k", "paillierKey", "threshold", "keyCeremony":
			default:
				t.Errorf("trustee %d's ceremony.json has a field %q", i+1, k)
			}
		}
		results = append(results, b)
	}
	return results
}

// checkSharesDecrypt checks that every two trustees' sealed shares
// (version 2) decrypt a ciphertext under the manifest's key.
func checkSharesDecrypt(t *testing.T, m *election.Manifest, s *ceremonySetup, outs []string) {
	t.Helper()
	pp, err := threshold.ParsePublicParams(m.Threshold)
	if err != nil {
		t.Fatal(err)
	}
	ids := identities(t, s.dirs)
	shares := make([]*threshold.KeyShare, 3)
	for i := range outs {
		if shares[i], err = sharebox.ReadSealedFile(filepath.Join(outs[i], trusteeShareFile), ids[i]...); err != nil {
			t.Fatal(err)
		}
		// What trustee decrypt checks before it decrypts a tally.
		if err := shares[i].Check(pp); err != nil {
			t.Errorf("trustee %d's share does not check against the manifest: %v", i+1, err)
		}
	}
	msg := big.NewInt(4242)
	c, _, err := pp.PublicKey.Encrypt(rand.Reader, msg)
	if err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]int{{0, 1}, {0, 2}, {1, 2}} {
		var parts []*threshold.PartialDecryption
		for _, i := range pair {
			pd, err := thresholdtest.PartialDecrypt(shares[i], pp, c)
			if err != nil {
				t.Fatal(err)
			}
			parts = append(parts, pd)
		}
		got, err := pp.Combine(c, parts)
		if err != nil || got.Cmp(msg) != 0 {
			t.Errorf("trustees %d and %d decrypt to %v (%v), want %v", pair[0]+1, pair[1]+1, got, err, msg)
		}
	}
}

// writeFixtureResult writes the committed test ceremony's public result
// (keygentest) as ceremony.json, after edit.
func writeFixtureResult(t *testing.T, edit func(*ceremonyResult)) string {
	t.Helper()
	kf, err := keygentest.Load()
	if err != nil {
		t.Fatal(err)
	}
	r := &ceremonyResult{Ceremony: hex.EncodeToString(kf.Ceremony), ConfigDigest: strings.Repeat("00", 32), N: 3, K: 2,
		PaillierKey: kf.PaillierKey, Threshold: kf.Threshold,
		KeyCeremony: election.KeyCeremony{ID: kf.Ceremony, ModulusProof: kf.ModulusProof, SelfTest: kf.SelfTest}}
	edit(r)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), ceremonyResultFile)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// election create --key-from takes a verified result, refuses a bad one
// (one test per kind) and then writes nothing.
func TestElectionCreateKeyFrom(t *testing.T) {
	quietStdout(t)
	create := func(out string, extra ...string) []string {
		return append([]string{"election", "create", "--election", "k1", "--candidates", "a,b", "--max-voters", "10", "--out", out}, extra...)
	}
	good := writeFixtureResult(t, func(*ceremonyResult) {})
	out := filepath.Join(t.TempDir(), "el")
	if code, stderr := fv(t, create(out, "--key-from", good)...); code != 0 {
		t.Fatalf("election create --key-from: exit %d: %s", code, stderr)
	}
	m, _, err := loadManifest(filepath.Join(out, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if m.KeyOrigin != election.KeyOriginDistributed || m.KeyCeremony == nil || m.CheckKeyOrigin() != nil {
		t.Errorf("keyOrigin %q, keyCeremony %v: want a distributed key that checks", m.KeyOrigin, m.KeyCeremony)
	}
	for _, tc := range []struct {
		name string
		args func(out string) []string
		code int
		want string
	}{
		{"with --trustees", func(o string) []string { return create(o, "--key-from", good, "--trustees", "3") }, 2, "no --trustees"},
		{"with --bits", func(o string) []string { return create(o, "--key-from", good, "--bits", "3072") }, 2, "--bits"},
		{"missing file", func(o string) []string { return create(o, "--key-from", "/nonexistent/ceremony.json") }, 1, "--key-from"},
		{"unknown field", func(o string) []string {
			p := writeFixtureResult(t, func(*ceremonyResult) {})
			b, _ := os.ReadFile(p)
			os.WriteFile(p, append(b[:len(b)-1], []byte(`,"keyShares":[]}`)...), 0o644)
			return create(o, "--key-from", p)
		}, 1, "unknown field"},
		{"bad modulus proof", func(o string) []string {
			return create(o, "--key-from", writeFixtureResult(t, func(r *ceremonyResult) {
				r.KeyCeremony.ModulusProof = append([]byte(nil), r.KeyCeremony.ModulusProof...)
				r.KeyCeremony.ModulusProof[len(r.KeyCeremony.ModulusProof)-1] ^= 1
			}))
		}, 1, "does not verify"},
		{"self-test of another ceremony", func(o string) []string {
			return create(o, "--key-from", writeFixtureResult(t, func(r *ceremonyResult) {
				r.KeyCeremony.ID = bytes.Repeat([]byte{7}, len(r.KeyCeremony.ID))
			}))
		}, 1, "does not verify"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "el")
			var code int
			var stderr string
			clitest.Capture(t, &os.Stderr, func() { code, stderr = fv(t, tc.args(out)...) })
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("a refused election create left %s (stat: %v)", out, err)
			}
		})
	}
}

// An equivocation fails the ceremony with an error naming the trustee, and
// its two signed messages are written to --evidence.
func TestTrusteeCeremonyEquivocationEvidence(t *testing.T) {
	dir := t.TempDir()
	o := &trusteeCeremonyOptions{evidence: dir}
	eq := &envelope.EquivocationError{From: 2, Name: "bob", Seq: 5, First: []byte("one"), Second: []byte("two")}
	err := o.failed(fmt.Errorf("protocol: round x: %w", eq))
	if err == nil || !strings.Contains(err.Error(), "trustee 2 (bob) equivocates") {
		t.Fatalf("error %v: want it to name trustee 2 (bob)", err)
	}
	b, rerr := os.ReadFile(filepath.Join(dir, "equivocation-trustee-2-seq-5.json"))
	if rerr != nil || !strings.Contains(err.Error(), "equivocation-trustee-2-seq-5.json") {
		t.Fatalf("no evidence file named in the error: %v, %v", rerr, err)
	}
	var ev struct{ Messages [][]byte }
	if json.Unmarshal(b, &ev) != nil || len(ev.Messages) != 2 || string(ev.Messages[0]) != "one" || string(ev.Messages[1]) != "two" {
		t.Errorf("evidence %s: want both messages", b)
	}
}
