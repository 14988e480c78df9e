"""Perft-style external vectors: tests/data/contact.csv and race.csv (Position IDs).

For each file, the number of distinct legal plays (R10; a lost turn counts 1, R14)
summed over all positions for the 6 doubles and for the 15 non-doubles must equal the
published totals (tests/data/SOURCE.md). The oracle must agree with the core position by
position on a fixed sample.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import fastgen
from fastgen import reference

DATA = Path(__file__).parent / "data"

#: (doubles, non-doubles) totals over every position of the file.
PERFT = {
    "contact": (218_356, 185_957),
    "race": (140_720, 122_570),
}

DOUBLES = [(d, d) for d in range(1, 7)]
NON_DOUBLES = [(a, b) for a in range(1, 7) for b in range(a + 1, 7)]
assert len(DOUBLES) == 6 and len(NON_DOUBLES) == 15


def load(name: str) -> np.ndarray:
    pids = (DATA / f"{name}.csv").read_text().split()
    assert len(pids) == 1000
    return np.stack([fastgen.board_from_position_id(pid) for pid in pids])


@pytest.fixture(scope="module", params=sorted(PERFT))
def vector_file(request):
    return request.param, load(request.param)


def _repeat(boards, rolls):
    """Every board with every roll: boards (N*R, 2, 25), dice (N*R, 2)."""
    n, r = boards.shape[0], len(rolls)
    all_boards = np.repeat(boards, r, axis=0)
    all_dice = np.tile(np.array(rolls, dtype=np.int8), (n, 1))
    return all_boards, all_dice


def test_perft_count_plays_batch(vector_file):
    name, boards = vector_file
    for rolls, total in zip((DOUBLES, NON_DOUBLES), PERFT[name]):
        counts = fastgen.count_plays_batch(*_repeat(boards, rolls))
        assert int(counts.sum()) == total, f"{name} {len(rolls)} rolls"
        assert (counts >= 1).all()  # R14: a lost turn is one play


def test_perft_plays_batch(vector_file):
    name, boards = vector_file
    for rolls, total in zip((DOUBLES, NON_DOUBLES), PERFT[name]):
        batch = fastgen.plays_batch(*_repeat(boards, rolls), threads=2)
        assert sum(len(batch[i]) for i in range(len(batch))) == total, f"{name} {len(rolls)} rolls"
        assert batch.boards.shape[0] == total


def test_perft_oracle_sample_matches_core(vector_file):
    # A fixed sample: 40 positions spread over the file, every one of the 21 rolls.
    name, boards = vector_file
    for i in range(0, 1000, 25):
        for roll in DOUBLES + NON_DOUBLES:
            core = fastgen.legal_plays(boards[i], roll)
            ref = reference.legal_plays(boards[i], roll)
            assert core.position_set() == ref.position_set(), (
                f"{name} line {i + 1} {fastgen.position_id(boards[i])} dice {roll}"
            )
            assert len(core) == len(ref)


def test_perft_oracle_totals_on_race_sample():
    # Doubles and non-doubles are summed separately by the oracle and the core alike.
    boards = load("race")[:100]
    for rolls in (DOUBLES, NON_DOUBLES):
        core = fastgen.count_plays_batch(*_repeat(boards, rolls))
        ref = [len(reference.legal_plays(b, d)) for b in boards for d in rolls]
        assert core.tolist() == ref
