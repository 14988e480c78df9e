"""Ready-made batch policies for :func:`fastgen.duel` and :func:`fastgen.rollout`.

* :func:`gnubg` -- GNU Backgammon's neural net through gnubg-nn's ``best_move`` (the
  ``peers`` extra), at 0 or more plies, in-process;
* :func:`baseline` -- the player of the network shipped with fastgen
  (:func:`fastgen.players.evaluators.greedy` of :func:`fastgen.players.evaluators.baseline`);
* :func:`lookahead` -- any evaluator's player looking 1 to 3 plies ahead: each play judged
  by the average, over the opponent's 21 rolls, of the position after the opponent's
  best reply (and so on, deeper);
* :func:`cube_policy` -- a player with the cube: any evaluator's greedy chequer play
  and its 0-ply cube decisions (:mod:`fastgen.cube`), for ``duel(..., cube=True)``;
* the built-in ``"random"`` and ``"pubeval"`` and the adapter of any batch policy, as
  the game loops of :func:`fastgen.rollout` and :func:`fastgen.duel` call them.

A batch policy takes ``(candidates, offsets)`` (or ``(candidates, offsets, boards,
dice)`` when it has ``wants_position = True``) and returns one index per game, relative
to that game's candidates. Spec strings (``"baseline"``, ``"gnubg:1"``,
``"mybot:policy"`` ...) are read by :mod:`fastgen.players.specs`.
"""

from __future__ import annotations

from typing import Any, Callable, NoReturn

import numpy as np

from fastgen.core import _roll
from fastgen.players import _pubeval, evaluators
from fastgen._util import check_int, check_threads, install_hint
from fastgen.core.generate import legal_plays, plays_batch
from fastgen.core.notation import Play
from fastgen.core.state import MatchState
from fastgen.cube.decision import cube_decisions
from fastgen.cube.efficiency import efficiency_for
from fastgen.core.hashing import PURPOSE_CHOICE, game_hash, uniform_index
from fastgen.players.engines import _index_of
from fastgen.nets import gnubg as gnubg_nets
from fastgen.players.search import MoveFilter, Search, SearchPolicy
from fastgen.errors import EngineError, InvalidArgumentError
from fastgen.players.base import CubePlayer, Evaluator, Policy, Turn, as_evaluator, as_policy, read_only
from fastgen.players.evaluators import GreedyPolicy, greedy

__all__ = ["GnubgNN", "gnubg", "gnubg_nn", "baseline", "lookahead", "CubePolicy", "cube_policy"]


class GnubgNN(Policy):
    """GNU Backgammon's evaluation through gnubg-nn (``gnubg_nn.best_move``) at *plies*
    as a policy. Forced plays (a single candidate) are not evaluated; every answer must
    be one of the legal candidates (else :class:`~fastgen.errors.EngineError`). Called as
    a function, ``policy(candidates, offsets, boards, dice)``, it chooses as
    :meth:`choose` does."""

    wants_position = True

    def __init__(self, plies: int = 0) -> None:
        try:
            import gnubg_nn  # lazy: the optional peers extra
        except ImportError:
            raise EngineError(f"fastgen.players.policies.gnubg needs gnubg-nn: {install_hint('peers')}") from None
        self._nn = gnubg_nn
        self.plies = check_int(plies, "plies", 0, 3)
        self.name = f"gnubg-nn-{self.plies}ply"

    def choose_position(self, board: np.ndarray, d1: int, d2: int, candidates: np.ndarray) -> int:
        """The index among *candidates* (the plays of *board* with d1-d2, each with the
        mover in row 1) of gnubg-nn's best play."""
        if candidates.shape[0] <= 1:
            return 0
        _, key = self._nn.best_move(board.tolist(), d1, d2, n=self.plies, b=1)
        after = np.asarray(self._nn.board_from_position_key(key), dtype=np.int8)[::-1]  # mover back in row 1
        return _index_of(candidates, after, board, (d1, d2))

    def choose(self, candidates: np.ndarray, offsets: np.ndarray, turn: Turn) -> np.ndarray:
        return self(candidates, offsets, turn.boards, turn.dice)

    def __call__(self, candidates: np.ndarray, offsets: np.ndarray, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
        n = boards.shape[0]
        picks = np.zeros(n, dtype=np.int64)
        for g in range(n):
            lo, hi = int(offsets[g]), int(offsets[g + 1])
            picks[g] = self.choose_position(boards[g], int(dice[g, 0]), int(dice[g, 1]), candidates[lo:hi])
        return picks

    def __reduce__(self) -> Any:
        return (GnubgNN, (self.plies,))

    def __repr__(self) -> str:
        return f"<GnubgNN plies={self.plies}>"


def gnubg(plies: int = 0) -> Policy:
    """GNU Backgammon's play at *plies*, with its compiled nets whenever a weights file is
    found: at 0 ply their greedy player (:func:`fastgen.players.evaluators.gnubg`, whose
    ties go to the first play in fastgen's order), at 1 to 3 plies the search with GNU
    Backgammon's move filters (:class:`fastgen.players.search.SearchPolicy` of
    :meth:`Search.gnubg <fastgen.players.search.Search.gnubg>`: after 0 ply up to 8 plays
    within 0.16 go on). Without the weights, gnubg-nn's own choice (:func:`gnubg_nn`, its
    own filters), with a one-line notice.

    >>> import fastgen
    >>> r = fastgen.duel(gnubg(0), "random", 20, seed=1)  # doctest: +SKIP
    """
    plies = check_int(plies, "plies", 0, 3)
    ev = evaluators.gnubg(0)
    if isinstance(ev, gnubg_nets.GnubgNetworks):
        if plies == 0:
            return GreedyPolicy(ev, name="gnubg:0")
        return SearchPolicy(ev, Search.gnubg(plies), name=f"gnubg:{plies}")
    return GnubgNN(plies)


def gnubg_nn(plies: int = 0) -> GnubgNN:
    """gnubg-nn's own choice of play (``gnubg_nn.best_move``) at *plies*, one Python call
    a turn (the ``peers`` extra)."""
    return GnubgNN(plies)


def baseline() -> GreedyPolicy:
    """The player of the network shipped with fastgen (:func:`fastgen.players.evaluators.baseline`,
    package data ``fastgen/data/baseline.npz``), trained from scratch by fastgen's
    TD(lambda) trainer: :func:`fastgen.players.evaluators.greedy` of it, whose games the core
    plays whole. Its 1-ply version is ``lookahead(evaluators.baseline())``. See the
    training guide for how it was made and its duel figures.

    >>> import fastgen
    >>> fastgen.duel(baseline(), "random", 20, seed=1).games
    20
    """
    return GreedyPolicy(evaluators.baseline(), name="baseline")




def lookahead(evaluator: Any, plies: int = 1, *, keep: int = 8, margin: float = 0.16) -> Policy:
    """The player of *evaluator* (an evaluator, a compiled or numpy network) looking
    *plies* ahead (0 to 3), as a batch policy for :func:`fastgen.duel` and
    :func:`fastgen.rollout`: a :class:`~fastgen.players.search.SearchPolicy`.

    Each position's plays are first judged at 0 ply (the mover's cubeless equity of the
    position after the play, as :func:`~fastgen.players.evaluators.greedy` does); the best
    *keep* of them within *margin* (equity) of the best are judged again at *plies*: for
    each of the opponent's 21 rolls, the opponent's best reply by the evaluator at 0 ply,
    and the position after it valued one ply shallower; the play's value is the average
    over the rolls (doubles counting 1/36, the others 2/36). It takes the play of
    highest value, ties to the first. A play that ends the game is scored exactly and
    needs no reply. A compiled evaluator (fastgen's networks, GNU Backgammon's nets) is
    searched in the core; a numpy network by its compiled twin; any other evaluator by
    :class:`~fastgen.players.search.PlainLookahead`. ``plies=0`` gives
    :func:`~fastgen.players.evaluators.greedy` itself. A policy given for *evaluator*
    raises :class:`~fastgen.errors.InvalidArgumentError` naming both.

    >>> import fastgen
    >>> net = evaluators.random_network(hidden=8, seed=1)
    >>> fastgen.duel(lookahead(net), greedy(net), 4, seed=1).games
    4
    """
    evaluator = as_evaluator(evaluator, f"lookahead's evaluator {evaluator!r}")
    plies = check_int(plies, "plies", 0, 3)
    keep = check_int(keep, "keep", 1)
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not margin >= 0:
        raise InvalidArgumentError(f"margin must be a non-negative number, got {margin!r}")
    if plies == 0:
        return greedy(evaluator)
    name = f"lookahead({evaluator.name}, plies={plies})"
    if isinstance(evaluator, evaluators.ReferenceNetwork):
        evaluator = evaluator.compiled()
    search = Search(plies, (MoveFilter(0, keep, float(min(margin, 1e300))),) + (None,) * (plies - 1))
    return SearchPolicy(evaluator, search, name=name)


# --------------------------------------------------------------------------- the built-in policies
# and the step function the game loops of fastgen.rollout, fastgen.duel and the
# external-player server call: ``step(candidates, offsets, gid, turn, boards, dice) -> picks``.


class RandomPolicy(Policy):
    """Uniform choice over the distinct plays of each game, from the counter-based hash of
    ``(seed, game, turn)`` (:func:`fastgen.core.hashing.game_hash`); the game loops play it
    inside the core."""

    name = "random"

    def choose(self, candidates: np.ndarray, offsets: np.ndarray, turn: Turn) -> np.ndarray:
        counts = np.diff(offsets)
        h = game_hash(turn.seed, turn.games, turn.turns, PURPOSE_CHOICE)
        return uniform_index(h, counts).astype(np.int64)

    @property
    def native(self) -> Any:
        return "random"

    def chooser(self, seed: int) -> Any:
        """The same choice in compiled code (:class:`fastgen.core._roll.RandomChooser`)."""
        return _roll.RandomChooser(seed)


class PubevalPolicy(Policy):
    """Tesauro's pubeval, as GNU Backgammon's pubeval player chooses (see
    :func:`fastgen.players.pubeval.pubeval_best`): the highest score, race weights when the
    position before the move is a race, ties to the play GNU Backgammon's generator lists
    first; the game loops play it inside the core."""

    name = "pubeval"

    def choose(self, candidates: np.ndarray, offsets: np.ndarray, turn: Turn) -> np.ndarray:
        pick = np.empty(turn.boards.shape[0], dtype=np.int64)
        _pubeval.pubeval_pick(turn.boards, turn.dice, candidates, offsets, pick)
        return pick

    @property
    def native(self) -> Any:
        return "pubeval"

    def chooser(self, seed: int) -> Any:
        """The same choice in compiled code (:class:`fastgen.players._pubeval.PubevalChooser`)."""
        return _pubeval.PubevalChooser()


#: The policies named by one word, played inside the core.
BUILTIN: dict[str, Policy] = {"random": RandomPolicy(), "pubeval": PubevalPolicy()}


def step_function(policy: Policy, seed: int = 0, threads: int = 1) -> Any:
    """*policy* as the game loops call it: ``step(candidates, offsets, gid, turn, boards,
    dice)`` -> its :meth:`~fastgen.players.base.Policy.choose` with the :class:`Turn` of
    those arrays, the run's *seed* and *threads*. The step function carries the policy's
    ``__name__`` and, for a compiled network's greedy play, ``network``."""

    def step(candidates, offsets, gid, turn, boards, dice):
        return policy.choose(candidates, offsets, Turn(read_only(boards), read_only(dice), gid, turn, seed, threads))

    step.__name__ = policy.name
    step.policy = policy  # type: ignore[attr-defined]
    native = policy.native
    if native is not None and not isinstance(native, str):  # the greedy play of a compiled network
        step.network = native  # type: ignore[attr-defined]
    return step


def step_policy(fn: Any, seed: int = 0, threads: int = 1) -> Any:
    """The step function (:func:`step_function`) of a policy or a user's batch policy
    ``fn(candidates, offsets)`` (``fn(candidates, offsets, boards, dice)`` with
    ``wants_position = True``), every array handed over as a read-only view."""
    return step_function(as_policy(fn), seed, threads)


def as_picks(picked: Any, g: int, name: str) -> np.ndarray:
    """A policy's answer as (g,) int64 (the range of each index is checked in the core)."""
    if type(picked) is np.ndarray and picked.dtype == np.int64 and picked.shape == (g,):
        return np.ascontiguousarray(picked)
    try:
        idx = np.asarray(picked)
    except (TypeError, ValueError):
        idx = None
    if idx is None or idx.shape != (g,) or idx.dtype.kind not in "iu":
        raise InvalidArgumentError(f"policy {name!r} must return {g} integer indices, got {picked!r}")
    picks = np.ascontiguousarray(idx, dtype=np.int64)
    if idx.dtype.kind == "u":  # values past int64 wrap to negatives: make them -1
        picks[idx > np.iinfo(np.int64).max] = -1  # out of range anyway: the core names the game
    return picks


def pick_play(choose: Callable[..., Any], name: str, board: np.ndarray, dice: tuple[int, int], turn: int = 0) -> Play:
    """The legal play of one position (*board*, side on roll in row 1) and roll that the
    resolved policy *choose* (:func:`fastgen.players.specs.resolve_policy`'s, named *name*)
    picks, asked as the game loops ask it (game 0, turn *turn*); InvalidArgumentError
    when it answers an index that is not one of the plays."""
    arr = np.ascontiguousarray(board)
    d = np.array([dice], dtype=np.int8)
    batch = plays_batch(arr[None], d)
    picked = choose(batch.boards, batch.offsets, np.zeros(1, np.int64), np.array([turn]), arr[None], d)
    pick = int(as_picks(picked, 1, name)[0])
    if not 0 <= pick < batch.offsets[1]:
        raise InvalidArgumentError(f"policy {name!r} returned index {pick}, not one of the {int(batch.offsets[1])} "
                                   f"legal plays")
    after = batch.boards[pick]
    return next(p for p in legal_plays(arr, dice) if np.array_equal(p.board_after, after))


def raise_bad_pick(picked: Any, offsets: np.ndarray, i: int, name: str) -> NoReturn:
    """Raise InvalidArgumentError for game *i*, whose pick is out of its range."""
    counts = np.diff(offsets)
    raise InvalidArgumentError(
        f"policy {name!r} returned index {int(np.asarray(picked)[i])} for game {i} which has {int(counts[i])} plays"
    )




_MONEY_CENTRED = MatchState(on_roll=1)
_MONEY_OWNED = MatchState(cube_value=2, cube_owner=1, on_roll=1)


class CubePolicy(CubePlayer):
    """A player with the cube, for money games (``duel(a, b, games, cube=True)``) and
    matches (``duel(a, b, matches=N, match_length=L)``).

    The cube protocol, on batches of positions before the roll (side on roll in row 1):

    - ``offer(boards, owns, states=None)``: (N,) bool, whether the side on roll doubles;
      *owns* (N,) bool, True where it owns the cube (else the cube is centred); in a
      match, *states* gives each board's :class:`fastgen.MatchState` (score, cube,
      Crawford; ``on_roll`` the side on roll of the board);
    - ``accept(boards, owns, states=None)``: (N,) bool, whether this player takes the
      double offered by the side on roll of *boards* (*owns*: the doubler owned the
      cube; *states*: before the double, the doubler on roll);
    - ``chequer``: its batch policy for the plays.

    :func:`cube_policy` makes one from an evaluator; a subclass may decide otherwise.
    """

    def __init__(self, evaluator: Any, *, name: str | None = None, threads: int = 1) -> None:
        self.evaluator = evaluator = as_evaluator(evaluator, f"cube_policy's evaluator {evaluator!r}")
        self.threads = check_threads(threads)
        self.chequer = greedy(evaluator)
        self.name = name or f"cube({evaluator.name})"

    def _decisions(self, boards: np.ndarray, owns: Any, states: Any) -> tuple[np.ndarray, np.ndarray]:
        boards = np.ascontiguousarray(boards, dtype=np.int8)
        n = boards.shape[0]
        doubles = np.zeros(n, dtype=bool)
        takes = np.zeros(n, dtype=bool)
        if not n:
            return doubles, takes
        if states is None:  # money: the cube centred or the side on roll's
            owns = np.asarray(owns, dtype=bool)
            states = [_MONEY_OWNED if o else _MONEY_CENTRED for o in owns]
        elif len(states) != n:
            raise InvalidArgumentError(f"states must hold one MatchState a board: {len(states)} for {n} boards")
        probs = evaluators.evaluate(self.evaluator, boards, threads=self.threads)
        groups: dict[Any, list[int]] = {}
        for i, st in enumerate(states):
            groups.setdefault(st, []).append(i)
        for st, idx in groups.items():
            rows = np.asarray(idx)
            d = cube_decisions(boards[rows], probs[rows], st, efficiency=efficiency_for(self.evaluator, 0))
            doubles[rows] = d.doubles
            takes[rows] = d.takes
        return doubles, takes

    def offer(self, boards: np.ndarray, owns: Any, states: Any = None) -> np.ndarray:
        """Whether the side on roll of each board doubles (class docstring)."""
        return self._decisions(boards, owns, states)[0]

    def accept(self, boards: np.ndarray, owns: Any, states: Any = None) -> np.ndarray:
        """Whether this player takes the double of the side on roll of each board."""
        return self._decisions(boards, owns, states)[1]

    def __repr__(self) -> str:
        return f"<fastgen.players.policies.CubePolicy {self.name}>"


def cube_policy(evaluator: Any, *, name: str | None = None, threads: int = 1) -> CubePolicy:
    """*evaluator*'s player with the cube: its greedy chequer play, and the doubles and
    takes of its 0-ply cube decisions for money (:func:`fastgen.cube.cube_decisions`:
    Janowski's model with GNU Backgammon's cube life, no Jacoby rule). *threads*: the
    threads its evaluator is given for its cube decisions. See :class:`CubePolicy`.

    >>> import fastgen
    >>> fastgen.duel(cube_policy(fastgen.players.evaluators.baseline()), "baseline", 20, seed=1, cube=True).games
    20
    """
    return CubePolicy(evaluator, name=name, threads=threads)
