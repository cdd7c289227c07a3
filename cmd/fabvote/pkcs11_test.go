package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/election"
)

// softHSM creates a SoftHSM2 token in a temporary directory and returns the
// module path; it skips when softhsm2 is not installed.
func softHSM(t *testing.T, label, pin string) string {
	t.Helper()
	var module string
	for _, p := range []string{"/usr/lib/softhsm/libsofthsm2.so", "/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so", "/usr/local/lib/softhsm/libsofthsm2.so"} {
		if _, err := os.Stat(p); err == nil {
			module = p
			break
		}
	}
	util, err := exec.LookPath("softhsm2-util")
	if module == "" || err != nil {
		t.Skip("softhsm2 is not installed (apt-get install -y softhsm2); skipping the PKCS#11 CLI test")
	}
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "tokens"), 0o700)
	conf := filepath.Join(dir, "softhsm2.conf")
	os.WriteFile(conf, []byte("directories.tokendir = "+filepath.Join(dir, "tokens")+"\nobjectstore.backend = file\nlog.level = ERROR\n"), 0o600)
	t.Setenv("SOFTHSM2_CONF", conf)
	if out, err := exec.Command(util, "--init-token", "--free", "--label", label, "--pin", pin, "--so-pin", "99999999").CombinedOutput(); err != nil {
		t.Fatalf("softhsm2-util: %v\n%s", err, out)
	}
	return module
}

// TestPKCS11EAKey: the EA key is created in and used from a PKCS#11 token;
// tokens it signs verify under the manifest's token key, and no key file is written.
func TestPKCS11EAKey(t *testing.T) {
	module := softHSM(t, "ea-token", "4321")
	t.Setenv("FABVOTE_PKCS11_PIN", "4321")
	quietStdout(t)
	dir := t.TempDir()
	p := func(s string) string { return filepath.Join(dir, s) }
	hsm := []string{"--pkcs11-module", module, "--pkcs11-token", "ea-token", "--pkcs11-label", "ea-1"}

	args := append([]string{"election", "create", "--election", "hsm-1", "--candidates", "a,b", "--max-voters", "10", "--out", p("el")}, hsm...)
	if code, errs := fv(t, args...); code != 0 {
		t.Fatalf("election create with PKCS#11: %s", errs)
	}
	if _, err := os.Stat(p("el/ea.key")); err == nil {
		t.Fatal("an EA key file was written although the key lives in the token")
	}
	args = append([]string{"register", "--offline", "--manifest", p("el/manifest.json"), "--voters", "3", "--out", p("voters.jsonl")}, hsm...)
	if code, errs := fv(t, args...); code != 2 || !strings.Contains(errs, "--pseudonym-key is required") {
		t.Fatalf("register --offline with PKCS#11 and no pseudonym key: exit %d %s", code, errs)
	}
	args = append(args, "--pseudonym-key", p("el/pseudonym.key"))
	if code, errs := fv(t, args...); code != 0 {
		t.Fatalf("register --offline with PKCS#11: %s", errs)
	}
	if n := checkVoterTokens(t, p("el/manifest.json"), p("voters.jsonl")); n != 3 {
		t.Fatalf("%d voters, want 3", n)
	}
	checkPKCS11Mistakes(t, module, p)
	checkPINFile(t, p, hsm)
}

// checkVoterTokens checks that every token of the voters file verifies
// under the manifest's token key and returns their number.
func checkVoterTokens(t *testing.T, manifestPath, votersPath string) int {
	mb, _ := os.ReadFile(manifestPath)
	m, err := election.ParseManifest(mb)
	if err != nil {
		t.Fatal(err)
	}
	prep, _ := election.Prepare(m)
	f, _ := os.Open(votersPath)
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line, key, err := parseVoterLine(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		pub, _ := key.PublicKey.Bytes()
		if err := prep.VerifyToken(pub, line.Token); err != nil {
			t.Fatalf("token %d signed in the HSM does not verify: %v", n, err)
		}
		n++
	}
	return n
}

// checkPKCS11Mistakes: a wrong PIN, a wrong label and two EA keys are named.
func checkPKCS11Mistakes(t *testing.T, module string, p func(string) string) {
	bad := []struct {
		flags []string
		want  string
	}{
		{[]string{"--pkcs11-module", module, "--pkcs11-token", "ea-token", "--pkcs11-label", "ea-1", "--pkcs11-pin", "0000"}, "--pkcs11-pin"},
		{[]string{"--pkcs11-module", module, "--pkcs11-token", "ea-token", "--pkcs11-label", "nope"}, `labelled "nope"`},
		{[]string{"--pkcs11-module", module, "--pkcs11-token", "ea-token", "--pkcs11-label", "ea-1", "--ea-key", p("x")}, "not both"},
	}
	for _, b := range bad {
		args := append([]string{"register", "--offline", "--manifest", p("el/manifest.json"), "--voters", "1", "--out", p("v2.jsonl")}, b.flags...)
		code, errs := fv(t, args...)
		if code == 0 || !strings.Contains(errs, b.want) {
			t.Errorf("flags %v: exit %d, stderr %q; want mention of %q", b.flags, code, errs, b.want)
		}
	}
}

// checkPINFile: the PIN from a file or standard input, with no PIN in the
// environment; not together with --pkcs11-pin.
func checkPINFile(t *testing.T, p func(string) string, hsm []string) {
	t.Setenv("FABVOTE_PKCS11_PIN", "")
	os.WriteFile(p("pin"), []byte("4321\n"), 0o600)
	old := stdin
	defer func() { stdin = old }()
	stdin = strings.NewReader("4321\n")
	for _, pinFile := range []string{p("pin"), "-"} {
		args := append([]string{"register", "--offline", "--manifest", p("el/manifest.json"), "--voters", "1", "--out", p("v3.jsonl"), "--pkcs11-pin-file", pinFile, "--pseudonym-key", p("el/pseudonym.key")}, hsm...)
		if code, errs := fv(t, args...); code != 0 {
			t.Fatalf("--pkcs11-pin-file %s: %s", pinFile, errs)
		}
	}
	args := append([]string{"register", "--offline", "--manifest", p("el/manifest.json"), "--voters", "1", "--out", p("v3.jsonl"), "--pkcs11-pin-file", p("pin"), "--pkcs11-pin", "4321", "--pseudonym-key", p("el/pseudonym.key")}, hsm...)
	if code, errs := fv(t, args...); code != 2 || !strings.Contains(errs, "not both") {
		t.Fatalf("PIN given twice: %d %s", code, errs)
	}
}
