"""Match records written as ``.mat`` text and read back (R16-R20 replayed)."""

from __future__ import annotations

import numpy as np
import pytest

import fastgen
from fastgen.errors import MatFileError
from fastgen.match import Match
from fastgen.matfile import match_play_text, read_mat, write_mat


def random_match(length: int, seed: int) -> Match:
    """A seeded match with random plays, some doubles, takes and drops."""
    rng = np.random.default_rng(seed)
    m = Match(length, seed=seed, names=("Alice", "Bob Smith"))
    while not m.over and len(m.games) < 6:
        g = m.new_game()
        while not g.over:
            if g.dice is None and g.turn is not None and g.may_double and rng.random() < 0.08:
                g.double()
                if rng.random() < 0.3:
                    g.drop()
                    break
                g.take()
            g.roll()
            plays = g.legal_plays()
            g.play(plays.boards[rng.integers(len(plays))])
    return m


@pytest.mark.parametrize("length, seed", [(5, 1), (3, 2), (7, 3), (0, 4)])
def test_match_record_round_trips_through_mat_text(length, seed, tmp_path):
    m = random_match(length, seed)
    text = write_mat(m, tmp_path / "m.mat")
    assert text.startswith(f" {length} point match\n")
    assert " Game 1\n" in text and "Alice : 0" in text and "Bob Smith : 0" in text
    back = read_mat(tmp_path / "m.mat")
    assert back.length == length and back.names == ("Alice", "Bob Smith")
    assert len(back.games) == len(m.games)
    for a, b in zip(m.games, back.games):
        assert a.record == b.record
        assert (a.winner, a.points, a.crawford) == (b.winner, b.points, b.crawford)
    assert back.score == m.score
    assert write_mat(back) == text


def test_mat_layout_has_rolls_cube_actions_and_wins():
    m = Match(3, seed=0, names=("A", "B"))
    g = m.new_game()
    g.roll((1, 3))  # player 1 opens with 3-1
    g.play("8/5 6/5")
    g.double()  # player 0 doubles
    g.take()
    g.roll((6, 4))
    g.play(g.legal_plays().boards[0])
    g.double()  # player 1 redoubles
    g.drop()
    text = write_mat(m)
    lines = text.splitlines()
    assert lines[0] == " 3 point match"
    assert lines[3].startswith(" A : 0") and lines[3].endswith("B : 0")
    assert lines[4].startswith("  1) ") and lines[4].split()[1:] == ["31:", "8/5", "6/5"]
    assert "Doubles => 2" in lines[5] and lines[5].rstrip().endswith("Takes")
    assert lines[6].startswith("  3) 64:") and "Doubles => 4" in lines[6]
    assert lines[7].split() == ["4)", "Drops"]
    assert lines[8].strip() == "Wins 2 points"
    assert read_mat(text).games[0].record == g.record


def test_mat_reader_accepts_jellyfish_point_numbers():
    m = random_match(5, 7)
    text = write_mat(m).replace("bar/", "25/").replace("/off", "/0")
    back = read_mat(text)
    assert [g.record for g in back.games] == [g.record for g in m.games]


def test_mat_reader_rejects_an_illegal_play_quoting_the_line():
    text = write_mat(random_match(3, 1))
    lines = text.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("  2) "))
    bad = lines[i][:5] + lines[i][5:].replace(":", ": 1/24", 1)
    lines[i] = bad
    with pytest.raises(MatFileError, match=rf"line {i + 1}: "):
        read_mat("\n".join(lines))


def test_mat_reader_rejects_wrong_scores_and_headers():
    text = write_mat(random_match(5, 2))
    assert text.count(" Game ") >= 2
    second = text.index(" Game 2")
    tampered = text[:second] + text[second:].replace(" : ", " : 9", 1)
    with pytest.raises(MatFileError, match="starts at"):
        read_mat(tampered)
    with pytest.raises(MatFileError, match="point match"):
        read_mat("hello\n")
    with pytest.raises(MatFileError):
        read_mat(12)


def test_play_text_variants_match_the_same_play():
    board = fastgen.STARTING_BOARD
    plays = fastgen.legal_plays(board, (6, 6))
    a = match_play_text(board, (6, 6), plays, "24/18(2) 13/7(2)")
    b = match_play_text(board, (6, 6), plays, "24/18 24/18 13/7 13/7")
    assert a == b
    plays = fastgen.legal_plays(board, (6, 5))
    assert match_play_text(board, (6, 5), plays, "24/13") == match_play_text(board, (6, 5), plays, "24/18/13")
    with pytest.raises(ValueError, match="'24/12'"):
        match_play_text(board, (6, 5), plays, "24/12")
