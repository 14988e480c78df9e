"""fastgen's own networks looking ahead, compiled (fastgen.nets.lookahead.NetworkLookahead,
``Network.at_ply``, the specs ``baseline:N`` and ``PATH.npz:N``): held to a plain numpy
recursion over the 0-ply network (fastgen's generator; for each roll the network's greedy
play, ``Network.choose``, valued one ply shallower; a play bearing off the last checker
scored exactly).

The recursion shares nothing with the compiled search but the generator and the 0-ply
network, both checked elsewhere. The two add the same float32 probabilities in float64 in
another order, so they agree to 1e-9, far inside TOL; a choice taken differently (the
one way the search could be wrong and still close) moves a value by 1e-3 or more.
Ctrl-C at 2 and 3 plies: tests/test_interrupt.py (network-2-ply-2, network-3-ply-1).
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import fastgen
from fastgen.core.generate import plays_batch
from fastgen.errors import InvalidArgumentError, InvalidSpecError
from fastgen.nets import Network
from fastgen.nets.lookahead import MAX_PLIES, NetworkLookahead
from fastgen.players import evaluators, specs
from fastgen.players.search import PlainLookahead, Search, SearchPolicy

from _gnubg_positions import self_play

TOL = 1e-7
ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(a, 7)], np.int8)
WEIGHTS = np.where(ROLLS[:, 0] == ROLLS[:, 1], 1.0, 2.0)


def plain(net, board: np.ndarray, plies: int) -> np.ndarray:
    """The independent reference: probabilities of the side on roll (row 1) at *plies*."""
    if plies == 0 or not board[0].any() or not board[1].any():
        return net.evaluate(board[None]).astype(np.float64)[0]
    batch = plays_batch(np.repeat(board[None], 21, axis=0), ROLLS)
    picks = net.choose(batch.boards, batch.offsets)
    out = np.zeros(5)
    for r in range(21):
        after = batch.boards[batch.offsets[r] + picks[r]]
        if not after[1].any():  # the mover bore off its last checker: exact
            loser = after[0]
            gammon = loser.sum() == 15
            p = np.array([0.0, 0.0, 0.0, float(gammon), float(gammon and loser[18:25].sum() > 0)])
        else:
            p = plain(net, np.ascontiguousarray(after[::-1]), plies - 1)
        out += WEIGHTS[r] * np.array([1.0 - p[0], p[3], p[4], p[1], p[2]])
    return out / 36.0


@pytest.fixture(scope="module")
def net():
    return evaluators.baseline()


@pytest.fixture(scope="module")
def sample():
    """Positions of every stage (contact, race, bear-off) from games of mixed strength."""
    boards = self_play(7, 40, 0.3)
    rng = np.random.default_rng(3)
    return np.ascontiguousarray(boards[rng.choice(len(boards), 24, replace=False)])


def test_one_ply_equals_the_plain_recursion(net, sample):
    got = net.at_ply(1).evaluate(sample)
    want = np.array([plain(net, b, 1) for b in sample])
    assert np.abs(got - want).max() < TOL


def test_two_plies_equal_the_plain_recursion(net, sample):
    got = net.at_ply(2).evaluate(sample[:6], threads=2)
    want = np.array([plain(net, b, 2) for b in sample[:6]])
    assert np.abs(got - want).max() < TOL


def test_the_numpy_look_ahead_of_any_evaluator_agrees(net, sample):
    """PlainLookahead (numpy, for evaluators that are not compiled) over the network as a
    plain function: the same plays and values, to float64 rounding (4e-16 seen)."""
    slow = PlainLookahead(lambda boards: net.evaluate(boards), 1)
    assert np.abs(slow.evaluate(sample) - net.at_ply(1).evaluate(sample)).max() < 1e-9
    deep = PlainLookahead(lambda boards: net.evaluate(boards), 2)
    assert np.abs(deep.evaluate(sample[:3]) - net.at_ply(2).evaluate(sample[:3])).max() < 1e-9


def test_turned_boards_and_threads_give_the_same_answers(net, sample):
    one = net.at_ply(1)
    a = one.evaluate(sample, threads=1)
    b = one.evaluate(np.ascontiguousarray(sample[:, ::-1]), threads=2, turned=True)
    assert np.array_equal(a, b)


def test_a_bear_off_of_the_last_checkers_is_exact(net):
    """One checker each on the one-point: whatever the roll, the side on roll wins."""
    board = np.zeros((2, 25), np.int8)
    board[0, 0] = 1
    board[1, 0] = 1
    assert net.at_ply(1).evaluate(board[None])[0].tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]
    # and a gammon when the other side has borne off none, all still in its home board
    board[0, 0] = 15
    assert net.at_ply(2).evaluate(board[None])[0].tolist() == [1.0, 1.0, 0.0, 0.0, 0.0]


def test_a_three_output_network_looks_ahead_too():
    rng = np.random.default_rng(5)
    small = Network([rng.normal(0, 0.1, (198, 8)), rng.normal(0, 0.1, (8, 3))], [np.zeros(8), np.zeros(3)])
    board = fastgen.STARTING_BOARD
    assert np.abs(small.at_ply(1).evaluate(board[None])[0] - plain(small, board, 1)).max() < TOL


def test_at_ply_zero_is_the_network_and_out_of_range_is_refused(net):
    assert net.at_ply(0) is net
    for bad in (-1, MAX_PLIES + 1, True, 1.0):
        with pytest.raises(InvalidArgumentError, match="plies"):
            net.at_ply(bad)


def test_names_pickling_and_the_specs(net, tmp_path):
    two = net.at_ply(2)
    assert two.name == "baseline:2" and two.plies == 2
    again = pickle.loads(pickle.dumps(two))
    assert again.name == two.name and again.digest() == two.digest()
    assert specs.evaluator("baseline:1").name == "baseline:1"
    policy = specs.policy("baseline:2")
    assert isinstance(policy, SearchPolicy) and policy.search == Search.gnubg(2)
    path = tmp_path / "mine.npz"
    net.save(path)
    assert specs.evaluator(f"{path}:1").name == "mine.npz:1"
    assert specs.policy(f"{path}:0").name == specs.policy(str(path)).name
    with pytest.raises(InvalidSpecError, match="plies must be 0 to 3"):
        specs.evaluator("baseline:4")
    with pytest.raises(InvalidSpecError, match="no such weights file"):
        specs.evaluator(f"{tmp_path / 'missing.npz'}:1")
