"""A network's weights on disk: fastgen's ``.npz`` layout.

The file is a numpy ``.npz`` archive (``numpy.savez_compressed``), no pickled objects:

================  ======================================================================
array             meaning
================  ======================================================================
``format``        the text ``"fastgen-network"``
``version``       the layout's version, an integer: 1
``inputs``        the input schemes side by side, texts (``["tesauro198", "raw"]``)
``activation``    the hidden layers' activation: ``"sigmoid"``, ``"tanh"`` or ``"relu"``
``w0`` ...        layer *i*'s weights, float32, shape (inputs, outputs) of the layer
``b0`` ...        layer *i*'s biases, float32, shape (outputs,)
``about``         optional: a JSON object as text, what the network is (its name,
                  version, how it was made); read as :attr:`Network.about`
================  ======================================================================

The layers are ``w0, b0`` to ``wK, bK`` with no gap; the last has 5 outputs (GNU
Backgammon's five probabilities) or 3 (P(win), P(win gammon), P(lose gammon)).

:func:`read` also takes, for one more release and with a DeprecationWarning, the older
one hidden layer layout (arrays ``w1, b1, w2, b2`` and optionally ``schemes``; sigmoid) that
:meth:`fastgen.players.evaluators.ReferenceNetwork.save` writes;
:func:`fastgen.players.evaluators.convert_network_file` rewrites such a file in this
layout.
"""

from __future__ import annotations

import io
import json
import os
from typing import Any

import numpy as np

from fastgen.formats.checked import MiB, parse_json, read_npz
from fastgen._compat import REMOVED_IN, deprecated_use
from fastgen._util import atomic_write
from fastgen.errors import NetworkFileError

__all__ = ["FORMAT", "VERSION", "read", "layout", "write"]

FORMAT = "fastgen-network"
VERSION = 1
#: The largest network file read (the arrays it holds, uncompressed): a network at the
#: compiled core's widest layers is far smaller.
LIMIT = 512 * MiB


def _describe(source: Any) -> str:
    return repr(os.fspath(source)) if isinstance(source, (str, os.PathLike)) else repr(source)


def write(target: Any, weights: list, biases: list, inputs: tuple, activation: str,
          extra: dict[str, np.ndarray] | None = None, about: dict | None = None) -> None:
    """Write the layout to *target*, a path (given the ``.npz`` suffix when it has none,
    as numpy does; written whole or not at all) or a binary file object. *extra*: more
    arrays stored beside the network's (a training checkpoint's state, fastgen.train);
    :func:`read` ignores them. *about*: the ``about`` object (JSON-serializable), left
    out when empty."""
    arrays: dict[str, Any] = {**(extra or {}),
        "format": np.array(FORMAT),
        "version": np.array(VERSION),
        "inputs": np.array(list(inputs)),
        "activation": np.array(activation),
    }
    for i, (w, b) in enumerate(zip(weights, biases)):
        arrays[f"w{i}"] = w
        arrays[f"b{i}"] = b
    if about:
        arrays["about"] = np.array(json.dumps(about, sort_keys=True))
    if not isinstance(target, (str, os.PathLike)):
        np.savez_compressed(target, **arrays)
        return
    path = os.fspath(target)
    if not path.endswith(".npz"):
        path += ".npz"
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    with atomic_write(path, "wb") as f:
        f.write(buf.getvalue())


def read(source: Any) -> tuple[list, list, tuple, str, dict]:
    """(weights, biases, inputs, activation, about) of the file *source* (a path or a
    binary file object), as stored (*about* empty when the file has none); :class:`~fastgen.errors.NetworkFileError` naming the file
    when it is missing, not a regular file, larger than the bound, not a network file of
    this layout, damaged or truncated, or of another version (read by
    :func:`fastgen.formats.checked.read_npz`: nothing is allocated before its size is checked
    against the file). The arrays' shapes and values are checked by the network they
    make."""
    return layout(read_npz(source, "network file", NetworkFileError, LIMIT), _describe(source))


#: The arrays of the older one hidden layer layout (with no ``format`` array).
OLD_LAYOUT = frozenset({"w1", "b1", "w2", "b2"})


def is_old_layout(names: Any) -> bool:
    """Whether a file holding the arrays named *names* is in the older one hidden layer
    layout (``w1, b1, w2, b2`` and no ``format`` array), deprecated."""
    names = set(names)
    return "format" not in names and OLD_LAYOUT <= names


def warn_old_layout(what: str, path: str = "OLD.npz") -> None:
    """The DeprecationWarning of reading *what* (the file, as the message names it), a
    weights file in the older layout, at the user's line: it names the converter, given
    *path* as the file to convert."""
    deprecated_use(
        f"{what} is a weights file in the old one hidden layer layout (w1, b1, w2, b2): reading it is deprecated "
        f"and will be removed in fastgen {REMOVED_IN}, which reads only the compiled layout: convert it once with "
        f"`fastgen convert-network {path} NEW.npz` (or fastgen.players.evaluators.convert_network_file)"
    )


def layout(z: dict[str, np.ndarray], name: str) -> tuple[list, list, tuple, str, dict]:
    """(weights, biases, inputs, activation, about) of the arrays *z* of a network file
    already read (:func:`read`'s checks of the layout; *name* names the file in its
    errors): for a reader of a file that holds a network among other arrays."""
    if "format" not in z:
        if is_old_layout(z.keys()):  # read for one more release
            warn_old_layout(name)
            inputs = _texts(z["schemes"], "schemes", name) if "schemes" in z else ("tesauro198",)
            return [z["w1"], z["w2"]], [z["b1"], z["b2"]], inputs, "sigmoid", {}
        raise NetworkFileError(f"{name} is not a fastgen network file: no 'format' array (it holds {sorted(z)!r})")
    if _text(z["format"], "format", name) != FORMAT:
        raise NetworkFileError(f"{name} is not a fastgen network file: format {_text(z['format'], 'format', name)!r}")
    version = z.get("version")
    if version is None or version.shape != () or version.dtype.kind not in "iu" or int(version) != VERSION:
        raise NetworkFileError(
            f"{name} is a fastgen network file of version {_shown(version)}; this fastgen reads version {VERSION}"
        )
    weights: list[Any] = []
    biases: list[Any] = []
    while f"w{len(weights)}" in z:
        i = len(weights)
        if f"b{i}" not in z:
            raise NetworkFileError(f"{name}: layer {i} has weights w{i} but no biases b{i}")
        weights.append(z[f"w{i}"])
        biases.append(z[f"b{i}"])
    if not weights:
        raise NetworkFileError(f"{name}: no layers (arrays w0, b0, ...)")
    for key in ("inputs", "activation"):
        if key not in z:
            raise NetworkFileError(f"{name}: no {key!r} array")
    inputs = _texts(z["inputs"], "inputs", name)
    about = parse_json(_text(z["about"], "about", name), "network file", name, NetworkFileError) if "about" in z else {}
    if not isinstance(about, dict):
        raise NetworkFileError(f"{name}: its 'about' array is not a JSON object: {_text(z['about'], 'about', name)[:80]!r}")
    return weights, biases, inputs, _text(z["activation"], "activation", name), about


def _shown(value: np.ndarray | None) -> str:
    """A stored version for a message: a number as a number, anything else quoted."""
    if value is None:
        return "none"
    return str(int(value)) if value.shape == () and value.dtype.kind in "iu" else repr(str(value)[:40])


def _text(value: np.ndarray, key: str, name: str) -> str:
    """The text held by the 0-d text array *value* (the file's array *key*)."""
    if value.shape != () or value.dtype.kind != "U":
        raise NetworkFileError(f"{name}: its {key!r} array must be one text, got {value.dtype} of shape {value.shape}")
    return str(value)


def _texts(value: np.ndarray, key: str, name: str) -> tuple[str, ...]:
    """The texts held by the text array *value* (one, or a row of them)."""
    if value.ndim > 1 or value.dtype.kind != "U" or value.size > 64:
        raise NetworkFileError(f"{name}: its {key!r} array must be a row of texts, got {value.dtype} of shape "
                               f"{value.shape}")
    return tuple(str(s) for s in np.atleast_1d(value))
