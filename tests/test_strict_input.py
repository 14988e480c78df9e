"""Bad input gets a specific fastgen exception, never a wrong one (issue 8, section 2).

Every reproducer of the issue is a test here, then a systematic sweep in the spirit of
cytoolz's ``test_none_safe``: every public function is fed None, wrong types, huge ints,
floats, numpy scalars and strings, and may only succeed or raise a
:class:`fastgen.FastgenError` that is also a ``ValueError``. Parsers are timed on long
inputs for linear behaviour by comparing two lengths (a ratio, not a wall-clock limit).
"""

from __future__ import annotations

import inspect
import time

import numpy as np
import pytest

import fastgen
from fastgen import (
    STARTING_BOARD,
    Board,
    FastgenError,
    Game,
    IllegalPlayError,
    InvalidArgumentError,
    InvalidBoardError,
    InvalidDiceError,
    InvalidMoveTextError,
    Match,
    MatchState,
)
from fastgen.errors import IllegalReason, InvalidMatchStateError, InvalidPositionIDError, InvalidXGIDError

START = STARTING_BOARD


def raises_fastgen(exc_type, call, *args, **kwargs):
    """Assert *call* raises *exc_type* (a fastgen ValueError subclass); return the error."""
    assert issubclass(exc_type, FastgenError) and issubclass(exc_type, ValueError)
    with pytest.raises(exc_type) as info:
        call(*args, **kwargs)
    return info.value


# --------------------------------------------------------------------------- move text


def test_star_where_nothing_is_hit_is_invalid_text_not_a_type_error():
    # Was TypeError: exceptions must derive from BaseException (a Play was raised).
    err = raises_fastgen(InvalidMoveTextError, fastgen.parse_play, START, (3, 1), "8/5* 6/5")
    assert "'8/5* 6/5'" in str(err) and "point 5" in str(err)
    raises_fastgen(InvalidMoveTextError, fastgen.check_play, START, (3, 1), "8/5* 6/5")
    board = Board()
    raises_fastgen(InvalidMoveTextError, board.push, "8/5* 6/5", (3, 1))
    assert board == Board()  # unchanged
    game = Game(seed=1)
    game.roll((3, 1))  # player 0 opens with 3-1
    with pytest.raises(fastgen.games.IllegalGamePlayError):
        game.play("8/5* 6/5")
    assert game.dice == (3, 1) and game.turns == 0


@pytest.mark.parametrize(
    "dice, text, bad_step",
    [
        ((6, 5), "24/20/13", (24, 20)),  # 4 pips: no die
        ((6, 5), "24/14/13", (24, 14)),  # 10 pips: no dice
        ((3, 1), "6/5/4/3/2", (5, 4)),  # the 1 is used up on 6/5
    ],
)
def test_named_intermediate_points_must_be_reached_by_the_dice(dice, text, bad_step):
    err = raises_fastgen(IllegalPlayError, fastgen.check_play, START, dice, text)
    assert err.reason is IllegalReason.DIE_NOT_IN_ROLL
    assert err.step == bad_step
    assert repr(text) in str(err) and err.reason.rule in str(err)
    raises_fastgen(IllegalPlayError, fastgen.parse_play, START, dice, text)


def test_named_intermediate_points_the_dice_reach_are_accepted():
    assert str(fastgen.check_play(START, (6, 5), "24/18/13")) == "24/13"
    err = raises_fastgen(IllegalPlayError, fastgen.check_play, START, (6, 5), "24/19/13")
    assert err.reason is IllegalReason.INTERMEDIATE_BLOCKED  # the opponent's 6 point
    assert fastgen.check_play(START, (3, 3), "13/10/7/4 6/3").text() == "13/4 6/3"
    # Named stops of several checkers may interleave: both enter before either moves on.
    board = np.zeros((2, 25), dtype=np.int8)
    board[1, 24], board[1, 5], board[0, 0] = 2, 13, 15
    assert str(fastgen.parse_play(board, (3, 3), "bar/22/19(2)")) == "bar/19(2)"


def test_a_step_with_a_die_that_does_not_fit_is_rejected():
    raises_fastgen(InvalidMoveTextError, fastgen.check_play, START, (3, 1), [(8, 5, 1), (6, 5)])
    raises_fastgen(InvalidMoveTextError, fastgen.legal_steps, START, (3, 1), [(8, 5, 1)])
    raises_fastgen(InvalidMoveTextError, fastgen.legal_steps, START, (3, 1), [(8, 5, 7)])
    assert (6, 5, 1) in fastgen.legal_steps(START, (3, 1), [(8, 5, 3)])


@pytest.mark.parametrize("step", [(8, 5.9), (8.0, 5), (True, 0), ("8", "5"), (8, np.float64(5)), (8,), (8, 5, 3, 1)])
def test_steps_must_be_integers(step):
    raises_fastgen(InvalidMoveTextError, fastgen.legal_steps, START, (3, 1), played=[step])
    raises_fastgen(InvalidMoveTextError, fastgen.check_play, START, (3, 1), [step, (6, 5)])


def test_numpy_integer_steps_are_integers():
    steps = [(np.int64(8), np.int8(5)), (np.int32(6), np.uint8(5))]
    assert str(fastgen.check_play(START, (3, 1), steps)) == "8/5 6/5"


@pytest.mark.parametrize(
    "text",
    ["８/５ ６/５", "٨/٥ ٦/٥", "8/５ 6/5", "８/5 6/5", "8/5(２) ", "13/7\u00a013/9", "²4/18"],
)
def test_unicode_digits_and_spaces_are_not_numbers(text):
    err = raises_fastgen(InvalidMoveTextError, fastgen.parse_play, START, (3, 1), text)
    assert repr(text) in str(err)


@pytest.mark.parametrize("text", ["8" * 5000 + "/5", "8/5(" + "1" * 5000 + ")", "8/" + "9" * 4400])
def test_numbers_of_thousands_of_digits_are_invalid_text_not_plain_value_errors(text):
    # Python's int() refuses strings of over 4,300 digits with a plain ValueError.
    err = raises_fastgen(InvalidMoveTextError, fastgen.parse_play, START, (3, 1), text)
    assert "out of range" in str(err)


def test_leading_zeros_are_still_numbers():
    assert str(fastgen.parse_play(START, (3, 1), "0" * 5000 + "8/5 6/05")) == "8/5 6/5"


# --------------------------------------------------------------------------- IDs


@pytest.mark.parametrize(
    "pid", ["４HPwATDgc/ABMA", "4HPwATDgc/ABM٣", "4HPwATDgc/ABMA\n", " 4HPwATDgc/ABMA", "4HPwATDgc/ABMH"]
)
def test_position_id_rejects_unicode_digits(pid):
    err = raises_fastgen(InvalidPositionIDError, fastgen.parse_position_id, pid)
    assert repr(pid) in str(err)


@pytest.mark.parametrize("mid", ["cAkAAAAAAAA４", "cAkAAAAAAA٣E", "ｃAkAAAAAAAAE"])
def test_match_id_rejects_unicode_digits(mid):
    raises_fastgen(fastgen.errors.InvalidMatchIDError, fastgen.parse_match_id, mid)


XG = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


@pytest.mark.parametrize(
    "text",
    [
        XG.replace(":0:0:1:00", ":٠:0:1:00"),
        XG.replace(":0:0:1:00", ":0:0:1:５２"),
        XG.replace(":0:0:0:0:10", ":0:0:0:０:10"),
        XG[:-2] + "1" * 5000,  # a max cube of 5,000 digits
        XG.replace(":0:0:0:0:10", ":" + "9" * 4400 + ":0:0:0:10"),
    ],
)
def test_xgid_rejects_unicode_digits_and_huge_numbers(text):
    raises_fastgen(InvalidXGIDError, fastgen.parse_xgid, text)


# --------------------------------------------------------------------------- reproducers


def test_huge_die_is_invalid_dice_not_overflow():
    raises_fastgen(InvalidDiceError, fastgen.legal_plays, START, (2**64, 1))
    raises_fastgen(InvalidDiceError, fastgen.legal_plays, START, (1, -(2**70)))
    raises_fastgen(InvalidDiceError, fastgen.legal_plays, START, [2**63, 1])


def test_rollout_seed_out_of_range():
    raises_fastgen(InvalidArgumentError, fastgen.rollout, games=2, seed=2**64)
    raises_fastgen(InvalidArgumentError, fastgen.rollout, games=2, seed=2**64, engine="python")
    raises_fastgen(InvalidArgumentError, fastgen.rollout, games=2, seed=-1)
    assert fastgen.rollout(games=2, seed=2**64 - 1).winner.shape == (2,)


@pytest.mark.parametrize(
    "field, value",
    [
        ("on_roll", 1.0),
        ("turn", 0.0),
        ("on_roll", True),
        ("cube_owner", 1.0),
        ("cube_value", 2.0),
        ("cube_value", "2"),
        ("cube_value", True),
        ("dice", (5.0, 2)),
        ("dice", "52"),
        ("dice", None),
        ("score", (1, "2")),
        ("score", 3),
        ("match_length", 7.0),
        ("game_state", 1.0),
        ("resigned", "1"),
        ("crawford", "no"),
        ("jacoby", 2),
        ("max_cube", np.float64(64)),
    ],
)
def test_match_state_rejects_wrong_types(field, value):
    kwargs = {"match_length": 7} if field == "crawford" else {}
    kwargs[field] = value
    err = raises_fastgen(InvalidMatchStateError, MatchState, **kwargs)
    assert repr(value) in str(err)


def test_numpy_integers_are_integers_in_match_state():
    state = MatchState(
        cube_value=np.int64(2), cube_owner=np.int8(0), on_roll=np.int32(1),
        dice=(np.int64(5), np.uint8(2)), match_length=np.int16(9), score=(np.int64(2), 4),
        max_cube=np.int64(64), jacoby=np.bool_(True),
    )
    plain = MatchState(cube_value=2, cube_owner=0, on_roll=1, dice=(5, 2), match_length=9,
                       score=(2, 4), max_cube=64, jacoby=True)
    assert state == plain
    assert type(state.cube_value) is int and type(state.score[0]) is int
    assert fastgen.match_id(state) == fastgen.match_id(plain)
    assert fastgen.xgid(START, state) == fastgen.xgid(START, plain)


def test_board_state_must_be_a_match_state():
    raises_fastgen(InvalidMatchStateError, Board, state="x")
    board = Board()
    with pytest.raises(InvalidMatchStateError):
        board.state = "x"
    assert board.state is None
    raises_fastgen(InvalidDiceError, Board().push, "8/5 6/5")  # no dice anywhere


@pytest.mark.parametrize("seed", ["x", 1.5, -1, True, [1.5], object()])
def test_game_seed_is_checked(seed):
    raises_fastgen(InvalidArgumentError, Game, seed=seed)
    raises_fastgen(InvalidArgumentError, Match, 3, seed=seed)


def test_game_seed_accepts_numpy_integers_and_generators():
    a, b = Game(seed=np.int64(5)), Game(seed=5)
    assert a.roll() == b.roll()
    Game(seed=np.random.default_rng(1))
    Game(seed=np.random.SeedSequence(1))


@pytest.mark.parametrize(
    "record",
    [None, "opening", 5, [None], [("roll",)], [("opening", 0, None)], [(1, 0, (3, 1))],
     [("opening", 2, (3, 1))], [("opening", 0, (3, 1)), ("play", 0, b"xx")], [("fly", 0, None)]],
)
def test_game_replay_rejects_malformed_records(record):
    raises_fastgen(InvalidArgumentError, Game.replay, record)


def test_game_replay_round_trip_still_works():
    game = Game(seed=3)
    while not game.over:
        game.roll()
        game.play(game.legal_plays().boards[0])
    again = Game.replay(game.record)
    assert again.winner == game.winner and again.points == game.points


@pytest.mark.parametrize(
    "kwargs",
    [dict(names=None), dict(names="ab"), dict(names=("a",)), dict(names=("a", 1)), dict(length=-1),
     dict(length=2.0), dict(length="7"), dict(length=True), dict(length=10**6), dict(cube_cap=3),
     dict(cube_cap=64.0), dict(length=5, jacoby=True)],
)
def test_match_arguments_are_checked(kwargs):
    raises_fastgen(InvalidArgumentError, Match, **kwargs)


def test_game_play_of_a_board_never_wraps():
    game = Game(seed=1)
    game.roll((3, 1))
    legal = game.legal_plays().boards[0]
    with pytest.raises(fastgen.games.IllegalGamePlayError):
        game.play(legal.astype(np.int64) + 256)
    with pytest.raises(fastgen.games.IllegalGamePlayError):
        game.play(legal.astype(np.int64) - 256)
    assert game.turns == 0
    game.play(legal.astype(np.int64))  # the same values in another integer type are fine
    assert game.turns == 1


def test_converters_never_wrap():
    v = fastgen.formats.to_pubeval28(START).astype(np.int64)
    v[6] = 261  # 261 = 5 (mod 256): was read as 5 checkers
    raises_fastgen(InvalidBoardError, fastgen.formats.from_pubeval28, v)
    w = fastgen.formats.to_signed26(START).astype(np.int64)
    w[6] = 261
    raises_fastgen(InvalidBoardError, fastgen.formats.from_signed26, w)
    for huge in (2**63 - 1, -(2**63)):
        w[6] = huge
        err = raises_fastgen(InvalidBoardError, fastgen.formats.from_signed26, w)
        assert "-15..15" in str(err)
    u = fastgen.formats.to_signed26(START).astype(np.int64)
    u[0] = 0
    big = np.where(u < 0, 0, u).astype(np.uint64)
    big[6] = 2**64 - 1
    raises_fastgen(InvalidBoardError, fastgen.formats.from_signed26, big)
    raises_fastgen(InvalidBoardError, fastgen.formats.from_signed26, [object()] * 26)


# --------------------------------------------------------------------------- sweep

#: Values every argument is tried with.
WEIRD = [
    None, "x", "", b"\x00", 1.5, float("nan"), 2**64, -(2**64), -1, True, np.int64(3), np.float64(2.0),
    np.bool_(True), [], (), {}, object(), np.zeros((2, 25), dtype=np.float64), np.zeros(0),
    np.full((2, 25), 300, dtype=np.int64), "８", "1" * 5000,
]

#: A valid call of each public function, as (function, args); the sweep replaces one
#: argument at a time by each WEIRD value.
VALID_CALLS = [
    (fastgen.legal_plays, (START, (3, 1))),
    (fastgen.plays_batch, (START[None], [(3, 1)])),
    (fastgen.count_plays_batch, (START[None], [(3, 1)])),
    (fastgen.swap_sides, (START,)),
    (fastgen.encode, (START, "raw")),
    (fastgen.pubeval_best, (START[None], [(3, 1)])),
    (fastgen.duel, ("pubeval", "random", 10)),
    (fastgen.duel_matches, ("baseline", "baseline", 2, 1)),
    (fastgen.perft, (START, 1)),
    (fastgen.MoveFilter, (0, 8, 0.16)),
    (fastgen.Search, (2, None)),
    (fastgen.perft_weighted, (START, 1)),
    (fastgen.position_id, (START,)),
    (fastgen.parse_position_id, ("4HPwATDgc/ABMA",)),
    (fastgen.match_id, (MatchState(),)),
    (fastgen.parse_match_id, ("cAkAAAAAAAAE",)),
    (fastgen.gnubg_id, (START, MatchState())),
    (fastgen.parse_gnubg_id, ("4HPwATDgc/ABMA:cAkAAAAAAAAE",)),
    (fastgen.xgid, (START, MatchState())),
    (fastgen.parse_xgid, (XG,)),
    (fastgen.format_play, (START, [(8, 5), (6, 5)])),
    (fastgen.parse_play, (START, (3, 1), "8/5 6/5")),
    (fastgen.check_play, (START, (3, 1), "8/5 6/5")),
    (fastgen.legal_steps, (START, (3, 1), [(8, 5)])),
    (fastgen.formats.to_signed26, (START,)),
    (fastgen.formats.from_signed26, (fastgen.formats.to_signed26(START),)),
    (fastgen.formats.to_pubeval28, (START,)),
    (fastgen.formats.from_pubeval28, (fastgen.formats.to_pubeval28(START),)),
    (fastgen.games.result_type, (START,)),
    (fastgen.sim.rollout_dice, (1, 3, 2)),
    (fastgen.rollout_plays, (START, (3, 1), fastgen.players.evaluators.constant())),  # never run as is
    (fastgen.rollout_position, (START, fastgen.players.evaluators.constant())),
    (fastgen.rollout_cube, (START, fastgen.players.evaluators.constant())),  # never run as is
    (fastgen.cube_action, (START, [0.55, 0.15, 0.01, 0.12, 0.005], MatchState())),
    (fastgen.hint, (START, (3, 1), "baseline", MatchState())),
    (fastgen.Play, (START, (3, 1), [(8, 5), (6, 5)], fastgen.parse_play(START, (3, 1), "8/5 6/5").board_after)),
    (Board, (START,)),
    (Board.from_position_id, ("4HPwATDgc/ABMA",)),
    (Board.from_xgid, (XG,)),
    (Game, (1,)),
    (Match, (3,)),
]


#: Functions whose work grows fast with an argument: only arguments before *limit* are swept.
SWEEP_LIMIT = {fastgen.perft: 1, fastgen.perft_weighted: 1}


def _sweep_cases():
    for func, args in VALID_CALLS:
        if func in SWEEP_LIMIT:
            args = args[: SWEEP_LIMIT[func]]
        for i in range(len(args)):
            for k, value in enumerate(WEIRD):
                name = getattr(func, "__qualname__", repr(func))
                full = args[:i] + (value,) + args[i + 1 :] + dict(VALID_CALLS)[func][len(args):]
                yield pytest.param(func, full, id=f"{name}-arg{i}-{k}")


def _check_outcome(func, args):
    try:
        func(*args)
    except FastgenError as exc:
        assert isinstance(exc, ValueError), f"{type(exc).__name__} is not a ValueError"
    # any other exception fails the test with its traceback


@pytest.mark.parametrize("func, args", list(_sweep_cases()))
def test_every_public_function_raises_only_fastgen_errors(func, args):
    _check_outcome(func, args)


def test_sweep_covers_every_public_function():
    covered = {getattr(f, "__name__", "") for f, _ in VALID_CALLS}
    # Covered elsewhere: the batch iterator and memory call (test_generate_api), the
    # match file readers and writer (test_matfile, test_match_reader), rollout
    # (test_rollout).
    elsewhere = {"iter_plays_batch", "release_memory", "write_mat", "read_match", "read_matches", "rollout"}
    callables = {
        name for name in fastgen.__all__
        if (inspect.isfunction(getattr(fastgen, name)) or name in {"Play", "Board", "Game", "Match"})
    }
    assert callables - covered - elsewhere == set()


@pytest.mark.parametrize("func", [fastgen.perft, fastgen.perft_weighted])
@pytest.mark.parametrize("depth", [None, "x", "1", 1.0, -1, 0, 2**64, True, [], np.float64(1)])
def test_perft_depth_is_checked(func, depth):
    _check_outcome(func, (START, depth))


@pytest.mark.parametrize("method, args", [
    ("push", ("8/5 6/5", (3, 1))), ("legal_plays", ((3, 1),)),
])
def test_board_methods_raise_only_fastgen_errors(method, args):
    for i in range(len(args)):
        for value in WEIRD:
            _check_outcome(getattr(Board(), method), args[:i] + (value,) + args[i + 1 :])


@pytest.mark.parametrize("method", ["roll", "play", "double", "take", "drop", "board_for"])
def test_game_methods_raise_only_fastgen_errors(method):
    for value in WEIRD:
        game = Game(seed=1)
        game.roll()
        if method == "board_for":
            _check_outcome(game.board_for, (value,))
        elif method == "play":
            _check_outcome(game.play, (value,))
            _check_outcome(lambda v: game.play(game.legal_plays()[0], player=v), (value,))
        elif method == "roll":
            _check_outcome(lambda v: Game(seed=1).roll(v), (value,))
            _check_outcome(lambda v: Game(seed=1).roll(player=v), (value,))
        else:
            _check_outcome(lambda v: getattr(game, method)(player=v), (value,))


@pytest.mark.parametrize("key", ["games", "seed", "batch_size", "threads", "policy", "engine", "start", "progress"])
def test_rollout_arguments_raise_only_fastgen_errors(key):
    for value in WEIRD:
        if key == "games" and isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) and value > 10:
            continue  # a valid (huge) number of games: not bad input
        _check_outcome(lambda v: fastgen.rollout(**{"games": 2, key: v}), (value,))


# --------------------------------------------------------------------------- linear time


def _seconds(func, arg) -> float:
    best = float("inf")
    for _ in range(5):  # the best of five: a busy machine only ever adds time
        t0 = time.perf_counter()
        try:
            func(arg)
        except FastgenError:
            pass
        best = min(best, time.perf_counter() - t0)
    return best


@pytest.mark.parametrize(
    "func, unit",
    [
        (fastgen.core.notation.parse_move_text, " "),
        (fastgen.core.notation.parse_move_text, "1"),
        (lambda t: fastgen.parse_play(START, (3, 1), t), " ,"),
        (fastgen.parse_position_id, "A"),
        (fastgen.parse_match_id, "A"),
        (fastgen.parse_gnubg_id, "A:"),
        (fastgen.parse_xgid, "-"),
        (fastgen.parse_xgid, "1"),
        (lambda t: fastgen.parse_xgid(XG + t), ":1"),
    ],
)
def test_parsers_take_time_linear_in_the_input(func, unit):
    # Time 16x the input: a quadratic parser takes ~256x as long, a linear one ~16x.
    small, large = unit * 20_000, unit * 320_000
    t_small = max(_seconds(func, small), 1e-4)
    t_large = _seconds(func, large)
    assert t_large < 64 * t_small, (t_small, t_large)


@pytest.mark.parametrize("value", WEIRD, ids=range(len(WEIRD)))
def test_summarize_and_match_scores_raise_only_fastgen_errors(value):
    _check_outcome(fastgen.sim.summarize, (value,))
    _check_outcome(Match(3, seed=1).scores_before, (value,))
    _check_outcome(lambda v: list(fastgen.iter_plays_batch(v, [(3, 1)])), (value,))
    _check_outcome(lambda v: list(fastgen.iter_plays_batch(START[None], [(3, 1)], chunk_size=v)), (value,))
