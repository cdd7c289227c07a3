package easigner

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/miekg/pkcs11"
)

func TestPEMRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ea.key")
	key, err := GeneratePEM(p)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v, want 0600", st.Mode().Perm())
	}
	got, err := LoadPEM(p)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(key) {
		t.Fatal("loaded key differs from generated key")
	}
	assertSigns(t, got)
}

func TestParsePEMErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"not pem", "hello", "no PEM block"},
		{"wrong type", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", "PEM block type"},
		{"garbage der", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "EA key x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParsePEM([]byte(tc.data), "x")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want mention of %q", err, tc.want)
			}
		})
	}
}

func assertSigns(t *testing.T, s crypto.Signer) {
	t.Helper()
	digest := sha256.Sum256([]byte("fabvote token"))
	sig, err := s.Sign(rand.Reader, digest[:], crypto.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	pub := s.Public().(*ecdsa.PublicKey)
	if !ecdsa.VerifyASN1(pub, digest[:], sig) {
		t.Fatal("signature does not verify under the signer's public key")
	}
	other := sha256.Sum256([]byte("other"))
	if ecdsa.VerifyASN1(pub, other[:], sig) {
		t.Fatal("signature verifies for a different digest")
	}
	if _, err := PublicKeyDER(s); err != nil {
		t.Fatal(err)
	}
}

// SoftHSMModule finds the SoftHSM2 PKCS#11 library, or "" if not installed.
func softHSMModule() string {
	for _, p := range []string{"/usr/lib/softhsm/libsofthsm2.so", "/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so", "/usr/local/lib/softhsm/libsofthsm2.so"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// NewSoftHSMToken creates a fresh SoftHSM2 token in a temporary directory and
// returns its config; it skips the test when softhsm2 is not installed.
func newSoftHSMToken(t *testing.T) PKCS11Config {
	t.Helper()
	module := softHSMModule()
	util, err := exec.LookPath("softhsm2-util")
	if module == "" || err != nil {
		t.Skip("softhsm2 is not installed (apt-get install -y softhsm2); skipping the PKCS#11 test")
	}
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens")
	if err := os.Mkdir(tokens, 0o700); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "softhsm2.conf")
	if err := os.WriteFile(conf, []byte("directories.tokendir = "+tokens+"\nobjectstore.backend = file\nlog.level = ERROR\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SOFTHSM2_CONF", conf)
	out, err := exec.Command(util, "--init-token", "--free", "--label", "fabvote-ea", "--pin", "1234", "--so-pin", "5678").CombinedOutput()
	if err != nil {
		t.Fatalf("softhsm2-util --init-token: %v\n%s", err, out)
	}
	return PKCS11Config{Module: module, Token: "fabvote-ea", PIN: "1234", KeyLabel: "ea-token-key"}
}

func TestPKCS11SoftHSM(t *testing.T) {
	cfg := newSoftHSMToken(t)
	s, err := GeneratePKCS11(cfg)
	if err != nil {
		t.Fatal(err)
	}
	assertSigns(t, s)
	pub := s.Public().(*ecdsa.PublicKey)
	s.Close()

	if _, err := GeneratePKCS11(cfg); err == nil || !strings.Contains(err.Error(), "already holds") {
		t.Fatalf("second generate: err = %v, want refusal", err)
	}
	s2, err := OpenPKCS11(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if !s2.Public().(*ecdsa.PublicKey).Equal(pub) {
		t.Fatal("reopened token key has a different public key")
	}
	assertSigns(t, s2)
}

func TestPKCS11Errors(t *testing.T) {
	cfg := newSoftHSMToken(t)
	tests := []struct {
		name string
		mod  func(*PKCS11Config)
		want string
	}{
		{"bad pin", func(c *PKCS11Config) { c.PIN = "0000" }, "--pkcs11-pin"},
		{"no token", func(c *PKCS11Config) { c.Token = "nope" }, `no token labelled "nope"`},
		{"no key", func(c *PKCS11Config) { c.KeyLabel = "missing" }, `0 private keys labelled "missing"`},
		{"empty module", func(c *PKCS11Config) { c.Module = "" }, "--pkcs11-module"},
		{"bad module", func(c *PKCS11Config) { c.Module = "/nonexistent/lib.so" }, "cannot load module"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := cfg
			tc.mod(&c)
			s, err := OpenPKCS11(c)
			if err == nil {
				s.Close()
				t.Fatal("expected an error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want mention of %q", err, tc.want)
			}
		})
	}
}

// TestPKCS11RefusesExportableKey: a key the token would reveal or export is
// refused, whatever else is right about it.
func TestPKCS11RefusesExportableKey(t *testing.T) {
	tests := []struct {
		name                   string
		sensitive, extractable bool
		want                   string
	}{
		{"extractable", true, true, "is CKA_EXTRACTABLE"},
		{"not sensitive", false, false, "is not CKA_SENSITIVE"},
		{"neither", false, true, "is not CKA_SENSITIVE"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := newSoftHSMToken(t)
			cfg.KeyLabel = "weak"
			generateWithAttrs(t, cfg, tc.sensitive, tc.extractable)
			s, err := OpenPKCS11(cfg)
			if err == nil {
				s.Close()
				t.Fatal("an exportable key was accepted")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want mention of %q", err, tc.want)
			}
		})
	}
	// A key made extractable and flipped to non-extractable afterwards may
	// already have been copied out: refused too.
	t.Run("flipped after creation", func(t *testing.T) {
		cfg := newSoftHSMToken(t)
		cfg.KeyLabel = "flipped"
		generateWithAttrs(t, cfg, true, true, pkcs11.NewAttribute(pkcs11.CKA_EXTRACTABLE, false))
		s, err := OpenPKCS11(cfg)
		if err == nil {
			s.Close()
			t.Fatal("a key that was once extractable was accepted")
		}
		if !strings.Contains(err.Error(), "is not CKA_NEVER_EXTRACTABLE") {
			t.Fatalf("err = %v, want mention of CKA_NEVER_EXTRACTABLE", err)
		}
	})
	// The same path accepts a sensitive, non-extractable key made the same way.
	cfg := newSoftHSMToken(t)
	cfg.KeyLabel = "strong"
	generateWithAttrs(t, cfg, true, false)
	s, err := OpenPKCS11(cfg)
	if err != nil {
		t.Fatalf("sensitive non-extractable key: %v", err)
	}
	s.Close()
}

// generateWithAttrs makes a P-256 key pair in the token with the given
// CKA_SENSITIVE and CKA_EXTRACTABLE, as a careless operator's tool might,
// then sets the private key's attributes in later (if any).
func generateWithAttrs(t *testing.T, cfg PKCS11Config, sensitive, extractable bool, later ...*pkcs11.Attribute) {
	t.Helper()
	ctx := pkcs11.New(cfg.Module)
	if err := ctx.Initialize(); err != nil {
		t.Fatal(err)
	}
	defer func() { ctx.Finalize(); ctx.Destroy() }()
	slot, err := findSlot(ctx, cfg.Token)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := ctx.OpenSession(slot, pkcs11.CKF_SERIAL_SESSION|pkcs11.CKF_RW_SESSION)
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.CloseSession(sess)
	if err := ctx.Login(sess, pkcs11.CKU_USER, cfg.PIN); err != nil {
		t.Fatal(err)
	}
	pubT, privT := keyPairTemplates(cfg.KeyLabel, sensitive, extractable)
	_, priv, err := ctx.GenerateKeyPair(sess, []*pkcs11.Mechanism{pkcs11.NewMechanism(pkcs11.CKM_EC_KEY_PAIR_GEN, nil)}, pubT, privT)
	if err != nil {
		t.Fatal(err)
	}
	if len(later) > 0 {
		if err := ctx.SetAttributeValue(sess, priv, later); err != nil {
			t.Fatalf("set key attributes: %v", err)
		}
	}
}
