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
from _children import kill_leftovers, wait_gone
from fastgen.cli.main import main
from fastgen.formats.fibs import format_board
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
    assert json.loads(capsys.readouterr().out)["a"] == "test_cli_duel:first_play"  # named by its spec


def one_argument(boards):
    """An evaluator's signature, refused as a policy."""
    return boards


def first_play(candidates, offsets):
    """A policy for the module:callable test: always the first candidate."""
    return [0] * (len(offsets) - 1)


MYBOT = """
import numpy as np

def policy(candidates, offsets):
    return np.zeros(len(offsets) - 1, dtype=np.int64)

def make():
    from fastgen.players import evaluators
    return evaluators.greedy(evaluators.random_network(hidden=4, seed=7))

def evaluate(boards):
    return np.full((boards.shape[0], 5), 0.25)
"""

#: Runs the command line the way the installed ``fastgen`` script does: the script's own
#: folder, not the current directory, is first on sys.path (unlike ``python -m``).
LAUNCHER = "import sys\nfrom fastgen.cli.main import main\nsys.exit(main())\n"


def _fastgen_in(folder, *argv):
    launcher = folder.parent / f"{folder.name}_bin" / "fastgen_script.py"
    launcher.parent.mkdir(exist_ok=True)
    launcher.write_text(LAUNCHER)
    env = child_env()
    assert str(folder) not in env["PYTHONPATH"].split(os.pathsep)
    return subprocess.run([sys.executable, str(launcher), *argv], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=300)


def test_duel_finds_a_module_of_the_current_directory(tmp_path):
    folder = tmp_path / "bots"
    folder.mkdir()
    (folder / "mybot.py").write_text(MYBOT)
    done = _fastgen_in(folder, "duel", "mybot:policy", "baseline", "--games", "20", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["a"] == "mybot:policy" and data["b"] == "baseline" and data["games"] == 20
    done = _fastgen_in(folder, "duel", "mybot:make", "pubeval", "--games", "20", "--json")  # a factory
    assert done.returncode == 0, done.stderr
    want = duel(fastgen.players.evaluators.greedy(fastgen.players.evaluators.random_network(hidden=4, seed=7)), "pubeval", 20)
    assert json.loads(done.stdout)["ppg"] == want.ppg
    done = _fastgen_in(folder, "rollout-plays", "--position", "4HPwATDgc/ABMA", "--dice", "31",
                       "--evaluator", "mybot:evaluate", "--plays", "2", "--trials", "36", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["evaluator"] == "evaluate"
    done = _fastgen_in(folder, "duel", "mybot:nothing", "pubeval", "--games", "2")
    assert done.returncode == 2 and "has no attribute 'nothing'" in done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1


def test_duel_weights_file_and_baseline(tmp_path, capsys):
    net = fastgen.players.evaluators.random_network(hidden=4, seed=2).compiled()
    path = tmp_path / "net.npz"
    net.save(path)
    assert main(["duel", str(path), "baseline", "--games", "20", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    want = duel(fastgen.players.evaluators.greedy(net), fastgen.players.policies.baseline(), 20)
    assert data["ppg"] == want.ppg and data["b"] == "baseline"


@pytest.mark.parametrize(
    "argv, words",
    [
        (["duel", "pubeval", "nobody"], "policy 'nobody'"),
        (["duel", "pubeval", "gnubg:7"], "plies must be 0 to 3"),
        (["duel", "pubeval", "missing.npz"], "no such weights file"),
        (["duel", "pubeval", "test_cli_duel:MYBOT"], "is not callable"),
        (["duel", "pubeval", "test_cli_duel:one_argument"], "cannot be called as f(candidates, offsets)"),
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


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_duel_stops_on_sigterm_and_sighup_and_closes_the_engine(tmp_path, signum):
    """``fastgen duel gnubg-engine ...`` (a stand-in gnubg on PATH that never answers):
    SIGTERM or SIGHUP stops it as Ctrl-C does, with status 128 + the signal's number, and
    the engine's process is ended."""
    here = os.path.dirname(os.path.abspath(__file__))
    exe = tmp_path / "gnubg"
    exe.write_text(f"#!/bin/sh\nexec {sys.executable} {os.path.join(here, '_fake_gnubg.py')} \"$@\"\n")
    exe.chmod(0o755)
    pidfile = tmp_path / "pid"
    env = dict(child_env(), PATH=f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}",
               FAKE_GNUBG_MODE="silent", FAKE_GNUBG_PIDFILE=str(pidfile))
    proc = subprocess.Popen([sys.executable, "-m", "fastgen", "duel", "gnubg-engine", "pubeval", "--games", "1000"],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env, cwd=tempfile.gettempdir())
    pids = []
    try:
        deadline = time.monotonic() + 30
        while not pidfile.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert pidfile.exists(), proc.stderr.read().decode() if proc.poll() is not None else "no engine started"
        pids.append(int(pidfile.read_text()))
        time.sleep(0.5)  # connected, waiting for an answer
        proc.send_signal(signum)
        assert proc.wait(timeout=10) == 128 + signum
        assert f"terminated by {signal.Signals(signum).name}" in proc.stderr.read().decode()
        assert wait_gone(pids, 5) == []
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()
        kill_leftovers(pids)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_serve_external_stops_on_sigterm_and_sighup(signum):
    proc = subprocess.Popen(
        [sys.executable, "-m", "fastgen", "serve-external", "--port", "0", "--policy", "pubeval"],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=child_env(), cwd=tempfile.gettempdir(),
    )
    try:
        first = proc.stderr.readline().decode()
        assert "answering GNU Backgammon on 127.0.0.1:" in first, first
        time.sleep(0.3)
        proc.send_signal(signum)
        assert proc.wait(timeout=10) == 128 + signum
        assert f"terminated by {signal.Signals(signum).name}" in proc.stderr.read().decode()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()
