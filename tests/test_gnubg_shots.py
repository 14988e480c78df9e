"""The shot inputs (PIPLOSS, P1, P2) of GNU Backgammon's contact and crashed nets: the
AVX-512 loops (each of the 39 ways of hitting a vector lane, the 21 rolls combined by
permutes) give the same integers as the plain loops, so the same inputs to the bit.

The positions: every position on roll of self-play games of mixed strength (random plays
bring many checkers to the bar), each also turned round (the other side on roll), and the
same positions with one and with two of the side on roll's checkers moved to the bar
(the vector loops take no checker and one on the bar; two go to the plain loops in both).
Both input versions (1.00's and 1.01's PIPLOSS targets). Skipped, with the reason shown,
on a CPU without AVX-512 F and CD.
"""

from __future__ import annotations

import numpy as np
import pytest

from fastgen.nets import _gnubg

from _gnubg_positions import self_play

SHOTS = slice(3, 25)  # a half's hand-made inputs (the off units 0..2 are not shots)


@pytest.fixture(scope="module")
def boards() -> np.ndarray:
    games = np.concatenate([self_play(31, 120, 0.3), self_play(32, 120, 1.0)])
    turned = np.ascontiguousarray(games[:, ::-1])
    out = [games, turned]
    rng = np.random.default_rng(5)
    for on_bar in (1, 2):
        moved = games.copy()
        for b in moved:  # on_bar of the mover's rearmost checkers off their points onto its bar
            for _ in range(on_bar):
                pts = np.flatnonzero(b[1, :24])
                if pts.size:
                    i = pts[-1] if rng.random() < 0.5 else rng.choice(pts)
                    b[1, i] -= 1
                    b[1, 24] += 1
        out.append(moved)
    all_boards = np.concatenate(out)
    classes = _gnubg.classify(all_boards)
    return np.ascontiguousarray(all_boards[classes >= _gnubg.CRASHED])


@pytest.mark.parametrize("version", ["1.00", "1.01"])
@pytest.mark.parametrize("encode", [_gnubg.contact_inputs, _gnubg.crashed_inputs])
def test_vector_shot_loops_equal_the_plain_ones(boards, version, encode):
    try:
        if not _gnubg.select_shots(True):
            pytest.skip("this CPU has no AVX-512 F and CD: only the plain shot loops run here")
        vector = encode(boards, version)
    finally:
        _gnubg.select_shots(False)
    plain = encode(boards, version)
    # the cases both loops meet: shots on the board, from the bar, none at all
    on_bar = boards[:, 1, 24]
    for half in (200, 225):
        p1 = plain[:, half + 8]  # P1: rolls hitting at least once
        assert (p1 > 0).sum() > 1000 and ((p1 > 0) & (on_bar == 1)).sum() > 200 and (p1 == 0).sum() > 1000
    diff = np.flatnonzero((vector != plain).any(axis=1))
    assert diff.size == 0, (f"{diff.size} of {len(boards)} boards differ; the first: {boards[diff[0]].tolist()} "
                            f"plain {plain[diff[0], 200:].tolist()} vector {vector[diff[0], 200:].tolist()}")
    assert np.array_equal(vector[:, :200], plain[:, :200])
