"""The block checks of docs/RECORD.md 5.2 and 5.3: numbering, data hash,
hash chain, transactions filter, channel, configuration in force and the
orderers' signatures."""

from __future__ import annotations

from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec

from .fabric import (Block, BlockError, ChannelConfig, channel_headers, parse_block, parse_config,
                     parse_creator, parse_signatures_metadata, parse_transactions, transactions_filter)
from .protowire import WireError
from .sigs import SigError, chains_to, load_pem_certs, verify_der_low_s


def _org_material(cfg: ChannelConfig) -> dict:
    """mspid -> (roots, intermediates). RECORD.md 5.3: at least one orderer
    organisation, each with a name, a root certificate and every
    certificate parsing (BlockError otherwise, as the Go verifier)."""
    if not cfg.orderer_orgs:
        raise BlockError('the configuration has no "Orderer" group with organisations')
    out = {}
    for mspid, org in cfg.orderer_orgs.items():
        try:
            out[mspid] = (load_pem_certs(org.root_certs), load_pem_certs(org.intermediate_certs))
        except SigError as e:
            raise BlockError(f"orderer MSP {mspid!r}: {e}") from None
        if not mspid or not out[mspid][0]:
            raise BlockError("an orderer MSP has no name or no root certificate")
    return out


def check_signature(block: Block, orgs: dict, last_config: int) -> str | None:
    """None if the block's last_config is last_config and one of its
    signatures verifies under orgs ({mspid: (roots, intermediates)}), else
    the reason."""
    try:
        md = parse_signatures_metadata(block)
    except BlockError as e:
        return str(e)
    if md.last_config != last_config:
        return f"last_config names block {md.last_config}, but the configuration in force is block {last_config}"
    if not md.signatures:
        return "no orderer signature"
    reasons = []
    for k, s in enumerate(md.signatures):
        try:
            mspid, pem = parse_creator(s.signature_header)
        except WireError as e:
            reasons.append(f"signature {k}: {e}")
            continue
        if mspid not in orgs:
            reasons.append(f"signature {k}: {mspid!r} is not an orderer organisation")
            continue
        try:
            certs = x509.load_pem_x509_certificates(pem)
        except ValueError:
            reasons.append(f"signature {k}: the creator's certificate does not parse")
            continue
        if len(certs) != 1:
            reasons.append(f"signature {k}: the creator holds {len(certs)} certificates")
            continue
        cert = certs[0]
        roots, inters = orgs[mspid]
        if not chains_to(cert, roots, inters):
            reasons.append(f"signature {k}: the certificate does not chain to {mspid}'s roots")
            continue
        pub = cert.public_key()
        if not isinstance(pub, ec.EllipticCurvePublicKey) or not isinstance(pub.curve, ec.SECP256R1):
            reasons.append(f"signature {k}: not an ECDSA P-256 key")
            continue
        if verify_der_low_s(pub, md.value + s.signature_header + block.header_der, s.signature):
            return None
        reasons.append(f"signature {k} by {mspid} does not verify (DER, low S)")
    return "; ".join(reasons)


class BlockScan:
    """RECORD.md 5.2 and 6 step 2, one block after another, as the Go
    verifier applies them: a block file that cannot be read or does not
    decode as a block (with a header and data) is one BLOCK_CHAIN failure
    and nothing else of it is checked, and the next block's previous hash
    is then not checked; otherwise each chain rule it breaks is one
    BLOCK_CHAIN failure (number, data hash, previous hash, filter, its
    transactions' channel headers), and a block that breaks none is checked
    for its signature under the configuration in force: at most one
    BLOCK_SIGNATURE failure, and a configuration block whose signature
    fails does not change the configuration. fail(kind, subject, msg)."""

    def __init__(self, channel: str, fail):
        self.channel, self.fail = channel, fail
        self.prev = None  # the previous block's header hash, when known
        self.orgs = None  # the orderer organisations in force
        self.last_config = 0
        self.genesis = None

    def block(self, n: int, raw: bytes | None, read_error: str | None = None):
        """Check block n (raw, or the reason it could not be read); returns
        its transactions, or None when it could not be decoded."""
        subj = f"block {n}"
        if raw is None:
            self.fail("BLOCK_CHAIN", subj, f"cannot be read: {read_error}")
            self.prev = None
            return None
        try:
            b = parse_block(raw)
        except BlockError as e:
            self.fail("BLOCK_CHAIN", subj, f"does not decode as a block: {e}")
            self.prev = None
            return None
        prev, self.prev = self.prev, b.header_hash
        if n == 0:
            self.genesis = b.header_hash
        config, ok = self._chain_rules(n, b, prev)
        if not ok:
            return None
        self._signature(n, b, config)
        try:
            return parse_transactions(b)
        except BlockError as e:
            self.fail("BLOCK_CHAIN", subj, str(e))
            return None

    def _chain_rules(self, n: int, b: Block, prev: bytes | None):
        failures = []
        if b.number != n:
            failures.append(f"its header's number is {b.number}")
        if b.computed_data_hash() != b.data_hash:
            failures.append("the header's data hash is not the SHA-256 of the block's transactions")
        if n > 0 and prev is not None and b.previous_hash != prev:
            failures.append(f"the previous hash is not the header hash of block {n - 1}")
        if len(transactions_filter(b)) != b.ndata:
            failures.append(f"the transactions filter has {len(transactions_filter(b))} entries for {b.ndata} transactions")
        config = None
        try:
            config = channel_headers(b, self.channel)
        except BlockError as e:
            failures.append(str(e))
        for f in failures:
            self.fail("BLOCK_CHAIN", f"block {n}", f)
        return config, not failures

    def _signature(self, n: int, b: Block, config: bytes | None) -> None:
        def bad(msg):
            self.fail("BLOCK_SIGNATURE", f"block {n}", msg)
        if n == 0:
            if config is None:
                bad("the genesis block is not a configuration block: no orderer organisations to check signatures against")
                return
            try:
                self.orgs = _org_material(parse_config(config))
            except BlockError as e:
                bad(f"the genesis configuration: {e}")
            return
        want = n if config is not None else self.last_config
        if self.orgs is None:
            # Nor is a configuration it sets taken: no unchecked signature
            # changes the configuration in force (RECORD.md 6 step 2).
            bad("no configuration in force to check the signature against")
            return
        reason = check_signature(b, self.orgs, want)
        if reason:
            bad(reason)
            return
        if config is not None:
            try:
                self.orgs, self.last_config = _org_material(parse_config(config)), n
            except BlockError as e:
                bad(f"the configuration it sets: {e}")
