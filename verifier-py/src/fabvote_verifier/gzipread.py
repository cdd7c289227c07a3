"""Strict gzip reading (docs/RECORD.md section 5): one or more RFC 1952
members, the block being their decompressed bytes concatenated, nothing
after the last member (no NUL padding either), at most 100 MiB. A header is
read as Go's compress/gzip reads it: optional fields as RFC 1952 defines
them, a file name or comment of at most 511 bytes, reserved flag bits
ignored, and its CRC16 (FHCRC), when present, must match.

Each member is fed to zlib in bounded chunks through a memoryview, so that
reading a file costs time in proportion to its size whatever the number of
members (a copy of the rest of the file per member would be quadratic)."""

from __future__ import annotations

import struct
import zlib

MAX_BLOCK = 100 << 20
# A block file itself (RECORD.md 5): empty members make a file of any size
# that decompresses to little, and a verifier must not read without bound.
MAX_FILE = 256 << 20
# A header's file name or comment, as Go's compress/gzip reads it (a 512-byte
# buffer with the terminating NUL).
MAX_STRING = 511
CHUNK = 1 << 16
FIRST_FEED = 64


class GzipError(ValueError):
    pass


def _header_end(data: bytes, pos: int) -> int:
    if len(data) - pos < 10:
        raise GzipError("truncated gzip header")
    if data[pos:pos + 2] != b"\x1f\x8b":
        raise GzipError("not a gzip member")
    if data[pos + 2] != 8:
        raise GzipError("unknown gzip compression method")
    flg = data[pos + 3]  # reserved bits ignored, as Go's compress/gzip does
    p = pos + 10
    if flg & 4:  # FEXTRA
        if len(data) - p < 2:
            raise GzipError("truncated gzip extra field")
        xlen = struct.unpack("<H", data[p:p + 2])[0]
        p += 2 + xlen
    for bit in (8, 16):  # FNAME, FCOMMENT: zero-terminated, at most MAX_STRING bytes
        if flg & bit:
            z = data.find(b"\x00", p, p + MAX_STRING + 1)
            if z < 0:
                raise GzipError(f"gzip name or comment longer than {MAX_STRING} bytes, or truncated")
            p = z + 1
    if flg & 2:  # FHCRC: the low 16 bits of the CRC-32 of the header before it
        if len(data) - p < 2:
            raise GzipError("truncated gzip header")
        if struct.unpack("<H", data[p:p + 2])[0] != zlib.crc32(data[pos:p]) & 0xFFFF:
            raise GzipError("gzip header checksum mismatch")
        p += 2
    if p > len(data):
        raise GzipError("truncated gzip header")
    return p


def _member(data: bytes, view: memoryview, p: int, room: int, limit: int):
    """Inflates the member whose deflate stream starts at p, with at most
    room bytes of output; returns its bytes and the position after it."""
    d = zlib.decompressobj(wbits=-zlib.MAX_WBITS)
    parts, n = [], 0
    # The feed grows from FIRST_FEED: zlib copies what follows a member's
    # end into unused_data, so a small first feed keeps a file of many
    # tiny members linear in its size.
    size = FIRST_FEED
    while not d.eof:
        if p >= len(data):
            raise GzipError("truncated gzip member")
        feed = view[p:p + size]
        p += len(feed)
        size = min(size * 2, CHUNK)
        while True:
            chunk = d.decompress(feed, room - n + 1)
            n += len(chunk)
            if n > room:
                raise GzipError(f"block decompresses to more than {limit >> 20} MiB")
            parts.append(chunk)
            feed = d.unconsumed_tail
            if not feed or d.eof:
                break
    out = b"".join(parts)
    end = p - len(d.unused_data)  # the trailer's first byte
    if len(data) - end < 8:
        raise GzipError("truncated gzip trailer")
    crc, size = struct.unpack("<II", data[end:end + 8])
    if crc != zlib.crc32(out) or size != len(out) & 0xFFFFFFFF:
        raise GzipError("gzip checksum or length mismatch")
    return out, end + 8


def decompress(data: bytes, limit: int = MAX_BLOCK) -> bytes:
    if not data:
        raise GzipError("empty file")
    view = memoryview(data)
    out = []
    total = 0
    pos = 0
    while pos < len(data):
        p = _header_end(data, pos)
        chunk, pos = _member(data, view, p, limit - total, limit)
        total += len(chunk)
        out.append(chunk)
    return b"".join(out)
