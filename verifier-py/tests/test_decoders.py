"""One negative test per kind of bad input, for every decoder."""

import base64
import hashlib
import json
import os

import pytest
from cryptography.hazmat.primitives.asymmetric import ec, utils
from cryptography.hazmat.primitives import hashes

from conftest import RECORDS
from fabvote_verifier import canonjson, election, paillier, protowire, sigs
from fabvote_verifier.election import ElectionError

GOOD = os.path.join(RECORDS, "good")


def manifest_raw():
    with open(os.path.join(GOOD, "manifest.json"), "rb") as f:
        return f.read()


def result_raw():
    with open(os.path.join(GOOD, "result.json"), "rb") as f:
        return f.read()


# ------------------------------------------------------------------ protobuf

@pytest.mark.parametrize("raw", [
    b"\x08",                      # truncated varint
    b"\x08" + b"\xff" * 10 + b"\x01",  # varint longer than ten bytes
    b"\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f",  # varint over 2^64
    b"\x0a\x05abc",               # length past the end
    b"\x0b",                      # wire type 3: unterminated group
    b"\x0b\x14",                  # group 1 closed by end group 2
    b"\x0c",                      # wire type 4: end group without a group
    b"\x0e",                      # wire type 6
    b"\x02\x00",                  # field number 0
    b"\x09\x00\x00",              # truncated fixed64
    b"\x0d\x00",                  # truncated fixed32
])
def test_protowire_rejects(raw):
    with pytest.raises(protowire.WireError):
        protowire.parse(raw)


def test_protowire_wrong_wire_type_is_unknown():
    m = protowire.Message(b"\x08\x01\x12\x01x\x10\x05", "m")
    assert m.bytes_(1) == b"" and m.bytes_(2) == b"x" and m.uint(2) == 5


def test_protowire_message_fields_merge():
    # header {number: 3} then header {previous_hash: "p"}: one merged header
    m = protowire.Message(b"\x0a\x02\x08\x03" + b"\x0a\x03\x12\x01p", "m")
    h = m.message(1, "h")
    assert h.uint(1) == 3 and h.bytes_(2) == b"p"


def test_protowire_skips_groups():
    assert protowire.parse(b"\x0b\x08\x01\x13\x14\x0c\x10\x02") == {2: [(0, 2)]}


def test_protowire_reads():
    f = protowire.parse(b"\x08\x96\x01\x12\x03abc")
    assert f == {1: [(0, 150)], 2: [(2, b"abc")]}


# ------------------------------------------------------------------ manifest

def test_manifest_good():
    p = election.prepare_manifest(manifest_raw())
    assert p.manifest.marshal() == manifest_raw()
    assert p.threshold is not None


def _mutate(raw, fn):
    # The top level's (key, value) pairs, its nested objects (contests,
    # styles) as dicts in their order, so that they re-encode as objects.
    d = list(json.loads(raw, object_pairs_hook=dict).items())
    d = fn(d)
    return ("{" + ",".join(json.dumps(k) + ":" + json.dumps(v, separators=(",", ":")) for k, v in d) + "}").encode()


def _set(field, value):
    return lambda d: [(k, value if k == field else v) for k, v in d]


@pytest.mark.parametrize("name,mut", [
    ("whitespace", lambda r: r.replace(b'","', b'", "', 1)),
    ("trailing data", lambda r: r + b" "),
    ("trailing newline", lambda r: r + b"\n"),
    ("BOM", lambda r: b"\xef\xbb\xbf" + r),
    ("unknown field", lambda r: _mutate(r, lambda d: d + [("extra", 1)])),
    ("case-folded field", lambda r: r.replace(b'"title"', b'"Title"')),
    ("missing field", lambda r: _mutate(r, lambda d: [kv for kv in d if kv[0] != "title"])),
    ("fields out of order", lambda r: _mutate(r, lambda d: [d[1], d[0]] + d[2:])),
    ("duplicate field", lambda r: _mutate(r, lambda d: d + [("title", "x")])),
    ("null list", lambda r: _mutate(r, _set("trusteeMSPs", None))),
    ("null bytes", lambda r: _mutate(r, _set("threshold", None))),
    ("unpadded base64", lambda r: _mutate(r, _set("pseudonymKeyCommitment", "bkMsgs1jShfiXxpMJl9saqXcUojcAdbiTGeFftxCbgY"))),
    ("url base64", lambda r: _mutate(r, _set("tokenKey", base64.urlsafe_b64encode(b"\xfb\xff" * 4).decode()))),
    ("time with offset", lambda r: _mutate(r, _set("start", "2026-11-01T08:00:00+00:00"))),
    ("time with trailing zero fraction", lambda r: _mutate(r, _set("start", "2026-11-01T08:00:00.50Z"))),
    ("float", lambda r: _mutate(r, _set("maxVoters", 1000.0))),
    ("int as string", lambda r: _mutate(r, _set("maxVoters", "1000"))),
    ("escaped ascii", lambda r: r.replace(b'"Alice"', b'"\\u0041lice"')),
    ("unescaped <", lambda r: _mutate(r, _set("title", "a<b"))),
    ("escaped non-ASCII", lambda r: _mutate(r, _set("title", "caf\u00e9"))),
    ("not an object", lambda r: b"[" + r + b"]"),
    ("negative uint", lambda r: _mutate(r, _set("maxVoters", -1))),
    ("oversize", lambda r: r[:-1] + b" " * (256 * 1024) + b"}"),
])
def test_manifest_decode_rejects(name, mut):
    bad = mut(manifest_raw())
    assert bad != manifest_raw()
    with pytest.raises(ElectionError) as e:
        election.decode_manifest(bad)
    assert e.value.code in ("DECODE", "SIZE")


def test_manifest_escapes_like_go():
    # Go escapes <, > and & in strings: the canonical form of "a<b" is "a\u003cb".
    ok = _mutate(manifest_raw(), _set("title", "a<b")).replace(b"a<b", b"a\\u003cb")
    assert election.prepare_manifest(ok).manifest.title == "a<b"
    ok = _mutate(manifest_raw(), _set("title", "caf\u00e9")).replace(b"caf\\u00e9", "café".encode())
    assert election.prepare_manifest(ok).manifest.title == "café"


@pytest.mark.parametrize("field,value", [
    ("version", 3),
    ("electionID", "-bad"),
    ("channel", "Fabvote"),
    ("title", ""),
    ("title", "a\u0007b"),
    ("title", "x" * 201),
    ("contests", []),
    ("styles", []),
    ("encodingBits", 9),         # 2^9 = 512 ≤ maxVoters = 1000
    ("encodingBits", 65),
    ("maxVoters", 0),
    ("paillierKey", base64.b64encode(b"FVPK\x01\x00\x01\x03").decode()),
    ("threshold", base64.b64encode(b"FVTP\x01").decode()),
    ("tokenKey", base64.b64encode(b"\x30\x00").decode()),
    ("pseudonymKeyCommitment", base64.b64encode(b"\x00" * 31).decode()),
    ("authorityMSP", "bad msp"),
    ("trusteeMSPs", ["A", "A"]),
    ("end", "2026-11-01T08:00:00Z"),
    ("maxClockSkewSeconds", 0),
    ("maxClockSkewSeconds", 3601),
    ("challengeBits", 120),
    ("challengeBits", 130),
])
def test_manifest_field_rejects(field, value):
    bad = _mutate(manifest_raw(), _set(field, value))
    with pytest.raises(ElectionError) as e:
        election.prepare_manifest(bad)
    assert e.value.code == "MANIFEST", str(e.value)


def _add(field, value):
    return lambda d: d + [(field, value)]


def test_manifest_booth_digest():
    # Optional, last when present (Go's omitempty), bound by the digest.
    digest = "sha256:" + "0a" * 32
    with_booth = _mutate(manifest_raw(), _add("boothDigest", digest))
    prep = election.prepare_manifest(with_booth)
    assert prep.manifest.booth_digest == digest
    assert prep.manifest.marshal() == with_booth
    assert prep.digest != election.prepare_manifest(manifest_raw()).digest


@pytest.mark.parametrize("value", ["0a" * 32, "sha512:" + "0a" * 32, "sha256:" + "a" * 63, "sha256:" + "A" * 64, "sha256:" + "g" * 64])
def test_manifest_booth_digest_rejects(value):
    with pytest.raises(ElectionError) as e:
        election.prepare_manifest(_mutate(manifest_raw(), _add("boothDigest", value)))
    assert e.value.code == "MANIFEST", str(e.value)


@pytest.mark.parametrize("mut", [
    _add("boothDigest", ""),                                               # empty: Go leaves the key out
    lambda d: [("boothDigest", "sha256:" + "0" * 64)] + d,                  # not last
    _add("boothDigest", 1),                                                # not a string
])
def test_manifest_booth_digest_not_canonical(mut):
    with pytest.raises(ElectionError) as e:
        election.prepare_manifest(_mutate(manifest_raw(), mut))
    assert e.value.code == "DECODE", str(e.value)


def test_manifest_token_key_other_curve():
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
    k = ec.generate_private_key(ec.SECP384R1()).public_key().public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo)
    with pytest.raises(ElectionError):
        election.prepare_manifest(_mutate(manifest_raw(), _set("tokenKey", base64.b64encode(k).decode())))


# ------------------------------------------------------------------ keys

def _pk():
    return election.prepare_manifest(manifest_raw()).pk


@pytest.mark.parametrize("mut", [
    lambda b: b"FVPX" + b[4:],                 # magic
    lambda b: b[:4] + b"\x02" + b[5:],         # version
    lambda b: b + b"\x00",                     # trailing byte
    lambda b: b[:-1],                          # truncated
    lambda b: b[:5] + (int.from_bytes(b[5:7], "big") + 1).to_bytes(2, "big") + b"\x00" + b[7:],  # leading zero
    lambda b: b[:-1] + bytes([b[-1] ^ 1]),     # even N
    lambda b: b"FVPK\x01\x00\x80" + b"\xff" * 128,  # 1024-bit N
    lambda b: b[:-1] + bytes([(b[-1] + 6) % 256]) if False else b"FVPK\x01" + _mod3(b),  # small factor
])
def test_public_key_rejects(mut):
    good = _pk().marshal()
    with pytest.raises(paillier.KeyError_):
        paillier.parse_public_key(mut(good))


def _mod3(b):
    n = int.from_bytes(b[7:], "big")
    n = n - n % 3 + 3
    if n % 2 == 0:
        n += 3
    nb = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return len(nb).to_bytes(2, "big") + nb


def _tp_raw():
    return election.decode_manifest(manifest_raw()).threshold


@pytest.mark.parametrize("mut", [
    lambda b: b"FVTX" + b[4:],
    lambda b: b[:5] + b"\x00\x00" + b[7:],          # K = 0
    lambda b: b[:5] + b"\x00\x04" + b[7:],          # K > L
    lambda b: b[:7] + b"\x00\x00" + b[9:],          # L = 0
    lambda b: b + b"\x00",
    lambda b: b[:-1],
    lambda b: b[:-512] + b"\x00" * 512,             # V_L = 0, not in Z*
])
def test_threshold_params_rejects(mut):
    pk = _pk()
    # Unchanged, the parameters read as the good record's 2-of-3 dealing:
    # the error below is the mutation's.
    tp = paillier.parse_threshold_params(_tp_raw(), pk)
    assert (tp.k, tp.l, tp.pk) == (2, 3, pk)
    with pytest.raises(paillier.KeyError_):
        paillier.parse_threshold_params(mut(_tp_raw()), pk)


def _partials():
    r = election.decode_result(result_raw())
    return r, r.partials


@pytest.mark.parametrize("mut", [
    lambda b: b"FVPX" + b[4:],
    lambda b: b + b"\x00",
    lambda b: b[:-1],
    lambda b: b[:5] + b"\x00\x00" + b[7:],     # index 0
    lambda b: b[:5] + b"\x00\x09" + b[7:],     # index > L
    lambda b: b[:7] + b"\x00" * 512 + b[519:],  # c_i = 0
    lambda b: b[:-len(b) + 551] + b"\xff" * (len(b) - 551),  # Z too large
])
def test_partial_rejects(mut):
    prep = election.prepare_manifest(manifest_raw())
    _, parts = _partials()
    # Unchanged, it reads as trustee 1's (the fixtures' trustees 1 and 3
    # decrypt): the error below is the mutation's.
    assert paillier.parse_partial(parts[0], prep.threshold).index == 1
    with pytest.raises(paillier.KeyError_):
        paillier.parse_partial(mut(parts[0]), prep.threshold)


def test_partials_verify_and_combine():
    prep = election.prepare_manifest(manifest_raw())
    r, parts = _partials()
    c = int.from_bytes(r.product, "big")
    pds = [paillier.parse_partial(p, prep.threshold) for p in parts]
    assert all(paillier.verify_partial(prep.threshold, c, pd) for pd in pds)
    t = int.from_bytes(r.tally, "big")
    assert paillier.combine(prep.threshold, pds) == t
    bad = paillier.Partial(pds[0].index, pds[0].ci, pds[0].e ^ 1, pds[0].z)
    assert not paillier.verify_partial(prep.threshold, c, bad)


# ------------------------------------------------------------------ result

@pytest.mark.parametrize("mut", [
    lambda r: r + b"\n",
    lambda r: r.replace(b'"ballotCount"', b'"BallotCount"'),
    lambda r: r.replace(b'"ballotCount":5', b'"ballotCount":5.0'),
    lambda r: r.replace(b'"decryptionNonce":""', b'"decryptionNonce":null'),
    lambda r: r.replace(b'"counts":[', b'"counts":[ '),
    lambda r: r[:-1] + b',"x":1}',
    lambda r: r.replace(b'"electionID":"record-e1",', b""),
    lambda r: r[:-1] + b" " * (512 * 1024) + b"}",
])
def test_result_decode_rejects(mut):
    raw = result_raw()
    # Unchanged, the result reads (the good record's five ballots): the
    # error below is the mutation's.
    assert election.decode_result(raw).ballot_count == 5
    with pytest.raises(ElectionError):
        election.decode_result(mut(raw))


def test_result_tally_minimal():
    with pytest.raises(ElectionError):
        election.decode_minimal(b"\x00\x01", "tally")
    assert election.decode_minimal(b"", "tally") == 0


# ------------------------------------------------------------------ ballot

def _ballot():
    """A well-formed ballot, signed by fresh keys (not valid for any manifest)."""
    priv = ec.generate_private_key(ec.SECP256R1())
    pub = priv.public_key().public_numbers()
    vp = b"\x04" + pub.x.to_bytes(32, "big") + pub.y.to_bytes(32, "big")

    def rs(digest):
        r, s = utils.decode_dss_signature(priv.sign(digest, ec.ECDSA(utils.Prehashed(hashes.SHA256()))))
        if s > sigs.HALF_N:
            s = sigs.P256_N - s
        return r.to_bytes(32, "big") + s.to_bytes(32, "big")

    token = b"\x11" * 32 + b"\x00" + rs(b"\x22" * 32)
    b = election.Ballot("e1", vp, token, b"\x00", b"\x01" * 512, b"\x02" * 100, b"")
    return election.Ballot(b.election_id, vp, token, b.contests, b.ciphertext, b.proof, rs(b.signing_digest())), priv


def test_ballot_roundtrip_and_signature():
    b, priv = _ballot()
    raw = b.marshal()
    assert election.parse_ballot(raw) == b
    assert sigs.verify_digest_rs(sigs.p256_point(b.voter_pub), b.signing_digest(), b.signature)


def _field_offsets(raw):
    pos, out = 1, []
    for _ in range(7):
        n = int.from_bytes(raw[pos:pos + 4], "big")
        out.append((pos, n))
        pos += 4 + n
    return out


def _replace_field(raw, i, new):
    offs = _field_offsets(raw)
    pos, n = offs[i]
    return raw[:pos] + len(new).to_bytes(4, "big") + new + raw[pos + 4 + n:]


@pytest.mark.parametrize("name,mut", [
    ("version", lambda r: b"\x02" + r[1:]),
    ("empty", lambda r: b""),
    ("trailing", lambda r: r + b"\x00"),
    ("truncated", lambda r: r[:-1]),
    ("length past end", lambda r: r[:1] + b"\xff\xff\xff\xff" + r[5:]),
    ("election id alphabet", lambda r: _replace_field(r, 0, b"e 1")),
    ("election id leading dot", lambda r: _replace_field(r, 0, b".e1")),
    ("election id too long", lambda r: _replace_field(r, 0, b"e" * 65)),
    ("voter key compressed", lambda r: _replace_field(r, 1, b"\x02" + b"\x01" * 32)),
    ("voter key off curve", lambda r: _replace_field(r, 1, b"\x04" + b"\x01" * 64)),
    ("token length", lambda r: _replace_field(r, 2, b"\x11" * 96)),
    ("token v2 length", lambda r: _replace_field(r, 2, election.parse_ballot(r).token[:32] + election.parse_ballot(r).token[33:])),
    ("token high S", lambda r: _replace_field(r, 2, _ballot_token_high_s(r))),
    ("token zero r", lambda r: _replace_field(r, 2, b"\x11" * 32 + b"\x00" + b"\x00" * 32 + b"\x00" * 31 + b"\x01")),
    ("contests empty", lambda r: _replace_field(r, 3, b"")),
    ("contests over 32", lambda r: _replace_field(r, 3, bytes(range(33)))),
    ("signature high S", lambda r: _replace_field(r, 6, _high_s(election.parse_ballot(r).signature))),
    ("signature length", lambda r: _replace_field(r, 6, b"\x01" * 63)),
    ("oversize", lambda r: _replace_field(r, 5, b"\x00" * (105 * 1024))),
    ("ciphertext empty", lambda r: _replace_field(r, 4, b"")),
    ("proof empty", lambda r: _replace_field(r, 5, b"")),
])
def test_ballot_rejects(name, mut):
    raw = _ballot()[0].marshal()
    with pytest.raises(ElectionError) as e:
        election.parse_ballot(mut(raw))
    assert e.value.code in ("DECODE", "SIZE")


def _high_s(sig):
    s = int.from_bytes(sig[32:], "big")
    return sig[:32] + (sigs.P256_N - s).to_bytes(32, "big")


def _ballot_token_high_s(raw):
    t = election.parse_ballot(raw).token
    return t[:33] + _high_s(t[33:])


# ------------------------------------------------------------------ record

@pytest.mark.parametrize("raw", [b"", b"\x02\x00\x00", b"\x01\x00\x05abc", b"\x01\x00\x81" + b"a" * 200])
def test_record_rejects(raw):
    with pytest.raises(ElectionError):
        election.parse_record(raw)


def test_record_reads():
    assert election.parse_record(b"\x01\x00\x02tx\x02rest") == ("tx", b"\x02rest")


# ------------------------------------------------------------------ time

@pytest.mark.parametrize("s", ["2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-01-01T24:00:00Z",
                               "2026-01-01 00:00:00Z", "2026-01-01T00:00:00z", "2026-01-01T00:00:00.Z",
                               "2026-01-01T00:00:00.1234567890Z"])
def test_time_rejects(s):
    with pytest.raises(canonjson.CanonError):
        canonjson.parse_time(s, "t")


def test_time_format():
    t = canonjson.parse_time("2026-01-01T00:00:00.5Z", "t")
    assert canonjson.format_time(t) == "2026-01-01T00:00:00.5Z"
    assert canonjson.format_time(canonjson.ZERO_TIME) == "0001-01-01T00:00:00Z"
