"""A training run on disk: the checkpoint file of :func:`fastgen.train.td`.

A checkpoint is a network file of fastgen's ``.npz`` layout (:mod:`fastgen.nets.files`),
so ``Network.load``, ``fastgen duel PATH.npz pubeval`` and every spec taking a weights
file read it as the network trained so far, with two more kinds of arrays beside it:

==================  ====================================================================
array               meaning
==================  ====================================================================
``train_state``     a JSON text: ``{"kind": "td", "version": 1, "config": {...}, "games":
                    ..., "seconds": ..., "curve": [...]}``: the settings, the games
                    played and learnt from, the training time, the curve so far
``frozen_w0`` ...   the network of the curve's previous point (``frozen_w0, frozen_b0,
                    frozen_w1, frozen_b1``), which the next point duels against; absent
                    before the first point
==================  ====================================================================

Its network's :attr:`~fastgen.nets.Network.about` says how it was trained: ``{"trainer":
"fastgen.train td", "games": ..., "config": {...}}``.

The file is written whole or not at all (a Ctrl-C or a crash while writing leaves the
previous checkpoint as it was).
"""

from __future__ import annotations

import json
import os
import zipfile
from dataclasses import dataclass, field
import numpy as np

from fastgen.errors import CheckpointError, NetworkFileError
from fastgen.nets import files
from fastgen.nets.network import Network

__all__ = ["Checkpoint", "read_checkpoint", "write_checkpoint", "VERSION"]

VERSION = 1


@dataclass
class Checkpoint:
    """What a checkpoint holds: *network* (the weights trained so far), *kind* (``"td"``),
    *config* (the settings, a dict), *games*, *seconds*, *curve* (a list of dicts) and
    *frozen* (the curve's previous network, or None)."""

    network: Network
    kind: str
    config: dict
    games: int
    seconds: float
    curve: list = field(default_factory=list)
    frozen: Network | None = None


def write_checkpoint(path: str | os.PathLike[str], ck: Checkpoint) -> None:
    """Write *ck* to *path* (whole or not at all)."""
    state = {"kind": ck.kind, "version": VERSION, "config": ck.config, "games": ck.games, "seconds": ck.seconds,
             "curve": ck.curve}
    extra: dict[str, np.ndarray] = {"train_state": np.array(json.dumps(state))}
    if ck.frozen is not None:
        for i, (w, b) in enumerate(zip(ck.frozen.weights, ck.frozen.biases)):
            extra[f"frozen_w{i}"] = np.asarray(w)
            extra[f"frozen_b{i}"] = np.asarray(b)
    net = ck.network
    about = {"trainer": f"fastgen.train {ck.kind}", "games": ck.games, "config": ck.config}
    files.write(path, list(net.weights), list(net.biases), net.inputs, net.activation, extra=extra, about=about)


def read_checkpoint(path: str | os.PathLike[str], kind: str = "td") -> Checkpoint:
    """The checkpoint at *path*; :class:`~fastgen.errors.CheckpointError` naming the file
    when it is missing, not a checkpoint of *kind*, or of another version."""
    name = repr(os.fspath(path))
    if not os.path.isfile(path):
        raise CheckpointError(f"cannot resume from {name}: it does not exist")
    try:
        network = Network.load(path)
        with np.load(path, allow_pickle=False) as z:
            if "train_state" not in z.files:
                raise CheckpointError(f"{name} is a network file but not a training checkpoint (no 'train_state')")
            state = json.loads(str(z["train_state"]))
            frozen = None
            if "frozen_w0" in z.files:
                n = sum(1 for f in z.files if f.startswith("frozen_w"))
                frozen = Network([z[f"frozen_w{i}"] for i in range(n)], [z[f"frozen_b{i}"] for i in range(n)],
                                 inputs=network.inputs, activation=network.activation, name="previous")
    except NetworkFileError as exc:
        raise CheckpointError(f"cannot resume from {name}: {exc}") from None
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise CheckpointError(f"cannot resume from {name}: {type(exc).__name__}: {exc}") from None
    if not isinstance(state, dict) or state.get("version") != VERSION:
        raise CheckpointError(f"{name} is a checkpoint of version {state.get('version')!r}; this fastgen reads {VERSION}")
    if state.get("kind") != kind:
        raise CheckpointError(f"{name} is a checkpoint of a {state.get('kind')!r} run, not {kind!r}")
    return Checkpoint(network, kind, dict(state["config"]), int(state["games"]), float(state["seconds"]),
                      list(state["curve"]), frozen)

