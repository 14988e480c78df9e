"""A match read as its decisions: the positions where a player chose something.

:func:`walk` replays every game of a :class:`fastgen.Match` (each action checked again
by :class:`fastgen.Game`) and lists, in match order:

- a :class:`Turn` for every roll: the position before it (side on roll in row 1), the
  score and cube as a :class:`fastgen.MatchState`, the dice, whether it is the game's
  opening roll, and the board after the play made (None for a game that stopped after
  the roll, before the play);
- a :class:`CubePoint` for every cube decision: the side on roll could double before
  its roll and did not (a *no double*, which GNU Backgammon also counts), doubled, or,
  for its opponent, took or passed a double.

Resignations end games but are not judged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fastgen.core.state import MatchState
from fastgen.games.game import Game
from fastgen.games.match import Match

__all__ = ["Turn", "CubePoint", "walk", "match_state", "with_on_roll"]


@dataclass(frozen=True)
class Turn:
    """One roll and its play: ``game`` (0-based), ``move`` (the game's turn number,
    from 1), ``player`` (who rolled), ``board`` (2, 25) before the roll from its view,
    ``state``, ``dice``, ``opening`` and ``after`` (the board after the play made, from
    the mover's view, or None)."""

    game: int
    move: int
    player: int
    board: np.ndarray
    state: MatchState
    dice: tuple[int, int]
    opening: bool
    after: np.ndarray | None


@dataclass(frozen=True)
class CubePoint:
    """One cube decision: ``kind`` is ``"no double"``, ``"double"``, ``"take"`` or
    ``"pass"``; ``player`` made it; ``board`` and ``state`` are the doubler's position
    before its roll (the doubler on roll, the cube before the double), ``move`` the
    number of the turn it belongs to."""

    game: int
    move: int
    player: int
    kind: str
    board: np.ndarray
    state: MatchState


def match_state(match: Match, game: Game, index: int) -> MatchState:
    """Game *index* of *match* as it stands (before any pending double's answer): score,
    cube, Crawford, the side on roll."""
    on_roll = game.turn if game.turn is not None else 0
    return MatchState(match_length=match.length, score=match.scores_before(index), cube_value=game.cube_value,
                      cube_owner=game.cube_owner, crawford=game.crawford, jacoby=game.jacoby, on_roll=on_roll,
                      max_cube=max(game.cube_cap, 1024))


def walk(match: Match) -> tuple[list[Turn], list[CubePoint]]:
    """The turns and cube decisions of *match*, each list in match order (module docstring)."""
    turns: list[Turn] = []
    cubes: list[CubePoint] = []
    again = Match(match.length, names=match.names, crawford=match.crawford_rule, jacoby=match.jacoby,
                  cube_cap=match.cube_cap)
    for gi, original in enumerate(match.games):
        game = again.new_game()
        move = 0
        doubled_this_turn = False
        pending: tuple[np.ndarray, MatchState] | None = None  # the double awaiting its answer
        for action in original.record:
            kind, player = action.kind, action.player
            if kind in ("opening", "roll"):
                move += 1
                if kind == "roll" and not doubled_this_turn and game.may_double:
                    cubes.append(CubePoint(gi, move, player, "no double", game.board, match_state(again, game, gi)))
                state = match_state(again, game, gi)
                board = game.board
                game.apply([action])
                mover, dice = game.turn, game.dice
                assert mover is not None and dice is not None  # a roll was just made
                turns.append(Turn(gi, move, mover, board if kind == "roll" else game.board,
                                  with_on_roll(state, mover), dice, kind == "opening", None))
                doubled_this_turn = False
                continue
            if kind == "play":
                last = turns[-1]
                game.apply([action])
                turns[-1] = Turn(last.game, last.move, last.player, last.board, last.state, last.dice, last.opening,
                                 np.frombuffer(action.data, dtype=np.int8).reshape(2, 25).copy()
                                 if isinstance(action.data, bytes) else np.asarray(action.data, dtype=np.int8))
                continue
            if kind == "double":
                pending = (game.board, match_state(again, game, gi))
                cubes.append(CubePoint(gi, move + 1, player, "double", *pending))
                doubled_this_turn = True
            elif kind in ("take", "drop") and pending is not None:
                cubes.append(CubePoint(gi, move + 1, player, "take" if kind == "take" else "pass", *pending))
                pending = None
            game.apply([action])
    return turns, cubes


def with_on_roll(state: MatchState, on_roll: int | None) -> MatchState:
    """*state* with *on_roll* on roll (the opening roll decides who that is; the
    judge turns a state to the opponent's with it)."""
    if on_roll is None or on_roll == state.on_roll:
        return state
    return MatchState(match_length=state.match_length, score=state.score, cube_value=state.cube_value,
                      cube_owner=state.cube_owner, crawford=state.crawford, jacoby=state.jacoby, on_roll=on_roll,
                      max_cube=state.max_cube)
