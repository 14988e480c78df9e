"""Random valid positions for the tests (seeded, reproducible).

``random_board(rng)`` mixes the kinds of positions the notation and the rules care about:
contact positions with blots and points, checkers on the bar, bear-offs, and races.
``random_play_positions(games, plies, seed)`` gives every ply of random games instead,
as networks meet them in play (the network tests and benchmarks).
"""

from __future__ import annotations

import random

import numpy as np

KINDS = ("contact", "bar", "bearoff", "race", "blots")


def _place(rng: random.Random, row, other, count: int, points: list[int], bar_chance: float):
    """Put *count* checkers of one side on *points* (own numbering) avoiding *other*'s points."""
    for _ in range(count):
        if rng.random() < bar_chance:
            row[24] += 1
            continue
        for _ in range(50):
            p = rng.choice(points)
            if other[24 - p] == 0:  # my point p is the other side's index 24 - p
                row[p - 1] += 1
                break
        else:
            row[24] += 1


def random_board(rng: random.Random, kind: str | None = None) -> np.ndarray:
    """A valid (2, 25) int8 board (R4) of the given *kind* (random kind when None)."""
    kind = kind or rng.choice(KINDS)
    mine = [0] * 25
    opp = [0] * 25
    if kind == "bearoff":
        n_mine, n_opp = rng.randint(1, 15), rng.randint(1, 15)
        _place(rng, mine, opp, n_mine, list(range(1, 7)), 0.0)
        _place(rng, opp, mine, n_opp, list(range(1, 25)), 0.05)
    elif kind == "race":
        n_mine, n_opp = rng.randint(3, 15), rng.randint(3, 15)
        _place(rng, mine, opp, n_mine, list(range(1, 13)), 0.0)
        _place(rng, opp, mine, n_opp, list(range(1, 13)), 0.0)
    else:
        n_mine, n_opp = rng.randint(8, 15), rng.randint(8, 15)
        bar_mine = 0.15 if kind == "bar" else 0.02
        points_mine = rng.sample(range(1, 25), rng.randint(3, 10))
        points_opp = rng.sample(range(1, 25), rng.randint(3, 10))
        if kind == "blots":
            points_mine = list(range(1, 25))
            points_opp = list(range(1, 25))
        _place(rng, opp, mine, n_opp, points_opp, 0.05)
        _place(rng, mine, opp, n_mine, points_mine, bar_mine)
    board = np.array([opp, mine], dtype=np.int8)
    assert not ((board[1, :24] > 0) & (board[0, 23::-1] > 0)).any()
    return board


def random_dice(rng: random.Random) -> tuple[int, int]:
    return rng.randint(1, 6), rng.randint(1, 6)


def positions(seed: int, n: int):
    """*n* (board, dice) pairs from a seeded generator."""
    rng = random.Random(seed)
    for _ in range(n):
        yield random_board(rng), random_dice(rng)


def random_play_positions(games: int, plies: int, seed: int) -> np.ndarray:
    """(N, 2, 25) int8: the positions after each of *plies* random half-moves of *games*
    games from the opening, the side to roll next in row 1; a game that ends drops out."""
    import fastgen  # here: the other helpers serve oracle-only tests, which need no compiled core

    rng = np.random.default_rng(seed)
    boards = np.stack([fastgen.STARTING_BOARD] * games)
    seen = []
    for _ in range(plies):
        r = fastgen.plays_batch(boards, rng.integers(1, 7, size=(len(boards), 2)))
        pick = r.offsets[:-1] + (rng.random(len(boards)) * np.diff(r.offsets)).astype(np.int64)
        after = r.boards[pick]
        alive = after[:, 1, :].sum(axis=1) > 0  # the mover has checkers left
        boards = np.ascontiguousarray(after[alive][:, ::-1])
        if len(boards) == 0:
            break
        seen.append(boards)
    return np.concatenate(seen)
