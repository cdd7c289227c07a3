package record

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"errors"
	"fmt"
	"math/big"

	"github.com/fabvote/fabvote/internal/chain"
	"github.com/hyperledger/fabric-protos-go-apiv2/common"
	"github.com/hyperledger/fabric-protos-go-apiv2/msp"
	"google.golang.org/protobuf/proto"
)

// maxChain bounds a certificate chain's length, so that a crafted MSP
// cannot make the search loop.
const maxChain = 8

// blockSignatures decodes the SIGNATURES metadata: the signed value (an
// OrdererBlockMetadata) and its signatures.
func blockSignatures(b *common.Block) (*common.Metadata, *common.OrdererBlockMetadata, error) {
	if b.Metadata == nil || len(b.Metadata.Metadata) <= int(common.BlockMetadataIndex_SIGNATURES) {
		return nil, nil, errors.New("no SIGNATURES metadata")
	}
	var md common.Metadata
	if err := proto.Unmarshal(b.Metadata.Metadata[common.BlockMetadataIndex_SIGNATURES], &md); err != nil {
		return nil, nil, fmt.Errorf("SIGNATURES metadata does not decode: %w", err)
	}
	var obm common.OrdererBlockMetadata
	if err := proto.Unmarshal(md.Value, &obm); err != nil {
		return nil, nil, fmt.Errorf("SIGNATURES value is not an OrdererBlockMetadata: %w", err)
	}
	if len(md.Signatures) == 0 {
		return nil, nil, errors.New("the block carries no signature")
	}
	return &md, &obm, nil
}

// checkBlockSignature requires one signature of b's SIGNATURES metadata by
// an orderer of cfg (RECORD.md 5.2 rule 5) and the last_config index that
// names the configuration block in force for b (lastConfig).
func checkBlockSignature(b *common.Block, cfg *ordererConfig, lastConfig uint64) error {
	md, obm, err := blockSignatures(b)
	if err != nil {
		return err
	}
	if obm.LastConfig == nil || obm.LastConfig.Index != lastConfig {
		return fmt.Errorf("last_config names block %d, but the configuration in force is block %d", obm.GetLastConfig().GetIndex(), lastConfig)
	}
	der := chain.HeaderDER(b.Header)
	var errs []error
	for i, s := range md.Signatures {
		msg := bytes.Join([][]byte{md.Value, s.SignatureHeader, der}, nil)
		if err := verifyOne(cfg, s, msg); err != nil {
			errs = append(errs, fmt.Errorf("signature %d: %w", i, err))
			continue
		}
		return nil
	}
	return fmt.Errorf("no signature by an orderer of the configuration of block %d verifies: %w", cfg.block, errors.Join(errs...))
}

// verifyOne checks one metadata signature: an orderer organisation's
// certificate, chained to its roots, and a low-S P-256 signature by it.
func verifyOne(cfg *ordererConfig, s *common.MetadataSignature, msg []byte) error {
	var sh common.SignatureHeader
	var id msp.SerializedIdentity
	if err := proto.Unmarshal(s.SignatureHeader, &sh); err != nil {
		return fmt.Errorf("signature header does not decode: %w", err)
	}
	if err := proto.Unmarshal(sh.Creator, &id); err != nil {
		return fmt.Errorf("signer identity does not decode: %w", err)
	}
	org := cfg.orgs[id.Mspid]
	if org == nil {
		return fmt.Errorf("signer MSP %q is not an orderer organisation", id.Mspid)
	}
	cert, err := parsePEMCert(id.IdBytes)
	if err != nil {
		return fmt.Errorf("signer certificate: %w", err)
	}
	if err := chainsTo(cert, org, 0); err != nil {
		return fmt.Errorf("signer certificate %q of MSP %s: %w", cert.Subject, id.Mspid, err)
	}
	return verifyLowS(cert, s.Signature, msg)
}

// chainsTo requires c to be signed by a root of org, directly or through
// its intermediates. Expiry is not checked (RECORD.md 5.2): a record is
// verified long after its certificates were in use.
func chainsTo(c *x509.Certificate, org *ordererOrg, depth int) error {
	if depth >= maxChain {
		return errors.New("certificate chain too long")
	}
	for _, r := range org.roots {
		if bytes.Equal(c.RawIssuer, r.RawSubject) && c.CheckSignatureFrom(r) == nil {
			return nil
		}
	}
	for _, in := range org.intermediates {
		if bytes.Equal(c.RawIssuer, in.RawSubject) && !bytes.Equal(c.Raw, in.Raw) && c.CheckSignatureFrom(in) == nil {
			if chainsTo(in, org, depth+1) == nil {
				return nil
			}
		}
	}
	return errors.New("does not chain to a root certificate of its organisation")
}

// verifyLowS checks an ASN.1 ECDSA P-256 signature with s ≤ n/2 over
// SHA-256(msg): Fabric refuses high-S signatures, so that a signature
// cannot be altered into another valid one.
func verifyLowS(cert *x509.Certificate, sig, msg []byte) error {
	pub, ok := cert.PublicKey.(*ecdsa.PublicKey)
	if !ok || pub.Curve != elliptic.P256() {
		return errors.New("the signer's key is not an ECDSA P-256 key")
	}
	var rs struct{ R, S *big.Int }
	rest, err := asn1.Unmarshal(sig, &rs)
	if err != nil || len(rest) != 0 || rs.R.Sign() <= 0 || rs.S.Sign() <= 0 {
		return errors.New("the signature is not an ASN.1 DER ECDSA signature")
	}
	halfN := new(big.Int).Rsh(elliptic.P256().Params().N, 1)
	if rs.S.Cmp(halfN) > 0 {
		return errors.New("the signature's S is high (S > n/2)")
	}
	digest := sha256.Sum256(msg)
	if !ecdsa.VerifyASN1(pub, digest[:], sig) {
		return errors.New("the signature does not verify")
	}
	return nil
}
