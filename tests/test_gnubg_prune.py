"""GNU Backgammon's pruning nets compiled (fastgen.nets.gnubg.GnubgNetworks.pruning): the
three small nets of the weights file (200 inputs, the base units; 16 hidden units for
contact and crashed positions, 8 for races) that gnubg's search uses to pass over plays
cheaply, held to gnubg-nn's ``probabilities(board, p_prune)`` (a black box) within 1e-6
on positions of every class they apply to.

What the comparison found: the outputs are the net's own, uncorrected, but for a race's,
whose backgammon chances come from the race backgammon estimate and whose certain wins
and losses are set, as after the full race net; no clamp, no 1e-4 floor, no straggler
test. Finished games and bear-offs have no pruning net (NaN). Skipped, with the reason
shown, when gnubg-nn or a weights file is missing (CI installs both).
"""

from __future__ import annotations

import numpy as np
import pytest

from fastgen.errors import GnubgWeightsNotFoundError, InvalidBoardError
from fastgen.nets import gnubg

from _gnubg_positions import self_play

gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg-nn not installed: pip install '.[peers]'")


@pytest.fixture(scope="module")
def nets():
    try:
        return gnubg.load()
    except GnubgWeightsNotFoundError as exc:
        pytest.skip(f"no GNU Backgammon weights found: {exc}")


def test_equal_to_gnubg_nn_s_pruning_evaluation(nets):
    boards = self_play(5, 400, 0.3)
    classes = nets.classify(boards)
    rng = np.random.default_rng(4)
    for c in (2, 3, 4):
        rows = rng.choice(np.flatnonzero(classes == c), 1500, replace=False)
        got = nets.pruning(boards[rows])
        want = np.array([gnubg_nn.probabilities(b, gnubg_nn.p_prune) for b in boards[rows].tolist()])
        diff = np.abs(got - want).max(axis=1)
        assert diff.max() <= 1e-6, (gnubg.CLASSES[c], boards[rows[diff.argmax()]].tolist())
        # not the full nets: the search's cheap first look differs from them
        assert np.abs(got - nets.evaluate(boards[rows])).max() > 1e-2
    # the races' corrections were needed: some certain wins or losses, some backgammon estimates
    races = boards[classes == 2]
    assert (nets.pruning(races)[:, 0] == 1.0).any() or (nets.pruning(races)[:, 0] == 0.0).any()


def test_no_pruning_net_for_finished_games_and_bear_offs_and_turned_boards(nets):
    boards = self_play(6, 60, 0.3)
    classes = nets.classify(boards)
    out = nets.pruning(boards)
    assert np.isnan(out[classes <= 1]).all() and np.isfinite(out[classes >= 2]).all()
    assert np.array_equal(nets.pruning(np.ascontiguousarray(boards[:, ::-1]), turned=True), out, equal_nan=True)
    with pytest.raises(InvalidBoardError):
        nets.pruning(np.full((1, 2, 25), 3, np.int8))


def test_the_pruned_choice_keeps_the_best_by_the_corrected_pruning_nets(nets):
    """``pruned``: a roll of k plays, more than 5 + floor(log2(k)), all of one class with a
    pruning net, keeps that many best by the weighted pruning outputs (here a match's
    prices, one row a roll); other rolls keep all. Held to numpy doing the same."""
    from fastgen.core.boards import DISTINCT_ROLLS
    from fastgen.core.generate import plays_batch
    from fastgen.errors import InvalidArgumentError

    boards = self_play(7, 30, 0.3)
    rng = np.random.default_rng(5)
    start = boards[rng.choice(np.flatnonzero(nets.classify(boards) >= 2), 12, replace=False)]
    start = np.concatenate([start, start[:3]])  # equal boards: the pass values each distinct play once
    batch = plays_batch(np.repeat(start, 21, axis=0), np.tile(np.asarray(DISTINCT_ROLLS, np.int8), (15, 1)))
    after, offsets = np.asarray(batch.boards), np.asarray(batch.offsets, dtype=np.int64)
    from fastgen.core import _features
    assert (_features.first_equal(after) < np.arange(after.shape[0])).mean() > 0.2  # many plays repeat
    prices = rng.uniform(0.5, 1.5, size=(offsets.size - 1, 4))
    got = nets.pruned(after, offsets, prices, turned=True)
    assert np.array_equal(nets.pruned(after, offsets, prices, turned=True, threads=2), got)
    assert np.array_equal(nets.pruned(np.ascontiguousarray(after[:, ::-1]), offsets, prices), got)
    turned = np.ascontiguousarray(after[:, ::-1])
    p = nets.pruning(turned, corrected=True)
    classes = nets.classify(turned)
    cut = 0
    for g in range(offsets.size - 1):
        lo, hi = offsets[g], offsets[g + 1]
        k = hi - lo
        keep = 5 + int(np.floor(np.log2(k))) if k else 0
        if k <= keep or len(set(classes[lo:hi].tolist())) > 1 or classes[lo] < 2:
            assert got[lo:hi].all(), g
            continue
        gw, bw, gl, bl = prices[g]
        q = p[lo:hi]
        value = 1 - 2 * q[:, 0] + gw * q[:, 3] + bw * q[:, 4] - gl * q[:, 1] - bl * q[:, 2]
        want = np.zeros(k, dtype=bool)
        want[np.argsort(-value, kind="stable")[:keep]] = True
        assert np.array_equal(got[lo:hi], want), g
        cut += 1
    assert cut >= 20
    with pytest.raises(InvalidArgumentError, match="offsets"):
        nets.pruned(after, offsets[:-1], prices[:-1], turned=True)
    with pytest.raises(InvalidArgumentError, match="prices"):
        nets.pruned(after, offsets, prices[:, :3], turned=True)
    with pytest.raises(InvalidArgumentError, match="least"):
        nets.pruned(after, offsets, prices, turned=True, least=0)


def test_every_instruction_set_gives_the_same_pruning_bits(nets):
    """The pruning nets read the base units straight from the board and sum their 16 or
    8 hidden units in a masked vector: every instruction set gives the same bits."""
    from fastgen.nets import _gnubg_eval

    boards = self_play(7, 200, 0.3)
    best = _gnubg_eval.select_kernels()
    try:
        results = []
        for level in range(best + 1):
            _gnubg_eval.select_kernels(level)
            results.append(nets.pruning(boards, corrected=True))
    finally:
        _gnubg_eval.select_kernels()
    assert np.isfinite(results[0]).any()
    for r in results[1:]:
        assert np.array_equal(r, results[0], equal_nan=True)
