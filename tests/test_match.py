"""Matches to N points (R19), the Crawford and post-Crawford games (R20), money play."""

from __future__ import annotations

import numpy as np
import pytest

from fastgen.errors import CrawfordDoubleError, GameOverError, OutOfOrderError
from fastgen.games.match import Match


def win_one_point(match: Match, winner: int) -> None:
    """A new game that *winner* wins 1 point: the loser opens, *winner* doubles, loser drops."""
    g = match.new_game()
    loser = 1 - winner
    g.roll((1, 2) if loser == 1 else (2, 1))
    g.play(g.legal_plays().boards[0])
    g.double(player=winner)
    g.drop(player=loser)


def play_out(game, rng) -> None:
    while not game.over:
        if game.dice is None:
            game.roll()
        plays = game.legal_plays()
        game.play(plays.boards[rng.integers(len(plays))])


def test_R19_match_ends_when_a_side_reaches_N():
    m = Match(3, seed=1)
    win_one_point(m, 0)
    win_one_point(m, 1)
    assert m.score == (1, 1) and not m.over
    win_one_point(m, 0)
    assert m.score == (2, 1)
    assert m.crawford_game is False
    g = m.new_game()  # the Crawford game
    play_out(g, np.random.default_rng(0))
    if not m.over:
        assert m.post_crawford
        g = m.new_game()
        g.roll()
        g.play(g.legal_plays().boards[0])
        g.double()
        g.drop()
    assert m.over and m.winner in (0, 1) and max(m.score) >= 3
    with pytest.raises(GameOverError, match="match is over"):
        m.new_game()


def test_R19_new_game_only_after_the_current_one_ends():
    m = Match(5, seed=2)
    m.new_game()
    with pytest.raises(OutOfOrderError):
        m.new_game()


def test_R20_crawford_game_forbids_doubling_and_post_crawford_allows_it():
    for seed in range(60):  # find (deterministically) a Crawford game the trailer wins
        m = Match(3, seed=seed)
        win_one_point(m, 0)
        win_one_point(m, 0)  # 2-0: player 0 is 1-away for the first time
        assert m.score == (2, 0) and not m.crawford_game
        g = m.new_game()
        assert g.crawford and m.crawford_game and not m.post_crawford
        g.roll()
        g.play(g.legal_plays().boards[0])
        with pytest.raises(CrawfordDoubleError):
            g.double()
        play_out(g, np.random.default_rng(seed))
        if g.winner == 1 and not m.over:
            break
    else:
        raise AssertionError("player 1 never won the Crawford game")
    assert m.post_crawford
    g = m.new_game()
    assert not g.crawford and not m.crawford_game and m.post_crawford
    g.roll()
    g.play(g.legal_plays().boards[0])
    assert g.may_double
    g.double()  # allowed again after the Crawford game


def test_R20_only_one_crawford_game_per_match():
    m = Match(3, seed=3)
    win_one_point(m, 0)
    win_one_point(m, 0)
    g = m.new_game()
    assert g.crawford
    # player 1 wins the Crawford game by 2 (a gammon is not needed: force the score)
    g.roll((1, 2))
    g.play(g.legal_plays().boards[0])
    g.roll()
    g.play(g.legal_plays().boards[0])
    while not g.over:  # play to the end
        if g.dice is None:
            g.roll()
        g.play(g.legal_plays().boards[0])
    if m.over:
        pytest.skip("player 0 won the Crawford game with this seed")
    s = m.score
    for _ in range(2):
        if m.over:
            break
        if s[1] < 2:
            win_one_point(m, 1)
            s = m.score
            assert not m.game.crawford  # reaching 1-away later gives no second Crawford game
    assert sum(g.crawford for g in m.games) == 1


def test_R20_crawford_game_comes_the_first_time_a_side_is_1_away():
    m = Match(5, seed=4)
    for winner in (1, 1, 0, 1):
        win_one_point(m, winner)
    assert m.score == (1, 3) and not m.game.crawford
    win_one_point(m, 1)  # 1-4: player 1 is 1-away
    assert m.new_game().crawford


def test_R19_money_play_never_ends_and_has_no_crawford():
    m = Match(0, seed=5, jacoby=True)
    for _ in range(6):
        win_one_point(m, 0)
    assert m.score == (6, 0) and not m.over and m.winner is None
    assert not any(g.crawford for g in m.games)
    assert all(g.jacoby for g in m.games)


def test_match_arguments_are_checked():
    with pytest.raises(ValueError, match="-1"):
        Match(-1)
    with pytest.raises(ValueError, match="Jacoby"):
        Match(5, jacoby=True)


def test_scores_before_each_game():
    m = Match(7, seed=6)
    for winner in (0, 1, 1):
        win_one_point(m, winner)
    assert [m.scores_before(i) for i in range(3)] == [(0, 0), (1, 0), (1, 1)]
