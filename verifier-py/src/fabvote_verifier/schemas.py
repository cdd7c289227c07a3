"""Well-formedness of the fabric-protos messages a verifier decodes
(docs/RECORD.md 5.1): every known field of a decoded message, embedded
messages included even where the verifier does not read them, must decode,
and every string field must be UTF-8 — what Go's proto.Unmarshal of the
message's type requires.  Fields of `bytes` type are not looked into here.

A schema maps a field number to (kind, message name): kind "s" string,
"m" embedded message; other known fields (bytes, varints) need no check
beyond the wire format.  Map fields are messages {1: key, 2: value}."""

from __future__ import annotations

from .protowire import WireError, parse

S, M = "s", "m"
SCHEMAS = {
    "Block": {1: (M, "BlockHeader"), 2: (M, "BlockData"), 3: (M, "BlockMetadata")},
    "BlockHeader": {}, "BlockData": {}, "BlockMetadata": {},
    "Metadata": {2: (M, "MetadataSignature")},
    "MetadataSignature": {},
    "OrdererBlockMetadata": {1: (M, "LastConfig")},
    "LastConfig": {},
    "Envelope": {},
    "Payload": {1: (M, "Header")},
    "Header": {},
    "ChannelHeader": {3: (M, "Timestamp"), 4: (S, None), 5: (S, None)},
    "Timestamp": {},
    "SignatureHeader": {},
    "SerializedIdentity": {1: (S, None)},
    "Transaction": {1: (M, "TransactionAction")},
    "TransactionAction": {},
    "ChaincodeActionPayload": {2: (M, "ChaincodeEndorsedAction")},
    "ChaincodeEndorsedAction": {2: (M, "Endorsement")},
    "Endorsement": {},
    "ProposalResponsePayload": {},
    "ChaincodeAction": {3: (M, "Response"), 4: (M, "ChaincodeID")},
    "Response": {2: (S, None)},
    "ChaincodeID": {1: (S, None), 2: (S, None), 3: (S, None)},
    "TxReadWriteSet": {2: (M, "NsReadWriteSet")},
    "NsReadWriteSet": {1: (S, None), 3: (M, "CollectionHashedReadWriteSet")},
    "CollectionHashedReadWriteSet": {1: (S, None)},
    "KVRWSet": {1: (M, "KVRead"), 2: (M, "RangeQueryInfo"), 3: (M, "KVWrite"), 4: (M, "KVMetadataWrite")},
    "KVRead": {1: (S, None), 2: (M, "Version")},
    "Version": {},
    "RangeQueryInfo": {1: (S, None), 2: (S, None), 4: (M, "QueryReads"), 5: (M, "QueryReadsMerkleSummary")},
    "QueryReads": {1: (M, "KVRead")},
    "QueryReadsMerkleSummary": {},
    "KVWrite": {1: (S, None)},
    "KVMetadataWrite": {1: (S, None), 2: (M, "KVMetadataEntry")},
    "KVMetadataEntry": {1: (S, None)},
    "ConfigEnvelope": {1: (M, "Config"), 2: (M, "Envelope")},
    "Config": {2: (M, "ConfigGroup")},
    "ConfigGroup": {2: (M, "GroupsEntry"), 3: (M, "ValuesEntry"), 4: (M, "PoliciesEntry"), 5: (S, None)},
    "GroupsEntry": {1: (S, None), 2: (M, "ConfigGroup")},
    "ValuesEntry": {1: (S, None), 2: (M, "ConfigValue")},
    "PoliciesEntry": {1: (S, None), 2: (M, "ConfigPolicy")},
    "ConfigValue": {3: (S, None)},
    "ConfigPolicy": {2: (M, "Policy"), 3: (S, None)},
    "Policy": {},
    "MSPConfig": {},
    "FabricMSPConfig": {1: (S, None), 6: (M, "SigningIdentityInfo"), 7: (M, "FabricOUIdentifier"),
                        8: (M, "FabricCryptoConfig"), 11: (M, "FabricNodeOUs")},
    "SigningIdentityInfo": {2: (M, "KeyInfo")},
    "KeyInfo": {1: (S, None)},
    "FabricOUIdentifier": {2: (S, None)},
    "FabricCryptoConfig": {1: (S, None), 2: (S, None)},
    "FabricNodeOUs": {2: (M, "FabricOUIdentifier"), 3: (M, "FabricOUIdentifier"), 4: (M, "FabricOUIdentifier"),
                      5: (M, "FabricOUIdentifier")},
}


def wellformed(buf: bytes, name: str, depth: int = 0) -> None:
    """Raise WireError unless buf decodes as message `name` (see module doc)."""
    if depth > 64:
        raise WireError(f"{name}: nested too deeply")
    try:
        fields = parse(buf)
    except WireError as e:
        raise WireError(f"{name}: {e}") from None
    schema = SCHEMAS[name]
    for num, occ in fields.items():
        spec = schema.get(num)
        if spec is None:
            continue
        kind, sub = spec
        for wt, val in occ:
            if wt != 2:
                continue  # another wire type: an unknown field
            if kind == S:
                try:
                    val.decode("utf-8")
                except UnicodeDecodeError:
                    raise WireError(f"{name}: field {num} is not UTF-8") from None
            else:
                wellformed(val, sub, depth + 1)
