"""Forged proofs fail; batch verification names exactly the bad items."""

import pytest

from fabvote_verifier import zkp
from fabvote_verifier.zkp import Proof


def _forge_z(ctx, pr, k=0):
    z = list(pr.z)
    z[k] = z[k] + 2 if 2 * (z[k] + 2) < ctx.pk.n else z[k] - 2
    return Proof(list(pr.a), list(pr.e), z)


def test_forged_proof_fails(kats):
    k = kats[0]
    pr = k.proof()
    bad = _forge_z(k.ctx, pr)
    zkp.check_structure(k.ctx, k.c, k.pseudonym, k.vkh, bad)  # the transcript still sums
    assert zkp.verify_batch(k.ctx, [(k.c, bad)]) == [0]
    assert not zkp.verify_naive(k.ctx, k.c, bad)


def test_proof_for_other_ciphertext_fails(kats):
    k = kats[0]
    c2 = k.c * (1 + k.pk.n) % k.pk.n2  # encrypts M^0 + 1: not a vote
    with pytest.raises(zkp.ProofError):
        zkp.check_structure(k.ctx, c2, k.pseudonym, k.vkh, k.proof())


def test_proof_bound_to_voter(kats):
    k = kats[0]
    with pytest.raises(zkp.ProofError):
        zkp.check_structure(k.ctx, k.c, kats[1].pseudonym, k.vkh, k.proof())
    with pytest.raises(zkp.ProofError):
        zkp.check_structure(k.ctx, k.c, k.pseudonym, kats[1].vkh, k.proof())


def test_mirrored_z_rejected(kats):
    k = kats[0]
    b = bytearray(k.proof_bytes)
    pr = k.proof()
    wa, we, wz = k.pk.ciphertext_len, k.ctx.challenge_bits // 8, k.pk.modulus_len
    off = wa + we
    b[off:off + wz] = (k.pk.n - pr.z[0]).to_bytes(wz, "big")
    with pytest.raises(zkp.ProofError):
        zkp.parse_proof(k.ctx, bytes(b))


@pytest.mark.parametrize("positions", [[3], [0], [6], [1, 5]])
def test_batch_names_bad_items(kats, positions):
    a, b = kats[0], kats[1]  # same key and manifest, two voters
    assert a.ctx.messages == b.ctx.messages
    items = [(a.c, a.proof()), (b.c, b.proof())] * 3 + [(a.c, a.proof())]
    for p in positions:
        c, pr = items[p]
        items[p] = (c, _forge_z(a.ctx, pr, k=p % 4))
    assert zkp.verify_batch(a.ctx, items) == positions


def test_batch_all_good(kats):
    a, b = kats[0], kats[1]
    items = [(a.c, a.proof()), (b.c, b.proof())] * 8
    assert zkp.verify_batch(a.ctx, items) == []


def test_multiexp():
    mod = (1 << 521) - 1
    bases = [3 + i for i in range(40)]
    exps = [(i * 0x9E3779B97F4A7C15) % (1 << 70) for i in range(40)]
    want = 1
    for x, e in zip(bases, exps):
        want = want * pow(x, e, mod) % mod
    assert zkp.multiexp(bases, exps, mod) == want
    small = 1
    for x, e in zip(bases[:3], exps[:3]):
        small = small * pow(x, e, mod) % mod
    assert zkp.multiexp(bases[:3], exps[:3], mod) == small
