"""The contest layout (PROTOCOL 3.7): the Go implementation's vectors
rebuilt from their shapes, the statements' soundness over every shape of up
to 5 options, invalid selections and shapes refused, and a tally round trip."""

import itertools
import json
import os
from math import comb

import pytest

from conftest import LAYOUTS, missing_fixture
from fabvote_verifier import layout as L
from fabvote_verifier.layout import BLANK, PACKED, PER_OPTION, ContestLayout, Layout, LayoutError, Shape


def _load_vectors():
    """The vectors are this test's input: a missing file fails the test."""
    assert os.path.isfile(LAYOUTS), missing_fixture(LAYOUTS)
    with open(LAYOUTS) as f:
        vs = json.load(f)
    assert isinstance(vs, list) and vs, "layouts.json: no layout"
    return vs


# ---------------------------------------------------------------- (a) vectors

def _compare_contest(where, got: ContestLayout, want: dict):
    sh = got.shape
    assert (sh.options, sh.min, sh.max, sh.blank) == (want["options"], want["min"], want["max"], want["blank"]), where
    assert min(sh.selections, 1025) == want["selections"], where
    assert got.kind == want["kind"], where
    assert got.offset == want["offset"], where
    assert got.ciphertexts == want["ciphertexts"], where
    assert [str(w) for w in got.tally_weights] == want["tallyWeights"], where
    assert len(got.statements) == len(want["statements"]), where
    for k, (st, ws) in enumerate(zip(got.statements, want["statements"])):
        assert list(st.slots) == ws["slots"], f"{where} statement {k}"
        assert list(st.exps) == ws["exps"], f"{where} statement {k}"
        assert [str(m) for m in st.messages] == ws["messages"], f"{where} statement {k}"


def test_vectors_rebuilt():
    """Every layout of layouts.json, rebuilt from its shapes and bits with
    the cost rule choosing each kind, equals the vector field by field."""
    vs = _load_vectors()
    checked = 0
    for i, v in enumerate(vs):
        shapes = [Shape(c["options"], c["min"], c["max"], c["blank"]) for c in v["contests"]]
        lay = Layout.build(v["bits"], shapes)
        assert lay.bits == v["bits"]
        assert len(lay.contests) == len(v["contests"]), f"layout {i}"
        for j, (got, want) in enumerate(zip(lay.contests, v["contests"])):
            _compare_contest(f"layout {i} contest {j}", got, want)
            checked += 1
    assert checked >= len(vs)


# ---------------------------------------------------------------- (b) soundness

def _valid_shapes(max_options=5):
    for n in range(1, max_options + 1):
        for lo in range(0, n + 1):
            for hi in range(max(lo, 1), n + 1):
                for blank in (False, True):
                    s = sum(comb(n, k) for k in range(lo, hi + 1)) + blank
                    if s >= 2:
                        yield Shape(n, lo, hi, blank)


def _plaintexts(c: ContestLayout, x):
    """The contest's ciphertext plaintexts for the digit vector x."""
    if c.kind == PACKED:
        return (sum(1 << (c.bits * (c.offset + j)) for j, xj in enumerate(x) if xj),)
    return tuple(x)


def _is_valid(sh: Shape, x) -> bool:
    opts = sum(x[:sh.options])
    if sh.blank and x[sh.options]:
        return opts == 0
    return sh.min <= opts <= sh.max


@pytest.mark.parametrize("kind", [PACKED, PER_OPTION])
def test_statements_are_sound(kind):
    """For every valid shape of up to 5 options, forcing the kind: a 0/1
    digit vector satisfies every statement exactly when it is a valid
    selection, and the encoder's plaintexts and message indices are those
    that hold.  Offset 2 checks that packed messages carry M^offset."""
    shapes = list(_valid_shapes())
    valid_seen = 0
    for sh in shapes:
        c = ContestLayout(sh, 2, 3, kind)
        sts = c.statements
        assert len(c.tally_weights) == c.ciphertexts
        for x in itertools.product((0, 1), repeat=sh.digits):
            pts = _plaintexts(c, x)
            holds = all(st.holds(pts) for st in sts)
            assert holds == _is_valid(sh, x), (sh, kind, x)
            if not holds:
                continue
            valid_seen += 1
            blank = sh.blank and x[sh.options] == 1
            opts = [j for j in range(sh.options) if x[j]]
            enc = c.encode(opts, blank)
            assert enc.plaintexts == pts, (sh, kind, x)
            assert len(enc.indices) == len(sts)
            for st, i in zip(sts, enc.indices):
                val = sum(e * pts[s] for s, e in zip(st.slots, st.exps))
                assert st.messages[i] == val, (sh, kind, x)
    assert len(shapes) == sum(n * n + 3 * n - 1 for n in range(1, 6))  # all but (n, n, n, no blank)
    assert valid_seen == sum(sh.selections for sh in shapes)


def test_packed_messages_order():
    """Packed messages: by size ascending, each size lexicographic, then
    blank; the encoder's index is the position in that order."""
    c = ContestLayout(Shape(4, 1, 2, True), 0, 4, PACKED)
    sels = [s for k in (1, 2) for s in itertools.combinations(range(4), k)]
    m = [sum(16 ** j for j in s) for s in sels] + [16 ** 4]
    assert c.statements[0].messages == tuple(m)
    for i, s in enumerate(sels):
        assert c.encode(list(s)).indices == (i,)
    assert c.encode([], True).indices == (len(sels),)


# ---------------------------------------------------------------- (c) selections

@pytest.fixture(params=[PACKED, PER_OPTION])
def contest(request):
    return ContestLayout(Shape(5, 1, 3, True), 0, 7, request.param)


def test_too_few(contest):
    with pytest.raises(L.TooFewOptions) as e:
        contest.encode([])
    assert e.value.code == "TOO_FEW"


def test_too_many(contest):
    with pytest.raises(L.TooManyOptions) as e:
        contest.encode([0, 1, 2, 3])
    assert e.value.code == "TOO_MANY"


@pytest.mark.parametrize("opt", [-1, 5, 64, True, "1", 1.0])
def test_option_out_of_range(contest, opt):
    with pytest.raises(L.OptionOutOfRange) as e:
        contest.encode([opt])
    assert e.value.code == "OUT_OF_RANGE"


def test_repeated_option(contest):
    with pytest.raises(L.RepeatedOption) as e:
        contest.encode([1, 1])
    assert e.value.code == "REPEATED"


def test_unsorted_options(contest):
    with pytest.raises(L.UnsortedOptions) as e:
        contest.encode([2, 1])
    assert e.value.code == "UNSORTED"


def test_blank_with_options(contest):
    with pytest.raises(L.BlankWithOptions) as e:
        contest.encode([0], blank=True)
    assert e.value.code == "BLANK_WITH_OPTIONS"


@pytest.mark.parametrize("kind", [PACKED, PER_OPTION])
def test_blank_not_allowed(kind):
    c = ContestLayout(Shape(5, 1, 3, False), 0, 7, kind)
    with pytest.raises(L.BlankNotAllowed) as e:
        c.encode([], blank=True)
    assert e.value.code == "BLANK_NOT_ALLOWED"


def test_selection_codes_distinct():
    kinds = [L.TooFewOptions, L.TooManyOptions, L.OptionOutOfRange, L.RepeatedOption, L.UnsortedOptions,
             L.BlankNotAllowed, L.BlankWithOptions]
    assert len({k.code for k in kinds}) == len(kinds)
    assert all(issubclass(k, L.SelectionError) for k in kinds)


# ---------------------------------------------------------------- (d) tally

def test_tally_round_trip():
    """Ballots of a 4-contest layout (packed and per-option), tallied as the
    homomorphic product would be (Σ weight·plaintext), decode to the counts."""
    lay = Layout.build(7, [Shape(4, 1, 1, False), Shape(5, 0, 2, True), Shape(9, 0, 3, True),
                           Shape(2, 1, 1, False)])
    assert [c.kind for c in lay.contests] == [PACKED, PACKED, PER_OPTION, PACKED]
    ballots = [
        [[0], [1, 4], [0, 3, 8], [1]],
        [[3], BLANK, [], [0]],
        [[3], [], BLANK, [1]],
        [[2], [0], [8], [1]],
    ]
    want = [[0] * c.shape.digits for c in lay.contests]
    tally = 0
    for b in ballots:
        for c, enc, sel in zip(lay.contests, lay.encode(b), b):
            assert all(st.holds(enc.plaintexts) for st in c.statements)
            tally += sum(w * p for w, p in zip(c.tally_weights, enc.plaintexts))
            for j in ([c.shape.options] if sel is BLANK else sel):
                want[lay.contests.index(c)][j] += 1
    assert lay.decode_tally(tally) == want
    assert want[0] == [1, 0, 1, 2] and want[1][-1] == 1 and want[2][-1] == 1
    assert lay.decode_tally(0) == [[0] * c.shape.digits for c in lay.contests]
    with pytest.raises(ValueError):
        lay.decode_tally(1 << (7 * lay.digits))
    with pytest.raises(ValueError):
        lay.decode_tally(-1)


def test_fits_modulus():
    lay = Layout.build(8, [Shape(4, 1, 1, False), Shape(2, 1, 1, True)])  # 7 digits, 56 bits
    assert lay.digits == 7
    assert lay.fits_modulus((1 << 56) + 1)
    assert not lay.fits_modulus((1 << 56) - 1)


# ---------------------------------------------------------------- (e) shapes

@pytest.mark.parametrize("args, field", [
    ((0, 0, 1, False), "options"),
    ((65, 1, 1, False), "options"),
    ((True, 0, 1, False), "options"),
    ((3, -1, 1, False), "min"),
    ((3, 0, 0, False), "max"),
    ((3, 0, 4, False), "max"),
    ((3, 3, 2, False), "min"),
    ((3, 1, 1, 1), "blank"),
    ((1, 1, 1, False), "shape"),  # one valid selection
])
def test_invalid_shapes(args, field):
    with pytest.raises(LayoutError) as e:
        Shape(*args)
    assert e.value.field == field
    assert field in str(e.value)


def test_minimal_shapes_accepted():
    assert Shape(1, 1, 1, True).selections == 2
    assert Shape(1, 0, 1, False).selections == 2
    assert Shape(64, 0, 64, False).selections == 2 ** 64


def test_invalid_layouts():
    with pytest.raises(LayoutError) as e:
        Layout.build(7, [Shape(2, 1, 1, False), (3, 0, 4, False)])
    assert e.value.field == "contests[1].max"
    for bits in (0, 65, 7.0):
        with pytest.raises(LayoutError) as e:
            Layout.build(bits, [Shape(2, 1, 1, False)])
        assert e.value.field == "bits"
    with pytest.raises(LayoutError) as e:
        Layout.build(7, [])
    assert e.value.field == "contests"
    with pytest.raises(LayoutError) as e:
        Layout.build(7, [Shape(11, 0, 11, False)], [PACKED])  # 2048 selections
    assert e.value.field == "contests[0].kind"
    with pytest.raises(LayoutError) as e:
        Layout.build(7, [Shape(2, 1, 1, False)], ["packed-ish"])
    assert e.value.field == "contests[0].kind"


def test_cost_rule():
    """Ties are packed; more than 1024 selections are per-option."""
    # 3 options, 0..3, no blank: per-option 5·3 = 15, packed 8 + 3 = 11.
    assert Shape(3, 0, 3, False).cost_kind() == PACKED
    # 4 options, 0..4: 20 vs 16 + 3 = 19 -> packed; 5 options: 25 < 35 -> per-option.
    assert Shape(4, 0, 4, False).cost_kind() == PACKED
    assert Shape(5, 0, 5, False).cost_kind() == PER_OPTION
    assert Shape(64, 0, 64, True).cost_kind() == PER_OPTION
    ties = [sh for sh in _valid_shapes(12)
            if 5 * sh.digits + (sh.sum_values + 3 if sh.has_sum_proof else 0) == sh.selections + 3]
    assert ties and all(sh.cost_kind() == PACKED for sh in ties)
