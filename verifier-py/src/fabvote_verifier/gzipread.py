"""Strict gzip reading (docs/RECORD.md section 5): one or more RFC 1952
members, the block being their decompressed bytes concatenated, nothing
after the last member (no NUL padding either), at most 100 MiB."""

from __future__ import annotations

import struct
import zlib

MAX_BLOCK = 100 << 20


class GzipError(ValueError):
    pass


def _header_end(data: bytes, pos: int) -> int:
    if len(data) - pos < 10:
        raise GzipError("truncated gzip header")
    if data[pos:pos + 2] != b"\x1f\x8b":
        raise GzipError("not a gzip member")
    if data[pos + 2] != 8:
        raise GzipError("unknown gzip compression method")
    flg = data[pos + 3]
    if flg & 0xE0:
        raise GzipError("reserved gzip flags set")
    p = pos + 10
    if flg & 4:  # FEXTRA
        if len(data) - p < 2:
            raise GzipError("truncated gzip extra field")
        xlen = struct.unpack("<H", data[p:p + 2])[0]
        p += 2 + xlen
    for bit in (8, 16):  # FNAME, FCOMMENT: zero-terminated
        if flg & bit:
            z = data.find(b"\x00", p)
            if z < 0:
                raise GzipError("truncated gzip name or comment")
            p = z + 1
    if flg & 2:  # FHCRC
        p += 2
    if p > len(data):
        raise GzipError("truncated gzip header")
    return p


def decompress(data: bytes, limit: int = MAX_BLOCK) -> bytes:
    if not data:
        raise GzipError("empty file")
    out = []
    total = 0
    pos = 0
    while pos < len(data):
        p = _header_end(data, pos)
        d = zlib.decompressobj(wbits=-zlib.MAX_WBITS)
        chunk = d.decompress(data[p:], limit - total + 1)
        total += len(chunk)
        if total > limit:
            raise GzipError(f"block decompresses to more than {limit >> 20} MiB")
        if not d.eof:
            raise GzipError("truncated gzip member")
        rest = d.unused_data
        if len(rest) < 8:
            raise GzipError("truncated gzip trailer")
        crc, size = struct.unpack("<II", rest[:8])
        if crc != zlib.crc32(chunk) or size != len(chunk) & 0xFFFFFFFF:
            raise GzipError("gzip checksum or length mismatch")
        out.append(chunk)
        pos = len(data) - len(rest) + 8
    return b"".join(out)
