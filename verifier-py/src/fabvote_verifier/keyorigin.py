"""V33, the key's origin (docs/VERIFY.md): how the manifest's Paillier key
was made, from the spec (PROTOCOL 3.1, 3.6), independently of the Go code.

A dealt key (keyOrigin "dealer") passes, labelled. A distributed key passes
only if its ceremony's public result verifies:

  * the Πmod proof that N is a Paillier–Blum modulus, its challenges bound
    to the ceremony id (pimod.verify);
  * the self-test: c* = (1+N)^{M*}·r*^N mod N², where M* is the first value
    of the hash stream (pimod.stream) over (SELFTEST_TAG, ceremony id, the
    threshold parameters' bytes) and r* the first later value in Z*_N;
    one partial decryption of c* from each trustee, in index order, each
    with a valid proof, and every K of them combine to M*.
"""

from __future__ import annotations

import itertools
import math

from . import pimod
from .election import KEY_ORIGIN_DEALER, ElectionError, Prepared
from .paillier import KeyError_, ThresholdParams, combine, parse_partial, verify_partial

SELFTEST_TAG = b"fabvote/threshold/selftest/v1"
_MAX_NONCES = 256


def selftest_ciphertext(tp: ThresholdParams, ceremony: bytes, params: bytes) -> tuple[int, int]:
    """The self-test ciphertext c* and its plaintext M* of a ceremony, for
    threshold parameters tp encoded as params."""
    n = tp.pk.n
    s = pimod.stream(n, SELFTEST_TAG, ceremony, params)
    m = next(s)
    for r in itertools.islice(s, _MAX_NONCES):
        if r != 0 and math.gcd(r, n) == 1:
            return (1 + m * n) * pow(r, n, tp.pk.n2) % tp.pk.n2, m
    raise ElectionError("MANIFEST", f"keyCeremony: no self-test nonce in Z*_N among {_MAX_NONCES} candidates")


def _fail(why: str):
    raise ElectionError("MANIFEST", f"keyCeremony: {why}")


def check_key_origin(prep: Prepared) -> None:
    """V33 on a prepared manifest (whose keyCeremony's form
    prepare_manifest has checked). Raises ElectionError (MANIFEST)."""
    m, tp = prep.manifest, prep.threshold
    if m.key_origin == KEY_ORIGIN_DEALER:
        return
    kc = m.key_ceremony
    try:
        pimod.verify(tp.pk.n, kc.id, kc.modulus_proof)
    except pimod.PimodError as e:
        _fail(f"the modulus proof: {e}")
    try:
        parts = [parse_partial(b, tp) for b in kc.self_test]
    except KeyError_ as e:
        _fail(f"self-test: {e}")
    for j, pd in enumerate(parts, start=1):
        if pd.index != j:
            _fail(f"self-test partial #{j} is not trustee {j}'s")
    c, want = selftest_ciphertext(tp, kc.id, m.threshold)
    for pd in parts:
        if not verify_partial(tp, c, pd):
            _fail(f"self-test: trustee {pd.index}'s partial decryption does not verify")
    for subset in itertools.combinations(parts, tp.k):
        try:
            got = combine(tp, list(subset))
        except KeyError_ as e:
            _fail(f"self-test: trustees {[p.index for p in subset]}: {e}")
        if got != want:
            _fail(f"self-test: trustees {[p.index for p in subset]} decrypt to a wrong plaintext")
