"""Ready-made batch policies for :func:`fastgen.duel` and :func:`fastgen.rollout`.

* :func:`gnubg` -- GNU Backgammon's neural net through gnubg-nn's ``best_move`` (the
  ``peers`` extra), at 0 or more plies, in-process;
* :class:`TDNet` -- a one-hidden-layer network on Tesauro's 198 inputs (numpy only),
  as trained by ``examples/td_bot.py``; :func:`baseline` loads the shipped one;
* :func:`from_spec` -- a policy from a short text, as the command line takes it:
  ``random``, ``pubeval``, ``baseline``, ``gnubg`` / ``gnubg:N`` (gnubg-nn at N plies),
  ``gnubg-engine`` / ``gnubg-engine:N`` (the real GNU Backgammon program, see
  :class:`fastgen.engines.GnubgEngine`), or ``module:callable``.

Each policy takes ``(candidates, offsets, boards, dice)`` (it has ``wants_position =
True``) and returns one index per game, relative to that game's candidates.
"""

from __future__ import annotations

import importlib
import io
import os
import re
from importlib import resources
from typing import Any

import numpy as np

from fastgen.engines import GnubgEngine, _index_of
from fastgen.core.boards import swap_sides
from fastgen.core.features import encode
from fastgen.errors import EngineError, InvalidArgumentError
from fastgen._util import check_int

__all__ = ["GnubgNN", "gnubg", "TDNet", "baseline", "from_spec"]


class GnubgNN:
    """GNU Backgammon's evaluation through gnubg-nn (``gnubg_nn.best_move``) at *plies*
    as a batch policy. Forced plays (a single candidate) are not evaluated; every answer
    must be one of the legal candidates (else :class:`~fastgen.errors.EngineError`)."""

    wants_position = True

    def __init__(self, plies: int = 0) -> None:
        try:
            import gnubg_nn  # lazy: the optional peers extra
        except ImportError:
            raise EngineError("fastgen.policies.gnubg needs gnubg-nn: pip install 'fastgen[peers]'") from None
        self._nn = gnubg_nn
        self.plies = check_int(plies, "plies", 0, 3)
        self.name = self.__name__ = f"gnubg-nn-{self.plies}ply"

    def choose(self, board: np.ndarray, d1: int, d2: int, candidates: np.ndarray) -> int:
        """The index among *candidates* (the plays of *board* with d1-d2, each with the
        mover in row 1) of gnubg-nn's best play."""
        if candidates.shape[0] <= 1:
            return 0
        _, key = self._nn.best_move(board.tolist(), d1, d2, n=self.plies, b=1)
        after = np.asarray(self._nn.board_from_position_key(key), dtype=np.int8)[::-1]  # mover back in row 1
        return _index_of(candidates, after, board, (d1, d2))

    def __call__(self, candidates: np.ndarray, offsets: np.ndarray, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
        n = boards.shape[0]
        picks = np.zeros(n, dtype=np.int64)
        for g in range(n):
            lo, hi = int(offsets[g]), int(offsets[g + 1])
            picks[g] = self.choose(boards[g], int(dice[g, 0]), int(dice[g, 1]), candidates[lo:hi])
        return picks

    def __repr__(self) -> str:
        return f"<GnubgNN plies={self.plies}>"


def gnubg(plies: int = 0) -> GnubgNN:
    """GNU Backgammon's neural net (gnubg-nn, the ``peers`` extra) at *plies* as a policy.

    >>> import fastgen
    >>> r = fastgen.duel(gnubg(0), "random", 20, seed=1)  # doctest: +SKIP
    """
    return GnubgNN(plies)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -40.0, 40.0)))


class TDNet:
    """A network ``198 -> hidden (sigmoid) -> 3 (sigmoid)`` on Tesauro's inputs
    (``fastgen.encode(board, "tesauro198")``) of a position, from the side to roll's
    view: the chances that it wins, wins a gammon (or backgammon), loses a gammon (or
    backgammon). As a policy it plays the move whose resulting position is worst for the
    opponent, who rolls next (lowest cubeless equity ``2 win - 1 + win_g - lose_g``).

    Parameters
    ----------
    w1, b1, w2, b2:
        Weights (198, H), (H,), (H, 3), (3,); float32.
    """

    def __init__(self, w1: Any, b1: Any, w2: Any, b2: Any, name: str = "tdnet") -> None:
        arrays = [np.ascontiguousarray(x, dtype=np.float32) for x in (w1, b1, w2, b2)]
        w1, b1, w2, b2 = arrays
        h = w1.shape[1] if w1.ndim == 2 else -1
        if w1.shape != (198, h) or b1.shape != (h,) or w2.shape != (h, 3) or b2.shape != (3,):
            raise InvalidArgumentError(
                f"TDNet weights must be (198, H), (H,), (H, 3), (3,), got {[x.shape for x in arrays]!r}"
            )
        self.w1, self.b1, self.w2, self.b2 = w1, b1, w2, b2
        self.name = self.__name__ = name

    @classmethod
    def random(cls, hidden: int = 80, seed: int = 0) -> "TDNet":
        """Small random weights (an untrained network)."""
        rng = np.random.default_rng(seed)
        return cls(rng.normal(0, 0.1, (198, hidden)), np.zeros(hidden), rng.normal(0, 0.1, (hidden, 3)), np.zeros(3))

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(hidden activations, outputs) of features *x* (N, 198)."""
        h = _sigmoid(x @ self.w1 + self.b1)
        return h, _sigmoid(h @ self.w2 + self.b2)

    @staticmethod
    def equity(y: np.ndarray) -> np.ndarray:
        """Cubeless equity of outputs *y* (N, 3) for the side to roll."""
        return 2.0 * y[:, 0] - 1.0 + y[:, 1] - y[:, 2]

    def choose_from_features(self, features: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """For each game, the index (relative to its range) of the candidate whose
        features (each from the opponent's view) give the opponent the lowest equity."""
        e = self.equity(self.forward(features)[1])
        return _segment_argmin(e, offsets)

    def __call__(self, candidates: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """The batch policy of :func:`fastgen.rollout` / :func:`fastgen.duel`."""
        feats = encode(swap_sides(candidates), "tesauro198")
        return self.choose_from_features(feats, np.asarray(offsets))

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the weights as a compressed .npz file."""
        np.savez_compressed(path, w1=self.w1, b1=self.b1, w2=self.w2, b2=self.b2)

    @classmethod
    def load(cls, source: Any, name: str = "tdnet") -> "TDNet":
        """Weights from an .npz file (a path or a binary file object) written by :meth:`save`."""
        with np.load(source) as z:
            return cls(z["w1"], z["b1"], z["w2"], z["b2"], name=name)

    def __repr__(self) -> str:
        return f"<TDNet {self.name!r} hidden={self.w1.shape[1]}>"


def _segment_argmin(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per segment offsets[g]:offsets[g+1] of *values*, the index of its minimum (the
    first on ties), relative to the segment's start; every segment is non-empty."""
    starts = offsets[:-1]
    mins = np.minimum.reduceat(values, starts)
    seg = np.repeat(np.arange(starts.size), np.diff(offsets))
    hit = np.flatnonzero(values <= mins[seg])
    first = np.full(starts.size, -1, dtype=np.int64)
    first[seg[hit][::-1]] = hit[::-1]  # the first hit of each segment wins
    return first - starts


def baseline() -> TDNet:
    """The network shipped with fastgen (package data ``fastgen/data/baseline.npz``),
    trained from scratch by TD(lambda) self-play with ``examples/td_bot.py``; see
    docs/guides/duels.rst for how and for its duel figures."""
    data = resources.files("fastgen").joinpath("data").joinpath("baseline.npz")
    try:
        raw = data.read_bytes()
    except FileNotFoundError:
        raise EngineError("the baseline network is not shipped with this build of fastgen") from None
    return TDNet.load(io.BytesIO(raw), name="baseline")


_SPEC = re.compile(r"(gnubg|gnubg-engine)(?::([0-9]))?")


def from_spec(text: str) -> Any:
    """A policy from its command-line text (see the module docstring). A
    ``gnubg-engine`` policy starts a GNU Backgammon process: close it when done.

    >>> from_spec("pubeval")
    'pubeval'
    >>> from_spec("gnubg:1").plies  # doctest: +SKIP
    1
    """
    if not isinstance(text, str) or not text:
        raise InvalidArgumentError(f"a policy must be a non-empty text, got {text!r}")
    if text in ("random", "pubeval"):
        return text
    if text == "baseline":
        return baseline()
    m = _SPEC.fullmatch(text)
    if m:
        plies = int(m.group(2) or 0)
        return gnubg(plies) if m.group(1) == "gnubg" else GnubgEngine(plies=plies)
    module, sep, attr = text.partition(":")
    if not sep or not module or not attr:
        raise InvalidArgumentError(
            f"policy {text!r}: expected random, pubeval, baseline, gnubg[:N], gnubg-engine[:N] or module:callable"
        )
    try:
        obj: Any = importlib.import_module(module)
        for part in attr.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as exc:
        raise InvalidArgumentError(f"policy {text!r} cannot be loaded: {exc}") from None
    if not callable(obj):
        raise InvalidArgumentError(f"policy {text!r} is not callable: {obj!r}")
    return obj
