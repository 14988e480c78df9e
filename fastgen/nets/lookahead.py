"""Looking ahead with a compiled evaluator: its value of positions at 1 to
:data:`MAX_PLIES` plies, computed in the core without the GIL.

At *N* plies, for the side on roll, each of the 21 rolls is played as the evaluator
plays it at 0 ply (every legal play valued, the best for the mover kept: minus the
opponent's cubeless equity, exact where the mover bears off its last checker, ties to
the first play in fastgen's order); the kept play's position is valued at *N* - 1 plies
with the opponent on roll (at 0 ply: the evaluator itself), and those probabilities,
seen from the side on roll, are averaged over the 36 dice. This is the plain search,
every roll's every play valued: a position costs a few hundred evaluations at 1 ply,
some ten thousand at 2. :class:`fastgen.players.search.Search` puts move filters over
it to choose among plays.

- :class:`NetworkLookahead`: a :class:`fastgen.nets.Network` at N plies
  (:meth:`fastgen.nets.Network.at_ply`; the specs ``baseline:N`` and ``PATH.npz:N``).
- :class:`CompiledLookahead`: what it shares with GNU Backgammon's nets at N plies
  (:class:`fastgen.nets.gnubg.GnubgLookahead`).
- :func:`evaluate_at_ply`: the threads and Ctrl-C around a compiled kernel's rows at N
  plies, shared with GNU Backgammon's nets (:class:`fastgen.nets.gnubg.GnubgLookahead`).

>>> import fastgen
>>> from fastgen.players import evaluators
>>> two = evaluators.baseline().at_ply(2)
>>> two.name, two.evaluate(fastgen.STARTING_BOARD[None]).shape
('baseline:2', (1, 5))
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from fastgen._util import check_threads, run_in_chunks, run_threads
from fastgen.core._core import StopFlag
from fastgen.core.boards import as_boards
from fastgen.errors import InvalidArgumentError
from fastgen.nets import _forward

__all__ = ["MAX_PLIES", "CompiledLookahead", "NetworkLookahead", "evaluate_at_ply"]

#: The deepest compiled look ahead of fastgen's networks.
MAX_PLIES = _forward.MAX_PLIES
#: Positions a thread evaluates at 1 ply between two checks for Ctrl-C (about a
#: millisecond; a position can have hundreds of plays a roll).
PLY_CHUNK_ROWS = 4


def evaluate_at_ply(kernel: Any, boards: Any, *, plies: int, threads: int = 1, turned: bool = False,
                    **options: Any) -> np.ndarray:
    """(N, 5) float64: ``kernel.ply_rows(boards, swap, out, lo, hi, plies, stop, **options)``
    over checked *boards* (row 1 on roll; row 0 with *turned*). At 1 ply the rows run in
    chunks of :data:`PLY_CHUNK_ROWS` shared by *threads*; deeper, a position is
    milliseconds to seconds of work, so each row runs in a worker thread that polls a
    stop flag before each roll, while the calling thread waits for Ctrl-C. Either way
    Ctrl-C stops the call within a roll's work and leaves no thread running; the answers
    are the same for any number of threads."""
    threads = check_threads(threads)
    arr = as_boards(boards)
    n = arr.shape[0]
    out = np.zeros((n, 5))
    swap = bool(turned)
    if plies == 1:
        run_in_chunks(lambda lo, hi: kernel.ply_rows(arr, swap, out, lo, hi, 1, None, **options),
                      n, PLY_CHUNK_ROWS, max(1, min(threads, n // PLY_CHUNK_ROWS or 1)), StopFlag())
        return out
    stop = StopFlag()
    rows = iter(range(n))
    lock = threading.Lock()

    def work(_: int) -> None:
        while True:
            with lock:
                i = next(rows, None)
            if i is None or kernel.ply_rows(arr, swap, out, i, i + 1, plies, stop, **options):
                return

    run_threads(work, max(1, min(threads, n)), stop=stop)
    return out


class CompiledLookahead:
    """What every compiled evaluator at N plies shares (see the module docstring): its
    networks (:attr:`nets`, which hold the compiled kernel), its :attr:`plies`, its name
    ``NAME:N``, digest, ``about``, pickling and ``evaluate``. Subclasses name the
    networks' kind (:meth:`_prefix`) and make the kernel ready (:meth:`_prepare`)."""

    ordered = True
    trusted = True
    nogil = True
    #: Searched positions are costly: the callers ask about each distinct one once.
    distinct_only = True
    #: Whether its choices inside the search are pruned (GNU Backgammon's pruning nets).
    prune = False

    def __init__(self, nets: Any, plies: int = 1) -> None:
        if isinstance(plies, bool) or not isinstance(plies, int) or not 1 <= plies <= MAX_PLIES:
            raise InvalidArgumentError(f"{type(self).__name__} looks 1 to {MAX_PLIES} plies ahead, "
                                       f"got plies={plies!r}")
        self.nets = nets
        self.plies = plies
        self.name = f"{self._prefix()}:{plies}"

    def _options(self) -> dict:
        """The kernel's options for ``ply_rows`` (none by default)."""
        return {}

    def at_ply(self, plies: int) -> Any:
        """The same networks, with the same options, at *plies* (the networks themselves
        at 0): what a search looks through ply by ply."""
        return self.nets.at_ply(plies)

    def _prefix(self) -> str:
        return str(self.nets.name)

    def _about(self) -> dict:
        return dict(self.nets.about)

    def _prepare(self) -> None:
        """Make the kernel ready before a call (nothing by default)."""

    @property
    def __name__(self) -> str:
        return self.name

    def digest(self) -> str:
        """The networks' digest and the ply."""
        return f"{self.nets.digest()}:ply{self.plies}"

    def about(self) -> dict:
        """The networks' ``about`` and the ply."""
        return {**self._about(), "name": self.name, "plies": self.plies}

    def __reduce__(self) -> Any:
        return (type(self), (self.nets, self.plies))

    def __call__(self, boards: Any, *, threads: int = 1) -> np.ndarray:
        return self.evaluate(boards, threads=threads)

    def evaluate(self, boards: Any, *, threads: int = 1, turned: bool = False) -> np.ndarray:
        """(N, 5) float64 probabilities of (N, 2, 25) *boards* for the side on roll (row
        1; row 0 with *turned*) at :attr:`plies`. The boards are checked once
        (:class:`~fastgen.errors.InvalidBoardError`); Ctrl-C stops a long call within a
        few milliseconds; the answers are the same for any number of *threads*."""
        self._prepare()
        return evaluate_at_ply(self.nets._kernel, boards, plies=self.plies, threads=threads, turned=turned,
                               **self._options())


class NetworkLookahead(CompiledLookahead):
    """A compiled :class:`fastgen.nets.Network` at 1 to :data:`MAX_PLIES` plies (see the
    module docstring), an evaluator: ``evaluate(boards, threads=, turned=)`` gives (N, 5)
    float64 probabilities for the side on roll. Made by :meth:`fastgen.nets.Network.at_ply`;
    named ``NAME:N`` after the network. A board on which a side has no checker left keeps
    its 0-ply value."""

    classes = ("contact", "race", "bearoff")

    def __repr__(self) -> str:
        return f"<{self.nets!r} at {self.plies} ply>"
