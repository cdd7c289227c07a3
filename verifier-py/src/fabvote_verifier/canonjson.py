"""Go encoding/json-compatible canonical JSON: the strict reader and the
writer that the manifest and the result round-trip through
(docs/PROTOCOL.md 3.1, 3.5): no whitespace, fields in a fixed order, strings
escaped as Go escapes them, byte strings in padded standard base64, times in
RFC 3339 UTC with Go's RFC3339Nano fraction (no trailing zeros)."""

from __future__ import annotations

import base64
import binascii
import json
import re


class CanonError(ValueError):
    pass


def encode_string(s: str) -> str:
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif o < 0x20 or ch in "<>&" or o in (0x2028, 0x2029):
            out.append("\\u%04x" % o)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def encode_bytes(b: bytes) -> str:
    return '"' + base64.b64encode(b).decode() + '"'


def decode_b64(s, field: str) -> bytes:
    if not isinstance(s, str):
        raise CanonError(f"field {field}: not a string")
    try:
        b = base64.b64decode(s, validate=True)
    except (binascii.Error, ValueError):
        raise CanonError(f"field {field}: not standard base64") from None
    if base64.b64encode(b).decode() != s:
        raise CanonError(f"field {field}: not canonical base64")
    return b


_TIME_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$")


def parse_time(s, field: str) -> tuple:
    """RFC 3339 UTC time -> comparable tuple (y, mo, d, h, mi, s, nanos)."""
    if not isinstance(s, str):
        raise CanonError(f"field {field}: not a string")
    m = _TIME_RE.match(s)
    if not m:
        raise CanonError(f"field {field}: not an RFC 3339 UTC time")
    y, mo, d, h, mi, se = (int(m.group(i)) for i in range(1, 7))
    frac = m.group(7) or ""
    import calendar
    if not (1 <= mo <= 12 and 1 <= d <= (calendar.monthrange(y, mo)[1] if y > 0 else 31)
            and h <= 23 and mi <= 59 and se <= 59):
        raise CanonError(f"field {field}: not a valid time")
    nanos = int((frac + "000000000")[:9])
    return (y, mo, d, h, mi, se, nanos)


def format_time(t: tuple) -> str:
    y, mo, d, h, mi, se, nanos = t
    s = "%04d-%02d-%02dT%02d:%02d:%02d" % (y, mo, d, h, mi, se)
    if nanos:
        s += "." + ("%09d" % nanos).rstrip("0")
    return s + "Z"


ZERO_TIME = (1, 1, 1, 0, 0, 0, 0)


def _no_dup(pairs):
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise CanonError("duplicate field")
    return pairs


def load_object(raw: bytes, what: str) -> list:
    """Decode one JSON object, returning its (key, value) pairs in order."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise CanonError(f"{what}: not UTF-8") from None
    try:
        v = json.loads(text, object_pairs_hook=_no_dup, parse_float=_reject_float, parse_constant=_reject_float)
    except CanonError:
        raise
    except (ValueError, RecursionError) as e:
        raise CanonError(f"{what}: not JSON: {e}") from None
    if not isinstance(v, list) or (v and not isinstance(v[0], tuple)):
        raise CanonError(f"{what}: not a JSON object")
    return v


def _reject_float(s):
    raise CanonError(f"number {s} is not an integer")


def uint(v, field: str, bits: int = 64) -> int:
    if type(v) is not int or v < 0 or v >= 1 << bits:
        raise CanonError(f"field {field}: not a uint{bits}")
    return v


def string(v, field: str) -> str:
    if not isinstance(v, str):
        raise CanonError(f"field {field}: not a string")
    return v


def str_list(v, field: str) -> list:
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise CanonError(f"field {field}: not a list of strings")
    return v


def encode_uint_list(v: list) -> str:
    return "[" + ",".join(str(x) for x in v) + "]"


def encode_str_list(v: list) -> str:
    return "[" + ",".join(encode_string(x) for x in v) + "]"


def encode_bytes_list(v: list) -> str:
    return "[" + ",".join(encode_bytes(x) for x in v) + "]"


def check_fields(pairs: list, names: list, what: str) -> dict:
    keys = [k for k, _ in pairs]
    if keys != names:
        unknown = [k for k in keys if k not in names]
        if unknown:
            raise CanonError(f"{what}: unknown field {unknown[0]!r}")
        raise CanonError(f"{what}: fields missing or out of order")
    return dict(pairs)
