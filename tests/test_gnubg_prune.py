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
