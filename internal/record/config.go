package record

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"

	"github.com/hyperledger/fabric-protos-go-apiv2/common"
	"github.com/hyperledger/fabric-protos-go-apiv2/msp"
	"google.golang.org/protobuf/proto"
)

// ordererOrg is what a block signature is checked against: one orderer
// organisation's MSP id and certificate authorities.
type ordererOrg struct {
	roots, intermediates []*x509.Certificate
}

// ordererConfig is the configuration in force (RECORD.md 5.3): the orderer
// organisations by MSP id, and the block that set it.
type ordererConfig struct {
	block uint64
	orgs  map[string]*ordererOrg
}

// parseConfig reads the orderer organisations from a CONFIG transaction's
// payload data, a marshalled ConfigEnvelope.
func parseConfig(data []byte, block uint64) (*ordererConfig, error) {
	var env common.ConfigEnvelope
	if err := proto.Unmarshal(data, &env); err != nil {
		return nil, fmt.Errorf("config envelope does not decode: %w", err)
	}
	if env.Config == nil || env.Config.ChannelGroup == nil {
		return nil, errors.New("config envelope has no channel group")
	}
	og := env.Config.ChannelGroup.Groups["Orderer"]
	if og == nil || len(og.Groups) == 0 {
		return nil, errors.New(`the configuration has no "Orderer" group with organisations`)
	}
	cfg := &ordererConfig{block: block, orgs: make(map[string]*ordererOrg)}
	for name, g := range og.Groups {
		id, org, err := parseOrg(g)
		if err != nil {
			return nil, fmt.Errorf("orderer organisation %q: %w", name, err)
		}
		cfg.orgs[id] = org
	}
	return cfg, nil
}

// parseOrg reads an organisation group's "MSP" value: a FabricMSPConfig's
// name (the MSP id) and its root and intermediate certificates.
func parseOrg(g *common.ConfigGroup) (string, *ordererOrg, error) {
	v := g.Values["MSP"]
	if v == nil {
		return "", nil, errors.New(`no "MSP" value`)
	}
	var mc msp.MSPConfig
	if err := proto.Unmarshal(v.Value, &mc); err != nil {
		return "", nil, fmt.Errorf("MSP config does not decode: %w", err)
	}
	if mc.Type != 0 {
		return "", nil, fmt.Errorf("MSP type %d is not FABRIC (0)", mc.Type)
	}
	var fc msp.FabricMSPConfig
	if err := proto.Unmarshal(mc.Config, &fc); err != nil {
		return "", nil, fmt.Errorf("fabric MSP config does not decode: %w", err)
	}
	org := &ordererOrg{}
	var err error
	if org.roots, err = parsePEMCerts(fc.RootCerts); err != nil {
		return "", nil, fmt.Errorf("MSP %s root certificate: %w", fc.Name, err)
	}
	if org.intermediates, err = parsePEMCerts(fc.IntermediateCerts); err != nil {
		return "", nil, fmt.Errorf("MSP %s intermediate certificate: %w", fc.Name, err)
	}
	if fc.Name == "" || len(org.roots) == 0 {
		return "", nil, errors.New("MSP has no name or no root certificate")
	}
	return fc.Name, org, nil
}

// parsePEMCerts decodes each entry as one PEM certificate.
func parsePEMCerts(pems [][]byte) ([]*x509.Certificate, error) {
	var out []*x509.Certificate
	for _, p := range pems {
		c, err := parsePEMCert(p)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func parsePEMCert(p []byte) (*x509.Certificate, error) {
	blk, _ := pem.Decode(p)
	if blk == nil || blk.Type != "CERTIFICATE" {
		return nil, errors.New("not a PEM certificate")
	}
	return x509.ParseCertificate(blk.Bytes)
}
