"""An evaluator's answers are checked (shape, finite, in [0, 1], gammons <= wins and
backgammons <= gammons for both sides) and the arrays handed to a user's policy or
evaluator are read-only, so a bad answer or a stray write fails loudly instead of giving
a wrong result."""

from __future__ import annotations

import numpy as np
import pytest

import fastgen
from fastgen.players import evaluators as ev
from fastgen.errors import InvalidArgumentError, InvalidOutputError

from _positions import random_play_positions
from _td40 import td40

START = fastgen.STARTING_BOARD


def _const(value):
    return lambda b: np.full((len(b), 5), value)


@pytest.mark.parametrize("value, rule", [(-3.0, ">= 0"), (2.0, "<= 1")])
def test_out_of_range_probabilities_are_refused(value, rule):
    with pytest.raises(InvalidOutputError, match=rule) as info:
        fastgen.rollout_plays(START, (3, 1), _const(value), trials=36, plays=2)
    msg = str(info.value)
    assert "'<lambda>'" in msg and "position ID" in msg and repr([value] * 5) in msg
    assert isinstance(info.value, InvalidArgumentError)  # what the shape check raised before


# One row breaking exactly one rule each; the message names that rule.
_BAD_ROWS = [
    ([0.4, 0.5, 0.0, 0.1, 0.0], "P(win gammon) <= P(win)"),
    ([0.6, 0.2, 0.3, 0.1, 0.0], "P(win backgammon) <= P(win gammon)"),
    ([0.6, 0.2, 0.0, 0.5, 0.0], "P(lose gammon) <= P(lose) = 1 - P(win)"),
    ([0.6, 0.2, 0.0, 0.1, 0.2], "P(lose backgammon) <= P(lose gammon)"),
    ([0.6, 0.2, 0.0, 0.1, np.nan], "every value finite"),
]


@pytest.mark.parametrize("row, rule", _BAD_ROWS)
def test_each_rule_is_named_with_the_first_bad_row(row, rule):
    boards = np.stack([START, fastgen.swap_sides(START), START])
    good = np.array([0.5, 0.1, 0.01, 0.1, 0.01])

    def f(b):
        out = np.tile(good, (len(b), 1))
        out[1:] = row  # rows 1 and 2 bad: row 1 is quoted
        return out

    with pytest.raises(InvalidOutputError) as info:
        ev.evaluate(f, boards)
    msg = str(info.value)
    assert rule in msg and "row 1 of 3" in msg
    assert repr(fastgen.position_id(boards[1])) in msg


def test_rounding_within_the_tolerance_is_accepted():
    tol = ev.PROB_TOLERANCE
    row = np.array([1.0 + tol / 2, 1.0 + tol / 2, 1.0, 0.0, -tol / 2])
    ev.evaluate(lambda b: np.tile(row, (len(b), 1)), START[None])
    with pytest.raises(InvalidOutputError, match="<= 1"):
        ev.evaluate(lambda b: np.tile(row + [2 * tol, 0, 0, 0, 0], (len(b), 1)), START[None])


def test_shape_errors_still_name_the_evaluator():
    with pytest.raises(InvalidOutputError, match=r"must return \(1, 5\)"):
        ev.evaluate(lambda b: np.zeros((1, 4)), START[None])


def test_a_network_answers_ordered_probabilities_and_a_chain_follows_its_parts():
    # A network's five outputs are independent sigmoids: a random one breaks the order
    # rules by far before they are cut, so every rule is checked on its answers.
    net = ev.random_network(hidden=8, seed=1)
    boards = np.stack([START] * 4)
    raw = net.forward(net.features(boards))[1]
    assert (raw[:, 1] > raw[:, 0]).any() or (raw[:, 3] > 1 - raw[:, 0]).any() or (raw[:, 4] > raw[:, 3]).any()
    assert net.ordered is True
    p = ev.evaluate(net, boards)
    assert p.shape == (4, 5)
    np.testing.assert_array_equal(p[:, 0], raw[:, 0])  # P(win) as the network answered it
    assert (p[:, 1] <= p[:, 0]).all() and (p[:, 2] <= p[:, 1]).all()
    # 1 - P(win) is taken in float32, the network's dtype: one rounding (< 6e-8) from float64's.
    assert (p[:, 3] <= 1 - p[:, 0] + 6e-8).all() and (p[:, 4] <= p[:, 3]).all()
    from fastgen import bearoff

    unordered = _const(0.0)
    unordered.ordered = False
    assert ev.chain(ev.bearoff(bearoff.build_two_sided(6, 2)), net).ordered is True
    assert ev.chain(ev.bearoff(bearoff.build_two_sided(6, 2)), unordered).ordered is False


def test_a_three_output_network_keeps_every_rule_on_random_play():
    # A trained three-output network's (tests/data/td40.npz) raw P(win gammon) tops its P(win) on some positions of
    # random play (by up to 4.5e-4 here, and P(lose gammon) its P(lose) by 5e-3); its
    # answers keep every rule, and only the cut
    # values move.
    net = td40()
    boards = random_play_positions(games=200, plies=100, seed=5)
    raw = net.forward(net.features(boards))[1]
    assert (raw[:, 1] > raw[:, 0]).any() and (raw[:, 2] > 1 - raw[:, 0]).any()
    p = ev.evaluate(net, boards)
    np.testing.assert_array_equal(p[:, 0], raw[:, 0])
    np.testing.assert_array_equal(p[:, 1], np.minimum(raw[:, 1], raw[:, 0]))
    np.testing.assert_array_equal(p[:, 3], np.minimum(raw[:, 2], 1 - raw[:, 0]))
    assert (p[:, [2, 4]] == 0).all()


def test_gnubg_nets_pass_the_check_on_a_rollout():
    pytest.importorskip("gnubg_nn", reason="needs the peers extra: pip install '.[peers]'")
    # Every evaluator call of the rollout is checked with all the rules (gnubg's nets
    # are ordered): 36 trials of two candidates, played out.
    t = fastgen.rollout_plays(START, (3, 1), ev.gnubg(0), trials=36, plays=2, seed=1)
    assert len(t.rows) == 2 and t.stats["calls"] > 0


def test_bearoff_evaluators_pass_the_check_on_a_rollout():
    from fastgen import bearoff

    db = bearoff.build_two_sided(6, 4)
    exact = ev.bearoff(db)
    b = np.zeros((2, 25), dtype=np.int8)
    b[1, [0, 1, 3, 5]] = 1
    b[0, [0, 2, 4, 5]] = 1
    assert exact.covers(b[None]).tolist() == [True]
    t = fastgen.rollout_plays(b, (2, 1), ev.chain(exact, _const(0.0)), trials=36, seed=1)
    assert t.stats["calls"] > 0
    one = ev.bearoff(bearoff.build_one_sided(6))  # one-sided numbers, checked as well
    t = fastgen.rollout_plays(b, (2, 1), ev.chain(one, _const(0.0)), trials=36, seed=1)
    assert t.stats["calls"] > 0


# --------------------------------------------------------------------------- read-only inputs


def _writer(c, o):
    c[...] = 0  # wipes every candidate: a game would end in a turn or two
    return np.zeros(len(o) - 1, dtype=np.int64)


def test_a_policy_that_writes_its_candidates_fails_in_a_duel():
    with pytest.raises(ValueError, match="read-only"):
        fastgen.duel(_writer, "random", 4)


def test_a_policy_that_writes_its_candidates_fails_in_a_rollout():
    with pytest.raises(ValueError, match="read-only"):
        fastgen.rollout(games=4, policy=_writer)


def test_every_array_a_position_policy_gets_is_read_only():
    seen = []

    def policy(candidates, offsets, boards, dice):
        seen.append([a.flags.writeable for a in (candidates, offsets, boards, dice)])
        return np.zeros(len(offsets) - 1, dtype=np.int64)

    policy.wants_position = True  # type: ignore[attr-defined]
    fastgen.duel(policy, "random", 4, seed=1)
    assert seen and all(flags == [False] * 4 for flags in seen)


def test_an_evaluator_gets_read_only_boards():
    seen = []

    def f(b):
        seen.append(b.flags.writeable)
        with pytest.raises(ValueError, match="read-only"):
            b[0, 0, 0] = 9
        return np.tile([0.5, 0.1, 0.01, 0.1, 0.01], (len(b), 1))

    t = fastgen.rollout_plays(START, (3, 1), f, trials=36, plays=2)
    assert seen and not any(seen) and len(t.rows) == 2


def test_an_env_opponent_that_writes_its_candidates_fails(tmp_path, monkeypatch):
    pytest.importorskip("gymnasium", reason="needs the rl extra: pip install '.[rl]'")
    from fastgen.envs import BackgammonEnv

    # A batch policy reaches the env by a spec (a plain callable gets copies).
    (tmp_path / "evalcheck_writer.py").write_text(
        "import numpy as np\n"
        "def policy(c, o):\n"
        "    c[...] = 0\n"
        "    return np.zeros(len(o) - 1, dtype=np.int64)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    env = BackgammonEnv(opponent="evalcheck_writer:policy")
    with pytest.raises(ValueError, match="read-only"):
        for seed in range(20):  # the opponent moves first in about half the games
            env.reset(seed=seed)
            env.step(int(np.flatnonzero(env.action_masks())[0]))
