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

Parsing accepts that text back and the usual variants: ``25`` for ``bar``, ``0`` for
``off``, any case, extra spaces or commas, optional ``*``, ``8/5 8/5`` for ``8/5(2)``,
merged hops such as ``13/7``. A text is resolved against the legal plays by the position
it produces (R10), so ``parse_play(b, d, format_play(b, moves))`` always gives the play
back. Malformed text raises :class:`~fastgen.errors.InvalidMoveTextError`, text that fits
two plays :class:`~fastgen.errors.AmbiguousMoveError`, and a well-formed text that is not
a legal play :class:`~fastgen.errors.IllegalPlayError` with the reason (R15).

>>> import fastgen
>>> play = parse_play(fastgen.STARTING_BOARD, (3, 1), "8/5 6/5")
>>> str(play), play.moves
('8/5 6/5', ((8, 5), (6, 5)))
"""

from __future__ import annotations

import re

import numpy as np

from fastgen.boards import as_board, as_dice
from fastgen.generate import legal_plays
from fastgen.errors import AmbiguousMoveError, InvalidMoveTextError

__all__ = ["Play", "format_play", "parse_play", "parse_move_text"]

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


def _moves_tuple(moves) -> tuple:
    """Steps as a tuple of (from, to) int pairs, dropping -1 padding rows."""
    out = []
    try:
        rows = np.asarray(moves).reshape(-1, 2).tolist() if isinstance(moves, np.ndarray) else list(moves)
        for row in rows:
            source, target = int(row[0]), int(row[1])
            if source < 0:
                continue
            if not (1 <= source <= 25 and 0 <= target < source):
                raise ValueError
            out.append((source, target))
    except (TypeError, ValueError, IndexError):
        raise InvalidMoveTextError(
            f"moves must be (from, to) steps with 1 <= from <= 25 and 0 <= to < from, got {moves!r}"
        ) from None
    return tuple(out)


# --------------------------------------------------------------------------- formatting


def format_play(board, moves) -> str:
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

    counted = []  # (chain, count), first occurrence keeps its place
    for chain in chains:
        for entry in counted:
            if entry[0] == chain:
                entry[1] += 1
                break
        else:
            counted.append([chain, 1])

    starred = set()
    words = []
    for chain, count in counted:
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

_TOKEN_RE = re.compile(r"\s*(?:(bar|b)|(off|of|o)|(\d+)|(/)|(\*)|\((\d+)\)|(,))", re.IGNORECASE)


def parse_move_text(text: str) -> list:
    """Read move *text* into checker moves, without looking at any board.

    Returns a list of ``(points, starred)`` pairs, one per checker move (``(n)`` counts
    expanded): ``points`` is the tuple of points the checker visits in the mover's
    numbering (25 = bar, 0 = off) and ``starred`` the set of points marked ``*``.
    Raises :class:`InvalidMoveTextError` quoting *text* when it is malformed.

    >>> parse_move_text("bar/22* 13/7(2)")
    [((25, 22), {22}), ((13, 7), set()), ((13, 7), set())]
    """
    if not isinstance(text, str):
        raise InvalidMoveTextError(f"move text must be a string, got {text!r}")
    groups = []  # list of [points, starred, count]
    expect_point = False  # just read a '/'
    counted = False  # the current move already has its '(n)'
    pos = 0
    stripped = text.rstrip()
    while pos < len(stripped):
        match = _TOKEN_RE.match(stripped, pos)
        if not match:
            raise InvalidMoveTextError(
                f"cannot read move text {text!r} at {stripped[pos:].strip()!r}"
            )
        pos = match.end()
        bar, off, number, slash, star, count, comma = match.groups()
        if bar or off or number:
            point = BAR if bar else OFF if off else int(number)
            if point > 25:
                raise InvalidMoveTextError(f"point {point} does not exist (1..24, bar, off) in {text!r}")
            if expect_point:
                groups[-1][0].append(point)
                expect_point = False
            else:
                if groups and len(groups[-1][0]) < 2:
                    raise InvalidMoveTextError(f"incomplete move before {match.group().strip()!r} in {text!r}")
                groups.append([[point], set(), 1])
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
            n = int(count)
            if not 1 <= n <= 4:
                raise InvalidMoveTextError(f"a move is repeated 1 to 4 times, got ({n}) in {text!r}")
            groups[-1][2] = n
            counted = True
        elif comma:
            if expect_point:
                raise InvalidMoveTextError(f"misplaced ',' in move text {text!r}")
    if expect_point or (groups and len(groups[-1][0]) < 2):
        raise InvalidMoveTextError(f"incomplete move at the end of {text!r}")

    moves = []
    for points, starred, count in groups:
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
    if sum(len(points) - 1 for points, _ in moves) > 4:
        raise InvalidMoveTextError(f"more than four steps in move text {text!r}")
    return moves


def _hits(before: np.ndarray, after: np.ndarray) -> set:
    """Mover's points where a lone opposing checker was hit between two boards."""
    hit = (before[0, :24] == 1) & (after[0, :24] == 0)
    return {24 - int(i) for i in np.flatnonzero(hit)}


def _resolve(board: np.ndarray, plays, moves: list):
    """Indices of the legal plays that *moves* (from :func:`parse_move_text`) describe."""
    mine = board[1].astype(np.int64)
    named = set()  # landing points the text names (intermediates included)
    starred = set()
    for points, stars in moves:
        mine[24 if points[0] == BAR else points[0] - 1] -= 1
        if points[-1] != OFF:
            mine[points[-1] - 1] += 1
        named.update(p for p in points[1:] if p != OFF)
        starred |= stars
    if (mine < 0).any():
        return []
    same_row = np.flatnonzero((plays.boards[:, 1, :] == mine).all(axis=1))
    opp_before = board[0]
    candidates = []
    for k in same_row.tolist():
        hits = _hits(board, plays.boards[k])
        if not starred <= hits:
            continue  # a '*' where nothing was hit
        if any(opp_before[24 - p] >= 1 and p not in hits for p in named):
            continue  # the text lands on an opposing checker without hitting it
        candidates.append((k, hits))
    if len(candidates) > 1:
        # A hit on the way is always written (24/18*/13): prefer plays hitting only where named.
        preferred = [c for c in candidates if c[1] <= named]
        if preferred:
            candidates = preferred
    return [k for k, _ in candidates]


def parse_play(board, dice, text: str, *, plays=None) -> "Play":
    """The legal play of *board* with *dice* that *text* describes.

    Raises :class:`InvalidMoveTextError` (malformed), :class:`AmbiguousMoveError` (fits
    several plays) or :class:`~fastgen.errors.IllegalPlayError` (well formed, not legal;
    ``.reason`` says why). *plays* may pass ``fastgen.legal_plays(board, dice)`` when the
    caller already has it.

    >>> import fastgen
    >>> str(parse_play(fastgen.STARTING_BOARD, (6, 5), "24/13"))
    '24/13'
    >>> str(parse_play(fastgen.STARTING_BOARD, (3, 3), "8/5 8/5 6/3 6/3"))
    '8/5(2) 6/3(2)'
    """
    arr = as_board(board)
    dice = as_dice(dice)
    moves = parse_move_text(text)
    if plays is None:
        plays = legal_plays(arr, dice)
    found = _resolve(arr, plays, moves)
    if len(found) == 1:
        return plays[found[0]]
    if len(found) > 1:
        options = ", ".join(repr(str(plays[k])) for k in found)
        raise AmbiguousMoveError(f"move text {text!r} fits several legal plays: {options}")
    from fastgen.validate import diagnose_moves  # validate builds on this module

    raise diagnose_moves(arr, dice, moves, text=text, plays=plays)


# --------------------------------------------------------------------------- the value


class Play:
    """One complete turn: a small immutable value (R10).

    ``moves`` is a tuple of ``(from, to)`` single-die steps in the mover's numbering
    (25 = bar, 0 = off) in playing order; ``board_before`` and ``board_after`` are
    read-only (2, 25) int8 arrays in the mover's orientation (row 1 moved; a hit checker
    is on row 0's bar); ``dice`` is the roll. Two plays are equal (and hash equal) when
    they go from the same position to the same position, whatever the step order.
    ``str(play)`` is GNU Backgammon's notation; ``repr`` is runnable code.

    >>> import fastgen
    >>> play = Play.parse(fastgen.STARTING_BOARD, (6, 4), "24/14")
    >>> play.moves
    ((24, 18), (18, 14))
    >>> play == Play.parse(fastgen.STARTING_BOARD, (4, 6), "24/20/14")
    True
    >>> play
    Play.parse(board_from_position_id('4HPwATDgc/ABMA'), (6, 4), '24/14')
    """

    __slots__ = ("_before", "_after", "_moves", "_dice", "_text", "_key")

    def __init__(self, board_before, dice, moves, board_after):
        before = _readonly(board_before)
        after = _readonly(board_after)
        if before.shape != (2, 25) or after.shape != (2, 25):
            raise ValueError(
                f"boards must have shape (2, 25), got {before.shape} and {after.shape}"
            )
        object.__setattr__(self, "_before", before)
        object.__setattr__(self, "_after", after)
        object.__setattr__(self, "_moves", _moves_tuple(moves))
        object.__setattr__(self, "_dice", (int(dice[0]), int(dice[1])))
        object.__setattr__(self, "_text", None)
        object.__setattr__(self, "_key", before.tobytes() + after.tobytes())

    @classmethod
    def from_arrays(cls, board_before, dice, moves_row, board_after) -> "Play":
        """Build a play from core arrays: *moves_row* is (4, 2) int8 padded with -1."""
        return cls(board_before, dice, moves_row, board_after)

    @classmethod
    def parse(cls, board, dice, text: str) -> "Play":
        """The legal play *text* describes; see :func:`parse_play`."""
        return parse_play(board, dice, text)

    def __setattr__(self, name, value):
        raise AttributeError(f"Play is immutable (cannot set {name!r})")

    def __delattr__(self, name):
        raise AttributeError(f"Play is immutable (cannot delete {name!r})")

    @property
    def moves(self) -> tuple:
        """The steps as ``((from, to), ...)`` in playing order; ``()`` for a lost turn."""
        return self._moves

    @property
    def board_before(self) -> np.ndarray:
        """The position before the play, (2, 25) int8, read-only."""
        return self._before

    @property
    def board_after(self) -> np.ndarray:
        """The position after the play, same orientation (row 1 moved), read-only."""
        return self._after

    @property
    def dice(self) -> tuple:
        """The roll, ``(d1, d2)``."""
        return self._dice

    def text(self) -> str:
        """GNU Backgammon's notation of this play (cached)."""
        if self._text is None:
            object.__setattr__(self, "_text", format_play(self._before, self._moves))
        return self._text

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        from fastgen.ids import position_id

        return (
            f"Play.parse(board_from_position_id({position_id(self._before)!r}), "
            f"{self._dice!r}, {self.text()!r})"
        )

    def _repr_svg_(self) -> str:
        """The board after the play with an arrow per step and the dice, as SVG
        (:func:`fastgen.svg.board`) for Jupyter."""
        from fastgen import svg

        return svg.board(self._after, play=self._moves, dice=self._dice)

    def __eq__(self, other) -> bool:
        if not isinstance(other, Play):
            return NotImplemented
        return self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __reduce__(self):
        return (Play, (self._before, self._dice, self._moves, self._after))
