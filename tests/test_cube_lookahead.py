"""The cubeful look ahead (fastgen.cube.lookahead) against a plain loop, and its memo.

The plain loop takes one board, one roll and one play at a time through the public API
(the legal plays, the evaluator, :func:`fastgen.cube.cube_decisions`): each play valued
by the opponent's 0-ply cube action after it, the best of each roll kept (equal values
by cubeless equity, then the generator's order), and the kept plays' values and
probabilities averaged over the 36 dice. :func:`one_ply_batch` batches all of it; its
no double and its probabilities (the cubeful search's own, along the plays chosen) must
be the loop's.
"""

from __future__ import annotations

import numpy as np
import pytest

import fastgen
from fastgen.core.boards import DISTINCT_ROLLS
from fastgen.core.generate import plays_batch
from fastgen.cube import cube_decisions
from fastgen.cube.lookahead import Pruning, SearchMemo, one_ply_batch, searched_batch
from fastgen.cube.met import default_met
from fastgen.games.game import result_types
from fastgen.players import evaluators

from _positions import random_play_positions

STATES = [fastgen.MatchState(jacoby=True), fastgen.MatchState(cube_value=2, cube_owner=1),
          fastgen.MatchState(match_length=7, score=(2, 4)),
          fastgen.MatchState(match_length=5, score=(3, 3), cube_value=2, cube_owner=0)]


@pytest.fixture(scope="module")
def boards():
    """Contact positions of random games in which no play of any roll ends the game."""
    rng = np.random.default_rng(3)
    found = np.asarray(random_play_positions(40, 30, 11))
    keep = []
    for i in rng.permutation(len(found)):
        b = found[i]
        if b[0, 24 - 18:].sum() + b[1, 18:].sum() == 0:  # a race: skip, the loop below wants contact
            continue
        after = plays_batch(np.repeat(b[None], 21, axis=0), np.asarray(DISTINCT_ROLLS, dtype=np.int8)).boards
        if (result_types(np.asarray(after)) == 0).all():
            keep.append(b)
        if len(keep) == 6:
            break
    assert len(keep) == 6
    return np.stack(keep)


def _kept(after, nets, state):
    """The plays (rows of *after*, the mover in row 1) GNU Backgammon's pruned choice lets
    the full nets value: a roll of k plays, more than 5 + floor(log2(k)), whose positions
    (opponent on roll) are all of one class with a pruning net, keeps that many best by
    the mover's cubeless value on the pruning nets' corrected outputs (money: equity;
    match: match-winning chances from the table at the cube on the table), ties to the
    first; any other roll keeps every play."""
    k = after.shape[0]
    keep = 5 + int(np.floor(np.log2(k)))
    turned = np.ascontiguousarray(after[:, ::-1])
    classes = nets.classify(turned)
    if k <= keep or len(set(classes.tolist())) > 1 or classes[0] < 2:
        return list(range(k))
    theirs = nets.pruning(turned, corrected=True)
    value = []
    for t in theirs:
        win, wg, wb, lg, lb = 1.0 - t[0], t[3], t[4], t[1], t[2]
        if not state.match_length:
            value.append(2 * win - 1 + wg + wb - lg - lb)
            continue
        me, c = state.on_roll, state.cube_value
        met = default_met()
        away = [state.match_length - state.score[0], state.match_length - state.score[1]]
        post = state.crawford or min(away) == 1  # the games after this one are post-Crawford

        def mwc(points, away=away, post=post, me=me, met=met):  # the mover's chance after +-points
            a = list(away)
            a[me if points > 0 else 1 - me] -= abs(points)
            if min(a) <= 0:
                return 1.0 if a[me] <= 0 else 0.0
            v0 = met.player0(a[0] - 1, a[1] - 1, post=post)
            return v0 if me == 0 else 1.0 - v0
        value.append((win - wg) * mwc(c) + (wg - wb) * mwc(2 * c) + wb * mwc(3 * c)
                     + (t[0] - lg) * mwc(-c) + (lg - lb) * mwc(-2 * c) + lb * mwc(-3 * c))
    order = sorted(range(k), key=lambda j: -value[j])  # stable: ties to the first
    return sorted(order[:keep])


def _plain(board, evaluator, state, nets=None):
    """(no double, probabilities) of *board* at 1 ply, cubeful, one play at a time; with
    *nets*, each roll's play chosen among those the pruning keeps (:func:`_kept`)."""
    opp_state = fastgen.MatchState(**{**state.__dict__, "on_roll": 1 - state.on_roll})
    value, probs = 0.0, np.zeros(5)
    for roll in DISTINCT_ROLLS:
        batch = plays_batch(board[None], np.asarray([roll], dtype=np.int8))
        after = np.asarray(batch.boards)
        best = None
        for j in (range(after.shape[0]) if nets is None else _kept(after, nets, state)):
            opp = np.ascontiguousarray(after[j][::-1])[None]
            theirs = evaluator.evaluate(opp)
            d = cube_decisions(opp, theirs, opp_state)
            nd, dt, dp = d.no_double[0], d.double_take[0], d.double_pass[0]
            v = min(dt, dp) if (dt >= nd and dp >= nd) else nd
            mine = -v if not state.match_length else 1.0 - v
            t = theirs[0]
            cubeless = -(2 * t[0] - 1 + t[1] + t[2] - t[3] - t[4])
            if best is None or (mine, cubeless) > best[:2]:
                best = (mine, cubeless, t)
        w = (1.0 if roll[0] == roll[1] else 2.0) / 36.0
        value += w * best[0]
        t = best[2]
        probs += w * np.array([1.0 - t[0], t[3], t[4], t[1], t[2]])
    return value, probs


def test_one_ply_equals_a_plain_loop(boards):
    ev = evaluators.baseline()
    rows = np.arange(len(boards)) % len(STATES)
    probs = np.zeros((len(boards), 5))
    nd, _ = one_ply_batch(boards, ev, STATES, rows, probs=probs)
    for i, b in enumerate(boards):
        value, p = _plain(b, ev, STATES[rows[i]])
        assert nd[i] == pytest.approx(value, abs=1e-12), i
        np.testing.assert_allclose(probs[i], p, atol=1e-12)


def test_pruned_one_ply_equals_a_plain_loop(boards):
    """GNU Backgammon's pruned choice (:class:`fastgen.cube.lookahead.Pruning`) in the
    batched search is the plain loop's (:func:`_kept`), money and match; and it changes
    the answer (the plain loop unpruned differs)."""
    from fastgen.errors import GnubgWeightsNotFoundError
    from fastgen.nets import gnubg

    try:
        nets = gnubg.load()
    except GnubgWeightsNotFoundError as exc:
        pytest.skip(f"no GNU Backgammon weights found: {exc}")
    rows = np.arange(len(boards)) % len(STATES)
    probs = np.zeros((len(boards), 5))
    nd, _ = one_ply_batch(boards, nets, STATES, rows, probs=probs, pruning=Pruning(nets))
    differ = 0
    for i, b in enumerate(boards):
        value, p = _plain(b, nets, STATES[rows[i]], nets)
        assert nd[i] == pytest.approx(value, abs=1e-12), i
        np.testing.assert_allclose(probs[i], p, atol=1e-12)
        differ += abs(_plain(b, nets, STATES[rows[i]])[0] - value) > 1e-9
    assert differ >= 1


@pytest.mark.parametrize("depth", [1, 2])
def test_the_memo_answers_as_the_search_does(boards, depth):
    ev = evaluators.baseline()
    few = boards[:3] if depth == 2 else boards
    rows = np.arange(len(few)) % len(STATES)
    p0 = np.zeros((len(few), 5))
    nd0, dt0 = searched_batch(few, ev, STATES, rows, depth, probs=p0)
    memo = SearchMemo()
    for _ in range(2):  # filled, then found
        p1 = np.zeros((len(few), 5))
        nd1, dt1 = searched_batch(few, ev, STATES, rows, depth, probs=p1, memo=memo)
        np.testing.assert_array_equal(nd1, nd0)
        np.testing.assert_array_equal(np.isnan(dt1), np.isnan(dt0))
        np.testing.assert_array_equal(dt1[~np.isnan(dt1)], dt0[~np.isnan(dt0)])
        np.testing.assert_array_equal(p1, p0)
    assert memo.hits == len(few) and len(memo) == len(few)
    small = SearchMemo(limit=2)  # full: starts afresh, the answers the same
    nd2, _ = searched_batch(few, ev, STATES, rows, depth, memo=small)
    np.testing.assert_array_equal(nd2, nd0)
    assert len(small) <= 2
