"""Game flow: the opening roll (R16), turns with legal plays, game end and scoring (R17)."""

from __future__ import annotations

import numpy as np
import pytest

import fastgen
from fastgen.errors import (
    FastgenError,
    GameOverError,
    IllegalActionError,
    IllegalGamePlayError,
    InvalidDiceError,
    OutOfOrderError,
    OutOfTurnError,
)
from fastgen.games.game import BACKGAMMON, GAMMON, OPENING_ROLLS, SINGLE, Game, result_type, result_types


def play_out(game: Game, rng: np.random.Generator) -> Game:
    """Play *game* to the end with uniformly random legal plays, no cube."""
    while not game.over:
        if game.dice is None:
            game.roll()
        plays = game.legal_plays()
        game.play(plays.boards[rng.integers(len(plays))])
    return game


def snapshot(game: Game):
    return (
        game.board.tobytes(), game.turn, game.dice, game.cube_value, game.cube_owner,
        game.pending_double, game.winner, game.points, len(game.record),
    )


def test_R16_opening_roll_is_never_a_double_and_all_15_rolls_occur():
    seen = set()
    for seed in range(1500):
        dice = Game(seed=seed).roll()
        assert dice[0] != dice[1]
        seen.add(dice)
    assert seen == set(OPENING_ROLLS)
    assert len(OPENING_ROLLS) == 15


def test_R16_higher_die_starts_and_plays_both_numbers():
    g = Game()
    assert g.roll((2, 5)) == (5, 2)  # player 0 rolled 2, player 1 rolled 5
    assert g.turn == 1
    assert len(g.legal_plays()) == len(fastgen.legal_plays(fastgen.STARTING_BOARD, (5, 2)))
    g2 = Game()
    g2.roll((6, 1))
    assert g2.turn == 0 and g2.dice == (6, 1)


def test_R16_opening_tie_is_rejected_and_state_unchanged():
    g = Game()
    before = snapshot(g)
    with pytest.raises(InvalidDiceError, match=r"\(4, 4\)"):
        g.roll((4, 4))
    assert snapshot(g) == before


def test_R17_random_game_ends_with_a_winner_and_points():
    g = play_out(Game(seed=11), np.random.default_rng(11))
    assert g.over and g.winner in (0, 1)
    assert g.result in (SINGLE, GAMMON, BACKGAMMON)
    assert g.points == g.result * g.cube_value
    assert int(g.board_for(g.winner)[1].sum()) == 0
    with pytest.raises(GameOverError):
        g.roll()


@pytest.mark.parametrize(
    "loser, expected",
    [
        ({5: 14}, SINGLE),  # one checker off: single, wherever the rest stand
        ({5: 13, 20: 1}, SINGLE),
        ({5: 15}, GAMMON),  # none off, none in the winner's home board
        ({17: 1, 5: 14}, GAMMON),  # point 18 is outside the winner's home board
        ({18: 1, 5: 14}, BACKGAMMON),  # point 19 is inside it
        ({23: 1, 5: 14}, BACKGAMMON),  # point 24
        ({24: 1, 5: 14}, BACKGAMMON),  # on the bar
    ],
)
def test_R17_gammon_and_backgammon_boundaries(loser, expected):
    board = np.zeros((2, 25), dtype=np.int8)
    for index, count in loser.items():
        board[0, index] = count
    assert result_type(board) == expected


def test_turns_need_a_legal_play_and_illegal_play_leaves_state_unchanged():
    g = Game()
    g.roll((3, 1))  # player 0 starts with 3-1
    before = snapshot(g)
    bad = fastgen.STARTING_BOARD.copy()
    bad[1, 5] -= 1
    bad[1, 0] += 1  # 6/1: five pips with a 3-1
    with pytest.raises(IllegalGamePlayError, match="not one of the 16 legal plays") as info:
        g.play(bad)
    assert isinstance(info.value, IllegalActionError) and isinstance(info.value, ValueError)
    assert isinstance(info.value, FastgenError)
    assert snapshot(g) == before
    with pytest.raises(IllegalGamePlayError, match="'8/4 6/5'"):
        g.play("8/4 6/5")
    with pytest.raises(IllegalGamePlayError, match="'nonsense'"):
        g.play("nonsense")
    assert snapshot(g) == before
    g.play("8/5 6/5")
    assert g.turn == 1 and g.dice is None
    # the board is now from player 1's view: player 0's 5 point is player 1's 20 point
    assert g.board[0, 4] == 2


def test_moving_out_of_turn_raises_and_leaves_state_unchanged():
    g = Game()
    g.roll((1, 6))  # player 1 starts
    before = snapshot(g)
    plays = g.legal_plays()
    with pytest.raises(OutOfTurnError, match="player 0"):
        g.play(plays.boards[0], player=0)
    assert snapshot(g) == before
    g.play(plays.boards[0], player=1)
    with pytest.raises(OutOfTurnError):
        g.roll(player=1)


def test_actions_out_of_order():
    g = Game(seed=1)
    with pytest.raises(OutOfOrderError):
        g.legal_plays()
    g.roll()
    with pytest.raises(OutOfOrderError, match="already rolled"):
        g.roll()
    g.play(g.legal_plays().boards[0])
    with pytest.raises(OutOfOrderError, match="roll first"):
        g.play(fastgen.STARTING_BOARD)
    with pytest.raises(InvalidDiceError, match="7"):
        g.roll((7, 1))


def test_dice_are_reproducible_from_seed_or_generator():
    a = play_out(Game(seed=5), np.random.default_rng(0))
    b = play_out(Game(seed=np.random.default_rng(5)), np.random.default_rng(0))
    assert a.record == b.record


def test_game_replays_from_its_record():
    g = play_out(Game(seed=21), np.random.default_rng(3))
    r = Game.replay(g.record)
    assert r.record == g.record
    assert (r.winner, r.result, r.points, r.turns) == (g.winner, g.result, g.points, g.turns)
    assert (r.board == g.board).all()


def test_replay_of_a_tampered_record_raises():
    g = play_out(Game(seed=2), np.random.default_rng(2))
    record = list(g.record)
    kind, player, data = record[3]
    assert kind == "play"
    record[3] = (kind, 1 - player, data)
    with pytest.raises(OutOfTurnError):
        Game.replay(record)


def test_result_types_of_many_boards_equal_result_type_one_by_one():
    """The batch (compiled row measures) against the one-board rule (R17): boards where
    the mover (row 1) has borne off its last checker, with the loser's checkers off, on
    the bar or in the winner's home board in every mix, and boards still in play (0)."""
    rng = np.random.default_rng(5)
    boards = np.zeros((400, 2, 25), np.int8)
    for b in boards:
        left = 15 - int(rng.integers(0, 3)) * int(rng.integers(0, 8))  # some borne off, or none
        where = [0, 5, 12] if rng.random() < 0.5 else [0, 5, 12, 18, 20, 23, 24]
        for _ in range(left):
            b[0, int(rng.choice(where))] += 1
        if rng.random() < 0.3:  # the mover still has a checker: the game goes on
            b[1, int(rng.integers(0, 6))] = 1
    got = result_types(boards)
    want = [0 if b[1].any() else result_type(b) for b in boards]
    assert got.tolist() == want
    assert set(want) == {0, SINGLE, GAMMON, BACKGAMMON}
