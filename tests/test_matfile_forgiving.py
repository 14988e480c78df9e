"""What real exported match files hold, read as GNU Backgammon reads it: one test a
feature, each on a file of the corpus (``tests/data/matches``) that has it. What gnubg
makes of each file is checked for the whole corpus by ``tests/test_match_corpus.py``;
here the reading itself is spelt out."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import fastgen
from fastgen.errors import MatFileError, MatFileWarning

CORPUS = Path(__file__).parent / "data" / "matches"


def _read(name: str, folder: str = "galaxy", **kwargs):
    return fastgen.formats.read_mat(CORPUS / folder / name, **kwargs)


def _plays(game):
    """(player, board before, board after) of each play of *game*."""
    out = []
    walker = fastgen.Game(cube_cap=game.cube_cap, crawford=game.crawford, jacoby=game.jacoby)
    for kind, player, data in game.record:
        if kind == "play":
            before = walker.board.copy()
            walker.apply([(kind, player, data)])
            out.append((player, before, np.frombuffer(data, np.int8).reshape(2, 25)))
        else:
            walker.apply([(kind, player, data)])
    return out


def test_numbers_for_bar_and_off_and_hits_without_a_star():
    # game 1: "44: 25/21 11/7 11/7 8/4" enters from the bar (25); "55: 6/1 6/1 23/18 18/13"
    # hits on the 1 point (gnubg's export writes 6/1*); "4/0" style bear-offs end game 2
    game = _read("match10013413.txt").games[0]
    plays = _plays(game)
    player, before, after = plays[5]  # player 0's third play: 55
    assert player == 0 and after[0, 24] == before[0, 24] + 1  # the hit put a checker on the bar
    player, before, after = plays[6]  # player 1's 44 enters from the bar
    assert player == 1 and before[1, 24] == 1 and after[1, 24] == 0


def test_a_play_written_checker_by_checker_lands_where_written():
    # "41: 6/2 2/1" stops on the 2 point, where a lone opposing checker stands, and goes
    # on to the 1 point, where the other one stands: both are hit (6/2*/1*), which
    # decides between the legal plays ending on the same points (6/5/1* hits one)
    game = _read("match1090738.txt").games[1]
    player, before, after = _plays(game)[2]
    assert player == 1
    assert after[1, 0] == before[1, 0] + 1 and after[1, 5] == before[1, 5] - 1
    assert after[0, 24] == before[0, 24] + 2


def test_losses_lines_and_a_resignation_accepted_for_fewer_points_than_the_board():
    match = _read("match10058734.txt")  # " 33)  Losses 1 point    Wins 1 point and the match"
    last = match.games[-1]
    assert last.resigned and (last.winner, last.points) == (1, 1) and match.over


def test_points_the_site_counted_towards_the_match():
    # "Wins 3 point and the match" after a gammon at cube 2 that needed only 3 points
    match = _read("match1486392.txt")
    game = match.games[1]
    assert (game.winner, game.points, game.resigned) == (0, 4, False) and match.winner == 0


def test_a_nameless_player_takes_the_header_name_or_a_number():
    match = _read("match3755271.txt")  # " lasse : 0                        : 0"
    assert match.names[0] == "lasse" and match.names[1]


def test_a_resignation_before_the_first_roll():
    match = _read("match3831101.txt")  # "  1)                              Losses 3 point"
    game = match.games[0]
    assert game.resigned and game.turn is None and (game.winner, game.points) == (0, 3)


def test_question_marks_for_a_roll_left_unplayed():
    match = _read("MrPurple - Lasse 3pt Backgammon Studio 2024_05_11 20_10_33.txt", "studio")
    game = match.games[1]  # "24) 32: ????   Wins 4016 point": the cube's backgammon, as gnubg reads it
    assert game.resigned and game.points == 3 * game.cube_value


def test_a_move_number_glued_into_the_line_before():
    match = _read("match2900236.txt")  # "24) 43: 21/18 18/14   24)  Losses 2 point ..."
    assert match.games[1].resigned and match.games[1].points == 2


def test_crlf_latin1_and_utf8_read_alike():
    path = CORPUS / "galaxy" / "match10013413.txt"
    text = path.read_text("utf-8").replace("mglough", "Jérôme")
    plain = fastgen.formats.read_mat(text)
    for data in (text.replace("\n", "\r\n").encode("utf-8"), text.encode("latin-1"),
                 b"\xef\xbb\xbf" + text.encode("utf-8")):
        again = fastgen.formats.read_mat(data)
        assert again.names == ("lasse", "Jérôme")
        assert [g.record for g in again.games] == [g.record for g in plain.games]


def test_a_result_the_replay_contradicts_is_an_error_naming_the_place_or_a_warning():
    with pytest.raises(MatFileError, match=r"game 1 \(line 45\).*replay gives 2"):
        _read("match8239468.txt")
    with pytest.warns(MatFileWarning, match="line 45"):
        match = _read("match8239468.txt", errors="warn")
    assert match.problems and match.games[0].points == 2  # the replay's, as gnubg keeps it


def test_a_play_that_fits_no_legal_play_reads_on_with_warn():
    text = (CORPUS / "galaxy" / "match10013413.txt").read_text("utf-8")
    broken = text.replace("51: 24/23 13/8", "51: 24/13 13/8", 1)  # game 1, move 1: no legal play
    with pytest.raises(MatFileError, match=r"game 1, move 1 \(line 18\)"):
        fastgen.formats.read_mat(broken)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MatFileWarning)
        match = fastgen.formats.read_mat(broken, errors="warn")
    good = fastgen.formats.read_mat(text)
    # game 1 is kept up to the problem and ended by the result the file writes; the
    # games after it are read as they are
    assert len(match.games) == len(good.games) and match.score == good.score
    assert [g.record for g in match.games[1:]] == [g.record for g in good.games[1:]]
    assert len(match.problems) == 1 and "line 18" in match.problems[0]


def test_another_variation_is_refused():
    text = (CORPUS / "galaxy" / "match10013413.txt").read_text("utf-8")
    with pytest.raises(MatFileError, match="Nackgammon"):
        fastgen.formats.read_mat(text.replace('[Variation "Backgammon"]', '[Variation "Nackgammon"]'))


def test_a_match_from_a_later_score_on():
    # a transcript of a match's last games: the first game written starts at 1-0
    text = (CORPUS / "galaxy" / "match10013413.txt").read_text("utf-8")
    head, rest = text.split(" Game 1\n")
    tail = head + " Game 2\n" + rest.split(" Game 2\n", 1)[1]
    whole, later = fastgen.formats.read_mat(text), fastgen.formats.read_mat(tail)
    assert later.start_score == (1, 0) and later.score == whole.score
    assert [g.record for g in later.games] == [g.record for g in whole.games[1:]]
    assert fastgen.formats.read_mat(fastgen.write_mat(later)).start_score == (1, 0)
