"""``threads=`` reaches the evaluator: every verb hands its thread count to the network it
judges with, and the answers are the same for any count.

A spy evaluator (the shipped baseline, recording the ``threads`` of each call) shows the
count arriving; the baseline itself, run with one thread and with two, shows the answers
equal to the last bit.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import fastgen
from fastgen.analysis import analyse
from fastgen.cube import cube_action
from fastgen.players import evaluators, policies, specs
from fastgen.players.base import Evaluator

from pathlib import Path

MATCH = Path(__file__).parent / "data" / "matches" / "galaxy" / "match6686465.txt"


class Spy(Evaluator):
    """The baseline network, recording the threads each call is given."""

    trusted = True

    def __init__(self) -> None:
        self.net = evaluators.baseline()
        self.name = "spy"
        self.seen: list[int] = []

    def evaluate(self, boards, *, threads=1):
        self.seen.append(threads)
        return self.net.evaluate(boards, threads=threads)


OPENING_31 = fastgen.swap_sides(fastgen.legal_plays(fastgen.STARTING_BOARD, (3, 1))[0].board_after)


@pytest.mark.parametrize("verb", ["rollout_plays", "rollout_position", "cubeful", "duel", "cube_duel", "cube_action",
                                  "analyse", "lookahead"])
def test_threads_reach_the_evaluator(verb):
    spy = Spy()
    if verb == "rollout_plays":
        fastgen.rollout_plays(fastgen.STARTING_BOARD, (3, 1), spy, plays=2, trials=36, threads=2)
    elif verb == "rollout_position":
        fastgen.rollout_position(OPENING_31, spy, trials=36, threads=2)
    elif verb == "cubeful":
        fastgen.rollout_cube(OPENING_31, spy, trials=36, threads=2)
    elif verb == "duel":
        fastgen.duel(policies.lookahead(spy), "pubeval", 2, seed=1, threads=2)
    elif verb == "cube_duel":
        fastgen.duel(spy, "baseline", 2, seed=1, threads=2, cube=True)
    elif verb == "cube_action":
        cube_action(OPENING_31, state=fastgen.MatchState(on_roll=1), evaluator=spy, plies=1, threads=2)
    elif verb == "analyse":
        analyse(MATCH, spy, plies=1, threads=2)
    else:
        fastgen.rollout(games=2, policy=policies.lookahead(spy), seed=1, threads=2)
    assert spy.seen and set(spy.seen) == {2}, (verb, sorted(set(spy.seen)))


def _same(a, b) -> bool:
    """Equal results, but for the time they took."""
    return repr(dataclasses.replace(a, seconds=0.0)) == repr(dataclasses.replace(b, seconds=0.0))


def test_answers_are_the_same_for_any_thread_count():
    net = evaluators.baseline()
    one = fastgen.rollout_plays(fastgen.STARTING_BOARD, (3, 1), net, plays=3, trials=72, threads=1)
    two = fastgen.rollout_plays(fastgen.STARTING_BOARD, (3, 1), net, plays=3, trials=72, threads=2)
    assert repr(one) == repr(two) and all(np.array_equal(a.samples, b.samples) for a, b in zip(one.rows, two.rows))
    assert _same(fastgen.rollout_cube(OPENING_31, net, trials=72, threads=1),
                 fastgen.rollout_cube(OPENING_31, net, trials=72, threads=2))
    a1 = analyse(MATCH, net, plies=1, threads=1).to_dict()
    a2 = analyse(MATCH, net, plies=1, threads=2).to_dict()
    a1.pop("seconds", None), a2.pop("seconds", None)
    assert a1 == a2
    d1 = fastgen.duel(policies.lookahead(net), "baseline", 4, seed=2, threads=1)
    d2 = fastgen.duel(policies.lookahead(net), "baseline", 4, seed=2, threads=2)
    assert np.array_equal(d1.winner, d2.winner) and np.array_equal(d1.result, d2.result)


@pytest.mark.parametrize("state", [None, fastgen.MatchState(match_length=7, score=(2, 4), on_roll=1)],
                         ids=["money", "match"])
def test_trials_side_by_side_give_the_one_thread_answer_to_the_last_bit(monkeypatch, state):
    """With a compiled network and threads > 1, trials are played in blocks side by side
    (one thread a block); every value is computed per game, so the answer equals one
    thread's exactly, with more blocks than threads (small blocks) as with one each."""
    from fastgen.sim.decide import cubeful

    net = evaluators.baseline()
    one = fastgen.rollout_cube(OPENING_31, net, state, trials=72, seed=4, threads=1)
    assert _same(one, fastgen.rollout_cube(OPENING_31, net, state, trials=72, seed=4, threads=3))
    monkeypatch.setattr(cubeful, "BLOCK_TRIALS", 10)  # 8 blocks of 9 trials for 2 threads
    seen: list[int] = []
    two = fastgen.rollout_cube(OPENING_31, net, state, trials=72, seed=4, threads=2, progress=seen.append)
    assert _same(one, two) and seen[-1] == 72 and seen == sorted(seen)
    plays = [fastgen.rollout_plays(fastgen.STARTING_BOARD, (6, 2), net, plays=2, trials=50, seed=4, threads=t,
                                   variance_reduction=False) for t in (1, 3)]
    assert all(np.array_equal(a.samples, b.samples) for a, b in zip(plays[0].rows, plays[1].rows))


def test_a_compiled_network_reads_turned_boards_as_the_turned_copy():
    """``evaluate(turned=True)`` (the positions after the plays, valued for the side on roll
    next) equals the evaluation of the copies with their rows swapped, to the last bit."""
    net = specs.evaluator("baseline")
    after = fastgen.plays_batch(np.stack([fastgen.STARTING_BOARD, OPENING_31]), np.array([[6, 5], [4, 2]],
                                                                                        dtype=np.int8)).boards
    turned = net.evaluate(np.ascontiguousarray(after), turned=True, threads=2)
    copied = net.evaluate(np.ascontiguousarray(after[:, ::-1]))
    assert turned.dtype == copied.dtype and np.array_equal(turned, copied)
