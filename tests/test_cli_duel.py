"""``fastgen duel`` and ``fastgen serve-external`` on the command line."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

import pytest

import fastgen
from _child import child_env
from fastgen.cli.main import main
from fastgen.fibs import format_board
from fastgen.sim.duel.front import duel


def test_duel_json_matches_the_api(capsys):
    assert main(["duel", "pubeval", "random", "--games", "400", "--seed", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    api = duel("pubeval", "random", 400, seed=3)
    assert data["ppg"] == api.ppg and data["pairs"] == 200 and data["ci95"] == list(api.ci95)


def test_duel_text_and_unmirrored(capsys):
    assert main(["duel", "random", "pubeval", "--games", "101", "--unmirrored"]) == 0
    out = capsys.readouterr().out
    assert "random vs pubeval: 101 cubeless games (unmirrored)" in out and "points/game" in out


def test_duel_module_callable(capsys):
    assert main(["duel", "test_cli_duel:first_play", "pubeval", "--games", "20", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["a"] == "first_play"


def first_play(candidates, offsets):
    """A policy for the module:callable test: always the first candidate."""
    return [0] * (len(offsets) - 1)


@pytest.mark.parametrize(
    "argv, words",
    [
        (["duel", "pubeval", "nobody"], "policy 'nobody'"),
        (["duel", "pubeval", "no_such_module_x:f"], "cannot be loaded"),
        (["duel", "pubeval", "random", "--games", "11"], "games must be even"),
    ],
)
def test_duel_errors_are_one_line(argv, words, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("fastgen duel: error:") and words in err and err.count("\n") == 1


def test_serve_external_answers_and_stops_on_ctrl_c():
    """The command in a child process: it answers a board line on 127.0.0.1, and SIGINT
    ends it with status 130 and nothing left running."""
    # The fastgen under test first on the path, run from a neutral folder ("python -m" puts
    # the working directory first, and a repository root there has no compiled core in CI).
    proc = subprocess.Popen(
        [sys.executable, "-m", "fastgen", "serve-external", "--port", "0", "--policy", "pubeval"],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=child_env(), cwd=tempfile.gettempdir(),
        # SIGINT handled even where this run inherited it ignored (a background job)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        first = proc.stderr.readline().decode()
        assert "answering GNU Backgammon on 127.0.0.1:" in first, first
        port = int(first.split("127.0.0.1:")[1].split()[0])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as conn, conn.makefile("rb") as f:
            conn.sendall(format_board(fastgen.STARTING_BOARD, (3, 1)).encode() + b"\r\n")
            assert f.readline() == b"8/5 6/5\r\n"
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()


def test_duel_json_of_one_pair_is_strict_json(capsys):
    # One mirrored pair has no standard error: null in the JSON (JSON has no Infinity).
    assert main(["duel", "pubeval", "random", "--games", "2", "--json"]) == 0

    def refuse(constant):
        raise AssertionError(f"{constant} in the JSON output")

    data = json.loads(capsys.readouterr().out, parse_constant=refuse)
    assert data["pairs"] == 1 and data["ppg_se"] is None and data["ci95"] == [None, None]
    assert duel("pubeval", "random", 2).ppg_se == float("inf")  # the API keeps the float
