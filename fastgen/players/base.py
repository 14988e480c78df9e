"""The types of a player: an evaluator, a policy, a cube player, and the turn a policy is asked about.

Every front door (:func:`fastgen.rollout`, :func:`fastgen.duel`, :func:`fastgen.rollout_plays`,
the cube, the analysis, the command line) turns what it is given (a spec string of
:mod:`fastgen.players.specs` or an object) into one of these types once, with
:func:`fastgen.players.specs.evaluator`, :func:`~fastgen.players.specs.policy` or
:func:`~fastgen.players.specs.cube_player`; everything below trusts the result.

- An :class:`Evaluator` scores positions: ``evaluate(boards, *, threads=1)`` gives the
  (N, 5) probabilities of the side on roll (GNU Backgammon's five outputs: P(win),
  P(win gammon), P(win backgammon), P(lose gammon), P(lose backgammon)). It has a
  ``name``, a ``digest()`` of what it computes (None when it cannot say) and the
  ``classes`` of position it answers for.
- A :class:`Policy` chooses plays: ``choose(candidates, offsets, turn)`` gives one index
  per game, relative to that game's range ``offsets[g]:offsets[g+1]`` of *candidates*
  (the positions after each legal play, the mover still in row 1); *turn* is the
  :class:`Turn` (the positions before the play, the dice, the games and their turn
  numbers, the seed). A policy the compiled game loops can play with no Python a turn
  says so with :attr:`Policy.native`.
- A :class:`CubePlayer` adds the cube: ``offer`` and ``accept`` on batches of positions
  before the roll, and its ``chequer`` policy.

A user's plain callable is wrapped once (:class:`FunctionEvaluator`,
:class:`FunctionPolicy`), and only its answers are checked; fastgen's own players are
trusted (:attr:`Evaluator.trusted`).
"""

from __future__ import annotations

import abc
import inspect
from typing import Any, ClassVar

import numpy as np

from fastgen.errors import InvalidArgumentError
from fastgen.nets.gnubg import GnubgNetworks
from fastgen.nets.lookahead import CompiledLookahead
from fastgen.nets.network import Network as CompiledNetwork
from fastgen.nets.probs import check_answer

__all__ = ["Evaluator", "Policy", "CubePlayer", "Turn", "FunctionEvaluator", "FunctionPolicy", "ALL_CLASSES",
           "read_only", "as_evaluator", "as_policy"]

#: The classes of position an evaluator may answer for (``Evaluator.classes``).
ALL_CLASSES = ("contact", "race", "bearoff")


def read_only(arr: np.ndarray) -> np.ndarray:
    """A read-only view of *arr* (the array itself stays writable): what a user's policy
    or evaluator is handed, so that writing into it raises numpy's ValueError
    ("assignment destination is read-only") instead of changing the game."""
    view = arr.view()
    view.flags.writeable = False
    return view


class _Named:
    """A player's ``name``, also read and set as ``__name__``, as a function's is (what
    messages quote)."""

    name: str

    @property
    def __name__(self) -> str:
        """The name, as functions have one (what messages quote)."""
        return self.name

    @__name__.setter
    def __name__(self, value: str) -> None:
        self.name = value


class Evaluator(_Named, abc.ABC):
    """Scores positions: ``evaluate(boards (N, 2, 25) int8, *, threads=1) -> (N, 5)``
    probabilities of the side on roll (row 1), about to roll; *boards* is never a finished
    game and is read-only. A subclass sets :attr:`name` and implements :meth:`evaluate`;
    calling the evaluator, ``ev(boards)``, is ``ev.evaluate(boards)``.

    :class:`fastgen.nets.Network` is an evaluator (registered as one)."""

    #: The name it goes by in results and messages.
    name: str = "evaluator"
    #: Whether the five outputs keep the order rules (gammons within wins, backgammons
    #: within gammons); False for independent outputs, checked for range only.
    ordered: ClassVar[bool] = True
    #: Whether fastgen trusts its answers (fastgen's own evaluators); a user's evaluator
    #: has its answers checked (:func:`fastgen.nets.probs.check_probs`).
    trusted: ClassVar[bool] = False
    #: The classes of position it answers for (of :data:`ALL_CLASSES`).
    classes: tuple[str, ...] = ALL_CLASSES
    #: Whether :meth:`evaluate` runs compiled without the GIL (so threads can play
    #: batches side by side) and takes ``turned=True`` (boards read with their rows
    #: swapped): a compiled :class:`fastgen.nets.Network`, GNU Backgammon's compiled nets.
    nogil: ClassVar[bool] = False
    #: Whether a position costs it far more than finding equal boards does (GNU
    #: Backgammon's nets, any look-ahead): fastgen's searches and rollouts then ask it
    #: about each distinct position of a batch once (the plays of different rolls often
    #: lead to the same one). Its answer must depend on the position alone.
    distinct_only: ClassVar[bool] = False

    @abc.abstractmethod
    def evaluate(self, boards: np.ndarray, *, threads: int = 1) -> np.ndarray:
        """(N, 5) probabilities of the side on roll of each of *boards*."""

    def digest(self) -> str | None:
        """A digest (hex) of what it computes (equal digests, equal answers), or None."""
        return None

    def __call__(self, boards: np.ndarray) -> np.ndarray:
        return self.evaluate(boards)

    def __repr__(self) -> str:
        return f"<evaluator {self.name}>"


Evaluator.register(CompiledNetwork)
Evaluator.register(GnubgNetworks)
Evaluator.register(CompiledLookahead)


def runs_without_gil(evaluator: Any) -> bool:
    """Whether *evaluator* evaluates compiled without the GIL and reads turned boards
    (its ``nogil`` attribute)."""
    return bool(getattr(evaluator, "nogil", False))


class Turn:
    """What a policy is told about a turn of G games: ``boards`` (G, 2, 25) int8, the
    positions before the play (the mover in row 1); ``dice`` (G, 2) int8; ``games`` (G,)
    int64, each game's index; ``turns`` (G,) int64, its turn number (0 for the first
    play); ``seed``, the run's seed; ``threads``, the threads the run may use. The
    arrays are read-only views."""

    __slots__ = ("boards", "dice", "games", "turns", "seed", "threads")

    def __init__(self, boards: np.ndarray, dice: np.ndarray, games: np.ndarray, turns: np.ndarray, seed: int = 0,
                 threads: int = 1) -> None:
        self.boards = boards
        self.dice = dice
        self.games = games
        self.turns = turns
        self.seed = seed
        self.threads = threads

    def __repr__(self) -> str:
        return f"<Turn of {self.boards.shape[0]} games, seed {self.seed}>"


class Policy(_Named, abc.ABC):
    """Chooses plays: ``choose(candidates (M, 2, 25), offsets (G + 1,), turn: Turn) -> (G,)``
    indices, each relative to its game's range of *candidates*. A subclass sets
    :attr:`name` and implements :meth:`choose`."""

    #: The name it goes by in results and messages.
    name: str = "policy"

    @abc.abstractmethod
    def choose(self, candidates: np.ndarray, offsets: np.ndarray, turn: Turn) -> np.ndarray:
        """One index per game, relative to its range ``offsets[g]:offsets[g+1]``."""

    @property
    def native(self) -> Any:
        """Whether, and as what, the compiled game loops play it with no Python a turn: a
        compiled :class:`fastgen.nets.Network` or gnubg's compiled nets
        (:class:`fastgen.nets.gnubg.GnubgNetworks`; their greedy play), ``"random"`` or
        ``"pubeval"`` (the built-in policies' names); None when every turn calls
        :meth:`choose`. The loops call its :meth:`chooser`."""
        return None

    def chooser(self, seed: int) -> Any:
        """The native chooser the compiled game loops call for the games of *seed* (a
        ``fastgen.core._chooser.Chooser``: a C function and its state, one a thread), or
        None when only :meth:`choose` plays it. By default, the greedy play of the
        compiled nets :attr:`native` names (their ``chooser()``)."""
        native = self.native
        make = None if isinstance(native, str) else getattr(native, "chooser", None)
        return make() if callable(make) else None

    def close(self) -> None:
        """Release what the policy holds (a process, a socket); nothing by default."""

    def __repr__(self) -> str:
        return f"<policy {self.name}>"


class CubePlayer(_Named, abc.ABC):
    """A player with the cube, on batches of positions before the roll (side on roll in
    row 1): ``offer(boards, owns, states=None)`` (N,) bool, whether the side on roll
    doubles (*owns*: it owns the cube, else the cube is centred; *states*: each board's
    :class:`fastgen.MatchState` in a match); ``accept(boards, owns, states=None)`` (N,)
    bool, whether this player takes the double offered by the side on roll; ``chequer``,
    its :class:`Policy` for the plays."""

    name: str = "cube player"
    chequer: Policy

    @abc.abstractmethod
    def offer(self, boards: np.ndarray, owns: Any, states: Any = None) -> np.ndarray:
        """Whether the side on roll of each board doubles."""

    @abc.abstractmethod
    def accept(self, boards: np.ndarray, owns: Any, states: Any = None) -> np.ndarray:
        """Whether this player takes the double of the side on roll of each board."""

    def __repr__(self) -> str:
        return f"<cube player {self.name}>"


class FunctionEvaluator(Evaluator):
    """A user's evaluator callable ``f(boards) -> (N, 5)`` as an :class:`Evaluator`: it is
    handed read-only boards, and its answers are checked (shape, finite values in [0, 1],
    and the order rules unless its attribute ``ordered`` is false):
    :class:`~fastgen.errors.InvalidOutputError` naming it otherwise. A ``covers(boards)``
    method, a ``digest()`` and the attribute ``distinct_only`` of the callable are kept."""

    def __init__(self, fn: Any, name: str | None = None) -> None:
        self.fn = fn
        self.name = name or str(getattr(fn, "__name__", type(fn).__name__))
        self.ordered = bool(getattr(fn, "ordered", True))  # type: ignore[misc]
        self.distinct_only = bool(getattr(fn, "distinct_only", False))  # type: ignore[misc]
        covers = getattr(fn, "covers", None)
        if callable(covers):
            self.covers = covers

    def evaluate(self, boards: np.ndarray, *, threads: int = 1) -> np.ndarray:
        return check_answer(self.fn(read_only(boards)), boards, self.name, self.ordered)

    def digest(self) -> str | None:
        d = getattr(self.fn, "digest", None)
        return d() if callable(d) else None

    def __reduce__(self) -> Any:
        return (FunctionEvaluator, (self.fn, self.name))


class FunctionPolicy(Policy):
    """A user's batch policy ``f(candidates, offsets)`` (``f(candidates, offsets, boards,
    dice)`` when it has a true attribute ``wants_position``, as engines that need the
    position and the roll do) as a :class:`Policy`. Every array is handed over read-only;
    its answer is checked by the game loops (one integer index per game, in range)."""

    def __init__(self, fn: Any, name: str | None = None) -> None:
        self.fn = fn
        self.name = name or str(getattr(fn, "name", None) or getattr(fn, "__name__", None) or type(fn).__name__)
        self.wants_position = bool(getattr(fn, "wants_position", False))

    def choose(self, candidates: np.ndarray, offsets: np.ndarray, turn: Turn) -> np.ndarray:
        if self.wants_position:
            return self.fn(read_only(candidates), read_only(offsets), read_only(turn.boards), read_only(turn.dice))
        return self.fn(read_only(candidates), read_only(offsets))

    def close(self) -> None:
        close = getattr(self.fn, "close", None)
        if callable(close):
            close()

    def __reduce__(self) -> Any:
        return (FunctionPolicy, (self.fn, self.name))


def signature_binds(fn: Any, args: tuple[str, ...], *, unknown: bool) -> bool:
    """Whether the callable *fn* can be called with *args* positional arguments (their
    names only say what they are), by its signature; *unknown* when it has none to read
    (some builtins and compiled functions)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return unknown
    try:
        sig.bind(*args)
    except TypeError:
        return False
    return True


def _kind(obj: Any) -> str:
    """What *obj* is as a player, for messages."""
    if isinstance(obj, CubePlayer):
        return "a cube player"
    if isinstance(obj, Policy):
        return "a policy (it chooses plays)"
    return "an evaluator (it scores positions)"


def as_evaluator(obj: Any, what: str | None = None, error: type[Exception] = InvalidArgumentError) -> Evaluator:
    """*obj* as an :class:`Evaluator`: itself when it is one (a compiled
    :class:`fastgen.nets.Network` is one), a user's callable ``f(boards)`` wrapped in
    :class:`FunctionEvaluator`. A policy or a cube player, or a callable that cannot be
    called as ``f(boards)``, raises *error* naming what was wanted and what was given
    (*what*: how the message names it, ``evaluator <obj>`` by default)."""
    if isinstance(obj, Evaluator):
        return obj
    what = what or f"evaluator {obj!r}"
    if isinstance(obj, (Policy, CubePlayer)):
        raise error(f"{what} is {_kind(obj)} where an evaluator is wanted (it scores positions: "
                    f"f(boards) -> (N, 5) probabilities)")
    if not callable(obj):
        raise error(f"{what} must be a callable f(boards) -> (N, 5) probabilities")
    if not signature_binds(obj, ("boards",), unknown=True):  # a callable without a signature is trusted
        looks = "; it looks like a policy, f(candidates, offsets)" if signature_binds(
            obj, ("candidates", "offsets"), unknown=True) else ""
        raise error(f"{what} cannot be called as f(boards): its signature is {inspect.signature(obj)}{looks}")
    return FunctionEvaluator(obj)


def as_policy(obj: Any, what: str | None = None, error: type[Exception] = InvalidArgumentError) -> Policy:
    """*obj* as a :class:`Policy`: itself when it is one, a user's callable ``f(candidates,
    offsets)`` (``f(candidates, offsets, boards, dice)`` with ``wants_position = True``)
    wrapped in :class:`FunctionPolicy`. An evaluator is not turned into its greedy player
    here (:func:`fastgen.players.specs.policy` does that); a cube player, or a callable
    that cannot be called as a policy, raises *error* (*what*: how the message names it,
    ``policy <obj>`` by default)."""
    if isinstance(obj, Policy):
        return obj
    what = what or f"policy {obj!r}"
    if isinstance(obj, CubePlayer):
        raise error(f"{what} is {_kind(obj)} where a policy is wanted (it chooses plays): its chequer play "
                    f"is its attribute chequer")
    if not callable(obj):
        raise error(f"{what} must be a callable f(candidates, offsets) -> indices")
    args: tuple[str, ...] = ("candidates", "offsets")
    if getattr(obj, "wants_position", False):
        args = args + ("boards", "dice")
    if not signature_binds(obj, args, unknown=True):  # a callable without a signature is trusted
        looks = ("; it looks like an evaluator, f(boards): its greedy player is "
                 "fastgen.players.evaluators.greedy(f)") if signature_binds(obj, ("boards",), unknown=True) else ""
        raise error(f"{what} cannot be called as f({', '.join(args)}): its signature is {inspect.signature(obj)}"
                    f"{looks}")
    return FunctionPolicy(obj)
