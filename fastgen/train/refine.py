"""Supervised refinement from rollouts: a trained network learns its own rollouts' answers.

:func:`supervise` improves a network the way GNU Backgammon's were improved after
self-play: it

1. samples positions from the network's own self-play games (the side on roll before
   its roll), keeping every position whose roll makes a close decision (the two best
   plays at 0 ply within ``close`` equity of each other) and a ``far_keep`` share of
   the others;
2. rolls each one out with the network (:func:`fastgen.rollout_position`: variance
   reduction, ``trials`` trials, truncated after ``truncate`` plies; trial seeds
   ``seed + i`` for position *i*; on Dask when ``workers=`` is given), giving five
   probabilities a position;
3. trains the network on them: stochastic gradient steps on the cross-entropy between
   its outputs and the rollout's probabilities, ``epochs`` passes in a seeded order,
   the step size falling from ``lr`` to ``lr_end``, a tenth of the positions held out to
   report the loss on.

The data set lives in a folder: ``positions.npz`` (the boards and whether each was a
close decision), ``targets-00000.npz`` ... (the rollouts, ``shard`` positions a file)
and ``settings.json`` (what made them). Every file is written whole; a run stopped
partway (Ctrl-C) resumes where its last shard ended, and a finished set is reused by
later runs with the same settings (other settings are refused with a
:class:`~fastgen.errors.CheckpointError` naming the folder).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from fastgen._util import atomic_write, check_int, check_positive_float
from fastgen.core.boards import OPENING_ROLLS, STARTING_BOARD
from fastgen.core.generate import plays_batch
from fastgen.errors import CheckpointError, InvalidArgumentError
from fastgen.evaluators import equity, opponent_probs
from fastgen.nets.network import Network
from fastgen.sim.cluster import connect
from fastgen.sim.decide.front import rollout_position
from fastgen.train.td_lambda import geometric_step
from fastgen.train.weights import trainable

__all__ = ["SuperviseConfig", "SuperviseRun", "supervise", "sample_positions", "rollout_targets"]

#: Self-play games side by side while sampling positions.
POOL = 256


@dataclass(frozen=True)
class SuperviseConfig:
    """The settings of :func:`supervise` (see the module docstring; checked when made)."""

    positions: int = 10_000
    trials: int = 144
    truncate: int | None = 7
    close: float = 0.08
    far_keep: float = 0.25
    epochs: int = 8
    lr: float = 0.02
    lr_end: float = 0.002
    seed: int = 0
    shard: int = 250

    def __post_init__(self) -> None:
        check_int(self.positions, "positions", 10)
        check_int(self.trials, "trials", 1)
        if self.truncate is not None:
            check_int(self.truncate, "truncate", 1)
        check_positive_float(self.close, "close", 3.0)
        check_positive_float(self.far_keep, "far_keep", 1.0)
        check_int(self.epochs, "epochs", 1)
        check_positive_float(self.lr, "lr", 10.0)
        check_positive_float(self.lr_end, "lr_end", 10.0)
        check_int(self.seed, "seed", 0, 2**62)
        check_int(self.shard, "shard", 1)


@dataclass
class SuperviseRun:
    """What :func:`supervise` made: *network* (refined), *before* and *after* (the
    held-out cross-entropy of the network it started from and of the refined one), the
    positions trained on and held out."""

    network: Network
    before: float
    after: float
    trained: int
    held_out: int


def sample_positions(net: Network, count: int, *, seed: int = 0, close: float = 0.08,
                     far_keep: float = 0.25) -> tuple[np.ndarray, np.ndarray]:
    """(boards (count, 2, 25) int8, close (count,) bool): positions of *net*'s greedy
    self-play games before each roll, side on roll in row 1, drawn as the module
    docstring says; the same for the same arguments."""
    rng = np.random.default_rng(seed)
    opening = np.array(OPENING_ROLLS, dtype=np.int8)
    boards = np.repeat(STARTING_BOARD[None], POOL, axis=0).astype(np.int8)
    fresh: np.ndarray = np.ones(POOL, dtype=bool)
    kept: list[np.ndarray] = []
    flags: list[np.ndarray] = []
    total = 0
    while total < count:
        dice = rng.integers(1, 7, size=(POOL, 2)).astype(np.int8)
        dice[fresh] = opening[rng.integers(0, len(opening), size=int(fresh.sum()))]
        batch = plays_batch(boards, dice)
        values = -equity(opponent_probs(net, batch.boards))
        counts = np.diff(batch.offsets)
        order = np.lexsort((-values, np.repeat(np.arange(POOL), counts)))
        first = order[batch.offsets[:-1]]
        second = order[np.minimum(batch.offsets[:-1] + 1, batch.offsets[1:] - 1)]
        gap = np.where(counts > 1, values[first] - values[second], np.inf)
        is_close = gap < close
        keep = (is_close | (rng.random(POOL) < far_keep)) & ~fresh
        kept.append(boards[keep].copy())
        flags.append(is_close[keep])
        total += int(keep.sum())
        after = batch.boards[first]
        ended = np.logical_not(after[:, 1].any(axis=1))
        boards = np.ascontiguousarray(after[:, ::-1])
        boards[ended] = STARTING_BOARD
        fresh = ended
    return np.concatenate(kept)[:count], np.concatenate(flags)[:count]


def rollout_targets(net: Network, boards: np.ndarray, config: SuperviseConfig, *, start: int = 0,
                    client: Any = None, threads: int = 1) -> np.ndarray:
    """(N, 5) float32: :func:`fastgen.rollout_position` of each board with *net*
    (trials, truncation and seeds ``config.seed + start + i`` as the module docstring
    says); *client*: a Dask client to run the trials on."""
    out = np.empty((len(boards), 5), dtype=np.float32)
    for i, b in enumerate(boards):
        table = rollout_position(b, net, trials=config.trials, seed=config.seed + start + i, truncate=config.truncate,
                                 threads=threads, client=client)
        out[i] = table.rows[0].probabilities
    return out


def _settings(net: Network, config: SuperviseConfig) -> dict:
    return {"network": net.digest(), "config": dataclasses.asdict(config)}


def _load_or_sample(folder: str, net: Network, config: SuperviseConfig) -> tuple[np.ndarray, np.ndarray]:
    os.makedirs(folder, exist_ok=True)
    settings_path = os.path.join(folder, "settings.json")
    want = _settings(net, config)
    if os.path.exists(settings_path):
        try:
            with open(settings_path, encoding="utf-8") as f:
                have = json.load(f)
        except (OSError, ValueError) as exc:
            raise CheckpointError(f"cannot read {settings_path!r}: {exc}") from None
        if have != want:
            raise CheckpointError(f"the data set in {folder!r} was made with other settings or another network: "
                                  f"{have!r}; use another folder")
        with np.load(os.path.join(folder, "positions.npz")) as z:
            return z["boards"], z["close"]
    boards, close = sample_positions(net, config.positions, seed=config.seed, close=config.close,
                                     far_keep=config.far_keep)
    with atomic_write(os.path.join(folder, "positions.npz")) as f:
        np.savez(f, boards=boards, close=close)
    with atomic_write(settings_path, "w", encoding="utf-8") as f:
        json.dump(want, f, indent=1)
    return boards, close


def _fit(net: Network, boards: np.ndarray, targets: np.ndarray, config: SuperviseConfig) -> SuperviseRun:
    w = trainable(net)
    rng = np.random.default_rng(config.seed + 1)
    order = rng.permutation(len(boards))
    held = order[: max(1, len(boards) // 10)]
    train = order[len(held):]

    def loss(weights: Any) -> float:
        return float(np.mean([weights.learner.learn(boards[i], targets[i], 0.0) for i in held]))

    before = loss(w)
    steps = config.epochs * len(train)
    k = 0
    for _ in range(config.epochs):
        for i in rng.permutation(train):
            w.learner.learn(boards[i], targets[i], geometric_step(config.lr, config.lr_end, k / steps))
            k += 1
    return SuperviseRun(w.network("supervised"), before, loss(w), len(train), len(held))


def supervise(net: Network, folder: str | os.PathLike[str], config: SuperviseConfig | None = None, *,
              workers: int | None = None, threads: int = 1,
              progress: Callable[[int, int], object] | None = None) -> SuperviseRun:
    """Refine *net* (a trainable :class:`fastgen.nets.Network`: see
    :mod:`fastgen.train.weights`) on rollouts stored in *folder* (made, or resumed, or
    reused), by *config* (default: ``SuperviseConfig()``); *workers*: a local Dask
    cluster of that many processes for the rollouts; *threads*: threads a rollout;
    *progress*: called with (positions rolled out, positions) after each shard."""
    config = SuperviseConfig() if config is None else config
    if not isinstance(config, SuperviseConfig):
        raise InvalidArgumentError(f"config must be a fastgen.train.SuperviseConfig, got {config!r}")
    trainable(net)
    folder = os.fspath(folder)
    boards, _ = _load_or_sample(folder, net, config)
    shards = math.ceil(len(boards) / config.shard)
    targets = np.empty((len(boards), 5), dtype=np.float32)

    def run(client: Any) -> None:
        for k in range(shards):
            lo, hi = k * config.shard, min((k + 1) * config.shard, len(boards))
            path = os.path.join(folder, f"targets-{k:05d}.npz")
            if os.path.exists(path):
                with np.load(path) as z:
                    targets[lo:hi] = z["probabilities"]
            else:
                targets[lo:hi] = rollout_targets(net, boards[lo:hi], config, start=lo, client=client, threads=threads)
                with atomic_write(path) as f:
                    np.savez(f, probabilities=targets[lo:hi])
            if progress is not None:
                progress(hi, len(boards))

    if workers is None:
        run(None)
    else:
        with connect(workers=check_int(workers, "workers", 1)) as client:
            run(client)
    return _fit(net, boards, targets, config)
