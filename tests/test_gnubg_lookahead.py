"""GNU Backgammon's 1-ply evaluation compiled (fastgen.nets.gnubg.GnubgLookahead,
``gnubg:1``): held to gnubg-nn's ``probabilities(board, 1)`` within 1e-6 on positions of
every class, and to a plain numpy loop over the 0-ply nets (fastgen's generator, every
play valued, the best kept, averaged over the 36 dice) to rounding. Skipped, with the
reason shown, when gnubg-nn or a weights file is missing (CI installs both).
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import fastgen
from fastgen.core.generate import plays_batch
from fastgen.errors import GnubgWeightsNotFoundError, InvalidArgumentError, InvalidBoardError
from fastgen.nets import gnubg
from fastgen.players import evaluators

from _gnubg_positions import self_play

gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg-nn not installed: pip install '.[peers]'")

TOL = 1e-6
PER_CLASS = 300
ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(a, 7)], np.int8)
WEIGHTS = np.where(ROLLS[:, 0] == ROLLS[:, 1], 1.0, 2.0)


@pytest.fixture(scope="module")
def nets():
    try:
        return gnubg.load()
    except GnubgWeightsNotFoundError as exc:
        pytest.skip(f"no GNU Backgammon weights found: {exc}")


@pytest.fixture(scope="module")
def sample(nets):
    """PER_CLASS positions of each class but over, the bear-offs split between those
    both sides of which fit the two-sided database and the others."""
    boards = self_play(21, 150, 0.3)
    classes = nets.classify(boards)
    two = (classes == 1) & (boards.sum(axis=2) <= 6).all(axis=1)
    rng = np.random.default_rng(5)
    groups = {"two-sided bear-off": two, "one-sided bear-off": (classes == 1) & ~two, "race": classes == 2,
              "crashed": classes == 3, "contact": classes == 4}
    picked = {}
    for name, mask in groups.items():
        rows = np.flatnonzero(mask)
        assert len(rows) >= 50, (name, len(rows))
        picked[name] = np.ascontiguousarray(boards[rng.choice(rows, min(PER_CLASS, len(rows)), replace=False)])
    return picked


def plain_one_ply(nets, board: np.ndarray) -> np.ndarray:
    """The independent reference: numpy over the generator's plays and the 0-ply nets."""
    batch = plays_batch(np.repeat(board[None], 21, axis=0), ROLLS)
    theirs = nets.evaluate(batch.boards, turned=True)
    mine = -(2.0 * theirs[:, 0] + theirs[:, 1] + theirs[:, 2] - theirs[:, 3] - theirs[:, 4] - 1.0)
    out = np.zeros(5)
    for r in range(21):
        lo, hi = batch.offsets[r], batch.offsets[r + 1]
        p = theirs[lo + int(np.argmax(mine[lo:hi]))]
        out += WEIGHTS[r] * np.array([1.0 - p[0], p[3], p[4], p[1], p[2]])
    return out / 36.0


def test_equal_to_gnubg_nn_at_1_ply_on_every_class(nets, sample):
    """Within 1e-6 of gnubg-nn on every output of every position; the largest
    difference per class is printed (run with -s). Bear-offs in the two-sided database
    keep their exact 0-ply value, as gnubg-nn does."""
    ahead = nets.at_ply(1, prune=False)
    for name, boards in sample.items():
        got = ahead.evaluate(boards)
        want = np.array([gnubg_nn.probabilities(b, 1) for b in boards.tolist()])
        diff = np.abs(got - want).max(axis=1)
        worst = int(diff.argmax())
        print(f"\n{name}: {len(boards)} positions, largest difference {diff.max():.2e}")
        assert diff.max() <= TOL, (name, boards[worst].tolist(), got[worst].tolist(), want[worst].tolist())
        if name == "two-sided bear-off":
            assert np.array_equal(got, nets.evaluate(boards))
        else:   # the look ahead changes the value
            assert np.abs(got - nets.evaluate(boards)).max() > 1e-4, name


def test_equal_to_a_plain_numpy_loop_for_any_threads_and_turned_boards(nets, sample):
    ahead = nets.at_ply(1, prune=False)
    boards = np.concatenate([b[:40] for name, b in sample.items() if name != "two-sided bear-off"])
    want = np.array([plain_one_ply(nets, b) for b in boards])
    got = ahead.evaluate(boards)
    assert np.allclose(got, want, rtol=0, atol=1e-12)
    assert np.array_equal(ahead.evaluate(boards, threads=2), got)
    assert np.array_equal(ahead.evaluate(np.ascontiguousarray(boards[:, ::-1]), turned=True), got)


def test_gnubg_1_names_it_everywhere_an_evaluator_is_taken(nets, monkeypatch):
    ev = evaluators.gnubg(1)
    assert isinstance(ev, gnubg.GnubgLookahead) and ev.name == "gnubg:1"
    assert isinstance(fastgen.players.specs.evaluator("gnubg:1"), gnubg.GnubgLookahead)
    b = fastgen.STARTING_BOARD[None]
    again = pickle.loads(pickle.dumps(ev))
    assert again.digest() == ev.digest() != nets.digest()
    assert np.array_equal(again.evaluate(b), ev.evaluate(b))
    assert ev.cube_version == nets.cube_version
    with pytest.raises(InvalidBoardError):
        ev.evaluate(np.zeros((1, 2, 25), np.int8) + 3)
    with pytest.raises(InvalidArgumentError, match="plies=4"):
        nets.at_ply(4)

    def missing(*args, **kwargs):
        raise GnubgWeightsNotFoundError("no weights here (test)")

    monkeypatch.setattr(gnubg, "load", missing)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fallback = evaluators.gnubg(1)
    assert isinstance(fallback, evaluators.GnubgNNEvaluator) and fallback.name == "gnubg:1"
    assert any(issubclass(w.category, evaluators.GnubgFallbackWarning) and "gnubg:1" in str(w.message)
               for w in caught)
