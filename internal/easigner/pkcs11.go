package easigner

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"encoding/asn1"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"
	"sync"

	"github.com/miekg/pkcs11"
)

// PKCS11Config names a key in a PKCS#11 token.
type PKCS11Config struct {
	Module   string // path of the PKCS#11 library, e.g. /usr/lib/softhsm/libsofthsm2.so
	Token    string // token label
	PIN      string // user PIN
	KeyLabel string // CKA_LABEL of the key pair
}

func (c PKCS11Config) check() error {
	switch {
	case c.Module == "":
		return errors.New("pkcs11: module path is empty (--pkcs11-module)")
	case c.Token == "":
		return errors.New("pkcs11: token label is empty (--pkcs11-token)")
	case c.PIN == "":
		return errors.New("pkcs11: PIN is empty (--pkcs11-pin)")
	case c.KeyLabel == "":
		return errors.New("pkcs11: key label is empty (--pkcs11-label)")
	}
	return nil
}

// oidP256 is the DER encoding of the named curve prime256v1, CKA_EC_PARAMS.
var oidP256 = []byte{0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07}

// PKCS11Signer signs with a P-256 key that never leaves the token.
// A PKCS#11 session is not safe for concurrent use, so Sign serialises.
type PKCS11Signer struct {
	mu      sync.Mutex
	ctx     *pkcs11.Ctx
	session pkcs11.SessionHandle
	priv    pkcs11.ObjectHandle
	pub     *ecdsa.PublicKey
}

// OpenPKCS11 finds the key pair labelled cfg.KeyLabel in the token cfg.Token.
func OpenPKCS11(cfg PKCS11Config) (*PKCS11Signer, error) {
	return openPKCS11(cfg, false)
}

// GeneratePKCS11 creates a new P-256 key pair in the token under cfg.KeyLabel.
// It refuses if a key with that label exists, so an EA key is never shadowed.
func GeneratePKCS11(cfg PKCS11Config) (*PKCS11Signer, error) {
	return openPKCS11(cfg, true)
}

// openPKCS11 logs in to the token and finds the key pair, or generates it.
func openPKCS11(cfg PKCS11Config, generate bool) (_ *PKCS11Signer, err error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	ctx, err := loadModule(cfg.Module)
	if err != nil {
		return nil, err
	}
	s := &PKCS11Signer{ctx: ctx}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if err := s.login(cfg); err != nil {
		return nil, err
	}
	var pubH pkcs11.ObjectHandle
	if generate {
		pubH, err = s.generateKeyPair(cfg)
	} else {
		pubH, err = s.findKeyPair(cfg)
	}
	if err != nil {
		return nil, err
	}
	s.pub, err = s.readPublic(pubH)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// loadModule loads and initialises the PKCS#11 library at path.
func loadModule(path string) (*pkcs11.Ctx, error) {
	ctx := pkcs11.New(path)
	if ctx == nil {
		return nil, fmt.Errorf("pkcs11: cannot load module %s", path)
	}
	if err := ctx.Initialize(); err != nil {
		ctx.Destroy()
		return nil, fmt.Errorf("pkcs11: initialize %s: %w", path, err)
	}
	return ctx, nil
}

// login opens a read-write session on the token cfg.Token and logs in as
// its user. The session is kept even when the login fails, so that Close
// ends it.
func (s *PKCS11Signer) login(cfg PKCS11Config) error {
	slot, err := findSlot(s.ctx, cfg.Token)
	if err != nil {
		return err
	}
	s.session, err = s.ctx.OpenSession(slot, pkcs11.CKF_SERIAL_SESSION|pkcs11.CKF_RW_SESSION)
	if err != nil {
		return fmt.Errorf("pkcs11: open session on token %q: %w", cfg.Token, err)
	}
	if err := s.ctx.Login(s.session, pkcs11.CKU_USER, cfg.PIN); err != nil {
		return fmt.Errorf("pkcs11: login to token %q (check --pkcs11-pin): %w", cfg.Token, err)
	}
	return nil
}

// generateKeyPair creates the key pair labelled cfg.KeyLabel, refusing if
// a private key with that label exists, and returns the public key's handle.
func (s *PKCS11Signer) generateKeyPair(cfg PKCS11Config) (pkcs11.ObjectHandle, error) {
	privs, err := s.find(pkcs11.CKO_PRIVATE_KEY, cfg.KeyLabel)
	if err != nil {
		return 0, err
	}
	if len(privs) > 0 {
		return 0, fmt.Errorf("pkcs11: token %q already holds a key labelled %q", cfg.Token, cfg.KeyLabel)
	}
	pubH, priv, err := s.generate(cfg.KeyLabel)
	if err != nil {
		return 0, err
	}
	s.priv = priv
	return pubH, nil
}

// findKeyPair finds the one private key labelled cfg.KeyLabel, checks that
// it cannot leave the token, and returns the handle of the one public key
// with that label.
func (s *PKCS11Signer) findKeyPair(cfg PKCS11Config) (pkcs11.ObjectHandle, error) {
	privs, err := s.find(pkcs11.CKO_PRIVATE_KEY, cfg.KeyLabel)
	if err != nil {
		return 0, err
	}
	if len(privs) != 1 {
		return 0, fmt.Errorf("pkcs11: token %q holds %d private keys labelled %q, want 1", cfg.Token, len(privs), cfg.KeyLabel)
	}
	s.priv = privs[0]
	if err := s.checkKeyStaysInToken(cfg.KeyLabel); err != nil {
		return 0, err
	}
	pubs, err := s.find(pkcs11.CKO_PUBLIC_KEY, cfg.KeyLabel)
	if err != nil {
		return 0, err
	}
	if len(pubs) != 1 {
		return 0, fmt.Errorf("pkcs11: token %q holds %d public keys labelled %q, want 1", cfg.Token, len(pubs), cfg.KeyLabel)
	}
	return pubs[0], nil
}

func findSlot(ctx *pkcs11.Ctx, label string) (uint, error) {
	slots, err := ctx.GetSlotList(true)
	if err != nil {
		return 0, fmt.Errorf("pkcs11: list slots: %w", err)
	}
	var seen []string
	for _, sl := range slots {
		ti, err := ctx.GetTokenInfo(sl)
		if err != nil {
			continue
		}
		l := strings.TrimRight(ti.Label, " \x00")
		if l == label {
			return sl, nil
		}
		seen = append(seen, l)
	}
	return 0, fmt.Errorf("pkcs11: no token labelled %q (tokens present: %q)", label, seen)
}

func (s *PKCS11Signer) find(class uint, label string) ([]pkcs11.ObjectHandle, error) {
	tmpl := []*pkcs11.Attribute{
		pkcs11.NewAttribute(pkcs11.CKA_CLASS, class),
		pkcs11.NewAttribute(pkcs11.CKA_LABEL, label),
	}
	if err := s.ctx.FindObjectsInit(s.session, tmpl); err != nil {
		return nil, fmt.Errorf("pkcs11: find %q: %w", label, err)
	}
	hs, _, err := s.ctx.FindObjects(s.session, 4)
	if ferr := s.ctx.FindObjectsFinal(s.session); err == nil {
		err = ferr
	}
	if err != nil {
		return nil, fmt.Errorf("pkcs11: find %q: %w", label, err)
	}
	return hs, nil
}

func (s *PKCS11Signer) generate(label string) (pkcs11.ObjectHandle, pkcs11.ObjectHandle, error) {
	pubT, privT := keyPairTemplates(label, true, false)
	pub, priv, err := s.ctx.GenerateKeyPair(s.session,
		[]*pkcs11.Mechanism{pkcs11.NewMechanism(pkcs11.CKM_EC_KEY_PAIR_GEN, nil)}, pubT, privT)
	if err != nil {
		return 0, 0, fmt.Errorf("pkcs11: generate P-256 key %q: %w", label, err)
	}
	return pub, priv, nil
}

// keyPairTemplates are the attributes of a P-256 token key pair. The EA key
// is made sensitive and not extractable; tests make the other kinds.
func keyPairTemplates(label string, sensitive, extractable bool) (pub, priv []*pkcs11.Attribute) {
	pub = []*pkcs11.Attribute{
		pkcs11.NewAttribute(pkcs11.CKA_TOKEN, true),
		pkcs11.NewAttribute(pkcs11.CKA_VERIFY, true),
		pkcs11.NewAttribute(pkcs11.CKA_EC_PARAMS, oidP256),
		pkcs11.NewAttribute(pkcs11.CKA_LABEL, label),
	}
	priv = []*pkcs11.Attribute{
		pkcs11.NewAttribute(pkcs11.CKA_TOKEN, true),
		pkcs11.NewAttribute(pkcs11.CKA_PRIVATE, true),
		pkcs11.NewAttribute(pkcs11.CKA_SENSITIVE, sensitive),
		pkcs11.NewAttribute(pkcs11.CKA_EXTRACTABLE, extractable),
		pkcs11.NewAttribute(pkcs11.CKA_SIGN, true),
		pkcs11.NewAttribute(pkcs11.CKA_LABEL, label),
	}
	return pub, priv
}

// checkKeyStaysInToken refuses a private key the token would hand out, or
// might once have handed out: it must be CKA_SENSITIVE (never revealed in
// plaintext) and not CKA_EXTRACTABLE (never exported, not even wrapped), and
// must always have been so (CKA_ALWAYS_SENSITIVE, CKA_NEVER_EXTRACTABLE: a
// key made extractable and flipped later may already be copied). Such a key
// could live outside the HSM, which then protects nothing.
func (s *PKCS11Signer) checkKeyStaysInToken(label string) error {
	flags, err := s.boolAttributes(pkcs11.CKA_SENSITIVE, pkcs11.CKA_EXTRACTABLE,
		pkcs11.CKA_ALWAYS_SENSITIVE, pkcs11.CKA_NEVER_EXTRACTABLE)
	if err != nil {
		return fmt.Errorf("pkcs11: read the attributes of key %q: %w", label, err)
	}
	const fix = "generate a new key with `fabvote election create --pkcs11-…`"
	switch {
	case !flags[pkcs11.CKA_SENSITIVE]:
		return fmt.Errorf("pkcs11: key %q is not CKA_SENSITIVE: the token would reveal it; %s", label, fix)
	case flags[pkcs11.CKA_EXTRACTABLE]:
		return fmt.Errorf("pkcs11: key %q is CKA_EXTRACTABLE: it could be exported from the token; %s", label, fix)
	case !flags[pkcs11.CKA_ALWAYS_SENSITIVE]:
		return fmt.Errorf("pkcs11: key %q is not CKA_ALWAYS_SENSITIVE: it was once readable and may have been copied; %s", label, fix)
	case !flags[pkcs11.CKA_NEVER_EXTRACTABLE]:
		return fmt.Errorf("pkcs11: key %q is not CKA_NEVER_EXTRACTABLE: it was once exportable and may have been copied; %s", label, fix)
	}
	return nil
}

// boolAttributes reads boolean attributes of the private key.
func (s *PKCS11Signer) boolAttributes(types ...uint) (map[uint]bool, error) {
	var query []*pkcs11.Attribute
	for _, t := range types {
		query = append(query, pkcs11.NewAttribute(t, nil))
	}
	attrs, err := s.ctx.GetAttributeValue(s.session, s.priv, query)
	if err != nil {
		return nil, err
	}
	flags := make(map[uint]bool, len(types))
	for _, a := range attrs {
		flags[a.Type] = len(a.Value) == 1 && a.Value[0] != 0
	}
	return flags, nil
}

func (s *PKCS11Signer) readPublic(h pkcs11.ObjectHandle) (*ecdsa.PublicKey, error) {
	attrs, err := s.ctx.GetAttributeValue(s.session, h, []*pkcs11.Attribute{
		pkcs11.NewAttribute(pkcs11.CKA_EC_PARAMS, nil),
		pkcs11.NewAttribute(pkcs11.CKA_EC_POINT, nil),
	})
	if err != nil {
		return nil, fmt.Errorf("pkcs11: read public key: %w", err)
	}
	var params, point []byte
	for _, a := range attrs {
		switch a.Type {
		case pkcs11.CKA_EC_PARAMS:
			params = a.Value
		case pkcs11.CKA_EC_POINT:
			point = a.Value
		}
	}
	if string(params) != string(oidP256) {
		return nil, errors.New("pkcs11: key is not on curve P-256")
	}
	return parseECPoint(point)
}

// parseECPoint decodes CKA_EC_POINT: a DER OCTET STRING holding the
// uncompressed point (some tokens return the raw point; accept both).
func parseECPoint(v []byte) (*ecdsa.PublicKey, error) {
	raw := v
	var inner []byte
	if rest, err := asn1.Unmarshal(v, &inner); err == nil && len(rest) == 0 {
		raw = inner
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), raw)
	if err != nil {
		return nil, fmt.Errorf("pkcs11: CKA_EC_POINT: %w", err)
	}
	return pub, nil
}

// Public returns the key's public half.
func (s *PKCS11Signer) Public() crypto.PublicKey { return s.pub }

// Sign signs a digest with CKM_ECDSA and returns an ASN.1 DER signature, the
// same form ecdsa.PrivateKey.Sign returns, so verifiers need not care.
func (s *PKCS11Signer) Sign(_ io.Reader, digest []byte, _ crypto.SignerOpts) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx == nil {
		return nil, errors.New("pkcs11: signer is closed")
	}
	if err := s.ctx.SignInit(s.session, []*pkcs11.Mechanism{pkcs11.NewMechanism(pkcs11.CKM_ECDSA, nil)}, s.priv); err != nil {
		return nil, fmt.Errorf("pkcs11: sign init: %w", err)
	}
	rs, err := s.ctx.Sign(s.session, digest)
	if err != nil {
		return nil, fmt.Errorf("pkcs11: sign: %w", err)
	}
	if len(rs) != 64 {
		return nil, fmt.Errorf("pkcs11: signature is %d bytes, want 64", len(rs))
	}
	r := new(big.Int).SetBytes(rs[:32])
	ss := new(big.Int).SetBytes(rs[32:])
	return asn1.Marshal(struct{ R, S *big.Int }{r, ss})
}

// Close logs out and unloads the module.
func (s *PKCS11Signer) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx == nil {
		return nil
	}
	if s.session != 0 {
		s.ctx.Logout(s.session)
		s.ctx.CloseSession(s.session)
	}
	s.ctx.Finalize()
	s.ctx.Destroy()
	s.ctx = nil
	return nil
}
