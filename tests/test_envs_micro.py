"""The micro-action encoding is exact: walking every sequence its mask allows reaches
exactly the boards of ``legal_plays``, for the public :func:`fastgen.envs.micro_mask`
(built on ``legal_steps``) and for the compiled kernel the environments step with
(built on the core's single steps and counts), which must also agree with ``micro_mask``
state by state.
"""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastgen
from fastgen.envs import _kernel, micro_mask, action_of, step_of, NUM_MICRO_ACTIONS, PASS
from fastgen.envs.engine import Games

from strategies import pos, positions, replay


# --------------------------------------------------------------------------- walkers


def _target(source, die):
    return max(source - die, 0)


def walk_public(board, dice):
    """Final boards of every sequence micro_mask allows, and the number of states seen."""
    finals, seen = set(), set()
    stack = [()]
    while stack:
        played = stack.pop()
        mask = micro_mask(board, dice, played)
        assert mask.any(), "empty mask"
        assert not mask[1:6].any(), "actions 1..5 are never legal"
        current = replay(board, [p[:2] for p in played])
        if mask[PASS]:
            assert mask.sum() == 1, "the pass never comes with a step"
            finals.add(current.tobytes())
            continue
        for a in np.flatnonzero(mask):
            s, d = step_of(int(a))
            nxt = played + ((s, _target(s, d), d),)
            key = (replay(board, [p[:2] for p in nxt]).tobytes(), tuple(sorted(p[2] for p in nxt)))
            if key not in seen:
                seen.add(key)
                stack.append(nxt)
    return finals


def kernel_start(board, dice):
    b = np.ascontiguousarray(np.asarray(board, dtype=np.int8)[None])
    d = np.array([dice], dtype=np.int8)
    left = np.zeros((1, 6), np.int8)
    todo = np.zeros(1, np.int8)
    forced = np.zeros(1, np.int8)
    _kernel.start_turns(b, d, np.zeros(1, np.int64), left, todo, forced)
    return b, left, todo, forced


def kernel_mask(state):
    out = np.zeros((1, NUM_MICRO_ACTIONS), np.uint8)
    b, left, todo, forced = state
    listed = np.zeros((1, 32), np.uint8)
    _kernel.masks(b, left, todo, forced, out, listed)
    assert sorted(listed[0, 1 : 1 + listed[0, 0]].tolist()) == np.flatnonzero(out[0]).tolist()
    return out[0].astype(bool)


def kernel_apply(state, action):
    b, left, todo, forced = (x.copy() for x in state)
    _kernel.apply_steps(b, left, todo, np.zeros(1, np.int64), np.array([action], np.int64))
    return b, left, todo, forced


def walk_kernel(board, dice, check_public=False):
    """Final boards of every sequence the kernel's mask allows (optionally checking each
    state's mask against micro_mask with the steps played so far)."""
    finals, seen = set(), set()
    stack = [(kernel_start(board, dice), ())]
    while stack:
        state, played = stack.pop()
        mask = kernel_mask(state)
        assert mask.any() and not mask[1:6].any()
        if check_public:
            np.testing.assert_array_equal(mask, micro_mask(board, dice, played), err_msg=f"after {played}")
        if mask[PASS]:
            assert mask.sum() == 1
            finals.add(state[0][0].tobytes())
            continue
        for a in np.flatnonzero(mask):
            nxt = kernel_apply(state, int(a))
            key = (nxt[0].tobytes(), nxt[1].tobytes())
            if key not in seen:
                seen.add(key)
                s, d = step_of(int(a))
                stack.append((nxt, played + ((s, _target(s, d), d),)))
    return finals


# --------------------------------------------------------------------------- exactness


@settings(max_examples=150)
@given(positions)
def test_public_mask_walk_reaches_exactly_the_legal_plays(position):
    board, dice = position
    assert walk_public(board, dice) == fastgen.legal_plays(board, dice).position_set()


@given(positions)
def test_kernel_mask_walk_reaches_exactly_the_legal_plays(position):
    board, dice = position
    assert walk_kernel(board, dice) == fastgen.legal_plays(board, dice).position_set()


@settings(max_examples=100)
@given(positions)
def test_kernel_mask_equals_micro_mask_state_by_state(position):
    board, dice = position
    walk_kernel(board, dice, check_public=True)


@settings(max_examples=60)
@given(positions, st.randoms(use_true_random=False))
def test_random_agent_never_sees_an_empty_mask(position, rnd):
    board, dice = position
    played = ()
    while True:
        mask = micro_mask(board, dice, played)
        allowed = np.flatnonzero(mask)
        assert allowed.size > 0
        a = int(rnd.choice(allowed))
        if a == PASS:
            break
        s, d = step_of(a)
        played += ((s, _target(s, d), d),)
    final = replay(board, [p[:2] for p in played])
    assert final.tobytes() in fastgen.legal_plays(board, dice).position_set()


def test_random_self_play_masks_are_never_empty():
    games = Games(64, "micro", "raw")
    games.reset(seed=7)
    rng = np.random.default_rng(7)
    finished = 0
    for _ in range(3000):
        mask = games.mask
        assert mask.any(axis=1).all()
        assert not mask[:, 0].any(), "turns with no step are passed for the player"
        action = (rng.random(mask.shape) * mask).argmax(axis=1)
        _, terminated, truncated = games.step(action)
        finished += int(terminated.sum())
        assert not truncated.any()
    assert finished > 20


# --------------------------------------------------------------------------- hand-worked cases


def _allowed(mask):
    return sorted(step_of(int(a)) for a in np.flatnonzero(mask) if a)


def test_worked_example_of_the_readme():
    # 6-5 from the start: 24/18 leaves 18/13, 13/8 and 8/3 with the 5.
    assert _allowed(micro_mask(fastgen.STARTING_BOARD, (6, 5), [(24, 18)])) == [(8, 5), (13, 5), (18, 5)]
    assert micro_mask(fastgen.STARTING_BOARD, (6, 5), [(24, 18), (18, 13)]).nonzero()[0].tolist() == [0]
    assert action_of(24, 6) == 149 and action_of(25, 1) == 150


def test_bear_off_with_a_higher_die():
    # checkers on 3 and 1, roll 6-5: the 6 bears off the 3 (to 0 though 3 - 6 < 0),
    # and so does the 5; then the other die bears off the 1.
    board = pos(me={3: 1, 1: 1}, opp={20: 2})
    mask = micro_mask(board, (6, 5), [])
    assert _allowed(mask) == [(3, 5), (3, 6)]
    assert _allowed(micro_mask(board, (6, 5), [(3, 0, 6)])) == [(1, 5)]
    assert _allowed(micro_mask(board, (6, 5), [(3, 0, 5)])) == [(1, 6)]
    assert walk_kernel(board, (6, 5)) == walk_public(board, (6, 5))


def test_larger_die_rule():
    # a lone checker on 24 and the 13 point blocked: 6-5 can play 24/18 or 24/19 but
    # never both dice, so the larger die must be played (R13): only 24/18.
    board = pos(me={24: 1}, opp={13: 2})
    assert [str(p) for p in fastgen.legal_plays(board, (6, 5))] == ["24/18"]
    mask = micro_mask(board, (6, 5))
    assert _allowed(mask) == [(24, 6)]
    np.testing.assert_array_equal(kernel_mask(kernel_start(board, (6, 5))), mask)
    assert micro_mask(board, (6, 5), [(24, 18)]).nonzero()[0].tolist() == [PASS]


def test_larger_die_rule_with_a_bear_off_either_die_makes():
    # one checker left, on the 1 point, roll 5-3: only one die can be played; the 5 and
    # the 3 both bear it off, the same play, so both steps are allowed
    board = pos(me={1: 1}, opp={24: 10, 23: 4})
    assert [str(p) for p in fastgen.legal_plays(board, (5, 3))] == ["1/off"]
    mask = micro_mask(board, (5, 3))
    assert _allowed(mask) == [(1, 3), (1, 5)]
    np.testing.assert_array_equal(kernel_mask(kernel_start(board, (5, 3))), mask)
    # with a second checker on 4 both dice play, and the 3 can be used on either
    board = pos(me={1: 1, 4: 1}, opp={24: 10})
    np.testing.assert_array_equal(kernel_mask(kernel_start(board, (5, 3))), micro_mask(board, (5, 3)))


def test_doubles_with_fewer_than_four_steps():
    board = pos(me={24: 1, 6: 14}, opp={16: 2, 18: 2, 14: 2})
    for dice in [(2, 2), (3, 3), (4, 4), (6, 6)]:
        public = walk_public(board, dice)
        assert walk_kernel(board, dice) == public == fastgen.legal_plays(board, dice).position_set()


def test_action_helpers_reject_bad_input():
    with pytest.raises(fastgen.InvalidMoveTextError, match="26"):
        action_of(26, 1)
    with pytest.raises(fastgen.InvalidMoveTextError, match="0"):
        action_of(3, 0)
    with pytest.raises(fastgen.InvalidMoveTextError, match="3"):
        step_of(3)
    with pytest.raises(fastgen.IllegalPlayError):
        micro_mask(fastgen.STARTING_BOARD, (6, 5), [(24, 20)])
    with pytest.raises(fastgen.InvalidBoardError):
        micro_mask(np.zeros((2, 24), np.int8), (6, 5))


@pytest.mark.parametrize("module", ["fastgen.envs", "fastgen.envs.micro", "fastgen.envs.engine"])
def test_envs_doctests(module):
    import importlib

    failures, _ = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert failures == 0


def test_max_plays_bound_holds():
    # the afterstate action space's bound (engine docstring): 3,060 for doubles, 240 otherwise
    from fastgen.envs import MAX_PLAYS
    from fastgen.cli.workload import vector_workload

    boards, dice = vector_workload()
    counts = fastgen.count_plays_batch(boards, dice)
    doubles = dice[:, 0] == dice[:, 1]
    assert counts[doubles].max() <= MAX_PLAYS == 3060
    assert counts[~doubles].max() <= 240
