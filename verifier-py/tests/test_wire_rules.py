"""RECORD.md 5 and 5.1: gzip framing, duplicated Block/Envelope fields,
well-formedness and UTF-8 of the decoded messages, --manifest."""

import gzip
import os
import shutil

import pytest

from conftest import RECORDS
from fabvote_verifier import gzipread, verify_record
from fabvote_verifier.cli import main
from fabvote_verifier.fabric import BlockError, parse_block, parse_transactions
from fabvote_verifier.protowire import WireError
from fabvote_verifier.schemas import wellformed

GOOD = os.path.join(RECORDS, "good")


def test_gzip_members():
    assert gzipread.decompress(gzip.compress(b"ab", mtime=0) + gzip.compress(b"cd", mtime=0)) == b"abcd"


@pytest.mark.parametrize("data", [
    b"",
    gzip.compress(b"abc", mtime=0) + b"\x00\x00",   # NUL padding
    gzip.compress(b"abc", mtime=0) + b"x",          # trailing byte
    gzip.compress(b"abc", mtime=0)[:-3],            # truncated trailer
    gzip.compress(b"abc", mtime=0)[:12],            # truncated member
    b"\x1f\x8c" + gzip.compress(b"abc", mtime=0)[2:],  # bad magic
])
def test_gzip_rejects(data):
    with pytest.raises(gzipread.GzipError):
        gzipread.decompress(data)


def _with_hcrc(payload: bytes, crc16=None) -> bytes:
    """payload as one member whose header carries FHCRC (right, or crc16)."""
    import struct
    import zlib
    body = gzip.compress(payload, mtime=0)
    hdr = bytearray(body[:10])
    hdr[3] |= 2
    good = zlib.crc32(bytes(hdr)) & 0xFFFF
    return bytes(hdr) + struct.pack("<H", good if crc16 is None else crc16) + body[10:]


def test_gzip_header_crc():
    """RECORD.md 5: a header's CRC16 (FHCRC) must match, as Go's compress/gzip requires."""
    assert gzipread.decompress(_with_hcrc(b"abc")) == b"abc"
    with pytest.raises(gzipread.GzipError, match="header checksum"):
        gzipread.decompress(_with_hcrc(b"abc", crc16=0x1234))


def _with_name(payload: bytes, name: bytes, flags: int = 0) -> bytes:
    body = gzip.compress(payload, mtime=0)
    hdr = bytearray(body[:10])
    hdr[3] |= 8 | flags
    return bytes(hdr) + name + b"\x00" + body[10:]


def test_gzip_header_as_go_reads_it():
    """RECORD.md 5: a name of 511 bytes is read, one of 512 is not; the
    reserved flag bits are ignored (Go's compress/gzip; TestTamper)."""
    assert gzipread.decompress(_with_name(b"abc", b"n" * 511)) == b"abc"
    with pytest.raises(gzipread.GzipError):
        gzipread.decompress(_with_name(b"abc", b"n" * 512))
    assert gzipread.decompress(_with_name(b"abc", b"n", flags=0xE0)) == b"abc"


def test_gzip_many_members_read_in_linear_time():
    """A block followed by many empty members (RECORD.md 5 allows them) is
    read without copying the rest of the file per member: 200,000 members
    would take hours if each copied the rest."""
    empty = gzip.compress(b"", mtime=0)
    data = gzip.compress(b"block", mtime=0) + empty * 200_000
    assert gzipread.decompress(data) == b"block"


def test_gzip_limit_across_members():
    with pytest.raises(gzipread.GzipError, match="more than"):
        gzipread.decompress(gzip.compress(b"\x00" * 600, mtime=0) * 2, limit=1000)


def test_gzip_limit():
    with pytest.raises(gzipread.GzipError):
        gzipread.decompress(gzip.compress(b"\x00" * 2000, mtime=0), limit=1000)


def _f(num, payload):
    return bytes([num << 3 | 2, len(payload)]) + payload


def test_block_fields_twice():
    hdr = _f(1, b"")
    with pytest.raises(BlockError):
        parse_block(hdr + hdr)


def _block_with_junk_tx(filter_code):
    """A block of one endorser transaction whose data is no peer.Transaction."""
    ch = bytes([1 << 3, 3]) + _f(4, b"fabvote") + _f(5, b"junk")  # ENDORSER_TRANSACTION
    payload = _f(1, _f(1, ch)) + _f(2, b"\xff")
    env = _f(1, payload)
    metadata = _f(1, b"") + _f(1, b"") + _f(1, bytes([filter_code]))
    return parse_block(_f(1, b"") + _f(2, _f(1, env)) + _f(3, metadata))


def test_undecodable_invalid_tx_has_no_writes():
    # RECORD.md 5.1: anyone who may write to the channel can have such a
    # transaction ordered; marked invalid, it is kept without writes.
    (tx,) = parse_transactions(_block_with_junk_tx(16))  # BAD_PAYLOAD
    assert not tx.valid and tx.tx_id == "junk" and tx.writes == [] and tx.error


def test_undecodable_valid_tx_fails():
    with pytest.raises(BlockError):
        parse_transactions(_block_with_junk_tx(0))


@pytest.mark.parametrize("name,buf", [
    ("ChannelHeader", _f(4, b"\xff")),                    # channel_id not UTF-8
    ("ChannelHeader", _f(3, b"\x0b")),                    # timestamp malformed
    ("KVRWSet", _f(1, _f(1, b"\xc3"))),                   # a read's key not UTF-8
    ("KVRWSet", _f(2, b"\x0a\x05")),                      # range query malformed
    ("ChaincodeAction", _f(4, _f(2, b"\xff\xfe"))),       # chaincode_id.name not UTF-8
    ("ConfigGroup", _f(4, _f(2, _f(2, b"\x0a\x09")))),    # a policy malformed
])
def test_wellformed_rejects(name, buf):
    with pytest.raises(WireError):
        wellformed(buf, name)


def _accepts(buf, name):
    try:
        wellformed(buf, name)
    except WireError:
        return False
    return True


def test_wellformed_skips_bytes_and_unknown():
    """tls_cert_hash (6, bytes) and an unknown field 7 are not read: bytes
    that are no UTF-8 pass there, and fail in channel_id (4, a string)."""
    assert _accepts(_f(7, b"\xff") + _f(6, b"\xff"), "ChannelHeader")
    assert not _accepts(_f(4, b"\xff"), "ChannelHeader")


def test_published_manifest(tmp_path, capsys):
    good = tmp_path / "rec"
    shutil.copytree(GOOD, good)
    mf = good / "manifest.json"
    assert verify_record(str(good), manifest=mf.read_bytes()).ok
    other = tmp_path / "other.json"
    other.write_bytes(mf.read_bytes().replace(b"Test election", b"Test Election"))
    rep = verify_record(str(good), manifest=other.read_bytes())
    assert rep.kinds() == ["MANIFEST"]
    assert main(["--record", str(good), "--manifest", str(mf)]) == 0
    assert main(["--record", str(good), "--manifest", str(other)]) == 1
    assert main(["--record", str(good), "--manifest", str(tmp_path / "missing")]) == 2
    capsys.readouterr()
