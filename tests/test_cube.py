"""The doubling cube (R18), the Crawford restriction on a game (R20) and Jacoby."""

from __future__ import annotations

import numpy as np
import pytest

from fastgen.errors import (
    CrawfordDoubleError,
    CubeCapError,
    CubeOwnershipError,
    DoubleAfterRollError,
    IllegalDoubleError,
    OutOfOrderError,
    OutOfTurnError,
)
from fastgen.games.game import GAMMON, Game


def snapshot(game: Game):
    return (game.board.tobytes(), game.turn, game.dice, game.cube_value, game.cube_owner,
            game.pending_double, game.winner, game.points, len(game.record))


def after_opening(**kwargs) -> Game:
    """A game where player 0 opened with 3-1 and player 1 is on roll, not yet rolled."""
    g = Game(seed=0, **kwargs)
    g.roll((3, 1))
    g.play("8/5 6/5")
    return g


def next_turn(g: Game) -> None:
    """The side on roll rolls and makes its first legal play."""
    g.roll()
    g.play(g.legal_plays().boards[0])


def test_R18_cube_starts_centred_at_1():
    g = Game()
    assert g.cube_value == 1 and g.cube_owner is None


def test_R18_no_double_before_the_opening_roll():
    g = Game()
    with pytest.raises(OutOfOrderError, match="opening"):
        g.double()


def test_R18_centred_cube_double_take_gives_ownership():
    g = after_opening()
    assert g.may_double
    assert g.double(player=1) == 2
    with pytest.raises(OutOfOrderError):
        g.roll()
    with pytest.raises(OutOfTurnError):
        g.take(player=1)  # the doubler cannot answer its own double
    g.take(player=0)
    assert (g.cube_value, g.cube_owner) == (2, 0)
    next_turn(g)  # player 1 goes on with its turn


def test_R18_double_after_rolling_is_illegal_and_state_unchanged():
    g = after_opening()
    g.roll()
    before = snapshot(g)
    with pytest.raises(DoubleAfterRollError, match="before rolling") as info:
        g.double()
    assert isinstance(info.value, IllegalDoubleError) and isinstance(info.value, ValueError)
    assert snapshot(g) == before


def test_R18_only_the_owner_redoubles():
    g = after_opening()
    g.double()
    g.take()  # player 0 owns the cube at 2
    next_turn(g)  # player 1 plays; player 0 is on roll
    assert g.turn == 0 and g.may_double
    g.double()
    g.take()  # player 1 owns it at 4
    next_turn(g)  # player 0 plays; player 1 (owner) on roll
    next_turn(g)  # player 1 plays; player 0 (not owner) on roll
    before = snapshot(g)
    with pytest.raises(CubeOwnershipError, match="player 1 owns the cube at 4"):
        g.double()
    assert snapshot(g) == before
    assert not g.may_double
    next_turn(g)
    assert g.turn == 1 and g.double() == 8


def test_R18_drop_scores_the_current_cube_value():
    g = after_opening()
    g.double()
    g.take()  # cube 2, owned by player 0
    next_turn(g)
    g.double()  # player 0 redoubles to 4
    g.drop()  # player 1 passes: loses the current value, 2
    assert g.over and g.winner == 0 and g.points == 2 and g.dropped
    first = after_opening()
    first.double()
    first.drop()
    assert (first.winner, first.points) == (1, 1)


def test_R18_cap_64_by_default_and_settable():
    g = after_opening()
    for value in (2, 4, 8, 16, 32, 64):
        assert g.double() == value
        g.take()
        next_turn(g)  # the taker, now on roll... after this the doubler is on roll
        next_turn(g)
        if g.cube_owner != g.turn:
            next_turn(g)
    assert g.cube_value == 64
    before = snapshot(g)
    with pytest.raises(CubeCapError, match="64"):
        g.double()
    assert snapshot(g) == before

    small = after_opening(cube_cap=2)
    small.double()
    small.take()
    next_turn(small)
    with pytest.raises(CubeCapError):
        small.double()
    with pytest.raises(ValueError, match="3"):
        Game(cube_cap=3)


def test_R20_no_doubling_in_a_crawford_game():
    g = after_opening(crawford=True)
    before = snapshot(g)
    with pytest.raises(CrawfordDoubleError, match="Crawford"):
        g.double()
    assert snapshot(g) == before
    assert not g.may_double


def _gammon_game(jacoby: bool, turn_cube: bool) -> Game:
    """Find (deterministically) a random game that ends in a gammon."""
    for seed in range(200):
        g = Game(seed=seed, jacoby=jacoby)
        rng = np.random.default_rng(seed)
        g.roll()
        g.play(g.legal_plays().boards[0])
        if turn_cube:
            g.double()
            g.take()
        while not g.over:
            if g.dice is None:
                g.roll()
            plays = g.legal_plays()
            g.play(plays.boards[rng.integers(len(plays))])
        if g.result == GAMMON:
            return g
    raise AssertionError("no gammon in 200 seeded games")


def test_jacoby_gammon_counts_single_unless_the_cube_was_turned():
    assert _gammon_game(jacoby=False, turn_cube=False).points == 2
    assert _gammon_game(jacoby=True, turn_cube=False).points == 1
    assert _gammon_game(jacoby=True, turn_cube=True).points == 4
