"""GNU Backgammon's 0-ply value of bear-off positions (fastgen.bearoff.gnubg_bearoff).

Each rule of fastgen.bearoff.gnubg has a named test on hand-built boards, with the values
gnubg-nn gives for them (these run without gnubg-nn, on databases built here, which are
gnubg's files byte for byte: tests/test_bearoff_gnubg.py). Then the whole bear-off class
against gnubg-nn's ``probabilities(board, 0)`` as a black box, with its own
gnubg_os0.bd and gnubg_ts0.bd: every pair of positions of 1 to 4 checkers a side, every
pair where the side on roll has 2 to 4 checkers and its opponent 7 or 8 (where the
32-bit products reach 2^31), every 15-checker position against one checker on the ace
point and the other way round, and random boards of every pair of sizes 1..15 x 1..15;
all five outputs equal to the bit. Those are skipped, with the reason shown, when gnubg-nn
is not installed.
"""

from __future__ import annotations

import itertools
import time
from pathlib import Path

import numpy as np
import pytest

from fastgen import bearoff
from fastgen.bearoff import gnubg_bearoff, first_checker_distributions, position_index
from fastgen.errors import InvalidArgumentError, OutsideDatabaseError

TOL = 1e-6


@pytest.fixture(scope="module")
def one_sided():
    return bearoff.build_one_sided(6)


@pytest.fixture(scope="module")
def two_sided():
    return bearoff.build_two_sided(6, 6)


def board(me, opp) -> np.ndarray:
    """A (1, 2, 25) batch: *me* (on roll) and *opp* as checkers on points 1, 2, ..."""
    b = np.zeros((1, 2, 25), np.int8)
    b[0, 1, : len(me)] = me
    b[0, 0, : len(opp)] = opp
    return b


def f32(x: float) -> float:
    return float(np.float32(x))


# ------------------------------------------------------------------ the rules, one by one


def test_two_sided_win_is_computed_in_float32(one_sided, two_sided):
    # six on my 5-point against one on its 4-point: stored 45, gnubg's float32 formula
    # gives 0.0006866455078125, not the float32 of the exact 45 / 65535
    b = board([0, 0, 0, 0, 6], [0, 0, 0, 1])
    assert two_sided.values[position_index([0, 0, 0, 0, 6, 0]), position_index([0, 0, 0, 1, 0, 0]), 0] == 45
    out = gnubg_bearoff(b, one_sided, two_sided)[0]
    assert out.tolist() == [0.0006866455078125, 0.0, 0.0, 0.0, 0.0]
    assert out[0] != f32(45 / 65535)
    # without the two-sided database the one-sided one decides
    assert gnubg_bearoff(b, one_sided)[0, 0] == f32(bearoff.evaluate(b, one_sided)[0, 0])


def test_one_sided_win_is_the_exact_sum_rounded_to_float32(one_sided):
    b = board([0, 2, 1], [7])
    exact = bearoff.evaluate(b, one_sided)[0, 0]
    assert exact == 1 - 202 * 1821 / 65535**2   # 2-1 twice against two doubles
    assert gnubg_bearoff(b, one_sided)[0].tolist() == [f32(exact), 0.0, 0.0, 0.0, 0.0]


@pytest.mark.parametrize("me, opp, exact", [
    ([1, 0, 2], [7], 0.9999143524966426),                    # A_2 x B_4 = 58051 x 37924
    ([1, 1, 1, 1, 1], [2, 2, 1, 1, 1], 0.9715167164494147),  # 5 on points 1-5 against 7
    ([1, 1, 1, 1, 1], [1, 2, 2, 0, 2], 0.9825139150678557),
    ([0, 0, 0, 0, 2], [2, 2, 1, 0, 2], 0.9990831706277694),
])
def test_a_product_reaching_2_to_the_31_is_a_certain_win(one_sided, me, opp, exact):
    b = board(me, opp)
    assert bearoff.evaluate(b, one_sided)[0, 0] == pytest.approx(exact, abs=1e-15)
    a, _ = one_sided.stored(position_index(np.pad(me, (0, 6 - len(me)))))
    o, _ = one_sided.stored(position_index(np.pad(opp, (0, 6 - len(opp)))))
    products = a[0].astype(np.int64)[:, None] * o[0].astype(np.int64)[None, :]
    assert np.triu(products).max() >= 2**31
    assert gnubg_bearoff(b, one_sided)[0].tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]


def test_a_product_just_below_2_to_the_31_is_not(one_sided):
    # A_2 = 56231 against B_4 = 37924: 2,132,504,444 < 2^31, the sum stands
    b = board([0, 2, 1], [7])
    a, _ = one_sided.stored(position_index([0, 2, 1, 0, 0, 0]))
    o, _ = one_sided.stored(position_index([7, 0, 0, 0, 0, 0]))
    assert int(a[0, 2]) * int(o[0, 4]) == 2_132_504_444
    assert gnubg_bearoff(b, one_sided)[0, 0] < 1.0


def test_a_late_product_for_the_opponent_does_not_count(one_sided):
    # terms with the opponent finishing first (j < i) reach 2^31 without effect: seven
    # on the ace against one on the 4-point
    b = board([7], [0, 0, 0, 1])
    a, _ = one_sided.stored(position_index([7, 0, 0, 0, 0, 0]))
    o, _ = one_sided.stored(position_index([0, 0, 0, 1, 0, 0]))
    products = a[0].astype(np.int64)[:, None] * o[0].astype(np.int64)[None, :]
    assert np.tril(products, -1).max() >= 2**31 and np.triu(products).max() < 2**31
    assert gnubg_bearoff(b, one_sided)[0, 0] == f32(bearoff.evaluate(b, one_sided)[0, 0])


def test_gammons_use_the_exact_first_checker_distribution(one_sided):
    # 15 checkers (4 3 0 4 0 4) on roll fail to bear one off with 5-3 and 5-5 only: they
    # lose a gammon to one checker on the ace with 3/36 exactly (the stored distribution
    # says 5462/65535)
    fifteen = [4, 3, 0, 4, 0, 4]
    out = gnubg_bearoff(board(fifteen, [1]), one_sided)[0]
    assert out.tolist() == [0.0, 0.0, 0.0, f32(3 / 36), 0.0]
    assert bearoff.evaluate(board(fifteen, [1]), one_sided)[0, 3] == pytest.approx(5462 / 65535, abs=1e-12)
    # and the other way round: three on the ace win a gammon unless they need two turns
    # and the opponent then bears one off: 10923/65535 + 54612/65535 x 3/36
    out = gnubg_bearoff(board([3], fifteen), one_sided)[0]
    assert out[0] == 1.0
    assert out[1] == f32(10923 / 65535 + 54612 / 65535 * 3 / 36)


def test_first_checker_distributions():
    dist = first_checker_distributions()
    assert dist.shape == (15504, 32) and not dist.flags.writeable
    assert np.allclose(dist.sum(axis=1), 1.0, atol=1e-12)
    assert (dist[:, 5:] == 0).all()   # a first checker later than turn 4 counts at turn 4
    start = bearoff.n_positions(6, 14)
    # fifteen on the 6-point: any 6, 5-1, 4-2, 3-3 and 2-2 bear one off: 17 of 36; 19/36
    # fail once, 101/1296 twice, 433/36^3 three times
    row = dist[position_index([0, 0, 0, 0, 0, 15]) - start]
    assert row[1] == pytest.approx(17 / 36, abs=1e-15)
    assert row[2:].sum() == pytest.approx(19 / 36, abs=1e-15)
    assert row[3:].sum() == pytest.approx(101 / 36**2, abs=1e-15)
    assert row[4] == pytest.approx(433 / 36**3, abs=1e-15)
    # the stored distributions are the same play rounded to 1/65535 step by step, up to the
    # 4th turn, but where the 2-2 exception below counts (those positions and some that
    # lead to them)
    _, stored = bearoff.build_one_sided(6).stored(np.arange(start, start + 15504))
    diff = np.abs(np.cumsum(dist[1:, :4], axis=1) - np.cumsum(stored[1:, :4], axis=1) / 65535).max(axis=1)
    assert (diff < 3e-5).mean() > 0.99 and diff.max() < 0.03
    assert first_checker_distributions() is dist   # computed once


def test_first_checker_after_turn_4_counts_at_turn_4(one_sided):
    # fifteen on the 6-point on roll lose a gammon to 13 on the ace (4 to 7 turns) with
    # sum_j B_j P(G > j), where P(G > 4) is taken as 0 (1777/36^4 in truth)
    dist = first_checker_distributions()[position_index([0, 0, 0, 0, 0, 15]) - bearoff.n_positions(6, 14)]
    b, _ = one_sided.stored(position_index([13, 0, 0, 0, 0, 0]))
    b = b[0] / 65535
    lg = sum(b[j] * dist[j + 1:].sum() for j in range(32))
    assert b[4] > 0.01 and dist[5:].sum() == 0
    assert abs(lg - (lg + b[4] * 1777 / 36**4)) > 1e-5   # what the later turns would add
    assert gnubg_bearoff(board([0, 0, 0, 0, 0, 15], [13]), one_sided)[0, 3] == f32(lg)


def test_fifteen_on_the_ace_point_cannot_be_gammoned(one_sided):
    # one checker against fifteen on the opponent's ace point: a certain gammon, which
    # gnubg-nn gives as none
    assert gnubg_bearoff(board([1], [15]), one_sided)[0].tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]
    assert bearoff.evaluate(board([1], [15]), one_sided)[0, 1] == 1.0
    assert first_checker_distributions()[0, 0] == 1.0


@pytest.mark.parametrize("k", [0, 6, 11])
def test_two_two_bears_off_from_points_1_and_3(one_sided, k):
    # (k 0 15-k): 2-2 moves four checkers 3/1 and bears none off, yet gnubg-nn counts it
    # as a checker off: no gammon against one checker on the ace
    assert gnubg_bearoff(board([k, 0, 15 - k], [1]), one_sided)[0].tolist() == [0.0] * 5
    assert bearoff.evaluate(board([k, 0, 15 - k], [1]), one_sided)[0, 3] == pytest.approx(1 / 36, abs=1e-4)


def test_gammons_below_1e_4_are_zero(one_sided):
    # 8 checkers need two doubles (101/65535, then 51/65535...) to be off in two turns,
    # when the opponent's 15 (4 3 1 0 6 1) fail to bear one off with 4-4 only: 4.3e-5 -> 0
    fifteen = [4, 3, 1, 0, 6, 1]
    small = board([0, 0, 0, 3, 2, 3], fifteen)
    assert bearoff.evaluate(small, one_sided)[0, 1] == pytest.approx(101 / 65535 / 36, rel=0.01)
    assert gnubg_bearoff(small, one_sided)[0].tolist() == [f32(bearoff.evaluate(small, one_sided)[0, 0]), 0, 0, 0, 0]
    # 8 checkers low (4 4) do it with 1770/65535: 7.5e-4 stays
    kept = gnubg_bearoff(board([4, 4], fifteen), one_sided)[0]
    assert kept[1] == f32(1770 / 65535 / 36)


def test_no_backgammons(one_sided, two_sided):
    rng = np.random.default_rng(3)
    out = gnubg_bearoff(random_boards(rng, 500), one_sided, two_sided)
    assert (out[:, [2, 4]] == 0).all()
    assert ((out >= 0) & (out <= 1)).all()
    assert (out == out.astype(np.float32)).all()


def test_outside_the_bear_off_class_raises(one_sided):
    b = np.concatenate([board([1], [1]), board([1], [0, 0, 0, 0, 0, 0, 1]), board([], [3])])
    with pytest.raises(OutsideDatabaseError, match="board 1 .*not a bear-off position"):
        gnubg_bearoff(b, one_sided)
    with pytest.raises(OutsideDatabaseError, match="board 0 "):
        gnubg_bearoff(b[2:], one_sided)
    assert gnubg_bearoff(b[:1], one_sided).shape == (1, 5)
    with pytest.raises(InvalidArgumentError, match="6 points"):
        gnubg_bearoff(b[:1], bearoff.build_one_sided(4))
    with pytest.raises(InvalidArgumentError, match="TwoSidedDatabase"):
        gnubg_bearoff(b[:1], one_sided, one_sided)


def test_two_sided_database_is_used_where_both_sides_fit(one_sided, two_sided):
    rng = np.random.default_rng(5)
    b = random_boards(rng, 300, top=6)
    got = gnubg_bearoff(b, one_sided, two_sided)
    assert np.allclose(got[:, 0], bearoff.evaluate(b, two_sided)[:, 0], atol=1e-7, rtol=0)
    assert (got[:, 1:] == 0).all()


# ------------------------------------------------------------------ against gnubg-nn


def sides(n: int) -> np.ndarray:
    """Every position of n >= 1 checkers on 6 points, (k, 6) int8."""
    return np.array([np.bincount(c, minlength=6) for c in itertools.combinations_with_replacement(range(6), n)],
                    np.int8)


def pairs(me: np.ndarray, opp: np.ndarray) -> np.ndarray:
    b = np.zeros((len(me) * len(opp), 2, 25), np.int8)
    b[:, 1, :6] = np.repeat(me, len(opp), axis=0)
    b[:, 0, :6] = np.tile(opp, (len(me), 1))
    return b


def random_boards(rng, n: int, top: int = 15) -> np.ndarray:
    b = np.zeros((n, 2, 25), np.int8)
    for k in range(n):
        for side in range(2):
            b[k, side, :6] = np.bincount(rng.integers(0, 6, rng.integers(1, top + 1)), minlength=6)
    return b


@pytest.fixture(scope="module")
def gnubg_nn():
    return pytest.importorskip("gnubg_nn", reason="gnubg-nn not installed: pip install '.[peers]'")


@pytest.fixture(scope="module")
def gnubg_databases(gnubg_nn):
    data = Path(gnubg_nn.__file__).parent / "data"
    return bearoff.read_gnubg(data / "gnubg_os0.bd"), bearoff.read_gnubg(data / "gnubg_ts0.bd")


def compare(gnubg_nn, dbs, boards: np.ndarray, what: str) -> None:
    from fastgen.nets import _gnubg

    assert (_gnubg.classify(boards) == _gnubg.BEAROFF).all(), what
    want = np.array([gnubg_nn.probabilities(b.tolist(), 0) for b in boards])
    got = gnubg_bearoff(boards, *dbs)
    diff = np.abs(got - want)
    worst = int(diff.max(axis=1).argmax())
    detail = f"{what}: largest difference {diff.max(axis=0).tolist()} at {boards[worst, :, :6].tolist()}: " \
             f"{got[worst].tolist()} against {want[worst].tolist()}"
    assert diff.max() <= TOL, detail
    assert np.array_equal(got, want), detail   # float32 values, to the bit


def test_gnubg_nn_every_pair_of_up_to_4_checkers(gnubg_nn, gnubg_databases):
    small = np.concatenate([sides(n) for n in range(1, 5)])
    compare(gnubg_nn, gnubg_databases, pairs(small, small), "1-4 checkers a side")


def test_gnubg_nn_every_pair_of_2_to_4_against_7_or_8(gnubg_nn, gnubg_databases):
    me = np.concatenate([sides(n) for n in (2, 3, 4)])
    for n in (7, 8):
        compare(gnubg_nn, gnubg_databases, pairs(me, sides(n)), f"2-4 checkers against {n}")


def test_gnubg_nn_every_15_checker_position_against_one_checker(gnubg_nn, gnubg_databases):
    fifteen, ace = sides(15), sides(1)[:1]
    compare(gnubg_nn, gnubg_databases, pairs(fifteen, ace), "15 checkers on roll, one on the ace")
    compare(gnubg_nn, gnubg_databases, pairs(ace, fifteen), "one on the ace on roll, 15 checkers")


def test_gnubg_nn_random_boards_of_every_size(gnubg_nn, gnubg_databases):
    rng = np.random.default_rng(2026)
    table = {n: sides(n) for n in range(1, 16)}
    parts = []
    for n_me, n_opp in itertools.product(range(1, 16), repeat=2):
        b = np.zeros((30, 2, 25), np.int8)
        b[:, 1, :6] = table[n_me][rng.integers(0, len(table[n_me]), 30)]
        b[:, 0, :6] = table[n_opp][rng.integers(0, len(table[n_opp]), 30)]
        parts.append(b)
    compare(gnubg_nn, gnubg_databases, np.concatenate(parts), "30 random boards of each pair of sizes")


@pytest.mark.parametrize("with_two_sided", [True, False])
def test_the_compiled_nets_give_these_values_to_the_bit(one_sided, two_sided, with_two_sided):
    """gnubg's compiled evaluation (fastgen.nets.gnubg) values bear-offs in C: the same bits
    as this module's numpy rules on every pair of sizes, with gammons (15 checkers) and
    without a two-sided database too; and turned boards read the same."""
    from fastgen.errors import GnubgWeightsNotFoundError
    from fastgen.nets import gnubg
    from fastgen.nets.gnubg_weights import find_weights, read_weights

    try:
        weights = read_weights(find_weights())
    except GnubgWeightsNotFoundError as exc:
        pytest.skip(f"no GNU Backgammon weights found ({exc}): pip install '.[peers]' or apt-get install gnubg")
    two = two_sided if with_two_sided else None
    nets = gnubg.GnubgNetworks(weights, one_sided, two)
    rng = np.random.default_rng(7)
    table = {n: sides(n) for n in range(1, 16)}
    parts = []
    for n_me, n_opp in itertools.product(range(1, 16), repeat=2):
        b = np.zeros((12, 2, 25), np.int8)
        b[:, 1, :6] = table[n_me][rng.integers(0, len(table[n_me]), 12)]
        b[:, 0, :6] = table[n_opp][rng.integers(0, len(table[n_opp]), 12)]
        parts.append(b)
    boards = np.concatenate(parts + [pairs(sides(15), sides(1)), pairs(sides(1), sides(15))])
    want = gnubg_bearoff(boards, one_sided, two)
    fifteen = (boards.sum(axis=2) == 15).any(axis=1)
    # the gammons' table is computed the first time a bear-off of 15 checkers needs it
    assert not nets._kernel.has_first
    assert np.array_equal(nets.evaluate(boards[~fifteen]), want[~fifteen]) and not nets._kernel.has_first
    got = nets.evaluate(boards)
    assert nets._kernel.has_first
    assert (want[:, 1] > 0).sum() > 100 and (want[:, 3] > 0).sum() > 100   # gammons both ways
    assert np.array_equal(got, want)
    assert np.array_equal(nets.evaluate(np.ascontiguousarray(boards[:, ::-1]), turned=True), want)


def test_speed_of_a_batch(one_sided, two_sided):
    rng = np.random.default_rng(11)
    b = random_boards(rng, 10_000)
    gnubg_bearoff(b[:10], one_sided, two_sided)   # the first-checker table, once
    start = time.perf_counter()
    gnubg_bearoff(b, one_sided, two_sided)
    per = (time.perf_counter() - start) / len(b)
    assert per < 50e-6, f"{per * 1e6:.1f} us a position"


def _first_checker_numpy():
    """The first-checker distributions written plainly over fastgen's generator
    (plays_batch), level by level of pips (a play that bears nothing off lowers the pip
    count, so every child is done before its parent): the reference the compiled table
    is held to."""
    from fastgen.core.generate import plays_batch

    rolls = np.array([(a, b) for a in range(1, 7) for b in range(a, 7)], dtype=np.int8)
    weight = np.where(rolls[:, 0] == rolls[:, 1], 1.0, 2.0) / 36.0
    two_two = int(np.nonzero((rolls[:, 0] == 2) & (rolls[:, 1] == 2))[0][0])
    start = bearoff.n_positions(6, 14)
    count = bearoff.n_positions(6, 15) - start
    positions = bearoff.index_position(np.arange(start, start + count), 6)
    dist = np.zeros((count, 32))
    mean = np.full(count, np.inf)
    pips = positions.astype(np.int64) @ np.arange(1, 7)
    for level in np.unique(pips):
        rows = np.nonzero(pips == level)[0]
        n = rows.shape[0]
        boards = np.zeros((n * 21, 2, 25), np.int8)
        boards[:, 1, :6] = np.repeat(positions[rows], 21, axis=0)
        boards[:, 0, 0] = 15
        batch = plays_batch(boards, np.tile(rolls, (n, 1)))
        kids = batch.boards[:, 1, :6]
        group = np.repeat(np.arange(n * 21), batch.counts)
        full = kids.sum(axis=1, dtype=np.int64) == 15
        bears = np.zeros(n * 21, bool)
        np.logical_or.at(bears, group, ~full)
        only_1_3 = (positions[rows][:, [1, 3, 4, 5]] == 0).all(axis=1)
        bears.reshape(n, 21)[only_1_3, two_two] = True
        kid_mean = np.full(kids.shape[0], np.inf)
        kid_row = np.full(kids.shape[0], -1, np.int64)
        if full.any():
            kid_row[full] = position_index(kids[full]).astype(np.int64) - start
            kid_mean[full] = mean[kid_row[full]]
        best = np.full(n * 21, np.inf)
        np.minimum.at(best, group, kid_mean)
        hit = np.nonzero(full & (kid_mean == best[group]))[0]
        groups, first = np.unique(group[hit], return_index=True)
        chosen = np.full(n * 21, -1, np.int64)
        chosen[groups] = kid_row[hit[first]]
        per_roll = np.zeros((n * 21, 32))
        per_roll[bears, 1] = 1.0
        later = ~bears
        per_roll[later, 1:] = dist[chosen[later], :-1]
        out = (per_roll.reshape(n, 21, 32) * weight[None, :, None]).sum(axis=1)
        out[:, 4] += out[:, 5:].sum(axis=1)
        out[:, 5:] = 0.0
        dist[rows] = out
        mean[rows] = out @ np.arange(32, dtype=np.float64)
    dist[0] = 0.0
    dist[0, 0] = 1.0
    return dist


def test_first_checker_distributions_equal_a_numpy_loop():
    """The compiled table against the same rule written with numpy over fastgen's
    generator, in another order (by pips, not by number), bit for bit."""
    assert np.array_equal(first_checker_distributions(), _first_checker_numpy())
