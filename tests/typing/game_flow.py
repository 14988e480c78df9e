"""Boards, games, matches, IDs and rollouts the way users drive them. tests/test_typing.py
checks this file with ``mypy --strict`` (``assert_type`` fails where fastgen's types are
missing or Any) and runs it as a script."""

from __future__ import annotations

import sys
from typing import Optional, Tuple

import fastgen

if sys.version_info >= (3, 11):
    from typing import assert_type
else:  # pragma: no cover
    from typing_extensions import assert_type


def board_object() -> str:
    """A Board: push and pop plays, read pips and IDs."""
    board = fastgen.Board()
    assert_type(board.pip_count(), Tuple[int, int])
    plays = board.legal_plays((3, 1))
    assert_type(plays, fastgen.Plays)
    board.push(plays[0])
    last = board.pop()
    assert_type(last, fastgen.Play)
    assert str(last) == str(plays[0])
    pid = board.position_id()
    assert_type(pid, str)
    assert fastgen.Board.from_position_id(pid) == board
    return str(board)


def one_game() -> int:
    """A game with a seed, played to the end with the first legal play each turn."""
    game = fastgen.Game(seed=7)
    while not game.over:
        dice = game.roll()
        assert_type(dice, Tuple[int, int])
        plays = game.legal_plays()
        assert_type(plays, fastgen.Plays)
        game.play(plays[0])
    assert_type(game.winner, Optional[int])
    assert game.winner in (0, 1)
    assert_type(game.points, int)
    return game.points


def a_match() -> tuple[int, int]:
    """A 3-point match whose first game ends with a dropped double."""
    match = fastgen.Match(length=3, seed=1)
    game = match.new_game()
    assert_type(game, fastgen.Game)
    game.roll()
    game.play(game.legal_plays()[0])
    assert_type(game.double(), int)
    game.drop()
    assert_type(match.score, Tuple[int, int])
    return match.score


def ids() -> str:
    """Match IDs and XGIDs."""
    state = fastgen.MatchState(match_length=5, score=(1, 2), cube_value=2, cube_owner=0)
    mid = fastgen.match_id(state)
    assert_type(mid, str)
    back = fastgen.parse_match_id(mid)
    assert_type(back, fastgen.MatchState)
    assert back.score == (1, 2)
    text = fastgen.xgid(fastgen.STARTING_BOARD, state)
    assert_type(text, str)
    return text


def rollouts() -> float:
    """A small rollout and its summary."""
    result = fastgen.rollout(games=50, seed=3)
    assert_type(result, fastgen.sim.RolloutResult)
    summary = result.summary()
    assert_type(summary, fastgen.sim.RolloutSummary)
    assert_type(summary.win, Tuple[float, float])
    return summary.win[0]


if __name__ == "__main__":
    print(board_object(), one_game(), a_match(), ids(), rollouts())
