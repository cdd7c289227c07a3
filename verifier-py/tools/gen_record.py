"""Write a synthetic election record (docs/RECORD.md) signed by a fresh
orderer CA, for benchmarks and cross-checks.  Test use only: it uses the
FIXED TEST KEY crypto/zkp/testdata/key2048.pem (whose primes are public) as
a single Paillier key, and reuses nonces from a small pool (so ballots are
cheap to make; their secrecy is nil).

    python tools/gen_record.py OUT --ballots 4000 [--per-block 500]
        [--contests single|multi] [--bad-proof K] [--bad-token K]
        [--bad-limit K] [--late K] [--rewrite-ballot] [--variant NAME ...]
        [--nonce-pool K]

Record format version 2: manifest v5 (a dealt key), ballots v3, result v2. --contests
single (the default) is `election create --candidates`'s one 1-of-4 contest
"main" in style "default"; multi is MULTI_CONTESTS (packed 1 of 4,
per-option up to 2 of 5 or blank, packed yes/no) in styles north (all
three) and south (no per-option contest), voters taking the styles in
turn. --bad-limit: ballots (of north) with one selection more than the
per-option contest's max, whose sum proof fails (LIMIT). Contest variants
(ballot 0, --contests multi): contest-not-in-style, contest-unknown,
contest-repeat, contest-order, contest-missing (CONTEST_VARIANTS), and
bad-style (a token naming style 5, TOKEN).

Variants (for the cases the specification leaves open): txid-mismatch (a
ballot record names another transaction), foreign-ballot (a ballot of
another election under this election's key), bad-last-config (a block's
last_config names block 1), ballot-before-opening, manifest-delete-first
(the manifest key deleted before the opening), upper-key (a ballot key in
upper-case hex), ca-signs (the CA certificate signs block 2), multi-gzip
(a block file of two gzip members), result-delete-first (the result key
deleted before the result).

Writes the contract never makes, for the commit order (RECORD.md 6): ballot-
delete (a counted ballot's key deleted before the result), delete-then-write
(a ballot key deleted, then written), late-rewrite (a counted ballot's key
written again after the result), result-rewrite (the result written again,
same bytes), result-delete (the result key deleted after the result),
manifest-rewrite and manifest-delete (the manifest key written again or
deleted after the opening), two-attr-key (a key of two attributes under the
ballot prefix); and the result's presence: no-result (neither a result write
nor result.json), result-file-only (result.json but no result write),
result-write-only (a result write but no result.json). late-config: block 0
is no configuration block, block 1 is one. open-dup-manifest: the opening
writes the manifest key twice; open-delete: the opening deletes the manifest
key (its delete carrying the manifest's bytes). junk-ballot, late-junk: a
ballot key whose value is no record encoding, before or after the result.
empty-txid, nonutf8-txid: ballot 0's record names an empty or a non-UTF-8
transaction id. late-one-tx: the late ballots in one transaction, in
descending pseudonym order. bare-ballot: ballot 0 stored without the record
encoding around it. no-orderer-orgs, rootless-org, bad-root-cert: the
genesis configuration has no orderer organisation, one without a root
certificate, or one whose root does not parse.

Trackers (docs/RECORD.md 4.1): --spoiled K makes K more ballots and
publishes them audited, each its spoiled ballot under its tracker key and
a spoiled claim on each of its ciphertexts, in a block after the counted
ballots; with --spoiled or --trackers every cast ballot's transaction
writes a cast claim on each of its ciphertexts too (every ciphertext of
the record is then a different one). Tampering (docs/VERIFY.md V32):
spoiled-opening (spoiled ballot 0's first nonce changed),
spoiled-wrong-key (spoiled ballot 0 under a key that is not its tracker),
cast-spoiled (counted ballot 1's first ciphertext claimed by spoiled
ballot 0), cast-no-claim (counted ballot 1 writes no claim on its last
ciphertext), claim-other (counted ballot 1's claim on its first ciphertext
names ballot 2), spoiled-cast-claim (spoiled ballot 0's first ciphertext
claimed by counted ballot 1), spoil-no-claim (spoiled ballot 0 writes no
claim on its last ciphertext), claim-other-tracker (spoiled ballot 0's
claim on its first ciphertext names spoiled ballot 1), tracker-junk
(spoiled ballot 1 with a space after its first key); tracker-rewrite
(spoiled ballot 0 written again in a later transaction), claim-rewrite
(counted ballot 0's first claim written again), claim-junk (a claim-like
value that is no claim) and tracker-upper-key (a key under the tracker
prefix in upper-case hex), each in a block of its own after the spoiled
ballots.
"""

import argparse
import base64
import datetime
import gzip
import hashlib
import json
import multiprocessing as mp
import os
import secrets
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

from cryptography import x509  # noqa: E402
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec, utils  # noqa: E402
from cryptography.x509.oid import NameOID  # noqa: E402

from fabvote_verifier import canonjson as cj  # noqa: E402
from fabvote_verifier import election, layout, spoiled, zkp  # noqa: E402
from fabvote_verifier.fabric import header_der  # noqa: E402
from fabvote_verifier.paillier import PublicKey  # noqa: E402
from fabvote_verifier.sigs import HALF_N, P256_N  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CHANNEL, CC, EID = "fabvote", "ballot", "bench-e1"
CANDIDATES = ["Alice", "Bob", "Carol", "Dave"]


# ------------------------------------------------------------ protobuf writer
def varint(x):
    out = bytearray()
    while True:
        b = x & 0x7F
        x >>= 7
        if x:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def fb(num, payload):
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def fv(num, v):
    return varint(num << 3) + varint(v) if v else b""


def entry(k, v):
    return fb(1, k.encode()) + fb(2, v)


# ------------------------------------------------------------ keys
def read_test_key():
    lines = open(os.path.join(ROOT, "crypto", "zkp", "testdata", "key2048.pem")).read().splitlines()
    b = base64.b64decode("".join(l for l in lines if l and not l.startswith("-----")))
    lp_ = int.from_bytes(b[5:7], "big")
    p = int.from_bytes(b[7:7 + lp_], "big")
    o = 7 + lp_
    lq = int.from_bytes(b[o:o + 2], "big")
    return p, int.from_bytes(b[o + 2:o + 2 + lq], "big")


def rs_sign(priv, digest):
    r, s = utils.decode_dss_signature(priv.sign(digest, ec.ECDSA(utils.Prehashed(hashes.SHA256()))))
    if s > HALF_N:
        s = P256_N - s
    return r.to_bytes(32, "big") + s.to_bytes(32, "big")


def der_low_s(priv, msg):
    r, s = utils.decode_dss_signature(priv.sign(msg, ec.ECDSA(hashes.SHA256())))
    if s > HALF_N:
        s = P256_N - s
    return utils.encode_dss_signature(r, s)


def ca_and_leaf():
    now = datetime.datetime(2026, 1, 1)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "ca.orderer.bench")])
    ca = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(ca_key.public_key())
          .serial_number(1).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=3650))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "orderer0")]))
            .issuer_name(name).public_key(key.public_key()).serial_number(2).not_valid_before(now)
            .not_valid_after(now + datetime.timedelta(days=1))  # expired long ago: not checked
            .sign(ca_key, hashes.SHA256()))
    pem = lambda c: c.public_bytes(serialization.Encoding.PEM)  # noqa: E731
    return pem(ca), pem(leaf), key, ca_key


# ------------------------------------------------------------ ballots (worker)
G = {}

# The contests of --contests multi: one of each kind, and a style without
# the per-option contest; single is the default one-contest manifest.
MULTI_CONTESTS = (
    ("mayor", "Mayor", CANDIDATES, 1, 1, False, "packed"),
    ("council", "Council", ["Erin", "Frank", "Grace", "Heidi", "Ivan"], 0, 2, True, "per-option"),
    ("measure", "Measure 1", ["Yes", "No"], 1, 1, False, "packed"),
)
MULTI_STYLES = (("north", ("mayor", "council", "measure")), ("south", ("mayor", "measure")))
# Ballot 0's contest list in the --variant of that name, per style (north:
# contests 0, 1, 2; south: 0, 2): its error code (contests spec, ballot).
CONTEST_VARIANTS = {
    "contest-not-in-style": ("south", bytes([0, 1])),       # NOT_IN_STYLE
    "contest-unknown": ("north", bytes([0, 1, 9])),         # NOT_IN_STYLE (no such contest)
    "contest-repeat": ("north", bytes([0, 1, 1])),          # CONTEST_REPEAT
    "contest-order": ("north", bytes([0, 2, 1])),           # CONTEST_ORDER
    "contest-missing": ("north", bytes([0, 1])),            # CONTEST_MISSING
}


def init_worker(state):
    G.update(state)
    G["prep"] = election.prepare_manifest(state["mraw"])


def prove(ctx, c, r, x, idx, pseud, vkh, pooled, cheat=False):
    """A validity proof that the ciphertext c = (1 + x·N)·r^N mod N² holds
    message idx of ctx, by the simulator for every other branch; when x is
    not that message the proof is false (cheat: a prover breaking the
    statement) and does not verify."""
    n, n2, t = ctx.pk.n, ctx.pk.n2, ctx.challenge_bits
    msgs = ctx.messages
    assert cheat or msgs[idx] == x
    p = len(msgs)
    a, e, z = [0] * p, [0] * p, [0] * p
    for j in range(p):
        if j == idx:
            continue
        # simulated branch: u_j = (1 + (x − M_j)N)·r^N, so with z_j = y·r^(e_j)
        # a_j = z_j^N·u_j^(−e_j) = (1 − e_j(x − M_j)N)·y^N: no exponentiation by N
        y, yn = pooled()
        e[j] = secrets.randbits(t)
        a[j] = (1 - e[j] * (x - msgs[j]) * n) % n2 * yn % n2
        z[j] = y * pow(r, e[j], n) % n
    w, wn = pooled()
    a[idx] = wn
    ech = zkp.challenge(ctx, pseud, vkh, c, a)
    e[idx] = (ech - sum(e)) % (1 << t)
    z[idx] = w * pow(r, e[idx], n) % n
    z = [v if 2 * v < n else n - v for v in z]
    wa, we, wz = ctx.pk.ciphertext_len, t // 8, ctx.pk.modulus_len
    return a, e, z, lambda: b"".join(a[k].to_bytes(wa, "big") + e[k].to_bytes(we, "big") + z[k].to_bytes(wz, "big")
                                     for k in range(p))


def random_selection(cl):
    """A random valid selection of contest layout cl: option indices, or
    "blank" (a string: it crosses process boundaries)."""
    sh = cl.shape
    k = secrets.randbelow(sh.max - sh.min + 1 + (1 if sh.blank else 0)) + sh.min
    if k > sh.max:
        return "blank"
    return tuple(sorted(secrets.SystemRandom().sample(range(sh.options), k)))


def make_ballot(args):
    """Ballot i of style, selections sels (one per contest of the style);
    flags: bad-proof, bad-token, bad-limit (a per-option contest with one
    option more than its max), other-election, bad-style, and a contest
    variant. Returns (i, (contests, plaintexts), pseudonym hex, ballot,
    nonces, ciphertexts), the last three per ballot slot."""
    i, style, sels, flags = args
    prep = G["prep"]
    eid = "other-e1" if "other-election" in flags else EID
    n, n2 = G["n"], G["n2"]
    pool, pooln = G["pool"], G["pooln"]
    rnd = secrets.SystemRandom()

    def pooled():
        a, b, c = (rnd.randrange(len(pool)) for _ in range(3))
        return pool[a] * pool[b] % n * pool[c] % n, pooln[a] * pooln[b] % n2 * pooln[c] % n2

    voter = ec.generate_private_key(ec.SECP256R1())
    pn = voter.public_key().public_numbers()
    vpub = b"\x04" + pn.x.to_bytes(32, "big") + pn.y.to_bytes(32, "big")
    vkh = hashlib.sha256(vpub).digest()
    pseud = hashlib.sha256(b"bench voter %d" % i).digest()
    contests = prep.style_contests[style]
    xs, rs, cs, proofs = [], [], [], []
    ctx_ = election.Prepared.context
    for ci, sel in zip(contests, sels):
        cl = prep.layout.contests[ci]
        if "bad-limit" in flags and cl.kind == layout.PER_OPTION and cl.shape.has_sum_proof:
            enc = layout.Encoded(tuple([1] * (cl.shape.max + 1) + [0] * (cl.shape.digits - cl.shape.max - 1)),
                                 tuple([1] * (cl.shape.max + 1) + [0] * (cl.shape.digits - cl.shape.max - 1) + [0]))
        else:
            enc = cl.encode(() if sel == "blank" else sel, sel == "blank")
        cx, cr, cc = [], [], []
        for x in enc.plaintexts:
            r, rn = pooled()
            if G.get("unique"):
                # Pooled nonces repeat: a factor of the ballot's and the
                # slot's own makes every ciphertext (each is claimed once)
                # and so every tracker its own.
                f = (i + 2) * 1024 + len(xs) + len(cr)
                r, rn = r * f % n, rn * pow(f, n, n2) % n2
            cx.append(x), cr.append(r), cc.append((1 + x * n) * rn % n2)
        for k, (st, idx) in enumerate(zip(prep.statements[ci], enc.indices)):
            sm = st.statement
            c, r, x = 1, 1, 0
            for slot, ex in zip(sm.slots, sm.exps):
                c, r, x = c * pow(cc[slot], ex, n2) % n2, r * pow(cr[slot], ex, n) % n, x + ex * cx[slot]
            ctx = ctx_(prep, sm.messages)
            ctx.election_id = eid
            a, e, z, enc_ = prove(ctx, c, r, x, idx, pseud, vkh, pooled, cheat=x not in sm.messages)
            if "bad-proof" in flags and not proofs:
                z[(idx + 1) % len(z)] += 2
            proofs.append(enc_())
        xs += cx
        rs += cr
        cs += cc
    style_byte = 5 if "bad-style" in flags else style
    ea = serialization.load_der_private_key(G["ea"], None)
    td = election.token_digest(G["digest"], eid, pseud, style_byte, vpub)
    if "bad-token" in flags:
        td = hashlib.sha256(td).digest()
    token = pseud + bytes([style_byte]) + rs_sign(ea, td)
    listed = bytes(contests)
    for v in CONTEST_VARIANTS:
        if v in flags:
            listed = CONTEST_VARIANTS[v][1]
    wa = (n2.bit_length() + 7) // 8
    b = election.Ballot(eid, vpub, token, listed, b"".join(c.to_bytes(wa, "big") for c in cs), b"".join(proofs), b"")
    b = election.Ballot(eid, vpub, token, listed, b.ciphertext, b.proof, rs_sign(voter, b.signing_digest()))
    return i, (contests, xs), pseud.hex(), b.marshal(), rs, cs


# ------------------------------------------------------------ blocks
class Chain:
    def __init__(self, out, okey, pem, variants=(), ca=None):
        self.out, self.okey, self.pem = out, okey, pem
        self.variants, self.ca = set(variants), ca
        self.prev = b""
        self.n = 0
        os.makedirs(os.path.join(out, "blocks"))

    def write(self, envelopes, filt=None, sign=True):
        data = envelopes
        dh = hashlib.sha256(b"".join(data)).digest()
        hdr = fv(1, self.n) + fb(2, self.prev) + fb(3, dh)
        hder = header_der(self.n, self.prev, dh)
        md = [b"", b"", bytes(filt if filt is not None else [0] * len(data)), b"", b""]
        if sign and self.n > 0:
            value = fb(1, b"")  # OrdererBlockMetadata{last_config: {index: 0}}
            if "bad-last-config" in self.variants and self.n == 2:
                value = fb(1, fv(1, 1))
            okey, pem = self.okey, self.pem
            if "ca-signs" in self.variants and self.n == 2:
                okey, pem = self.ca
            sh = fb(1, fb(1, b"OrdererMSP") + fb(2, pem)) + fb(2, secrets.token_bytes(24))
            sig = der_low_s(okey, value + sh + hder)
            md[0] = fb(1, value) + fb(2, fb(1, sh) + fb(2, sig))
        block = fb(1, hdr) + fb(2, b"".join(fb(1, d) for d in data)) + fb(3, b"".join(fb(1, m) for m in md))
        with open(os.path.join(self.out, "blocks", "%010d.block.gz" % self.n), "wb") as f:
            if "multi-gzip" in self.variants and self.n == 2:
                f.write(gzip.compress(block[:100], mtime=0) + gzip.compress(block[100:], mtime=0))
            else:
                f.write(gzip.compress(block, mtime=0))
        self.prev = hashlib.sha256(hder).digest()
        self.n += 1
        return self.n - 1


def endorser_tx(txid, writes):
    ch = fv(1, 3) + fb(4, CHANNEL.encode()) + fb(5, txid.encode())
    kv = b"".join(fb(3, fb(1, k.encode()) + fv(2, int(d)) + fb(3, v)) for k, d, v in writes)
    rws = fb(2, fb(1, CC.encode()) + fb(2, kv))
    ca = fb(1, rws)
    prp = fb(2, ca)
    cea = fb(1, prp)
    cap = fb(2, cea)
    tx = fb(1, fb(2, cap))
    payload = fb(1, fb(1, ch) + fb(2, b"")) + fb(2, tx)
    return fb(1, payload) + fb(2, b"sig")


def config_tx(root_pem, variants=()):
    """A CONFIG transaction whose one orderer organisation's root is
    root_pem; variants no-orderer-orgs, rootless-org and bad-root-cert
    make a configuration RECORD.md 5.3 refuses."""
    fmsp = fb(1, b"OrdererMSP") + fb(2, b"not a certificate" if "bad-root-cert" in variants else root_pem)
    if "rootless-org" in variants:
        fmsp = fb(1, b"OrdererMSP")
    mspc = fb(2, fmsp)  # type 0 (FABRIC) is the default
    org = fb(3, entry("MSP", fb(2, mspc)))
    orderer = b"" if "no-orderer-orgs" in variants else fb(2, entry("OrdererOrg", org))
    chgroup = fb(2, entry("Orderer", orderer))
    cfgenv = fb(1, fb(2, chgroup))
    ch = fv(1, 1) + fb(4, CHANNEL.encode())
    payload = fb(1, fb(1, ch)) + fb(2, cfgenv)
    return fb(1, payload)


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--ballots", type=int, default=1000)
    ap.add_argument("--per-block", type=int, default=500)
    ap.add_argument("--bad-proof", type=int, default=0)
    ap.add_argument("--bad-token", type=int, default=0)
    ap.add_argument("--bad-limit", type=int, default=0, help="ballots breaking a per-option contest's limits (--contests multi)")
    ap.add_argument("--contests", choices=("single", "multi"), default="single")
    ap.add_argument("--late", type=int, default=0)
    ap.add_argument("--spoiled", type=int, default=0, help="ballots audited instead of cast (implies --trackers)")
    ap.add_argument("--trackers", action="store_true", help="every cast writes its ciphertext claims")
    ap.add_argument("--rewrite-ballot", action="store_true")
    ap.add_argument("--variant", action="append", default=[])
    ap.add_argument("--concurrency", "--workers", dest="workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--nonce-pool", type=int, default=48, help="nonces r^N drawn once and reused (each costs a 4096-bit power)")
    return ap.parse_args()


def manifest_contests(kind):
    """The manifest's contests and styles: single, the default of `election
    create --candidates` (one 1-of-4 contest "main", one style "default");
    multi, MULTI_CONTESTS and MULTI_STYLES."""
    if kind == "single":
        return ((election.Contest("main", "Benchmark election", tuple(CANDIDATES), 1, 1, False, "packed"),),
                (election.Style("default", ("main",)),))
    return (tuple(election.Contest(i, t, tuple(o), lo, hi, bl, k) for i, t, o, lo, hi, bl, k in MULTI_CONTESTS),
            tuple(election.Style(i, cs) for i, cs in MULTI_STYLES))


def make_election(a):
    """The manifest (raw) and the state the ballot workers share."""
    p, q = read_test_key()
    n = p * q
    n2 = n * n
    bits = 20
    ea = ec.generate_private_key(ec.SECP256R1())
    contests, styles = manifest_contests(a.contests)
    m = election.Manifest(
        version=election.MANIFEST_VERSION, election_id=EID, channel=CHANNEL, title="Benchmark election", contests=contests, styles=styles,
        encoding_bits=bits, max_voters=1000000, paillier_key=PublicKey(n).marshal(), threshold=b"", key_origin=election.KEY_ORIGIN_DEALER,
        token_key=ea.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo),
        pseudonym_key_commitment=secrets.token_bytes(32), authority_msp="AuthorityMSP", trustee_msps=(),
        start=cj.parse_time("2026-11-01T08:00:00Z", "s"), end=cj.parse_time("2026-11-01T20:00:00Z", "e"),
        max_clock_skew_seconds=120, challenge_bits=128)
    mraw = m.marshal()
    prep = election.prepare_manifest(mraw)
    pool = [secrets.randbelow(n - 2) + 2 for _ in range(a.nonce_pool)]
    pooln = [pow(x, n, n2) for x in pool]
    state = {"n": n, "n2": n2, "t": 128, "pool": pool, "pooln": pooln, "digest": prep.digest, "mraw": mraw,
             "ea": ea.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption())}
    return mraw, state


def ballot_job(prep, i, flags):
    """Voter i's style (the styles in turn; a contest variant's own) and
    random selections."""
    style = i % len(prep.style_contests)
    if "bad-limit" in flags:  # a style with a contest that has a sum proof
        style = next(k for k, cs in enumerate(prep.style_contests)
                     if any(st.is_sum for ci in cs for st in prep.statements[ci]))
    for v, (sid, _) in CONTEST_VARIANTS.items():
        if v in flags:
            style = next(k for k, s in enumerate(prep.manifest.styles) if s.id == sid)
    sels = tuple(random_selection(prep.layout.contests[ci]) for ci in prep.style_contests[style])
    return i, style, sels, flags


def make_ballots(a, state):
    """(index, (contests, plaintexts), pseudonym hex, ballot, nonces,
    ciphertexts) per voter."""
    prep = election.prepare_manifest(state["mraw"])
    jobs = []
    for i in range(a.ballots):
        flags = set()
        if i < a.bad_proof:
            flags.add("bad-proof")
        elif i < a.bad_proof + a.bad_token:
            flags.add("bad-token")
        elif i < a.bad_proof + a.bad_token + a.bad_limit:
            flags.add("bad-limit")
        if i == 0:
            flags |= set(a.variant) & (set(CONTEST_VARIANTS) | {"bad-style"})
        jobs.append(ballot_job(prep, i, flags))
    with mp.get_context("fork").Pool(a.workers, initializer=init_worker, initargs=(state,)) as pool_:
        made = pool_.map(make_ballot, jobs, chunksize=64)
    if "foreign-ballot" in a.variant:
        init_worker(state)
        G["foreign"] = make_ballot(ballot_job(prep, 0, {"other-election"}))[3]
    return made


def record_value(txid, ballot):
    """The ballot key's value: 0x01 ‖ u16 len(txID) ‖ txID ‖ ballot (txid
    str, or bytes for one that is no text)."""
    t = txid if isinstance(txid, bytes) else txid.encode()
    return b"\x01" + len(t).to_bytes(2, "big") + t + ballot


class Writes:
    """The election's transactions on a chain, and the index of its ballots."""

    def __init__(self, chain, variants, per_block, trackers=False):
        self.chain, self.V, self.per_block, self.trackers = chain, variants, per_block, trackers
        self.index = []

    def claim(self, item):
        """The claim writes of a cast of item, one per ciphertext, none
        without trackers; ballot 1 tampered as a variant asks."""
        i, _, ph, _, _, _ = item
        if not self.trackers:
            return []
        out = [(claim_key(c), False, claim_value("cast", ph)) for c in spoiled_of(item).ciphertexts]
        if i == 1 and "cast-no-claim" in self.V:
            out.pop()
        if i == 1 and "claim-other" in self.V:
            out[0] = (out[0][0], False, claim_value("cast", G["pseudonyms"][2]))
        if i == 1 and "cast-spoiled" in self.V:
            out[0] = (out[0][0], False, claim_value("spoiled", spoiled_of(G["audited"][0]).tracker().hex()))
        return out

    def spoil_claims(self, k, s):
        """The claim writes of the spoil of s, audited ballot k, one per
        ciphertext; audited ballot 0 tampered as a variant asks."""
        out = [(claim_key(c), False, claim_value("spoiled", s.tracker().hex())) for c in s.ciphertexts]
        if k == 0 and "spoil-no-claim" in self.V:
            out.pop()
        if k == 0 and "spoiled-cast-claim" in self.V:
            out[0] = (out[0][0], False, claim_value("cast", G["pseudonyms"][1]))
        if k == 0 and "claim-other-tracker" in self.V:
            out[0] = (out[0][0], False, claim_value("spoiled", spoiled_of(G["audited"][1]).tracker().hex()))
        return out

    def spoiled_block(self, items):
        """One block of one transaction per audited ballot, each writing its
        spoiled ballot under its tracker key."""
        envs = []
        for k, item in enumerate(items):
            s = spoiled_of(item)
            key = s.tracker()
            claims = self.spoil_claims(k, s)
            if k == 0 and "spoiled-opening" in self.V:
                s = spoiled.Spoiled(s.election_id, s.contests, s.ciphertexts, s.plaintexts, (s.nonces[0] + 1,) + s.nonces[1:])
            if k == 0 and "spoiled-wrong-key" in self.V:
                key = hashlib.sha256(key).digest()
            value = s.marshal()
            if k == 1 and "tracker-junk" in self.V:
                value = value.replace(b'"format":', b'"format": ', 1)
            envs.append(endorser_tx(secrets.token_hex(32), [(tracker_key(key), False, value)] + claims))
        if envs:
            self.chain.write(envs)
        self.tracker_tampering(items)

    def tracker_tampering(self, items):
        """The tracker writes the contract never makes, a block each."""
        if "tracker-rewrite" in self.V:
            s = spoiled_of(items[0])
            self.one(tracker_key(s.tracker()), False, s.marshal())
        if "claim-rewrite" in self.V:
            self.one(*self.claim(self.counted[0])[0])
        if "claim-junk" in self.V:
            self.one(election.ledger_key("ciphertext", EID, "cc" * 32), False, b'{"format":"fabvote/ciphertext-claim","version":2}')
        if "tracker-upper-key" in self.V:
            s = spoiled_of(items[1])
            self.one(election.ledger_key("tracker", EID, s.tracker().hex().upper()), False, s.marshal())

    def one(self, key, delete, value=b""):
        """A block of one transaction writing (or deleting) key."""
        return self.chain.write([endorser_tx(secrets.token_hex(32), [(key, delete, value)])])

    def rewrite(self, item):
        """A block of one transaction writing item's ballot key again, its
        record naming that transaction."""
        i, choice, ph, braw, r, c = item
        txid = secrets.token_hex(32)
        self.chain.write([endorser_tx(txid, [(election.ledger_key("ballot", EID, ph), False, record_value(txid, braw))])])

    def indexed(self, txid, writes):
        """A block of one transaction writing the ballot keys of writes
        [(pseudonym hex, value)], each indexed (a value that is no record
        encoding hashed whole, RECORD.md 4)."""
        bn = self.chain.write([endorser_tx(txid, [(election.ledger_key("ballot", EID, ph), False, v) for ph, v in writes])])
        for ph, v in writes:
            ballot = v[3 + int.from_bytes(v[1:3], "big"):] if v[:1] == b"\x01" else v
            self.index.append({"pseudonym": ph, "ballotHash": hashlib.sha256(ballot).hexdigest(), "txID": txid,
                               "block": bn, "index": 0})

    def ballot_blocks(self, items):
        for s in range(0, len(items), self.per_block):
            envs, pos = [], []
            for j, (i, choice, ph, braw, r, c) in enumerate(items[s:s + self.per_block]):
                txid = secrets.token_hex(32)
                rtx = secrets.token_hex(32) if "txid-mismatch" in self.V and i == 0 else txid
                if i == 0 and "empty-txid" in self.V:
                    rtx = ""
                if i == 0 and "nonutf8-txid" in self.V:
                    rtx = b"\xff\xfe" + txid.encode()[2:]
                if "upper-key" in self.V and i == 0:
                    ph = ph.upper()
                if "foreign-ballot" in self.V and i == 0:
                    braw = G["foreign"]
                value = braw if i == 0 and "bare-ballot" in self.V else record_value(rtx, braw)
                envs.append(endorser_tx(txid, [(election.ledger_key("ballot", EID, ph), False, value)] + self.claim(items[s + j])))
                pos.append((ph, braw, txid, j))
            bn = self.chain.write(envs)
            for ph, braw, txid, j in pos:
                self.index.append({"pseudonym": ph, "ballotHash": hashlib.sha256(braw).hexdigest(), "txID": txid,
                                   "block": bn, "index": j})


def tracker_key(t: bytes) -> str:
    return election.ledger_key("tracker", EID, t.hex())


def claim_key(c: bytes) -> str:
    """The claim key of ciphertext c (its fixed-length bytes)."""
    return election.ledger_key("ciphertext", EID, spoiled.ciphertext_digest(c).hex())


def claim_value(kind: str, holder: str) -> bytes:
    """A ciphertext claim: kind "cast" (holder a pseudonym) or "spoiled"
    (holder a tracker)."""
    return b'{"format":"fabvote/ciphertext-claim","version":1,"' + kind.encode() + b'":"' + holder.encode() + b'"}'


def spoiled_of(item):
    """Item's ballot audited: its contests, ciphertexts and opening."""
    _, (contests, xs), _, braw, rs, cs = item
    w = (G["n2"].bit_length() + 7) // 8
    return spoiled.Spoiled(EID, tuple(contests), tuple(c.to_bytes(w, "big") for c in cs), tuple(xs), tuple(rs))


def open_election(w, made, mraw):
    """The blocks up to the opening and the tampering right after it."""
    V = w.V
    mkey = election.ledger_key("manifest", EID)
    pre = []
    if "manifest-delete-first" in V:
        pre.append(endorser_tx(secrets.token_hex(32), [(mkey, True, b"")]))
    if "ballot-before-opening" in V:
        txid = secrets.token_hex(32)
        pre.append(endorser_tx(txid, [(election.ledger_key("ballot", EID, "ee" * 32), False, record_value(txid, made[0][3]))]))
    if pre:
        w.chain.write(pre)
    if "open-dup-manifest" in V:
        w.chain.write([endorser_tx(secrets.token_hex(32), [(mkey, False, mraw), (mkey, False, mraw)])])
    elif "open-delete" in V:
        w.one(mkey, True, mraw)
    else:
        w.one(mkey, False, mraw)
    if "manifest-rewrite" in V:
        w.one(mkey, False, mraw)
    if "manifest-delete" in V:
        w.one(mkey, True)
    if "delete-then-write" in V:
        w.one(election.ledger_key("ballot", EID, made[-1][2]), True)
    if "two-attr-key" in V:
        w.one(election.ledger_key("ballot", EID, "ee" * 32, "x"), False, b"\x01")


def make_result(good, state):
    """The single-key result (version 2) over the ballots good, and each
    contest's counts: the product slot by slot, each slot raised to its
    tally weight, and the tally's digits per the layout."""
    n, n2 = state["n"], state["n2"]
    prep = election.prepare_manifest(state["mraw"])
    weights = prep.weights
    slots, nonces = [1] * len(weights), [1] * len(weights)
    tally, ballots = 0, [0] * len(prep.manifest.contests)
    for _, (contests, xs), _, _, rs, cs in good:
        k = 0
        for ci in contests:
            ballots[ci] += 1
            first = prep.first_slot(ci)
            for j in range(prep.layout.contests[ci].ciphertexts):
                s_ = first + j
                slots[s_], nonces[s_] = slots[s_] * cs[k] % n2, nonces[s_] * rs[k] % n
                tally += weights[s_] * xs[k]
                k += 1
    prod, nonce = 1, 1
    for s_, w in enumerate(weights):
        prod, nonce = prod * pow(slots[s_], w, n2) % n2, nonce * pow(nonces[s_], w, n) % n
    out = []
    for ci, (c, digits) in enumerate(zip(prep.manifest.contests, prep.layout.decode_tally(tally))):
        counts, blank = tuple(digits[:len(c.options)]), digits[len(c.options)] if c.blank else 0
        out.append(election.ContestResult(c.id, ballots[ci], counts, blank, c.max * (ballots[ci] - blank) - sum(counts)))
    res = election.Result(2, EID, len(good), prod.to_bytes((n2.bit_length() + 7) // 8, "big"),
                          tally.to_bytes((tally.bit_length() + 7) // 8, "big"), tuple(out),
                          nonce.to_bytes((nonce.bit_length() + 7) // 8, "big"), ())
    return res.marshal(), [list(c.counts) + ([c.blank] if prep.manifest.contests[i].blank else []) for i, c in enumerate(out)]


def publish_result(w, counted, rraw):
    """The result's writes and the tampering around them."""
    V, rkey = w.V, election.ledger_key("result", EID)
    if "result-delete-first" in V:
        w.one(rkey, True)
    if not V & {"no-result", "result-file-only"}:
        w.one(rkey, False, rraw)
    if "result-rewrite" in V:
        w.one(rkey, False, rraw)
    if "result-delete" in V:
        w.one(rkey, True)
    if "late-rewrite" in V:
        w.rewrite(counted[1])


def write_files(out, mraw, rraw, index, last_block, V):
    with open(os.path.join(out, "manifest.json"), "wb") as f:
        f.write(mraw)
    if not V & {"no-result", "result-write-only"}:
        with open(os.path.join(out, "result.json"), "wb") as f:
            f.write(rraw)
    with open(os.path.join(out, "ballots.json"), "w") as f:
        json.dump(sorted(index, key=lambda e: e["pseudonym"]), f, separators=(",", ":"))
    with open(os.path.join(out, "record.json"), "w") as f:
        json.dump({"format": "fabvote-election-record", "version": 2, "electionID": EID, "channel": CHANNEL,
                   "chaincode": CC, "lastBlock": last_block}, f, separators=(",", ":"))


def main():
    a = parse_args()
    mraw, state = make_election(a)
    a.ballots += a.spoiled
    state["unique"] = a.trackers or a.spoiled > 0
    made = make_ballots(a, state)
    init_worker(state)
    made, audited = made[:len(made) - a.spoiled], made[len(made) - a.spoiled:]
    a.ballots -= a.spoiled
    G["pseudonyms"], G["audited"] = [x[2] for x in made], audited
    ca_pem, leaf_pem, okey, ca_key = ca_and_leaf()
    V = set(a.variant)
    chain = Chain(a.out, okey, leaf_pem, V, (ca_key, ca_pem))
    if "late-config" in V:  # block 0 sets no configuration; block 1 would
        chain.write([endorser_tx(secrets.token_hex(32), [])])
    chain.write([config_tx(ca_pem, V)])
    w = Writes(chain, V, a.per_block, a.trackers or a.spoiled > 0)
    open_election(w, made, mraw)
    counted, late = made[:len(made) - a.late], made[len(made) - a.late:]
    w.counted = counted
    w.ballot_blocks(counted)
    w.spoiled_block(audited)
    if a.rewrite_ballot:
        w.rewrite(counted[-1])
    if "ballot-delete" in V:
        w.one(election.ledger_key("ballot", EID, counted[0][2]), True)
    if "junk-ballot" in V:
        w.indexed(secrets.token_hex(32), [("ab" * 32, b"\x02junk")])
    # A key whose first write deletes it has no ballot (RECORD.md 4).
    unwritten = {made[-1][2]} if "delete-then-write" in V else set()
    bad = a.bad_proof + a.bad_token + a.bad_limit
    spoilt = {"upper-key", "foreign-ballot", "bare-ballot", "bad-style"} | set(CONTEST_VARIANTS)
    good = [x for x in counted if x[0] >= bad and not (x[0] == 0 and V & spoilt) and x[2] not in unwritten]
    rraw, counts = make_result(good, state)
    publish_result(w, counted, rraw)
    if "late-one-tx" in V and late:
        txid = secrets.token_hex(32)
        w.indexed(txid, [(x[2], record_value(txid, x[3])) for x in sorted(late, key=lambda x: x[2], reverse=True)])
    else:
        w.ballot_blocks(late)
    if "late-junk" in V:
        w.indexed(secrets.token_hex(32), [("ab" * 32, b"\x02junk")])
    index = [e for e in w.index if e["pseudonym"] not in unwritten]
    write_files(a.out, mraw, rraw, index, chain.n - 1, V)
    print(f"wrote {a.out}: {a.ballots} ballots, blocks 0..{chain.n - 1}, counts {counts}")


if __name__ == "__main__":
    main()
