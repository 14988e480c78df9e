"""Tesauro's pubeval: published weights, input encoding, hand-computed values, and the
core's choice of play (pubeval_best, best_play) against a double-precision oracle."""

from __future__ import annotations

import numpy as np
import pytest

import fastgen
from fastgen.players import pubeval
import _pubeval_scores as oracle
from fastgen.players.pubeval import CONTACT_WEIGHTS as WC
from fastgen.players.pubeval import RACE_WEIGHTS as WR


def empty():
    return np.zeros((2, 25), dtype=np.int8)


def test_published_weights_spot_check():
    assert WR.shape == WC.shape == (122,)
    assert (WR[0], WR[1], WR[119], WR[121]) == (0.0, -0.17160, -12.32252, 3.42040)
    assert (WC[0], WC[1], WC[120], WC[121]) == (0.25696, -0.66937, 5.62596, -2.75800)


def test_hand_computed_race_value():
    b = empty()
    b[1, 0] = 1  # mover: one checker on its ace point (block 23, n = 1 -> x[116])
    b[0, 0] = 1  # opponent: one on its ace point = mover's 24 (block 0, n = -1 -> x[0])
    expected = WR[116] * 1 + WR[0] * 1 + WR[121] * 14 / 15  # -2.77982 + 0 + 3.19237
    assert oracle.evaluate(b[None], race=True)[0] == pytest.approx(expected)
    assert expected == pytest.approx(0.412553, abs=1e-6)


def test_hand_computed_contact_value_with_opponent_on_the_bar():
    b = empty()
    b[1, 0] = 1
    b[0, 24] = 1  # opponent on the bar: x[120] = 1/2
    assert not pubeval.is_race(b[None])[0]
    expected = WC[116] + WC[120] * 0.5 + WC[121] * 14 / 15  # -1.59529 + 2.81298 - 2.57413
    assert oracle.evaluate(b[None])[0] == pytest.approx(expected)
    assert expected == pytest.approx(-1.356443, abs=1e-6)


def test_hand_computed_stack_of_four():
    b = empty()
    b[1, 5] = 4  # mover's 6 point = block 18: x[92] = 1 (n >= 2), x[94] = (4-3)/2
    b[0, 0] = 1
    expected = WR[92] + WR[94] * 0.5 + WR[121] * 11 / 15  # 5.16874 + 2.675 + 2.50829
    assert oracle.evaluate(b[None], race=True)[0] == pytest.approx(expected)
    assert expected == pytest.approx(10.352033, abs=1e-6)


def test_all_checkers_off_is_the_best_possible_score():
    b = empty()
    b[0, 5] = 15
    assert oracle.evaluate(b[None])[0] == 99999999.0


def test_race_detection():
    assert not pubeval.is_race(fastgen.STARTING_BOARD[None])[0]
    b = empty()
    b[1, 5] = 15  # mover all on its 6 point; opponent all on its 6 point (mover's 19)
    b[0, 5] = 15
    assert pubeval.is_race(b[None])[0]
    b[0, 5], b[0, 19] = 14, 1  # opponent checker on its 20 = mover's 5 point: behind the mover
    assert not pubeval.is_race(b[None])[0]


def _literal(board, race):
    """A direct transcription of Tesauro's encoding (pos[] and setx), for comparison."""
    pos = [0] * 28
    for p in range(1, 25):
        pos[p] = int(board[1, p - 1]) - int(board[0, 24 - p])
    pos[0] = -int(board[0, 24])
    pos[26] = 15 - int(board[1].sum())
    if pos[26] == 15:
        return 99999999.0
    x = [0.0] * 122
    for j in range(1, 25):
        n, k = pos[25 - j], j - 1
        x[5 * k] = float(n == -1)
        x[5 * k + 1] = float(n == 1)
        x[5 * k + 2] = float(n >= 2)
        x[5 * k + 3] = float(n == 3)
        x[5 * k + 4] = (n - 3) / 2 if n >= 4 else 0.0
    x[120] = -pos[0] / 2
    x[121] = pos[26] / 15
    return float(np.dot(WR if race else WC, x))


def test_vectorized_evaluation_matches_the_literal_encoding():
    boards = fastgen.plays_batch(
        np.stack([fastgen.STARTING_BOARD] * 21),
        [(a, b) for a in range(1, 7) for b in range(a, 7)],
    ).boards
    race = np.arange(len(boards)) % 2 == 0
    got = oracle.evaluate(boards, race)
    want = [_literal(b, r) for b, r in zip(boards, race)]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)


def test_best_play_is_pubeval_best_among_one_positions_plays():
    boards, dice = random_game_positions(300, seed=23)
    after = fastgen.pubeval_best(boards, dice)
    for i in range(len(boards)):
        plays = fastgen.legal_plays(boards[i], (int(dice[i, 0]), int(dice[i, 1])))
        k = pubeval.best_play(plays)
        assert 0 <= k < len(plays)
        assert (plays.boards[k] == after[i]).all(), fastgen.position_id(boards[i])
    # the classic opening moves: 3-1 makes the 5 point, 6-5 runs 24/13
    for roll, text in (((3, 1), "8/5 6/5"), ((6, 5), "24/13")):
        plays = fastgen.legal_plays(fastgen.STARTING_BOARD, roll)
        assert str(plays[pubeval.best_play(plays)]) == text


def test_best_play_rejects_what_is_not_a_positions_plays():
    with pytest.raises(InvalidArgumentError, match="best_play needs"):
        pubeval.best_play(fastgen.STARTING_BOARD)
    plays = fastgen.legal_plays(fastgen.STARTING_BOARD, (3, 1))
    bad = plays.boards.copy()
    bad[0, 1, 5] = 9  # 19 checkers: the core would index past its tables
    with pytest.raises(InvalidBoardError):
        pubeval.best_play(fastgen.Plays(plays.board, plays.dice, bad, plays.moves))


# ------------------------------------------------------------------ pubeval_best (core)
# The comparison with GNU Backgammon's own pubeval player is in test_pubeval_gnubg.py.

from hypothesis import given  # noqa: E402

from fastgen.errors import InvalidArgumentError, InvalidBoardError, InvalidDiceError  # noqa: E402
from fastgen.cli.workload import random_game_positions  # noqa: E402

from strategies import positions  # noqa: E402


def _check_choices(boards, dice):
    """Each choice is one of the plays, in plays_batch's orientation, and scores within
    rounding of the best (numpy scores in double precision from the unrounded weights)."""
    after = fastgen.pubeval_best(boards, dice)
    batch = fastgen.plays_batch(boards, dice)
    race = pubeval.is_race(boards)
    for i in range(len(boards)):
        cands = batch.boards[batch.offsets[i] : batch.offsets[i + 1]]
        hit = np.flatnonzero((cands == after[i]).all(axis=(1, 2)))
        assert hit.size == 1, fastgen.position_id(boards[i])
        scores = oracle.evaluate(cands, race[i])
        assert scores[hit[0]] >= scores.max() - 1e-3, fastgen.position_id(boards[i])


def test_pubeval_best_picks_a_best_scoring_play_on_self_play_positions():
    boards, dice = random_game_positions(3_000, seed=21)
    _check_choices(boards, dice)
    boards, dice = random_game_positions(3_000, seed=22, policy="pubeval")
    _check_choices(boards, dice)


@given(positions)
def test_pubeval_best_picks_a_best_scoring_play(position):
    board, dice = position
    _check_choices(board[None], [dice])


def test_pubeval_best_opening_moves():
    after = fastgen.pubeval_best(np.stack([fastgen.STARTING_BOARD] * 2), [(3, 1), (6, 5)])
    names = []
    for b, d in zip(after, [(3, 1), (6, 5)]):
        names += [str(p) for p in fastgen.legal_plays(fastgen.STARTING_BOARD, d) if (p.board_after == b).all()]
    assert names == ["8/5 6/5", "24/13"]


def test_pubeval_best_rejects_bad_input():
    bad = np.stack([fastgen.STARTING_BOARD.copy()])
    bad[0, 1, 5] = 9  # 19 checkers
    with pytest.raises(InvalidBoardError):
        fastgen.pubeval_best(bad, [(3, 1)])
    with pytest.raises(InvalidDiceError):
        fastgen.pubeval_best(np.stack([fastgen.STARTING_BOARD]), [(7, 1)])
    with pytest.raises(InvalidDiceError):
        fastgen.pubeval_best(np.stack([fastgen.STARTING_BOARD] * 2), [(3, 1)])


def test_native_and_python_pubeval_rollouts_play_the_same_games():
    native = fastgen.rollout(games=300, policy="pubeval", seed=5, engine="native")
    python = fastgen.rollout(games=300, policy="pubeval", seed=5, engine="python", batch_size=64)
    assert native.policy == python.policy == "pubeval"
    for key in ("winner", "result", "turns"):
        np.testing.assert_array_equal(getattr(native, key), getattr(python, key))
    random = fastgen.rollout(games=300, policy="random", seed=5)
    assert (random.turns != native.turns).any()  # same dice, other choices


def test_the_compiled_pubeval_needs_no_python_module_loaded_first():
    # Tesauro's weights are compiled into pubeval's extension, which fills its tables when
    # it loads. In a fresh interpreter that loads only the two extensions (fastgen,
    # fastgen.core and fastgen.players as bare packages: neither their __init__ nor
    # fastgen.players.pubeval runs), pubeval already plays the opening 31 as 8/5 6/5.
    import subprocess
    import sys
    from pathlib import Path

    package = Path(fastgen.__file__).parent
    code = f"""
import sys, types
for name, path in (("fastgen", {str(package)!r}), ("fastgen.core", {str(package / "core")!r}),
                   ("fastgen.players", {str(package / "players")!r})):
    stub = types.ModuleType(name)
    stub.__path__ = [path]
    sys.modules[name] = stub
import numpy as np
from fastgen.core import _core
from fastgen.players import _pubeval
board = np.zeros((1, 2, 25), dtype=np.int8)
for side in (0, 1):
    board[0, side, [23, 12, 7, 5]] = [2, 5, 3, 5]  # the starting position (R3)
after = np.empty_like(board)
assert _pubeval.pubeval_best_batch(board, np.array([[3, 1]], dtype=np.int8), after) == -1
print(after[0, 1, :8].tolist(), sorted(m for m in sys.modules if m.startswith("fastgen")))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=package.parent)
    assert done.returncode == 0, done.stderr
    loaded = ("['fastgen', 'fastgen.core', 'fastgen.core._chooser', 'fastgen.core._core', 'fastgen.players', "
              "'fastgen.players._pubeval']")  # its chooser subclasses the core's native-policy ABI
    assert done.stdout.split() == f"[0, 0, 0, 0, 2, 4, 0, 2] {loaded}".split()
