"""GNU Backgammon's 0-ply evaluation, compiled: its nets, read from the user's install.

:func:`load` finds GNU Backgammon's weights file (:func:`fastgen.nets.gnubg_weights.find_weights`:
an explicit path, ``FASTGEN_GNUBG_WEIGHTS``, the ``gnubg-nn`` or ``gnubg`` package data,
the usual places of an installed gnubg) and its one-sided and two-sided bear-off
databases (``gnubg_os0.bd``, ``gnubg_ts0.bd``), and gives a :class:`GnubgNetworks`: an
evaluator computing what gnubg computes at 0 ply, for the side on roll (row 1):

1. the position's class (:func:`classify`): over, bear-off, race, crashed, contact;
2. bear-off: the two-sided database where it holds both sides, else the one-sided one,
   as gnubg reads them (the compiled rules of :func:`fastgen.bearoff.gnubg.gnubg_bearoff`);
3. race, crashed, contact: that class's net over its inputs, the forward pass in gnubg's
   float32 arithmetic and order with its table sigmoid, compiled and without the GIL
   (``threads=`` shares a batch among threads);
4. gnubg's corrections of a net's outputs: gammons that can no longer happen or can no
   longer be avoided, the race backgammon estimate from the bear-off database, each
   gammon at most its side's wins and each backgammon at most its gammons, outputs below
   1e-4 set to 0 (fastgen/nets/_gnubg_sanity.h).

The inputs' definitions depend on the weights' version: 1.00 (gnubg 1.07, what Debian
installs) or 1.01 (gnubg 1.08 and later, and the PyPI packages); the version the file
states decides. fastgen ships none of gnubg's files: it reads the user's.

>>> import fastgen
>>> from fastgen.nets import gnubg
>>> nets = gnubg.load()                                   # doctest: +SKIP
>>> nets.evaluate(fastgen.STARTING_BOARD[None]).round(3)  # doctest: +SKIP
array([[0.52 , 0.152, 0.007, 0.128, 0.005]])
"""

from __future__ import annotations

import os
import threading
from typing import Any, Sequence

import numpy as np

from fastgen._util import check_threads, run_in_chunks
from fastgen.bearoff.gnubg import first_checker_distributions
from fastgen.bearoff.build import build_one_sided, build_two_sided
from fastgen.bearoff.database import OneSidedDatabase, TwoSidedDatabase
from fastgen.bearoff.files import read_gnubg
from fastgen.core._core import StopFlag
from fastgen.core.boards import as_boards
from fastgen.errors import InvalidArgumentError, NetworkFileError
from fastgen.nets import _gnubg, _gnubg_eval
from fastgen.nets.lookahead import CompiledLookahead
from fastgen.nets.gnubg_weights import GnubgWeights, find_weights, read_weights

__all__ = ["GnubgNetworks", "GnubgLookahead", "load", "classify", "find_bearoff", "CLASSES"]

#: The position classes, by the number :func:`classify` gives them.
CLASSES = ("over", "bearoff", "race", "crashed", "contact")

#: Positions a thread takes at a time (a few ms of work).
CHUNK_ROWS = 4096

#: The deepest compiled look ahead (:meth:`GnubgNetworks.at_ply`).
MAX_PLIES = _gnubg_eval.MAX_PLIES
#: GNU Backgammon's pruned choice inside its search keeps this many plays plus the binary
#: logarithm of their count (its MIN_PRUNE_MOVES).
PRUNE_LEAST = 5
#: Rolls of plays a thread prunes between two checks for Ctrl-C.
PRUNE_CHUNK_ROLLS = 256

#: The bear-off database files gnubg reads, one-sided then two-sided.
BEAROFF_FILES = ("gnubg_os0.bd", "gnubg_ts0.bd")


def classify(boards: Any) -> np.ndarray:
    """(N,) int8: each position's class as gnubg sorts them, an index of :data:`CLASSES`:
    0 over (a side has borne off every checker); 1 bear-off (no contact, every checker of
    both sides on its home board); 2 race (no contact otherwise); 3 crashed (contact, and
    a side has few checkers left above its lowest points); 4 contact."""
    return _gnubg.classify(boards)


def _bearoff_folders(weights_path: str) -> list[str]:
    """Where gnubg's bear-off files may be, for a weights file at *weights_path*: its
    folder, then the data folders of an installed gnubg (Debian keeps the weights in
    ``/usr/lib/gnubg`` and the databases in ``/usr/share/gnubg``)."""
    here = os.path.dirname(os.path.abspath(weights_path))
    folders = [here, os.path.join(os.path.dirname(here), "share", "gnubg"),
               "/usr/share/gnubg", "/usr/local/share/gnubg", "/opt/homebrew/share/gnubg"]
    return list(dict.fromkeys(folders))  # each once, in order


def find_bearoff(weights_path: str) -> tuple[str | None, str | None]:
    """The paths of gnubg's one-sided and two-sided bear-off files (``gnubg_os0.bd``,
    ``gnubg_ts0.bd``) beside the weights file *weights_path* or in gnubg's data folders;
    None for one not found."""
    found: list[str | None] = []
    for name in BEAROFF_FILES:
        path = next((os.path.join(f, name) for f in _bearoff_folders(weights_path)
                     if os.path.isfile(os.path.join(f, name))), None)
        found.append(path)
    return found[0], found[1]


def _net_spec(weights: GnubgWeights, name: str) -> tuple[tuple[np.ndarray, ...], float, float]:
    net = weights.nets[name]
    arrays = tuple(np.ascontiguousarray(a, dtype=np.float32) for a in net.arrays)
    return arrays, float(net.beta_hidden), float(net.beta_output)


class GnubgNetworks:
    """GNU Backgammon's 0-ply evaluation with its nets compiled (see the module's
    docstring): an evaluator, ``nets(boards)`` / :meth:`evaluate` giving (N, 5) float64
    probabilities for the side on roll. Made by :func:`load`; pickles as the paths it was
    read from (each process reads them again).

    *weights*: a :class:`~fastgen.nets.gnubg_weights.GnubgWeights`; *one_sided*: the
    one-sided bear-off database (gnubg's ``gnubg_os0.bd``: 6 points, 15 checkers);
    *two_sided*: the two-sided one (``gnubg_ts0.bd``) or None."""

    #: The answers keep every rule of an evaluator's; fastgen trusts them; the
    #: evaluation runs compiled, without the GIL, and reads turned boards.
    ordered = True
    trusted = True
    nogil = True
    classes = ("bearoff", "race", "contact")
    #: A position costs far more than finding equal boards: the callers ask about each
    #: distinct one of a batch once.
    distinct_only = True

    def __init__(self, weights: GnubgWeights, one_sided: OneSidedDatabase,
                 two_sided: TwoSidedDatabase | None = None, *, name: str = "gnubg:0",
                 sources: tuple[str | None, str | None, str | None] | None = None) -> None:
        if not isinstance(one_sided, OneSidedDatabase) or one_sided.points != 6 or one_sided.checkers != 15:
            raise NetworkFileError(f"gnubg's nets need the one-sided bear-off database of 6 points and 15 "
                                   f"checkers (gnubg_os0.bd), got {one_sided!r}")
        if two_sided is not None and not isinstance(two_sided, TwoSidedDatabase):
            raise NetworkFileError(f"expected a two-sided bear-off database (gnubg_ts0.bd) or None, got {two_sided!r}")
        self.weights = weights
        self.version = weights.version
        self.one_sided = one_sided
        self.two_sided = two_sided
        self.name = name
        self._sources = sources
        tables = _gnubg.RaceTables(one_sided)
        two = None
        if two_sided is not None:
            two = (np.ascontiguousarray(two_sided.values[:, :, 0], dtype=np.uint16), two_sided.points,
                   two_sided.checkers)
        self._kernel = _gnubg_eval.GnubgKernel(_net_spec(weights, "race"), _net_spec(weights, "crashed"),
                                               _net_spec(weights, "contact"), 100 if weights.version == "1.00" else 101,
                                               tables.bearoff, tables.escape, None, two,
                                               (_net_spec(weights, "prune race"), _net_spec(weights, "prune crashed"),
                                                _net_spec(weights, "prune contact")))
        self._first_lock = threading.Lock()

    @property
    def __name__(self) -> str:
        """The name (``gnubg:0``), as functions have one (what messages quote)."""
        return self.name

    def __repr__(self) -> str:
        two = "" if self.two_sided is None else " and a two-sided bear-off database"
        return f"<GNU Backgammon's nets {self.version} from {self.weights.path!r}{two}>"

    def digest(self) -> str:
        """What identifies its answers: the weights' digest
        (:attr:`~fastgen.nets.gnubg_weights.GnubgWeights.digest`, the same for the same
        weights in any layout) and whether a two-sided database is used."""
        return f"gnubg-nets/1:{self.weights.digest}:{'two-sided' if self.two_sided is not None else 'one-sided'}"

    def about(self) -> dict:
        """What is evaluating: the weights' version, file and digest, the bear-off files."""
        return {"name": self.name, "weights": self.weights.path, "version": self.version,
                "digest": self.weights.digest, "layout": self.weights.layout,
                "two_sided": self.two_sided is not None}

    def __reduce__(self) -> Any:
        if self._sources is None:
            raise TypeError("GnubgNetworks made from objects in memory cannot be pickled; make them with load()")
        return (_reload, (self._sources, self.name))

    @property
    def cube_version(self) -> str:
        """The GNU Backgammon version whose cube life goes with these nets
        (:func:`fastgen.cube.efficiency.efficiency_for`): ``"1.07"`` for the weights 1.00
        (gnubg 1.07's), ``"1.08"`` for 1.01 (gnubg 1.08 and later)."""
        return "1.07" if self.version == "1.00" else "1.08"

    def classify(self, boards: Any) -> np.ndarray:
        """(N,) int8 classes of *boards* (:func:`classify`)."""
        return classify(boards)

    def __call__(self, boards: Any, *, threads: int = 1) -> np.ndarray:
        return self.evaluate(boards, threads=threads)

    def evaluate(self, boards: Any, *, threads: int = 1, turned: bool = False) -> np.ndarray:
        """(N, 5) float64 probabilities of (N, 2, 25) *boards* for the side on roll (row
        1), gnubg's 0-ply evaluation: P(win), P(win gammon), P(win backgammon), P(lose
        gammon), P(lose backgammon). With *turned*, each board is read with its rows
        swapped (row 0 on roll: the positions after the plays of ``plays_batch``, valued
        for the opponent, with no copy). The boards are checked once
        (:class:`~fastgen.errors.InvalidBoardError`); the same answers for any
        *threads*."""
        threads = check_threads(threads)
        arr = as_boards(boards)
        n = arr.shape[0]
        raw = np.zeros((n, 5), dtype=np.float32)
        cls = np.empty(n, dtype=np.int8)
        kernel = self._kernel
        swap = bool(turned)
        run_in_chunks(lambda lo, hi: kernel.rows(arr, swap, raw, cls, lo, hi),
                      n, CHUNK_ROWS, max(1, min(threads, n // 1024 or 1)), StopFlag())
        again = np.flatnonzero(cls == _gnubg_eval.NEEDS_TABLE)
        if again.size:  # bear-offs of 15 checkers: their gammons need the first-checker table
            self._attach_first()
            sub = np.ascontiguousarray(arr[again])
            part = np.zeros((again.size, 5), dtype=np.float32)
            kernel.rows(sub, swap, part, np.empty(again.size, dtype=np.int8), 0, again.size)
            raw[again] = part
        return raw.astype(np.float64)

    def pruning(self, boards: Any, *, turned: bool = False, corrected: bool = False) -> np.ndarray:
        """(N, 5) float64: the pruning nets' outputs for (N, 2, 25) *boards* (side on roll
        in row 1; row 0 with *turned*): gnubg's small nets of the same file (200 inputs,
        the base units; 16 hidden units for contact and crashed positions, 8 for races)
        that its search uses to pass over plays cheaply, the net of each position's class,
        uncorrected (gnubg-nn's ``probabilities(board, p_prune)``), or with *corrected*
        put through the full nets' corrections, as the program's search uses them. NaN
        for finished games and bear-offs, which have no pruning net."""
        arr = as_boards(boards)
        n = arr.shape[0]
        raw = np.full((n, 5), np.nan, dtype=np.float32)
        cls = np.empty(n, dtype=np.int8)
        self._kernel.prune_rows(arr, bool(turned), raw, cls, 0, n, bool(corrected))
        return raw.astype(np.float64)

    def pruned(self, boards: Any, offsets: Any, prices: Any, *, turned: bool = False,
               least: int = PRUNE_LEAST, threads: int = 1) -> np.ndarray:
        """(N,) bool: which plays GNU Backgammon's pruned choice lets the full nets value.
        *boards*: (N, 2, 25), the positions after the plays (the opponent on roll in row 1;
        row 0 with *turned*), each roll's plays ``offsets[g]`` to ``offsets[g + 1] - 1``.
        A roll of k plays, more than *least* + floor(log2(k)), whose positions are all of
        one class with a pruning net (race, crashed, contact) keeps that many best for
        the mover by the pruning net of that class (its outputs p, the opponent's,
        corrected as the full nets' are): ``1 - 2 p0 + gw p3 + bw p4 - gl p1 - bl p2``
        with ``(gw, bw, gl, bl) = prices[g]`` (1, 1, 1, 1 for money: the cubeless equity;
        the gammon and backgammon prices at a match score), ties to the first; every
        other roll keeps all its plays. Compiled, one pass, without the GIL, the rolls
        shared by *threads* (the same answers for any number)."""
        arr = as_boards(boards)
        offs = np.ascontiguousarray(offsets, dtype=np.int64)
        p = np.ascontiguousarray(prices, dtype=np.float64)
        if offs.ndim != 1 or offs.size < 1 or offs[0] != 0 or offs[-1] != arr.shape[0] or (np.diff(offs) < 0).any():
            raise InvalidArgumentError(f"offsets must rise from 0 to the {arr.shape[0]} boards, got {offsets!r}")
        if p.shape != (offs.size - 1, 4):
            raise InvalidArgumentError(f"prices must be ({offs.size - 1}, 4), one row a roll, got {p.shape}")
        if isinstance(least, bool) or not isinstance(least, int) or least < 1:
            raise InvalidArgumentError(f"least must be a whole number >= 1, got {least!r}")
        kept = np.ones(arr.shape[0], dtype=np.uint8)
        kernel, swap, groups = self._kernel, bool(turned), offs.size - 1
        run_in_chunks(lambda lo, hi: kernel.prune_keep(arr, swap, offs, int(least), p, kept, lo, hi),
                      groups, PRUNE_CHUNK_ROLLS, max(1, min(check_threads(threads), groups // 64 or 1)), StopFlag())
        return kept.astype(bool)

    def _attach_first(self) -> None:
        """The first-checker distributions of the one-sided bear-off's gammons
        (:func:`fastgen.bearoff.gnubg.first_checker_distributions`, about 50 ms once a
        process), attached the first time a position needs them: a program that never
        meets a bear-off of 15 checkers never computes them."""
        with self._first_lock:
            if not self._kernel.has_first:
                self._kernel.attach_first(first_checker_distributions())

    def at_ply(self, plies: int, *, prune: bool = True) -> "GnubgNetworks | GnubgLookahead":
        """These nets at *plies* (0 to :data:`MAX_PLIES`): themselves at 0, their
        :class:`GnubgLookahead` above (named ``gnubg:N``), its choices inside the search
        pruned as GNU Backgammon's program prunes them by default (*prune*; ``False``: every
        play valued, gnubg-nn's ``probabilities(board, N)``)."""
        if isinstance(plies, bool) or not isinstance(plies, int) or not 0 <= plies <= MAX_PLIES:
            raise InvalidArgumentError(f"gnubg's compiled nets look 0 to {MAX_PLIES} plies ahead, got plies={plies!r}")
        if plies == 0:
            return self
        return GnubgLookahead(self, plies, prune=prune)

    def chooser(self) -> Any:
        """gnubg's 0-ply greedy play as the compiled game loops call it (a
        ``fastgen.core._chooser.Chooser``, one a thread): each candidate valued by minus
        the opponent's cubeless equity, ties to the first, the choice of
        ``fastgen.players.evaluators.greedy`` of these nets to the bit."""
        self._attach_first()  # the game loop cannot come back for it
        return self._kernel.chooser()


class GnubgLookahead(CompiledLookahead):
    """GNU Backgammon's evaluation at 1 to :data:`MAX_PLIES` plies, compiled: an evaluator
    (made by :meth:`GnubgNetworks.at_ply`), equal to the program's own with its default
    pruning (*prune*), and without it (``prune=False``) to gnubg-nn's
    ``probabilities(board, plies)``.

    For the side on roll of each position, each of the 21 rolls is played as the nets
    play it at 0 ply (the best for the mover kept: minus the opponent's cubeless equity,
    ties to the first play in fastgen's order); the kept play's position is valued at one
    ply fewer with the opponent on roll (at 0 ply: the nets), and those probabilities,
    seen from the side on roll, are averaged over the 36 dice. A finished game, and a
    bear-off whose two sides both fit the two-sided database, keep their 0-ply value at
    any ply: gnubg's is exact there and it looks no further.

    Which plays of a roll the nets value: with *prune* (the program's default), when a
    roll has more than ``5 + floor(log2(plays))`` plays and their positions are all of
    one class with a pruning net (race, crashed, contact), the small pruning nets of the
    weights file value them all (corrected as the full nets are) and the full nets only
    that many best; otherwise, and without *prune*, every play. A position costs a few
    hundred evaluations at 1 ply, some ten thousand at 2 and some four million at 3
    (seconds each) unpruned; pruned, the full nets' share falls to about a third.

    Runs compiled without the GIL (``threads=`` shares a batch; the same answers for any
    number); Ctrl-C stops a long call within a roll's work."""

    classes = GnubgNetworks.classes

    def __init__(self, nets: "GnubgNetworks", plies: int = 1, *, prune: bool = True) -> None:
        super().__init__(nets, plies)
        if not isinstance(prune, bool):
            raise InvalidArgumentError(f"prune must be True or False, got {prune!r}")
        self.prune = prune

    def _options(self) -> dict:
        return {"prune": PRUNE_LEAST} if self.prune else {}

    def __reduce__(self) -> Any:
        return (_lookahead, (self.nets, self.plies, self.prune))

    def digest(self) -> str:
        """The nets' digest, the ply and whether the search prunes."""
        return super().digest() + ("" if self.prune else ":noprune")

    def about(self) -> dict:
        """The nets' ``about``, the ply and whether the search prunes."""
        return {**super().about(), "prune": self.prune}

    def at_ply(self, plies: int) -> "GnubgNetworks | GnubgLookahead":
        """The same nets and pruning at *plies* (the nets themselves at 0)."""
        if plies == 0:
            return self.nets
        return GnubgLookahead(self.nets, plies, prune=self.prune)

    def _prefix(self) -> str:
        return "gnubg"

    def _about(self) -> dict:
        return dict(self.nets.about())

    def _prepare(self) -> None:
        self.nets._attach_first()  # the look ahead meets bear-offs in C

    def __repr__(self) -> str:
        return f"<GNU Backgammon's nets {self.nets.version} at {self.plies} ply, from {self.nets.weights.path!r}>"

    @property
    def cube_version(self) -> str:
        """The nets' :attr:`GnubgNetworks.cube_version`."""
        return self.nets.cube_version

    def classify(self, boards: Any) -> np.ndarray:
        """(N,) int8 classes of *boards* (:func:`classify`)."""
        return classify(boards)


def _lookahead(nets: GnubgNetworks, plies: int, prune: bool) -> GnubgLookahead:
    """A pickled :class:`GnubgLookahead` made again."""
    return GnubgLookahead(nets, plies, prune=prune)


def _one_sided(path: str | None) -> OneSidedDatabase:
    if path is None:
        return build_one_sided(6)  # gnubg's own file, to the byte (built in memory)
    db = read_gnubg(path)
    if not isinstance(db, OneSidedDatabase):
        raise NetworkFileError(f"{path!r} is not a one-sided bear-off database")
    return db


def _two_sided(path: str | None) -> TwoSidedDatabase:
    if path is None:
        return build_two_sided(6, 6, cubeful=False)  # what gnubg does without the file (built in memory)
    db = read_gnubg(path)
    if not isinstance(db, TwoSidedDatabase):
        raise NetworkFileError(f"{path!r} is not a two-sided bear-off database")
    return db


#: The nets read in this process, by their files and the files' sizes, modification
#: times and inodes (a file changed or replaced on disk is read again); kept for the
#: process's life (a few MB a set, and a set is read once per weights file in practice).
_LOADED: dict[tuple, GnubgNetworks] = {}
_LOADED_LOCK = threading.Lock()


def _stamp(path: str | None) -> tuple:
    """*path* resolved, with its size, modification time and inode (None stays None): a
    file replaced by another (``os.replace``) differs even within the clock's resolution."""
    if path is None:
        return (None,)
    try:
        st = os.stat(path)
    except OSError:  # gone since it was found: the read below says so
        return (path, None)
    return (os.path.realpath(path), st.st_size, st.st_mtime_ns, st.st_dev, st.st_ino)


def _reload(sources: tuple[str | None, str | None, str | None], name: str) -> GnubgNetworks:
    """The nets of the files *sources* (weights, one-sided, two-sided), read once a
    process while the files stay as they are (the same object for every caller: it is
    read-only in use)."""
    key = tuple(_stamp(p) for p in sources) + (name,)
    with _LOADED_LOCK:
        found = _LOADED.get(key)
        if found is None:
            weights, one, two = sources
            found = GnubgNetworks(read_weights(weights), _one_sided(one), _two_sided(two), name=name, sources=sources)
            _LOADED[key] = found
        return found


def load(path: str | os.PathLike[str] | None = None, *,
         bearoff: Sequence[str | os.PathLike[str] | None] | None = None) -> GnubgNetworks:
    """GNU Backgammon's nets from the weights file *path* (by default the one
    :func:`~fastgen.nets.gnubg_weights.find_weights` finds) and its bear-off databases:
    *bearoff* = (one-sided path, two-sided path), by default the files :func:`find_bearoff`
    finds. A file not found is built in memory, as gnubg builds its own (fastgen's
    builders write gnubg's files to the byte): the one-sided database of 6 points and 15
    checkers, the two-sided one of 6 points and 6 checkers (a quarter of a second; Debian
    installs only the one-sided file).

    The nets are read once a process: a second call naming the same files (unchanged
    on disk: the same sizes, modification times and inodes) returns the same object,
    shared by its callers (it is read-only in use); a file changed or replaced is read
    again.

    Raises :class:`~fastgen.errors.GnubgWeightsNotFoundError` when no weights file is
    found, :class:`~fastgen.errors.NetworkFileError` or
    :class:`~fastgen.errors.BearoffFileError` for a file that cannot be read."""
    weights_path = find_weights(path)
    if bearoff is None:
        one, two = find_bearoff(weights_path)
    else:
        files = list(bearoff)
        if len(files) != 2:
            raise NetworkFileError(f"bearoff must be (one-sided path, two-sided path), got {bearoff!r}")
        one, two = (None if f is None else os.fspath(f) for f in files)
    return _reload((weights_path, one, two), "gnubg:0")
