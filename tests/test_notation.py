"""Play values and GNU Backgammon move notation (fastgen.core.notation).

Rule ids refer to docs/RULES.md; the notation rules are GNU Backgammon's FormatMove
behaviour (see the module docstring of fastgen.core.notation).
"""

from __future__ import annotations

import itertools
import pickle
import random

import numpy as np
import pytest

import fastgen
from fastgen import reference
from fastgen.errors import AmbiguousMoveError, IllegalPlayError, InvalidMoveTextError
from fastgen.core.ids import parse_position_id
from fastgen.core.notation import Play, format_play, parse_move_text
from fastgen.core.validate import parse_play

from _positions import positions, random_board

START = fastgen.STARTING_BOARD


def board_with(mine: dict, opp: dict) -> np.ndarray:
    """A board from {my point: count} and {my point: opposing count} (25 = bar)."""
    board = np.zeros((2, 25), dtype=np.int8)
    for point, n in mine.items():
        board[1, 24 if point == 25 else point - 1] = n
    for point, n in opp.items():
        board[0, 24 if point == 25 else 24 - point] = n
    return board


def texts(board, dice):
    return sorted(str(p) for p in fastgen.legal_plays(board, dice))


# --------------------------------------------------------------------------- known texts


@pytest.mark.parametrize(
    "dice, text",
    [
        ((3, 1), "8/5 6/5"),
        ((6, 4), "24/14"),
        ((6, 5), "24/13"),
        ((2, 1), "13/11 6/5"),
        ((3, 3), "13/7(2)"),
        ((3, 3), "8/5(2) 6/3(2)"),
        ((4, 4), "24/20(2) 13/9(2)"),
        ((6, 6), "24/18(2) 13/7(2)"),
        ((5, 5), "13/3(2)"),
        ((2, 2), "13/11(2) 6/4(2)"),
    ],
)
def test_opening_texts_are_gnubg_texts(dice, text):
    assert text in texts(START, dice)


def test_hit_on_the_way_is_kept_and_starred():
    # R7: hitting on an intermediate point is a different play from passing it.
    board = board_with({24: 2, 13: 5, 6: 8}, {18: 1, 12: 5, 1: 2, 3: 7})
    found = texts(board, (6, 5))
    assert "24/18*/13" in found
    assert "24/13" in found  # via 19, no hit
    play = parse_play(board, (6, 5), "24/18*/13")
    assert play.board_after[0, 24] == 1  # the blot went to the bar


def test_bear_off_counts():
    board = board_with({6: 2}, {20: 15})
    assert texts(board, (6, 6)) == ["6/off(2)"]
    assert str(parse_play(board, (6, 6), "6/off 6/off")) == "6/off(2)"


def test_enter_and_hit_from_the_bar():
    board = board_with({25: 1, 13: 14}, {22: 1, 20: 2, 12: 12})
    assert "bar/22*" in " ".join(texts(board, (3, 2)))
    play = parse_play(board, (3, 2), "bar/22* 13/11")
    assert str(play) == "bar/22* 13/11"
    assert str(parse_play(board, (3, 2), "25/22 13/11")) == "bar/22* 13/11"


def test_counted_steps_of_two_kinds():
    # FormatMove only formats; 8/5(2) 6/5(2) needs 3-3-1-1, so no roll plays it.
    assert format_play(START, [(8, 5), (6, 5), (8, 5), (6, 5)]) == "8/5(2) 6/5(2)"


def test_a_point_is_starred_once():
    board = board_with({8: 2, 6: 2, 13: 11}, {5: 1, 12: 14})
    assert "8/5* 6/5" in texts(board, (3, 1))


def test_hit_on_the_way_then_bear_off():
    # RULES example: last checker on 3, roll 5-1, lone opposing checker on my 2.
    board = board_with({3: 1}, {2: 1, 19: 14})
    assert texts(board, (5, 1)) == ["3/2*/off"]
    empty = board_with({3: 1}, {19: 15})
    assert texts(empty, (5, 1)) == ["3/off"]


def test_lost_turn_is_the_empty_text():
    # R14: both entry points blocked; FormatMove writes nothing for a move without steps.
    board = board_with({25: 2, 13: 13}, {19: 2, 20: 2, 12: 11})
    plays = fastgen.legal_plays(board, (6, 5))
    assert [str(p) for p in plays] == [""]
    assert parse_play(board, (6, 5), "") == plays[0]
    assert plays[0].moves == ()


# --------------------------------------------------------------------------- determinism


def test_text_does_not_depend_on_step_order():
    steps = [(24, 18), (18, 13), (13, 8), (8, 3)]
    board = board_with({24: 1, 13: 2, 8: 2, 6: 10}, {1: 2, 12: 13})
    want = format_play(board, steps)
    for order in itertools.permutations(steps):
        assert format_play(board, order) == want


def test_core_and_reference_give_one_text_per_position():
    # The core and the oracle may pick different step sequences for one play (R10);
    # the text must depend only on the resulting position.
    for board, dice in positions(seed=11, n=600):
        core = {p.board_after.tobytes(): str(p) for p in fastgen.legal_plays(board, dice)}
        ref = {p.board_after.tobytes(): str(p) for p in reference.legal_plays(board, dice)}
        assert core == ref, (fastgen.position_id(board), dice)


def test_texts_are_distinct_within_a_roll():
    for board, dice in positions(seed=12, n=400):
        found = [str(p) for p in fastgen.legal_plays(board, dice)]
        assert len(found) == len(set(found)), (fastgen.position_id(board), dice, found)


# --------------------------------------------------------------------------- round trip


def test_round_trip_every_play_of_thousands_of_positions():
    rng = random.Random(2024)
    checked = 0
    for board, dice in positions(seed=5, n=2500):
        plays = fastgen.legal_plays(board, dice)
        for play in plays:
            text = str(play)
            back = parse_play(board, dice, text, plays=plays)
            assert back.board_after.tobytes() == play.board_after.tobytes(), (
                fastgen.position_id(board), dice, text,
            )
            checked += 1
        if rng.random() < 0.1:  # now and then without the precomputed plays
            play = plays[rng.randrange(len(plays))]
            assert parse_play(board, dice, str(play)) == play
    assert checked > 10000


def test_round_trip_of_core_step_sequences():
    # Formatting the core's own representative sequence, then parsing: same position.
    for board, dice in positions(seed=6, n=300):
        plays = fastgen.legal_plays(board, dice)
        for k in range(len(plays)):
            text = format_play(board, plays.moves[k])
            assert parse_play(board, dice, text, plays=plays).board_after.tobytes() == plays.boards[k].tobytes()


# --------------------------------------------------------------------------- variants


@pytest.mark.parametrize(
    "text",
    ["bar/22* 13/11", "25/22* 13/11", "BAR/22 13/11", "b/22 13/11", "  bar / 22*   13/11 ",
     "13/11 bar/22", "Bar/22*, 13/11"],
)
def test_variants_of_one_play(text):
    board = board_with({25: 1, 13: 14}, {22: 1, 20: 2, 12: 12})
    assert str(parse_play(board, (3, 2), text)) == "bar/22* 13/11"


def test_more_variants():
    assert str(parse_play(START, (3, 3), "8/5 8/5 6/3 6/3")) == "8/5(2) 6/3(2)"
    assert str(parse_play(START, (3, 3), "13/10 10/7 13/10 10/7")) == "13/7(2)"
    assert str(parse_play(START, (3, 3), "13/10/7(2)")) == "13/7(2)"
    assert str(parse_play(START, (6, 4), "24/18/14")) == "24/14"
    assert str(parse_play(START, (6, 4), "24/20/14")) == "24/14"
    board = board_with({6: 2}, {20: 15})
    assert str(parse_play(board, (6, 6), "6/0(2)")) == "6/off(2)"
    assert str(parse_play(board, (6, 6), "6/OFF 6/o")) == "6/off(2)"
    assert str(parse_play(board, (6, 6), "6/of(2)")) == "6/off(2)"


def test_star_is_optional_but_a_named_point_is_a_landing():
    board = board_with({24: 2, 13: 5, 6: 8}, {18: 1, 12: 5, 1: 2, 3: 7})
    hit = parse_play(board, (6, 5), "24/18*/13")
    assert parse_play(board, (6, 5), "24/18/13") == hit  # landing on 18 hits the blot
    assert str(parse_play(board, (6, 5), "24/13")) == "24/13"  # written hit would show


def test_two_possible_hits_are_ambiguous():
    board = board_with({24: 2, 13: 5, 6: 8}, {18: 1, 19: 1, 12: 5, 1: 2, 3: 6})
    assert "24/18*/13" in texts(board, (6, 5)) and "24/19*/13" in texts(board, (6, 5))
    with pytest.raises(AmbiguousMoveError) as info:
        parse_play(board, (6, 5), "24/13")
    assert "'24/13'" in str(info.value)
    assert str(parse_play(board, (6, 5), "24/19*/13")) == "24/19*/13"


@pytest.mark.parametrize(
    "text",
    ["8/", "/5", "8//5", "8/5(", "8/5(9)", "8/5(0)", "26/20", "5/8", "off/5", "8/bar",
     "x", "8/5)", "8", "8/5/5", "13/7(2)/1", "6/off/3", "24/23 24/23 24/23 24/23 24/23"],
)
def test_malformed_text_is_rejected_quoting_it(text):
    with pytest.raises(InvalidMoveTextError) as info:
        parse_play(START, (3, 1), text)
    assert repr(text) in str(info.value)
    assert isinstance(info.value, ValueError)


def test_non_string_text():
    with pytest.raises(InvalidMoveTextError):
        parse_move_text(None)


def test_well_formed_but_illegal_text_raises_illegal_play():
    assert str(parse_play(START, (3, 1), "8/4")) == "8/4"  # 3 + 1, via 5 or 7
    with pytest.raises(IllegalPlayError) as info:
        parse_play(START, (3, 1), "13/8")
    assert "'13/8'" in str(info.value)


# --------------------------------------------------------------------------- the value


def test_play_is_immutable_and_hashable():
    plays = fastgen.legal_plays(START, (3, 1))
    play = plays[0]
    with pytest.raises(AttributeError):
        play.dice = (1, 1)
    with pytest.raises(ValueError):
        play.board_after[0, 0] = 3
    assert play in {play}
    assert len({p for p in plays}) == len(plays)


def test_equality_is_by_position_not_by_steps():
    board = board_with({24: 2, 13: 5, 6: 8}, {12: 5, 1: 2, 3: 8})
    a = Play.from_arrays(board, (6, 5), np.array([[24, 18], [18, 13], [-1, -1], [-1, -1]]),
                         parse_play(board, (6, 5), "24/13").board_after)
    b = Play.from_arrays(board, (5, 6), np.array([[24, 19], [19, 13], [-1, -1], [-1, -1]]), a.board_after)
    assert a == b and hash(a) == hash(b)
    assert a.moves != b.moves
    assert str(a) == str(b) == "24/13"
    assert a != parse_play(board, (6, 5), "13/7 13/8")


def test_repr_is_runnable():
    for board, dice in positions(seed=7, n=40):
        for play in fastgen.legal_plays(board, dice):
            again = eval(repr(play), {"parse_play": parse_play, "parse_position_id": parse_position_id})
            assert again == play


def test_play_pickles():
    play = parse_play(START, (6, 4), "24/14")
    assert pickle.loads(pickle.dumps(play)) == play


def test_from_arrays_drops_padding():
    play = Play.from_arrays(START, (3, 1), np.array([[8, 5], [6, 5], [-1, -1], [-1, -1]], dtype=np.int8),
                            parse_play(START, (3, 1), "8/5 6/5").board_after)
    assert play.moves == ((8, 5), (6, 5))
    assert play.dice == (3, 1)
    assert play.board_before.flags.writeable is False


def test_random_boards_are_valid():
    rng = random.Random(0)
    for _ in range(200):
        fastgen.position_id(random_board(rng))  # validates (R4)


# --------------------------------------------------------------------------- GNU Backgammon itself


def test_text_matches_gnubg_formatmove():
    # The `gnubg` package embeds GNU Backgammon; movetupletostring is its FormatMove.
    gnubg = pytest.importorskip("gnubg", reason="gnubg (GNU Backgammon's Python module) not installed: pip install '.[peers]'")
    checked = 0
    for board, dice in positions(seed=13, n=4000):
        plays = fastgen.legal_plays(board, dice)
        tan = board.tolist()
        for k in range(len(plays)):
            steps = [tuple(r) for r in plays.moves[k].tolist() if r[0] >= 0]
            flat = tuple(v for step in steps for v in step)
            assert format_play(board, steps) == gnubg.movetupletostring(flat, tan), (
                fastgen.position_id(board), dice, steps,
            )
            checked += 1
    assert checked > 50000


@pytest.mark.parametrize("call", [
    lambda: parse_play(None, (3, 1), "8/5 6/5"),
    lambda: parse_play(START, (3,), "8/5 6/5"),
    lambda: parse_play(START, (3, 1), b"8/5 6/5"),
    lambda: parse_play(np.zeros((2, 25), dtype=np.float32), (3, 1), "8/5 6/5"),
    lambda: format_play(None, []),
    lambda: format_play(START, [("a", "b")]),
])
def test_bad_types_raise_clean_value_errors(call):
    with pytest.raises(ValueError):
        call()
