"""The three environments pass their libraries' own checkers and keep the rules.

Needs the ``rl`` extra (gymnasium, pettingzoo); skipped with the reason when absent.
"""

from __future__ import annotations


import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="gymnasium not installed: pip install '.[rl]'")

import fastgen  # noqa: E402
from fastgen.envs import MAX_PLAYS, BackgammonEnv, VectorBackgammon, micro_mask  # noqa: E402
from fastgen.envs.engine import Games, scores  # noqa: E402
from fastgen.errors import InvalidEnvOptionError  # noqa: E402

from strategies import pos  # noqa: E402

from _child import run_python  # noqa: E402

MODES = ["micro", "afterstate"]


def test_import_fastgen_loads_no_rl_library():
    code = "import sys, fastgen; print(sorted(m for m in ('gymnasium', 'pettingzoo', 'fastgen.envs') if m in sys.modules))"
    out = run_python("-c", code, check=True).stdout
    assert out.strip() == "[]"


# --------------------------------------------------------------------------- BackgammonEnv


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("opponent", ["random", "pubeval"])
def test_gymnasium_env_checker(mode, opponent):
    from gymnasium.utils.env_checker import check_env

    env = BackgammonEnv(opponent=opponent, action_mode=mode, observation="tesauro198", render_mode="ansi")
    check_env(env, skip_render_check=False)


@pytest.mark.parametrize("mode", MODES)
def test_single_env_plays_whole_games_with_masks(mode):
    env = BackgammonEnv(opponent="random", action_mode=mode, observation="raw")
    rng = np.random.default_rng(5)
    for episode in range(6):
        obs, info = env.reset(seed=episode)
        done, total = False, 0.0
        while not done:
            mask = env.action_masks()
            np.testing.assert_array_equal(mask, info["action_mask"])
            assert mask.any() and env.observation_space.contains(obs)
            if mode == "afterstate":
                k = int(mask.sum())
                assert info["afterstates"].shape == (k, 2, 25) and info["afterstate_features"].shape == (k, 52)
                assert not mask[k:].any()
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            total += reward
            done = terminated or truncated
            assert reward == 0 or done
        assert total in (-3, -2, -1, 1, 2, 3)
        assert not env.action_masks().any()
    with pytest.raises(fastgen.IllegalActionError, match="over"):
        env.step(0)


def test_single_env_micro_mask_matches_micro_mask():
    env = BackgammonEnv(opponent="random", action_mode="micro", observation="raw")
    rng = np.random.default_rng(1)
    env.reset(seed=11)
    checked = 0
    for _ in range(200):
        g = env.games
        board, dice = g.boards[0].copy(), tuple(int(d) for d in g.dice[0])
        mask = env.action_masks()
        # at the start of a turn (all dice left) the kernel's mask is micro_mask's
        if g.left[0].sum() == (4 if dice[0] == dice[1] else 2):
            np.testing.assert_array_equal(mask, micro_mask(board, dice))
            checked += 1
        _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if terminated or truncated:
            env.reset()
    assert checked > 30


def test_callable_opponent_is_consulted():
    calls = []

    def first(board, dice, afterstates):
        calls.append(afterstates.shape)
        return 0

    env = BackgammonEnv(opponent=first, action_mode="afterstate", observation="raw")
    env.reset(seed=0)
    for _ in range(10):
        env.step(0)
    assert calls and all(s[1:] == (2, 25) for s in calls)


def test_illegal_actions_and_options_are_refused():
    env = BackgammonEnv(action_mode="micro", observation="raw", illegal_reward=None)
    env.reset(seed=2)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(fastgen.IllegalActionError, match=repr(illegal)):
        env.step(illegal)
    with pytest.raises(fastgen.IllegalActionError):
        env.step("3")
    env = BackgammonEnv(action_mode="afterstate", observation="raw")
    env.reset(seed=2)
    obs, reward, terminated, truncated, info = env.step(MAX_PLAYS - 1)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    with pytest.raises(InvalidEnvOptionError, match="'best'"):
        BackgammonEnv(opponent="best")
    with pytest.raises(InvalidEnvOptionError, match="'moves'"):
        BackgammonEnv(action_mode="moves")
    with pytest.raises(fastgen.FastgenError, match="'nope'"):
        BackgammonEnv(observation="nope")


def test_svg_render():
    pytest.importorskip("fastgen.formats.svg", reason="fastgen.formats.svg not available in this build")
    env = BackgammonEnv(render_mode="svg", observation="raw")
    env.reset(seed=0)
    assert env.render().lstrip().startswith("<")


def test_scores_single_gammon_backgammon():
    won = pos(me={}, opp={10: 15})  # loser (row 0): 15 on its own point 15, none off
    assert scores(won[None]).tolist() == [2.0]
    home = pos(me={}, opp={5: 1, 10: 14})  # one in the winner's home board (loser's 20)
    assert scores(home[None]).tolist() == [3.0]
    b = pos(me={}, opp={24: 14})
    b[0, 24] = 1  # and one on the bar: backgammon
    assert scores(b[None]).tolist() == [3.0]
    c = pos(me={}, opp={24: 10})  # five off
    assert scores(c[None]).tolist() == [1.0]


# --------------------------------------------------------------------------- VectorBackgammon


@pytest.mark.parametrize("mode", MODES)
def test_vector_env_steps_autoresets_and_masks(mode):
    env = VectorBackgammon(16, action_mode=mode, observation="tesauro198", afterstate_features=True)
    obs, info = env.reset(seed=3)
    assert obs.shape == (16, 204) and env.observation_space.contains(obs)
    width = 156 if mode == "micro" else MAX_PLAYS
    ended = 0
    for _ in range(1500 if mode == "micro" else 600):
        mask = info["action_mask"]
        assert mask.shape == (16, width) and mask.any(axis=1).all()
        np.testing.assert_array_equal(mask, env.action_masks())
        if mode == "afterstate":
            counts = np.diff(info["offsets"])
            np.testing.assert_array_equal(counts, mask.sum(axis=1))
            assert info["afterstate_features"].shape == (counts.sum(), 198)
        actions = env.sample_actions()
        assert mask[np.arange(16), actions].all()
        obs, reward, terminated, truncated, info = env.step(actions)
        assert not truncated.any()
        np.testing.assert_array_equal(reward > 0, terminated)
        assert set(reward.tolist()) <= {0.0, 1.0, 2.0, 3.0}
        if terminated.any():
            ended += int(terminated.sum())
            assert info["_final_obs"].tolist() == terminated.tolist()
            # the final board is the winner's: no checkers left on its side
            final = info["final_obs"][terminated]
            assert np.allclose(final[:, 194], 1.0)  # tesauro198: the mover's borne off, 15/15
    assert ended >= 5


@pytest.mark.parametrize("mode", MODES)
def test_vector_env_per_game_seeds(mode):
    a = VectorBackgammon(4, action_mode=mode, observation="raw")
    b = VectorBackgammon(2, action_mode=mode, observation="raw")
    oa, _ = a.reset(seed=10)
    ob, _ = b.reset(seed=[12, 13])  # games 2 and 3 of a
    np.testing.assert_array_equal(oa[2:], ob)
    for _ in range(50):
        xa, xb = a.sample_actions(), b.sample_actions()
        np.testing.assert_array_equal(xa[2:], xb)
        oa, *_ = a.step(xa)
        ob, *_ = b.step(xb)
        np.testing.assert_array_equal(oa[2:], ob)


@pytest.mark.parametrize("mode", MODES)
def test_vector_env_results_are_the_callers_to_keep(mode):
    env = VectorBackgammon(8, action_mode=mode, observation="raw")
    obs, info = env.reset(seed=5)
    kept = []
    for _ in range(12):
        kept.append((obs, obs.copy(), info["action_mask"], info["action_mask"].copy()))
        obs, reward, terminated, truncated, info = env.step(env.sample_actions())
    for obs_kept, obs_copy, mask_kept, mask_copy in kept:
        np.testing.assert_array_equal(obs_kept, obs_copy)
        np.testing.assert_array_equal(mask_kept, mask_copy)


def test_vector_env_refuses_illegal_actions_without_changing_state():
    env = VectorBackgammon(3, action_mode="micro", observation="raw")
    env.reset(seed=0)
    before = env.games.boards.copy()
    actions = env.sample_actions()
    actions[1] = 1  # never legal
    with pytest.raises(fastgen.IllegalActionError, match="game 1"):
        env.step(actions)
    np.testing.assert_array_equal(before, env.games.boards)
    with pytest.raises(fastgen.IllegalActionError):
        env.step([0, 0])
    with pytest.raises(InvalidEnvOptionError, match="0"):
        VectorBackgammon(0)


def test_vector_afterstate_turns_follow_legal_plays():
    games = Games(8, "afterstate", "raw")
    games.reset(seed=4)
    for _ in range(40):
        boards, dice = games.boards.copy(), games.dice.copy()
        actions = games.sample_actions()
        chosen = [fastgen.legal_plays(boards[i], tuple(dice[i])).boards[actions[i]] for i in range(8)]
        _, terminated, _ = games.step(actions)
        for i in range(8):
            if not terminated[i]:
                np.testing.assert_array_equal(games.boards[i], fastgen.swap_sides(chosen[i]))


# --------------------------------------------------------------------------- PettingZoo


@pytest.mark.parametrize("mode", MODES)
def test_pettingzoo_api_and_seed_tests(mode):
    pytest.importorskip("pettingzoo", reason="pettingzoo not installed: pip install '.[rl]'")
    from pettingzoo.test import api_test, seed_test

    from fastgen.envs import backgammon_v0

    api_test(backgammon_v0.env(action_mode=mode, observation="raw"), num_cycles=300)
    seed_test(lambda: backgammon_v0.env(action_mode=mode, observation="raw"), num_cycles=100)


def test_pettingzoo_game_to_the_end():
    pytest.importorskip("pettingzoo", reason="pettingzoo not installed: pip install '.[rl]'")
    from fastgen.envs import backgammon_v0

    env = backgammon_v0.env(action_mode="micro", observation="raw")
    env.reset(seed=9)
    rng = np.random.default_rng(9)
    rewards = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter(max_iter=20000):
        obs, reward, termination, truncation, info = env.last()
        rewards[agent] += reward
        if termination or truncation:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    values = sorted(rewards.values())
    assert values[0] == -values[1] and values[1] in (1, 2, 3)
