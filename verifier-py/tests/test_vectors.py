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
    # The manifest digest (tag v4) and token digest (tag v3, with the style)
    # vectors of election/token_test.go (TestPseudonymAndDigestVectors).
    md = election.manifest_digest(b'{"version":4}')
    assert md.hex() == "51fa836139a30888e7dc368b8759771d69f1b256b3a8ffde1dfe7e45b49c0ea6"
    pub = bytes([4]) + bytes(range(1, 65))
    for style, want in [(0, "db3a0b71114473e5991b6b183277dfc3ea8e674e6df19d4f1c4e7ab79a3e7581"),
                        (1, "70fb804bed3274dfed7697ade7cd20a6fe1e949e5da571993ef494fe3626842d"),
                        (5, "f4833073d57b625b49182a92684b739c09576c031fda268a3ff412bdcd555244")]:
        assert election.token_digest(md, "kat-election-1", b"\xab" * 32, style, pub).hex() == want, style


def test_public_key_encoding(kats):
    pk = kats[0].pk
    assert paillier.parse_public_key(pk.marshal()) == pk
