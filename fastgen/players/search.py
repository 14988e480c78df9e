"""Choosing a play by looking ahead, as GNU Backgammon does: move filters and the search.

A play is first judged at 0 ply (the position after it, the opponent on roll, by the
evaluator's nets); a :class:`MoveFilter` keeps the most promising; those are judged
again deeper, filtered again, and the survivors judged at the search's full depth. The
filters are GNU Backgammon's (its manual, "Move filters"; the settings its 1.07 program
prints for ``show evaluation`` and ``show analysis``): keep the first *keep* plays and up
to *extra* more within *margin* of the best, at each ply, or skip a ply.

- :class:`Search` holds the depth and a filter for each ply below it;
  :meth:`Search.gnubg` gives GNU Backgammon's defaults (its ``hint`` and its players;
  ``analysis=True``: its analysis, wider).
- :meth:`Search.rank` drives the filters over any way of scoring plays at a ply.
- :class:`SearchPolicy` is the player: the play of highest equity at the search's depth
  for the mover (cubeless), for duels, rollouts and the environments' opponents. Its
  evaluator is an evaluator that can be looked through at each ply (``at_ply(k)``): GNU
  Backgammon's compiled nets (:meth:`fastgen.nets.gnubg.GnubgNetworks.at_ply`), fastgen's
  compiled networks (:meth:`fastgen.nets.Network.at_ply`), or any other evaluator through
  :class:`PlainLookahead` (numpy).

>>> Search.gnubg(2)
Search(plies=2, filters=(MoveFilter(keep=0, extra=8, margin=0.16), None))
>>> MoveFilter(keep=0, extra=2, margin=0.1).select(np.array([0.3, 0.5, 0.45, 0.1])).tolist()
[1, 2]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from fastgen.errors import InvalidArgumentError
from fastgen.nets.lookahead import CompiledLookahead
from fastgen.players import evaluators
from fastgen.core.boards import DISTINCT_ROLLS, ROLL_CHANCES
from fastgen.core.generate import plays_batch
from fastgen.players.base import Evaluator, Policy, Turn

__all__ = ["MoveFilter", "PlainLookahead", "Search", "SearchPolicy", "depth_of", "searched"]

#: The deepest search (GNU Backgammon's nets are compiled to 3 plies).
MAX_PLIES = 3


def _count(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise InvalidArgumentError(f"a move filter's {name} must be a whole number >= 0, got {value!r}")
    return int(value)


@dataclass(frozen=True)
class MoveFilter:
    """Keep the first *keep* plays (best first) and up to *extra* more whose equity is
    within *margin* of the best. With ``keep=0`` the best is always kept (it is within
    any margin of itself), so at most *extra* plays go on."""

    keep: int = 0
    extra: int = 8
    margin: float = 0.16

    def __post_init__(self) -> None:
        _count(self.keep, "keep")
        _count(self.extra, "extra")
        m = self.margin
        if isinstance(m, bool) or not isinstance(m, (int, float, np.floating)) or not 0 <= m < float("inf"):
            raise InvalidArgumentError(f"a move filter's margin must be a finite number >= 0, got {m!r}")
        if self.keep + self.extra == 0:
            raise InvalidArgumentError("a move filter must keep at least one play (keep + extra >= 1)")

    def select(self, equity: np.ndarray) -> np.ndarray:
        """Indices into *equity* (the mover's, one a play) of the plays kept, best first
        (equal equities in their given order)."""
        eq = np.asarray(equity, dtype=np.float64)
        order = np.argsort(-eq, kind="stable")
        first = order[:self.keep]
        rest = order[self.keep:]
        if rest.size == 0 or self.extra == 0:
            return first
        best = eq[order[0]]
        near = rest[eq[rest] >= best - self.margin][:self.extra]
        return np.concatenate([first, near])


#: GNU Backgammon's move filters (1.07's ``show evaluation``: its hint and players), by
#: depth: after 0 ply up to 8 plays within 0.16; 1 ply skipped at 2 and 3 plies; after 2
#: plies (at 3) up to 2 within 0.04.
_NORMAL = MoveFilter(0, 8, 0.16)
_NORMAL_2 = MoveFilter(0, 2, 0.04)
#: Its analysis' (``show analysis``): 16 within 0.32, then 4 within 0.08.
_WIDE = MoveFilter(0, 16, 0.32)
_WIDE_2 = MoveFilter(0, 4, 0.08)


def _gnubg_filters(plies: int, analysis: bool) -> tuple[MoveFilter | None, ...]:
    first, third = (_WIDE, _WIDE_2) if analysis else (_NORMAL, _NORMAL_2)
    return ((), (first,), (first, None), (first, None, third))[plies]


@dataclass(frozen=True)
class Search:
    """A depth (*plies*, 0 to 3) and the move filter after each ply below it
    (``filters[k]`` judges the plays valued at *k* plies; None skips ply *k*: the plays
    go on unfiltered and are not valued there; ``filters[0]`` may not be None). Without
    *filters*, GNU Backgammon's defaults for the depth (:meth:`gnubg`)."""

    plies: int = 2
    filters: tuple[MoveFilter | None, ...] | None = None

    def __post_init__(self) -> None:
        p = self.plies
        if isinstance(p, bool) or not isinstance(p, (int, np.integer)) or not 0 <= p <= MAX_PLIES:
            raise InvalidArgumentError(f"a search's plies must be 0 to {MAX_PLIES}, got {p!r}")
        object.__setattr__(self, "plies", int(p))
        filters = _gnubg_filters(int(p), False) if self.filters is None else self.filters
        if not isinstance(filters, (tuple, list)) or len(filters) != p:
            raise InvalidArgumentError(f"a search of {p} plies takes {p} move filters (one a ply below it), "
                                       f"got {filters!r}")
        for k, f in enumerate(filters):
            if not (isinstance(f, MoveFilter) or (f is None and k > 0)):
                raise InvalidArgumentError(f"filter {k} of a search must be a MoveFilter"
                                           f"{'' if k == 0 else ' or None'}, got {f!r}")
        object.__setattr__(self, "filters", tuple(filters))

    @classmethod
    def gnubg(cls, plies: int, *, analysis: bool = False) -> "Search":
        """GNU Backgammon's search at *plies*: its hint's and players' move filters, or
        with *analysis* its analysis' (16 plays within 0.32 after 0 ply, 4 within 0.08
        after 2)."""
        if not isinstance(analysis, bool):
            raise InvalidArgumentError(f"analysis must be True or False, got {analysis!r}")
        if isinstance(plies, bool) or not isinstance(plies, (int, np.integer)) or not 0 <= plies <= MAX_PLIES:
            raise InvalidArgumentError(f"a search's plies must be 0 to {MAX_PLIES}, got {plies!r}")
        return cls(int(plies), _gnubg_filters(int(plies), analysis))

    def rank(self, score: Callable[[int, np.ndarray], np.ndarray], n: int,
             keep: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Run the filters over *n* plays: ``score(k, rows)`` gives the mover's equity of
        plays *rows* (indices) at *k* plies. Returns each play's last equity and the ply it
        was valued at (the plays that passed every filter: :attr:`plies`). A filter that
        leaves a single play has chosen it: it is not valued deeper (as GNU Backgammon's
        hint lists such a play at the ply it was filtered at). *keep*: a play that passes
        every filter whatever its value (an analysis keeps the play made, so that it is
        judged at the depth of the best)."""
        equity = np.zeros(n)
        ply = np.zeros(n, dtype=np.int64)
        if n == 0:
            return equity, ply
        alive = np.arange(n)
        equity[:] = score(0, alive)
        for k, f in enumerate(self.filters or ()):
            if f is None:
                continue
            if k > 0:
                equity[alive] = score(k, alive)
                ply[alive] = k
            alive = alive[f.select(equity[alive])]
            if keep is not None and not (alive == keep).any():
                alive = np.append(alive, keep)
            if alive.size == 1:  # a filter leaving one play has chosen it: no look deeper
                return equity, ply
        if self.plies > 0:
            equity[alive] = score(self.plies, alive)
            ply[alive] = self.plies
        return equity, ply

    @staticmethod
    def order(equity: np.ndarray, ply: np.ndarray) -> np.ndarray:
        """The plays best first as GNU Backgammon lists them: those valued deepest first,
        each group by equity (equal equities in their given order)."""
        return np.lexsort((-np.asarray(equity), -np.asarray(ply)))


def searched(evaluator: Any, plies: int) -> Any:
    """*evaluator* looked through at *plies*: its own ``at_ply`` (compiled: GNU Backgammon's
    nets, fastgen's networks, with the search's options such as pruning; the evaluator
    itself at 0), else :class:`PlainLookahead`."""
    base = evaluator if isinstance(evaluator, CompiledLookahead) else \
        evaluator.nets if depth_of(evaluator) else evaluator
    at_ply = getattr(base, "at_ply", None)
    if at_ply is not None:
        return at_ply(plies)
    return base if plies == 0 else PlainLookahead(base, plies)


def depth_of(evaluator: Any) -> int:
    """How many plies *evaluator* looks ahead when it is an evaluator searched ply by ply
    (GNU Backgammon's compiled nets at ``gnubg:N``, a network at ``NAME:N``, a
    :class:`PlainLookahead`; its 0-ply evaluator is its ``nets``), else 0."""
    if isinstance(evaluator, (CompiledLookahead, PlainLookahead)):
        return evaluator.plies
    return 0


class PlainLookahead(Evaluator):
    """Any evaluator at 1 to :data:`MAX_PLIES` plies, in numpy: for the side on roll, each
    of the 21 rolls played as the evaluator plays it at 0 ply (the best play for the mover
    by cubeless equity, exact where it bears off the last checker, ties to the first), the
    kept play's position valued one ply shallower with the opponent on roll, averaged
    over the 36 dice: what the compiled look ahead of fastgen's networks
    (:class:`fastgen.nets.lookahead.NetworkLookahead`) and GNU Backgammon's nets compute,
    for evaluators that are not compiled (a numpy network, an ONNX graph, a user's
    function). Each ply multiplies the evaluator's calls by some four hundred."""

    distinct_only = True

    def __init__(self, evaluator: Any, plies: int) -> None:
        if isinstance(plies, bool) or not isinstance(plies, int) or not 1 <= plies <= MAX_PLIES:
            raise InvalidArgumentError(f"an evaluator looks 1 to {MAX_PLIES} plies ahead, got plies={plies!r}")
        self.nets = evaluator
        self.plies = plies
        self.name = f"{getattr(evaluator, 'name', 'evaluator')}:{plies}"
        self.classes = getattr(evaluator, "classes", Evaluator.classes)

    def evaluate(self, boards: np.ndarray, *, threads: int = 1, turned: bool = False) -> np.ndarray:
        arr = np.ascontiguousarray(boards, dtype=np.int8)
        if turned:
            arr = np.ascontiguousarray(arr[:, ::-1])
        n = arr.shape[0]
        out = np.zeros((n, 5))
        over = ~(arr[:, 0].any(axis=1) & arr[:, 1].any(axis=1))  # a finished board keeps its 0-ply value
        if over.any():
            out[over] = evaluators.evaluate(self.nets, arr[over], threads=threads)
        live = np.flatnonzero(~over)
        if live.size == 0:
            return out
        rolls = DISTINCT_ROLLS.shape[0]
        batch = plays_batch(np.repeat(arr[live], rolls, axis=0), np.tile(DISTINCT_ROLLS, (live.size, 1)),
                            threads=threads)
        after = np.asarray(batch.boards)
        offsets = np.asarray(batch.offsets, dtype=np.int64)
        theirs = evaluators.opponent_probs(self.nets, after, threads=threads)
        best = evaluators.group_best(-evaluators.equity(theirs), offsets)  # the mover's best play a roll
        kept = after[best]
        if self.plies > 1:
            going = kept[:, 1].any(axis=1)  # the others bore off their last checker: exact already
            if going.any():
                deeper = PlainLookahead(self.nets, self.plies - 1)
                theirs[best[going]] = deeper.evaluate(kept[going], threads=threads, turned=True)
        mine = evaluators.flip(theirs[best]).reshape(live.size, rolls, 5)
        out[live] = np.einsum("nrk,r->nk", mine, ROLL_CHANCES)
        return out


class SearchPolicy(Policy):
    """The play of highest cubeless equity for the mover after a :class:`Search` of
    *evaluator* (see the module docstring); ties to the first play in fastgen's order.
    Called as a function, ``policy(candidates, offsets)``, it chooses as :meth:`choose`
    does."""

    def __init__(self, evaluator: Any, search: Search, name: str | None = None) -> None:
        if not isinstance(search, Search):
            raise InvalidArgumentError(f"search must be a fastgen Search, got {search!r}")
        self.levels = [searched(evaluator, k) for k in range(search.plies + 1)]
        self.search = search
        self.name = name or f"{getattr(self.levels[0], 'name', 'evaluator')}:{search.plies}"

    @property
    def plies(self) -> int:
        """The search's depth."""
        return self.search.plies

    def choose(self, candidates: np.ndarray, offsets: np.ndarray, turn: Turn | None = None) -> np.ndarray:
        cand = np.ascontiguousarray(candidates, dtype=np.int8)
        offsets = np.asarray(offsets, dtype=np.int64)
        threads = 1 if turn is None else turn.threads
        picks = np.zeros(offsets.shape[0] - 1, dtype=np.int64)
        for g in range(offsets.shape[0] - 1):
            lo, hi = int(offsets[g]), int(offsets[g + 1])
            if hi - lo <= 1:
                continue
            rows = cand[lo:hi]

            def score(k: int, idx: np.ndarray, rows: np.ndarray = rows) -> np.ndarray:
                return -evaluators.equity(evaluators.opponent_probs(self.levels[k], rows[idx], threads=threads))

            equity, ply = self.search.rank(score, hi - lo)
            picks[g] = int(Search.order(equity, ply)[0])
        return picks

    def __call__(self, candidates: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        return self.choose(candidates, offsets)

    def __repr__(self) -> str:
        return f"<policy {self.name}: {self.search}>"
