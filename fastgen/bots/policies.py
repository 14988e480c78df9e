"""Ready-made batch policies for :func:`fastgen.duel` and :func:`fastgen.rollout`.

* :func:`gnubg` -- GNU Backgammon's neural net through gnubg-nn's ``best_move`` (the
  ``peers`` extra), at 0 or more plies, in-process;
* :func:`from_spec` -- a policy from a short text, as the command line takes it:
  ``random``, ``pubeval``, ``gnubg`` / ``gnubg:N`` (gnubg-nn at N plies),
  ``gnubg-engine`` / ``gnubg-engine:N`` (the real GNU Backgammon program, see
  :class:`fastgen.bots.engines.GnubgEngine`), or ``module:callable``.

Each policy takes ``(candidates, offsets, boards, dice)`` (it has ``wants_position =
True``) and returns one index per game, relative to that game's candidates.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

import numpy as np

from fastgen.bots.engines import GnubgEngine, _index_of
from fastgen.errors import EngineError, InvalidArgumentError
from fastgen._util import check_int

__all__ = ["GnubgNN", "gnubg", "from_spec"]


class GnubgNN:
    """GNU Backgammon's evaluation through gnubg-nn (``gnubg_nn.best_move``) at *plies*
    as a batch policy. Forced plays (a single candidate) are not evaluated; every answer
    must be one of the legal candidates (else :class:`~fastgen.errors.EngineError`)."""

    wants_position = True

    def __init__(self, plies: int = 0) -> None:
        try:
            import gnubg_nn  # lazy: the optional peers extra
        except ImportError:
            raise EngineError("fastgen.bots.policies.gnubg needs gnubg-nn: pip install 'fastgen[peers]'") from None
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
    m = _SPEC.fullmatch(text)
    if m:
        plies = int(m.group(2) or 0)
        return gnubg(plies) if m.group(1) == "gnubg" else GnubgEngine(plies=plies)
    module, sep, attr = text.partition(":")
    if not sep or not module or not attr:
        raise InvalidArgumentError(
            f"policy {text!r}: expected random, pubeval, gnubg[:N], gnubg-engine[:N] or module:callable"
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
