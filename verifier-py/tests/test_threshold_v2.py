"""Version 2 threshold parameters (integer shares of a distributed key
generation): the Go vector's partials verify and combine, and each kind of
bad input is refused."""

import base64
import dataclasses
import json

import pytest

from conftest import THRESHOLD_V2 as VECTOR
from fabvote_verifier import paillier


def _vector():
    with open(VECTOR) as f:
        v = json.load(f)
    params = base64.b64decode(v["params"])
    n = int.from_bytes(params[13:13 + int.from_bytes(params[11:13], "big")], "big")
    return v, params, paillier.PublicKey(n)


def test_vector_verifies_and_combines():
    v, params, pk = _vector()
    tp = paillier.parse_threshold_params(params, pk)
    assert tp.version == 2 and tp.share_bits > pk.n2.bit_length()
    c = int(v["c"], 16)
    parts = [paillier.parse_partial(base64.b64decode(p), tp) for p in v["partials"]]
    assert all(paillier.verify_partial(tp, c, p) for p in parts)
    assert paillier.combine(tp, parts) == int(v["plaintext"])


def test_a_changed_response_fails():
    v, params, pk = _vector()
    tp = paillier.parse_threshold_params(params, pk)
    pd = paillier.parse_partial(base64.b64decode(v["partials"][0]), tp)
    assert not paillier.verify_partial(tp, int(v["c"], 16), dataclasses.replace(pd, z=pd.z + 1))


def test_a_version2_proof_fails_as_version1():
    v, params, pk = _vector()
    tp = paillier.parse_threshold_params(params, pk)
    pd = paillier.parse_partial(base64.b64decode(v["partials"][0]), tp)
    assert not paillier.verify_partial(dataclasses.replace(tp, share_bits=0), int(v["c"], 16), pd)


def _set_u16(b, off, x):
    return b[:off] + x.to_bytes(2, "big") + b[off + 2:]


@pytest.mark.parametrize("what,mutate,want", [
    ("S below |N²|", lambda b, pk: _set_u16(b, 9, pk.n2.bit_length() - 1), "share bound"),
    ("S above 2·|N²|", lambda b, pk: _set_u16(b, 9, 2 * pk.n2.bit_length() + 1), "share bound"),
    ("version 3", lambda b, pk: b[:4] + b"\x03" + b[5:], "magic or version"),
    ("version 1 layout", lambda b, pk: b[:4] + b"\x01" + b[5:], "N"),
])
def test_params_rejects(what, mutate, want):
    _, params, pk = _vector()
    with pytest.raises(paillier.KeyError_, match=want):
        paillier.parse_threshold_params(mutate(params, pk), pk)


def test_partial_of_the_other_version_is_refused():
    v, params, pk = _vector()
    tp = paillier.parse_threshold_params(params, pk)
    raw = base64.b64decode(v["partials"][0])
    with pytest.raises(paillier.KeyError_, match="version 2"):
        paillier.parse_partial(raw[:4] + b"\x01" + raw[5:], tp)
