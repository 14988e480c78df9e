"""The options of the simulations, each checked once: how games are played
(:class:`GameOptions`), how the trials of a rollout that decides are played
(:class:`TrialOptions`) and where the work runs (:class:`ClusterOptions`).

:func:`fastgen.rollout`, :func:`fastgen.duel`, :func:`fastgen.duel_matches`,
:func:`fastgen.rollout_plays`, :func:`fastgen.rollout_position` and
:func:`fastgen.rollout_cube` take these options either as one object (``options=``,
``cluster=``) or as keyword arguments of the same names, not both. Either way the object
is built and checked once (a bad value raises
:class:`fastgen.errors.InvalidArgumentError` quoting it), handed whole to the engines,
the chunk runners and the Dask tasks, and kept on the result as ``result.options``. The
objects are frozen: what was checked stays as checked; :meth:`~GameOptions.replace`
gives a changed copy, checked again.

>>> TrialOptions(trials=72, seed=2).trials
72
>>> TrialOptions(trials=72).replace(seed=5)
TrialOptions(trials=72, seed=5, variance_reduction=True, quasi_random=True, truncate=None, truncate_bearoff=False, \
stop_se=None, stop_z=None, min_trials=None, threads=1)
>>> TrialOptions(trials=0)
Traceback (most recent call last):
...
fastgen.errors.InvalidArgumentError: trials must be a positive integer at most 1099511627776, got 0
"""

from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from fastgen._util import check_int, check_threads
from fastgen.errors import InvalidArgumentError
from fastgen.sim.cluster import connect

__all__ = ["Options", "GameOptions", "TrialOptions", "ClusterOptions", "merge_options", "MAX_SEED", "MAX_TRIALS", "ENGINES"]

#: Seeds are non-negative ints below 2**64.
MAX_SEED = 2**64 - 1
#: The most trials per candidate of a rollout that decides.
MAX_TRIALS = 2**40
#: The engines that play games: the compiled core, the batched Python loop, or the best one.
ENGINES = ("auto", "native", "python")


_O = TypeVar("_O")


def _at_default(value: Any, default: Any) -> bool:
    if default is None:
        return value is None
    if isinstance(default, bool) or isinstance(value, (bool, np.bool_)):
        return isinstance(value, (bool, np.bool_)) and bool(value) is default
    try:
        return bool(value == default)
    except (TypeError, ValueError):  # a value whose == is not a truth value is not the default
        return False


def merge_options(cls: type[_O], options: Any, what: str = "options", **keywords: Any) -> _O:
    """The options object of a front door: *options* itself (it must be a *cls*) when
    given, else a new *cls* of the *keywords*. Given both, a keyword away from its
    default raises :class:`fastgen.errors.InvalidArgumentError` naming it, so that no
    setting is silently dropped.

    >>> merge_options(GameOptions, None, seed=3).seed
    3
    >>> merge_options(GameOptions, GameOptions(seed=3), seed=4)
    Traceback (most recent call last):
    ...
    fastgen.errors.InvalidArgumentError: give seed in options or as a keyword, not both: options=GameOptions(seed=3, \
batch_size=4096, threads=1, engine='auto'), seed=4
    """
    if options is None:
        return cls(**keywords)
    if not isinstance(options, cls):
        where = ".".join(cls.__module__.split(".")[:2])  # the subpackage that exports it
        raise InvalidArgumentError(f"{what} must be a {where}.{cls.__name__} or None, got {options!r}")
    defaults = {f.name: f.default for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    clash = [k for k, v in keywords.items() if not _at_default(v, defaults[k])]
    if clash:
        values = ", ".join(f"{k}={keywords[k]!r}" for k in clash)
        raise InvalidArgumentError(f"give {', '.join(clash)} in {what} or as {'a keyword' if len(clash) == 1 else 'keywords'}, "
                                   f"not both: {what}={options!r}, {values}")
    return options


class Options:
    """The base of the frozen options objects: :meth:`replace`."""

    def replace(self: Any, **changes: Any) -> Any:
        """A copy with *changes* (field names), checked as a new object is."""
        return dataclasses.replace(self, **changes)


def _set(obj: Any, name: str, value: Any) -> None:
    object.__setattr__(obj, name, value)  # a frozen dataclass normalizing its own fields


def _check_bool(value: Any, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidArgumentError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def _check_positive(value: Any, name: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not math.isfinite(value) or value <= 0:
        raise InvalidArgumentError(f"{name} must be None or a positive number, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class GameOptions(Options):
    """How the games of :func:`fastgen.rollout` and :func:`fastgen.duel` are played.

    ``seed`` (int, 0 .. 2**64 - 1), ``batch_size`` (games side by side in the batched
    loop, >= 1), ``threads`` (>= 1) and ``engine`` (``"auto"``, ``"native"`` or
    ``"python"``). None of them changes a game but ``seed``.
    """

    seed: int = 0
    batch_size: int = 4096
    threads: int = 1
    engine: str = "auto"

    def __post_init__(self) -> None:
        _set(self, "seed", check_int(self.seed, "seed", 0, MAX_SEED))
        _set(self, "batch_size", check_int(self.batch_size, "batch_size", 1))
        _set(self, "threads", check_threads(self.threads))
        if not isinstance(self.engine, str) or self.engine not in ENGINES:
            raise InvalidArgumentError(f"engine must be 'auto', 'native' or 'python', got {self.engine!r}")


@dataclass(frozen=True)
class TrialOptions(Options):
    """How the trials of :func:`fastgen.rollout_plays` and :func:`fastgen.rollout_position`
    are played and when they stop (the arguments of the same names there).

    ``trials`` (1 .. 2**40), ``seed`` (0 .. 2**64 - 1), ``variance_reduction``,
    ``quasi_random`` and ``truncate_bearoff`` (bools), ``truncate`` (None or half-moves
    >= 0), ``stop_se`` and ``stop_z`` (None or positive numbers), ``min_trials`` (None:
    36, or >= 1) and ``threads`` (>= 1).
    """

    trials: int = 1296
    seed: int = 0
    variance_reduction: bool = True
    quasi_random: bool = True
    truncate: int | None = None
    truncate_bearoff: bool = False
    stop_se: float | None = None
    stop_z: float | None = None
    min_trials: int | None = None
    threads: int = 1

    def __post_init__(self) -> None:
        _set(self, "truncate_bearoff", _check_bool(self.truncate_bearoff, "truncate_bearoff"))
        _set(self, "trials", check_int(self.trials, "trials", 1, MAX_TRIALS))
        _set(self, "seed", check_int(self.seed, "seed", 0, MAX_SEED))
        _set(self, "variance_reduction", _check_bool(self.variance_reduction, "variance_reduction"))
        _set(self, "quasi_random", _check_bool(self.quasi_random, "quasi_random"))
        _set(self, "truncate", None if self.truncate is None else check_int(self.truncate, "truncate", 0))
        _set(self, "stop_se", _check_positive(self.stop_se, "stop_se"))
        _set(self, "stop_z", _check_positive(self.stop_z, "stop_z"))
        _set(self, "min_trials", None if self.min_trials is None else check_int(self.min_trials, "min_trials", 1))
        _set(self, "threads", check_threads(self.threads))

    @property
    def stops(self) -> bool:
        """Whether a stop rule (*stop_se* or *stop_z*) may end the rollout early."""
        return self.stop_se is not None or self.stop_z is not None

    def play(self) -> dict:
        """The keywords of :func:`fastgen.sim.decide.trials.simulate`: what changes the
        values of a trial (and *threads*)."""
        return dict(seed=self.seed, variance_reduction=self.variance_reduction, quasi_random=self.quasi_random,
                    truncate=self.truncate, threads=self.threads, truncate_bearoff=self.truncate_bearoff)


@dataclass(frozen=True)
class ClusterOptions(Options):
    """Where the work runs and what is kept of it.

    At most one of ``workers`` (a new local Dask cluster of that many processes, >= 1),
    ``scheduler`` (the address of a running scheduler, ``"tcp://host:8786"``) or
    ``client`` (a ``distributed.Client``); ``chunk_size`` (None: the runner's default, or
    items per chunk >= 1); ``out`` (None, or the directory that keeps finished chunks).
    """

    workers: int | None = None
    scheduler: str | None = None
    client: Any = None
    chunk_size: int | None = None
    out: str | os.PathLike[str] | None = None

    def __post_init__(self) -> None:
        given = {k: v for k, v in (("workers", self.workers), ("scheduler", self.scheduler), ("client", self.client))
                 if v is not None}
        if len(given) > 1:
            raise InvalidArgumentError(f"give at most one of workers, scheduler or client, got {given!r}")
        if self.workers is not None:
            _set(self, "workers", check_int(self.workers, "workers", 1))
        if self.scheduler is not None and (not isinstance(self.scheduler, str) or not self.scheduler):
            raise InvalidArgumentError(
                f"scheduler must be an address such as 'tcp://host:8786', got {self.scheduler!r}"
            )
        if self.chunk_size is not None:
            _set(self, "chunk_size", check_int(self.chunk_size, "chunk_size", 1))
        if self.out is not None and (not isinstance(self.out, (str, os.PathLike)) or not os.fspath(self.out)):
            raise InvalidArgumentError(f"out must be None or a directory path, got {self.out!r}")

    @property
    def on_cluster(self) -> bool:
        """Whether the work goes to a Dask cluster."""
        return any(v is not None for v in (self.workers, self.scheduler, self.client))

    @property
    def chunked(self) -> bool:
        """Whether the work is cut into chunks: on a cluster, or kept in *out*."""
        return self.on_cluster or self.out is not None

    def connect(self):
        """The cluster's ``distributed.Client`` for a ``with`` block
        (:func:`fastgen.sim.cluster.connect`)."""
        return connect(self.workers, self.scheduler, self.client)
