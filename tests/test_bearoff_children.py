"""The bear-off builders' play lists (fastgen/bearoff/_build.pyx, Children).

The builders generate the plays of a pattern, every count capped at the most checkers a
turn can take from a point (2, or 4 with a double), and apply them to every position with
that pattern. These tests hold that to the core's own plays of each position, uncapped,
and hold the cache (bounded, started afresh when full) to the plain generation.
"""

from __future__ import annotations

import numpy as np
import pytest

import fastgen
from fastgen import bearoff
from fastgen.bearoff import _build
from fastgen.bearoff.index import index_position
from fastgen.errors import InvalidArgumentError

ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]


def _boards(points: int, checkers: int = 15) -> np.ndarray:
    """Every position of up to *checkers* on *points* points, in gnubg's order, as boards."""
    counts = index_position(np.arange(bearoff.n_positions(points, checkers)), points, checkers)
    boards = np.zeros((len(counts), 2, 25), np.int8)
    boards[:, 1, :points] = counts
    return boards


@pytest.mark.parametrize("a,b", ROLLS)
def test_capped_counts_have_the_same_plays_in_the_same_order(a, b):
    # Every position of up to 15 checkers on 6 points (gnubg_os0.bd's 54,264): the plays
    # of the capped position are the plays of the position, step for step and in order,
    # and each play's result is the position's minus what the cap removed.
    boards = _boards(6)
    cap = 4 if a == b else 2
    capped = boards.copy()
    np.minimum(capped[:, 1], cap, out=capped[:, 1])
    dice = np.tile(np.array([a, b], np.int8), (len(boards), 1))
    real = fastgen.plays_batch(boards, dice)
    short = fastgen.plays_batch(capped, dice)
    assert np.array_equal(real.offsets, short.offsets)
    assert np.array_equal(real.moves, short.moves)
    removed = np.repeat(boards - capped, np.diff(real.offsets), axis=0)
    assert np.array_equal(real.boards, short.boards + removed)
    assert (boards != capped).any()  # the cap did remove checkers somewhere


def _plain_children(points: int, checkers: int) -> tuple[np.ndarray, np.ndarray]:
    """children_table's output computed from plays_batch, position by position, uncached."""
    boards = _boards(points, checkers)
    n = len(boards)
    dice = np.array([ROLLS[r] for r in range(21)] * n, np.int8)
    got = fastgen.plays_batch(np.repeat(boards, 21, axis=0), dice)
    numbers = _build.rank_positions(np.ascontiguousarray(got.boards[:, 1, :points]))
    return got.offsets, numbers.astype(np.int32)


@pytest.mark.parametrize(
    "arena_plays,slot_bits,doubles",
    [
        (1 << 20, 15, True),  # everything fits
        (1 << 14, 4, True),  # 16 buckets, the smallest arena: started afresh again and again
        (1 << 14, 10, True),  # the arena fills before the buckets do
        (1 << 14, 10, False),  # doubles generated directly
    ],
)
def test_the_cache_gives_the_plain_generations_children(arena_plays, slot_bits, doubles):
    offsets, kids = _plain_children(5, 15)
    plays = _build.Children(5, arena_plays, slot_bits, doubles)
    got_offsets = np.zeros(bearoff.n_positions(5) * 21 + 1, np.int64)
    got = _build.children_table(5, 15, got_offsets, plays)
    assert np.array_equal(got_offsets, offsets)
    assert np.array_equal(got, kids)
    # one bucket a position for each kind cached (doubles=False: only the non-doubles),
    # and the non-doubles' again when fetching the doubles' one started the cache afresh
    lookups = (2 if doubles else 1) * bearoff.n_positions(5)
    assert plays.hits + plays.misses == lookups if arena_plays == 1 << 20 else plays.hits + plays.misses >= lookups
    if arena_plays == 1 << 20 or not doubles:
        assert plays.hits > 5 * plays.misses  # patterns repeat: the cache is used


def test_cache_sizes_out_of_range_are_refused():
    for args in [(13, 1 << 14, 10), (6, 100, 10), (6, 1 << 14, 2)]:
        with pytest.raises(InvalidArgumentError, match=r"Children\(P="):
            _build.Children(*args)


@pytest.mark.parametrize("points,checkers", [(6, 6), (7, 4), (8, 3), (12, 2), (1, 15), (2, 15)])
def test_two_sided_children_from_the_cache(points, checkers):
    # 6x6 are the positions of gnubg_ts0.bd; from 7 points on the builders' cache holds
    # only the non-doubles (build.children)
    offsets, kids = bearoff.build.children_table(points, checkers)
    want_offsets, want = _plain_children(points, checkers)
    assert np.array_equal(offsets, want_offsets)
    assert np.array_equal(kids, want)
