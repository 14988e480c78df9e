"""check_play and legal_steps (fastgen.core.validate): exactly the legal plays, with reasons (R15)."""

from __future__ import annotations

import random

import pytest

import fastgen
from fastgen.errors import IllegalPlayError, IllegalReason, InvalidMoveTextError
from fastgen.core.notation import Play
from fastgen.core.validate import check_play, legal_steps

from _positions import positions
from test_notation import board_with

START = fastgen.STARTING_BOARD
R = IllegalReason


def reason_of(board, dice, play):
    with pytest.raises(IllegalPlayError) as info:
        check_play(board, dice, play)
    exc = info.value
    assert isinstance(exc, ValueError)
    assert exc.reason.rule in str(exc)  # the message states the rule in words
    return exc.reason, exc.step


# --------------------------------------------------------------------------- accepts


def test_accepts_every_legal_play_in_every_form():
    for board, dice in positions(seed=21, n=300):
        plays = fastgen.legal_plays(board, dice)
        for play in plays:
            assert check_play(board, dice, play) == play
            assert check_play(board, dice, str(play)) == play
            assert check_play(board, dice, list(play.moves)) == play


def test_step_sequence_may_merge_hops():
    assert str(check_play(START, (6, 5), [(24, 13)])) == "24/13"
    assert str(check_play(START, (6, 5), [(24, 18), (18, 13)])) == "24/13"


# --------------------------------------------------------------------------- one case per reason


def test_bar_first():  # R8
    board = board_with({25: 1, 13: 14}, {12: 15})
    assert reason_of(board, (3, 1), [(13, 10), (10, 9)]) == (R.BAR_FIRST, (13, 10))
    assert str(check_play(board, (3, 1), "13/10 bar/24")) == "bar/24 13/10"  # text has no order
    assert reason_of(board, (3, 1), "13/10 13/12")[0] is R.BAR_FIRST


def test_landing_blocked():  # R6
    assert reason_of(START, (6, 5), "13/7 6/1") == (R.LANDING_BLOCKED, (6, 1))
    assert reason_of(START, (6, 5), [(24, 18), (24, 19)]) == (R.LANDING_BLOCKED, (24, 19))


def test_intermediate_blocked():  # R6: double 6 from 24 with 18 blocked cannot jump to 12
    board = board_with({24: 1, 6: 14}, {18: 2, 1: 13})
    assert reason_of(board, (6, 6), "24/12") == (R.INTERMEDIATE_BLOCKED, (24, 18))
    # 9 pips with 6-3: both intermediates blocked
    board = board_with({24: 1, 6: 14}, {18: 2, 21: 2, 1: 11})
    assert reason_of(board, (6, 3), "24/15")[0] is R.INTERMEDIATE_BLOCKED


def test_die_not_in_roll():  # R5
    assert reason_of(START, (6, 5), "13/9 13/8") == (R.DIE_NOT_IN_ROLL, (13, 9))
    assert reason_of(START, (6, 5), [(13, 7), (13, 7)]) == (R.DIE_NOT_IN_ROLL, (13, 7))
    assert reason_of(START, (2, 1), "13/10 13/12 13/11")[0] is R.DIE_NOT_IN_ROLL


def test_more_dice_possible():  # R11, R12
    assert reason_of(START, (6, 5), "24/18") == (R.MORE_DICE_POSSIBLE, (24, 18))
    assert reason_of(START, (3, 3), "13/10 13/10 13/10")[0] is R.MORE_DICE_POSSIBLE


def test_more_dice_possible_when_order_matters():
    # RULES: 4-2 with one checker, +4 blocked, +2 then +4 open: 2 then 4 is legal.
    board = board_with({20: 1, 1: 14}, {16: 2, 3: 13})
    assert [str(p) for p in fastgen.legal_plays(board, (4, 2))] == ["20/14"]
    assert reason_of(board, (4, 2), [(20, 18)])[0] is R.MORE_DICE_POSSIBLE
    assert reason_of(board, (4, 2), [(20, 16), (16, 14)]) == (R.LANDING_BLOCKED, (20, 16))


def test_larger_die_required():  # R13: 5-2, each alone playable, never both
    board = board_with({10: 1, 1: 14}, {3: 2, 19: 13})
    assert [str(p) for p in fastgen.legal_plays(board, (5, 2))] == ["10/5"]
    assert reason_of(board, (5, 2), "10/8") == (R.LARGER_DIE_REQUIRED, (10, 8))


def test_bearoff_not_allowed():  # R9
    assert reason_of(START, (6, 5), "6/off 13/8") == (R.BEAROFF_NOT_ALLOWED, (6, 0))


def test_bearoff_higher_occupied():  # R9: with a checker on 6, a 5 cannot bear off from 4
    board = board_with({6: 1, 4: 1}, {20: 15})
    assert reason_of(board, (5, 1), "4/off 6/5") == (R.BEAROFF_HIGHER_OCCUPIED, (4, 0))
    assert reason_of(board, (5, 1), [(4, 0)]) == (R.BEAROFF_HIGHER_OCCUPIED, (4, 0))
    assert str(check_play(board, (5, 3), "6/3 4/off")) == "6/3 4/off"  # 6 moved first


def test_no_checker():
    assert reason_of(START, (6, 5), "9/3 13/8") == (R.NO_CHECKER, (9, 3))
    assert reason_of(START, (6, 5), "bar/19 13/8") == (R.NO_CHECKER, (25, 19))


def test_play_from_another_position_is_rejected():
    other = fastgen.legal_plays(board_with({6: 2}, {20: 15}), (6, 6))[0]
    with pytest.raises(IllegalPlayError):
        check_play(START, (6, 6), other)


@pytest.mark.parametrize("bad", [[(13, 14)], [(26, 20)], [(13, -1)], [("13", "10")], [(13,)], 5, [(True, 0)]])
def test_malformed_steps(bad):
    with pytest.raises(InvalidMoveTextError) as info:
        check_play(START, (3, 1), bad)
    assert repr(bad) in str(info.value)


# --------------------------------------------------------------------------- random illegal plays


def expected_first_problem(mine, opp, source, die, dice):
    """R15 by hand for a single step of *die* from *source* (25 = bar); None if legal.

    A step off the board does not name its die: the exact die is used when rolled.
    """
    if mine[24] and source != 25:
        return R.BAR_FIRST
    if not mine[24 if source == 25 else source - 1]:
        return R.NO_CHECKER
    target = source - die
    if target <= 0:
        if any(mine[6:]):
            return R.BEAROFF_NOT_ALLOWED
        if source not in dice and any(mine[source:24]):
            return R.BEAROFF_HIGHER_OCCUPIED
        return None
    if opp[24 - target] >= 2:
        return R.LANDING_BLOCKED
    return None


def test_random_single_steps_get_the_rule_reason():
    rng = random.Random(31)
    seen = set()
    for board, dice in positions(seed=31, n=1500):
        mine, opp = board[1].tolist(), board[0].tolist()
        die = rng.choice(dice)
        source = rng.choice([25] + list(range(1, 25)))
        step = (source, max(source - die, 0))
        legal = {p.board_after.tobytes() for p in fastgen.legal_plays(board, dice)}
        want = expected_first_problem(mine, opp, source, die, dice)
        try:
            got = check_play(board, dice, [step])
        except IllegalPlayError as exc:
            if want is not None:
                assert exc.reason is want, (fastgen.position_id(board), dice, step)
                assert exc.step == step
            else:  # a legal step that is not a whole legal play
                assert exc.reason in (R.MORE_DICE_POSSIBLE, R.LARGER_DIE_REQUIRED)
            seen.add(exc.reason)
        else:
            assert want is None and got.board_after.tobytes() in legal
    assert seen >= {R.BAR_FIRST, R.NO_CHECKER, R.LANDING_BLOCKED, R.BEAROFF_NOT_ALLOWED,
                    R.MORE_DICE_POSSIBLE}


def test_random_step_sequences_accepted_iff_legal():
    rng = random.Random(32)
    accepted = rejected = 0
    for board, dice in positions(seed=32, n=1200):
        legal = {p.board_after.tobytes() for p in fastgen.legal_plays(board, dice)}
        pool = [25] + [p for p in range(1, 25) if board[1, p - 1]]
        roll = [dice[0]] * 4 if dice[0] == dice[1] else list(dice)
        rng.shuffle(roll)
        steps = []
        for die in roll[: rng.randint(1, len(roll))]:
            source = rng.choice(pool + [s[1] for s in steps if s[1] > 0])
            steps.append((source, max(source - die, 0)))
        try:
            play = check_play(board, dice, steps)
        except IllegalPlayError as exc:
            rejected += 1
            assert isinstance(exc.reason, IllegalReason)
        else:
            accepted += 1
            assert play.board_after.tobytes() in legal
    assert accepted > 20 and rejected > 500


# --------------------------------------------------------------------------- legal_steps


def walk(board, dice, played, finals, paths):
    steps = legal_steps(board, dice, played)
    if not steps:
        paths.append(list(played))
        return
    for step in steps:
        walk(board, dice, played + [step], finals, paths)


def test_chained_legal_steps_reach_exactly_the_legal_plays():
    n = 0
    for board, dice in positions(seed=41, n=160):
        if dice[0] == dice[1] and n % 3:
            n += 1
            continue  # keep the runtime down: one double in three
        n += 1
        legal = fastgen.legal_plays(board, dice)
        paths = []
        walk(board, dice, [], set(), paths)
        reached = set()
        for path in paths:
            play = check_play(board, dice, [s[:2] for s in path])
            reached.add(play.board_after.tobytes())
            assert len(path) == len(legal[0].moves)
        assert reached == legal.position_set(), (fastgen.position_id(board), dice)


def test_legal_steps_first_steps_cover_every_order():
    # 6-5 from 24 to 13 may start with the 6 or the 5.
    first = legal_steps(START, (6, 5))
    assert (24, 18, 6) in first and (24, 19, 5) not in first  # 19 is blocked at the start
    board = board_with({24: 2, 13: 5, 6: 8}, {12: 5, 1: 2, 3: 8})
    first = legal_steps(board, (6, 5))
    assert (24, 18, 6) in first and (24, 19, 5) in first


def test_legal_steps_empty_when_complete_or_lost():
    assert legal_steps(START, (3, 1), [(8, 5), (6, 5)]) == []
    lost = board_with({25: 2, 13: 13}, {19: 2, 20: 2, 12: 11})
    assert legal_steps(lost, (6, 5)) == []


def test_legal_steps_accepts_dice_in_steps_and_rejects_bad_prefix():
    assert legal_steps(START, (6, 5), [(24, 18, 6)]) == legal_steps(START, (6, 5), [(24, 18)])
    with pytest.raises(IllegalPlayError) as info:
        legal_steps(START, (6, 5), [(24, 20)])
    assert info.value.reason is R.DIE_NOT_IN_ROLL
    board = board_with({20: 1, 1: 14}, {16: 2, 3: 13})
    with pytest.raises(IllegalPlayError) as info:
        legal_steps(board, (4, 2), [(20, 16)])
    assert info.value.reason is R.LANDING_BLOCKED
    with pytest.raises(InvalidMoveTextError):
        legal_steps(START, (6, 5), ["x"])


def test_legal_steps_follow_the_working_order():
    # RULES: 6-2 where 6 then 2 is blocked but 2 then 6 works (one checker, 14 blocked).
    board = board_with({20: 1, 1: 14}, {14: 2, 3: 13})
    assert [str(p) for p in fastgen.legal_plays(board, (6, 2))] == ["20/12"]
    assert legal_steps(board, (6, 2)) == [(20, 18, 2)]
    assert legal_steps(board, (6, 2), [(20, 18)]) == [(18, 12, 6)]
    assert reason_of(board, (6, 2), [(20, 14), (14, 12)]) == (R.LANDING_BLOCKED, (20, 14))
    assert str(check_play(board, (6, 2), "20/12")) == "20/12"
    assert reason_of(board, (6, 2), "20/14/12") == (R.INTERMEDIATE_BLOCKED, (20, 14))


def test_legal_steps_never_offer_a_dead_end():
    for board, dice in positions(seed=42, n=150):
        for step in legal_steps(board, dice):
            assert legal_steps(board, dice, [step]) or len(fastgen.legal_plays(board, dice)[0].moves) == 1


def test_check_play_returns_core_play_object():
    play = check_play(START, (3, 1), "8/5 6/5")
    assert isinstance(play, Play)
    assert play.board_before.tobytes() == START.tobytes()


@pytest.mark.parametrize("call", [
    lambda: check_play(None, (3, 1), "8/5 6/5"),
    lambda: check_play(START, None, "8/5 6/5"),
    lambda: check_play(START, (3, 1), None),
    lambda: check_play(START, (0, 1), "8/5"),
    lambda: legal_steps(None, (3, 1)),
    lambda: legal_steps(START, (7, 1)),
    lambda: legal_steps(START, (3, 1), None),
    lambda: legal_steps(START, (3, 1), 5),
])
def test_bad_types_raise_clean_value_errors(call):
    # cytoolz-style: wrong types give a fastgen ValueError, never a crash or a TypeError.
    with pytest.raises(ValueError):
        call()


def test_play_of_another_position_is_replayed_here():
    # The same steps may be legal on a different board: judged by replaying them.
    board = board_with({24: 2, 13: 5, 8: 3, 6: 5}, {1: 2, 12: 5, 17: 3, 20: 5})
    elsewhere = check_play(board, (3, 1), "8/5 6/5")
    here = check_play(START, (3, 1), elsewhere)
    assert str(here) == "8/5 6/5" and here.board_before.tobytes() == START.tobytes()


def test_inconsistent_play_object():
    good = check_play(START, (3, 1), "8/5 6/5")
    other = check_play(START, (3, 1), "24/23 24/21")
    forged = Play.from_arrays(START, (3, 1), [[8, 5], [6, 5]], other.board_after)
    with pytest.raises(InvalidMoveTextError):
        check_play(START, (3, 1), forged)
    assert check_play(START, (3, 1), good) == good
