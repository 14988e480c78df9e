"""Perft-style external vectors: fastgen/data/contact.csv and race.csv (Position IDs).

For each file, the number of distinct legal plays (R10; a lost turn counts 1, R14)
summed over all positions for the 6 doubles and for the 15 non-doubles must equal the
published totals (fastgen/data/SOURCE.md). The oracle must agree with the core position by
position on a fixed sample.

These tests run first (tests/conftest.py puts this module at the front), so a core bug is
first reported here. Only totals are published, so when a total differs the failure
message locates the positions: each count of the core is compared with GNU Backgammon's
generator (gnubg-nn, when installed) or the oracle, and the first differing positions are
named by line, Position ID and roll, with both counts.
"""

from __future__ import annotations

from importlib import resources

import numpy as np
import pytest

import fastgen
from fastgen import reference

#: The package's copy of the vector files (the tested package, installed or in place).
DATA = resources.files("fastgen").joinpath("data")

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
    return np.stack([fastgen.parse_position_id(pid) for pid in pids])


@pytest.fixture(scope="module", params=sorted(PERFT))
def vector_file(request):
    return request.param, load(request.param)


def _repeat(boards, rolls):
    """Every board with every roll: boards (N*R, 2, 25), dice (N*R, 2)."""
    n, r = boards.shape[0], len(rolls)
    all_boards = np.repeat(boards, r, axis=0)
    all_dice = np.tile(np.array(rolls, dtype=np.int8), (n, 1))
    return all_boards, all_dice


def _peer_count():
    """(name, count(board, dice)) of an independent generator: gnubg-nn, else the oracle."""
    try:
        import gnubg_nn
    except ImportError:
        return "oracle", lambda board, dice: len(reference.legal_plays(board, dice))

    def count(board, dice):  # gnubg lists no move for a lost turn, which counts 1 (R14)
        return max(1, len(set(gnubg_nn.moves(board.tolist(), dice[0], dice[1]))))

    return "gnubg", count


def locate(name, boards, rolls, counts, first=5) -> str:
    """The first *first* positions whose core count differs from an independent count."""
    peer, count = _peer_count()
    found = []
    for i, board in enumerate(boards):
        for j, roll in enumerate(rolls):
            ours = int(counts[i * len(rolls) + j])
            theirs = count(board, roll)
            if ours != theirs:
                found.append(
                    f"{name}.csv line {i + 1} {fastgen.position_id(board)} dice {roll}: "
                    f"core {ours}, {peer} {theirs}"
                )
                if len(found) == first:
                    return "; ".join(found)
    return "; ".join(found) or f"no single position differs from {peer}"


def check_total(name, boards, rolls, total, counts):
    got = int(np.asarray(counts).sum())
    if got != total:
        pytest.fail(
            f"{name}: {len(rolls)} rolls x {len(boards)} positions give {got} plays, published "
            f"{total} ({got - total:+d}); first differences: {locate(name, boards, rolls, counts)}",
            pytrace=False,
        )


def test_perft_count_plays_batch(vector_file):
    name, boards = vector_file
    for rolls, total in zip((DOUBLES, NON_DOUBLES), PERFT[name]):
        counts = fastgen.count_plays_batch(*_repeat(boards, rolls))
        check_total(name, boards, rolls, total, counts)
        assert (counts >= 1).all()  # R14: a lost turn is one play


def test_perft_plays_batch(vector_file):
    name, boards = vector_file
    for rolls, total in zip((DOUBLES, NON_DOUBLES), PERFT[name]):
        batch = fastgen.plays_batch(*_repeat(boards, rolls), threads=2)
        counts = batch.counts
        check_total(name, boards, rolls, total, counts)
        assert batch.boards.shape[0] == total
        # Each position's share agrees with the counting path (first difference named).
        alone = fastgen.count_plays_batch(*_repeat(boards, rolls))
        bad = np.flatnonzero(counts != alone)
        if bad.size:
            k = int(bad[0])
            i, roll = k // len(rolls), rolls[k % len(rolls)]
            pytest.fail(
                f"{name}.csv line {i + 1} {fastgen.position_id(boards[i])} dice {roll}: plays_batch "
                f"{int(counts[k])}, count_plays_batch {int(alone[k])}",
                pytrace=False,
            )


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
        for k, (ours, theirs) in enumerate(zip(core.tolist(), ref)):
            assert ours == theirs, (
                f"race.csv line {k // len(rolls) + 1} {fastgen.position_id(boards[k // len(rolls)])} "
                f"dice {rolls[k % len(rolls)]}: core {ours}, oracle {theirs}"
            )


def test_failure_message_names_position_and_roll():
    # The locating message itself: a core count made wrong on purpose is found.
    boards = load("race")[:3]
    counts = fastgen.count_plays_batch(*_repeat(boards, NON_DOUBLES)).copy()
    counts[17] += 3  # position 1 (line 2), roll NON_DOUBLES[2]
    message = locate("race", boards, NON_DOUBLES, counts)
    theirs = int(counts[17]) - 3
    assert message.startswith(
        f"race.csv line 2 {fastgen.position_id(boards[1])} dice {NON_DOUBLES[2]}: core {theirs + 3}, "
    ) and message.endswith(f" {theirs}")
    with pytest.raises(pytest.fail.Exception, match=r"published 1 \(\+\d+\); first differences: race.csv line"):
        check_total("race", boards, NON_DOUBLES, 1, counts)
