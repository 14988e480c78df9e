"""Golden outputs: SHA-256 over the generator's plays and counts, rollouts and native duels
on fixed seeds, recorded from the code before the package was rearranged into floors.

Any change to these outputs is a change of behaviour, not of layout: a refactoring must
leave every digest as it is. Only integer outputs are held here (plays, counts, winners,
turns, points), which do not depend on the platform's floating-point library.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

import fastgen


def _digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str(a.dtype).encode())
        h.update(str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def _walk(n: int = 4000, seed: int = 5):
    """Positions of random games (each a mover's board after its play, turned to the next
    mover) and a roll for each, from a seeded generator."""
    rng = np.random.default_rng(seed)
    boards = []
    b = fastgen.STARTING_BOARD.copy()
    for _ in range(n):
        d = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        p = fastgen.legal_plays(b, d)
        if len(p) == 0 or (p.boards[0][1] == 0).all():
            b = fastgen.STARTING_BOARD.copy()
            continue
        nb = p.boards[int(rng.integers(len(p)))]
        if nb[1].sum() == 0:
            b = fastgen.STARTING_BOARD.copy()
            continue
        boards.append(nb.copy())
        b = fastgen.swap_sides(nb)
    dice = rng.integers(1, 7, size=(len(boards), 2)).astype(np.int8)
    return np.stack(boards).astype(np.int8), dice


@pytest.fixture(scope="module")
def walk():
    return _walk()


@pytest.mark.parametrize("threads", [1, 2])
def test_plays_batch_digest(walk, threads):
    boards, dice = walk
    batch = fastgen.plays_batch(boards, dice, threads=threads)
    assert _digest(batch.offsets, batch.boards, batch.moves) == "f1e9494b25c2b03f"


def test_count_digest(walk):
    boards, dice = walk
    assert _digest(fastgen.count_plays_batch(boards, dice)) == "0bd5cb6024b0f863"


def test_random_rollout_digest():
    r = fastgen.rollout(games=300, policy="random", seed=3)
    assert _digest(r.winner, r.turns, r.points) == "7ddcc7971c739fd0"


def test_pubeval_rollout_digest():
    r = fastgen.rollout(games=300, policy="pubeval", seed=4, threads=2)
    assert _digest(r.winner, r.turns, r.points) == "919d3e423afcde55"


def test_native_duel_result():
    d = fastgen.duel("pubeval", "random", 200, seed=7)
    assert (d.ppg, round(d.ppg_se, 12)) == (2.525, round(0.051431527492405094, 12))


def test_perft_counts():
    assert list(fastgen.perft(fastgen.STARTING_BOARD, 2)) == [447, 202782]
