"""TD(lambda) self-play: a network learns backgammon by playing itself.

:func:`td` trains a :class:`fastgen.nets.Network` (Tesauro's 198 inputs and, by
default, the 22 contact features; one hidden layer of sigmoid units; five sigmoid
outputs) from random weights. Each game is played
in the compiled core without the GIL (fastgen/train/_selfplay.pyx): the side on roll
takes the play of highest cubeless equity by the network's own current weights, and at
the game's end the network takes one gradient step per afterstate toward its
lambda-return (the offline forward view of TD(lambda): the same updates as
eligibility traces summed over the game). The step size falls geometrically from
``lr`` to ``lr_end`` over the run.

Threads: each of ``threads`` threads trains its own copy of the weights on its own games
for ``sync`` games, then the copies are averaged and every thread goes on from the
average. So a run is the same for a given seed and thread count, whatever the machine's
load, and a resumed run equals the uninterrupted one.

The curve: every ``eval_every`` games (and at the end) the network plays a mirrored
duel of ``eval_games`` games against pubeval and against the network of the previous
point, on fixed seeds; each point goes to the checkpoint's curve and to *progress*.

>>> from fastgen.train import TDConfig, td
>>> run = td(TDConfig(hidden=16, games=400, sync=100, eval_every=400, eval_games=100, seed=3))
>>> run.games, run.curve[-1]["games"], run.network.sizes
(400, 400, (220, 16, 5))
"""

from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from fastgen.formats.checked import check_destination
from fastgen._util import check_int, run_threads
from fastgen.core._core import StopFlag
from fastgen.core.boards import OPENING_ROLLS, STARTING_BOARD
from fastgen.errors import CheckpointError, InvalidArgumentError
from fastgen.nets.network import Network
from fastgen.sim.duel.front import duel
from fastgen.train import _selfplay
from fastgen.train.checkpoint import Checkpoint, checkpoint_path, read_checkpoint, write_checkpoint
from fastgen.train.config import TDConfig, geometric_step
from fastgen.train.weights import TrainedWeights, inputs_of

__all__ = ["TDRun", "td", "resume_td"]

#: The duels of the curve use these seeds (fixed: every point plays the same games).
EVAL_SEED = 20261202
#: What every mirrored duel of the curve reports, a dict a duel.
Progress = Callable[[dict], object]


@dataclass
class TDRun:
    """A run's state: *network* (its weights now), *config*, *games* learnt from,
    *seconds* of training (the curve's duels not counted) and *curve* (its points)."""

    network: Network
    config: TDConfig
    games: int
    seconds: float
    curve: list


def _first_weights(config: TDConfig) -> Network:
    rng = np.random.default_rng(config.seed)
    h = config.hidden
    n = _selfplay.CONTACT_INPUTS if config.contact else _selfplay.INPUTS
    return Network([rng.normal(0, config.init, (n, h)), rng.normal(0, config.init, (h, 5))],
                   [np.zeros(h), np.zeros(5)], inputs=inputs_of(n), activation="sigmoid", name="td")


def _duel_point(net: Network, other: Any, games: int, threads: int) -> dict:
    d = duel(net, other, games, seed=EVAL_SEED, threads=threads)
    lo, hi = d.ci95
    return {"ppg": round(d.ppg, 5), "se": round(d.ppg_se, 5), "ci95": [round(lo, 5), round(hi, 5)]}


def td(config: TDConfig | None = None, *, checkpoint: str | os.PathLike[str] | None = None,
       progress: Progress | None = None, stop: StopFlag | None = None) -> TDRun:
    """Train a network from random weights by *config* (default ``TDConfig()``);
    returns the :class:`TDRun`. *checkpoint*: a path written at every point of the curve
    and at the end (:mod:`fastgen.train.checkpoint`), for :func:`resume_td`. *progress*:
    called with a dict after every averaging (``{"games", "total", "seconds", "lr",
    "afterstates"}``: afterstates learnt from in this call)
    and with every curve point (which has ``"pubeval"``). Ctrl-C (or *stop* set) ends the
    run with KeyboardInterrupt, the checkpoint left as its last point wrote it. The
    checkpoint's name is given the ``.npz`` suffix when it has none
    (:func:`~fastgen.train.checkpoint.checkpoint_path`), and a checkpoint that cannot be
    written there (its folder missing or not writable) is refused with
    InvalidArgumentError before any game is played."""
    config = TDConfig() if config is None else config
    if not isinstance(config, TDConfig):
        raise InvalidArgumentError(f"config must be a fastgen.train.TDConfig, got {config!r}")
    if checkpoint is not None:
        checkpoint = check_destination(checkpoint_path(checkpoint), "checkpoint", InvalidArgumentError)
    start = Checkpoint(_first_weights(config), "td", dataclasses.asdict(config), 0, 0.0, [], None)
    return _run(config, start, checkpoint, progress, stop)


def resume_td(checkpoint: str | os.PathLike[str], *, games: int | None = None, progress: Progress | None = None,
              stop: StopFlag | None = None) -> TDRun:
    """Go on with the run whose checkpoint is at *checkpoint*, to its planned games (or
    *games*, which may extend it: the step-size schedule is then spread over the new
    total), with its settings; the result equals the uninterrupted run's. A
    :class:`~fastgen.errors.CheckpointError` names a file that cannot be resumed. The
    name is given the ``.npz`` suffix when it has none, as :func:`td` writes it."""
    checkpoint = checkpoint_path(checkpoint)
    ck = read_checkpoint(checkpoint, "td")
    check_destination(checkpoint, "checkpoint", InvalidArgumentError)
    settings = dict(ck.config)
    if games is not None:
        settings["games"] = check_int(games, "games", 1)
    try:
        config = TDConfig(**settings)
    except (TypeError, InvalidArgumentError) as exc:
        raise CheckpointError(f"cannot resume from {os.fspath(checkpoint)!r}: its settings are not valid: {exc}") from None
    n = _selfplay.CONTACT_INPUTS if config.contact else _selfplay.INPUTS
    if ck.network.sizes != (n, config.hidden, 5) or ck.network.inputs != inputs_of(n):
        raise CheckpointError(f"cannot resume from {os.fspath(checkpoint)!r}: its network {ck.network.__name__} "
                              f"is not the one its settings train")
    return _run(config, ck, checkpoint, progress, stop)


def _run(config: TDConfig, ck: Checkpoint, path: Any, progress: Progress | None, stop: StopFlag | None) -> TDRun:
    net = ck.network
    copies = [TrainedWeights(config.hidden, net.weights[0], net.biases[0], net.weights[1], net.biases[1])
              for _ in range(config.threads)]
    start = np.ascontiguousarray(STARTING_BOARD, dtype=np.int8)
    opening = np.array(OPENING_ROLLS, dtype=np.int8)
    flag = StopFlag() if stop is None else stop
    games, seconds, curve, frozen = ck.games, ck.seconds, list(ck.curve), ck.frozen
    loss = positions = 0.0
    afterstates = dropped = 0
    results: list[Any] = [None] * config.threads
    while games < config.games:
        n = min(config.sync * config.threads, config.games - games)
        bounds = [games + n * k // config.threads for k in range(config.threads + 1)]
        lr = config.lr_at(games)

        def work(k: int) -> None:
            results[k] = copies[k].learner.play(config.seed, bounds[k], bounds[k + 1], config.lam, lr, start, opening,
                                                config.max_turns, flag)

        t0 = time.perf_counter()
        run_threads(work, config.threads, stop=flag)
        if flag.is_set():
            raise KeyboardInterrupt
        if config.threads > 1:
            for arrays in zip(*(c.arrays() for c in copies)):
                mean = np.mean(arrays, axis=0, dtype=np.float64).astype(np.float32)
                for a in arrays:
                    a[...] = mean
        seconds += time.perf_counter() - t0
        loss += sum(r[2] for r in results)
        positions += sum(r[1] for r in results)
        afterstates += sum(r[1] for r in results)
        dropped += sum(r[5] for r in results)
        point_due = (games + n) // config.eval_every > games // config.eval_every or games + n >= config.games
        games += n
        if progress is not None:
            progress({"games": games, "total": config.games, "seconds": seconds, "lr": lr, "afterstates": afterstates})
        if not point_due:
            continue
        current = copies[0].network("td")
        point: dict[str, Any] = {"games": games, "seconds": round(seconds, 3), "lr": lr,
                                 "loss": round(loss / max(positions, 1), 5)}
        loss = positions = 0.0
        if dropped:  # games that reached max_turns since the last point (not learnt from)
            point["dropped"] = dropped
            dropped = 0
        if config.eval_games:
            point["pubeval"] = _duel_point(current, "pubeval", config.eval_games, config.threads)
            if frozen is not None:
                point["previous"] = _duel_point(current, frozen, config.eval_games, config.threads)
        curve.append(point)
        frozen = current
        if path is not None:
            write_checkpoint(path, Checkpoint(current, "td", dataclasses.asdict(config), games, seconds, curve, frozen))
        if progress is not None:
            progress(point)
    return TDRun(copies[0].network("td"), config, games, seconds, curve)
