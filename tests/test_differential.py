"""The compiled core against the pure-Python oracle, on Hypothesis-drawn positions.

For every drawn (board, dice): the same set of resulting positions, the same count, no
duplicate, and every core ``moves`` row replayed step by step (by the independent
:func:`strategies.replay`) reaches the core's board using the rolled dice. The batch
entry points must agree with ``legal_plays`` position by position, in the same order.

The number of examples comes from the Hypothesis profile (tests/conftest.py): the eight
position tests below draw 8 x max_examples positions (5,600 by default, 56,000 with
FASTGEN_HYPOTHESIS_PROFILE=large).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import fastgen
from fastgen import reference
from strategies import (
    assemble,
    bar_boards,
    bearoff_boards,
    contact_boards,
    few_step_doubles,
    near_empty_boards,
    no_play_positions,
    positions,
    prime_boards,
    replay,
    step_count,
    with_dice,
)


def _die_fits(src: int, dst: int, die: int) -> bool:
    """A step of *die* from src to dst: exact, or a bear-off from a lower point (R9)."""
    return src - dst == die or (dst == 0 and src - dst < die)


def _steps_fit_dice(row, roll) -> bool:
    """The steps of one moves row can be assigned to the rolled dice in order played."""
    steps = [(int(s), int(t)) for s, t in row if s != -1]
    d1, d2 = roll
    if d1 == d2:
        return len(steps) <= 4 and all(_die_fits(s, t, d1) for s, t in steps)
    if len(steps) > 2:
        return False
    return any(
        all(_die_fits(s, t, die) for (s, t), die in zip(steps, order))
        for order in ((d1, d2), (d2, d1))
    )


def assert_core_matches_oracle(board, roll):
    """The checks of this module for one position; the message names the Position ID."""
    core = fastgen.legal_plays(board, roll)
    ref = reference.legal_plays(board, roll)
    where = f"position {fastgen.position_id(board)} dice {roll}"
    core_set = core.position_set()
    ref_set = ref.position_set()
    assert len(core_set) == len(core), f"{where}: core returns a position twice"
    missing = [fastgen.position_id(np.frombuffer(b, np.int8).reshape(2, 25)) for b in ref_set - core_set]
    extra = [fastgen.position_id(np.frombuffer(b, np.int8).reshape(2, 25)) for b in core_set - ref_set]
    assert not missing and not extra, f"{where}: core lacks {missing}, core adds {extra}"
    assert len(core) == len(ref)
    # All legal plays of a roll use the same number of dice (R11, R12); the oracle's rows
    # all have that length. A shorter core row is only acceptable when it bears off the
    # mover's last checker, reaching the same position as a full-length sequence.
    ref_steps = {step_count(m) for m in ref.moves}
    assert len(ref_steps) == 1
    (full,) = ref_steps
    for k in range(len(core)):
        after = replay(board, core.moves[k])
        assert (after == core.boards[k]).all(), f"{where}: moves row {k} does not reach its board"
        assert _steps_fit_dice(core.moves[k], roll), f"{where}: row {k} {core.moves[k].tolist()} vs dice"
        n = step_count(core.moves[k])
        assert n == full or (n < full and core.boards[k][1].sum() == 0), (
            f"{where}: row {k} has {n} steps, the legal plays use {full}"
        )
    if full == 0:  # R14: a lost turn is the unchanged board
        assert len(core) == 1 and (core.boards[0] == board).all()


@given(with_dice(contact_boards()))
def test_differential_contact(case):
    assert_core_matches_oracle(*case)


@given(with_dice(bar_boards()))
def test_differential_bar(case):
    assert_core_matches_oracle(*case)


@given(with_dice(prime_boards()))
def test_differential_primes_and_closed_boards(case):
    assert_core_matches_oracle(*case)


@given(with_dice(bearoff_boards()))
def test_differential_bearoff(case):
    assert_core_matches_oracle(*case)


@given(with_dice(near_empty_boards()))
def test_differential_near_empty(case):
    assert_core_matches_oracle(*case)


@given(few_step_doubles())
def test_differential_doubles_with_fewer_than_four_steps(case):
    assert_core_matches_oracle(*case)


@given(no_play_positions())
def test_differential_no_play(case):
    board, roll = case
    assert_core_matches_oracle(board, roll)
    plays = fastgen.legal_plays(board, roll)
    assert len(plays) == 1 and (plays.moves == -1).all()  # R14, by construction


@given(positions)
def test_differential_any_position(case):
    assert_core_matches_oracle(*case)


# --------------------------------------------------------------------------- batches


def _stack(cases):
    boards = np.array([b for b, _ in cases], dtype=np.int8).reshape(-1, 2, 25)
    rolls = np.array([d for _, d in cases], dtype=np.int8).reshape(-1, 2)
    return boards, rolls


batches = st.one_of(
    st.just([]),
    st.lists(positions, min_size=1, max_size=1),
    st.lists(positions, min_size=0, max_size=12),
)


@pytest.mark.parametrize("threads", [1, 2])
@given(cases=batches)
def test_plays_batch_equals_legal_plays(cases, threads):
    boards, rolls = _stack(cases)
    batch = fastgen.plays_batch(boards, rolls, threads=threads)
    assert len(batch) == len(cases)
    assert batch.offsets[0] == 0 and batch.offsets[-1] == batch.boards.shape[0]
    assert batch.moves.shape[0] == batch.boards.shape[0]
    for i, (board, roll) in enumerate(cases):
        single = fastgen.legal_plays(board, roll)
        got = batch[i]
        assert got.dice == (int(roll[0]), int(roll[1]))
        assert np.array_equal(got.boards, single.boards)  # same plays, same order
        assert np.array_equal(got.moves, single.moves)


@given(cases=batches)
def test_count_plays_batch_equals_counts(cases):
    boards, rolls = _stack(cases)
    counts = fastgen.count_plays_batch(boards, rolls)
    assert counts.shape == (len(cases),)
    expected = [len(reference.legal_plays(b, d)) for b, d in cases]
    assert counts.tolist() == expected
    assert fastgen.plays_batch(boards, rolls).counts.tolist() == expected


@given(with_dice(bearoff_boards()), st.booleans())
def test_count_plays_batch_bearoff(case, clear_home):
    """Bear-offs are counted by table when no opposing checker stands in the way (the
    mover's home cleared of them here half of the time)."""
    board, roll = case
    if clear_home:
        board = board.copy()
        board[0, 18:24] = 0  # the mover's home points 1..6 are the opponent's indices 23..18
    assert fastgen.count_plays_batch(board[None], [roll])[0] == len(reference.legal_plays(board, roll))


@given(with_dice(bar_boards()))
def test_count_plays_batch_bar(case):
    """A non-double from the bar is counted in closed form."""
    board, roll = case
    assert fastgen.count_plays_batch(board[None], [roll])[0] == len(reference.legal_plays(board, roll))


def test_count_plays_batch_every_bearoff_class():
    """Every home board of 0, 1 or 2+ checkers per point (the classes the bear-off table
    is keyed by), with several counts for 2+ and opponents behind, beside or in front of
    the mover's checkers, with all 21 rolls: the count equals the number of plays."""
    rng = np.random.default_rng(5)
    boards = []
    for key in range(3**6):
        classes = [(key // 3**i) % 3 for i in range(6)]
        for variant in range(4):
            mine = [0] * 25
            for i, k in enumerate(classes):
                mine[i] = k if k < 2 else int(rng.integers(2, 5))
            opp = [0] * 25
            opp[int(rng.integers(0, 18))] = 2  # outside the mover's home
            if variant >= 2:  # a blot or a point in the mover's home
                opp[23 - int(rng.integers(0, 6))] = variant - 1
            opp[0] += 1
            boards.append(assemble(mine, opp))
    rolls = np.array([(a, b) for a in range(1, 7) for b in range(1, 7)], dtype=np.int8)
    boards = np.repeat(np.array(boards), len(rolls), axis=0)
    dice = np.tile(rolls, (len(boards) // len(rolls), 1))
    np.testing.assert_array_equal(fastgen.count_plays_batch(boards, dice), fastgen.plays_batch(boards, dice).counts)


@pytest.mark.parametrize("die", [3, 4, 5, 6])
def test_count_plays_batch_every_bearoff_class_of_doubles(die):
    """Doubles of 3 and more in a bear-off are counted by class: the counts (up to 4)
    from the point of the die up, and the checkers below it (up to 4). Every class, with
    several counts for 4+ and layouts of the checkers below, opponents behind or in the
    mover's home: the count equals the number of plays."""
    rng = np.random.default_rng(die)
    top = list(range(die - 1, 6))
    boards = []
    for key in range(5 ** (len(top) + 1)):
        digits = [(key // 5**i) % 5 for i in range(len(top) + 1)]
        for variant in range(3):
            mine = [0] * 25
            for p, k in zip(top, digits[1:]):
                mine[p] = k if k < 4 else int(rng.integers(4, 7))
            for _ in range(digits[0] if digits[0] < 4 else int(rng.integers(4, 7))):
                mine[int(rng.integers(0, die - 1))] += 1
            if not 0 < sum(mine) <= 15:
                continue
            opp = [0] * 25
            opp[int(rng.integers(0, 18))] = 2
            if variant == 2:  # a blot or a point in the mover's home
                opp[23 - int(rng.integers(0, 6))] = int(rng.integers(1, 3))
            boards.append(assemble(mine, opp))
    boards = np.array(boards)
    dice = np.full((len(boards), 2), die, dtype=np.int8)
    np.testing.assert_array_equal(fastgen.count_plays_batch(boards, dice), fastgen.plays_batch(boards, dice).counts)


def test_count_plays_batch_one_checker_outside():
    """A non-double with one checker outside home is counted in closed form, the plays
    that bring it home and bear off with the other die added: home boards of every
    height, that checker anywhere outside, opponents anywhere (blots in the mover's home
    included), every non-double."""
    rng = np.random.default_rng(11)
    boards = []
    for _ in range(3000):
        mine = [0] * 25
        top = int(rng.integers(1, 7))
        for _ in range(int(rng.integers(0, 15))):
            mine[int(rng.integers(0, top))] += 1
        mine[int(rng.integers(6, 24)) if rng.random() < 0.7 else int(rng.integers(6, 12))] += 1
        opp = [0] * 25
        for _ in range(int(rng.integers(0, 6))):
            opp[int(rng.integers(0, 25))] += int(rng.integers(1, 3))
        boards.append(assemble(mine, opp))
    rolls = np.array([(a, b) for a in range(1, 7) for b in range(1, 7) if a != b], dtype=np.int8)
    boards = np.repeat(np.array(boards), len(rolls), axis=0)
    dice = np.tile(rolls, (len(boards) // len(rolls), 1))
    np.testing.assert_array_equal(fastgen.count_plays_batch(boards, dice), fastgen.plays_batch(boards, dice).counts)


def test_count_plays_batch_every_roll_of_game_positions():
    """Counting works the plays out in closed form where no bar and no bear-off can come
    into them (a non-double's whole turn, a double's last three steps): every roll of
    positions met in self-play (random and pubeval games) is counted as many plays as
    are written."""
    from fastgen.cli.workload import ROLLS, random_game_positions

    boards = np.concatenate([random_game_positions(1500, seed=s, policy=p)[0] for s, p in ((3, "random"), (4, "pubeval"))])
    boards = np.repeat(boards, len(ROLLS), axis=0)
    dice = np.tile(np.array(ROLLS, dtype=np.int8), (len(boards) // len(ROLLS), 1))
    np.testing.assert_array_equal(fastgen.count_plays_batch(boards, dice), fastgen.plays_batch(boards, dice).counts)


def test_empty_batch():
    boards, rolls = _stack([])
    assert boards.shape == (0, 2, 25) and rolls.shape == (0, 2)
    assert len(fastgen.plays_batch(boards, rolls)) == 0
    assert fastgen.count_plays_batch(boards, rolls).shape == (0,)
