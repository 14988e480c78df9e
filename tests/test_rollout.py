"""Bulk rollouts: reproducibility, batch-size independence, policies and statistics."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

import fastgen
from fastgen.core.hashing import game_hash
from fastgen.sim.rollout.front import rollout


def same(a, b) -> bool:
    return all((getattr(a, k) == getattr(b, k)).all() for k in ("winner", "result", "turns", "points"))


def test_rollout_is_reproducible_by_seed_and_independent_of_batch_size():
    base = rollout(games=300, seed=7, batch_size=300)
    for batch_size in (1, 7, 64, 1000):
        assert same(base, rollout(games=300, seed=7, batch_size=batch_size))
    assert same(base, rollout(games=300, seed=7, batch_size=64, threads=2))
    assert not same(base, rollout(games=300, seed=8))
    # game i does not depend on how many games are played
    assert same(rollout(games=50, seed=7), _head(base, 50))


def _head(r, n):
    from fastgen.sim.rollout.results import RolloutResult

    return RolloutResult(r.winner[:n], r.result[:n], r.turns[:n], r.points[:n], r.seed, r.policy)


def test_rollout_result_arrays():
    r = rollout(games=200, seed=1)
    assert r.winner.shape == r.result.shape == r.turns.shape == r.points.shape == (200,)
    assert set(np.unique(r.winner)) <= {0, 1}
    assert set(np.unique(r.result)) <= {1, 2, 3}
    assert (r.points == r.result).all()  # cubeless
    # the side that moved first wins on an odd number of plays
    assert ((r.turns % 2 == 1) == (r.winner == 0)).all()
    s = r.summary()
    assert s.games == 200 and s.win[0] + s.win[1] == pytest.approx(1.0)
    for key in ("win", "gammon", "backgammon"):
        for side in (0, 1):
            lo, hi = s.intervals[key][side]
            assert lo <= getattr(s, key)[side] <= hi
    assert "side 0" in str(s)


def test_R16_rollout_opening_rolls_are_uniform_non_doubles():
    # the first turn's dice come from the hash: check the 15 opening rolls over many games
    from fastgen.core.hashing import roll_dice

    gid = np.arange(30000)
    dice = roll_dice(3, gid, np.zeros_like(gid), np.ones(gid.shape, dtype=bool))
    assert (dice[:, 0] > dice[:, 1]).all()
    counts = np.unique(dice[:, 0] * 10 + dice[:, 1], return_counts=True)[1]
    assert len(counts) == 15 and counts.min() > 1800 and counts.max() < 2200


def test_rollout_from_given_positions():
    b = np.zeros((2, 25), dtype=np.int8)
    b[1, 0] = 1  # side on roll: one checker on its ace point: wins at once
    b[0, 5] = 15  # opponent: nothing off, nothing in the winner's home board: gammon
    r = rollout(games=20, seed=1, start=b)
    assert (r.winner == 0).all() and (r.result == 2).all() and (r.turns == 1).all()
    two = np.stack([b, b[::-1]])  # second start: the side on roll has 15 to bear off
    r2 = rollout(start=two, games=None, seed=1)
    assert r2.winner.tolist() == [0, 1] and r2.result.tolist() == [2, 1]  # the loser bore off
    with pytest.raises(fastgen.InvalidBoardError):
        rollout(games=2, start=np.zeros((2, 24), dtype=np.int8))
    finished = np.zeros((2, 25), dtype=np.int8)
    finished[0, 0] = 3
    with pytest.raises(ValueError, match="finished"):
        rollout(games=1, start=finished)


def test_user_policy_is_called_once_per_turn_for_all_games():
    calls = []

    def first(candidates, offsets):
        calls.append(len(offsets) - 1)
        return np.zeros(len(offsets) - 1, dtype=np.int64)

    r = rollout(games=40, seed=2, policy=first, batch_size=40)
    assert len(calls) == r.turns.max() and calls[0] == 40
    # the same games in a slow loop over legal_plays, always the first play
    for i in range(5):
        board = fastgen.STARTING_BOARD.copy()
        from fastgen.core.hashing import roll_dice

        t = 0
        while True:
            d = roll_dice(2, np.array([i]), np.array([t]), np.array([t == 0]))[0]
            board = fastgen.legal_plays(board, (int(d[0]), int(d[1]))).boards[0]
            if not board[1].any():
                break
            board = board[::-1].copy()
            t += 1
        assert r.turns[i] == t + 1 and r.winner[i] == t % 2


@pytest.mark.parametrize("kind", ["list", "int8", "uint16", "int32", "strided"])
def test_user_policy_answers_of_any_integer_kind_play_the_same_games(kind):
    """The picks are checked and applied in the core as int64: every integer answer a
    user may give (a list, narrow or unsigned dtypes, a non-contiguous view) plays the
    same games as int64 picks, for a policy that does not always pick the first play."""

    def last(candidates, offsets):  # the last play, or play 100 (int8 holds it)
        return np.minimum(np.diff(offsets) - 1, 100)

    def convert(fn):
        def policy(c, o):
            p = fn(c, o)
            if kind == "list":
                return p.tolist()
            if kind == "strided":
                return np.repeat(p, 2)[::2]
            return p.astype(kind)

        return policy

    ref = rollout(games=60, seed=4, policy=last, batch_size=16)
    got = rollout(games=60, seed=4, policy=convert(last), batch_size=16)
    assert np.array_equal(ref.turns, got.turns) and np.array_equal(ref.result, got.result)
    assert np.array_equal(ref.winner, got.winner)


def test_bad_policy_and_arguments_are_rejected():
    with pytest.raises(ValueError, match="index 99"):
        rollout(games=3, policy=lambda c, o: np.full(len(o) - 1, 99))
    with pytest.raises(ValueError, match="integer indices"):
        rollout(games=3, policy=lambda c, o: None)
    with pytest.raises(ValueError, match="integer indices"):
        rollout(games=3, policy=lambda c, o: np.zeros(len(o) - 1, dtype=np.float64))
    with pytest.raises(ValueError, match="integer indices"):
        rollout(games=3, policy=lambda c, o: np.zeros(len(o), dtype=np.int64))  # one too many
    with pytest.raises(ValueError, match="index -1 for game 2"):
        rollout(games=3, policy=lambda c, o: np.array([0, 0, -1]))
    with pytest.raises(ValueError, match="index 18446744073709551615 for game 0"):
        rollout(games=3, policy=lambda c, o: np.full(len(o) - 1, 2**64 - 1, dtype=np.uint64))
    with pytest.raises(ValueError, match="index 18446744073709551615 for game 2"):  # past valid picks
        rollout(games=3, policy=lambda c, o: np.array([0, 0, 2**64 - 1], dtype=np.uint64))
    with pytest.raises(ValueError, match="'best'"):
        rollout(games=3, policy="best")
    with pytest.raises(ValueError, match="-1"):
        rollout(games=3, seed=-1)
    with pytest.raises(ValueError, match="batch_size"):
        rollout(games=3, batch_size=0)


def test_pubeval_policy_is_reproducible_and_plays_better_openings():
    a = rollout(games=200, seed=4, policy="pubeval", batch_size=50)
    b = rollout(games=200, seed=4, policy="pubeval", batch_size=200)
    assert same(a, b)
    rnd = rollout(games=200, seed=4)
    assert a.turns.mean() < rnd.turns.mean()  # purposeful play ends games sooner


def test_hash_is_counter_based():
    g = np.arange(10)
    h1 = game_hash(5, g, np.full(10, 3), 1)
    h2 = game_hash(5, g[::-1], np.full(10, 3), 1)[::-1]
    assert (h1 == h2).all() and len(set(h1.tolist())) == 10
    assert (game_hash(5, g, np.full(10, 3), 2) != h1).all()


def _slow_random_game(rng: random.Random) -> tuple[int, int]:
    """One game in plain Python over fastgen.legal_plays: R16 opening, uniform choice."""
    while True:
        a, b = rng.randint(1, 6), rng.randint(1, 6)
        if a != b:
            break
    dice = (max(a, b), min(a, b))
    board = fastgen.STARTING_BOARD.copy()
    turn = 0
    while True:
        plays = fastgen.legal_plays(board, dice)
        board = plays.boards[rng.randrange(len(plays))]
        if not board[1].any():
            loser = board[0]
            result = 1 if loser.sum() < 15 else (3 if loser[18:].any() else 2)
            return turn % 2, result
        board = board[::-1].copy()
        turn += 1
        dice = (rng.randint(1, 6), rng.randint(1, 6))


def test_vectorized_rollout_agrees_with_a_slow_python_loop():
    """Chi-square two-sample test on (winner, result) frequencies, fixed seeds."""
    fast = rollout(games=4000, seed=11, batch_size=1000)
    rng = random.Random(12345)
    slow = np.array([_slow_random_game(rng) for _ in range(1200)])
    cats_fast = np.bincount(fast.winner * 3 + fast.result - 1, minlength=6).astype(float)
    cats_slow = np.bincount(slow[:, 0] * 3 + slow[:, 1] - 1, minlength=6).astype(float)
    table = np.stack([cats_fast, cats_slow])
    expected = table.sum(axis=1, keepdims=True) * table.sum(axis=0, keepdims=True) / table.sum()
    chi2 = float(((table - expected) ** 2 / expected).sum())
    assert chi2 < 20.515, (chi2, table)  # 5 degrees of freedom, p = 0.001


def test_rollout_cli_json(capsys):
    from fastgen.cli.main import main

    assert main(["rollout", "--games", "64", "--seed", "3", "--json", "--batch-size", "16"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 64 and data["policy"] == "random" and data["seed"] == 3
    assert main(["rollout", "--games", "20", "--policy", "pubeval"]) == 0
    assert "pubeval" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["rollout", "--games", "0"])


@pytest.mark.parametrize("seed", [0, 1, 2**40 + 3])
def test_native_rollout_equals_the_batched_python_loop(seed):
    """The core's whole-game random rollout plays exactly the games of the batched loop."""
    py = rollout(games=400, seed=seed, engine="python", batch_size=97)
    for threads, chunk in ((1, 400), (2, 33)):
        assert same(py, rollout(games=400, seed=seed, engine="native", threads=threads, batch_size=chunk))
    start = np.stack([fastgen.parse_position_id(p) for p in ("v3sAAAhmdzMAAQ", "v90EAIC3BgAAAA")])
    assert same(
        rollout(games=150, seed=seed, start=start, engine="python"),
        rollout(games=150, seed=seed, start=start, engine="native", threads=2, batch_size=40),
    )


def test_engine_argument_is_checked():
    with pytest.raises(ValueError, match="engine"):
        rollout(games=2, engine="gpu")
    with pytest.raises(ValueError, match="random"):
        rollout(games=2, policy=lambda c, o: np.zeros(len(o) - 1, dtype=np.int64), engine="native")
    with pytest.raises(ValueError, match="threads"):
        rollout(games=2, threads=0)


def test_dice_rolled_in_the_core_follow_game_hash():
    from fastgen.core.hashing import OPENING_DICE, PURPOSE_DICE, PURPOSE_OPENING, game_hash, roll_dice, uniform_index

    rng = np.random.default_rng(3)
    gid = rng.integers(0, 10**9, 5000)
    turn = rng.integers(0, 300, 5000)
    opening = rng.random(5000) < 0.2
    dice = roll_dice(7, gid, turn, opening)
    idx = uniform_index(game_hash(7, gid, turn, PURPOSE_DICE), 36).astype(np.int64)
    want = np.stack([idx // 6 + 1, idx % 6 + 1], axis=1)
    io = uniform_index(game_hash(7, gid, turn, PURPOSE_OPENING), 15).astype(np.intp)
    want[opening] = OPENING_DICE[io[opening]]
    np.testing.assert_array_equal(dice, want)
