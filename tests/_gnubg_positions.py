"""Positions of games of mixed strength, for the tests of GNU Backgammon's nets.

Every position on roll of games played by pubeval, each play replaced by a random legal
one with some probability (0: pubeval's games; 1: random games), and of games played by
a given evaluator's 0-ply choice (gnubg's own nets): the classes, the strange positions
of random play and the sound ones of good play all occur. Deterministic for a seed.
"""

from __future__ import annotations

import numpy as np

import fastgen
from fastgen.players import evaluators


def self_play(seed: int, games: int, random_share: float, evaluator=None, turns: int = 400) -> np.ndarray:
    """Every position on roll (side on roll in row 1) of *games* games: pubeval's plays
    (or *evaluator*'s greedy ones), each replaced by a random legal play with probability
    *random_share*."""
    rng = np.random.default_rng(seed)
    cur = np.stack([fastgen.STARTING_BOARD] * games).astype(np.int8)
    seen = []
    policy = None if evaluator is None else evaluators.greedy(evaluator)
    for _ in range(turns):
        cur = cur[(cur[:, 0].sum(1) > 0) & (cur[:, 1].sum(1) > 0)]
        if not len(cur):
            break
        seen.append(cur.copy())
        dice = rng.integers(1, 7, (len(cur), 2))
        batch = fastgen.plays_batch(cur, dice)
        if policy is None:
            after = fastgen.pubeval_best(cur, dice)
        else:
            pick = policy.choose(batch.boards, batch.offsets)
            after = np.array(batch.boards[np.asarray(batch.offsets[:-1]) + pick])
        for i in np.where(rng.random(len(cur)) < random_share)[0]:
            lo, hi = batch.offsets[i], batch.offsets[i + 1]
            if hi > lo:
                after[i] = batch.boards[rng.integers(lo, hi)]
        cur = fastgen.swap_sides(after)
    return np.concatenate(seen)


def board(me: dict[int, int], other: dict[int, int]) -> np.ndarray:
    """A board from {index: count} of the side on roll (row 1) and of the other (row 0)."""
    b = np.zeros((2, 25), np.int8)
    for i, n in other.items():
        b[0, i] = n
    for i, n in me.items():
        b[1, i] = n
    return b


def mixed(seed: int, games: int, evaluator=None) -> np.ndarray:
    """Positions of *games* games in four equal groups: pubeval's, pubeval's with 30% of
    the plays random, random games, and (when given) *evaluator*'s greedy games with 10%
    random plays (else pubeval's with 10%)."""
    part = max(1, games // 4)
    groups = [self_play(seed, part, 0.0), self_play(seed + 1, part, 0.3), self_play(seed + 2, part, 1.0),
              self_play(seed + 3, part, 0.1, evaluator)]
    return np.concatenate(groups)
