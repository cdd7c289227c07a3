package recordtest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"math/big"
	"time"

	"github.com/fabvote/fabvote/internal/chain"
	"github.com/fabvote/fabvote/internal/chain/chaintest"
	"github.com/hyperledger/fabric-protos-go-apiv2/common"
	"github.com/hyperledger/fabric-protos-go-apiv2/msp"
)

// OrdererMSP is the fixture's one orderer organisation.
const OrdererMSP = "OrdererMSP"

// Orderer is an orderer organisation's CA and one orderer's signing key
// and certificate issued by it: what signs a fixture's blocks.
type Orderer struct {
	MSPID           string
	RootPEM         []byte
	IntermediatePEM []byte // nil: the root issues the orderer's certificate
	CertPEM         []byte
	Key             *ecdsa.PrivateKey
	rootKey         *ecdsa.PrivateKey // the issuing CA's key
	rootCert        *x509.Certificate // the issuing CA's certificate
}

// NewOrderer makes a fresh self-signed P-256 root CA and an orderer
// certificate it issues. Keys come from crypto/rand.
func NewOrderer(mspID string) *Orderer {
	o := &Orderer{MSPID: mspID, rootKey: genKey(), Key: genKey()}
	// Fixed validity: a verifier ignores expiry, and the fixture must not
	// look different for it to be valid.
	nb, na := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	root := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ca." + mspID, Organization: []string{mspID}},
		NotBefore: nb, NotAfter: na, IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, root, root, &o.rootKey.PublicKey, o.rootKey)
	must(err)
	o.rootCert, err = x509.ParseCertificate(der)
	must(err)
	o.RootPEM = pemCert(der)
	o.CertPEM = o.Issue("orderer0."+mspID, &o.Key.PublicKey)
	return o
}

// NewOrdererWithIntermediate is NewOrderer with an intermediate CA between
// the root and the orderer, listed in the MSP's intermediate certificates.
func NewOrdererWithIntermediate(mspID string) *Orderer {
	o := NewOrderer(mspID)
	ik := genKey()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(3), Subject: pkix.Name{CommonName: "ica." + mspID, Organization: []string{mspID}},
		NotBefore: o.rootCert.NotBefore, NotAfter: o.rootCert.NotAfter, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, o.rootCert, &ik.PublicKey, o.rootKey)
	must(err)
	o.IntermediatePEM = pemCert(der)
	// The orderer's certificate is now issued by the intermediate.
	o.rootCert, err = x509.ParseCertificate(der)
	must(err)
	o.rootKey = ik
	o.CertPEM = o.Issue("orderer0."+mspID, &o.Key.PublicKey)
	return o
}

// Issue returns a PEM certificate for pub signed by the organisation's
// issuing CA (the intermediate, if any).
func (o *Orderer) Issue(cn string, pub *ecdsa.PublicKey) []byte {
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: cn, Organization: []string{o.MSPID}},
		NotBefore: o.rootCert.NotBefore, NotAfter: o.rootCert.NotAfter, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, leaf, o.rootCert, pub, o.rootKey)
	must(err)
	return pemCert(der)
}

// ConfigEnvelope is a channel configuration whose "Orderer" group has
// this organisation, as configtxgen lays it out.
func (o *Orderer) ConfigEnvelope() []byte {
	fc := &msp.FabricMSPConfig{Name: o.MSPID, RootCerts: [][]byte{o.RootPEM}}
	if o.IntermediatePEM != nil {
		fc.IntermediateCerts = [][]byte{o.IntermediatePEM}
	}
	mspConf := &msp.MSPConfig{Type: 0, Config: chaintest.Marshal(fc)}
	org := &common.ConfigGroup{Values: map[string]*common.ConfigValue{"MSP": {Value: chaintest.Marshal(mspConf), ModPolicy: "Admins"}}, ModPolicy: "Admins"}
	cfg := &common.Config{ChannelGroup: &common.ConfigGroup{Groups: map[string]*common.ConfigGroup{
		"Orderer": {Groups: map[string]*common.ConfigGroup{"OrdererOrg": org}, ModPolicy: "Admins"},
	}, ModPolicy: "Admins"}}
	return chaintest.Marshal(&common.ConfigEnvelope{Config: cfg})
}

// Sign sets b's SIGNATURES metadata: an OrdererBlockMetadata naming
// lastConfig, signed by the orderer over value ‖ signature header ‖
// DER(header) with a low-S ECDSA signature, as Fabric's orderer does.
func (o *Orderer) Sign(b *common.Block, lastConfig uint64) {
	nonce := make([]byte, 24)
	_, err := rand.Read(nonce)
	must(err)
	value := chaintest.Marshal(&common.OrdererBlockMetadata{LastConfig: &common.LastConfig{Index: lastConfig}})
	creator := chaintest.Marshal(&msp.SerializedIdentity{Mspid: o.MSPID, IdBytes: o.CertPEM})
	sh := chaintest.Marshal(&common.SignatureHeader{Creator: creator, Nonce: nonce})
	digest := sha256.Sum256(bytes.Join([][]byte{value, sh, chain.HeaderDER(b.Header)}, nil))
	md := &common.Metadata{Value: value, Signatures: []*common.MetadataSignature{{SignatureHeader: sh, Signature: lowS(o.Key, digest[:])}}}
	b.Metadata.Metadata[common.BlockMetadataIndex_SIGNATURES] = chaintest.Marshal(md)
}

// lowS signs digest and folds S into the lower half, as Fabric's BCCSP
// does: a verifier refuses a high S.
func lowS(k *ecdsa.PrivateKey, digest []byte) []byte {
	r, s, err := ecdsa.Sign(rand.Reader, k, digest)
	must(err)
	n := elliptic.P256().Params().N
	if s.Cmp(new(big.Int).Rsh(n, 1)) > 0 {
		s.Sub(n, s)
	}
	der, err := asn1.Marshal(struct{ R, S *big.Int }{r, s})
	must(err)
	return der
}

func genKey() *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(err)
	return k
}

func pemCert(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func must(err error) {
	if err != nil {
		panic("recordtest: " + err.Error())
	}
}
