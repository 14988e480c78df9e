"""One or more tests per rule R1..R15 of docs/RULES.md, plus one per listed example.

Every test runs on both implementations through the ``impl`` fixture (the compiled core
and the pure-Python oracle). Positions are built by hand with :func:`strategies.pos`
(opponent checkers given in the MOVER's numbering) and expectations are written as the
exact set of resulting positions, usually as the move lists that produce them.
"""

from __future__ import annotations

import numpy as np
import pytest

from fastgen.errors import InvalidBoardError, InvalidDiceError
from strategies import pos, replay, step_count

ALL_ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]
START = pos(me={24: 2, 13: 5, 8: 3, 6: 5}, opp={1: 2, 12: 5, 17: 3, 19: 5})  # R3


def steps(text: str):
    """'13/11 11/5' -> [(13, 11), (11, 5)]; 'bar' is 25, 'off' is 0, '*' is ignored."""
    named = {"bar": 25, "off": 0}
    out = []
    for part in text.split():
        src, dst = part.replace("*", "").split("/")
        out.append((named[src] if src in named else int(src), named[dst] if dst in named else int(dst)))
    return out


def after(board, *plays_text):
    """The set of positions (bytes) produced by each play written in text."""
    return {replay(board, steps(t)).tobytes() for t in plays_text}


def check(plays, board, expected):
    """Assert *plays* has exactly the positions *expected* (a set of bytes), no duplicate,
    every moves row replays to its board, and the output has the documented layout."""
    assert plays.boards.dtype == np.int8 and plays.moves.dtype == np.int8
    assert plays.boards.shape == (len(plays), 2, 25)
    assert plays.moves.shape == (len(plays), 4, 2)
    got = [b.tobytes() for b in plays.boards]
    assert len(got) == len(set(got)), "two plays with the same resulting position (R10)"
    assert set(got) == expected
    for k in range(len(plays)):
        assert replay(board, plays.moves[k]).tobytes() == got[k]


def moves_of(plays, board_after):
    """The moves row (as a list of (from, to), padding removed) leading to *board_after*."""
    for k in range(len(plays)):
        if plays.boards[k].tobytes() == board_after.tobytes():
            return [tuple(int(x) for x in m) for m in plays.moves[k] if m[0] != -1]
    raise AssertionError("position not among the plays")


def assert_lost_turn(plays, board):
    """R14: the single empty play, the unchanged position, all moves -1."""
    assert len(plays) == 1
    assert (plays.boards[0] == board).all()
    assert (plays.moves[0] == -1).all()


def pips(row) -> int:
    return sum((i + 1) * int(c) for i, c in enumerate(row))  # bar index 24 counts 25


# --------------------------------------------------------------------------- R1


def test_R1_mover_moves_from_24_toward_1(impl):
    board = pos(me={24: 1}, opp={1: 2})
    plays = impl(board, (3, 1))
    check(plays, board, {pos(me={20: 1}, opp={1: 2}).tobytes()})


def test_R1_my_point_p_is_opponent_point_25_minus_p(impl):
    # Raw indices on purpose: the opponent's own point 4 (row 0, index 3) is my 21.
    board = np.zeros((2, 25), dtype=np.int8)
    board[1, 23] = 1  # my 24 point
    board[0, 3] = 2  # its 4 point = my 21 point: blocked
    plays = impl(board, (3, 1))
    expected = board.copy()
    expected[1, 23], expected[1, 19] = 0, 1
    check(plays, board, {expected.tobytes()})
    assert moves_of(plays, expected) == [(24, 23), (23, 20)]
    assert (plays.boards[:, 0] == board[0]).all()  # the opponent's row is untouched


def test_R1_output_keeps_input_orientation(impl):
    board = pos(me={13: 1}, opp={8: 1, 24: 2})
    for b in impl(board, (5, 2)).boards:
        assert b[1].sum() == 1 and b[0, 0] == 2  # row 1 is still the mover


# --------------------------------------------------------------------------- R2


def test_R2_home_board_is_points_1_to_6(impl):
    # Checkers on 6 and 1: all home, 6-1 may bear both off.
    board = pos(me={6: 1, 1: 1}, opp={20: 2})
    check(impl(board, (6, 1)), board, after(board, "6/off 1/off", "6/5 5/off"))


def test_R2_point_7_is_outside_home(impl):
    # Checkers on 7 and 1: the 7 must come home before anything bears off.
    board = pos(me={7: 1, 1: 1}, opp={20: 2})
    check(impl(board, (6, 1)), board, after(board, "7/1 1/off"))
    # 7/4 is blocked, and the 3 may not bear off while a checker is on 7: no play.
    board = pos(me={7: 1, 3: 1}, opp={4: 2, 20: 2})
    assert_lost_turn(impl(board, (3, 3)), board)


# --------------------------------------------------------------------------- R3


def test_R3_start_position_and_pip_count(impl):
    assert pips(START[0]) == pips(START[1]) == 167
    assert START[0].sum() == START[1].sum() == 15
    for roll in ALL_ROLLS:
        plays = impl(START, roll)
        total = 4 * roll[0] if roll[0] == roll[1] else roll[0] + roll[1]
        for b in plays.boards:
            # R5: every play from the start uses all its pips (nothing to bear off or hit).
            assert pips(b[1]) == 167 - total
            assert (b[0] == START[0]).all()


def test_R3_start_position_counts(impl):
    assert len(impl(START, (3, 1))) == 16
    # 6-6 from the start: each checker can move at most one 6 (18/12 and 7/1 are
    # blocked, 8/2 cannot go on); choose 4 steps from 24s (<=2), 13s (<=5), 8s (<=3):
    # 4 + 4 + 3 = 11 distributions.
    assert len(impl(START, (6, 6))) == 11
    plays = impl(START, (3, 1))
    assert after(START, "8/5 6/5") <= plays.position_set()


# --------------------------------------------------------------------------- R4


def test_R4_output_layout(impl):
    board = pos(me={13: 2}, opp={20: 2})
    plays = impl(board, (2, 1))
    assert plays.boards.dtype == np.int8 and plays.boards.shape[1:] == (2, 25)
    assert plays.moves.dtype == np.int8 and plays.moves.shape[1:] == (4, 2)
    assert (plays.moves[:, 2:] == -1).all()  # a non-double has at most two steps
    assert (plays.moves[:, :2] != -1).all()


BAD_BOARDS = {
    "negative": pos(me={13: -1}),
    "sixteen": pos(me={13: 16}),
    "sixteen_spread": pos(me={13: 8, 6: 8}),
    "both_sides_on_one_point": pos(me={13: 1}, opp={13: 1}),
    "both_sides_on_point_1": pos(me={1: 2}, opp={1: 1}),
    "transposed": np.zeros((25, 2), dtype=np.int8),
    "short": np.zeros((2, 24), dtype=np.int8),
    "batch": np.zeros((1, 2, 25), dtype=np.int8),
    "float": np.zeros((2, 25), dtype=np.float64),
    "none": None,
}


@pytest.mark.parametrize("name", sorted(BAD_BOARDS))
def test_R4_invalid_board_rejected(impl, name):
    with pytest.raises(InvalidBoardError):
        impl(BAD_BOARDS[name], (3, 1))


def test_R4_both_bars_occupied_is_valid(impl):
    # Index 24 is a bar, not a point: both bars may be occupied beside anything.
    board = pos(me={1: 2}, opp={24: 2}, me_bar=1, opp_bar=1)
    assert len(impl(board, (3, 1))) >= 1


@pytest.mark.parametrize("dice", [(0, 1), (7, 1), (1,), (1, 2, 3), (1.0, 2), (True, 2), None, "12"])
def test_R4_R5_invalid_dice_rejected(impl, dice):
    with pytest.raises(InvalidDiceError):
        impl(START, dice)


# --------------------------------------------------------------------------- R5


def test_R5_double_is_four_steps(impl):
    board = pos(me={24: 1}, opp={1: 2})
    plays = impl(board, (2, 2))
    check(plays, board, after(board, "24/22 22/20 20/18 18/16"))
    assert step_count(plays.moves[0]) == 4


def test_R5_each_die_is_a_separate_step(impl):
    board = pos(me={20: 1}, opp={1: 2})
    plays = impl(board, (5, 3))
    check(plays, board, after(board, "20/15 15/12"))
    (a, b), (c, d) = moves_of(plays, plays.boards[0])
    assert sorted([a - b, c - d]) == [3, 5] and b == c


def test_R5_six_six_is_never_one_24_pip_jump(impl):
    board = pos(me={24: 1}, opp={18: 2})
    assert_lost_turn(impl(board, (6, 6)), board)


# --------------------------------------------------------------------------- R6


def test_R6_blocked_point_cannot_be_landed_on(impl):
    board = pos(me={13: 1}, opp={8: 2})
    plays = impl(board, (5, 1))
    check(plays, board, after(board, "13/12 12/7"))
    assert moves_of(plays, plays.boards[0]) == [(13, 12), (12, 7)]


def test_R6_blocked_points_can_be_passed(impl):
    board = pos(me={13: 1}, opp={12: 2, 11: 2, 10: 2, 9: 2})
    check(impl(board, (6, 5)), board, after(board, "13/7 7/2"))


def test_R6_intermediate_point_blocked_both_ways(impl):
    board = pos(me={13: 1}, opp={7: 2, 10: 2})
    assert_lost_turn(impl(board, (6, 3)), board)


def test_R6_intermediate_point_blocked_other_way_open(impl):
    board = pos(me={13: 1}, opp={7: 2})
    plays = impl(board, (6, 3))
    check(plays, board, after(board, "13/10 10/4"))
    assert moves_of(plays, plays.boards[0]) == [(13, 10), (10, 4)]
    board = pos(me={13: 1}, opp={10: 2})
    plays = impl(board, (6, 3))
    check(plays, board, after(board, "13/7 7/4"))
    assert moves_of(plays, plays.boards[0]) == [(13, 7), (7, 4)]


def test_R6_final_point_blocked(impl):
    # 13/4 impossible; each die alone is playable, so the larger (R13): 13/7.
    board = pos(me={13: 1}, opp={4: 2})
    check(impl(board, (6, 3)), board, after(board, "13/7"))


def test_R6_intermediate_of_double_blocked(impl):
    board = pos(me={13: 1}, opp={9: 2})
    assert_lost_turn(impl(board, (4, 4)), board)
    board = pos(me={13: 1}, opp={5: 2})
    check(impl(board, (4, 4)), board, after(board, "13/9"))


# --------------------------------------------------------------------------- R7


def test_R7_hit_sends_blot_to_opponent_bar(impl):
    board = pos(me={13: 1, 24: 2}, opp={8: 1, 1: 2, 2: 2, 3: 2, 4: 2, 5: 2})
    plays = impl(board, (5, 5))
    # 24s: 24/19/14/9/4x; the 13: 13/8*/3x. Bear-off impossible (24s outside).
    expected = after(
        board,
        "13/8* 24/19 24/19 19/14",
        "13/8* 24/19 19/14 14/9",
        "24/19 24/19 19/14 19/14",
        "24/19 24/19 19/14 14/9",
    )
    check(plays, board, expected)
    hit = replay(board, steps("13/8* 24/19 24/19 19/14"))
    assert hit[0, 24] == 1 and hit[0, 24 - 8] == 0 and hit[1, 7] == 1


def test_R7_hit_on_intermediate_point_is_a_different_play(impl):
    board = pos(me={13: 1}, opp={8: 1, 20: 2})
    plays = impl(board, (5, 1))
    check(plays, board, after(board, "13/8* 8/7", "13/12 12/7"))
    assert len(plays) == 2
    assert sorted(int(b[0, 24]) for b in plays.boards) == [0, 1]


def test_R7_hit_when_entering(impl):
    board = pos(me_bar=1, opp={20: 1, 1: 2})
    plays = impl(board, (5, 5))
    check(plays, board, after(board, "bar/20* 20/15 15/10 10/5"))
    assert plays.boards[0][0, 24] == 1


# --------------------------------------------------------------------------- R8


def test_R8_bar_checker_must_enter_first(impl):
    board = pos(me={13: 1}, me_bar=1, opp={1: 2})
    plays = impl(board, (6, 5))
    check(plays, board, after(board, "bar/19 13/8", "bar/19 19/14", "bar/20 13/7"))
    assert (plays.moves[:, 0, 0] == 25).all()


def test_R8_entry_point_blocked(impl):
    board = pos(me={13: 1}, me_bar=1, opp={19: 2})
    check(impl(board, (6, 5)), board, after(board, "bar/20 20/14", "bar/20 13/7"))


def test_R8_two_on_bar_both_enter_before_anything_else(impl):
    board = pos(me={13: 1}, me_bar=2, opp={1: 2})
    check(impl(board, (6, 5)), board, after(board, "bar/19 bar/20"))


def test_R8_entered_checker_may_move_on(impl):
    board = pos(me={8: 1}, me_bar=2, opp={1: 2})
    expected = after(
        board,
        "bar/22 bar/22 22/19 19/16",
        "bar/22 bar/22 22/19 22/19",
        "bar/22 bar/22 22/19 8/5",
        "bar/22 bar/22 8/5 5/2",
    )
    check(impl(board, (3, 3)), board, expected)


def test_R8_two_on_bar_double_only_one_entry_step(impl):
    # 4-4 with my 21 blocked: no checker enters, the turn is lost.
    board = pos(me={13: 3}, me_bar=2, opp={21: 2})
    assert_lost_turn(impl(board, (4, 4)), board)


# --------------------------------------------------------------------------- R9


def test_R9_exact_bear_off(impl):
    board = pos(me={6: 1, 4: 1}, opp={20: 2})
    plays = impl(board, (6, 4))
    # 6/off 4/off, or 4/off then 6/off; 6/2 then 6 takes the 4 (highest): 2 left.
    check(plays, board, after(board, "6/off 4/off", "6/2 4/off"))


def test_R9_no_bear_off_with_a_checker_outside(impl):
    board = pos(me={10: 1, 3: 1}, opp={20: 2})
    plays = impl(board, (3, 1))
    check(plays, board, after(board, "10/7 7/6", "10/7 3/2"))
    assert not (plays.moves[:, :, 1] == 0).any()


def test_R9_judged_before_every_step(impl):
    # 8/6 brings the last checker home, then 4/off is allowed in the same turn.
    board = pos(me={8: 1, 4: 1}, opp={20: 2})
    check(impl(board, (4, 2)), board, after(board, "8/6 4/off", "8/4 4/2"))


def test_R9_higher_die_bears_off_from_highest_point(impl):
    board = pos(me={3: 1, 2: 1}, opp={20: 2})
    plays = impl(board, (5, 5))
    check(plays, board, after(board, "3/off 2/off"))
    assert moves_of(plays, plays.boards[0]) == [(3, 0), (2, 0)]


def test_R9_lower_point_cannot_bear_off_while_higher_occupied(impl):
    board = pos(me={6: 1, 4: 1}, opp={20: 2})
    plays = impl(board, (5, 1))
    # The 5 may not take the 4-point checker while the 6 is occupied.
    check(plays, board, after(board, "6/1 1/off", "6/1 4/3"))
    assert replay(board, steps("4/off")).tobytes() not in plays.position_set()


def test_R9_bear_off_is_not_compulsory(impl):
    board = pos(me={4: 1, 2: 1}, opp={20: 2})
    plays = impl(board, (2, 1))
    check(plays, board, after(board, "2/off 4/3", "4/2 2/1"))


def test_R9_hit_checker_suspends_bear_off(impl):
    board = pos(me={1: 2, 2: 2, 3: 2}, me_bar=1, opp={10: 2})
    plays = impl(board, (6, 1))
    check(plays, board, after(board, "bar/19 19/18", "bar/19 3/2", "bar/19 2/1"))
    assert not (plays.moves[:, :, 1] == 0).any()


# --------------------------------------------------------------------------- R10


def test_R10_two_orders_same_position_is_one_play(impl):
    board = pos(me={24: 1}, opp={1: 2})
    assert len(impl(board, (3, 1))) == 1  # 24/21/20 and 24/23/20


def test_R10_plays_distinct_by_position(impl):
    for roll in ALL_ROLLS:
        plays = impl(START, roll)
        assert len(plays.position_set()) == len(plays)


def test_R10_two_checkers_swapping_dice_is_one_play(impl):
    board = pos(me={13: 1, 8: 1}, opp={1: 2})
    plays = impl(board, (2, 1))
    # 13/11 8/7 and 13/12 8/6 differ; 13/11/10, 13/12/10 coincide; 8/6/5, 8/7/5 coincide.
    check(plays, board, after(board, "13/11 8/7", "13/12 8/6", "13/11 11/10", "8/6 6/5"))


# --------------------------------------------------------------------------- R11


def test_R11_both_dice_must_be_used_when_possible(impl):
    # Playing the 6 alone (13/7) would stop; 13/11/5 uses both and is the only play.
    board = pos(me={13: 1}, opp={7: 2, 20: 2})
    check(impl(board, (6, 2)), board, after(board, "13/11 11/5"))


def test_R11_dice_order_gives_no_priority(impl):
    board = pos(me={13: 1}, opp={7: 2, 20: 2})
    assert impl(board, (6, 2)).position_set() == impl(board, (2, 6)).position_set()


def test_R11_both_dice_with_two_checkers(impl):
    # 13/8 alone leaves no 1 (8/7 blocked); 8/3 13/12 uses both dice and is forced.
    board = pos(me={13: 1, 8: 1}, opp={7: 2, 2: 2})
    check(impl(board, (5, 1)), board, after(board, "13/12 8/3"))


# --------------------------------------------------------------------------- R12


def test_R12_double_plays_maximum_number_of_steps(impl):
    board = pos(me={20: 1, 13: 1}, opp={8: 2, 5: 2})
    plays = impl(board, (4, 4))
    check(plays, board, after(board, "20/16 16/12 13/9"))
    assert step_count(plays.moves[0]) == 3


@pytest.mark.parametrize("blocked, expected_steps", [(9, 0), (5, 1), (1, 2)])
def test_R12_double_fewer_than_four_steps(impl, blocked, expected_steps):
    # A single runner on 13 with 4s, stopped by an opponent point at 9, 5 or 1. The 2s
    # may not bear off while the runner is outside (R9); once it is home on 5 (blocked
    # at 1), 5/1 is blocked and a 4 may not take a 2 while the 5 is occupied.
    board = pos(me={13: 1, 2: 2}, opp={blocked: 2, 20: 2})
    plays = impl(board, (4, 4))
    if expected_steps == 0:
        assert_lost_turn(plays, board)
        return
    text = " ".join(f"{13 - 4 * k}/{9 - 4 * k}" for k in range(expected_steps))
    check(plays, board, after(board, text))
    assert all(step_count(m) == expected_steps for m in plays.moves)


def test_R12_one_step_of_a_double_when_only_one_is_possible(impl):
    board = pos(me={24: 2}, opp={16: 2, 1: 2})
    # 24/20 possible (twice), 20/16 blocked: two steps by two checkers.
    check(impl(board, (4, 4)), board, after(board, "24/20 24/20"))


# --------------------------------------------------------------------------- R13


def test_R13_larger_die_when_only_one_can_be_used(impl):
    board = pos(me={13: 1}, opp={6: 2, 20: 2})
    check(impl(board, (5, 2)), board, after(board, "13/8"))


def test_R13_smaller_die_when_only_it_can_be_played(impl):
    board = pos(me={13: 1}, opp={7: 2, 4: 2})
    plays = impl(board, (6, 3))
    check(plays, board, after(board, "13/10"))


def test_R13_position_also_reachable_with_smaller_die_is_legal(impl):
    # Last checker on 3 with 5-3: either die alone bears it off, never both.
    board = pos(me={3: 1}, opp={20: 2})
    plays = impl(board, (5, 3))
    check(plays, board, after(board, "3/off"))


def test_R13_larger_die_with_two_checkers(impl):
    board = pos(me={13: 1, 12: 1}, opp={7: 2, 6: 2, 8: 2, 10: 2, 1: 2})
    plays = impl(board, (4, 2))
    # 4s: 13/9, 12/8x. 2s: 13/11, 12/10x. After 13/9 no 2 (9/7x, 12/10x); after 13/11
    # no 4 (11/7x, 12/8x). Each die alone is playable, never both: the 4 only.
    check(plays, board, after(board, "13/9"))


# --------------------------------------------------------------------------- R14


@pytest.mark.parametrize("roll", ALL_ROLLS)
def test_R14_closed_board_with_bar_checker_loses_turn(impl, roll):
    board = pos(me={13: 5, 8: 3}, me_bar=1, opp={19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2})
    assert_lost_turn(impl(board, roll), board)


def test_R14_no_step_anywhere_loses_turn(impl):
    board = pos(me={24: 1, 2: 1}, opp={18: 2, 19: 2})
    assert_lost_turn(impl(board, (6, 5)), board)


def test_R14_entry_points_of_both_dice_blocked(impl):
    board = pos(me={6: 5}, me_bar=1, opp={22: 2, 20: 2})
    assert_lost_turn(impl(board, (3, 5)), board)
    assert_lost_turn(impl(board, (5, 5)), board)
    check(impl(board, (3, 4)), board, after(board, "bar/21 21/18", "bar/21 6/3"))


# --------------------------------------------------------------------------- R15


def test_R15_bad_looking_forced_play_is_still_forced(impl):
    # The 24s are shut in; 6-5 must break the 8 point leaving two blots in the home board.
    board = pos(me={8: 2, 24: 2}, opp={18: 2, 19: 2, 20: 2, 21: 2, 22: 2, 23: 2}, opp_bar=1)
    check(impl(board, (6, 5)), board, after(board, "8/2 8/3"))


# --------------------------------------------------------------------------- examples


def test_example_R11_6_2_only_2_then_6_works(impl):
    board = pos(me={13: 1}, opp={7: 2, 20: 2})
    plays = impl(board, (6, 2))
    check(plays, board, after(board, "13/11 11/5"))
    assert moves_of(plays, plays.boards[0]) == [(13, 11), (11, 5)]


def test_example_R6_4_2_one_checker_plus4_blocked(impl):
    board = pos(me={13: 1}, opp={9: 2, 20: 2})
    plays = impl(board, (4, 2))
    check(plays, board, after(board, "13/11 11/7"))
    assert moves_of(plays, plays.boards[0]) == [(13, 11), (11, 7)]


def test_example_R13_5_2_never_both_play_the_5(impl):
    board = pos(me={13: 1}, opp={6: 2, 20: 2})
    check(impl(board, (5, 2)), board, after(board, "13/8"))
    check(impl(board, (2, 5)), board, after(board, "13/8"))


def test_example_R13_6_3_no_6_play_the_3(impl):
    board = pos(me={13: 1}, opp={7: 2, 4: 2, 20: 2})
    plays = impl(board, (6, 3))
    check(plays, board, after(board, "13/10"))
    assert not (plays.moves == -1).all()


def test_example_R11_5_1_safe_5_without_1_is_illegal(impl):
    board = pos(me={13: 1, 8: 1}, opp={7: 2, 2: 2, 20: 2})
    plays = impl(board, (5, 1))
    check(plays, board, after(board, "13/12 8/3"))
    assert replay(board, steps("13/8")).tobytes() not in plays.position_set()


def test_example_R12_4_4_three_steps_must_be_played(impl):
    board = pos(me={20: 1, 13: 1}, opp={8: 2, 5: 2, 24: 2})
    plays = impl(board, (4, 4))
    check(plays, board, after(board, "20/16 16/12 13/9"))
    for two_step in ("20/16 16/12", "20/16 13/9"):
        assert replay(board, steps(two_step)).tobytes() not in plays.position_set()


def test_example_R5_R6_6_6_from_24_with_18_blocked(impl):
    board = pos(me={24: 1}, opp={18: 2, 1: 2})
    assert_lost_turn(impl(board, (6, 6)), board)
    board = pos(me={24: 1, 13: 1}, opp={18: 2})
    plays = impl(board, (6, 6))
    check(plays, board, after(board, "13/7 7/1"))
    assert (plays.boards[:, 1, 11] == 0).all()  # never on 12


def test_example_R9_6_4_bear_off_5_and_4(impl):
    board = pos(me={5: 1, 4: 1}, opp={20: 2})
    plays = impl(board, (6, 4))
    check(plays, board, after(board, "5/off 4/off", "5/1 4/off"))
    # With a checker on 6, a 5 cannot bear off from 4: it must move 6/1.
    board = pos(me={6: 1, 4: 1}, opp={20: 2})
    plays = impl(board, (5, 5))
    check(plays, board, after(board, "6/1 4/off 1/off"))
    assert moves_of(plays, plays.boards[0]) == [(6, 1), (4, 0), (1, 0)]
    board = pos(me={6: 1, 4: 1}, opp={1: 2})  # 6/1 not open: no 5 at all
    assert_lost_turn(impl(board, (5, 5)), board)


def test_example_R9_5_bears_off_from_3(impl):
    board = pos(me={3: 1, 2: 1}, opp={20: 2})
    check(impl(board, (5, 2)), board, after(board, "3/off 2/off", "3/1 2/off"))
    plays = impl(board, (5, 5))
    check(plays, board, after(board, "3/off 2/off"))
    assert moves_of(plays, plays.boards[0]) == [(3, 0), (2, 0)]


def test_example_R8_two_on_bar_one_entry_open(impl):
    board = pos(me={13: 1}, me_bar=2, opp={19: 2})
    plays = impl(board, (6, 5))
    check(plays, board, after(board, "bar/20"))
    assert moves_of(plays, plays.boards[0]) == [(25, 20)]


def test_example_R11_last_checker_on_3_roll_5_1(impl):
    board = pos(me={3: 1}, opp={2: 1, 20: 2})
    plays = impl(board, (5, 1))
    check(plays, board, after(board, "3/2* 2/off"))
    assert moves_of(plays, plays.boards[0]) == [(3, 2), (2, 0)]
    assert replay(board, steps("3/off")).tobytes() not in plays.position_set()
    board = pos(me={3: 1}, opp={20: 2})
    plays = impl(board, (5, 1))
    check(plays, board, after(board, "3/off"))  # 3/2/off: the same position, one play


def test_example_R12_1_1_two_checkers_on_4(impl):
    board = pos(me={4: 2}, opp={20: 2})
    plays = impl(board, (1, 1))
    check(plays, board, after(board, "4/3 3/2 2/1 1/off", "4/3 3/2 2/1 4/3", "4/3 3/2 4/3 3/2"))
    one_off = replay(board, steps("4/3 3/2 2/1 1/off"))
    assert moves_of(plays, one_off) == [(4, 3), (3, 2), (2, 1), (1, 0)]


# --------------------------------------------------------------------------- issue 8: named
# Rule combinations a mutation test of the suite showed only random tests could catch:
# positions built by hand, run on the core and the oracle (impl), and checked against GNU
# Backgammon's own generator when gnubg-nn is installed.


def _gnubg_agrees(board, dice, plays):
    gnubg = pytest.importorskip("gnubg_nn", reason="gnubg-nn not installed: pip install '.[peers]'")
    theirs = set(gnubg.moves(board.tolist(), dice[0], dice[1])) or {gnubg.key_of_board(board.tolist())}
    assert {gnubg.key_of_board(b.tolist()) for b in plays.boards} == theirs


# A checker on the bar, either die enters (points 19 and 20 open), but after entering the
# other die is blocked (my 14 point is held), and nothing else is on the board.
BAR_ONE_DIE = pos(me={}, me_bar=1, opp={14: 2, 24: 13})


@pytest.mark.parametrize("dice", [(6, 5), (5, 6)])
def test_R8_R13_bar_either_die_enters_only_one_playable_larger_entry_only(impl, dice):
    plays = impl(BAR_ONE_DIE, dice)
    check(plays, BAR_ONE_DIE, after(BAR_ONE_DIE, "bar/19"))  # not bar/20: the 6 must be played
    assert moves_of(plays, plays.boards[0]) == [(25, 19)]


@pytest.mark.parametrize("dice", [(6, 5), (5, 6)])
def test_R8_R13_bar_case_agrees_with_gnubg(dice):
    import fastgen

    _gnubg_agrees(BAR_ONE_DIE, dice, fastgen.legal_plays(BAR_ONE_DIE, dice))


def test_R8_R13_bar_larger_die_rule_also_with_more_checkers(impl):
    # The same with checkers elsewhere that cannot move either die (my 8 point: 8/2 and
    # 8/3 land on held points) and a second entry die blocked on 21 for the 4.
    board = pos(me={8: 2}, me_bar=1, opp={14: 2, 2: 2, 3: 2, 24: 9})
    plays = impl(board, (6, 5))
    check(plays, board, after(board, "bar/19"))


# Larger die first: 8/2 then 3/2 uses both dice. The other order, 8/7 first, is a dead
# end (7/1 is held, the 3 cannot bear off while a checker is on 7): a one-die play found
# after a two-dice play, which must not be kept (R11).
ONE_DIE_AFTER_TWO = pos(me={8: 1, 3: 1}, opp={1: 2, 24: 13})


@pytest.mark.parametrize("dice", [(6, 1), (1, 6)])
def test_R11_one_die_play_found_after_two_dice_play_is_dropped(impl, dice):
    plays = impl(ONE_DIE_AFTER_TWO, dice)
    check(plays, ONE_DIE_AFTER_TWO, after(ONE_DIE_AFTER_TWO, "8/2 3/2"))
    assert replay(ONE_DIE_AFTER_TWO, steps("8/7")).tobytes() not in plays.position_set()


def test_R11_one_die_after_two_agrees_with_gnubg():
    import fastgen

    for dice in [(6, 1), (1, 6)]:
        _gnubg_agrees(ONE_DIE_AFTER_TWO, dice, fastgen.legal_plays(ONE_DIE_AFTER_TWO, dice))


# A double brings the last outside checker from the 7 point home, then bears off with the
# remaining steps in the same turn (R9: the bear-off is allowed as soon as all are home).
SEVEN_HOME = pos(me={7: 1, 3: 1}, opp={24: 15})


def test_R9_double_brings_checker_from_7_home_then_bears_off(impl):
    plays = impl(SEVEN_HOME, (3, 3))
    done = replay(SEVEN_HOME, steps("7/4 4/1 1/off 3/off"))
    assert done[1].sum() == 0  # every checker off: the game ends in this turn
    check(plays, SEVEN_HOME, {done.tobytes()})  # R11: all four steps, and only this way
    moves = moves_of(plays, done)
    assert moves[0] == (7, 4) and moves.count((7, 4)) == 1 and len(moves) == 4
    assert all(target == 0 for source, target in moves if source <= 3)  # bear-offs come after 7/4


@pytest.mark.parametrize(
    "dice, texts",
    [
        # 7/6 brings it home, then 3/2 2/1 1/off bears the other checker off with the 1s.
        ((1, 1), ["7/6 6/5 5/4 4/3", "7/6 6/5 5/4 3/2", "7/6 6/5 3/2 2/1", "7/6 3/2 2/1 1/off"]),
        # 7/5 5/3 3/1: then a 2 from 1 may not bear off while a checker stands on 3 (R9).
        ((2, 2), ["7/5 5/3 3/1 3/1"]),
    ],
)
def test_R9_small_doubles_from_7_then_bear_off_only_when_allowed(impl, dice, texts):
    plays = impl(SEVEN_HOME, dice)
    check(plays, SEVEN_HOME, after(SEVEN_HOME, *texts))


def test_R9_seven_point_doubles_agree_with_gnubg():
    import fastgen

    for dice in [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6)]:
        _gnubg_agrees(SEVEN_HOME, dice, fastgen.legal_plays(SEVEN_HOME, dice))
