"""fastgen.cube refuses what has no answer: tables that cannot be match equity tables,
cube states no game reaches, evaluator answers and probabilities that are not five
chances. Each refusal is a specific FastgenError (a ValueError) quoting the input, and on
the command line a one-line ``fastgen cube: error:`` message with exit status 2."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

import fastgen
from fastgen.cli.main import main
from fastgen.core.ids import match_id
from fastgen.core.state import GameState
from fastgen.cube import CubeAction, MatchEquityTable, cube_action, cube_decisions, default_met, read_met
from fastgen.cube.lookahead import one_ply_batch
from fastgen.cube.met_files import METFile, check_table, parse_met
from fastgen.errors import FastgenError, InvalidCubeStateError, InvalidOutputError, METFileError

GNUBG_METS = "/usr/share/gnubg/met"
BOARD = fastgen.STARTING_BOARD
PROBS = [0.6, 0.2, 0.01, 0.1, 0.01]
POSITION = "4HPwATDgc/ABMA"


def _xml(pre, post) -> str:
    rows = "".join("<row>" + "".join(f"<me>{v!r}</me>" for v in r) + "</row>" for r in np.asarray(pre).tolist())
    prow = "<row>" + "".join(f"<me>{v!r}</me>" for v in np.asarray(post).tolist()) + "</row>"
    return (f"<met><info><name>t</name><description>d</description><length>{len(pre)}</length></info>"
            f'<pre-crawford-table type="explicit">{rows}</pre-crawford-table>'
            f'<post-crawford-table type="explicit" player="both">{prow}</post-crawford-table></met>')


def _shipped(n: int = 7) -> tuple[np.ndarray, np.ndarray]:
    """The first n x n values of the shipped table (a good table to spoil)."""
    met = default_met()
    return met.pre[:n, :n].copy(), met.post[0, :n].copy()


def _refused(pre, post) -> str:
    """The message of a table refused both ways, built in Python and read from a file:
    one checker, the same fault."""
    with pytest.raises(METFileError) as built:
        MatchEquityTable.from_arrays(pre, post)
    with pytest.raises(METFileError) as read:
        parse_met(_xml(pre, post), "bad.xml")
    message = str(built.value)
    assert message.startswith("<arrays>: ") and str(read.value) == "bad.xml: " + message[len("<arrays>: "):]
    assert "\n" not in message and isinstance(built.value, ValueError) and isinstance(built.value, FastgenError)
    return message


# ----------------------------------------------------------------------------- tables


def test_constant_met_is_refused():
    message = _refused(np.full((25, 25), 0.5), np.full(25, 0.5))
    assert "row 1, column 2" in message and "0.5 is not more than row 2, column 1, 0.5" in message


def test_random_met_is_refused():
    pre = np.random.default_rng(3).uniform(0.0, 1.0, (9, 9))
    message = _refused(pre, np.full(9, 0.5))
    r, c = (int(k) for k in message.split("row ")[1].split(" (")[0].split(", column "))
    assert repr(float(pre[r - 1, c - 1])) in message


def test_met_falling_along_a_row_is_refused():
    pre, post = _shipped()
    pre[2, 4] = 0.42  # 3 away against 5 away: below 3 away against 4 away
    message = _refused(pre, post)
    assert "row 3, column 5 (3 away against 5 away): 0.42 is less than the entry to its left, 0.5715" in message


def test_met_rising_down_a_column_is_refused():
    pre, post = _shipped()
    pre[4, 2] = 0.5  # 5 away against 3 away: above 4 away against 3 away
    message = _refused(pre, post)
    assert "row 5, column 3 (5 away against 3 away): 0.5 is more than the entry above it, 0.4285" in message


@pytest.mark.parametrize("value", [1.25, -0.1, float("nan")])
def test_met_value_that_is_not_a_chance_is_refused(value):
    pre, post = _shipped(3)
    pre[1, 2] = value
    with pytest.raises(METFileError, match=rf"row 2, column 3: {value!r} is not a match-winning chance"):
        MatchEquityTable.from_arrays(pre, post)
    with pytest.raises(METFileError, match="outside"):  # the file reader names it as it reads it
        parse_met(_xml(pre, post))


def test_post_crawford_rising_is_refused():
    pre, post = _shipped()
    post[3] = 0.4  # the trailer 4 away better off than 3 away
    message = _refused(pre, post)
    assert "post-Crawford table of player 0, value 4 (4 away): 0.4 is more than the value before it" in message


def test_double_match_point_values_must_add_to_one():
    pre, post = _shipped(3)
    with pytest.raises(METFileError, match=r"player 0, 0\.6, and of player 1, 0\.5, must add to 1"):
        MatchEquityTable.from_arrays(pre, [[0.6, 0.3, 0.2], [0.5, 0.3, 0.2]])


def test_met_of_the_wrong_shape_or_kind_is_refused():
    with pytest.raises(METFileError, match=r"must be 3 x 3 numbers, got array"):
        check_table(np.full((3, 2), 0.5), np.full((2, 3), 0.5), 3)
    with pytest.raises(METFileError, match=r"'0\.5'"):
        METFile("t", "d", 2, [["0.5", "0.7"], ["0.3", "0.5"]], [[0.5, 0.3]] * 2, "strings")
    with pytest.raises(METFileError, match="length must be a whole number from 1 to 64, got 0"):
        check_table([], [], 0)
    with pytest.raises(METFileError, match="got 'Kazaross'"):
        MatchEquityTable("Kazaross")


def test_a_table_built_in_python_is_checked_and_kept():
    pre, post = _shipped()
    table = METFile("mine", "", 7, pre, np.stack([post, post]))
    pre[0, 1] = 0.0  # the caller's array changes later: the table holds its own copy
    met = MatchEquityTable(table)
    assert met.mwc(1, 2, crawford=True) == pytest.approx(default_met().mwc(1, 2, crawford=True))
    assert not table.pre.flags.writeable


def test_met_file_that_is_a_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "met.xml"
    os.mkfifo(fifo)
    caught: list[BaseException] = []

    def read() -> None:
        try:
            read_met(fifo)
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            caught.append(exc)

    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    worker.join(10)
    try:
        assert not worker.is_alive(), "reading a FIFO with no writer blocked"
    finally:
        if worker.is_alive():  # release a reader blocked on the FIFO
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert len(caught) == 1 and isinstance(caught[0], METFileError)
    assert "FIFO" in str(caught[0]) and str(fifo) in str(caught[0])


def test_met_file_that_is_a_folder_or_too_large_is_refused(tmp_path):
    with pytest.raises(METFileError, match="folder"):
        read_met(tmp_path)
    big = tmp_path / "big.xml"
    with open(big, "wb") as f:
        f.truncate(5 << 20)
    with pytest.raises(METFileError, match=r"big\.xml.*more than the 4\.0 MiB"):
        read_met(big)


def test_bad_met_file_names_the_file(tmp_path):
    path = tmp_path / "flat.xml"
    path.write_text(_xml(np.full((5, 5), 0.5), np.full(5, 0.5)))
    with pytest.raises(METFileError, match=rf"^{str(path)}: pre-Crawford row 1, column 2"):
        read_met(path)


@pytest.mark.skipif(not os.path.isdir(GNUBG_METS), reason=f"GNU Backgammon's tables are not installed ({GNUBG_METS})")
def test_every_explicit_gnubg_table_and_the_shipped_one_still_load():
    read = []
    for name in sorted(os.listdir(GNUBG_METS)):
        path = os.path.join(GNUBG_METS, name)
        if not name.endswith(".xml") or name == "catalog.xml":
            continue
        with open(path) as f:
            explicit = 'type="explicit"' in f.read()
        if explicit:
            read.append(read_met(path).length)
    assert len(read) >= 8
    assert default_met().length == 25


def test_shipped_table_loads_without_gnubg():
    met = default_met()
    check_table(met.pre[:25, :25], met.post[:, :25], 25)


def test_a_score_the_table_rounds_flat_gives_finite_equities():
    # 2 away against 3 away: winning a point and losing one both leave player 0 at 0.9
    met = MatchEquityTable.from_arrays([[0.5, 0.9, 0.9], [0.2, 0.9, 0.9], [0.1, 0.3, 0.6]], [0.5, 0.3, 0.2])
    state = fastgen.MatchState(match_length=3, score=(1, 0), on_roll=0)
    probs = [[0.6, 0.2, 0.01, 0.1, 0.01], [0.9, 0.5, 0.01, 0.02, 0.0], [0.3, 0.05, 0.0, 0.1, 0.01]]
    d = cube_decisions(np.stack([BOARD] * 3), probs, state, met=met)
    assert np.isfinite(d.equities).all() and np.isfinite(d.no_double).all()
    values = np.stack([d.no_double, d.double_take, d.double_pass, d.cubeless])
    assert ((values >= 0) & (values <= 1)).all()


# ----------------------------------------------------------------------------- cube states


def test_crawford_at_love_all_is_refused():
    state = fastgen.MatchState(match_length=7, crawford=True)
    with pytest.raises(InvalidCubeStateError, match=r"Crawford game needs exactly one player 1 point .* 7 away "
                       r"and its opponent 7 away: MatchState\(.*crawford=True"):
        cube_action(BOARD, PROBS, state)


def test_crawford_with_both_players_one_away_is_refused():
    with pytest.raises(InvalidCubeStateError, match=r"score 6-6 .* 1 away and its opponent 1 away"):
        cube_action(BOARD, PROBS, fastgen.MatchState(match_length=7, score=(6, 6), crawford=True))


def test_crawford_with_a_turned_cube_is_refused():
    with pytest.raises(InvalidCubeStateError, match=r"cube is at 2: MatchState\(cube_value=2"):
        cube_action(BOARD, PROBS, fastgen.MatchState(match_length=7, score=(6, 2), crawford=True, cube_value=2))
    with pytest.raises(InvalidCubeStateError, match="owned by player 0"):
        cube_action(BOARD, PROBS, fastgen.MatchState(match_length=7, score=(6, 2), crawford=True, cube_owner=0))


def test_the_crawford_game_itself_still_answers():
    for on_roll in (0, 1):
        state = fastgen.MatchState(match_length=7, score=(6, 2), crawford=True, on_roll=on_roll)
        d = cube_action(BOARD, PROBS, state)
        assert d.action is CubeAction.CANNOT_DOUBLE and 0 < d.no_double < 1


def test_cube_at_its_cap_cannot_be_redoubled():
    strong = [0.72, 0.2, 0.01, 0.08, 0.0]  # redouble, take below the cap
    below = cube_action(BOARD, strong, fastgen.MatchState(cube_value=32, cube_owner=1, max_cube=64))
    assert below.action is CubeAction.REDOUBLE_TAKE
    for cube, cap in ((64, 64), (1024, 1024)):
        d = cube_action(BOARD, strong, fastgen.MatchState(cube_value=cube, cube_owner=1, max_cube=cap))
        assert d.action is CubeAction.CANNOT_DOUBLE and not d.doubles and np.isfinite(d.no_double)
    one_ply = cube_action(BOARD, state=fastgen.MatchState(cube_value=64, cube_owner=1, max_cube=64),
                          evaluator=fastgen.players.evaluators.baseline(), plies=1)
    assert one_ply.action is CubeAction.CANNOT_DOUBLE


def test_cube_above_its_cap_is_refused():
    with pytest.raises(InvalidCubeStateError, match=r"cube at 128 is above its cap, max_cube 64: MatchState\("):
        cube_action(BOARD, PROBS, fastgen.MatchState(cube_value=128, cube_owner=1, max_cube=64))


def test_double_after_the_roll_is_refused():
    with pytest.raises(InvalidCubeStateError, match=r"dice are already rolled \(5-2\).*dice=\(5, 2\)"):
        cube_action(BOARD, PROBS, fastgen.MatchState(dice=(5, 2)))


@pytest.mark.parametrize("game_state", [GameState.OVER, GameState.RESIGNED, GameState.DROPPED, GameState.NONE])
def test_double_when_no_game_is_played_is_refused(game_state):
    with pytest.raises(InvalidCubeStateError, match=rf"game_state {game_state.name}.*MatchState\("):
        cube_action(BOARD, PROBS, fastgen.MatchState(game_state=game_state, match_length=7))


def test_one_ply_refuses_bad_states_and_answers_where_no_double_is_possible():
    ev = fastgen.players.evaluators.baseline()
    with pytest.raises(InvalidCubeStateError, match="dice are already rolled"):
        one_ply_batch(BOARD[None], ev, [fastgen.MatchState(dice=(3, 1))], np.zeros(1, np.int64))
    states = [fastgen.MatchState(match_length=7, score=(6, 2), crawford=True),
              fastgen.MatchState(cube_value=64, cube_owner=1, max_cube=64),
              fastgen.MatchState(cube_value=32, cube_owner=1, max_cube=64)]
    nd, dt = one_ply_batch(np.stack([BOARD] * 3), ev, states, np.arange(3))
    assert np.isfinite(nd).all()
    assert np.isnan(dt[:2]).all() and np.isfinite(dt[2])  # no double/take where the side cannot double


# ----------------------------------------------------------------------------- evaluators, probs, classes


@pytest.mark.parametrize("answer, quoted", [
    (np.array([0.5, 0.1, 0.0, 0.1, 0.0]), "array([0.5, 0.1"),
    (None, "got None"),
    (0.5, "got 0.5"),
    (np.array([[0.5, 0.1, 0.0]]), "array([[0.5, 0.1, 0. ]])"),
])
def test_evaluator_answer_that_is_not_n_by_5_is_refused(answer, quoted):
    def evaluator(boards):
        return answer

    with pytest.raises(InvalidOutputError, match=r"must return \(1, 5\) finite floats") as info:
        cube_action(BOARD, evaluator=evaluator)
    assert quoted in str(info.value) and "evaluator" in str(info.value)


def test_evaluator_answering_nan_is_refused():
    with pytest.raises(InvalidOutputError, match=r"\[nan, 0\.1, 0\.0, 0\.1, 0\.0\].*every value finite"):
        cube_action(BOARD, evaluator=lambda b: np.array([[np.nan, 0.1, 0.0, 0.1, 0.0]] * len(b)))


def test_evaluator_answer_at_one_ply_is_checked():
    def flat(boards):
        return np.full(len(boards) * 5, 0.2)

    with pytest.raises(InvalidOutputError, match="finite floats"):
        cube_action(BOARD, evaluator=flat, plies=1)


@pytest.mark.parametrize("probs, quoted", [
    ({"win": 0.6}, "got {'win': 0.6}"),
    (None, "got None"),
    ("0.6 0.2 0.01 0.1 0.01", "got '0.6 0.2 0.01 0.1 0.01'"),
    ([0.6, 0.2, [0.01], 0.1, 0.01], "got [0.6, 0.2, [0.01], 0.1, 0.01]"),
    ([[0.6, 0.2, 0.01, 0.1, 0.01 + 0.5j]], "got [[0.6, 0.2, 0.01, 0.1, (0.01+0.5j)]]"),
])
def test_probs_that_are_not_numbers_are_refused(probs, quoted):
    with pytest.raises(InvalidCubeStateError, match="probs must be numbers, five a board") as info:
        cube_decisions(BOARD[None], probs)
    assert quoted in str(info.value)
    if probs is not None:  # cube_action takes None as "ask the evaluator"
        with pytest.raises(InvalidCubeStateError, match="probs must be numbers, five a board") as info:
            cube_action(BOARD, probs)
        assert quoted in str(info.value)


def test_probs_as_a_dict_is_refused():
    with pytest.raises(InvalidCubeStateError, match=r"got \{'p': 0\.6\}"):
        cube_decisions(BOARD[None], {"p": 0.6})


def test_out_of_range_class_code_is_refused():
    with pytest.raises(InvalidCubeStateError, match=r"classes\[1\] is 9, not a position class code"):
        cube_decisions(np.stack([BOARD] * 2), [PROBS] * 2, classes=np.array([0, 9], np.int8))
    with pytest.raises(InvalidCubeStateError, match=r"classes\[0\] is -1"):
        cube_decisions(BOARD[None], [PROBS], classes=np.array([-1], np.int8))


# ----------------------------------------------------------------------------- the command line


def _cli_error(capsys, args: list[str], *quoted: str) -> str:
    assert main(["cube", "--position", POSITION, *args]) == 2
    captured = capsys.readouterr()
    err = captured.err
    assert err.startswith("fastgen cube: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and captured.out == ""
    for q in quoted:
        assert q in err
    return err


def test_cli_crawford_at_love_all_is_refused(capsys):
    _cli_error(capsys, ["--match", "7", "--crawford", "--probs", *map(str, PROBS)], "Crawford", "score 0-0")


def test_cli_crawford_in_a_money_game_is_refused(capsys):
    _cli_error(capsys, ["--crawford", "--probs", *map(str, PROBS)], "--crawford needs --match")


def test_cli_cube_that_is_not_a_power_of_two_is_refused(capsys):
    _cli_error(capsys, ["--cube", "48", "--probs", *map(str, PROBS)], "power of two", "got 48")


def test_cli_cube_at_its_cap_cannot_double(capsys):
    assert main(["cube", "--position", POSITION, "--cube", "4096", "--owner", "me", "--probs", "0.85", "0.45",
                 "0.02", "0.02", "0"]) == 0
    out = capsys.readouterr().out
    assert "Proper cube action: You cannot double" in out and "nan" not in out.lower()


def test_cli_match_id_after_the_roll_is_refused(capsys):
    rolled = match_id(fastgen.MatchState(match_length=7, dice=(5, 2)))
    _cli_error(capsys, ["--match-id", rolled, "--probs", *map(str, PROBS)], "dice are already rolled (5-2)")


def test_cli_match_id_of_a_finished_game_is_refused(capsys):
    over = match_id(fastgen.MatchState(match_length=7, score=(2, 3), game_state=GameState.OVER))
    _cli_error(capsys, ["--match-id", over, "--probs", *map(str, PROBS)], "the game is over", "game_state OVER")
