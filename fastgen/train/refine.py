"""Supervised refinement from rollouts: a trained network learns its own rollouts' answers.

:func:`supervise` improves a network the way GNU Backgammon's were improved after
self-play: it

1. samples positions from the network's own self-play games (the side on roll before
   its roll), keeping every position whose roll makes a close decision (the two best
   plays at 0 ply within ``close`` equity of each other) and a ``far_keep`` share of
   the others;
2. rolls each one out with the network, or with a stronger ``teacher`` (an evaluator
   spec such as ``"gnubg:0"``, GNU Backgammon's nets: the network then learns their
   rollouts' answers) (:func:`fastgen.rollout_position`: variance reduction, ``trials``
   trials, truncated after ``truncate`` plies; trial seeds ``seed + i`` for position
   *i*; on Dask when ``workers=`` is given), giving five probabilities a position;
3. trains the network on them: stochastic gradient steps on the cross-entropy between
   its outputs and the rollout's probabilities, ``epochs`` passes in a seeded order,
   the step size falling from ``lr`` to ``lr_end``, a tenth of the positions held out to
   report the loss on.

The data set lives in a folder: ``positions.npz`` (the boards and whether each was a
close decision), ``targets-00000.npz`` ... (the rollouts, ``shard`` positions a file)
and ``settings.json`` (what made them). Every file is written whole; a run stopped
partway (Ctrl-C) resumes where its last shard ended, and a finished set is reused by
later runs with the same settings (other settings are refused with a
:class:`~fastgen.errors.CheckpointError` naming the folder). Every file of the set is
read checked (:mod:`fastgen.formats.checked`) before any work: the boards must be legal
positions, the flags and the rollouts' probabilities of their shapes, the probabilities
finite and within :data:`TARGET_SLACK` of [0, 1]; a damaged file is refused with a
CheckpointError naming it (a shard that is not there yet is rolled out; a damaged one
is to be deleted, and is then rolled out again).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from fastgen.formats.checked import MiB, check_destination, parse_json, read_npz, read_text
from fastgen._util import atomic_write, check_int, check_positive_float
from fastgen.core.boards import OPENING_ROLLS, STARTING_BOARD, as_boards
from fastgen.core.generate import plays_batch
from fastgen.errors import CheckpointError, InvalidArgumentError, InvalidBoardError
from fastgen.players import specs
from fastgen.players.evaluators import equity, opponent_probs
from fastgen.nets.network import Network
from fastgen.sim.cluster import connect
from fastgen.sim.decide.front import rollout_position
from fastgen.train.checkpoint import _shown
from fastgen.train.config import geometric_step
from fastgen.train.weights import trainable

__all__ = ["SuperviseConfig", "SuperviseRun", "supervise", "sample_positions", "rollout_targets"]

#: Self-play games side by side while sampling positions.
POOL = 256
#: How far outside [0, 1] a stored rollout probability may be: variance reduction may put
#: an estimate a little outside (a few tenths at one trial), and it is kept as computed;
#: a value further out cannot come from a rollout, and its shard is refused.
TARGET_SLACK = 1.0
#: The largest data set file read (the arrays it holds).
DATA_LIMIT = 1024 * MiB


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
    teacher: str | None = None

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
        if self.teacher is not None and (not isinstance(self.teacher, str) or not self.teacher):
            raise InvalidArgumentError(f"teacher must be None (the network itself) or an evaluator spec such as "
                                       f"'gnubg:0', got {self.teacher!r}")


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
    """(N, 5) float32: :func:`fastgen.rollout_position` of each board with *net*, or
    with ``config.teacher`` when it names one (trials, truncation and seeds ``config.seed
    + start + i`` as the module docstring says); *client*: a Dask client to run the
    trials on."""
    judge = net if config.teacher is None else specs.evaluator(config.teacher)
    out = np.empty((len(boards), 5), dtype=np.float32)
    for i, b in enumerate(boards):
        table = rollout_position(b, judge, trials=config.trials, seed=config.seed + start + i, truncate=config.truncate,
                                 threads=threads, client=client)
        out[i] = table.rows[0].probabilities
    return out


def _settings(net: Network, config: SuperviseConfig) -> dict:
    made = dataclasses.asdict(config)
    out: dict[str, Any] = {"network": net.digest(), "config": made}
    if config.teacher is None:
        del made["teacher"]  # (so a data set made before teachers existed is still its own)
    else:  # what the spec named here: the same name may find other weights elsewhere
        out["teacher"] = specs.evaluator(config.teacher).digest()
    return out


def _data_folder(folder: str) -> None:
    """Make the data set's *folder* (and its parents) when it does not exist; a
    CheckpointError naming it, before any work, when it cannot be made or its files
    cannot be written there."""
    if os.path.lexists(folder) and not os.path.isdir(folder):
        raise CheckpointError(f"the data set folder {folder!r} is not a folder")
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as exc:
        raise CheckpointError(f"cannot make the data set folder {folder!r}: {exc.strerror or exc}") from None
    check_destination(os.path.join(folder, "positions.npz"), "data set file", CheckpointError)


def _damaged(path: str, fault: str, remedy: str) -> CheckpointError:
    return CheckpointError(f"the data set file {path!r} is damaged: {fault}; {remedy}")


def _read_positions(folder: str, config: SuperviseConfig) -> tuple[np.ndarray, np.ndarray]:
    """The boards and close flags of the data set in *folder*, checked: (positions, 2, 25)
    int8 boards, each a legal position (the compiled learner trusts them), and
    (positions,) bool flags; CheckpointError naming the file and the fault otherwise."""
    path = os.path.join(folder, "positions.npz")
    remedy = f"delete the folder {folder!r} (or its settings.json) to make the data set again"
    z = read_npz(path, "data set file", CheckpointError, DATA_LIMIT)
    for key in ("boards", "close"):
        if key not in z:
            raise _damaged(path, f"it holds no {key!r} array (it holds {sorted(z)!r})", remedy)
    boards, close = z["boards"], z["close"]
    n = config.positions
    if boards.dtype != np.int8 or boards.shape != (n, 2, 25):
        raise _damaged(path, f"its boards are {boards.dtype} of shape {boards.shape}, not int8 of shape {(n, 2, 25)}",
                       remedy)
    if close.dtype != np.bool_ or close.shape != (n,):
        raise _damaged(path, f"its close flags are {close.dtype} of shape {close.shape}, not bool of shape {(n,)}",
                       remedy)
    try:
        boards = as_boards(boards)
    except InvalidBoardError as exc:  # "invalid board at index I (why): array(...)": the board left out
        raise _damaged(path, f"{str(exc).split(': ', 1)[0]}, not a legal position", remedy) from None
    return boards, close


def _read_targets(path: str, count: int) -> np.ndarray:
    """The (count, 5) rollout probabilities of the shard *path*, checked (finite, and
    within :data:`TARGET_SLACK` of [0, 1]); CheckpointError naming the file, the row and
    the fault otherwise, telling to delete it so that it is rolled out again."""
    remedy = "delete it to roll its positions out again"
    z = read_npz(path, "data set file", CheckpointError, DATA_LIMIT)
    if "probabilities" not in z:
        raise _damaged(path, f"it holds no 'probabilities' array (it holds {sorted(z)!r})", remedy)
    p = z["probabilities"]
    if p.dtype.kind != "f" or p.shape != (count, 5):
        raise _damaged(path, f"its probabilities are {p.dtype} of shape {p.shape}, not floats of shape {(count, 5)}",
                       remedy)
    p = p.astype(np.float32)
    with np.errstate(invalid="ignore"):
        bad = ~(np.isfinite(p) & (p >= -TARGET_SLACK) & (p <= 1.0 + TARGET_SLACK)).all(axis=1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise _damaged(path, f"row {i} holds {p[i].tolist()!r}, not a rollout's five probabilities (finite, from "
                             f"{-TARGET_SLACK:g} to {1 + TARGET_SLACK:g})", remedy)
    return p


def _load_or_sample(folder: str, net: Network, config: SuperviseConfig) -> tuple[np.ndarray, np.ndarray]:
    _data_folder(folder)
    settings_path = os.path.join(folder, "settings.json")
    want = _settings(net, config)
    if os.path.lexists(settings_path):
        text = read_text(settings_path, "data set settings", CheckpointError, 1 << 20)
        have = parse_json(text, "data set settings", repr(settings_path), CheckpointError)
        if have != want:
            raise CheckpointError(f"the data set in {folder!r} was made with other settings or another network: "
                                  f"{_shown(have, 400)}; use another folder")
        return _read_positions(folder, config)
    boards, close = sample_positions(net, config.positions, seed=config.seed, close=config.close,
                                     far_keep=config.far_keep)
    with atomic_write(os.path.join(folder, "positions.npz")) as f:
        np.savez(f, boards=boards, close=close)
    with atomic_write(settings_path, "w", encoding="utf-8") as f:
        json.dump(want, f, indent=1)
    return boards, close


def _fit(net: Network, boards: np.ndarray, targets: np.ndarray, config: SuperviseConfig) -> SuperviseRun:
    w = trainable(net)  # the boards were checked where they were read (_read_positions) or made
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
    done = set()
    for k in range(shards):  # every shard already there is read (and checked) before any rollout
        lo, hi = k * config.shard, min((k + 1) * config.shard, len(boards))
        path = os.path.join(folder, f"targets-{k:05d}.npz")
        if os.path.lexists(path):
            targets[lo:hi] = _read_targets(path, hi - lo)
            done.add(k)

    def run(client: Any) -> None:
        for k in range(shards):
            lo, hi = k * config.shard, min((k + 1) * config.shard, len(boards))
            path = os.path.join(folder, f"targets-{k:05d}.npz")
            if k not in done:
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
