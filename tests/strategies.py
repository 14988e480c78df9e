"""Hypothesis strategies for valid boards and dice, plus small board helpers for tests.

Every board strategy yields a valid canonical board (docs/RULES.md R4): an int8 array of
shape (2, 25), row 1 the side on roll, at most 15 checkers a side, never both sides on
one physical point (my index i is the opponent's index 23 - i). Boards are assembled by
:func:`assemble`, which drops any opponent checker that would share a point with the
mover, so every strategy stays valid whatever it draws.

The helpers :func:`pos` and :func:`replay` are deliberately independent of fastgen:
they build positions by hand and replay (from, to) steps (mover's numbering: 1..24,
25 = bar, 0 = off) without any rule knowledge beyond moving, hitting and bearing off.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

BAR = 24

# --------------------------------------------------------------------------- helpers


def assemble(mine, opp) -> np.ndarray:
    """Board from two 25-long count lists (mover, opponent), made valid.

    Opponent checkers on a physical point the mover occupies are dropped; each side is
    capped at 15 checkers by trimming from its highest index.
    """
    mine = list(mine)
    opp = list(opp)
    for row in (mine, opp):
        excess = sum(row) - 15
        i = 24
        while excess > 0:
            take = min(row[i], excess)
            row[i] -= take
            excess -= take
            i -= 1
    for i in range(24):
        if mine[i] > 0:
            opp[23 - i] = 0
    return np.array([opp, mine], dtype=np.int8)


def pos(me=None, opp=None, me_bar=0, opp_bar=0) -> np.ndarray:
    """Hand-built board. *me* maps the mover's points (1..24) to counts; *opp* maps
    points **in the mover's numbering** to opponent counts (so ``opp={7: 2}`` blocks the
    mover's 7 point, the opponent's 18 point). Bars are given separately.
    """
    board = np.zeros((2, 25), dtype=np.int8)
    for point, count in (me or {}).items():
        board[1, point - 1] = count
    for point, count in (opp or {}).items():
        board[0, 24 - point] = count
    board[1, BAR] = me_bar
    board[0, BAR] = opp_bar
    return board


def replay(board, steps) -> np.ndarray:
    """Apply (from, to) steps (mover's numbering) to *board*; stop at the first (-1, -1).

    Checks only what any move must satisfy: a checker is at the source and the target is
    not held by 2+ opposing checkers. A lone opposing checker on the target is hit.
    """
    b = np.array(board, dtype=np.int8, copy=True)
    for src, dst in (tuple(int(x) for x in step) for step in steps):
        if src == -1:
            assert dst == -1, f"half-padded step {(src, dst)}"
            break
        src_index = BAR if src == 25 else src - 1
        assert 1 <= src <= 25 and 0 <= dst < src, f"bad step {(src, dst)}"
        assert b[1, src_index] > 0, f"no checker to move in step {(src, dst)}"
        b[1, src_index] -= 1
        if dst == 0:
            continue  # borne off
        opp_index = 24 - dst
        assert b[0, opp_index] < 2, f"step {(src, dst)} lands on a blocked point"
        if b[0, opp_index] == 1:
            b[0, opp_index] = 0
            b[0, BAR] += 1
        b[1, dst - 1] += 1
    return b


def step_count(moves_row) -> int:
    """Number of real steps in one (4, 2) moves row."""
    return int((np.asarray(moves_row)[:, 0] != -1).sum())


# --------------------------------------------------------------------------- dice

non_doubles = st.tuples(st.integers(1, 6), st.integers(1, 6)).filter(lambda d: d[0] != d[1])
doubles = st.integers(1, 6).map(lambda d: (d, d))
#: Any roll, with doubles over-represented (they are the expensive, bug-prone case).
dice = st.one_of(st.tuples(st.integers(1, 6), st.integers(1, 6)), doubles)


# --------------------------------------------------------------------------- pieces


@st.composite
def _scatter(draw, n_min, n_max, indices):
    """A 25-long count list with n_min..n_max checkers dropped on *indices*."""
    picks = draw(st.lists(st.sampled_from(indices), min_size=n_min, max_size=n_max))
    row = [0] * 25
    for i in picks:
        row[i] += 1
    return row


@st.composite
def _made_points(draw, indices, k_min, k_max):
    """A 25-long count list with k_min..k_max points on *indices* held by 2-4 checkers."""
    chosen = draw(st.lists(st.sampled_from(indices), min_size=k_min, max_size=k_max, unique=True))
    row = [0] * 25
    for i in chosen:
        row[i] = draw(st.integers(2, 4))
    return row


def _add(a, b):
    return [x + y for x, y in zip(a, b)]


BOARD_POINTS = list(range(24))
HOME = list(range(6))  # indices of points 1..6 (R2)
OUTER = list(range(6, 24))

# --------------------------------------------------------------------------- boards


@st.composite
def contact_boards(draw):
    """Random contact positions: both sides scattered, some made points, bars rarely used."""
    mine = _add(draw(_scatter(1, 15, BOARD_POINTS)), draw(_made_points(BOARD_POINTS, 0, 4)))
    opp = _add(draw(_scatter(0, 15, BOARD_POINTS)), draw(_made_points(BOARD_POINTS, 0, 5)))
    mine[BAR] = draw(st.sampled_from([0, 0, 0, 0, 1, 2]))
    opp[BAR] = draw(st.sampled_from([0, 0, 0, 1, 2]))
    return assemble(mine, opp)


@st.composite
def bar_boards(draw):
    """The mover has 1 or 2+ checkers on the bar; the opponent's home board (the mover's
    entry points 19..24) is partly made, sometimes closed."""
    n_bar = draw(st.sampled_from([1, 1, 2, 2, 3, 4]))
    mine = draw(_scatter(0, 15 - n_bar, BOARD_POINTS))
    mine[BAR] = n_bar
    opp = draw(_scatter(0, 8, BOARD_POINTS))
    # Opponent home points = its indices 0..5 = the mover's points 24..19.
    for i in range(6):
        opp[i] += draw(st.sampled_from([0, 0, 1, 2, 2, 3]))
    opp[BAR] = draw(st.sampled_from([0, 0, 1]))
    return assemble(mine, opp)


@st.composite
def prime_boards(draw):
    """Primes and closed boards: a run of 3..6 consecutive opponent points (often its
    own home board, closed when 6 long), mover checkers mostly behind it."""
    length = draw(st.integers(3, 6))
    start = draw(st.sampled_from([0, 0] + list(range(0, 24 - length + 1))))
    opp = [0] * 25
    for i in range(start, start + length):
        opp[i] = draw(st.integers(2, 3))
    opp = _add(opp, draw(_scatter(0, 4, BOARD_POINTS)))
    # Opponent index i is the mover's index 23 - i: the prime covers the mover's indices
    # 24-start-length .. 23-start, and "behind it" is 24-start .. 23 (or the bar).
    prime = set(range(24 - start - length, 24 - start))
    free = [i for i in BOARD_POINTS if i not in prime]
    behind = list(range(24 - start, 24))
    mine = draw(_scatter(0, 7, free))
    if behind:
        mine = _add(mine, draw(_scatter(1, 8, behind)))
    mine[BAR] = draw(st.sampled_from([0, 0, 1, 2] if behind else [1, 1, 2, 3]))
    return assemble(mine, opp)


@st.composite
def bearoff_boards(draw):
    """Bear-off positions: the mover all home (R2, R9), sometimes with one checker just
    outside (points 7..9) or on the bar, opponent blots (or points) in the mover's home
    board, opponent checkers elsewhere."""
    mine = draw(_scatter(1, 15, HOME))
    extra = draw(st.sampled_from(["none", "none", "outside", "bar"]))
    if extra == "outside" and sum(mine) < 15:
        mine[draw(st.sampled_from([6, 7, 8]))] += 1
    elif extra == "bar" and sum(mine) < 15:
        mine[BAR] += 1
    opp = [0] * 25
    # The mover's home points 1..6 are the opponent's indices 23..18.
    for i in range(18, 24):
        opp[i] = draw(st.sampled_from([0, 0, 0, 1, 1, 2]))
    opp = _add(opp, draw(_scatter(0, 10, OUTER)))
    opp[BAR] = draw(st.sampled_from([0, 0, 1]))
    return assemble(mine, opp)


@st.composite
def near_empty_boards(draw):
    """The mover has 1..3 checkers left (the rest borne off), anywhere or at home."""
    where = draw(st.sampled_from([HOME, HOME, list(range(12)), BOARD_POINTS]))
    mine = draw(_scatter(1, 3, where))
    opp = _add(draw(_scatter(0, 12, BOARD_POINTS)), draw(_made_points(BOARD_POINTS, 0, 3)))
    return assemble(mine, opp)


@st.composite
def few_step_doubles(draw):
    """(board, double) where usually fewer than 4 steps can be played (R12).

    One runner at point p >= 7 may advance s steps of d before an opponent point blocks
    it; all other mover checkers sit on points 1..d, where a d can only bear off, which
    R9 forbids while the runner is outside.
    """
    d = draw(st.integers(1, 6))
    s = draw(st.integers(0, min(3, 23 // d - 1)))
    p = draw(st.integers(max(7, (s + 1) * d + 1), 24))
    mine = [0] * 25
    mine[p - 1] = 1
    for _ in range(draw(st.integers(0, 6))):
        mine[draw(st.integers(0, d - 1))] += 1
    opp = draw(_scatter(0, 6, BOARD_POINTS))
    blocked_point = p - (s + 1) * d  # mover's numbering, >= 1
    opp[24 - blocked_point] += 2
    opp[BAR] = draw(st.sampled_from([0, 1]))
    return assemble(mine, opp), (d, d)


@st.composite
def no_play_positions(draw):
    """(board, dice) with no legal step (R14): the mover is on the bar and the entry
    points of both dice are held by the opponent (sometimes the whole home board)."""
    roll = draw(dice)
    mine = draw(_scatter(0, 13, BOARD_POINTS))
    mine[BAR] = draw(st.integers(1, 2))
    opp = [0] * 25
    closed = draw(st.booleans())
    for n in range(1, 7):
        if closed or n in roll:
            # The opponent's point n is my entry point 25-n. At most 12 checkers here.
            opp[n - 1] = 2 if closed else draw(st.integers(2, 3))
    # Keep entry points of the dice clear of mover checkers so assemble() keeps them.
    for n in roll:
        mine[24 - n] = 0
    if closed:
        for n in range(1, 7):
            mine[24 - n] = 0
    opp = _add(opp, draw(_scatter(0, max(0, 15 - sum(opp)), OUTER)))
    return assemble(mine, opp), roll


def with_dice(boards_strategy, dice_strategy=dice):
    """Pair a board strategy with a dice strategy."""
    return st.tuples(boards_strategy, dice_strategy)


#: Every kind of (board, dice) the differential tests explore.
positions = st.one_of(
    with_dice(contact_boards()),
    with_dice(bar_boards()),
    with_dice(prime_boards()),
    with_dice(bearoff_boards()),
    with_dice(near_empty_boards()),
    few_step_doubles(),
    no_play_positions(),
)

#: Any valid board (no dice).
boards = st.one_of(
    contact_boards(), bar_boards(), prime_boards(), bearoff_boards(), near_empty_boards()
)
