"""A minimal, strict Protocol Buffers wire-format reader.

Only what docs/RECORD.md 5.1 needs: a message is read into a map from field
number to the list of its raw values, in order.  Varints (wire type 0) are
returned as ints, length-delimited fields (wire type 2) as bytes, fixed64/32
(wire types 1/5) as bytes; groups (wire type 3 … 4) are skipped as unknown
fields.  Anything the wire format does not allow — truncation, a varint
longer than ten bytes or over 2^64, a stray end-group, wire types 6 and 7,
field number 0, a length past the end — raises WireError: a verifier must
fail on a message it cannot decode.
"""

from __future__ import annotations


class WireError(ValueError):
    pass


def read_varint(buf: bytes, pos: int) -> tuple[int, int]:
    result = 0
    shift = 0
    for i in range(10):
        if pos >= len(buf):
            raise WireError("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            if result >= 1 << 64:
                raise WireError("varint overflows 64 bits")
            return result, pos
        shift += 7
    raise WireError("varint longer than ten bytes")


def parse(buf: bytes) -> dict[int, list]:
    """Parse one message; return {field number: [values in order]}."""
    if not isinstance(buf, (bytes, bytearray, memoryview)):
        raise WireError("message is not bytes")
    buf = bytes(buf)
    fields: dict[int, list] = {}
    pos = 0
    n = len(buf)
    while pos < n:
        key, pos = read_varint(buf, pos)
        num, wt = key >> 3, key & 7
        if num == 0 or num > (1 << 29) - 1:
            raise WireError(f"invalid field number {num}")
        if wt == 0:
            val, pos = read_varint(buf, pos)
        elif wt == 1:
            if pos + 8 > n:
                raise WireError("truncated fixed64")
            val = buf[pos:pos + 8]
            pos += 8
        elif wt == 2:
            ln, pos = read_varint(buf, pos)
            if ln > n - pos:
                raise WireError("length-delimited field runs past the end")
            val = buf[pos:pos + ln]
            pos += ln
        elif wt == 5:
            if pos + 4 > n:
                raise WireError("truncated fixed32")
            val = buf[pos:pos + 4]
            pos += 4
        elif wt == 3:
            pos = _skip_group(buf, pos, num, 1)
            continue  # a group is never a field this reader knows
        else:
            raise WireError(f"unexpected wire type {wt} (field {num})")
        fields.setdefault(num, []).append((wt, val))
    return fields


# Groups may nest as deep as Go's protowire allows (its DefaultRecursionLimit
# of 10000 counts down from the first group to below zero), so that the two
# verifiers agree on every block (RECORD.md 5.1).
MAX_GROUP_DEPTH = 10001


def _skip_group(buf: bytes, pos: int, num: int, depth: int) -> int:
    """Skip a (deprecated) group up to its matching end-group tag, nested
    groups included, without recursion."""
    n = len(buf)
    open_groups = [num]
    while open_groups:
        if len(open_groups) + depth - 1 > MAX_GROUP_DEPTH:
            raise WireError("groups nested too deeply")
        if pos >= n:
            raise WireError(f"unterminated group (field {open_groups[-1]})")
        key, pos = read_varint(buf, pos)
        fnum, wt = key >> 3, key & 7
        if fnum == 0 or fnum > (1 << 29) - 1:
            raise WireError(f"invalid field number {fnum}")
        if wt == 4:
            if fnum != open_groups[-1]:
                raise WireError(f"end group {fnum} closes group {open_groups[-1]}")
            open_groups.pop()
            continue
        if wt == 0:
            _, pos = read_varint(buf, pos)
        elif wt == 1:
            pos += 8
        elif wt == 2:
            ln, pos = read_varint(buf, pos)
            pos += ln
        elif wt == 5:
            pos += 4
        elif wt == 3:
            open_groups.append(fnum)
        else:
            raise WireError(f"unexpected wire type {wt} (field {fnum})")
        if pos > n:
            raise WireError("truncated field inside a group")
    return pos


class Message:
    """Typed accessors over a parsed message.  A proto3 field that is absent
    has its default value; a singular scalar field repeated on the wire takes
    the last value and a singular message field merges its occurrences (proto
    semantics); unknown fields, and occurrences of a known field with another
    wire type, are skipped (but must be well-formed)."""

    __slots__ = ("_f", "name")

    def __init__(self, buf: bytes, name: str = "message"):
        self.name = name
        try:
            self._f = parse(buf)
        except WireError as e:
            raise WireError(f"{name}: {e}") from None

    def _vals(self, num: int, wt: int) -> list:
        # An occurrence with another wire type is an unknown field (as
        # protobuf's own parsers treat it): well-formed, skipped.
        return [v for w, v in self._f.get(num, []) if w == wt]

    def bytes_(self, num: int) -> bytes:
        v = self._vals(num, 2)
        return v[-1] if v else b""

    def string(self, num: int) -> str:
        b = self.bytes_(num)
        try:
            return b.decode("utf-8")
        except UnicodeDecodeError:
            raise WireError(f"{self.name}: field {num} is not valid UTF-8") from None

    def repeated_bytes(self, num: int) -> list[bytes]:
        return self._vals(num, 2)

    def uint(self, num: int) -> int:
        v = self._vals(num, 0)
        return v[-1] if v else 0

    def int32(self, num: int) -> int:
        x = self.uint(num) & 0xFFFFFFFF
        return x - (1 << 32) if x >= 1 << 31 else x

    def bool_(self, num: int) -> bool:
        return self.uint(num) != 0

    def has(self, num: int) -> bool:
        return num in self._f

    def has_bytes(self, num: int) -> bool:
        """Whether a length-delimited occurrence of num is present (a
        message field that is set, if empty)."""
        return bool(self._vals(num, 2))

    def message(self, num: int, name: str) -> "Message":
        # A singular embedded message that occurs more than once is merged
        # (proto semantics): parsing the concatenation does exactly that.
        return Message(b"".join(self._vals(num, 2)), name)

    def messages(self, num: int, name: str) -> list["Message"]:
        return [Message(b, name) for b in self.repeated_bytes(num)]
