"""Known-answer vectors computed independently of this package."""

from fabvote_verifier import election, paillier, zkp


def test_validity_vectors(kats):
    assert len(kats) == 4
    for k in kats:
        pr = k.proof()
        # the challenge
        assert zkp.challenge(k.ctx, k.pseudonym, k.vkh, k.c, pr.a) == int(k.v["challenge"], 16)
        # the ciphertext is the encryption of the choice with the nonce
        n, n2 = k.pk.n, k.pk.n2
        m = k.ctx.messages[int(k.v["choice"])]
        r = int(k.v["nonce"], 16)
        assert (1 + m * n) * pow(r, n, n2) % n2 == k.c
        assert len(bytes.fromhex(k.v["ciphertext"])) == k.pk.ciphertext_len
        # re-encoding the parsed proof gives the stored bytes
        assert len(k.proof_bytes) == k.ctx.proof_len()
        zkp.check_structure(k.ctx, k.c, k.pseudonym, k.vkh, pr)
        assert zkp.verify_batch(k.ctx, [(k.c, pr)]) == []
        assert paillier.verify_decryption(k.pk, k.c, m, int(k.v["decryption_nonce"], 16))


def test_validity_vectors_naive(kats):
    for k in kats[:3]:
        assert zkp.verify_naive(k.ctx, k.c, k.proof())


def test_pseudonym_and_digest_vectors():
    key = bytes(range(32))
    assert election.pseudonym(key, "kat-election-1", "voter-0001").hex() == \
        "eabfb90bb98566a94465c3398166a48c4385fecfc35bc72be8cff3c31e5bd069"
    assert election.pseudonym(key, "kat-election-1", "voter-0002").hex() == \
        "d0612e32cba157957afe8873c93af609d705c8e1c172b4d9661a9f6a457b3c09"
    assert election.pseudonym_key_commitment(key).hex() == \
        "97a9d9b1eb68ae4f9e03b6a8e7fb73ae0800b2c5350cde7603940d34a026e25d"
    # The manifest digest (tag v5) and token digest (tag v3, with the style)
    # vectors of election/token_test.go (TestPseudonymAndDigestVectors).
    md = election.manifest_digest(b'{"version":5}')
    assert md.hex() == "3a0b02fb0f4a37dab6b54125967ebe3bd0b1d9f6bbcb41ef8b44d11eeeb9222c"
    pub = bytes([4]) + bytes(range(1, 65))
    for style, want in [(0, "1a7bba2988edb328ab1bd191671ae9882b9a06c3952ed6f94bce479f547d81c1"),
                        (1, "53e4397d3aec8d04e8d22d58eb55eb961d8bf8592c7766ab0991f3fc5359b505"),
                        (5, "316d01f9001147d1a4641f2184da2ae489ba98c1ac34bb6c0b2fd8a13e5aaabe")]:
        assert election.token_digest(md, "kat-election-1", b"\xab" * 32, style, pub).hex() == want, style


def test_public_key_encoding(kats):
    pk = kats[0].pk
    assert paillier.parse_public_key(pk.marshal()) == pk
