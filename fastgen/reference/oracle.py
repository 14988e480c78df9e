"""The reference oracle: a slow, readable move generator written straight from docs/RULES.md.

This module is the yardstick the compiled core (:mod:`fastgen.core._core`) is tested against.
It deliberately shares **no code** with the core: it does its own input validation in
plain Python and does not import :mod:`fastgen.core.boards` (which calls the core's
validator) nor :mod:`fastgen.core._core`. Only the exception classes and the result container
are shared.

The algorithm is the obvious one:

1. enumerate every sequence of single steps (both orders of a non-double, four equal
   steps for a double), one die at a time, judging every rule before every step;
2. keep only the sequences allowed by the forced-play rules (R11-R14);
3. merge sequences that end in the same position (R10), keeping the first one found
   as the representative.

Rule ids (R1...) in the comments refer to docs/RULES.md, the project specification.

>>> import numpy as np
>>> start = np.zeros((2, 25), dtype=np.int8)
>>> start[:, [23, 12, 7, 5]] = [2, 5, 3, 5]
>>> len(legal_plays(start, (3, 1)))
16
"""

from __future__ import annotations

import numpy as np

from fastgen.errors import InvalidBoardError, InvalidDiceError
from fastgen.core.plays import Plays

__all__ = ["legal_plays"]

BAR = 24  # index of the bar in a row (R4); in move notation the bar is point 25
OFF = 0  # move notation for "borne off"
POINTS = 24
CHECKERS = 15


# --------------------------------------------------------------------------- validation


def _is_int(value) -> bool:
    """True for a Python or numpy integer that is not a bool."""
    if isinstance(value, (bool, np.bool_)):
        return False
    return isinstance(value, (int, np.integer))


def _validate_board(board) -> tuple[list[int], list[int]]:
    """Check *board* against R4 and return (opponent row, mover row) as lists of ints."""
    if isinstance(board, np.ndarray):
        if board.dtype.kind not in "iu":
            raise InvalidBoardError(f"board must hold integers, got dtype {board.dtype}: {board!r}")
        if board.shape != (2, 25):
            raise InvalidBoardError(f"board must have shape (2, 25), got {board.shape}: {board!r}")
        rows = board.tolist()
    else:
        try:
            rows = [list(row) for row in board]
        except TypeError:
            raise InvalidBoardError(f"board must be a (2, 25) array of integers, got {board!r}") from None
        if len(rows) != 2 or any(len(row) != 25 for row in rows):
            raise InvalidBoardError(f"board must have shape (2, 25): {board!r}")
    for row in rows:
        for count in row:
            if not _is_int(count):
                raise InvalidBoardError(f"board must hold integer counts, found {count!r} in {board!r}")
            if count < 0:
                raise InvalidBoardError(f"board has a negative checker count {count!r}: {board!r}")
    opp, mine = [int(c) for c in rows[0]], [int(c) for c in rows[1]]
    for side in (opp, mine):
        if sum(side) > CHECKERS:  # R1, R4: 15 checkers a side
            raise InvalidBoardError(f"board has more than 15 checkers on one side: {board!r}")
    for i in range(POINTS):
        # R1: my index i (point i+1) is the opponent's point 24-i, index 23-i.
        if mine[i] > 0 and opp[POINTS - 1 - i] > 0:
            raise InvalidBoardError(
                f"board has both sides on one physical point (mover's point {i + 1}): {board!r}"
            )
    return opp, mine


def _validate_dice(dice) -> tuple[int, int]:
    """Check *dice* (R5): a pair of integers 1..6."""
    try:
        d1, d2 = dice
    except (TypeError, ValueError):
        raise InvalidDiceError(f"dice must be a pair (d1, d2), got {dice!r}") from None
    for die in (d1, d2):
        if not _is_int(die) or not 1 <= die <= 6:
            raise InvalidDiceError(f"dice must be integers 1..6, got {dice!r}")
    return int(d1), int(d2)


# --------------------------------------------------------------------------- one step


def _opponent_index(point: int) -> int:
    """Index in the opponent's row of my point *point* (R1: my p is its 25-p)."""
    return POINTS - point


def _all_home(mine: list[int]) -> bool:
    """R9: bearing off is allowed only with every remaining checker on points 1..6."""
    return sum(mine[6:]) == 0  # indices 6..23 = points 7..24, index 24 = bar


def _single_steps(mine: list[int], opp: list[int], die: int):
    """Yield every legal single step with *die* as (from_point, to_point, mine', opp').

    Points are in the mover's numbering: 1..24, 25 = bar, 0 = off (docs/CONTRIBUTING.md).
    """
    # R8: bar first; a bar checker enters on my point 25-n.
    if mine[BAR] > 0:
        target = 25 - die
        yield from _land(mine, opp, 25, target)
        return
    may_bear_off = _all_home(mine)
    highest = max((p for p in range(1, POINTS + 1) if mine[p - 1] > 0), default=0)
    for source in range(POINTS, 0, -1):  # deterministic order: farthest checker first
        if mine[source - 1] == 0:
            continue
        target = source - die
        if target >= 1:
            yield from _land(mine, opp, source, target)
        elif may_bear_off:
            # R9 exact (target == 0) or higher: a larger die bears off only from the
            # highest occupied point.
            if target == 0 or source == highest:
                new_mine = list(mine)
                new_mine[source - 1] -= 1
                yield source, OFF, new_mine, opp


def _land(mine, opp, source: int, target: int):
    """Yield the step source -> target (a point 1..24) unless the target is blocked."""
    opp_index = _opponent_index(target)
    if opp[opp_index] >= 2:  # R6: blocked point
        return
    new_mine = list(mine)
    new_mine[BAR if source == 25 else source - 1] -= 1
    new_mine[target - 1] += 1
    new_opp = opp
    if opp[opp_index] == 1:  # R7: hit a blot; it goes to the opponent's bar
        new_opp = list(opp)
        new_opp[opp_index] = 0
        new_opp[BAR] += 1
    yield source, target, new_mine, new_opp


# --------------------------------------------------------------------------- sequences


def _sequences(mine, opp, dice_order):
    """All step sequences playing *dice_order* one die at a time, as far as they go.

    Returns a list of (steps, mine, opp, dice_used) for every prefix reached, including
    the empty prefix. States reached twice at the same depth are expanded once: what can
    follow depends only on the position and the dice left (R10 makes them one play).
    """
    # (steps, mine, opp, dice used)
    reached: list[tuple[tuple[tuple[int, int], ...], list[int], list[int], tuple[int, ...]]] = [((), mine, opp, ())]
    frontier = reached[:]
    for die in dice_order:
        seen = set()
        next_frontier: list[tuple[tuple[tuple[int, int], ...], list[int], list[int], tuple[int, ...]]] = []
        for steps, m, o, used in frontier:
            for source, target, m2, o2 in _single_steps(m, o, die):
                key = (tuple(m2), tuple(o2))
                if key in seen:
                    continue
                seen.add(key)
                next_frontier.append((steps + ((source, target),), m2, o2, used + (die,)))
        if not next_frontier:
            break
        reached.extend(next_frontier)
        frontier = next_frontier
    return reached


def _legal_sequences(mine, opp, d1, d2):
    """The sequences allowed by the forced-play rules R11-R14 (duplicates not yet merged)."""
    if d1 == d2:
        # R5: a double is four steps of the same number.
        candidates = _sequences(mine, opp, (d1,) * 4)
    else:
        # R11: the order of the dice on the table gives no priority: try both orders.
        high, low = max(d1, d2), min(d1, d2)
        candidates = _sequences(mine, opp, (high, low)) + _sequences(mine, opp, (low, high))
    most = max(len(steps) for steps, _, _, _ in candidates)
    if most == 0:
        return []  # R14: no step possible, the turn is lost
    # R11 / R12: only sequences playing the maximum number of dice are legal.
    best = [c for c in candidates if len(c[0]) == most]
    if d1 != d2 and most == 1:
        # R13: if each die alone can be played (but never both), the larger must be.
        dice_playable = {used[0] for _, _, _, used in best}
        if len(dice_playable) == 2:
            high = max(d1, d2)
            best = [c for c in best if c[3][0] == high]
    return best


def legal_plays(board, dice) -> Plays:
    """Every legal play of *board* (R4 orientation, row 1 on roll) with *dice* (R5-R15).

    Returns a :class:`fastgen.core.plays.Plays` whose ``boards`` (K, 2, 25) int8 are the
    distinct resulting positions (R10), in the input orientation (row 1 is still the
    side that moved; a hit checker is on row 0's bar, index 24), and whose ``moves``
    (K, 4, 2) int8 give one representative step sequence per position in the mover's
    numbering (1..24 points, 25 bar, 0 off), padded with -1. A lost turn (R14) is the
    single play equal to the unchanged board with all moves -1.

    Raises :class:`fastgen.errors.InvalidBoardError` or
    :class:`fastgen.errors.InvalidDiceError` for bad input (quoted with ``!r``).

    >>> board = np.zeros((2, 25), dtype=np.int8)
    >>> board[1, 2] = 1                       # my last checker on point 3
    >>> board[0, 5] = 2                       # opponent's 6 point, irrelevant here
    >>> plays = legal_plays(board, (5, 1))
    >>> len(plays), plays.moves[0].tolist()   # 3/2/off and 3/off: one play (R10)
    (1, [[3, 2], [2, 0], [-1, -1], [-1, -1]])
    """
    opp, mine = _validate_board(board)
    d1, d2 = _validate_dice(dice)
    original = np.array([opp, mine], dtype=np.int8)

    results = {}  # resulting position -> representative steps, first found wins (R10)
    for steps, m, o, _ in _legal_sequences(mine, opp, d1, d2):
        key = (tuple(o), tuple(m))
        if key not in results:
            results[key] = steps

    if not results:  # R14: the lost turn is the single empty play
        boards = original.reshape(1, 2, 25).copy()
        moves = np.full((1, 4, 2), -1, dtype=np.int8)
        return Plays(original, (d1, d2), boards, moves)

    boards = np.array([list(key) for key in results], dtype=np.int8).reshape(-1, 2, 25)
    moves = np.full((len(results), 4, 2), -1, dtype=np.int8)
    for k, steps in enumerate(results.values()):
        for j, step in enumerate(steps):
            moves[k, j] = step
    return Plays(original, (d1, d2), boards, moves)
