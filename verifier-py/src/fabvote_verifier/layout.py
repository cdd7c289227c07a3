"""The ballot layout of several contests (PROTOCOL 3.7), written from the
specification: a contest's shape and its valid selections, the cost rule
that encrypts a contest packed or per option, the statements a ballot's
proofs must show, a voter's selection as plaintexts, and the packed tally
decoded into counts.

Notation (PROTOCOL 3.7): a contest has n options, selects min..max of them
and may allow a blank vote; it takes d = n (+1 for blank) base-M digits of
the tally, M = 2^bits, the blank digit after the option digits, and the
contests' digits follow one another (the contest's offset is the number of
digits before it).  A statement says that Σ exps[i]·x[slots[i]], over the
plaintexts x of the contest's ciphertexts, is one of its messages.

A manifest carries one 1-of-p contest (PROTOCOL 3.1): its proof's
messages come from this layout (election.prepare_manifest), which is also
the layout of ballots of several contests."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from math import comb

MAX_OPTIONS = 64
MAX_BRANCHES = 1024  # the most messages one proof may have (PROTOCOL 3.7)
STATEMENT_COST = 3  # a proved ciphertext costs 3 branches (votecode.StatementCost)
MAX_BITS = 64

PACKED = "packed"
PER_OPTION = "per-option"
KINDS = (PACKED, PER_OPTION)


class _Blank:
    def __repr__(self):
        return "BLANK"


BLANK = _Blank()  # a blank vote, for Layout.encode


class LayoutError(ValueError):
    """A bad shape or layout; field: the offending field."""

    def __init__(self, field: str, msg: str):
        super().__init__(f"{field}: {msg}")
        self.field = field
        self.msg = msg


class SelectionError(ValueError):
    """A selection the contest's shape does not allow; code names the kind."""
    code = "SELECTION"


class TooFewOptions(SelectionError):
    code = "TOO_FEW"


class TooManyOptions(SelectionError):
    code = "TOO_MANY"


class OptionOutOfRange(SelectionError):
    code = "OUT_OF_RANGE"


class RepeatedOption(SelectionError):
    code = "REPEATED"


class UnsortedOptions(SelectionError):
    code = "UNSORTED"


class BlankNotAllowed(SelectionError):
    code = "BLANK_NOT_ALLOWED"


class BlankWithOptions(SelectionError):
    code = "BLANK_WITH_OPTIONS"


def _is_int(v) -> bool:
    return type(v) is int


# ---------------------------------------------------------------- shape

@dataclass(frozen=True)
class Shape:
    """A contest's shape (PROTOCOL 3.7): options n in 1..64, 0 ≤ min ≤ max
    ≤ n, max ≥ 1, blank allowed or not, and at least two valid selections.
    Construction validates and raises LayoutError naming the field."""
    options: int
    min: int
    max: int
    blank: bool

    def __post_init__(self):
        n = self.options
        if not _is_int(n) or not 1 <= n <= MAX_OPTIONS:
            raise LayoutError("options", f"{n!r}, want an int in 1..{MAX_OPTIONS}")
        if not _is_int(self.min) or self.min < 0:
            raise LayoutError("min", f"{self.min!r}, want an int ≥ 0")
        if not _is_int(self.max) or not 1 <= self.max <= n:
            raise LayoutError("max", f"{self.max!r}, want an int in 1..options ({n})")
        if self.min > self.max:
            raise LayoutError("min", f"{self.min} exceeds max ({self.max})")
        if type(self.blank) is not bool:
            raise LayoutError("blank", f"{self.blank!r}, want a bool")
        if self.selections < 2:
            raise LayoutError("shape", f"offers {self.selections} valid selection, want at least 2")

    @property
    def digits(self) -> int:
        """d = n, +1 for the blank digit (PROTOCOL 3.7)."""
        return self.options + (1 if self.blank else 0)

    @property
    def selections(self) -> int:
        """S = Σ_{k=min..max} C(n, k), +1 with blank (PROTOCOL 3.7)."""
        s = sum(comb(self.options, k) for k in range(self.min, self.max + 1))
        return s + (1 if self.blank else 0)

    @property
    def has_sum_proof(self) -> bool:
        """Per-option layout: the sum proof is left out exactly when every
        count is valid: min 0, max n, no blank (PROTOCOL 3.7)."""
        return not (self.min == 0 and self.max == self.options and not self.blank)

    @property
    def sum_values(self) -> int:
        """r = max − min + 1, +1 with blank: the sum proof's messages."""
        return self.max - self.min + 1 + (1 if self.blank else 0)

    def cost_kind(self) -> str:
        """The layout the cost rule of PROTOCOL 3.7 chooses: per-option when
        S > 1024, or when 5·d + (r + 3 with a sum proof) < S + 3; packed
        otherwise (a tie is packed)."""
        s = self.selections
        if s > MAX_BRANCHES:
            return PER_OPTION
        per_option = 5 * self.digits + (self.sum_values + STATEMENT_COST if self.has_sum_proof else 0)
        return PER_OPTION if per_option < s + STATEMENT_COST else PACKED


# ---------------------------------------------------------------- contest

@dataclass(frozen=True)
class Statement:
    """Σ exps[i]·x[slots[i]] is one of messages; slots are relative to the
    contest's first ciphertext (PROTOCOL 3.7)."""
    slots: tuple
    exps: tuple
    messages: tuple

    def holds(self, plaintexts) -> bool:
        """Whether the statement holds for the contest's plaintexts."""
        return sum(e * plaintexts[s] for s, e in zip(self.slots, self.exps)) in self.messages


@dataclass(frozen=True)
class Encoded:
    """A selection encoded: one plaintext per ciphertext of the contest, and
    for each statement the index of the message it proves."""
    plaintexts: tuple
    indices: tuple


def _lex_rank(opts, n: int) -> int:
    """The rank of the increasing tuple opts among the k-subsets of range(n)
    in lexicographic order (the order of itertools.combinations)."""
    k, rank, prev = len(opts), 0, -1
    for i, o in enumerate(opts):
        for v in range(prev + 1, o):
            rank += comb(n - v - 1, k - i - 1)
        prev = o
    return rank


@dataclass(frozen=True)
class ContestLayout:
    """One contest of a layout: its shape, its first digit (offset), M =
    2^bits and its kind, packed or per-option (PROTOCOL 3.7)."""
    shape: Shape
    offset: int
    bits: int
    kind: str

    def __post_init__(self):
        if self.kind not in KINDS:
            raise LayoutError("kind", f"{self.kind!r}, want one of {', '.join(KINDS)}")
        if self.kind == PACKED and self.shape.selections > MAX_BRANCHES:
            raise LayoutError("kind", f"packed with {self.shape.selections} valid selections, "
                                      f"more than {MAX_BRANCHES} branches")
        if not _is_int(self.offset) or self.offset < 0:
            raise LayoutError("offset", f"{self.offset!r}, want an int ≥ 0")
        if not _is_int(self.bits) or not 1 <= self.bits <= MAX_BITS:
            raise LayoutError("bits", f"{self.bits!r}, want an int in 1..{MAX_BITS}")

    def _digit(self, j: int) -> int:
        """M^(offset+j): the weight of the contest's digit j in the tally."""
        return 1 << (self.bits * (self.offset + j))

    @property
    def ciphertexts(self) -> int:
        """1 if packed, else one per digit (PROTOCOL 3.7)."""
        return 1 if self.kind == PACKED else self.shape.digits

    @property
    def tally_weights(self) -> tuple:
        """The exponent of each ciphertext in the tally: ciphertext j of a
        per-option contest is raised to M^(offset+j); the packed
        ciphertext already carries its digits at M^offset, weight 1."""
        if self.kind == PACKED:
            return (1,)
        return tuple(self._digit(j) for j in range(self.shape.digits))

    def _packed_messages(self) -> tuple:
        """The valid selections' plaintexts Σ M^(offset+j): by number of
        options, ascending, each size in lexicographic order, then blank."""
        sh = self.shape
        msgs = [sum(self._digit(j) for j in c)
                for k in range(sh.min, sh.max + 1) for c in combinations(range(sh.options), k)]
        if sh.blank:
            msgs.append(self._digit(sh.options))
        return tuple(msgs)

    @property
    def statements(self) -> tuple:
        """The contest's statements in canonical order (PROTOCOL 3.7):
        packed, one membership statement on ciphertext 0; per-option, one
        {0, 1} statement per digit in digit order, then the sum statement
        (option digits weigh 1, the blank digit n+1; messages min..max,
        then n+1 with blank), unless the shape needs no sum proof."""
        sh = self.shape
        if self.kind == PACKED:
            return (Statement((0,), (1,), self._packed_messages()),)
        out = [Statement((j,), (1,), (0, 1)) for j in range(sh.digits)]
        if sh.has_sum_proof:
            exps = (1,) * sh.options + ((sh.options + 1,) if sh.blank else ())
            msgs = tuple(range(sh.min, sh.max + 1)) + ((sh.options + 1,) if sh.blank else ())
            out.append(Statement(tuple(range(sh.digits)), exps, msgs))
        return tuple(out)

    def check_selection(self, options, blank: bool = False) -> tuple:
        """Validate a selection: option indices, strictly increasing, or a
        blank vote with no option.  Raises a SelectionError subclass:
        BlankNotAllowed, BlankWithOptions, OptionOutOfRange, RepeatedOption,
        UnsortedOptions, TooFewOptions, TooManyOptions (checked in this
        order).  Returns the options as a tuple."""
        sh = self.shape
        opts = tuple(options)
        if blank:
            if not sh.blank:
                raise BlankNotAllowed("blank vote: the contest does not allow it")
            if opts:
                raise BlankWithOptions(f"blank vote with {len(opts)} option(s)")
            return opts
        for o in opts:
            if not _is_int(o) or not 0 <= o < sh.options:
                raise OptionOutOfRange(f"option {o!r} not in 0..{sh.options - 1}")
        for a, b in zip(opts, opts[1:]):
            if a == b:
                raise RepeatedOption(f"option {a} selected twice")
            if a > b:
                raise UnsortedOptions(f"options not increasing: {a} before {b}")
        if len(opts) < sh.min:
            raise TooFewOptions(f"{len(opts)} option(s), want at least {sh.min}")
        if len(opts) > sh.max:
            raise TooManyOptions(f"{len(opts)} option(s), want at most {sh.max}")
        return opts

    def encode(self, options, blank: bool = False) -> Encoded:
        """A voter's selection (check_selection) as the plaintext of each
        ciphertext and the index of the message each statement proves
        (PROTOCOL 3.7)."""
        sh = self.shape
        opts = self.check_selection(options, blank)
        x = [0] * sh.digits
        for o in opts:
            x[o] = 1
        if blank:
            x[sh.options] = 1
        if self.kind == PACKED:
            if blank:
                idx = sh.selections - 1
            else:
                idx = sum(comb(sh.options, k) for k in range(sh.min, len(opts))) + _lex_rank(opts, sh.options)
            return Encoded((sum(self._digit(j) for j in range(sh.digits) if x[j]),), (idx,))
        idx = list(x)
        if sh.has_sum_proof:
            idx.append(sh.sum_values - 1 if blank else len(opts) - sh.min)
        return Encoded(tuple(x), tuple(idx))


# ---------------------------------------------------------------- layout

@dataclass(frozen=True)
class Layout:
    """Several contests, M = 2^bits, each contest's digits after the
    previous contest's (PROTOCOL 3.7)."""
    bits: int
    contests: tuple

    @classmethod
    def build(cls, bits: int, shapes, kinds=None) -> "Layout":
        """Lay out the shapes in order; each contest's kind is kinds[i] when
        given (None: the cost rule), else the cost rule's.  Errors name the
        contest, e.g. "contests[2].max"."""
        if not _is_int(bits) or not 1 <= bits <= MAX_BITS:
            raise LayoutError("bits", f"{bits!r}, want an int in 1..{MAX_BITS}")
        shapes = list(shapes)
        if not shapes:
            raise LayoutError("contests", "no contest")
        kinds = list(kinds) if kinds is not None else [None] * len(shapes)
        if len(kinds) != len(shapes):
            raise LayoutError("kinds", f"{len(kinds)} kinds for {len(shapes)} contests")
        out, offset = [], 0
        for i, (sh, k) in enumerate(zip(shapes, kinds)):
            try:
                if not isinstance(sh, Shape):
                    sh = Shape(*sh)
                out.append(ContestLayout(sh, offset, bits, k if k is not None else sh.cost_kind()))
            except LayoutError as e:
                raise LayoutError(f"contests[{i}].{e.field}", e.msg) from None
            offset += sh.digits
        return cls(bits, tuple(out))

    @property
    def digits(self) -> int:
        """The tally's number of base-M digits over all contests."""
        return sum(c.shape.digits for c in self.contests)

    def fits_modulus(self, n: int) -> bool:
        """Whether every packed tally stays below N: bits·digits < |N|, the
        rule of PROTOCOL 3.1 for one contest (Layout.FitsModulus)."""
        return self.bits * self.digits < n.bit_length()

    def encode(self, selections) -> list:
        """One Encoded per contest; selections[i] is the increasing option
        indices of contest i, or BLANK for a blank vote."""
        if len(selections) != len(self.contests):
            raise ValueError(f"{len(selections)} selections for {len(self.contests)} contests")
        return [c.encode((), True) if s is BLANK else c.encode(s) for c, s in zip(self.contests, selections)]

    def decode_tally(self, tally: int) -> list:
        """The packed tally Σ count·M^digit as counts per contest: the
        option counts, then the blank count if the contest allows blank
        (PROTOCOL 3.7).  Refuses a tally outside 0..M^digits − 1."""
        if not _is_int(tally) or not 0 <= tally < 1 << (self.bits * self.digits):
            raise ValueError(f"tally not in 0..M^{self.digits} - 1")
        mask = (1 << self.bits) - 1
        out = []
        for c in self.contests:
            out.append([(tally >> (self.bits * (c.offset + j))) & mask for j in range(c.shape.digits)])
        return out
