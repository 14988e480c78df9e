"""Position evaluators and the greedy (0-ply) player built on them.

The protocol
------------
An evaluator is an :class:`~fastgen.players.base.Evaluator`: ``evaluate(boards, *,
threads=1) -> probs``. *boards* is (N, 2, 25) int8, row 1 the side on roll, about to
roll; it is never a finished game (the rollouts score those exactly). *probs* is (N, 5)
float: GNU Backgammon's five outputs for the side on roll, ``P(win), P(win gammon),
P(win backgammon), P(lose gammon), P(lose backgammon)``; gammons include backgammons.
Evaluators are called with large batches (tens of thousands of positions), so a
vectorized one pays its Python overhead once per batch, and *threads* reaches the ones
that can use it (a compiled :class:`fastgen.nets.Network`). A plain callable ``f(boards)``
is an evaluator too once wrapped (:func:`~fastgen.players.base.as_evaluator`, which every
front door applies): it is handed read-only boards and its answers are checked by
:func:`check_probs` (values in [0, 1], gammons within wins, backgammons within gammons,
within :data:`PROB_TOLERANCE`).

Built in:

* :func:`gnubg` -- GNU Backgammon's neural nets at 0 ply (or more) through the
  ``gnubg-nn`` package (the ``peers`` extra), one call per position. gnubg-nn keeps a
  cache of evaluations, so a position seen again is answered from it: timings of
  repeated runs depend on what the cache holds.
* :func:`bearoff` -- fastgen's bear-off databases (:mod:`fastgen.bearoff`), exact where
  a two-sided one covers the position.
* :func:`chain` -- exact evaluators where they apply (anything with a ``covers(boards)``
  mask, such as :func:`bearoff`), another evaluator elsewhere.
* :func:`baseline` -- the network shipped with fastgen, a compiled
  :class:`fastgen.nets.Network` (the network fastgen's players use).
* :class:`ReferenceNetwork` / :func:`random_network` -- the reference implementation of
  a one hidden layer network's forward pass in plain numpy over :func:`fastgen.encode`
  features, kept for tests, the docs and comparing against;
  :meth:`ReferenceNetwork.compiled` gives the same network compiled and
  :func:`convert_network_file` converts its older weights files.
* :func:`constant` -- the same probabilities for every position (a zero-cost evaluator
  for timing the machinery around it).

:func:`greedy` turns an evaluator into a player: it picks the play whose resulting
position (the opponent on roll) is worst for the opponent, i.e. the best cubeless
equity for the mover; ties go to the first play in generation order. It is a
:func:`fastgen.rollout` policy.

>>> import fastgen
>>> net = random_network(seed=1)
>>> net(fastgen.STARTING_BOARD[None]).shape
(1, 5)
>>> float(equity(np.array([0.5, 0.0, 0.0, 0.0, 0.0])))
0.0
"""

from __future__ import annotations

import hashlib
import io
import math
import os
import time
import warnings
from importlib import resources
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from fastgen.bearoff.evaluate import covered as bearoff_covered, evaluate as bearoff_evaluate
from fastgen.core.boards import distinct_boards
from fastgen.core.features import encode_trusted, scheme_width
from fastgen.core.ids import position_id
from fastgen.errors import (
    EngineError, GnubgWeightsNotFoundError, InvalidArgumentError, InvalidNetworkError, InvalidOutputError,
)
from fastgen.nets import files as network_files
from fastgen.nets import gnubg as gnubg_nets
from fastgen.nets.onnx_io import OnnxEvaluator
from fastgen.nets.network import Network as CompiledNetwork
from fastgen.nets.probs import PROB_RULES, PROB_TOLERANCE, check_probs, make_consistent
from fastgen.players.base import ALL_CLASSES, Evaluator, FunctionEvaluator, Policy, Turn, as_evaluator, runs_without_gil
from fastgen._typing import ArrayLike
from fastgen._compat import deprecated
from fastgen._util import atomic_write, check_int, install_hint
from fastgen.formats.checked import read_npz

__all__ = [
    "Evaluator",
    "GnubgNNEvaluator",
    "BearoffEvaluator",
    "ChainEvaluator",
    "ConstantEvaluator",
    "GreedyPolicy",
    "equity",
    "flip",
    "gnubg",
    "gnubg_nn",
    "GnubgFallbackWarning",
    "chain",
    "bearoff",
    "constant",
    "ReferenceNetwork",
    "random_network",
    "convert_network_file",
    "baseline",
    "sigmoid",
    "greedy",
    "evaluate",
    "afterstate_probs",
    "opponent_probs",
    "Afterstates",
    "group_best",
    "EVAL_CHUNK",
    "check_probs",
    "PROB_TOLERANCE",
    "PROB_RULES",
]

if not TYPE_CHECKING:  # (type checkers see no old name: code of fastgen's own uses the new one)

    def __getattr__(name: str) -> Any:
        """The old name of :class:`ReferenceNetwork`, ``Network``, for one release (PEP
        562), with a DeprecationWarning naming both networks."""
        if name == "Network":
            deprecated(f"{__name__}.Network", f"{__name__}.ReferenceNetwork (the numpy reference) or "
                       "fastgen.nets.Network (the compiled network)")
            return ReferenceNetwork
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: Positions per evaluator call at most (larger requests are cut into chunks this size).
EVAL_CHUNK = 65536

#: Weights of the five outputs in the cubeless money equity.
EQUITY_WEIGHTS = np.array([2.0, 1.0, 1.0, -1.0, -1.0])


def equity(probs: ArrayLike) -> np.ndarray:
    """Cubeless money equity of probabilities (..., 5): ``2 P(win) - 1 + P(wg) - P(lg) +
    P(wbg) - P(lbg)``. Summed term by term in that order for each position on its own,
    so a position's equity is the same to the last bit in any batch (a matrix product's
    rounding can depend on the row's place in the batch and on the machine)."""
    p = np.asarray(probs, dtype=np.float64)
    return _weighted(p) - 1.0


def _weighted(p: np.ndarray) -> np.ndarray:
    """``p @ EQUITY_WEIGHTS`` for probabilities (..., 5), term by term in a fixed order."""
    return 2.0 * p[..., 0] + p[..., 1] + p[..., 2] - p[..., 3] - p[..., 4]


def flip(probs: np.ndarray) -> np.ndarray:
    """The same probabilities (..., 5) seen by the other side."""
    p = np.asarray(probs, dtype=np.float64)
    out = np.empty_like(p)
    out[..., 0] = 1.0 - p[..., 0]
    out[..., 1] = p[..., 3]
    out[..., 2] = p[..., 4]
    out[..., 3] = p[..., 1]
    out[..., 4] = p[..., 2]
    return out


def flip_diff(delta: np.ndarray) -> np.ndarray:
    """A difference of two probability vectors (a luck), seen by the other side."""
    out = np.empty_like(delta)
    out[..., 0] = -delta[..., 0]
    out[..., 1] = delta[..., 3]
    out[..., 2] = delta[..., 4]
    out[..., 3] = delta[..., 1]
    out[..., 4] = delta[..., 2]
    return out


def evaluate(evaluator: Any, boards: np.ndarray, stats: dict | None = None,
             chunk: int = EVAL_CHUNK, *, threads: int = 1, turned: bool = False) -> np.ndarray:
    """``evaluator.evaluate(boards, threads=threads)`` as (N, 5) float64, called on
    C-contiguous read-only chunks of at most *chunk* positions (*boards* may be any (N, 2,
    25) int8 view). *evaluator* is an :class:`~fastgen.players.base.Evaluator` (a plain
    callable is wrapped by :func:`~fastgen.players.base.as_evaluator`); the answers of one
    fastgen does not trust (a user's) are checked by :func:`check_probs` (shape, finite
    values in [0, 1], and, unless its attribute ``ordered`` is false, gammons <= wins and
    backgammons <= gammons): InvalidOutputError naming the evaluator otherwise. *stats*,
    when given, accumulates ``calls``, ``positions`` and ``seconds`` spent inside the
    evaluator. With *turned*, the boards are positions after a play (the mover in row 1)
    valued for the side on roll next (each board's rows swapped: a compiled network reads
    them so, with no copy). The result may be read-only (a single chunk's answer as the
    evaluator gave it)."""
    ev = evaluator if isinstance(evaluator, Evaluator) else as_evaluator(evaluator)
    n = boards.shape[0]
    if n > 1 and getattr(ev, "distinct_only", False):
        # an evaluator that costs far more than a look-up (its attribute distinct_only:
        # GNU Backgammon's nets, any look-ahead) is asked about each distinct position
        # once: the plays of different rolls often lead to the same one
        split = distinct_boards(boards)
        if split is not None:
            distinct, back = split
            return _evaluate(ev, boards[distinct], stats, chunk, threads, turned)[back]
    return _evaluate(ev, boards, stats, chunk, threads, turned)


def _evaluate(ev: Evaluator, boards: np.ndarray, stats: dict | None, chunk: int, threads: int,
              turned: bool) -> np.ndarray:
    """:func:`evaluate` of every board, chunk by chunk."""
    native_turn = turned and runs_without_gil(ev)
    n = boards.shape[0]
    out = None
    for lo in range(0, n, chunk):
        src = boards[lo : lo + chunk]
        part = np.ascontiguousarray(src if native_turn or not turned else src[:, ::-1]).view()
        part.flags.writeable = False  # the evaluator reads the positions, never changes them
        t0 = time.perf_counter()
        if native_turn:
            got = ev.evaluate(part, threads=threads, turned=True)  # type: ignore[call-arg]
        else:
            got = ev.evaluate(part, threads=threads)
        arr = np.asarray(got, dtype=np.float64)
        t1 = time.perf_counter()
        if stats is not None:
            stats["calls"] = stats.get("calls", 0) + 1
            stats["positions"] = stats.get("positions", 0) + part.shape[0]
            stats["seconds"] = stats.get("seconds", 0.0) + (t1 - t0)
        if lo == 0 and n <= chunk:
            return arr
        if out is None:
            out = np.empty((n, 5), dtype=np.float64)
        out[lo : lo + part.shape[0]] = arr
    return np.empty((0, 5), dtype=np.float64) if out is None else out


def finished_probs(boards_after: np.ndarray) -> np.ndarray:
    """(N, 5) exact probabilities for the mover (row 1) who has just borne off its last
    checker: a win, a gammon when the loser (row 0) has borne off none, a backgammon when
    it also has a checker on the bar or in the winner's home board (R17)."""
    loser = boards_after[:, 0].astype(np.int64)
    gammon = loser.sum(axis=1) == 15
    backgammon = gammon & (loser[:, 18:25].sum(axis=1) > 0)
    out = np.zeros((boards_after.shape[0], 5), dtype=np.float64)
    out[:, 0] = 1.0
    out[:, 1] = gammon
    out[:, 2] = backgammon
    return out


def opponent_probs(evaluator, boards_after: np.ndarray, stats: dict | None = None,
                   may_finish: np.ndarray | None = None, *, threads: int = 1) -> np.ndarray:
    """(M, 5) probabilities *for the opponent*, on roll after the mover's plays
    (*boards_after*: the mover still in row 1): the evaluator's where the game goes on,
    exact where the mover has borne off its last checker. *may_finish*, when given, is
    a (M,) bool mask outside which no play can have ended the game (it saves the check).
    The mover's equity of a play is minus the opponent's (cubeless equity is
    antisymmetric); its probabilities are :func:`flip` of these."""
    if may_finish is None:
        done = ~boards_after[:, 1].any(axis=1)
    elif may_finish.any():
        done = np.zeros(boards_after.shape[0], dtype=bool)
        sub = np.flatnonzero(may_finish)
        done[sub] = ~boards_after[sub, 1].any(axis=1)
    else:
        done = None
    if done is None or not done.any():
        return evaluate(evaluator, boards_after, stats, threads=threads, turned=True)
    out = np.empty((boards_after.shape[0], 5), dtype=np.float64)
    out[done] = flip(finished_probs(boards_after[done]))
    live = ~done
    if live.any():
        out[live] = evaluate(evaluator, boards_after[live], stats, threads=threads, turned=True)
    return out


class Afterstates:
    """The plays *boards_after* (M, 2, 25) (the mover still in row 1) scored for the
    mover without an (M, 5) copy of the evaluator's answers: ``equity`` (M,) is the
    mover's cubeless equity of each play (exact where it bears off the last checker,
    else minus the evaluator's equity for the opponent on roll), and
    :meth:`mover_probs` gathers the five probabilities of a few plays. The evaluator is
    called on chunks of at most EVAL_CHUNK positions; *may_finish* as in
    :func:`opponent_probs`."""

    def __init__(self, evaluator, boards_after: np.ndarray, stats: dict | None = None,
                 may_finish: np.ndarray | None = None, chunk: int = EVAL_CHUNK, *, threads: int = 1) -> None:
        m = boards_after.shape[0]
        self.boards = boards_after
        self.chunk = chunk
        done: np.ndarray
        if may_finish is None:
            done = np.logical_not(boards_after[:, 1].any(axis=1))
        elif may_finish.any():
            done = np.zeros(m, dtype=bool)
            sub = np.flatnonzero(may_finish)
            done[sub] = np.logical_not(boards_after[sub, 1].any(axis=1))
        else:
            done = np.zeros(0, dtype=bool)
        self.done: np.ndarray | None = done if done.any() else None
        self.live: np.ndarray = np.zeros(0, dtype=np.int64)
        if self.done is None:
            live_boards = boards_after
        else:
            self.live = np.flatnonzero(~done)
            live_boards = boards_after[self.live]
        n = live_boards.shape[0]
        self.parts = []
        eq = np.empty(n)
        for lo in range(0, n, chunk):
            arr = evaluate(evaluator, live_boards[lo : lo + chunk], stats, chunk, threads=threads, turned=True)
            self.parts.append(arr)
            eq[lo : lo + arr.shape[0]] = _weighted(arr)
        np.subtract(1.0, eq, out=eq)  # the mover's equity is minus the opponent's
        if self.done is None:
            self.equity = eq
        else:
            self.equity = np.empty(m)
            self.equity[self.live] = eq
            self.exact = finished_probs(boards_after[done])
            self.equity[done] = equity(self.exact)

    def mover_probs(self, index: np.ndarray) -> np.ndarray:
        """(k, 5) probabilities for the mover of the plays *index* (k,)."""
        index = np.asarray(index, dtype=np.int64)
        out = np.empty((index.shape[0], 5))
        pos: np.ndarray = index
        live: np.ndarray = np.ones(index.shape[0], dtype=bool)
        if self.done is not None:
            live = np.logical_not(self.done[index])
            out[~live] = self.exact[np.searchsorted(np.flatnonzero(self.done), index[~live])]
            pos = np.asarray(np.searchsorted(self.live, index[live]), dtype=np.int64)
        part, off = np.divmod(pos, self.chunk)
        got = np.empty((pos.shape[0], 5))
        for k in np.unique(part).tolist():
            sel = part == k
            got[sel] = self.parts[k][off[sel]]
        out[live] = flip(got)
        return out


def afterstate_probs(evaluator, boards_after: np.ndarray, stats: dict | None = None, *,
                     threads: int = 1) -> np.ndarray:
    """(M, 5) probabilities *for the mover* of the positions after its plays
    (*boards_after*: mover still in row 1): exact for a finished game, else the
    evaluator's value of the position with the opponent on roll, turned around."""
    return flip(opponent_probs(evaluator, boards_after, stats, threads=threads))


def group_best(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Index (global) of the largest value in each group ``offsets[i]:offsets[i+1]``
    (groups are never empty); ties go to the first."""
    starts = offsets[:-1]
    top = np.maximum.reduceat(values, starts)
    counts = np.diff(offsets)
    index = np.arange(values.shape[0], dtype=np.int64)
    marked = np.where(values == np.repeat(top, counts), index, values.shape[0])
    return np.minimum.reduceat(marked, starts)


# --------------------------------------------------------------------------- evaluators


class GnubgFallbackWarning(UserWarning):
    """``gnubg:0`` (or ``gnubg:1``) found no GNU Backgammon weights file to evaluate
    compiled and runs through gnubg-nn, one Python call a position (the message says
    where it looked)."""


def gnubg(plies: int = 0) -> "gnubg_nets.GnubgNetworks | gnubg_nets.GnubgLookahead | GnubgNNEvaluator":
    """GNU Backgammon's evaluation at *plies* (0 = the neural nets alone).

    GNU Backgammon's nets compiled (:func:`fastgen.nets.gnubg.load`: the weights file and
    bear-off databases of the user's gnubg or gnubg-nn install, evaluated in fastgen's
    core, equal to gnubg-nn; at 1 to 3 plies their
    :class:`~fastgen.nets.gnubg.GnubgLookahead`) whenever a weights file is found;
    otherwise, and at 4 plies, gnubg-nn (:func:`gnubg_nn`), with a one-line notice when
    the weights were not found. Its name is ``gnubg:N`` either way.
    """
    plies = check_int(plies, "plies", 0, 4)
    if plies <= gnubg_nets.MAX_PLIES:
        try:
            return gnubg_nets.load().at_ply(plies)
        except GnubgWeightsNotFoundError as exc:
            warnings.warn(f"gnubg:{plies} runs through gnubg-nn, one call a position: {exc}", GnubgFallbackWarning,
                          stacklevel=2)
    ev = gnubg_nn(plies)
    ev.name = f"gnubg:{plies}"
    return ev


def gnubg_nn(plies: int = 0) -> "GnubgNNEvaluator":
    """GNU Backgammon's evaluation at *plies* (0 = the neural nets alone) via the
    ``gnubg-nn`` package, one ``gnubg_nn.probabilities(board, plies)`` call a position
    (a few us at 0 ply); gnubg-nn caches evaluations, so positions seen before cost less.
    Its race net, contact nets and bear-off databases are used as gnubg classifies the
    position. Needs the ``peers`` extra (``pip install "fastgen-backgammon[peers]"``).
    """
    plies = check_int(plies, "plies", 0, 4)
    try:
        import gnubg_nn as module  # lazy: the optional peers extra
    except ImportError as exc:
        raise ImportError(f"evaluators.gnubg_nn needs gnubg-nn: {install_hint('peers')}") from exc
    return GnubgNNEvaluator(plies, module)


class GnubgNNEvaluator(Evaluator):
    """GNU Backgammon's evaluation at *plies* through gnubg-nn (see :func:`gnubg`)."""

    trusted = True

    def __init__(self, plies: int, module: Any) -> None:
        self.plies = plies
        self.module = module
        self.name = f"gnubg-nn:{plies}"

    def evaluate(self, boards: np.ndarray, *, threads: int = 1) -> np.ndarray:
        probabilities = self.module.probabilities
        plies = self.plies
        return np.array([probabilities(b, plies) for b in boards.tolist()], dtype=np.float64)

    def __reduce__(self) -> Any:
        return (_gnubg_nn_named, (self.plies, self.name))


def _gnubg_nn_named(plies: int, name: str) -> "GnubgNNEvaluator":
    ev = gnubg_nn(plies)
    ev.name = name
    return ev


class BearoffEvaluator(Evaluator):
    """The bear-off databases as an evaluator (see :func:`bearoff`)."""

    trusted = True
    classes = ("bearoff",)

    def __init__(self, databases: tuple) -> None:
        self.databases = databases
        bearoff_covered(np.zeros((0, 2, 25), dtype=np.int8), *databases)  # checks the databases
        self.name = "bearoff"

    def covers(self, boards: np.ndarray) -> np.ndarray:
        """(N,) bool: the boards one of the databases holds."""
        return bearoff_covered(boards, *self.databases)

    def evaluate(self, boards: np.ndarray, *, threads: int = 1) -> np.ndarray:
        return bearoff_evaluate(boards, *self.databases)


def bearoff(*databases: Any) -> BearoffEvaluator:
    """An evaluator over bear-off databases (:mod:`fastgen.bearoff`: built with
    ``build_one_sided``/``build_two_sided`` or read with ``read_gnubg``): exact where a
    two-sided database holds the position, the one-sided databases' numbers elsewhere
    they cover; it raises for a position none holds, so use it through :func:`chain`,
    whose ``covers`` it provides: ``chain(bearoff(db), gnubg(0))``."""
    return BearoffEvaluator(databases)


def chain(*evaluators: Any) -> "ChainEvaluator":
    """The first evaluator that covers each position: every one but the last must have a
    ``covers(boards) -> (N,) bool`` method (e.g. an exact database); the last takes the
    rest. Each evaluator is called once per batch, on its share of the positions. The
    chain has a ``covers(boards)`` method too: the positions one of its evaluators with a
    ``covers`` method takes (what :func:`fastgen.rollout_plays`'s *truncate_bearoff*
    scores and stops at)."""
    if len(evaluators) < 1:
        raise InvalidArgumentError(f"chain needs one or more evaluators, got {evaluators!r}")
    members = tuple(as_evaluator(e, f"chain's evaluator {e!r}") for e in evaluators)
    for e in members[:-1]:
        if not callable(getattr(e, "covers", None)):
            raise InvalidArgumentError(f"every evaluator of a chain but the last needs a covers(boards) method: "
                                       f"{evaluators[members.index(e)]!r}")
    return ChainEvaluator(members)


class ChainEvaluator(Evaluator):
    """The first evaluator that covers each position (see :func:`chain`)."""

    trusted = True  # each member's answers are checked as that member's (evaluate)

    def __init__(self, members: tuple[Evaluator, ...]) -> None:
        self.members = members
        self.covering: list[Any] = [getattr(e, "covers") for e in members if callable(getattr(e, "covers", None))]
        self.ordered = all(e.ordered for e in members)  # type: ignore[misc]
        self.name = "chain(" + ", ".join(e.name for e in members) + ")"
        self.classes = tuple(c for c in ALL_CLASSES if any(c in e.classes for e in members))

    def evaluate(self, boards: np.ndarray, *, threads: int = 1) -> np.ndarray:
        out = np.empty((boards.shape[0], 5), dtype=np.float64)
        left = np.arange(boards.shape[0])
        last = self.members[-1]
        for e in self.members:
            if left.size == 0:
                break
            sub = boards[left]
            if e is last:
                take = np.ones(left.size, dtype=bool)
            else:
                take = np.asarray(e.covers(sub), dtype=bool)  # type: ignore[attr-defined]
            if take.any():
                out[left[take]] = evaluate(e, np.ascontiguousarray(sub[take]), threads=threads)
            left = left[~take]
        return out

    def covers(self, boards: np.ndarray) -> np.ndarray:
        """(N,) bool: the boards one of the chain's covering evaluators (e.g. an exact
        database) takes; the fallback covers nothing here unless it has its own ``covers``."""
        mask = np.zeros(boards.shape[0], dtype=bool)
        for covers in self.covering:
            mask |= np.asarray(covers(boards), dtype=bool)
        return mask


def constant(probs: Sequence[float] = (0.5, 0.15, 0.01, 0.15, 0.01)) -> "ConstantEvaluator":
    """The same five probabilities for every position: no cost, for timing the rest."""
    row = np.asarray(probs, dtype=np.float64)
    if row.shape != (5,) or not np.isfinite(row).all():
        raise InvalidArgumentError(f"constant needs five finite probabilities, got {probs!r}")
    return ConstantEvaluator(row)


class ConstantEvaluator(Evaluator):
    """The same five probabilities for every position (see :func:`constant`)."""

    def __init__(self, row: np.ndarray) -> None:
        self.row = row
        self.name = "constant"

    def evaluate(self, boards: np.ndarray, *, threads: int = 1) -> np.ndarray:
        out = np.empty((boards.shape[0], 5))
        out[:] = self.row
        return out


def sigmoid(x: np.ndarray) -> np.ndarray:
    """``1 / (1 + exp(-x))`` in the dtype of *x*, with *x* clipped to [-40, 40] first
    (no overflow; beyond that the value is 0 or 1 to float32 precision anyway)."""
    return 1.0 / (1.0 + np.exp(-np.clip(x, -40.0, 40.0)))


#: Where a network's outputs go among the evaluator's five: five outputs are the five
#: probabilities; three are P(win), P(win gammon), P(lose gammon) (no backgammons).
_OUTPUT_COLUMNS = {5: [0, 1, 2, 3, 4], 3: [0, 1, 3]}


class ReferenceNetwork(Evaluator):
    """The reference implementation of a one hidden layer network's forward pass, in
    plain numpy, as an evaluator: kept for tests, the docs and comparing against.
    fastgen's players use the compiled :class:`fastgen.nets.Network`, which computes the
    same forward pass to float32 rounding; :meth:`compiled` gives it.

    Inputs: :func:`fastgen.encode` of each board under every scheme of *schemes*, side by
    side (``("tesauro198",)`` gives 198 inputs; ``("tesauro198", "raw")`` 250, the size
    of GNU Backgammon's contact net). The forward pass is
    ``sigmoid(sigmoid(x @ w1 + b1) @ w2 + b2)`` in float32 (:func:`sigmoid`). It has
    five outputs (the evaluator's five probabilities) or three: P(win), P(win gammon),
    P(lose gammon), as the network ``examples/td_bot.py`` trains; called as an evaluator,
    a three-output network answers 0 for both backgammons.

    A network is an evaluator: ``net(boards) -> (N, 5)``; :func:`greedy` of it is its
    player. :meth:`save` and :meth:`load` write and read its weights in an older ``.npz``
    layout (arrays ``w1, b1, w2, b2, schemes``); :func:`convert_network_file` turns such a
    file into the compiled network's layout (:mod:`fastgen.nets.files`), the one the spec
    grammar of :mod:`fastgen.players.specs` reads. :func:`baseline` is the network shipped
    with fastgen (a compiled one).

    >>> import fastgen
    >>> net = random_network(hidden=8, seed=0)
    >>> p = net(np.stack([fastgen.STARTING_BOARD] * 3))
    >>> p.shape, bool(((p > 0) & (p < 1)).all())
    ((3, 5), True)
    """

    #: The outputs are made consistent before they are answered (:meth:`probs`), so
    #: :func:`evaluate` checks them by every rule of :data:`PROB_RULES`.
    ordered = True
    trusted = True

    def __init__(self, w1: ArrayLike, b1: ArrayLike, w2: ArrayLike, b2: ArrayLike,
                 schemes: Sequence[str] = ("tesauro198",), name: str | None = None) -> None:
        if isinstance(schemes, str):
            schemes = (schemes,)
        self.schemes = tuple(schemes)
        width = sum(scheme_width(s) for s in self.schemes)
        self.w1 = np.ascontiguousarray(w1, dtype=np.float32)
        self.b1 = np.ascontiguousarray(b1, dtype=np.float32)
        self.w2 = np.ascontiguousarray(w2, dtype=np.float32)
        self.b2 = np.ascontiguousarray(b2, dtype=np.float32)
        hidden = self.w1.shape[1] if self.w1.ndim == 2 else -1
        outputs = self.w2.shape[1] if self.w2.ndim == 2 else -1
        if (self.w1.shape != (width, hidden) or self.b1.shape != (hidden,) or outputs not in _OUTPUT_COLUMNS
                or self.w2.shape != (hidden, outputs) or self.b2.shape != (outputs,)):
            raise InvalidArgumentError(
                f"network weights must be w1 ({width}, H), b1 (H,), w2 (H, K), b2 (K,) with K = 5 or 3 outputs "
                f"for schemes {self.schemes!r}, got {self.w1.shape}, {self.b1.shape}, {self.w2.shape}, {self.b2.shape}"
            )
        self.outputs = outputs
        self.name = name if name is not None else f"network({'+'.join(self.schemes)}, {hidden} hidden)"

    @property
    def hidden(self) -> int:
        """The number of hidden units."""
        return int(self.w1.shape[1])

    def features(self, boards: np.ndarray) -> np.ndarray:
        """(N, inputs) float32 inputs of (N, 2, 25) boards."""
        boards = np.ascontiguousarray(boards, dtype=np.int8)
        parts = [encode_trusted(boards, s) for s in self.schemes]
        return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1)

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(hidden activations (N, H), outputs (N, K)) of inputs *x* (N, inputs), float32."""
        hidden = sigmoid(x @ self.w1 + self.b1)
        return hidden, sigmoid(hidden @ self.w2 + self.b2)

    def probs(self, outputs: np.ndarray) -> np.ndarray:
        """The evaluator's (N, 5) probabilities of outputs (N, K) (0 where the network has
        no output: the backgammons of a three-output network), made consistent as GNU
        Backgammon makes its nets' outputs: the outputs are independent sigmoids, each in
        [0, 1] but not ordered, so each gammon is cut to its side's wins (``P(win gammon)
        <= P(win)``, ``P(lose gammon) <= 1 - P(win)``) and each backgammon to its side's
        gammons (:func:`fastgen.nets.probs.make_consistent`). A new array; *outputs* is
        left as it is."""
        out = np.zeros((outputs.shape[0], 5), dtype=outputs.dtype)
        out[:, _OUTPUT_COLUMNS[self.outputs]] = outputs
        return make_consistent(out)

    def equity(self, outputs: np.ndarray) -> np.ndarray:
        """(N,) cubeless equity of outputs (N, K) for the side on roll, in their dtype:
        ``2 win - 1 + win_gammon - lose_gammon`` (+ the backgammons with five outputs)."""
        if self.outputs == 3:
            return 2.0 * outputs[:, 0] - 1.0 + outputs[:, 1] - outputs[:, 2]
        return 2.0 * outputs[:, 0] - 1.0 + outputs[:, 1] + outputs[:, 2] - outputs[:, 3] - outputs[:, 4]

    def evaluate(self, boards: np.ndarray, *, threads: int = 1) -> np.ndarray:
        """(N, 5) probabilities of *boards* (numpy: *threads* is not used)."""
        return self.probs(self.forward(self.features(boards))[1])

    def choose(self, candidates: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """The network's greedy player (what :func:`greedy` of it plays): for each game,
        the index (relative to its range ``offsets[g]:offsets[g+1]``) of the play whose
        resulting position is worst for the opponent, ties to the first. A five-output
        network plays as :func:`greedy` does for any evaluator (float64 equity, a play that
        wins scored exactly). A three-output network plays as ``examples/td_bot.py``
        trained it to: every play, one that wins included, is scored by the network's
        raw outputs (not cut by :meth:`probs`), the cubeless equity in float32."""
        if self.outputs == 5:
            return _greedy_choose(self, candidates, offsets)
        offsets = np.asarray(offsets, dtype=np.int64)
        cand = np.ascontiguousarray(candidates, dtype=np.int8)
        opponent = self.equity(self.forward(self.features(cand[:, ::-1]))[1])
        return group_best(-opponent, offsets) - offsets[:-1]

    def compiled(self) -> CompiledNetwork:
        """The same network as a compiled :class:`fastgen.nets.Network`: the same weights,
        input schemes, outputs (5 or 3) and name, sigmoid hidden units. Its forward pass
        equals this one to float32 rounding (its answers are not bit for bit these, and
        its :meth:`~fastgen.nets.Network.digest` is its own). Weights the compiled network
        cannot run (``"contact"`` twice among the input schemes, a hidden layer wider than
        its limit, weights that are not finite) raise :class:`~fastgen.errors.InvalidNetworkError`
        (an :class:`~fastgen.errors.InvalidArgumentError`) naming the fault."""
        try:
            return CompiledNetwork([self.w1, self.w2], [self.b1, self.b2], inputs=self.schemes, name=self.name)
        except InvalidNetworkError as exc:
            raise InvalidNetworkError(f"{self.name} has no compiled equivalent: {exc}") from None

    def digest(self) -> str:
        """The SHA-256 (hex) of what the network computes: its input schemes and its
        float32 weights (shapes and bytes); the name is left out. Two networks with the
        same digest give the same outputs; what ``out=`` directories of rollouts record."""
        h = hashlib.sha256(b"fastgen-network/1\0")
        h.update("+".join(self.schemes).encode() + b"\0")
        for a in (self.w1, self.b1, self.w2, self.b2):
            h.update(repr(a.shape).encode() + b"\0")
            h.update(np.ascontiguousarray(a, dtype="<f4").tobytes())
        return h.hexdigest()

    def save(self, path: Any) -> None:
        """Write the weights and the input schemes as a compressed ``.npz`` file (a path
        or a binary file object); :meth:`load` reads it back. A path without the
        ``.npz`` suffix gets it (as numpy.savez_compressed does); a path is written
        whole or not at all (:func:`fastgen._util.atomic_write`)."""
        def write(file: Any) -> None:
            np.savez_compressed(file, w1=self.w1, b1=self.b1, w2=self.w2, b2=self.b2, schemes=np.array(self.schemes))

        if not isinstance(path, (str, os.PathLike)):
            write(path)
            return
        target = os.fspath(path)
        if not target.endswith(".npz"):
            target += ".npz"
        buf = io.BytesIO()
        write(buf)
        with atomic_write(target, "wb") as f:
            f.write(buf.getvalue())

    @classmethod
    def load(cls, source: Any, name: str | None = None) -> "ReferenceNetwork":
        """The network of an ``.npz`` file (a path or a binary file object) written by
        :meth:`save` (a file without ``schemes`` reads Tesauro's 198 inputs). A file that is
        not such a file (missing, not a regular file, larger than 512 MiB, truncated,
        damaged, or without the arrays) raises
        :class:`~fastgen.errors.InvalidArgumentError` naming it; it is read by
        :func:`fastgen.formats.checked.read_npz` (no pickles, sizes checked before anything is
        allocated)."""
        shown = repr(os.fspath(source)) if isinstance(source, (str, bytes, os.PathLike)) else repr(source)
        prefix = "cannot read the network file "
        what = f"{shown} is not a network weights file (.npz with w1, b1, w2, b2)"
        try:
            z = read_npz(source, "network file", InvalidArgumentError, network_files.LIMIT)
        except InvalidArgumentError as exc:
            text = str(exc)
            if text.startswith(f"{prefix}{shown}: "):  # the file is named once, in front
                text = text[len(prefix) + len(shown) + 2:]
            raise InvalidArgumentError(f"{what}: {text}") from None
        if "format" in z:  # fastgen.nets.files' layout: not this class's
            raise InvalidArgumentError(f"{shown} is a compiled network's file (fastgen.nets.files' layout), not one of "
                                       "the one hidden layer layout: read it with fastgen.nets.Network.load")
        missing = [k for k in ("w1", "b1", "w2", "b2") if k not in z]
        if missing:
            raise InvalidArgumentError(f"{what}: it has no array {', '.join(missing)} (it holds {sorted(z)[:12]!r})")
        schemes: tuple[str, ...] = ("tesauro198",)
        if "schemes" in z:
            s = z["schemes"]
            if s.ndim > 1 or s.dtype.kind != "U":
                raise InvalidArgumentError(f"{what}: its 'schemes' array must be a row of texts, got {s.dtype} of "
                                           f"shape {s.shape}")
            schemes = tuple(str(x) for x in np.atleast_1d(s))
        try:
            return cls(z["w1"], z["b1"], z["w2"], z["b2"], schemes, name=name)
        except InvalidArgumentError:
            raise
        except (TypeError, ValueError) as exc:  # an unknown scheme, weights that are not numbers
            raise InvalidArgumentError(f"{what}: {exc}") from None

    def __repr__(self) -> str:
        return f"<ReferenceNetwork {self.name}>"


def random_network(hidden: int = 128, schemes: Sequence[str] = ("tesauro198",), seed: int = 0,
                   outputs: int = 5) -> ReferenceNetwork:
    """A :class:`ReferenceNetwork` with random weights (normal, scaled by 1/sqrt(fan-in)) and
    *outputs* outputs (5 or 3)."""
    hidden = check_int(hidden, "hidden", 1)
    seed = check_int(seed, "seed", 0)
    if outputs not in _OUTPUT_COLUMNS:
        raise InvalidArgumentError(f"outputs must be 5 or 3, got {outputs!r}")
    width = sum(scheme_width(s) for s in schemes)
    rng = np.random.default_rng(seed)
    return ReferenceNetwork(
        rng.normal(0, 1 / np.sqrt(width), (width, hidden)), rng.normal(0, 0.1, hidden),
        rng.normal(0, 1 / np.sqrt(hidden), (hidden, outputs)), rng.normal(0, 0.1, outputs), schemes,
    )


def convert_network_file(src: Any, dst: Any) -> CompiledNetwork:
    """Convert the weights file *src*, in the older layout :meth:`ReferenceNetwork.save`
    writes (arrays ``w1, b1, w2, b2, schemes``), to the compiled network's layout
    (:mod:`fastgen.nets.files`) in *dst*, and return that network
    (:meth:`ReferenceNetwork.compiled`). *src* is read by :meth:`ReferenceNetwork.load`
    and *dst* written by :meth:`fastgen.nets.Network.save` (a path, given the ``.npz``
    suffix when it has none and written whole or not at all, or a binary file object).
    The command line does the same: ``fastgen convert-network OLD.npz NEW.npz``. A file
    that cannot be read, or weights the compiled network cannot run, raise
    :class:`~fastgen.errors.InvalidArgumentError` naming the fault."""
    net = ReferenceNetwork.load(src).compiled()
    net.save(dst)
    return net


def baseline() -> CompiledNetwork:
    """The network shipped with fastgen (package data ``fastgen/data/baseline.npz``), a
    compiled :class:`fastgen.nets.Network`: Tesauro's 198 inputs and fastgen's 22 contact
    features, 128 hidden units, GNU Backgammon's five outputs. It was trained from scratch
    by fastgen's own trainer (:func:`fastgen.train.td`, 4 million self-play games); its
    :attr:`~fastgen.nets.Network.about` gives its ``version`` and the ``recipe`` that
    rebuilds it. Its player is :func:`fastgen.players.policies.baseline`; see the training guide
    for its figures."""
    data = resources.files("fastgen").joinpath("data").joinpath("baseline.npz")
    try:
        raw = data.read_bytes()
    except FileNotFoundError:
        raise EngineError("the baseline network is not shipped with this build of fastgen") from None
    return CompiledNetwork.load(io.BytesIO(raw), name="baseline")


def onnx(path: Any, inputs: Sequence[str] = ("tesauro198",), *, threads: int = 1) -> OnnxEvaluator:
    """An evaluator running the ONNX graph of the file *path* through onnxruntime (the
    ``onnx`` extra: ``pip install "fastgen-backgammon[onnx]"``): the boards are encoded with the
    input schemes *inputs* side by side (``("tesauro198",)``: 198 inputs), the graph's
    (N, 5) output is made consistent and answered as float32 probabilities; onnxruntime
    uses *threads* threads. Any graph works, not only the multilayer perceptrons
    :func:`fastgen.nets.onnx_io.read_mlp` reads. It pickles as the model's bytes (so it
    can go to Dask workers) and its ``digest()`` identifies it in resumable rollouts.
    See :class:`fastgen.nets.onnx_io.OnnxEvaluator`."""
    return OnnxEvaluator(path, inputs, threads=threads)


# --------------------------------------------------------------------------- the player


def _greedy_choose(evaluator: Any, candidates: np.ndarray, offsets: np.ndarray, threads: int = 1) -> np.ndarray:
    """:func:`greedy`'s choice for any evaluator (see there)."""
    cand = np.ascontiguousarray(candidates, dtype=np.int8)
    offsets = np.asarray(offsets, dtype=np.int64)
    values = -equity(opponent_probs(evaluator, cand, threads=threads))
    return group_best(values, offsets) - offsets[:-1]


class GreedyPolicy(Policy):
    """The 0-ply player of an evaluator (see :func:`greedy`). Called as a function,
    ``policy(candidates, offsets)``, it chooses as :meth:`choose` does."""

    def __init__(self, evaluator: Evaluator | CompiledNetwork | gnubg_nets.GnubgNetworks, name: str | None = None) -> None:
        self.evaluator = evaluator
        self.name = name or f"greedy({evaluator.name})"

    def choose(self, candidates: np.ndarray, offsets: np.ndarray, turn: Turn | None = None) -> np.ndarray:
        threads = 1 if turn is None else turn.threads
        ev = self.evaluator
        if isinstance(ev, CompiledNetwork):
            return ev.choose(candidates, offsets, threads=threads)
        if isinstance(ev, ReferenceNetwork):
            return ev.choose(candidates, offsets)
        return _greedy_choose(ev, candidates, offsets, threads)

    @property
    def native(self) -> Any:
        """A compiled network or gnubg's compiled nets: the game loops play its greedy
        games whole in the core."""
        ev = self.evaluator
        return ev if isinstance(ev, (CompiledNetwork, gnubg_nets.GnubgNetworks)) else None

    @property
    def network(self) -> Any:
        """The compiled network whose greedy play this is (None for any other evaluator)."""
        ev = self.evaluator
        return ev if isinstance(ev, CompiledNetwork) else None

    def __call__(self, candidates: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        return self.choose(candidates, offsets)

    def __reduce__(self) -> Any:
        return (GreedyPolicy, (self.evaluator, self.name))


def greedy(evaluator: Any) -> GreedyPolicy:
    """The 0-ply player of *evaluator*: for each position, the play whose resulting
    position is best for the mover (cubeless equity; a play that wins is scored exactly),
    ties to the first play in generation order.

    The result is a :class:`~fastgen.players.base.Policy`; called as a function,
    ``f(candidate_boards (M, 2, 25), offsets (G+1,)) -> (G,)`` indices relative to each
    game's range, as :func:`fastgen.rollout` takes. Of a compiled
    :class:`fastgen.nets.Network` (or a :class:`ReferenceNetwork`) it is the network's own
    player, its ``choose``. A policy given for *evaluator* raises
    :class:`~fastgen.errors.InvalidArgumentError`.

    >>> import fastgen
    >>> r = fastgen.rollout(games=4, policy=greedy(random_network(hidden=4)), seed=1)
    >>> r.games
    4
    """
    return GreedyPolicy(as_evaluator(evaluator, f"greedy's evaluator {evaluator!r}"))
