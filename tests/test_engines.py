"""GnubgEngine: GNU Backgammon over its external-player socket (fastgen.players.engines),
and the gnubg-nn policy (fastgen.players.policies.gnubg). Failures are tested with a fake
gnubg (tests/_fake_gnubg.py); the real program's tests skip where it is absent."""

from __future__ import annotations

import os
import signal
import stat
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import fastgen
from fastgen.players.engines import DEBIAN_GNUBG, GnubgEngine, find_gnubg
from fastgen.errors import EngineError
from fastgen.sim.duel.front import duel
from fastgen.cli.workload import random_game_positions

from _children import alive, kill_leftovers, start_parent, wait_gone

HERE = Path(__file__).parent


def _real_gnubg() -> str:
    try:
        return find_gnubg()
    except EngineError:
        pytest.skip(f"GNU Backgammon not installed (no gnubg on PATH, no {DEBIAN_GNUBG}): apt-get install gnubg")


@pytest.fixture
def fake_gnubg(tmp_path, monkeypatch):
    """A path to an executable fake gnubg; the mode is set with FAKE_GNUBG_MODE."""
    exe = tmp_path / "gnubg"
    exe.write_text(f"#!/bin/sh\nexec {sys.executable} {HERE / '_fake_gnubg.py'} \"$@\"\n")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)

    def make(mode):
        monkeypatch.setenv("FAKE_GNUBG_MODE", mode)
        return str(exe)

    return make


def _gone(proc) -> bool:
    return proc is None or proc.poll() is not None


@pytest.mark.parametrize("mode, words", [("illegal", "answered '24/1 13/off'"), ("garbage", "answered 'hello there'"),
                                         ("crash", "closed the connection")])
def test_bad_answers_raise_naming_the_position(fake_gnubg, mode, words):
    engine = GnubgEngine(fake_gnubg(mode), timeout=10)
    with engine:
        proc = engine._proc
        with pytest.raises(EngineError, match=words) as info:
            engine.move(fastgen.STARTING_BOARD, (3, 1))
        assert "board:fastgen:gnubg:9999:0:0:0:-2" in str(info.value)
    assert _gone(proc) and not engine.running


def test_timeout_raises_and_ends_the_process(fake_gnubg):
    engine = GnubgEngine(fake_gnubg("silent"), timeout=0.5)
    engine.start()
    proc = engine._proc
    with pytest.raises(EngineError, match="did not answer .* within 0.5 s"):
        engine.move(fastgen.STARTING_BOARD, (6, 5))
    assert _gone(proc) and not engine.running
    engine.close()


def test_exit_at_startup(fake_gnubg):
    with pytest.raises(EngineError, match="exited at startup"):
        GnubgEngine(fake_gnubg("exit")).start()


def test_ctrl_c_while_waiting_ends_the_process(fake_gnubg):
    engine = GnubgEngine(fake_gnubg("silent"), timeout=30)
    engine.start()
    proc = engine._proc
    # Python's own handler, even where the run inherited SIGINT ignored (a background job)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            engine.move(fastgen.STARTING_BOARD, (6, 5))
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert _gone(proc) and not engine.running


def test_bad_arguments():
    with pytest.raises(EngineError, match="not found"):
        GnubgEngine("/nonexistent/gnubg")
    with pytest.raises(fastgen.InvalidArgumentError, match="plies"):
        GnubgEngine("/bin/sh", plies=9)  # any executable: the depth is checked before a start


@pytest.mark.parametrize("name", ["timeout", "startup_timeout"])
@pytest.mark.parametrize("value", [0, -1.5, float("inf"), float("-inf"), float("nan"), True, "30"])
def test_bad_timeouts(name, value):
    with pytest.raises(fastgen.InvalidArgumentError, match=rf"{name} must be a finite positive .*got {value!r}"):
        GnubgEngine("/bin/sh", **{name: value})


def test_startup_timeout_is_the_whole_wait(tmp_path):
    """A program that never listens fails after startup_timeout seconds in all (not once
    per port tried), and the message says that time."""
    exe = tmp_path / "gnubg"
    exe.write_text(f"#!/bin/sh\nexec {sys.executable} -c 'import time; time.sleep(60)'\n")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    engine = GnubgEngine(str(exe), startup_timeout=1.0)
    t0 = time.monotonic()
    with pytest.raises(EngineError, match="within 1.0 s"):
        engine.start()
    assert 1.0 <= time.monotonic() - t0 < 2.5
    assert not engine.running


ENGINE_PARENT = """
    import fastgen
    from fastgen.players.engines import GnubgEngine
    with GnubgEngine({path!r}) as engine:
        print(engine._proc.pid, flush=True)
        fastgen.duel(engine, "pubeval", 200000)
"""


def _parent_dies_engine_ends(path, signum):
    parent, pids = start_parent(ENGINE_PARENT.format(path=path), 1)
    try:
        time.sleep(0.5)  # into the duel
        assert alive(pids[0])
        parent.send_signal(signum)
        assert parent.wait(10) == -signum
        assert wait_gone(pids, 5) == [], "the engine outlived the Python process that started it"
    finally:
        parent.kill()
        parent.wait()
        kill_leftovers(pids)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL])
def test_real_gnubg_ends_with_its_parent(signum):
    _parent_dies_engine_ends(_real_gnubg(), signum)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL])
def test_fake_gnubg_ends_with_its_parent(fake_gnubg, signum):
    _parent_dies_engine_ends(fake_gnubg("silent"), signum)


def test_forced_plays_are_not_asked(fake_gnubg):
    """One legal play (here: the empty play of a closed-out checker): no question sent."""
    board = np.zeros((2, 25), dtype=np.int8)
    board[1, 24], board[1, 5] = 1, 14
    board[0, :6] = 2  # the opponent's home board is closed: my entry points
    board[0, 6] = 3
    with GnubgEngine(fake_gnubg("illegal")) as engine:
        assert engine.move(board, (6, 5)).moves == ()
        assert engine.questions == 0


def test_real_gnubg_opening_move():
    path = _real_gnubg()
    with GnubgEngine(path, plies=0) as engine:
        assert str(engine.move(fastgen.STARTING_BOARD, (3, 1))) == "8/5 6/5"
        proc = engine._proc
    assert _gone(proc)


def test_real_gnubg_agrees_with_gnubg_nn():
    """On 100 positions of pubeval self-play with more than one legal play, the program at
    0-ply and gnubg-nn at 0-ply choose the same play on at least 90 (97.4% on 1,000
    measured by hand; the two differ in a few bear-offs and close plays)."""
    path = _real_gnubg()
    from fastgen.players import policies
    pytest.importorskip("gnubg_nn", reason="gnubg-nn not installed: pip install '.[peers]'")
    boards, dice = random_game_positions(400, seed=7, policy="pubeval")
    counts = fastgen.count_plays_batch(boards, dice)
    keep = np.flatnonzero(counts > 1)[:100]
    boards, dice = boards[keep], dice[keep]
    batch = fastgen.plays_batch(boards, dice)
    nn = policies.gnubg_nn(0)(batch.boards, batch.offsets, boards, dice)
    with GnubgEngine(path, plies=0) as engine:
        prog = engine(batch.boards, batch.offsets, boards, dice)
        assert engine.questions == 100
    n = np.diff(batch.offsets)
    assert ((prog >= 0) & (prog < n)).all() and ((nn >= 0) & (nn < n)).all()
    assert (prog == nn).sum() >= 90


def test_real_gnubg_duel_is_legal_and_reproducible():
    """A short duel through the socket: every play legal (checked by parse_play and the
    candidate match), and the same games twice."""
    path = _real_gnubg()
    with GnubgEngine(path, plies=0) as engine:
        r1 = duel(engine, "random", 20, seed=4)
        r2 = duel(engine, "random", 20, seed=4)
        ro = fastgen.rollout(4, policy=engine, seed=1)  # a policy for rollout too
    assert np.array_equal(r1.winner, r2.winner) and np.array_equal(r1.turns, r2.turns)
    assert r1.ppg > 0.5  # gnubg against random: nearly every game, many gammons
    assert ro.games == 4 and ro.policy == "gnubg-engine-0ply"
