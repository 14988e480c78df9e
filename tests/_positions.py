"""Positions of random play for the tests and benchmarks: every ply of random games,
each position seen from its side on roll (contact, bar, race and bear-off positions)."""

from __future__ import annotations

import numpy as np

import fastgen


def random_play_positions(games: int, plies: int, seed: int) -> np.ndarray:
    """(N, 2, 25) int8: the positions after each of *plies* random half-moves of *games*
    games from the opening, the side to roll next in row 1; a game that ends drops out."""
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
