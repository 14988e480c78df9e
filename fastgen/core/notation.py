"""Plays people can read: the :class:`Play` value and GNU Backgammon move notation.

Text form (the same as GNU Backgammon's ``FormatMove``, learnt from its documented
behaviour, not copied):

- points are numbered from the mover's side, ``bar`` and ``off`` for the bar and the tray;
- steps are sorted by descending source point (ties: descending destination);
- the hops of one checker are merged (``13/10 10/7`` is written ``13/7``), except where
  the checker hit a blot on the way: that point is kept and starred (``24/18*/13``);
- a hit is marked ``*`` once per point;
- identical moves are counted: ``6/off(2)``, ``13/7(2)``, ``8/5(2) 6/5(2)``;
- the empty play (a lost turn, R14) is the empty string ``""``: ``FormatMove`` writes
  nothing for a move without steps (the GUI words "cannot move" are not part of the
  notation).

Reading text (:func:`parse_move_text`) accepts that text back and the usual variants:
``25`` for ``bar``, ``0`` for ``off``, any case, extra spaces or commas, optional ``*``,
``8/5 8/5`` for ``8/5(2)``, merged hops such as ``13/7``. Only ASCII digits are numbers.
It looks at no board: :func:`fastgen.core.validate.parse_play` resolves a text against the
legal plays of a position. Malformed text raises
:class:`~fastgen.errors.InvalidMoveTextError` quoting it; reading takes time linear in
the text's length.

This module sits below the generator (:mod:`fastgen.core.plays` builds :class:`Play` values
from its arrays), so it never calls the generator itself.

>>> import fastgen
>>> play = fastgen.parse_play(fastgen.STARTING_BOARD, (3, 1), "8/5 6/5")
>>> str(play), play.moves
('8/5 6/5', ((8, 5), (6, 5)))
"""

from __future__ import annotations

import re
from typing import Any, Callable

import numpy as np

from fastgen.core.boards import as_board, as_dice
from fastgen.errors import InvalidMoveTextError
from fastgen.core.ids import position_id
from fastgen._typing import ArrayLike, DiceLike, Int8Array, StepsLike

__all__ = ["Play", "format_play", "parse_move_text", "step_value"]

BAR = 25
OFF = 0


def _point_text(point: int) -> str:
    if point == OFF:
        return "off"
    if point == BAR:
        return "bar"
    return str(point)


def _readonly(array) -> np.ndarray:
    out = np.array(array, dtype=np.int8, copy=True)
    out.setflags(write=False)
    return out


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def step_value(step, where=None) -> tuple:
    """One step ``(from, to)`` or ``(from, to, die)`` as a tuple of Python ints, checked.

    *from* is 1..25 (25 = bar), *to* 0..24 (0 = off) and below *from*; a *die* (1..6)
    must make exactly that step: ``from - to`` pips, or at least *from* pips for a
    bear-off. Anything else (floats, bools, strings, a die that does not fit) raises
    :class:`InvalidMoveTextError` quoting *step* (and *where*, the whole input).

    >>> step_value((8, 5, 3))
    (8, 5, 3)
    >>> step_value((8, 5, 1))
    Traceback (most recent call last):
    ...
    fastgen.errors.InvalidMoveTextError: step (8, 5, 1): a die of 1 does not move a checker from 8 to 5
    """
    def context():
        return "" if where is None else f" in {where!r}"

    try:
        parts = tuple(step)
    except TypeError:
        parts = ()
    if len(parts) not in (2, 3) or not all(_is_int(v) for v in parts):
        raise InvalidMoveTextError(
            f"a step is a tuple of ints (from, to) or (from, to, die), got {step!r}{context()}"
        )
    parts = tuple(int(v) for v in parts)
    source, target = parts[0], parts[1]
    if not (1 <= source <= 25 and 0 <= target <= 24 and target < source):
        raise InvalidMoveTextError(
            f"step {step!r} is not a forward move from 1..25 (25 = bar) to 0..24 (0 = off){context()}"
        )
    if len(parts) == 3:
        die = parts[2]
        fits = die == source - target if target != OFF else die >= source
        if not 1 <= die <= 6 or not fits:
            raise InvalidMoveTextError(
                f"step {step!r}: a die of {die} does not move a checker from "
                f"{_point_text(source)} to {_point_text(target)}{context()}"
            )
    return parts


def _moves_tuple(moves) -> tuple:
    """Steps as a tuple of (from, to) int pairs, dropping -1 padding rows."""
    if isinstance(moves, np.ndarray):
        if moves.dtype.kind not in "iu" or moves.size % 2:
            raise InvalidMoveTextError(f"moves must be an integer array of (from, to) rows, got {moves!r}")
        rows = [tuple(r) for r in moves.reshape(-1, 2).tolist()]
    else:
        try:
            rows = list(moves)
        except TypeError:
            raise InvalidMoveTextError(f"moves must be a sequence of (from, to) steps, got {moves!r}") from None
    out = []
    for row in rows:
        if isinstance(row, tuple) and len(row) == 2 and row[0] == -1 and row[1] == -1:
            continue  # padding of a core moves row
        out.append(step_value(row, moves)[:2])
    return tuple(out)


# --------------------------------------------------------------------------- formatting


def format_play(board: ArrayLike, moves: StepsLike) -> str:
    """GNU Backgammon's text for the play *moves* from *board* (the position before it).

    *moves* is an iterable of ``(from, to)`` single-die steps in the mover's numbering
    (25 = bar, 0 = off), in any order, or a (4, 2) array padded with -1. The same
    position always gives the same text, whatever step order produced it.

    >>> import fastgen
    >>> format_play(fastgen.STARTING_BOARD, [(6, 5), (8, 5)])
    '8/5 6/5'
    >>> format_play(fastgen.STARTING_BOARD, [(13, 10), (10, 7), (13, 10), (10, 7)])
    '13/7(2)'
    >>> format_play(fastgen.STARTING_BOARD, [])
    ''
    """
    opp = as_board(board)[0].tolist()
    steps = sorted(_moves_tuple(moves), key=lambda s: (-s[0], -s[1]))

    def opponent_on(point: int) -> bool:
        return 1 <= point <= 24 and opp[24 - point] > 0

    # Each chain is the points one checker visits: [source, kept intermediates..., dest].
    chains = [[source, target] for source, target in steps]
    alive = [True] * len(chains)
    for i, chain in enumerate(chains):
        if not alive[i]:
            continue
        for j in range(i + 1, len(chains)):
            if alive[j] and chain[-1] == chains[j][0]:
                if opponent_on(chain[-1]):
                    chain.append(chains[j][1])  # hit on the way: keep the point
                else:
                    chain[-1] = chains[j][1]  # plain hop: elide the point
                alive[j] = False
    chains = [c for c, keep in zip(chains, alive) if keep]

    counted: list[list[int]] = []  # the distinct chains, first occurrence keeps its place
    counts: list[int] = []  # how often each was played
    for chain in chains:
        if chain in counted:
            counts[counted.index(chain)] += 1
        else:
            counted.append(chain)
            counts.append(1)

    starred: set[int] = set()
    words = []
    for chain, count in zip(counted, counts):
        text = _point_text(chain[0])
        for point in chain[1:-1]:
            text += "/" + _point_text(point) + "*"
            starred.add(point)
        dest = chain[-1]
        text += "/" + _point_text(dest)
        if dest != OFF and opponent_on(dest) and dest not in starred:
            text += "*"
            starred.add(dest)
        if count > 1:
            text += f"({count})"
        words.append(text)
    return " ".join(words)


# --------------------------------------------------------------------------- parsing

# ASCII only: "\\d" and "\\s" would also take Unicode digits (fullwidth, Arabic-Indic...).
_TOKEN_RE = re.compile(
    r"[ \t\r\n]*(?:(bar|b)|(off|of|o)|([0-9]+)|(/)|(\*)|\(([0-9]+)\)|(,))", re.IGNORECASE | re.ASCII
)
_MAX_STEPS = 4


def _number(digits: str, text: str, what: str, limit: int) -> int:
    """*digits* (ASCII) as an int at most *limit*, without converting a huge string."""
    significant = digits.lstrip("0")
    if len(significant) > len(str(limit)) or int(significant or "0") > limit:
        shown = digits if len(digits) <= 12 else digits[:12] + "..."
        raise InvalidMoveTextError(f"{what} {shown} is out of range (at most {limit}) in {text!r}")
    return int(significant or "0")


def parse_move_text(text: str) -> list[tuple[tuple[int, ...], set[int]]]:
    """Read move *text* into checker moves, without looking at any board.

    Returns a list of ``(points, starred)`` pairs, one per checker move (``(n)`` counts
    expanded): ``points`` is the tuple of points the checker visits in the mover's
    numbering (25 = bar, 0 = off) and ``starred`` the set of points marked ``*``.
    Raises :class:`InvalidMoveTextError` quoting *text* when it is malformed (including
    more than four steps in all). Linear in the length of *text*.

    >>> parse_move_text("bar/22* 13/7(2)")
    [((25, 22), {22}), ((13, 7), set()), ((13, 7), set())]
    """
    if not isinstance(text, str):
        raise InvalidMoveTextError(f"move text must be a string, got {text!r}")
    groups: list[tuple[list[int], set[int]]] = []  # (points, starred) of each move named
    repeats: list[int] = []  # its count, 1 without an '(n)'
    expect_point = False  # just read a '/'
    counted = False  # the current move already has its '(n)'
    steps = 0  # steps named so far (counts included): stop as soon as there are too many
    pos = 0
    stripped = text.rstrip(" \t\r\n")
    while pos < len(stripped):
        match = _TOKEN_RE.match(stripped, pos)
        if not match:
            rest = stripped[pos:].lstrip(" \t\r\n")
            shown = rest if len(rest) <= 20 else rest[:20] + "..."
            raise InvalidMoveTextError(f"cannot read move text {text!r} at {shown!r}")
        pos = match.end()
        bar, off, number, slash, star, count, comma = match.groups()
        if bar or off or number:
            point = BAR if bar else OFF if off else _number(number, text, "point", 25)
            if expect_point:
                groups[-1][0].append(point)
                expect_point = False
                steps += repeats[-1]
            else:
                if groups and len(groups[-1][0]) < 2:
                    raise InvalidMoveTextError(f"incomplete move before {match.group().strip()!r} in {text!r}")
                groups.append(([point], set()))
                repeats.append(1)
                counted = False
        elif slash:
            if not groups or expect_point or counted:
                raise InvalidMoveTextError(f"misplaced '/' in move text {text!r}")
            expect_point = True
        elif star:
            if not groups or expect_point or counted or len(groups[-1][0]) < 2:
                raise InvalidMoveTextError(f"misplaced '*' in move text {text!r}")
            groups[-1][1].add(groups[-1][0][-1])
        elif count is not None:
            if not groups or expect_point or counted or len(groups[-1][0]) < 2:
                raise InvalidMoveTextError(f"misplaced count {match.group().strip()!r} in {text!r}")
            n = _number(count, text, "count", 4)
            if not 1 <= n <= 4:
                raise InvalidMoveTextError(f"a move is repeated 1 to 4 times, got ({n}) in {text!r}")
            steps += (n - 1) * (len(groups[-1][0]) - 1)
            repeats[-1] = n
            counted = True
        elif comma:
            if expect_point:
                raise InvalidMoveTextError(f"misplaced ',' in move text {text!r}")
        if steps > _MAX_STEPS:
            raise InvalidMoveTextError(f"more than four steps in move text {text!r}")
    if expect_point or (groups and len(groups[-1][0]) < 2):
        raise InvalidMoveTextError(f"incomplete move at the end of {text!r}")

    moves = []
    for (points, starred), count in zip(groups, repeats):
        if points[0] == OFF:
            raise InvalidMoveTextError(f"a move cannot start off the board in {text!r}")
        for k in range(1, len(points)):
            if points[k] == BAR:
                raise InvalidMoveTextError(f"a move cannot go to the bar in {text!r}")
            if points[k] >= points[k - 1]:
                raise InvalidMoveTextError(
                    f"{_point_text(points[k - 1])}/{_point_text(points[k])} does not move "
                    f"forward (toward point 1 and off) in {text!r}"
                )
            if points[k] == OFF and k != len(points) - 1:
                raise InvalidMoveTextError(f"a checker borne off cannot move on in {text!r}")
        for _ in range(count):
            moves.append((tuple(points), set(starred)))
    return moves


# --------------------------------------------------------------------------- the value


#: How a :class:`Play` draws itself for Jupyter: ``f(board_after, steps, dice) -> svg text``.
#: :mod:`fastgen.formats.svg` installs it (:func:`set_svg_drawer`), so that the picture
#: depends on the notation and never the reverse.
_svg_drawer: Callable[[Any, tuple, Any], str] | None = None
#: How a board draws itself for Jupyter (:class:`fastgen.Board`, :class:`fastgen.Game`):
#: :func:`fastgen.formats.svg.board`, installed by that module too, so that the games
#: draw themselves without importing the picture, which sits on a floor above them.
_board_drawer: Callable[..., str] | None = None


def set_svg_drawer(drawer: Callable[[Any, tuple, Any], str], board_drawer: Callable[..., str] | None = None) -> None:
    """Install the functions that draw a :class:`Play` and a board as SVG for Jupyter (``_repr_svg_``)."""
    global _svg_drawer, _board_drawer
    _svg_drawer = drawer
    if board_drawer is not None:
        _board_drawer = board_drawer


def draw_board(board: Any, **options: Any) -> str | None:
    """A board as SVG (:func:`fastgen.formats.svg.board` with *options*), for the
    ``_repr_svg_`` of a board or a game; None (no picture) until :mod:`fastgen.formats.svg`
    is imported, which ``import fastgen`` does."""
    if _board_drawer is None:
        return None
    return _board_drawer(board, **options)


class Play:
    """One complete turn: a small immutable value (R10).

    ``moves`` is a tuple of ``(from, to)`` single-die steps in the mover's numbering
    (25 = bar, 0 = off) in playing order; ``board_before`` and ``board_after`` are
    read-only (2, 25) int8 arrays in the mover's orientation (row 1 moved; a hit checker
    is on row 0's bar); ``dice`` is the roll. Two plays are equal (and hash equal) when
    they go from the same position to the same position, whatever the step order.
    ``str(play)`` is GNU Backgammon's notation; ``repr`` is runnable code (with ``from fastgen import *``).

    >>> import fastgen
    >>> play = fastgen.parse_play(fastgen.STARTING_BOARD, (6, 4), "24/14")
    >>> play.moves
    ((24, 18), (18, 14))
    >>> play == fastgen.parse_play(fastgen.STARTING_BOARD, (4, 6), "24/20/14")
    True
    >>> play
    parse_play(parse_position_id('4HPwATDgc/ABMA'), (6, 4), '24/14')
    """

    __slots__ = ("_before", "_after", "_moves", "_dice", "_text", "_key")
    _before: Int8Array
    _after: Int8Array
    _moves: tuple[tuple[int, int], ...]
    _dice: tuple[int, int]
    _text: str | None
    _key: bytes

    def __init__(self, board_before: ArrayLike, dice: DiceLike, moves: StepsLike, board_after: ArrayLike) -> None:
        before = _readonly(as_board(board_before))
        after = _readonly(as_board(board_after))
        dice = as_dice(dice)
        self._fill(before, dice, _moves_tuple(moves), after)

    def _fill(self, before, dice, moves, after) -> None:
        object.__setattr__(self, "_before", before)
        object.__setattr__(self, "_after", after)
        object.__setattr__(self, "_moves", moves)
        object.__setattr__(self, "_dice", dice)
        object.__setattr__(self, "_text", None)
        object.__setattr__(self, "_key", before.tobytes() + after.tobytes())

    @classmethod
    def from_arrays(cls, board_before: ArrayLike, dice: DiceLike, moves_row: StepsLike, board_after: ArrayLike) -> "Play":
        """Build a play from core arrays: *moves_row* is (4, 2) int8 padded with -1."""
        return cls(board_before, dice, moves_row, board_after)

    @classmethod
    def _from_core(cls, board_before, dice: tuple, moves_row: np.ndarray, board_after) -> "Play":
        """A play from arrays the generator made and checked (no second check)."""
        play = cls.__new__(cls)
        rows = moves_row.tolist()
        moves = tuple((s, t) for s, t in rows if s >= 0)
        play._fill(_readonly(board_before), dice, moves, _readonly(board_after))
        return play

    def __setattr__(self, name, value):
        raise AttributeError(f"Play is immutable (cannot set {name!r})")

    def __delattr__(self, name):
        raise AttributeError(f"Play is immutable (cannot delete {name!r})")

    @property
    def moves(self) -> tuple[tuple[int, int], ...]:
        """The steps as ``((from, to), ...)`` in playing order; ``()`` for a lost turn."""
        return self._moves

    @property
    def board_before(self) -> Int8Array:
        """The position before the play, (2, 25) int8, read-only."""
        return self._before

    @property
    def board_after(self) -> Int8Array:
        """The position after the play, same orientation (row 1 moved), read-only."""
        return self._after

    @property
    def dice(self) -> tuple[int, int]:
        """The roll, ``(d1, d2)``."""
        return self._dice

    def text(self) -> str:
        """GNU Backgammon's notation of this play (cached)."""
        text = self._text
        if text is None:
            text = format_play(self._before, self._moves)
            object.__setattr__(self, "_text", text)
        return text

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return (
            f"parse_play(parse_position_id({position_id(self._before)!r}), "
            f"{self._dice!r}, {self.text()!r})"
        )

    def _repr_svg_(self) -> str | None:
        """The board after the play with an arrow per step and the dice, as SVG
        (:func:`fastgen.formats.svg.board`) for Jupyter; None (no picture) until
        :mod:`fastgen.formats.svg` is imported, which ``import fastgen`` does."""
        if _svg_drawer is None:
            return None
        return _svg_drawer(self._after, self._moves, self._dice)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Play):
            return NotImplemented
        return self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __reduce__(self):
        return (Play, (self._before, self._dice, self._moves, self._after))
