"""Greedy games of a compiled network played whole inside the core
(``fastgen.rollout(policy=net)``, ``fastgen.duel(net, ...)``), held to the batched pool loop (``engine="python"``: one
``plays_batch`` and one ``choose`` call per turn) and to a plain loop written here:
``plays_batch`` of one position, a float64 numpy forward pass, argmax.

The plain loop is independent of the compiled code but for the generator and the dice
hash, so a game may leave it only where its two best plays are within 1e-5 of each other
(the compiled network computes in float32: see tests/test_nets.py); each such game is
counted and shown to be a near-tie at the turn it leaves the loop."""

from __future__ import annotations

import numpy as np
import pytest

import fastgen
import fastgen.nets.probs
from fastgen.players import evaluators as ev
from fastgen.core import _core
from fastgen.sim import _play
from fastgen.core.features import encode
from fastgen.core.hashing import OPENING_DICE, roll_dice
from fastgen.errors import InvalidArgumentError
from fastgen.nets import Network

from _td40 import td40

START = fastgen.STARTING_BOARD


def _net(sizes, seed, inputs=("tesauro198",)):
    rng = np.random.default_rng(seed)
    ws = [rng.normal(0, 1 / np.sqrt(a), (a, b)) for a, b in zip(sizes, sizes[1:])]
    bs = [rng.normal(0, 0.1, b) for b in sizes[1:]]
    return ws, bs, Network(ws, bs, inputs=inputs)


def _same(a, b):
    return (np.array_equal(a.winner, b.winner) and np.array_equal(a.result, b.result)
            and np.array_equal(a.turns, b.turns))


@pytest.mark.parametrize("sizes", [(198, 16, 5), (198, 24, 3), (198, 12, 9, 5)])
def test_native_games_equal_the_pool_loop(sizes):
    _, _, net = _net(sizes, seed=3)
    native = fastgen.rollout(games=300, policy=net, seed=11, engine="native")
    pool = fastgen.rollout(games=300, policy=net, seed=11, engine="python")
    assert _same(native, pool)
    assert "native" in native.timings and "policy" in pool.timings  # each engine really ran
    # "auto" plays a compiled network natively; threads and ranges change nothing
    auto = fastgen.rollout(games=300, policy=net, seed=11, threads=2, batch_size=23)
    assert _same(auto, pool) and "native" in auto.timings


def test_native_games_from_start_positions_and_a_slice():
    _, _, net = _net((198, 16, 5), seed=4)
    rng = np.random.default_rng(0)
    starts = fastgen.pubeval_best(np.repeat(START[None], 5, axis=0), rng.integers(1, 7, size=(5, 2)))
    starts = np.ascontiguousarray(starts[:, ::-1])  # the other side on roll
    a = fastgen.rollout(games=100, policy=net, start=starts, seed=2, engine="native")
    b = fastgen.rollout(games=100, policy=net, start=starts, seed=2, engine="python")
    assert _same(a, b)
    whole = fastgen.rollout(games=60, policy=net, seed=9)
    part = fastgen.rollout(games=20, policy=net, seed=9, first_game=40)
    assert np.array_equal(whole.winner[40:], part.winner) and np.array_equal(whole.turns[40:], part.turns)


def test_the_greedy_play_of_a_compiled_network_is_played_natively_wherever_given():
    _, _, net = _net((198, 16, 5), seed=5)
    base = fastgen.rollout(games=50, policy=net, seed=1)
    for policy in (ev.greedy(net),):
        r = fastgen.rollout(games=50, policy=policy, seed=1)
        assert "native" in r.timings and _same(r, base)


def test_the_native_engine_refuses_a_numpy_network():
    numpy_net = ev.random_network(hidden=8, seed=1)
    with pytest.raises(InvalidArgumentError, match="compiled networks"):
        fastgen.rollout(games=4, policy=numpy_net, engine="native")


def _plain_game(ws, bs, seed, g, max_turns=2000):
    """Game g of the rollout with *seed*, each play chosen by plays_batch + a float64
    forward pass + argmax (a play that bears off the last checker scored exactly).
    Returns (winner, result, turns, first near-tie turn or None)."""
    board = START.copy()
    for t in range(max_turns):
        dice = roll_dice(seed, np.array([g]), np.array([t]), np.array([t == 0]))
        r = fastgen.plays_batch(board[None], dice)
        cand = r.boards
        h = encode(np.ascontiguousarray(cand[:, ::-1]), "tesauro198").astype(np.float64)
        for i, (w, b) in enumerate(zip(ws, bs)):
            h = h @ np.asarray(w, np.float32).astype(np.float64) + np.asarray(b, np.float32)
            h = 1 / (1 + np.exp(-h))
        fastgen.nets.probs.make_consistent(h)
        values = -ev.equity(h)
        done = ~cand[:, 1].any(axis=1)
        values[done] = ev.equity(ev.finished_probs(cand[done]))
        order = np.argsort(-values, kind="stable")
        if len(values) > 1 and 0 < values[order[0]] - values[order[1]] < 1e-5:
            return None, None, None, t  # a near-tie (exact ties, as two winning plays, go to the first)
        after = cand[order[0]]
        if not after[1].any():
            loser = after[0]
            res = 1 if loser.sum() < 15 else (3 if loser[18:].any() else 2)
            return t % 2, res, t + 1, None
        board = np.ascontiguousarray(after[::-1])
    raise AssertionError("a plain game did not end")


def _baseline_as_five_outputs():
    """A trained three-output network's weights (tests/data/td40.npz) with two backgammon outputs that are always about 2e-9
    (zero weights, bias -20): a network that plays sensible games of about 60 turns
    (random weights play games of hundreds, each turn a chance of a near-tie)."""
    base = td40()
    w2 = np.zeros((base.w2.shape[0], 5), np.float32)
    w2[:, [0, 1, 3]] = base.w2
    b2 = np.full(5, -20.0, np.float32)
    b2[[0, 1, 3]] = base.b2
    ws, bs = [base.w1, w2], [base.b1, b2]
    return ws, bs, Network(ws, bs)


def test_native_games_equal_the_plain_loop_except_near_ties():
    ws, bs, net = _baseline_as_five_outputs()
    games = 60
    r = fastgen.rollout(games=games, policy=net, seed=21)
    ties = 0
    for g in range(games):
        winner, result, turns, tie = _plain_game(ws, bs, 21, g)
        if tie is not None:  # the plain loop's two best plays within 1e-5: either may be taken
            ties += 1
            continue
        assert (r.winner[g], r.result[g], r.turns[g]) == (winner, result, turns), g
    # a near-tie comes about once in 600 turns here (6 of these 60 games of ~60 turns meet
    # one); at least three games in four are compared whole
    assert ties <= games // 4


def test_a_stop_flag_and_the_turn_limit_end_the_loop():
    _, _, net = _net((198, 8, 5), seed=6)
    start = np.ascontiguousarray(START[None])
    winner, result, turns = (np.zeros(10, np.int8), np.zeros(10, np.int8), np.zeros(10, np.int32))

    def play(lo, stop=None, max_turns=1000):
        chooser = net.chooser()
        return _play.play_range(start, True, 1, OPENING_DICE, lo, 10, chooser, chooser, winner, result, turns,
                                stop=stop, max_turns=max_turns)

    stop = _core.StopFlag()
    stop.set()
    assert play(0, stop) == -1
    assert not turns.any()  # stopped before the first turn: nothing played
    assert play(3, max_turns=2) == 3
    assert play(0) == -1
    assert (turns > 0).all() and set(np.unique(result)) <= {1, 2, 3}


@pytest.mark.parametrize("mirrored", [False, True])
def test_native_duels_of_networks_equal_the_batched_loop(mirrored):
    _, _, net = _net((198, 16, 5), seed=8)
    _, _, other = _net((198, 12, 5), seed=9)
    for a, b in ((net, "pubeval"), ("random", net), (net, other)):
        native = fastgen.duel(a, b, 200, seed=4, mirrored=mirrored, engine="native")
        batched = fastgen.duel(a, b, 200, seed=4, mirrored=mirrored, engine="python")
        assert _same(native, batched)
        auto = fastgen.duel(a, b, 200, seed=4, mirrored=mirrored, threads=2, batch_size=17)
        assert _same(auto, batched)


def test_the_native_duel_refuses_a_numpy_network():
    with pytest.raises(InvalidArgumentError, match="compiled networks"):
        fastgen.duel(ev.random_network(hidden=8, seed=1), "pubeval", 4, engine="native")
