/*
SPDX-License-Identifier: Apache-2.0
*/

package msp

import (
	"strings"
	"testing"

	"github.com/golang/protobuf/proto"
	mspproto "github.com/hyperledger/fabric-protos-go/msp"
	"github.com/hyperledger/fabric/bccsp/sw"
	"github.com/hyperledger/fabric/common/crypto/tlsgen"
)

// fabvoteSetup sets up a FABRIC MSP whose root certificates are roots.
func fabvoteSetup(t *testing.T, roots, intermediates, admins [][]byte) error {
	t.Helper()
	cp, err := sw.NewDefaultSecurityLevelWithKeystore(sw.NewDummyKeyStore())
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(&BCCSPNewOpts{NewBaseOpts{Version: MSPv1_4_3}}, cp)
	if err != nil {
		t.Fatal(err)
	}
	conf, err := proto.Marshal(&mspproto.FabricMSPConfig{
		Name:              "Org1MSP",
		RootCerts:         roots,
		IntermediateCerts: intermediates,
		Admins:            admins,
		CryptoConfig:      &mspproto.FabricCryptoConfig{SignatureHashFamily: "SHA2", IdentityIdentifierHashFunction: "SHA256"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return m.Setup(&mspproto.MSPConfig{Type: int32(FABRIC), Config: conf})
}

// TestFabvoteMSPIntermediateAsRoot: an MSP configured with an intermediate
// CA certificate as its root fails set-up with an error that names the
// certificate, instead of crashing the peer (fixed upstream in Fabric 2.5.4).
func TestFabvoteMSPIntermediateAsRoot(t *testing.T) {
	ca, err := tlsgen.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	inter, err := ca.NewIntermediateCA()
	if err != nil {
		t.Fatal(err)
	}
	admin, err := inter.NewServerCertKeyPair("admin.org1")
	if err != nil {
		t.Fatal(err)
	}
	admins := [][]byte{admin.Cert}
	err = fabvoteSetup(t, [][]byte{inter.CertBytes()}, nil, admins) // panicked in Fabric 2.5.0
	if err == nil || !strings.Contains(err.Error(), "is configured as a root CA certificate but is not self-signed") {
		t.Fatalf("got %v, want the misconfiguration named", err)
	}
	// The same certificates configured the right way round set up.
	if err := fabvoteSetup(t, [][]byte{ca.CertBytes()}, [][]byte{inter.CertBytes()}, admins); err != nil {
		t.Fatalf("root + intermediate: %v", err)
	}
}
