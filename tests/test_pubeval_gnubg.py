"""fastgen.pubeval_best against GNU Backgammon's own pubeval player.

``gnubg_nn.pub_best_move(board, d1, d2)`` takes a board oriented as fastgen's (row 1 on
roll: checked below with asymmetric positions) and returns the chosen play as
``[from, to, ...]`` in the mover's 0-based indices (24 the bar, -1 off); it scores every
play of its generator in single precision and keeps the first of equal scores, in its
generator's order (the dice as given, then swapped). Skipped, with the reason shown,
when gnubg-nn is not installed.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given

import fastgen
from fastgen.players import _pubeval
from fastgen.players import pubeval
from fastgen.cli.workload import random_game_positions

import pytest

from strategies import positions

gnubg = pytest.importorskip("gnubg_nn", reason="gnubg-nn not installed: pip install '.[peers]'")


def gnubg_after(board, d1, d2) -> np.ndarray:
    """The position after gnubg's pubeval play (row 1 moved), built from its move list."""
    flat = gnubg.pub_best_move(board.tolist(), d1, d2)
    after = board.copy()
    for f, t in zip(flat[::2], flat[1::2]):
        after[1, f] -= 1
        if t >= 0:
            if after[0, 23 - t] == 1:  # a hit
                after[0, 23 - t] = 0
                after[0, 24] += 1
            after[1, t] += 1
    return after


def assert_same_choices(boards, dice):
    ours = fastgen.pubeval_best(boards, dice)
    for i in range(len(boards)):
        d1, d2 = int(dice[i][0]), int(dice[i][1])
        theirs = gnubg_after(boards[i], d1, d2)
        assert (ours[i] == theirs).all(), (fastgen.position_id(boards[i]), (d1, d2))


def test_same_choice_as_gnubg_on_a_large_self_play_set():
    # 40,000 positions: random and pubeval self-play, each roll in the order drawn and
    # swapped (gnubg's tie order depends on it).
    for policy, seed in (("random", 101), ("pubeval", 102)):
        boards, dice = random_game_positions(20_000, seed=seed, policy=policy)
        assert_same_choices(boards, dice)
        assert_same_choices(boards[:5_000], dice[:5_000, ::-1])


@given(positions)
def test_same_choice_as_gnubg(position):
    board, dice = position
    assert_same_choices(board[None], [dice])


# Positions from random self-play where two different plays have exactly the same
# single-precision score (found by scoring every play of 200,000 positions).
EXACT_TIES = [("f14ERABHBrRBHA", (5, 1)), ("fyAgXAP7DhaAAg", (4, 3)), ("+3sgAQD/gUBSAQ", (4, 5))]


@pytest.mark.parametrize("pid, dice", EXACT_TIES)
def test_exact_ties_go_where_gnubg_puts_them(pid, dice):
    board = fastgen.parse_position_id(pid)
    plays = fastgen.legal_plays(board, dice)
    # gnubg's own scores of the plays (it scores the mover as row 0) prove the tie
    race = bool(pubeval.is_race(board[None])[0])
    assert all(bool(pubeval.is_race(b[None])[0]) == race for b in plays.boards)  # same weights
    scores = np.array([gnubg.pub_eval_score(b[::-1].tolist()) for b in plays.boards])
    assert (scores == scores.max()).sum() >= 2
    for d in (dice, dice[::-1]):
        assert_same_choices(board[None], [d])


def _first_listed(board, d1, d2):
    """Rank of each distinct resulting position in gnubg's generator order."""
    first = {}
    for rank, key in enumerate(gnubg.moves(board.tolist(), d1, d2)):
        first.setdefault(key, rank)
    return first


def test_tie_order_of_non_doubles_is_gnubg_generator_order():
    # egg_first decides exact ties of non-doubles: for random pairs of plays it must name
    # the one gnubg's generator lists first, for the dice in either order.
    boards, dice = random_game_positions(3_000, seed=103)
    rng = np.random.default_rng(0)
    checked = 0
    for board, (d1, d2) in zip(boards, dice.tolist()):
        if d1 == d2:
            continue
        plays = fastgen.legal_plays(board, (d1, d2))
        if len(plays) < 2 or plays.moves[0, 1, 0] < 0:  # one-die plays: fastgen's order
            continue
        keys = [gnubg.key_of_board(b.tolist()) for b in plays.boards]
        for a, b in ((d1, d2), (d2, d1)):
            first = _first_listed(board, a, b)
            i, j = rng.choice(len(plays), 2, replace=False)
            got = _pubeval.pubeval_egg_first(board, a, b, plays.boards, np.array([i, j], dtype=np.int32))
            assert got == (i if first[keys[i]] < first[keys[j]] else j), (fastgen.position_id(board), (a, b))
            checked += 1
    assert checked > 3_000


def test_doubles_and_one_die_plays_come_in_gnubg_generator_order():
    # For these, ties keep fastgen's first play: its order must be gnubg's.
    boards, dice = random_game_positions(3_000, seed=104)
    checked = 0
    for board, (d1, d2) in zip(boards, dice.tolist()):
        plays = fastgen.legal_plays(board, (d1, d2))
        if len(plays) < 2 or not (d1 == d2 or plays.moves[0, 1, 0] < 0):
            continue
        first = _first_listed(board, d1, d2)
        ranks = [first[gnubg.key_of_board(b.tolist())] for b in plays.boards]
        assert ranks == sorted(ranks), (fastgen.position_id(board), (d1, d2))
        checked += 1
    assert checked > 300
