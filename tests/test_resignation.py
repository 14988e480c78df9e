"""Resignations: offer, accept or reject, scored in the game and the match."""

from __future__ import annotations

import pytest

from fastgen.errors import (
    CrawfordDoubleError,
    GameOverError,
    IllegalActionError,
    InvalidResignationError,
    OutOfOrderError,
    OutOfTurnError,
)
from fastgen.games.game import BACKGAMMON, GAMMON, SINGLE, Game
from fastgen.games.match import Match


def started(**kwargs) -> Game:
    g = Game(seed=1, **kwargs)
    g.roll((5, 2))  # player 0 opens
    g.play(g.legal_plays().boards[0])
    return g


@pytest.mark.parametrize("result", [SINGLE, GAMMON, BACKGAMMON])
def test_accepted_resignation_scores_result_times_cube(result):
    g = started()
    g.double()  # player 1 doubles, player 0 takes: cube 2
    g.take()
    assert g.resign(result, player=1) == 2 * result
    g.accept_resignation(player=0)
    assert g.over and g.resigned and not g.dropped
    assert (g.winner, g.result, g.points) == (0, result, 2 * result)
    assert [a.kind for a in g.record][-2:] == ["resign", "accept"]
    assert Game.replay(g.record).points == 2 * result


def test_rejected_resignation_lets_play_go_on():
    g = started()
    g.resign(GAMMON)  # the side on roll by default
    with pytest.raises(OutOfOrderError, match="accepted or rejected"):
        g.roll()
    with pytest.raises(OutOfTurnError):
        g.reject_resignation(player=g.turn)  # the resigner cannot answer its own offer
    g.reject_resignation()
    assert g.pending_resignation is None and not g.over
    g.roll()
    g.play(g.legal_plays().boards[0])
    replayed = Game.replay(g.record)
    assert replayed.record == g.record and not replayed.over


def test_resignation_after_rolling_and_by_the_other_player():
    g = started()
    g.roll((6, 1))
    g.resign(SINGLE)
    g.accept_resignation()
    assert (g.winner, g.points) == (0, 1) and g.dice == (6, 1)
    h = started()
    h.resign(SINGLE, player=0)  # player 1 is on roll; player 0 gives up anyway
    h.accept_resignation(player=1)
    assert (h.winner, h.points) == (1, 1)


def test_bad_resignations_are_refused_and_leave_the_state():
    g = Game(seed=2)
    with pytest.raises(OutOfOrderError, match="opening roll"):
        g.resign()
    g = started()
    for bad in (0, 4, True, 1.0, "1", None):
        with pytest.raises(InvalidResignationError, match=repr(bad).replace("(", r"\(")):
            g.resign(bad)
    with pytest.raises(OutOfTurnError):
        g.resign(SINGLE, player=2)
    with pytest.raises(OutOfOrderError, match="no resignation"):
        g.accept_resignation()
    g.double()
    with pytest.raises(OutOfOrderError, match="double is pending"):
        g.resign()
    g.drop()
    with pytest.raises(GameOverError):
        g.resign()
    assert all(issubclass(e, (IllegalActionError, ValueError)) for e in (InvalidResignationError,))


def test_jacoby_money_game_counts_a_resigned_gammon_single_with_the_cube_centred():
    g = started(jacoby=True)
    g.resign(GAMMON)
    g.accept_resignation()
    assert g.points == 1


def test_match_scores_resignations_and_crawford_follows():
    m = Match(3, seed=5)
    g = m.new_game()
    g.roll((4, 1))
    g.play(g.legal_plays().boards[0])
    g.resign(GAMMON)
    g.accept_resignation()
    assert m.score == (2, 0)
    crawford = m.new_game()
    assert crawford.crawford
    crawford.roll()
    crawford.play(crawford.legal_plays().boards[0])
    with pytest.raises(CrawfordDoubleError):
        crawford.double()
    crawford.resign(BACKGAMMON)
    crawford.accept_resignation()
    assert m.over and max(m.score) >= 3
