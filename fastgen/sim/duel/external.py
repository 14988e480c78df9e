"""Answer GNU Backgammon's external-player questions with a fastgen policy.

In GNU Backgammon, ``set player N external HOST:PORT`` makes player N an external
player: gnubg connects to HOST:PORT and, at each of that player's decisions, sends one
FIBS ``board:`` line (:mod:`fastgen.formats.fibs`) and reads back the play. An
:class:`ExternalServer` listens on 127.0.0.1, reads each line (with a timeout), lets the
policy choose among the legal plays and answers the play in GNU Backgammon's notation
(``bar/22 13/8``).

With the cube on, gnubg also asks, on a line without dice: before the external
player's roll when it may double (``was_doubled`` 0: the answer is ``double`` or
``roll``), and when gnubg has doubled it (``was_doubled`` 1: ``take`` or ``drop``). A
server given a *cube* player (:func:`fastgen.players.policies.cube_policy` of an evaluator)
answers those by its decisions, at the score and cube the line gives; without one it
rolls and takes. What gnubg 1.07 writes in those lines, as read here: the names and
scores are the other way round on the external player's own turns (its score is the
second one then, the first when gnubg doubled it); the may-double flags are the
external player's then gnubg's, and say centred when both are set; the last two fields
are "post-Crawford" and "not the Crawford game".

Command line: ``fastgen serve-external --port P --policy pubeval [--cube baseline]``
(or ``module:callable``), then in gnubg::

    set player 1 external 127.0.0.1:P
    new match 3
"""

from __future__ import annotations

import socket
import sys
import time
from typing import Any, Callable, TextIO

import numpy as np

from fastgen.core.state import MatchState
from fastgen.errors import FastgenError, InvalidArgumentError
from fastgen.formats.fibs import FibsBoard, parse_board
from fastgen.formats.matfile import GNUBG_MAX_CUBE
from fastgen.players.policies import pick_play
from fastgen.players.specs import cube_player, resolve_policy
from fastgen._util import check_int

__all__ = ["ExternalServer", "play_text", "serve_forever"]

_HOST = "127.0.0.1"
_MAX_LINE = 8192


def play_text(moves) -> str:
    """GNU Backgammon's text of a play given as (from, to) steps (25 = bar, 0 = off):
    one ``from/to`` per step, e.g. ``bar/22 6/off``."""
    point = {25: "bar", 0: "off"}
    return " ".join(f"{point.get(f, f)}/{point.get(t, t)}" for f, t in moves)


class ExternalServer:
    """A TCP server on 127.0.0.1 that answers GNU Backgammon's external-player lines.

    Parameters
    ----------
    policy:
        A policy or its spec (:mod:`fastgen.players.specs`: ``"pubeval"``, ``"baseline"``,
        ``"mybot:policy"`` ...), or a batch policy callable (the protocol of
        :func:`fastgen.rollout`).
    port:
        The port (0: the OS picks a free one; see :attr:`port` after construction).
    timeout:
        Seconds to wait for the next line of a connection before closing it.
    seed:
        Seed of the ``"random"`` policy's choices.
    log:
        A text stream for one line per question and answer (None: silent).
    cube:
        The cube player answering doubles (:class:`fastgen.players.policies.CubePolicy`), or an
        evaluator or its spec (``"baseline"``), taken as its ``cube_policy``; None: roll,
        and take every double.
    """

    def __init__(
        self, policy: Any = "pubeval", port: int = 0, *, timeout: float = 120.0, seed: int = 0, log: TextIO | None = None,
        cube: Any = None,
    ) -> None:
        port = check_int(port, "port", 0, 65535)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
            raise InvalidArgumentError(f"timeout must be a positive number of seconds, got {timeout!r}")
        self._choose, self.policy_name = resolve_policy(policy, check_int(seed, "seed", 0, 2**64 - 1))
        self.cube = None if cube is None else cube_player(cube)
        self.timeout = float(timeout)
        self.log = log
        self.questions = 0
        self.lines: list[str] = []  # every board line received, in order
        self._sock = socket.create_server((_HOST, port))
        self._sock.settimeout(0.2)  # accept() wakes up often: Ctrl-C is handled promptly
        self.port = int(self._sock.getsockname()[1])

    def close(self) -> None:
        """Stop listening (idempotent)."""
        self._sock.close()

    def __enter__(self) -> "ExternalServer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _say(self, text: str) -> None:
        if self.log is not None:
            print(text, file=self.log, flush=True)

    def answer(self, line: str) -> str:
        """The answer to one line from gnubg: the policy's play for a board line with
        dice; ``double``/``roll`` or ``take``/``drop`` for a cube question (module
        docstring)."""
        fb = parse_board(line)
        if fb.on_roll is not None and fb.dice == (0, 0) and (fb.was_doubled or fb.on_roll == "player"):
            return self._cube_answer(fb)
        if fb.on_roll is None or fb.dice == (0, 0):
            raise InvalidArgumentError(f"not a chequer-play decision (no dice rolled): {line!r}")
        try:
            play = pick_play(self._choose, self.policy_name, fb.board(on_roll=True), fb.dice, self.questions)
        except InvalidArgumentError as exc:
            raise InvalidArgumentError(f"{exc} for {line!r}") from None
        return play_text(play.moves)

    def _cube_answer(self, fb: FibsBoard) -> str:
        """double/roll before the external player's roll, take/drop when gnubg doubled."""
        doubled = bool(fb.was_doubled)
        if self.cube is None:
            return "take" if doubled else "roll"
        board = np.ascontiguousarray(fb.board(on_roll=True))   # the side deciding to double on roll
        me, them = 1, 0                                         # the external player, gnubg
        doubler = them if doubled else me
        ours = fb.opponent_score if fb.turn == 1 else fb.player_score
        theirs = fb.player_score if fb.turn == 1 else fb.opponent_score
        if fb.player_may_double and fb.opponent_may_double:
            owner = None
        else:
            owner = me if fb.player_may_double else them
        match = fb.match_length if 0 < fb.match_length < 9999 else 0
        state = MatchState(match_length=match, score=(theirs, ours) if match else (0, 0), cube_value=fb.cube,
                           cube_owner=owner, crawford=bool(match and not fb.did_crawford and not fb.redoubles),
                           on_roll=doubler, max_cube=GNUBG_MAX_CUBE)
        owns = np.array([owner == doubler])
        if doubled:
            return "take" if bool(self.cube.accept(board[None], owns, [state])[0]) else "drop"
        return "double" if bool(self.cube.offer(board[None], owns, [state])[0]) else "roll"

    def handle(self, conn: socket.socket) -> None:
        """Answer one connection's lines until gnubg closes it (or a read times out)."""
        conn.settimeout(self.timeout)
        buffer = b""
        with conn:
            while True:
                while b"\n" not in buffer:
                    try:
                        chunk = conn.recv(4096)
                    except socket.timeout:
                        self._say(f"no line within {self.timeout} s: closing the connection")
                        return
                    if not chunk:
                        return
                    buffer += chunk
                    if len(buffer) > _MAX_LINE:
                        self._say("a line longer than 8 KiB: closing the connection")
                        return
                raw, _, buffer = buffer.partition(b"\n")
                line = raw.decode(errors="replace").strip(" \t\r\0")  # gnubg ends its lines with NUL
                if not line:
                    continue
                self.questions += 1
                self.lines.append(line)
                try:
                    reply = self.answer(line)
                except FastgenError as exc:
                    self._say(f"error: {exc}")
                    reply = "error"
                self._say(f"{line} -> {reply}")
                conn.sendall(reply.encode() + b"\r\n")

    def serve(self, connections: int | None = None, stop: Callable[[], bool] | None = None) -> None:
        """Accept connections one at a time and answer them; returns after *connections*
        connections (None: until Ctrl-C or *stop()* is true)."""
        done = 0
        while connections is None or done < connections:
            if stop is not None and stop():
                return
            try:
                conn, peer = self._sock.accept()
            except socket.timeout:
                continue
            self._say(f"connection from {peer[0]}:{peer[1]}")
            self.handle(conn)
            done += 1


def serve_forever(policy: Any, port: int, *, timeout: float = 120.0, seed: int = 0,
                  log: TextIO | None = sys.stderr, cube: Any = None) -> None:
    """Serve *policy* on 127.0.0.1:*port* until Ctrl-C (the command line's loop); the
    address is always printed to stderr. *cube*: as :class:`ExternalServer`'s."""
    with ExternalServer(policy, port, timeout=timeout, seed=seed, log=log, cube=cube) as server:
        print(f"fastgen: answering GNU Backgammon on {_HOST}:{server.port} with {server.policy_name} "
              f"(in gnubg: set player 1 external {_HOST}:{server.port})", file=sys.stderr, flush=True)
        t0 = time.monotonic()
        try:
            server.serve()
        finally:
            server._say(f"answered {server.questions} questions in {time.monotonic() - t0:.1f} s")
