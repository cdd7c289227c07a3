"""The block checks of docs/RECORD.md 5.2 and 5.3: numbering, data hash,
hash chain, transactions filter, channel, configuration in force and the
orderers' signatures."""

from __future__ import annotations

from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec

from .fabric import (HEADER_TYPE_CONFIG, Block, BlockError, ChannelConfig, parse_creator,
                     parse_signatures_metadata, transactions_filter)
from .protowire import WireError
from .sigs import SigError, chains_to, load_pem_certs, verify_der_low_s


def check_links(blocks: list, fail) -> None:
    """Rules 1–4 of 5.2 for every block; fail(kind, subject, msg)."""
    for i, b in enumerate(blocks):
        subj = f"block {i}"
        if b is None:  # unreadable: already reported
            continue
        if b.number != i:
            fail("BLOCK_CHAIN", subj, f"header number is {b.number}, file is for block {i}")
        if b.computed_data_hash() != b.data_hash:
            fail("BLOCK_CHAIN", subj, "data_hash is not SHA-256 of the block's data")
        if i > 0 and blocks[i - 1] is not None and b.previous_hash != blocks[i - 1].header_hash:
            fail("BLOCK_CHAIN", subj, f"previous_hash is not the header hash of block {i - 1}")
        if len(transactions_filter(b)) != b.ndata:
            fail("BLOCK_CHAIN", subj, f"transactions filter has {len(transactions_filter(b))} entries for {b.ndata} transactions")


def _org_material(cfg: ChannelConfig) -> dict:
    out = {}
    for mspid, org in cfg.orderer_orgs.items():
        try:
            out[mspid] = (load_pem_certs(org.root_certs), load_pem_certs(org.intermediate_certs))
        except SigError:
            out[mspid] = ([], [])
    return out


def check_signature(block: Block, orgs: dict) -> str | None:
    """None if one of the block's signatures verifies under orgs
    ({mspid: (roots, intermediates)}), else the reason."""
    try:
        md = parse_signatures_metadata(block)
    except BlockError as e:
        return str(e)
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


def check_signatures_and_config(blocks: list, txs: list, fail) -> None:
    """5.2 rule 5 and 5.3.  txs[i] is the decoded transaction list of block i."""
    if not txs or txs[0] is None:
        return  # block 0 unreadable: already reported; nothing to check against
    if len(txs[0]) != 1 or txs[0][0].type != HEADER_TYPE_CONFIG or txs[0][0].config is None:
        fail("BLOCK_CHAIN", "block 0", "the genesis block is not a configuration block with one CONFIG transaction")
        return
    cfg = _org_material(txs[0][0].config)
    last_cfg_block = 0
    for i in range(1, len(blocks)):
        b = blocks[i]
        if b is None:
            continue
        reason = check_signature(b, cfg)
        if reason:
            fail("BLOCK_SIGNATURE", f"block {i}", reason)
        is_config = any(t.type == HEADER_TYPE_CONFIG for t in txs[i])
        if is_config:
            if len(txs[i]) != 1 or txs[i][0].config is None:
                fail("BLOCK_CHAIN", f"block {i}", "a configuration block must hold exactly one CONFIG transaction")
            else:
                cfg = _org_material(txs[i][0].config)
                last_cfg_block = i
        try:
            lc = parse_signatures_metadata(b).last_config
        except BlockError:
            continue  # already reported
        if lc != last_cfg_block:
            fail("BLOCK_SIGNATURE", f"block {i}", f"last_config.index is {lc}, want {last_cfg_block}")
