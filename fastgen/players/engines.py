"""External engines as policies: GNU Backgammon over its external-player protocol.

GNU Backgammon's command ``external HOST:PORT`` (in ``gnubg -t``) listens on a TCP
socket, reads one FIBS ``board:`` line per decision (:mod:`fastgen.formats.fibs`) and
answers with its play in move notation (``8/5 6/5``). :class:`GnubgEngine` starts the
real program on 127.0.0.1 and a free port, sets its evaluation depth, and asks it for
the play of each position with more than one legal play; every answer is read with
:func:`fastgen.parse_play` and must be one of the legal plays.

>>> with GnubgEngine() as gnubg:  # doctest: +SKIP
...     str(gnubg.move(fastgen.STARTING_BOARD, (3, 1)))
'8/5 6/5'

An engine is a batch policy for :func:`fastgen.duel` and :func:`fastgen.rollout` (it has
``wants_position = True``): ``duel(engine, "pubeval", 1000)``.
"""

from __future__ import annotations

import math
import os
import shutil
import socket
import subprocess
import tempfile
import time
import weakref
from typing import Any

import numpy as np

from fastgen.core.boards import as_board, as_dice
from fastgen.core.generate import legal_plays
from fastgen.errors import EngineError, FastgenError, InvalidArgumentError
from fastgen.formats.fibs import format_board
from fastgen.core.notation import Play
from fastgen.core.validate import parse_play
from fastgen.players.base import Policy, Turn
from fastgen._typing import ArrayLike, DiceLike
from fastgen._util import check_int, popen_tied

__all__ = ["GnubgEngine", "find_gnubg", "free_port"]

#: Where Debian installs GNU Backgammon.
DEBIAN_GNUBG = "/usr/games/gnubg"

_HOST = "127.0.0.1"
_MAX_ANSWER = 4096  # bytes: a play is a few dozen characters


def find_gnubg(path: str | os.PathLike[str] | None = None) -> str:
    """The GNU Backgammon executable: *path* if given, else ``gnubg`` on PATH, else
    Debian's /usr/games/gnubg. Raises :class:`EngineError` when none exists."""
    if path is not None:
        p = os.fspath(path)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
        raise EngineError(f"GNU Backgammon not found or not executable at {p!r}")
    found = shutil.which("gnubg") or (DEBIAN_GNUBG if os.access(DEBIAN_GNUBG, os.X_OK) else None)
    if found is None:
        raise EngineError(f"GNU Backgammon not found: no 'gnubg' on PATH and no {DEBIAN_GNUBG!r}")
    return found


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((_HOST, 0))
        return int(s.getsockname()[1])


def _stop_process(proc: subprocess.Popen | None, sock: socket.socket | None, log) -> None:
    """Close the connection and end the process (terminate, then kill); idempotent."""
    if sock is not None:
        try:
            sock.close()
        except OSError:
            pass
    if proc is not None and proc.poll() is None:
        try:
            if proc.stdin:
                proc.stdin.close()
        except OSError:
            pass
        proc.terminate()
        try:
            proc.wait(timeout=3)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if log is not None:
        try:
            log.close()
        except OSError:
            pass


class GnubgEngine(Policy):
    """GNU Backgammon (``gnubg -t -q``) as a live engine over its external-player socket.

    *path* is the gnubg executable (default: :func:`find_gnubg`); *plies* the chequer-play
    evaluation depth (0: the neural net alone, GNU Backgammon's 0-ply); *cubeful* chooses
    cubeful evaluation (GNU Backgammon's default) over cubeless (the default here, since
    duels and rollouts are cubeless money games); *timeout* is the seconds to wait for
    each answer and *startup_timeout* for the program to accept the connection.

    Use it as a context manager (or call :meth:`start` and :meth:`close`); it starts on
    first use otherwise, and the process is ended when the engine is closed, garbage
    collected, on an error and on Ctrl-C; and when this Python process dies without
    closing it (SIGTERM, SIGHUP, SIGKILL), the program ends too: on Linux the kernel
    kills it (``PR_SET_PDEATHSIG``), elsewhere a watcher on a pipe does. An engine may
    be started from any thread. An illegal or unreadable answer, a crash or a
    timeout raises :class:`~fastgen.errors.EngineError` naming the position (its FIBS
    line) and closes the engine.
    """

    wants_position = True

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        plies: int = 0,
        *,
        cubeful: bool = False,
        timeout: float = 30.0,
        startup_timeout: float = 30.0,
    ) -> None:
        self.path = find_gnubg(path)
        self.plies = check_int(plies, "plies", 0, 4)
        self.cubeful = bool(cubeful)
        for name, value in (("timeout", timeout), ("startup_timeout", startup_timeout)):
            if (isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0
                    or not math.isfinite(value)):
                raise InvalidArgumentError(f"{name} must be a finite positive number of seconds, got {value!r}")
        self.timeout = float(timeout)
        self.startup_timeout = float(startup_timeout)
        self.name = f"gnubg-engine-{self.plies}ply"
        self.port: int | None = None
        self.questions = 0
        self._proc: subprocess.Popen | None = None
        self._sock: socket.socket | None = None
        self._log: Any = None
        self._buffer = b""
        self._finalizer: Any = None

    # ------------------------------------------------------------------ lifecycle

    @property
    def running(self) -> bool:
        return self._sock is not None and self._proc is not None and self._proc.poll() is None

    def start(self) -> "GnubgEngine":
        """Start gnubg and connect to it: a new free port is tried up to 3 times (another
        program may take the port between its choice and gnubg's listening), all within
        *startup_timeout* seconds in total."""
        if self.running:
            return self
        self.close()
        deadline = time.monotonic() + self.startup_timeout
        last: Exception | None = None
        for _ in range(3):
            if last is not None and time.monotonic() >= deadline:
                break
            try:
                self._launch(deadline)
                return self
            except EngineError as exc:
                last = exc
                self.close()
        assert last is not None
        raise last

    def _launch(self, deadline: float) -> None:
        self.port = free_port()
        self._log = tempfile.TemporaryFile()
        # Tied to this process: ended by the kernel if this one dies without closing it
        # (SIGKILL, SIGTERM); in its own session so that Ctrl-C reaches us, and we end it.
        self._proc = popen_tied(
            [self.path, "-t", "-q"],
            stdin=subprocess.PIPE,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self._finalizer = weakref.finalize(self, _stop_process, self._proc, None, self._log)
        commands = [
            f"set evaluation chequerplay evaluation plies {self.plies}",
            f"set evaluation chequerplay evaluation cubeful {'on' if self.cubeful else 'off'}",
            f"external {_HOST}:{self.port}",
        ]
        assert self._proc.stdin is not None
        self._proc.stdin.write(("\n".join(commands) + "\n").encode())
        self._proc.stdin.flush()
        while True:
            if self._proc.poll() is not None:
                raise EngineError(f"GNU Backgammon ({self.path}) exited at startup: {self._output()!r}")
            try:
                sock = socket.create_connection((_HOST, self.port), timeout=max(0.05, min(1.0, deadline - time.monotonic())))
                break
            except OSError:
                if time.monotonic() >= deadline:
                    raise EngineError(
                        f"GNU Backgammon did not accept a connection on {_HOST}:{self.port} within "
                        f"{self.startup_timeout} s: {self._output()!r}"
                    ) from None
                time.sleep(0.05)
        sock.settimeout(self.timeout)
        self._sock = sock
        self._finalizer.detach()
        self._finalizer = weakref.finalize(self, _stop_process, self._proc, sock, self._log)

    def _output(self) -> str:
        """The last lines gnubg printed (for error messages)."""
        if self._log is None:
            return ""
        try:
            self._log.seek(0)
            return self._log.read().decode(errors="replace")[-500:].strip()
        except (OSError, ValueError):
            return ""

    def close(self) -> None:
        """Close the connection and end the process (idempotent)."""
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None
        _stop_process(self._proc, self._sock, self._log)
        self._proc = self._sock = self._log = None
        self._buffer = b""

    def __enter__(self) -> "GnubgEngine":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        state = f"port {self.port}" if self.running else "not running"
        return f"<GnubgEngine {self.path} plies={self.plies} ({state})>"

    # ------------------------------------------------------------------ questions

    def _ask(self, line: str) -> str:
        """Send one FIBS line, return the answer line (without its line ending)."""
        assert self._sock is not None
        self._sock.sendall(line.encode() + b"\r\n")
        self.questions += 1
        while b"\n" not in self._buffer:
            chunk = self._sock.recv(1024)
            if not chunk:
                raise EngineError(
                    f"GNU Backgammon closed the connection (exit status {self._proc and self._proc.poll()}) "
                    f"instead of answering {line!r}: {self._output()!r}"
                )
            self._buffer += chunk
            if len(self._buffer) > _MAX_ANSWER:
                raise EngineError(f"GNU Backgammon sent {len(self._buffer)} bytes without a line end to {line!r}")
        answer, _, self._buffer = self._buffer.partition(b"\n")
        return answer.decode(errors="replace").strip(" \t\r\0")

    def move(self, board: ArrayLike, dice: DiceLike) -> Play:
        """GNU Backgammon's play of *board* (the side on roll in row 1) with *dice*,
        checked against the legal plays. Forced plays are answered without asking."""
        arr = as_board(board)
        roll = as_dice(dice)
        plays = legal_plays(arr, roll)
        if len(plays) == 1:
            return plays[0]
        return self._decide(arr, roll, plays)

    def _decide(self, board: np.ndarray, dice: tuple, plays) -> Play:
        # A centred cube (both may double): with neither allowed, gnubg reads the line as
        # a cube decision and answers "take" or "beaver" instead of a play.
        line = format_board(
            board, dice, player="fastgen", opponent="gnubg", player_may_double=True, opponent_may_double=True
        )
        self.start()
        try:
            answer = self._ask(line)
        except socket.timeout:
            self.close()
            raise EngineError(f"GNU Backgammon did not answer {line!r} within {self.timeout} s") from None
        except OSError as exc:
            self.close()
            raise EngineError(f"the connection to GNU Backgammon failed on {line!r}: {exc}") from None
        except BaseException:  # EngineError, KeyboardInterrupt: the dialogue is out of step
            self.close()
            raise
        try:
            return parse_play(board, dice, answer, plays=plays)
        except FastgenError as exc:
            raise EngineError(f"GNU Backgammon answered {answer!r} to {line!r}: {exc}") from None

    def choose(self, candidates: np.ndarray, offsets: np.ndarray, turn: Turn) -> np.ndarray:
        """The policy: as :meth:`__call__` with the turn's positions and dice."""
        return self(candidates, offsets, turn.boards, turn.dice)

    def __call__(self, candidates: np.ndarray, offsets: np.ndarray, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
        """The batch policy: for each game g, the index (relative to offsets[g]) of
        GNU Backgammon's play among candidates[offsets[g]:offsets[g + 1]]."""
        n = boards.shape[0]
        picks = np.zeros(n, dtype=np.int64)
        for g in range(n):
            lo, hi = int(offsets[g]), int(offsets[g + 1])
            if hi - lo <= 1:
                continue
            play = self.move(boards[g], (int(dice[g, 0]), int(dice[g, 1])))
            picks[g] = _index_of(candidates[lo:hi], play.board_after, boards[g], dice[g])
        return picks


def _index_of(candidates: np.ndarray, after: np.ndarray, board, dice) -> int:
    """The index of *after* among *candidates*; EngineError when it is missing."""
    hits = np.flatnonzero((candidates == after).all(axis=(1, 2)))
    if hits.size == 0:
        raise EngineError(
            f"the engine's play (position after {after.tolist()!r}) is not among the legal plays of "
            f"{np.asarray(board).tolist()!r} with {tuple(int(d) for d in dice)!r}"
        )
    return int(hits[0])
