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
previous checkpoint as it was), and read checked (:func:`read_checkpoint`): a training
state of the wrong shape, types or ranges is a :class:`~fastgen.errors.CheckpointError`
naming the file and the field, never a foreign exception.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fastgen.formats.checked import parse_json, read_npz
from fastgen.errors import CheckpointError, FastgenError, InvalidArgumentError, InvalidNetworkError, NetworkFileError
from fastgen.nets import files
from fastgen.nets.network import Network
from fastgen.train.config import TDConfig

__all__ = ["Checkpoint", "read_checkpoint", "write_checkpoint", "checkpoint_path", "check_curve", "VERSION"]

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


def checkpoint_path(path: str | os.PathLike[str]) -> str:
    """*path* as the name of the file a checkpoint is written to and read from: given
    the ``.npz`` suffix when it has none (as the network writer adds it), so that a
    run's report, its curve log's name and a resume all use the same file."""
    name = os.fsdecode(os.fspath(path))
    return name if name.endswith(".npz") else name + ".npz"


def _shown(value: Any, width: int = 80) -> str:
    """*value*'s repr for a one-line message, cut to *width* characters (a value nested
    too deeply to print is described, not printed)."""
    try:
        text = repr(value)
    except (RecursionError, MemoryError):
        return f"a {type(value).__name__} nested too deeply to print"
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _number(value: Any) -> bool:
    """True for a finite JSON number (an int or a float, not a bool)."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and (isinstance(value, int) or math.isfinite(value)))


def _duel_fault(duel: Any) -> str | None:
    """What is wrong with a curve point's duel (``{"ppg", "se", "ci95"}``), or None."""
    if not isinstance(duel, dict):
        return f"is not an object with 'ppg', 'se' and 'ci95': {_shown(duel)}"
    for key in ("ppg", "se", "ci95"):
        if key not in duel:
            return f"has no {key!r}"
    if not _number(duel["ppg"]) or abs(duel["ppg"]) > 3:
        return f"has a 'ppg' that is not a finite number of points from -3 to 3: {_shown(duel['ppg'])}"
    if not _number(duel["se"]) or duel["se"] < 0:
        return f"has an 'se' that is not a finite number >= 0: {_shown(duel['se'])}"
    ci = duel["ci95"]
    if not (isinstance(ci, list) and len(ci) == 2 and all(_number(v) for v in ci) and ci[0] <= ci[1]):
        return f"has a 'ci95' that is not a pair [low, high] of finite numbers: {_shown(ci)}"
    return None


def check_curve(points: Any, name: str, error: type[FastgenError] = CheckpointError) -> list:
    """*points* as a training curve (a list of points, each a dict with ``games`` rising
    from point to point; ``seconds``, ``lr``, ``loss`` and ``dropped`` finite numbers of
    their ranges when present; ``pubeval`` and ``previous`` duels of ``ppg``, ``se`` and
    ``ci95``); *error* naming *name*, the point and the field otherwise. The one check
    of a curve, for a curve log and for a checkpoint's curve alike."""
    def refuse(what: str) -> FastgenError:
        return error(f"{name} is not a training curve (a JSON list of points with 'games'): {what}")

    if not isinstance(points, list):
        raise refuse(f"it holds {_shown(points)}")
    last = -1
    for i, p in enumerate(points):
        if not isinstance(p, dict):
            raise refuse(f"point {i} is not an object: {_shown(p)}")
        games = p.get("games")
        if not isinstance(games, int) or isinstance(games, bool) or not last < games <= 2**63 - 1:
            raise refuse(f"point {i}'s 'games' is not a count above the previous point's ({last}): {_shown(games)}")
        last = games
        for key, low in (("seconds", 0.0), ("lr", 0.0), ("loss", None)):
            if key in p and (not _number(p[key]) or (low is not None and p[key] < low)):
                bound = "" if low is None else " >= 0"
                raise refuse(f"point {i}'s {key!r} is not a finite number{bound}: {_shown(p[key])}")
        dropped = p.get("dropped", 0)
        if not isinstance(dropped, int) or isinstance(dropped, bool) or dropped < 0:
            raise refuse(f"point {i}'s 'dropped' is not a count: {_shown(p['dropped'])}")
        for key in ("pubeval", "previous"):
            fault = _duel_fault(p[key]) if key in p else None
            if fault is not None:
                raise refuse(f"point {i}'s {key!r} {fault}")
    return points


def _check_config(config: Any, name: str, kind: str) -> dict:
    """*config* checked as the settings of a *kind* run: the fields of its settings
    class, each of its type, and the settings made from them valid."""

    head = f"cannot read the checkpoint {name}: its training state's"
    if not isinstance(config, dict):
        raise CheckpointError(f"{head} 'config' is not an object: {_shown(config)}")
    fields = {f.name: f.type for f in dataclasses.fields(TDConfig)}
    for key in config:
        if key not in fields:
            raise CheckpointError(f"{head} 'config' holds an unknown setting {_shown(key)}")
    for key, kind_of in fields.items():
        if key not in config:
            raise CheckpointError(f"{head} 'config' has no {key!r}")
        value = config[key]
        if kind_of == "bool":
            ok = isinstance(value, bool)
        elif kind_of == "int":
            ok = isinstance(value, int) and not isinstance(value, bool)
        else:
            ok = _number(value)
        if not ok:
            article = "an" if kind_of == "int" else "a"
            raise CheckpointError(f"{head} config {key!r} is not {article} {kind_of}: {_shown(value)}")
    try:
        TDConfig(**config)
    except InvalidArgumentError as exc:
        raise CheckpointError(f"{head} 'config' is not valid: {exc}") from None
    return dict(config)


def _check_state(state: Any, name: str, kind: str) -> tuple[dict, int, float, list]:
    """(config, games, seconds, curve) of the training state *state*; CheckpointError
    naming *name* and the field at fault."""
    head = f"cannot read the checkpoint {name}: its training state"
    if not isinstance(state, dict):
        raise CheckpointError(f"{head} is not a JSON object: {_shown(state)}")
    version = state.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version != VERSION:
        raise CheckpointError(f"{name} is a checkpoint of version {_shown(version)}; this fastgen reads {VERSION}")
    if state.get("kind") != kind:
        raise CheckpointError(f"{name} is a checkpoint of a {_shown(state.get('kind'))} run, not {kind!r}")
    for key in ("config", "games", "seconds", "curve"):
        if key not in state:
            raise CheckpointError(f"{head} has no {key!r}")
    config = _check_config(state["config"], name, kind)
    games = state["games"]
    if not isinstance(games, int) or isinstance(games, bool) or not 0 <= games <= 2**63 - 1:
        raise CheckpointError(f"{head}'s 'games' is not a count of games: {_shown(games)}")
    seconds = state["seconds"]
    if not _number(seconds) or not 0 <= seconds < 1e12:
        raise CheckpointError(f"{head}'s 'seconds' is not a time in seconds: {_shown(seconds)}")
    curve = check_curve(state["curve"], f"the 'curve' of the checkpoint {name}", CheckpointError)
    if curve and curve[-1]["games"] > games:
        raise CheckpointError(f"{head}'s curve ends at {curve[-1]['games']} games, past the {games} games it played")
    return config, games, float(seconds), curve


def read_checkpoint(path: str | os.PathLike[str], kind: str = "td") -> Checkpoint:
    """The checkpoint at *path*; :class:`~fastgen.errors.CheckpointError` naming the file
    (and the field at fault) when it is missing, not a regular file, not a checkpoint of
    *kind*, of another version, or damaged: the file is read by
    :func:`fastgen.formats.checked.read_npz`, and its training state checked whole (each field of
    its type and range, the settings valid, the curve by :func:`check_curve`, the
    previous point's network of the same shape)."""
    name = repr(os.fspath(path))
    z = read_npz(path, "checkpoint", CheckpointError)  # read once: the network and the state
    try:
        weights, biases, inputs, activation, about = files.layout(z, name)
        network = Network(weights, biases, inputs=inputs, activation=activation, about=about)
    except (NetworkFileError, InvalidNetworkError) as exc:
        raise CheckpointError(f"cannot resume from {name}: {exc}") from None
    if "train_state" not in z:
        raise CheckpointError(f"{name} is a network file but not a training checkpoint (no 'train_state')")
    text = z["train_state"]
    if text.shape != () or text.dtype.kind != "U":
        raise CheckpointError(f"{name}: its 'train_state' is not a JSON text but an array of {text.dtype} of shape "
                              f"{text.shape}")
    state = parse_json(str(text[()]), "checkpoint", name, CheckpointError)
    config, games, seconds, curve = _check_state(state, name, kind)
    frozen = None
    keys = sorted(k for k in z if k.startswith("frozen_"))
    if keys:
        n = sum(1 for k in keys if k.startswith("frozen_w"))
        want = sorted([f"frozen_w{i}" for i in range(n)] + [f"frozen_b{i}" for i in range(n)])
        if keys != want:
            raise CheckpointError(f"{name}: the previous point's network is not whole: it holds {keys!r}, not {want!r}")
        try:
            frozen = Network([z[f"frozen_w{i}"] for i in range(n)], [z[f"frozen_b{i}"] for i in range(n)],
                             inputs=network.inputs, activation=network.activation, name="previous")
        except InvalidNetworkError as exc:
            raise CheckpointError(f"{name}: the previous point's network is not valid: {exc}") from None
        if frozen.sizes != network.sizes:
            raise CheckpointError(f"{name}: the previous point's network has sizes {frozen.sizes}, not the "
                                  f"network's {network.sizes}")
    return Checkpoint(network, kind, config, games, seconds, curve, frozen)
