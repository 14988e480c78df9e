"""fastgen.sim.duel.external: answering GNU Backgammon's external-player lines, and a whole
3-point match that the real gnubg controls against a fastgen policy (skipped where
gnubg is absent)."""

from __future__ import annotations

import io
import socket
import subprocess
import threading

import numpy as np
import pytest

import fastgen
from fastgen.players.engines import DEBIAN_GNUBG, find_gnubg
from fastgen.sim.duel.external import ExternalServer, play_text
from fastgen.errors import EngineError, InvalidArgumentError
from fastgen.formats.fibs import format_board, parse_board
from fastgen.games.game import Game

OPENING_31 = format_board(fastgen.STARTING_BOARD, (3, 1), player_may_double=True, opponent_may_double=True)


def test_play_text():
    assert play_text([(25, 22), (6, 0)]) == "bar/22 6/off"
    assert play_text([]) == ""


def test_answer_of_a_policy_spec():
    # The server reads its policy with the one grammar: the baseline network's play.
    with ExternalServer("baseline") as server:
        text = server.answer(OPENING_31)
    plays = fastgen.legal_plays(fastgen.STARTING_BOARD, (3, 1))
    pick = fastgen.players.policies.baseline()(plays.boards, np.array([0, len(plays)]))[0]
    assert np.array_equal(fastgen.parse_play(fastgen.STARTING_BOARD, (3, 1), text).board_after, plays.boards[int(pick)])
    with pytest.raises(fastgen.InvalidSpecError, match="'nobody'"):
        ExternalServer("nobody")


def test_answer_is_pubevals_legal_play():
    with ExternalServer("pubeval") as server:
        text = server.answer(OPENING_31)
    best = fastgen.pubeval_best(fastgen.STARTING_BOARD[None], [(3, 1)])[0]
    assert text == "8/5 6/5" and np.array_equal(fastgen.parse_play(fastgen.STARTING_BOARD, (3, 1), text).board_after, best)


def test_answer_for_the_opponent_on_roll():
    board = fastgen.STARTING_BOARD.copy()
    board[0, 23], board[0, 22] = 1, 1  # the opponent split its back checkers
    line = format_board(board, (6, 6), player_on_roll=False)
    with ExternalServer("pubeval") as server:
        text = server.answer(line)
    fastgen.parse_play(board[::-1], (6, 6), text)  # legal for the side on roll (raises if not)


def test_answer_needs_dice_or_a_cube_question():
    # no dice and the player on roll: gnubg asks double or roll; the opponent on roll and
    # no double pending: nothing to answer
    with ExternalServer("random") as server:
        assert server.answer(format_board(fastgen.STARTING_BOARD)) == "roll"   # no cube player: roll
        with pytest.raises(InvalidArgumentError, match="no dice"):
            server.answer(format_board(fastgen.STARTING_BOARD, player_on_roll=False))


def _serve_in_thread(server, connections=1):
    t = threading.Thread(target=server.serve, kwargs=dict(connections=connections), daemon=True)
    t.start()
    return t


def test_over_a_socket_with_gnubgs_nul_ends_and_bad_lines():
    log = io.StringIO()
    with ExternalServer("pubeval", timeout=5, log=log) as server:
        t = _serve_in_thread(server)
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as conn, conn.makefile("rb") as f:
            conn.sendall(OPENING_31.encode() + b"\r\n\0")
            assert f.readline() == b"8/5 6/5\r\n"
            conn.sendall(b"\0board:nonsense\r\n\0")
            assert f.readline() == b"error\r\n"
        t.join(5)
        assert not t.is_alive() and server.questions == 2
    assert "2 fields, a board line has 53" in log.getvalue()


def test_a_silent_connection_times_out():
    log = io.StringIO()
    with ExternalServer("random", timeout=0.3, log=log) as server:
        t = _serve_in_thread(server)
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as conn:
            conn.settimeout(5)
            assert conn.recv(10) == b""  # the server closed it
        t.join(5)
        assert not t.is_alive()
    assert "no line within 0.3 s" in log.getvalue()


def test_bad_arguments():
    with pytest.raises(InvalidArgumentError, match="port"):
        ExternalServer("random", port=70000)
    with pytest.raises(InvalidArgumentError, match="timeout"):
        ExternalServer("random", timeout=-1)
    with pytest.raises(InvalidArgumentError, match="policy 'gnubg:9'"):
        ExternalServer("gnubg:9")


def _gnubg_match(path, server, settings, length, mat, timeout):
    """gnubg (player 0) against *server* (player 1, external) for a match of *length*
    points after *settings*, exported to *mat*; returns (server, its log text)."""
    with server:
        t = _serve_in_thread(server)
        commands = settings + [f"set player 1 external 127.0.0.1:{server.port}", f"new match {length}",
                               f"export match mat {mat}", "quit", "y"]
        done = subprocess.run([path, "-t", "-q"], input=("\n".join(commands) + "\n").encode(), capture_output=True,
                              timeout=timeout)
        t.join(10)
    log = server.log.getvalue()
    assert done.returncode == 0, done.stdout[-2000:]
    assert "error" not in log, log[-2000:]
    return server, log


def test_gnubg_controls_a_3_point_match(tmp_path):
    """gnubg (player 0, 0-ply) against fastgen's pubeval (player 1, external), cube off;
    gnubg exports the match as .mat and read_mat replays and checks every move of it.
    Every line gnubg sent is a valid FIBS board line that formats back to itself."""
    try:
        path = find_gnubg()
    except EngineError:
        pytest.skip(f"GNU Backgammon not installed (no gnubg on PATH, no {DEBIAN_GNUBG}): apt-get install gnubg")
    mat = tmp_path / "match.mat"
    server, log = _gnubg_match(path, ExternalServer("pubeval", timeout=60, log=io.StringIO()),
                               ["set cube use off", "set player 0 chequerplay evaluation plies 0"], 3, mat, 90)
    match = fastgen.formats.read_mat(mat)  # raises on any illegal or unreadable move
    assert match.length == 3 and match.over and max(match.score) >= 3
    assert server.questions >= 10 and len(server.lines) == server.questions
    for line in server.lines:
        fb = parse_board(line)
        assert fb.text() == line and fb.dice != (0, 0) and fb.match_length == 3
    # Every play of the external player (player 1, "root") in the exported match is
    # pubeval's play of that position and roll: one per question.
    checked = 0
    for game in match.games:
        for i, action in enumerate(game.record):
            if action.kind == "play" and action.player == 1:
                before = Game.replay(game.record[:i])
                after = np.frombuffer(action.data, dtype=np.int8).reshape(2, 25)
                best = fastgen.pubeval_best(before.board_for(1)[None], [before.dice])[0]
                assert np.array_equal(after, best)
                checked += 1
    assert checked == server.questions


@pytest.mark.parametrize("seed", [7, 11])
def test_gnubg_plays_a_7_point_match_with_the_cube(tmp_path, seed):
    """gnubg (player 0, 0-ply plays and cube decisions) against fastgen's baseline with its
    cube decisions (player 1, external), cube on, Crawford rule, gnubg's dice seeded. Every
    action must be legal: gnubg exports the match as .mat and read_mat replays it and
    checks every move, double, take and drop; the match must be finished (gnubg abandons
    a game silently on an answer it does not take). Both sides' doubles are counted over
    the two seeds in test_cube_actions_came_from_both_sides."""
    try:
        path = find_gnubg()
    except EngineError:
        pytest.skip(f"GNU Backgammon not installed (no gnubg on PATH, no {DEBIAN_GNUBG}): apt-get install gnubg")
    mat = tmp_path / "match.mat"
    settings = ["set rng mersenne", f"set seed {seed}", "set cube use on", "set player 0 chequerplay evaluation plies 0",
                "set player 0 cubedecision evaluation plies 0"]
    server, log = _gnubg_match(path, ExternalServer("baseline", timeout=60, log=io.StringIO(), cube="baseline"),
                               settings, 7, mat, 180)
    match = fastgen.formats.read_mat(mat)  # raises on any illegal or unreadable action
    assert match.length == 7 and match.over and max(match.score) >= 7, match.score
    kinds = [(a.kind, a.player) for game in match.games for a in game.record]
    _CUBE_ACTIONS[seed] = kinds
    answers = [line.rsplit("-> ", 1)[-1] for line in log.splitlines() if "-> " in line]
    assert {"roll"} <= set(answers)


def test_gnubg_plays_a_money_game_with_the_cube(tmp_path):
    """A money game (gnubg's `new session`: match length 0 on the lines it sends, the
    Jacoby rule on) between gnubg (player 0) and fastgen's default server, the baseline
    with its cube decisions: every line is read, every answer legal (read_mat replays the
    game gnubg exports), and the game is finished with the points it says."""
    try:
        path = find_gnubg()
    except EngineError:
        pytest.skip(f"GNU Backgammon not installed (no gnubg on PATH, no {DEBIAN_GNUBG}): apt-get install gnubg")
    mat = tmp_path / "money.mat"
    server = ExternalServer("baseline", timeout=60, log=io.StringIO(), cube="baseline")
    with server:
        t = _serve_in_thread(server)
        commands = ["set rng mersenne", "set seed 3", "set cube use on", "set automatic game off",
                    "set player 0 chequerplay evaluation plies 0", "set player 0 cubedecision evaluation plies 0",
                    f"set player 1 external 127.0.0.1:{server.port}", "new session", f"export match mat {mat}",
                    "quit", "y"]
        done = subprocess.run([path, "-t", "-q"], input=("\n".join(commands) + "\n").encode(), capture_output=True,
                              timeout=180)
        t.join(10)
    log = server.log.getvalue()
    assert done.returncode == 0 and "error" not in log, log[-2000:]
    assert server.questions >= 5 and all(parse_board(line).match_length == 0 for line in server.lines)
    match = fastgen.formats.read_mat(mat)
    assert match.length == 0 and len(match.games) == 1 and match.games[0].over and sum(match.score) >= 1


_CUBE_ACTIONS: dict = {}


def test_cube_actions_came_from_both_sides():
    """Over the two matches above, each side doubled at least once and each answered a double."""
    if len(_CUBE_ACTIONS) < 2:
        pytest.skip("the matches against gnubg did not run (GNU Backgammon not installed)")
    kinds = [k for ks in _CUBE_ACTIONS.values() for k in ks]
    assert ("double", 0) in kinds and ("double", 1) in kinds, sorted(set(kinds))
    assert any(k[0] in ("take", "drop") and k[1] == 1 for k in kinds), sorted(set(kinds))


def test_cube_answers_follow_the_cube_player():
    # a sure single win for the side on roll (off next roll, the opponent has five off):
    # the cube player doubles it, and passes gnubg's double of the same position
    sure = np.zeros((2, 25), np.int8)
    sure[1, :2], sure[0, 3] = 1, 10
    ours = format_board(sure, player_may_double=True, opponent_may_double=True)
    theirs = format_board(sure[::-1], player_on_roll=False, player_may_double=True, opponent_may_double=True)
    theirs = theirs.split(":")
    theirs[40] = "1"   # was_doubled: gnubg has doubled the external player
    with ExternalServer("baseline", cube="baseline") as server:
        assert server.answer(ours) == "double"
        assert server.answer(":".join(theirs)) == "drop"
    with ExternalServer("baseline") as server:   # no cube player: roll, and take
        assert server.answer(ours) == "roll" and server.answer(":".join(theirs)) == "take"
    with pytest.raises(fastgen.InvalidSpecError):
        ExternalServer("baseline", cube="nobody")


def test_a_pick_outside_the_plays_is_refused_quoting_the_line():
    def wild(candidates, offsets):
        return np.array([99])

    with ExternalServer(wild) as server:
        with pytest.raises(InvalidArgumentError, match=r"policy .* returned index 99, not one of the 16 legal plays "
                                                       r"for 'board:"):
            server.answer(OPENING_31)
