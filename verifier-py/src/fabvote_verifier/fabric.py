"""Fabric block, transaction and channel-configuration parsing
(docs/RECORD.md 5.1 and 5.3), on top of the strict wire reader."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from .protowire import Message, WireError, parse
from .schemas import wellformed

HEADER_TYPE_CONFIG = 1
HEADER_TYPE_ENDORSER_TRANSACTION = 3

META_SIGNATURES = 0
META_TRANSACTIONS_FILTER = 2
META_COMMIT_HASH = 4


class BlockError(ValueError):
    pass


def der_length(n: int) -> bytes:
    if n < 0x80:
        return bytes([n])
    b = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(b)]) + b


def der_integer(n: int) -> bytes:
    # DER INTEGER: minimal two's complement.
    b = n.to_bytes(max(1, (n.bit_length() + 8) // 8), "big", signed=True)
    return b"\x02" + der_length(len(b)) + b


def der_octets(b: bytes) -> bytes:
    return b"\x04" + der_length(len(b)) + b


def header_der(number: int, previous_hash: bytes, data_hash: bytes) -> bytes:
    """DER of SEQUENCE { number INTEGER, previous_hash OCTET STRING, data_hash OCTET STRING }."""
    body = der_integer(number) + der_octets(previous_hash) + der_octets(data_hash)
    return b"\x30" + der_length(len(body)) + body


@dataclass
class Write:
    namespace: str
    key: str
    is_delete: bool
    value: bytes


@dataclass
class Tx:
    index: int
    type: int
    channel_id: str
    tx_id: str
    valid: bool
    filter_code: int
    writes: list = field(default_factory=list)
    error: str | None = None  # the transaction could not be decoded


@dataclass
class Block:
    number: int
    previous_hash: bytes
    data_hash: bytes
    data: list
    metadata: list
    header_der: bytes
    ndata: int = 0
    _data_hash: bytes = b""

    @property
    def header_hash(self) -> bytes:
        return hashlib.sha256(self.header_der).digest()

    def computed_data_hash(self) -> bytes:
        return self._data_hash

    def drop_data(self) -> None:
        """Forget the envelopes (large) once the transactions are decoded."""
        self.data = None


def parse_block(raw: bytes) -> Block:
    try:
        wellformed(raw, "Block")
        top = parse(raw)
        for num, what in ((1, "header"), (2, "data"), (3, "metadata")):
            if sum(1 for wt, _ in top.get(num, ()) if wt == 2) > 1:
                # two marshalled messages concatenate into one: refuse it
                raise BlockError(f"Block: {what} occurs more than once")
        b = Message(raw, "Block")
        if not b.has_bytes(1) or not b.has_bytes(2):
            raise BlockError("Block: no header or no data")
        h = b.message(1, "BlockHeader")
        d = b.message(2, "BlockData")
        m = b.message(3, "BlockMetadata")
        number = h.uint(1)
        prev = h.bytes_(2)
        dh = h.bytes_(3)
        data = d.repeated_bytes(1)
        metadata = m.repeated_bytes(1)
    except WireError as e:
        raise BlockError(f"{e}") from None
    h = hashlib.sha256()
    for d_ in data:
        h.update(d_)
    return Block(number, prev, dh, data, metadata, header_der(number, prev, dh), len(data), h.digest())


@dataclass
class MetadataSignature:
    signature_header: bytes
    signature: bytes


@dataclass
class SignaturesMetadata:
    value: bytes
    signatures: list
    last_config: int | None


def parse_signatures_metadata(block: Block) -> SignaturesMetadata:
    if len(block.metadata) <= META_SIGNATURES:
        raise BlockError("no SIGNATURES metadata")
    try:
        wellformed(block.metadata[META_SIGNATURES], "Metadata")
        md = Message(block.metadata[META_SIGNATURES], "Metadata")
        value = md.bytes_(1)
        wellformed(value, "OrdererBlockMetadata")
        sigs = [MetadataSignature(s.bytes_(1), s.bytes_(2)) for s in md.messages(2, "MetadataSignature")]
        obm = Message(value, "OrdererBlockMetadata")
        # None: no LastConfig message, which names no configuration.
        last_config = obm.message(1, "LastConfig").uint(1) if obm.has_bytes(1) else None
    except WireError as e:
        raise BlockError(str(e)) from None
    return SignaturesMetadata(value, sigs, last_config)


def parse_creator(signature_header: bytes) -> tuple[str, bytes]:
    """SignatureHeader -> (mspid, PEM certificate bytes)."""
    wellformed(signature_header, "SignatureHeader")
    sh = Message(signature_header, "SignatureHeader")
    wellformed(sh.bytes_(1), "SerializedIdentity")
    sid = Message(sh.bytes_(1), "SerializedIdentity")
    return sid.string(1), sid.bytes_(2)


def transactions_filter(block: Block) -> bytes:
    if len(block.metadata) <= META_TRANSACTIONS_FILTER:
        return b""
    return block.metadata[META_TRANSACTIONS_FILTER]


def channel_headers(block: Block, channel: str) -> bytes | None:
    """RECORD.md 5.2's transaction rules, as far as each envelope's channel
    header: it decodes, names channel, and a CONFIG transaction is alone in
    its block. Returns the ConfigEnvelope bytes of a configuration block,
    else None; raises BlockError for the first transaction that breaks a
    rule."""
    config = None
    for i, env_bytes in enumerate(block.data):
        try:
            wellformed(env_bytes, "Envelope")
            top = parse(env_bytes)
            if any(sum(1 for wt, _ in top.get(n, ()) if wt == 2) > 1 for n in (1, 2)):
                raise BlockError("Envelope: payload or signature occurs more than once: not one message but several run together")
            env = Message(env_bytes, "Envelope")
            wellformed(env.bytes_(1), "Payload")
            payload = env.message(1, "Payload")
            if not payload.has_bytes(1):
                raise BlockError("payload has no header")
            hdr = payload.message(1, "Header")
            wellformed(hdr.bytes_(1), "ChannelHeader")
            ch = hdr.message(1, "ChannelHeader")
            channel_id, typ = ch.string(4), ch.int32(1)
        except (WireError, BlockError) as e:
            raise BlockError(f"transaction {i}: {e}") from None
        if channel_id != channel:
            raise BlockError(f"transaction {i} names channel {channel_id!r}, not the record's {channel!r}")
        if typ == HEADER_TYPE_CONFIG:
            if len(block.data) != 1:
                raise BlockError(f"a CONFIG transaction shares its block with {len(block.data) - 1} others")
            config = payload.bytes_(2)
    return config


def parse_config(config_envelope: bytes) -> "ChannelConfig":
    """The orderer organisations of a ConfigEnvelope; raises BlockError."""
    try:
        wellformed(config_envelope, "ConfigEnvelope")
        ce = Message(config_envelope, "ConfigEnvelope")
        cfg = ce.message(1, "Config")
        return parse_channel_config(cfg.message(2, "ConfigGroup"))
    except WireError as e:
        raise BlockError(str(e)) from None


def parse_transactions(block: Block) -> list[Tx]:
    """Decode every envelope of a block.  Raises BlockError on an envelope,
    payload or header that does not decode, and on the endorser transaction
    of a valid transaction that does not; an invalid transaction's endorser
    transaction that does not decode leaves it without writes, with
    Tx.error saying why."""
    filt = transactions_filter(block)
    txs = []
    for i, env_bytes in enumerate(block.data):
        code = filt[i] if i < len(filt) else 255
        try:
            wellformed(env_bytes, "Envelope")
            top = parse(env_bytes)
            if len(top.get(1, ())) > 1 or len(top.get(2, ())) > 1:
                raise BlockError("Envelope: payload or signature occurs more than once")
            env = Message(env_bytes, "Envelope")
            wellformed(env.bytes_(1), "Payload")
            payload = env.message(1, "Payload")
            hdr = payload.message(1, "Header")
            wellformed(hdr.bytes_(1), "ChannelHeader")
            ch = hdr.message(1, "ChannelHeader")
            tx = Tx(i, ch.int32(1), ch.string(4), ch.string(5), code == 0, code)
            pdata = payload.bytes_(2)
            if tx.type == HEADER_TYPE_ENDORSER_TRANSACTION:
                try:
                    tx.writes = _endorser_writes(pdata)
                except (WireError, BlockError) as e:
                    # RECORD.md 5.1: the endorser transaction of a
                    # transaction marked invalid need not decode; its
                    # writes never reached the state.
                    if code == 0:
                        raise
                    tx.error = str(e)

        except (WireError, BlockError) as e:
            raise BlockError(f"block {block.number} transaction {i}: {e}") from None
        txs.append(tx)
    # RECORD.md 5.1: the committing peer's COMMIT_HASH is not used, but must
    # decode; a fault of it is the block's last check, as its transactions'.
    if len(block.metadata) > META_COMMIT_HASH and block.metadata[META_COMMIT_HASH]:
        try:
            wellformed(block.metadata[META_COMMIT_HASH], "Metadata")
        except WireError as e:
            raise BlockError(f"block {block.number}: commit hash metadata: {e}") from None
    return txs


def _endorser_writes(pdata: bytes) -> list[Write]:
    out = []
    wellformed(pdata, "Transaction")
    t = Message(pdata, "Transaction")
    for action in t.messages(1, "TransactionAction"):
        wellformed(action.bytes_(2), "ChaincodeActionPayload")
        cap = action.message(2, "ChaincodeActionPayload")
        cea = cap.message(2, "ChaincodeEndorsedAction")
        wellformed(cea.bytes_(1), "ProposalResponsePayload")
        prp = cea.message(1, "ProposalResponsePayload")
        wellformed(prp.bytes_(2), "ChaincodeAction")
        ca = prp.message(2, "ChaincodeAction")
        wellformed(ca.bytes_(1), "TxReadWriteSet")
        rws = ca.message(1, "TxReadWriteSet")
        for ns in rws.messages(2, "NsReadWriteSet"):
            name = ns.string(1)
            wellformed(ns.bytes_(2), "KVRWSet")
            kv = ns.message(2, "KVRWSet")
            for w in kv.messages(3, "KVWrite"):
                out.append(Write(name, w.string(1), w.bool_(2), w.bytes_(3)))
    return out


@dataclass
class OrdererOrg:
    mspid: str
    root_certs: list  # PEM bytes
    intermediate_certs: list


@dataclass
class ChannelConfig:
    orderer_orgs: dict  # mspid -> OrdererOrg


def _map_entries(group: Message, num: int, what: str) -> dict:
    out = {}
    for e in group.messages(num, what + " entry"):
        k = e.string(1)
        out[k] = e.bytes_(2)
    return out


def parse_channel_config(channel_group: Message) -> ChannelConfig:
    groups = _map_entries(channel_group, 2, "groups")
    orgs = {}
    if "Orderer" not in groups:
        raise BlockError("configuration has no Orderer group")
    orderer = Message(groups["Orderer"], "ConfigGroup Orderer")
    for org_name, gbytes in sorted(_map_entries(orderer, 2, "groups").items()):
        og = Message(gbytes, "ConfigGroup " + org_name)
        values = _map_entries(og, 3, "values")
        if "MSP" not in values:
            raise BlockError(f"orderer organisation {org_name} has no MSP value")
        cv = Message(values["MSP"], "ConfigValue")
        wellformed(cv.bytes_(2), "MSPConfig")
        mc = Message(cv.bytes_(2), "MSPConfig")
        if mc.int32(1) != 0:
            raise BlockError(f"orderer organisation {org_name}: MSP type {mc.int32(1)} is not FABRIC")
        wellformed(mc.bytes_(2), "FabricMSPConfig")
        fm = Message(mc.bytes_(2), "FabricMSPConfig")
        mspid = fm.string(1)
        orgs[mspid] = OrdererOrg(mspid, fm.repeated_bytes(2), fm.repeated_bytes(3))
    return ChannelConfig(orgs)
