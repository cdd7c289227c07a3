"""The contest formats (manifest v5, token v3, ballot v3, result v2,
record v2) on manifests, ballots and results made here, by
tools/gen_record.py: one negative test per kind of bad input, with the
error code the format gives."""

import argparse
import json
import os
import sys
from dataclasses import replace

import pytest

from fabvote_verifier import ballots as ballotcheck
from fabvote_verifier import election, verify_record
from fabvote_verifier.election import ElectionError
from fabvote_verifier.electioncheck import result_problem

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import gen_record  # noqa: E402


def _args(contests="multi"):
    return argparse.Namespace(contests=contests, nonce_pool=4)


@pytest.fixture(scope="module")
def multi():
    """(manifest, state) of gen_record's three-contest, two-style election."""
    mraw, state = gen_record.make_election(_args())
    gen_record.init_worker(state)
    return election.decode_manifest(mraw), dict(state, prep=gen_record.G["prep"])


def _prepare(m):
    return election.prepare_manifest(m.marshal())


def _contest(m, i, **kw):
    cs = list(m.contests)
    cs[i] = replace(cs[i], **kw)
    return replace(m, contests=tuple(cs))


# ------------------------------------------------------------------ manifest

def test_multi_manifest_prepares(multi):
    m, _ = multi
    p = _prepare(m)
    assert p.manifest == m and p.style_contests == [(0, 1, 2), (0, 2)]
    assert [c.kind for c in p.layout.contests] == ["packed", "per-option", "packed"]
    assert [st.is_sum for st in p.statements[1]] == [False] * 6 + [True]
    assert p.weights[0] == 1 and p.weights[1] == 1 << (20 * 4)  # council's first digit is digit 4


def test_single_contest_default():
    mraw, _ = gen_record.make_election(_args("single"))
    m = election.decode_manifest(mraw)
    assert mraw.startswith(b'{"version":5,"electionID":"bench-e1","channel":"fabvote","title":"Benchmark election",'
                           b'"contests":[{"id":"main","title":"Benchmark election","options":["Alice","Bob","Carol","Dave"],'
                           b'"minSelections":1,"maxSelections":1,"blank":false,"encoding":"packed"}],'
                           b'"styles":[{"id":"default","contests":["main"]}],"encodingBits":20,')
    p = _prepare(m)
    assert p.statements[0][0].statement.messages == tuple(1 << (20 * k) for k in range(4))


def _contests(m, cs):
    return replace(m, contests=tuple(cs))


@pytest.mark.parametrize("name,field,mut", [
    ("version 3", "version", lambda m: replace(m, version=3)),
    ("no contest", "contests", lambda m: replace(m, contests=(), styles=())),
    ("33 contests", "contests", lambda m: replace(m, contests=tuple(replace(m.contests[2], id=f"c{i}") for i in range(33)))),
    ("contest id", "contests[1].id", lambda m: _contest(m, 1, id="-council")),
    ("contest id too long", "contests[1].id", lambda m: _contest(m, 1, id="c" * 65)),
    ("duplicate contest id", "contests[2].id", lambda m: _contest(m, 2, id="mayor")),
    ("contest title", "contests[0].title", lambda m: _contest(m, 0, title="")),
    ("option name", "contests[1].options[2]", lambda m: _contest(m, 1, options=("a", "b", "c\x01", "d", "e"))),
    ("duplicate option", "contests[1].options[3]", lambda m: _contest(m, 1, options=("a", "b", "c", "a", "e"))),
    ("no option", "contests[0].options", lambda m: _contest(m, 0, options=())),
    ("65 options", "contests[0].options", lambda m: _contest(m, 0, options=tuple(f"o{i}" for i in range(65)))),
    ("min over max", "contests[1].minSelections", lambda m: _contest(m, 1, min=3)),
    ("negative min", "contests[1].minSelections", lambda m: _contest(m, 1, min=-1)),
    ("max zero", "contests[1].maxSelections", lambda m: _contest(m, 1, max=0)),
    ("max over options", "contests[1].maxSelections", lambda m: _contest(m, 1, max=6)),
    ("one selection", "contests[2]", lambda m: _contest(m, 2, options=("Yes",))),
    ("unknown encoding", "contests[0].encoding", lambda m: _contest(m, 0, encoding="Packed")),
    ("packed over 1024 selections", "contests[0].encoding",
     lambda m: _contest(m, 0, options=tuple(f"o{i}" for i in range(12)), min=0, max=12, encoding="packed")),
    ("no style", "styles", lambda m: replace(m, styles=())),
    ("65 styles", "styles", lambda m: replace(m, styles=tuple(election.Style(f"s{i}", ("mayor", "council", "measure"))
                                                              for i in range(65)))),
    ("style id", "styles[1].id", lambda m: replace(m, styles=(m.styles[0], replace(m.styles[1], id="")))),
    ("duplicate style id", "styles[1].id", lambda m: replace(m, styles=(m.styles[0], replace(m.styles[1], id="north")))),
    ("style of no contest", "styles[1].contests", lambda m: replace(m, styles=(m.styles[0], replace(m.styles[1], contests=())))),
    ("unknown contest in a style", "styles[1].contests[1]",
     lambda m: replace(m, styles=(m.styles[0], replace(m.styles[1], contests=("mayor", "sheriff"))))),
    ("contest twice in a style", "styles[1].contests[1]",
     lambda m: replace(m, styles=(m.styles[0], replace(m.styles[1], contests=("mayor", "mayor"))))),
    ("style out of contest order", "styles[1].contests[1]",
     lambda m: replace(m, styles=(m.styles[0], replace(m.styles[1], contests=("measure", "mayor"))))),
    ("contest in no style", "contests[1]", lambda m: replace(m, styles=(replace(m.styles[0], contests=("mayor", "measure")),
                                                                          m.styles[1]))),
    ("encodingBits below maxVoters", "encodingBits", lambda m: replace(m, encoding_bits=19)),
    ("tally over N", "contests", lambda m: replace(
        m, encoding_bits=64, max_voters=1 << 63, styles=(election.Style("s", ("c0",)),),
        contests=(election.Contest("c0", "T", tuple(f"o{j}" for j in range(64)), 0, 1, False, "per-option"),))),
])
def test_manifest_refused(multi, name, field, mut):
    bad = mut(multi[0])
    with pytest.raises(ElectionError) as e:
        _prepare(bad)
    assert e.value.code == "MANIFEST", str(e.value)
    assert f"manifest field {field}:" in str(e.value), str(e.value)


def test_manifest_ballot_too_large(multi):
    """A style whose ballot exceeds MaxBallotSize (104 KiB): a packed
    contest of all 1024 subsets of 10 options has 1024 branches, 784 bytes
    each at 2048-bit N and t = 128. The style is named."""
    m = multi[0]
    big = election.Contest("big", "Big", tuple(f"o{j}" for j in range(10)), 0, 10, False, "packed")
    bad = replace(m, contests=m.contests + (big,), styles=m.styles + (election.Style("huge", ("mayor", "big")),))
    with pytest.raises(ElectionError) as e:
        _prepare(bad)
    assert "manifest field styles[2]:" in str(e.value) and "bytes" in str(e.value), str(e.value)


@pytest.mark.parametrize("name,mut", [
    ("contest field missing", lambda r: r.replace(b'"blank":false,', b"", 1)),
    ("contest field out of order", lambda r: r.replace(b'"id":"mayor","title":"Mayor"', b'"title":"Mayor","id":"mayor"', 1)),
    ("contest unknown field", lambda r: r.replace(b'"encoding":"packed"}', b'"encoding":"packed","x":1}', 1)),
    ("blank as int", lambda r: r.replace(b'"blank":false', b'"blank":0', 1)),
    ("contests as object", lambda r: r.replace(b'"contests":[{', b'"contests":{"a":{', 1)),
    ("style unknown field", lambda r: r.replace(b'"styles":[{"id":"north"', b'"styles":[{"x":1,"id":"north"', 1)),
    ("candidates field (v3)", lambda r: r.replace(b'"contests":', b'"candidates":', 1)),
])
def test_manifest_decode_refused(multi, name, mut):
    raw = multi[0].marshal()
    bad = mut(raw)
    assert bad != raw
    with pytest.raises(ElectionError) as e:
        election.decode_manifest(bad)
    assert e.value.code == "DECODE"


def test_manifest_digest_tag(multi):
    import hashlib
    m = multi[0]
    ident = replace(m, start=election.cj.ZERO_TIME, end=election.cj.ZERO_TIME).marshal()
    assert m.digest() == hashlib.sha256(election.lp(b"fabvote/manifest/v5") + election.lp(ident)).digest()


# ------------------------------------------------------------------ ballots

def _ballot(state, i, style, flags=()):
    """Ballot i of style (a gen_record ballot, valid unless flags say)."""
    prep = state["prep"]
    sels = tuple(gen_record.random_selection(prep.layout.contests[ci]) for ci in prep.style_contests[style])
    return gen_record.make_ballot((i, style, sels, set(flags)))


def _check(state, made):
    (v,) = ballotcheck.check_chunk([(0, made[2], made[3])], state["prep"])
    return v


@pytest.mark.parametrize("style", [0, 1])
def test_ballot_valid(multi, style):
    _, state = multi
    v = _check(state, _ballot(state, 1, style))
    assert v.kind is None, v.error
    assert v.contests == state["prep"].style_contests[style]
    assert len(v.ciphertexts) == sum(state["prep"].layout.contests[ci].ciphertexts for ci in v.contests)


@pytest.mark.parametrize("variant,code", [
    ("contest-not-in-style", "NOT_IN_STYLE"),
    ("contest-unknown", "NOT_IN_STYLE"),
    ("contest-repeat", "CONTEST_REPEAT"),
    ("contest-order", "CONTEST_ORDER"),
    ("contest-missing", "CONTEST_MISSING"),
])
def test_ballot_contest_list_refused(multi, variant, code):
    _, state = multi
    style = 1 if gen_record.CONTEST_VARIANTS[variant][0] == "south" else 0
    v = _check(state, _ballot(state, 2, style, {variant}))
    assert (v.kind, v.code) == ("BALLOT_INVALID", code), v.error


@pytest.mark.parametrize("listed,code", [
    (bytes([1, 0, 1]), "CONTEST_ORDER"),     # order before repeat: byte 1 is below byte 0
    (bytes([0, 0]), "CONTEST_REPEAT"),       # repeat before missing
    (bytes([2, 7]), "NOT_IN_STYLE"),         # the first bad byte decides, in order
    (bytes([0]), "CONTEST_MISSING"),
])
def test_ballot_contest_rule_order(multi, listed, code):
    _, state = multi
    prep = state["prep"]
    b = election.parse_ballot(_ballot(state, 3, 0)[3])
    with pytest.raises(ElectionError) as e:
        election.check_ballot_contests(prep, replace(b, contests=listed))
    assert e.value.code == code


def test_ballot_contest_rule_before_lengths(multi):
    """The contest list is checked before the lengths (a ballot whose list
    is wrong is refused for its list, not its ciphertext's length)."""
    _, state = multi
    made = _ballot(state, 2, 0, {"contest-missing"})
    v = _check(state, made)
    assert v.code == "CONTEST_MISSING"


def test_token_style_out_of_range(multi):
    _, state = multi
    v = _check(state, _ballot(state, 2, 0, {"bad-style"}))
    assert (v.kind, v.code) == ("BALLOT_INVALID", "TOKEN")
    assert "token names style 5; the election has 2" in v.error


def test_token_style_bound(multi):
    """A token issued for one style does not verify for another."""
    _, state = multi
    made = _ballot(state, 2, 1)
    b = election.parse_ballot(made[3])
    other = replace(b, token=b.token[:32] + b"\x00" + b.token[33:], contests=bytes([0, 1, 2]))
    v = _check(state, (None, None, made[2], other.marshal()))
    assert v.code in ("TOKEN", "CIPHERTEXT")  # the lengths are checked before the token: CIPHERTEXT here


def test_ballot_sum_proof_is_limit(multi):
    _, state = multi
    v = _check(state, _ballot(state, 2, 0, {"bad-limit"}))
    assert (v.kind, v.code) == ("BALLOT_INVALID", "LIMIT"), v.error


def test_ballot_other_proof_is_proof(multi):
    _, state = multi
    v = _check(state, _ballot(state, 2, 0, {"bad-proof"}))
    assert (v.kind, v.code) == ("BALLOT_INVALID", "PROOF"), v.error


def test_ballot_lengths_of_its_style(multi):
    _, state = multi
    prep = state["prep"]
    made = _ballot(state, 2, 1)
    b = election.parse_ballot(made[3])
    w = prep.pk.ciphertext_len
    v = _check(state, (None, None, made[2], replace(b, ciphertext=b.ciphertext + b.ciphertext[:w]).marshal()))
    assert v.code == "CIPHERTEXT"
    v = _check(state, (None, None, made[2], replace(b, proof=b.proof[:-1]).marshal()))
    assert v.code == "PROOF"


@pytest.mark.parametrize("name,mut,code", [
    ("version 2", lambda r: b"\x02" + r[1:], "DECODE"),
    ("token of 96 bytes", lambda b: replace(b, token=b.token[:96]).marshal(), "DECODE"),
    ("no contest", lambda b: replace(b, contests=b"").marshal(), "DECODE"),
    ("33 contests", lambda b: replace(b, contests=bytes(33)).marshal(), "DECODE"),
])
def test_ballot_decode_refused(multi, name, mut, code):
    _, state = multi
    raw = _ballot(state, 2, 0)[3]
    b = election.parse_ballot(raw)
    bad = mut(raw) if name == "version 2" else mut(b)
    with pytest.raises(ElectionError) as e:
        election.parse_ballot(bad)
    assert e.value.code == code


# ------------------------------------------------------------------ result

@pytest.fixture(scope="module")
def record(tmp_path_factory):
    """A verified multi-contest record of gen_record (both styles, every kind)."""
    out = str(tmp_path_factory.mktemp("multi") / "rec")
    argv = sys.argv
    sys.argv = ["gen_record", out, "--contests", "multi", "--ballots", "10", "--per-block", "5", "--concurrency", "1",
                "--nonce-pool", "4"]
    try:
        gen_record.main()
    finally:
        sys.argv = argv
    return out


def _result(record):
    with open(os.path.join(record, "manifest.json"), "rb") as f:
        prep = election.prepare_manifest(f.read())
    with open(os.path.join(record, "result.json"), "rb") as f:
        return prep, election.decode_result(f.read())


def test_record_passes(record):
    rep = verify_record(record, workers=1)
    assert rep.ok, rep.human()
    prep, r = _result(record)
    assert result_problem(prep, r) is None
    assert [c.ballots for c in r.contests] == [10, 5, 10]  # council is north's only


def _cr(r, i, **kw):
    cs = list(r.contests)
    cs[i] = replace(cs[i], **kw)
    return replace(r, contests=tuple(cs))


def _swap_counts(r, i):
    """Two counts of contest i swapped (every count rule still holds)."""
    c = list(r.contests[i].counts)
    j = next(k for k in range(1, len(c)) if c[k] != c[0])
    c[0], c[j] = c[j], c[0]
    return _cr(r, i, counts=tuple(c))


@pytest.mark.parametrize("name,mut,msg", [
    ("version 1", lambda r: replace(r, version=1), "version is 1, want 2"),
    ("another election", lambda r: replace(r, election_id="x"), "result is for election"),
    ("a contest missing", lambda r: replace(r, contests=r.contests[:2]), "contests has 2 entries"),
    ("contests out of order", lambda r: replace(r, contests=(r.contests[1], r.contests[0], r.contests[2])), "contests[0] is 'council'"),
    ("ballots over ballotCount", lambda r: _cr(r, 0, ballots=r.ballot_count + 1), "more than ballotCount"),
    ("ballots reach M", lambda r: _cr(replace(r, ballot_count=1 << 20), 0, ballots=1 << 20), "overflow its digit"),
    ("counts of another length", lambda r: _cr(r, 0, counts=r.contests[0].counts[:-1]), "want one per option"),
    ("blank where not allowed", lambda r: _cr(r, 0, blank=1), "allows none"),
    ("blank over ballots", lambda r: _cr(r, 1, blank=r.contests[1].ballots + 1), "blank votes of"),
    ("count over ballots − blank", lambda r: _cr(r, 1, counts=(r.contests[1].ballots + 1,) + r.contests[1].counts[1:]),
     "more than the"),
    ("selections under min", lambda r: _cr(r, 0, counts=(0,) * 4, undervotes=10), "outside"),
    ("selections over max", lambda r: _cr(r, 2, counts=(r.contests[2].ballots,) * 2), "outside"),
    ("undervotes wrong", lambda r: _cr(r, 1, undervotes=r.contests[1].undervotes + 1), "undervotes"),
    ("tally digits differ", lambda r: _swap_counts(r, 0), "the tally says"),
    # A contest of every style (mayor, measure) counts every ballot.
    ("a contest of every style short of ballotCount",
     lambda r: _cr(replace(r, ballot_count=r.ballot_count + 1), 1, ballots=r.contests[1].ballots),
     "contests[0] counts 10 ballots, but every ballot answers it and ballotCount is 11"),
])
def test_result_refused(record, name, mut, msg):
    prep, r = _result(record)
    problem = result_problem(prep, mut(r))
    assert problem is not None and msg in problem, problem


def test_result_ballot_count_over_the_contests(record):
    """ballotCount at most the sum of the contests' ballots: with no contest
    in every style (here the styles taken as north = council alone, south =
    mayor and measure), a result counting more ballots than its contests
    together is refused after every contest's own checks."""
    prep, r = _result(record)
    split = replace(prep, style_contests=[(1,), (0, 2)])
    assert result_problem(split, r) is None
    bad = replace(r, ballot_count=r.contests[0].ballots + r.contests[1].ballots + r.contests[2].ballots + 1)
    problem = result_problem(split, bad)
    assert problem is not None and problem.startswith(f"ballotCount {bad.ballot_count} is more than the ballots"), problem
    # Every contest's own checks come first: ballots over ballotCount is
    # reported before the styles' rules.
    assert "more than ballotCount" in result_problem(prep, _cr(r, 1, ballots=r.ballot_count + 1))


def test_result_ballots_per_contest(record, tmp_path):
    """Each contest's ballots must be the number of counted ballots listing
    it (RESULT_COUNT), and the product the slots' (RESULT_PRODUCT)."""
    import shutil
    d = str(tmp_path / "rec")
    shutil.copytree(record, d)
    prep, r = _result(record)
    # A result the same but for council's ballots and undervotes: it passes
    # its own checks but not the ledger's count.
    cr = r.contests[1]
    bad = _cr(r, 1, ballots=cr.ballots - 1, undervotes=cr.undervotes - cr.ballots and cr.undervotes - 2)
    assert bad.marshal() != r.marshal()
    # result.json must be the result the blocks wrote: the check is on the
    # tally built from the ballots, here directly.
    from fabvote_verifier.electioncheck import Tally, _check_result
    from fabvote_verifier.report import Report
    rep = Report()
    t = Tally(prep)
    t.ballots = [10, 5, 10]
    _check_result(prep, bad, t, 10, rep)
    assert [f["kind"] for f in rep.failures if f["kind"] == "RESULT_COUNT"] == ["RESULT_COUNT"], rep.failures
    assert any(f["kind"] == "RESULT_COUNT" and "contests[1]" in f["error"] for f in rep.failures), rep.failures
    # docs/VERIFY.md V27: one RESULT_COUNT for the ballot count and one for
    # each contest that differs; a result without one entry per contest is one.
    rep = Report()
    t.ballots = [10, 4, 9]
    _check_result(prep, r, t, 9, rep)
    assert [f["error"].split(" ")[0] for f in rep.failures if f["kind"] == "RESULT_COUNT"] == \
        ["ballotCount", "contests[1]", "contests[2]"], rep.failures
    rep = Report()
    _check_result(prep, replace(r, contests=r.contests[:2]), t, 10, rep)
    assert [f["error"] for f in rep.failures if f["kind"] == "RESULT_COUNT"] == ["contests has 2 entries, want 3"]


def test_result_decode_refused(record):
    _, r = _result(record)
    raw = r.marshal()
    for bad in (raw.replace(b'"version":2,', b""), raw.replace(b'"contests":[', b'"counts":[0],"contests":[', 1),
                raw.replace(b'"undervotes":', b'"under":', 1)):
        with pytest.raises(ElectionError) as e:
            election.decode_result(bad)
        assert e.value.code == "DECODE"


# ------------------------------------------------------------------ record

def test_record_version_1_refused(record, tmp_path):
    import shutil
    d = str(tmp_path / "rec")
    shutil.copytree(record, d)
    p = os.path.join(d, "record.json")
    rec = json.load(open(p))
    rec["version"] = 1
    json.dump(rec, open(p, "w"))
    rep = verify_record(d, workers=1)
    assert rep.kinds() == ["RECORD"]
    err = rep.failures[0]["error"]
    assert "version-1 record" in err and "version 2" in err, err
