"""Long calls stop promptly on Ctrl-C and leave the process healthy; rollouts refuse
positions where no game can end.

The interrupt test starts every long call in a child process (tests/_interrupt_child.py),
sends it SIGINT and checks that KeyboardInterrupt arrives well before the call would
have finished, then that the same process computes the same results as before (no
thread left running, no leaked output mapping, output memory still reused). The bounds
are generous: this checks responsiveness, not speed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import fastgen
from fastgen.errors import DeadPositionError, EndlessGameError, GnubgWeightsNotFoundError
from fastgen.sim.pool import dead_positions
from fastgen.sim.rollout.front import rollout

CHILD = Path(__file__).with_name("_interrupt_child.py")
CASES = [
    "rollout-native-1",
    "rollout-native-2",
    "plays_batch-1",
    "plays_batch-2",
    "plays_batch-3",
    "count_plays_batch-1",
    "count_plays_batch-2",
    "iter_plays_batch-1",
    "iter_plays_batch-2",
    "rollout-python-1",
    "rollout-python-2",
    "rollout-user-policy",
    "rollout-pubeval-2",
    "rollout-native-pubeval-2",
    "pubeval_best-1",
    "network-1",
    "network-2",
    "decision-2",
    "cubeful-2",
    "network-2-ply-2",
    "network-3-ply-1",
]
GNUBG_CASES = ["gnubg-1-ply-2", "gnubg-2-ply-2", "gnubg-3-ply-1"]
try:  # gnubg's nets at 1 to 3 plies, where their weights are found (CI installs them)
    from fastgen.nets.gnubg_weights import find_weights

    find_weights()
    CASES.extend(GNUBG_CASES)
    GNUBG_NOTE = ""
except GnubgWeightsNotFoundError as _exc:
    GNUBG_NOTE = f"{', '.join(GNUBG_CASES)}: not run, no GNU Backgammon weights found ({_exc})"
RUN_BEFORE_SIGINT = 0.2  # seconds the call runs before the signal (short: a quiet machine runs the 4.2M-position batches in about a second)
PROMPT = 1.5  # generous bound on the delay to KeyboardInterrupt (the target is 0.5 s)


class _Lines:
    """Lines of the child's stdout, each awaited at most a given time (no buffering
    behind select's back: the pipe is read raw)."""

    def __init__(self, proc):
        self.proc = proc
        self.fd = proc.stdout.fileno()
        self.buf = b""

    def __call__(self, seconds):
        import select

        end = time.monotonic() + seconds
        while b"\n" not in self.buf:
            left = end - time.monotonic()
            ready = select.select([self.fd], [], [], max(0.0, left))[0] if left > 0 else []
            assert ready, f"no word from the child within {seconds} s"
            chunk = os.read(self.fd, 4096)
            assert chunk, f"child ended early: {self.proc.stderr.read().decode(errors='replace')}"
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode().split()


@pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name != "posix", reason="needs POSIX signals")
def test_long_calls_stop_on_sigint_and_leave_the_process_healthy():
    env = dict(os.environ, PYTHONPATH=str(Path(fastgen.__file__).resolve().parent.parent))
    proc = subprocess.Popen(
        [sys.executable, str(CHILD), *CASES],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=0,
        env=env,
    )
    _read = _Lines(proc)
    try:
        assert _read(120) == ["READY"]
        report, failures = [], []
        for case in CASES:
            word, name, full = _read(120)
            assert (word, name) == ("START", case)
            time.sleep(RUN_BEFORE_SIGINT)
            sent = time.monotonic()
            proc.send_signal(signal.SIGINT)
            try:
                word, name, ran = _read(PROMPT + 10)
            except AssertionError as exc:  # say which call did not stop, and what was seen before
                raise AssertionError(f"{case} did not answer SIGINT: {exc}; before it: {report}") from None
            delay = time.monotonic() - sent
            assert (word, name) == ("INTERRUPTED", case), f"{case}: {word} after {ran} s"
            health = " ".join(_read(120))
            report.append(f"{case}: stopped {delay:.3f} s after SIGINT, {ran} s in (the whole call: ~{full} s); {health}")
            if delay > PROMPT:
                failures.append(f"{case}: KeyboardInterrupt {delay:.2f} s after SIGINT")
            # in the call's first half: well before it would have ended (a third was too
            # tight for a two-thread count of 8M positions, 0.48 s on a quick moment)
            if float(ran) > float(full) / 2:
                failures.append(f"{case}: stopped after {ran} s of a ~{full} s call")
            if health != f"HEALTHY {case}":
                failures.append(health)
        print("\n".join(report + [GNUBG_NOTE]))
        assert not failures, "\n".join(failures)
    finally:
        proc.kill()
        proc.wait()


# --------------------------------------------------------------------------- dead positions


def _dead_board():
    b = np.zeros((2, 25), dtype=np.int8)
    b[:, :6] = 2  # both home boards closed
    b[:, 24] = 3  # both sides with three on the bar
    return b


@pytest.mark.parametrize("engine", ["native", "python"])
def test_rollout_refuses_a_position_where_no_game_can_end(engine):
    b = _dead_board()
    with pytest.raises(DeadPositionError, match=repr(fastgen.position_id(b))) as err:
        rollout(games=2, start=b, engine=engine)
    assert isinstance(err.value, ValueError) and isinstance(err.value, EndlessGameError)
    # Among live boards it names the dead one.
    with pytest.raises(DeadPositionError, match="start board 1 "):
        rollout(start=np.stack([fastgen.STARTING_BOARD, b]), games=None, engine=engine)


def test_dead_positions_is_exact_on_bar_and_closed_board_variants():
    b = _dead_board()
    assert dead_positions(b[None]).tolist() == [0]
    # One open entry point for either side: that side can enter with that die.
    for side in (0, 1):
        for point in range(6):
            live = b.copy()
            live[side, point] = 1  # one checker fewer: the other side enters on that point
            live[side, 6] = 1  # (kept on the board, away from the home board)
            assert dead_positions(live[None]).size == 0, (side, point)
    # No checker on the bar for one side: it moves (or bears off), so the game goes on.
    for side in (0, 1):
        live = b.copy()
        live[side, 24] = 0
        live[side, 12] = 3
        assert dead_positions(live[None]).size == 0
    # The check agrees with the generator: in a dead position no roll moves a checker
    # of either side (every roll gives the one empty play, R14).
    for board in (b, b[::-1].copy()):
        for d1 in range(1, 7):
            for d2 in range(1, 7):
                plays = fastgen.legal_plays(board, (d1, d2))
                assert len(plays) == 1 and (plays.boards[0] == board).all()


def test_dead_positions_agrees_with_the_generator_on_random_boards():
    """Dead exactly when no roll gives either side a play that moves a checker."""
    from fastgen.cli.workload import random_game_positions

    boards, _ = random_game_positions(300, seed=11)
    boards = np.concatenate([boards, _stuck_boards()])
    dead = set(dead_positions(boards).tolist())
    assert len(boards) - 3 in dead
    for i, board in enumerate(boards):
        moves = [
            any(
                (fastgen.legal_plays(side_board, (d, e)).moves[:, 0, 0] >= 0).any()
                for d in range(1, 7)
                for e in range(d, 7)
            )
            for side_board in (board, board[::-1].copy())
        ]
        assert (i in dead) == (not any(moves)), i


def _stuck_boards():
    """Boards where one or both sides cannot move with any roll."""
    dead = _dead_board()
    one = dead.copy()  # the side not on roll is free: it moves, so the game goes on
    one[0, 24] = 0
    one[0, 10] = 3
    prime = np.zeros((2, 25), dtype=np.int8)
    prime[1, 0] = 14  # the side on roll: 14 on its ace point (no bear-off: ...)
    prime[1, 12] = 1  # ... one checker is on its 13-point, behind a six-prime:
    prime[0, 12:18] = 2  # the opponent holds my points 12..7 (its 13..18)
    prime[0, 0] = 3
    return np.stack([dead, one, prime])


@pytest.mark.parametrize("engine, policy", [("python", "random"), ("native", "random"), ("native", "pubeval")])
def test_rollout_turn_limit_is_a_clear_error(monkeypatch, engine, policy):
    """The last-resort turn cap raises a fastgen error naming the game and its start."""
    from fastgen.errors import TurnLimitError

    monkeypatch.setattr(sys.modules["fastgen.sim.pool"], "MAX_TURNS", 3)
    with pytest.raises(TurnLimitError, match="game 0 .*4HPwATDgc/ABMA.* 3 turns"):
        rollout(games=4, engine=engine, policy=policy, seed=1)
    board = fastgen.parse_position_id("xhjTwBiUqkgpJQ")  # a start board is named too
    with pytest.raises(TurnLimitError, match="xhjTwBiUqkgpJQ"):
        rollout(games=2, start=board, engine=engine, policy=policy, seed=1)
