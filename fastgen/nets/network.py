"""A compiled feed-forward network as an evaluator and a player.

``Network(weights, biases, inputs=..., activation=...)`` computes, for each board seen
from its side on roll,

    h_0 = x (the board's inputs: the schemes of *inputs* side by side, fastgen.encode's)
    h_i = act(h_{i-1} @ weights[i-1] + biases[i-1])        for the hidden layers
    y   = sigmoid(h_{L-1} @ weights[L-1] + biases[L-1])    the 5 (or 3) outputs

in float32 in compiled code without the GIL (fastgen/nets/_mlp.h): the inputs are never
materialised; the first layer adds one weight row per non-zero input (about 30 of
Tesauro's 198 units); the candidates of one position go through the first layer
incrementally, each from the previous one by the checkers that differ. Its answer as
an evaluator is the five outputs made consistent (:mod:`fastgen.nets.probs`).

>>> import numpy as np, fastgen
>>> from fastgen.nets import Network
>>> rng = np.random.default_rng(0)
>>> net = Network([rng.normal(0, 0.1, (198, 16)), rng.normal(0, 0.1, (16, 5))], [np.zeros(16), np.zeros(5)])
>>> net(np.stack([fastgen.STARTING_BOARD] * 2)).shape
(2, 5)
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Sequence

import numpy as np

from fastgen._typing import ArrayLike
from fastgen._util import check_int, check_threads, run_in_chunks
from fastgen.core._core import StopFlag
from fastgen.core.boards import as_boards
from fastgen.core.features import COUNT_SCHEMES, count_units, scheme_width
from fastgen.errors import InvalidArgumentError, InvalidNetworkError
from fastgen.nets import _forward, files
from fastgen.nets.lookahead import MAX_PLIES as LOOK_PLIES, NetworkLookahead
from fastgen.nets.onnx_io import read_mlp, write_mlp  # they import the onnx package when called

__all__ = ["Network", "ACTIVATIONS", "MAX_LAYERS", "MAX_WIDTH"]

#: Hidden activations, by name.
ACTIVATIONS = ("sigmoid", "tanh", "relu")
#: The compiled limits: weight layers, and units of the widest hidden layer.
MAX_LAYERS = _forward.MAX_LAYERS
MAX_WIDTH = _forward.MAX_WIDTH
_SCHEME_CODES = {"tesauro198": 0, "raw": 1, "contact": 2}
#: Rows per compiled call (a few ms): Ctrl-C is handled between calls.
CHUNK_ROWS = 1 << 14
#: Games per compiled call of :meth:`Network.choose`.
CHUNK_GAMES = 1 << 11


def _inputs_by_count(inputs: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(2 * 26 * 16, width) float64 inputs each count makes, and the (width,) constant
    inputs, of the schemes side by side (:func:`fastgen.core.features.count_units`); the
    "contact" features' columns are zero there (they go through their own rows)."""
    parts = [count_units(s) if s in COUNT_SCHEMES else
             (np.zeros((2, 26, 16, scheme_width(s)), np.float32), np.zeros(scheme_width(s), np.float32)) for s in inputs]
    units = np.concatenate([u for u, _ in parts], axis=-1).astype(np.float64)
    return units.reshape(-1, units.shape[-1]), np.concatenate([c for _, c in parts]).astype(np.float64)


def _check_inputs(inputs: Any) -> tuple[str, ...]:
    if isinstance(inputs, str):
        inputs = (inputs,)
    try:
        schemes = tuple(inputs)
    except TypeError:
        raise InvalidNetworkError(f"inputs must be a scheme name or a sequence of them, got {inputs!r}") from None
    if not schemes:
        raise InvalidNetworkError(f"inputs must name at least one scheme, got {inputs!r}")
    for s in schemes:
        if s not in _SCHEME_CODES:
            raise InvalidNetworkError(f"unknown input scheme {s!r} in inputs {inputs!r}: expected some of {sorted(_SCHEME_CODES)!r}")
    if schemes.count("contact") > 1:
        raise InvalidNetworkError(f"inputs may name 'contact' once, got {inputs!r}")
    return schemes


def _as_layer(value: Any, what: str, ndim: int) -> np.ndarray:
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise InvalidNetworkError(f"{what} is not an array: {exc}: {value!r}") from None
    if arr.dtype.kind != "f":
        raise InvalidNetworkError(f"{what} must be an array of floats, got dtype {arr.dtype} (shape {arr.shape})")
    if arr.ndim != ndim:
        raise InvalidNetworkError(f"{what} must have {ndim} dimension(s), got shape {arr.shape}")
    out = np.array(arr, dtype=np.float32, order="C")  # a copy: later changes to the caller's arrays do not reach the network
    if not np.isfinite(out).all():
        bad = np.argwhere(~np.isfinite(out))[0]
        raise InvalidNetworkError(f"{what} holds {float(out[tuple(bad)])!r} at {tuple(int(i) for i in bad)!r} (in float32): weights must be finite")
    out.flags.writeable = False
    return out


class Network:
    """A feed-forward network over board inputs, compiled; an evaluator and a player.

    *weights*: a sequence of 1 to :data:`MAX_LAYERS` float arrays, layer *i* of shape
    (inputs of the layer, outputs of the layer), the first taking the inputs' width
    (198 for ``"tesauro198"``, 52 for ``"raw"``, their sum side by side) and the last
    giving 5 outputs (GNU Backgammon's P(win), P(win gammon), P(win backgammon),
    P(lose gammon), P(lose backgammon)) or 3 (P(win), P(win gammon), P(lose gammon));
    hidden layers at most :data:`MAX_WIDTH` wide. *biases*: one (outputs,) array a layer.
    *inputs*: a scheme of :data:`fastgen.core.features.SCHEMES` or a sequence of them,
    side by side. *activation*: the hidden layers' ``"sigmoid"``, ``"tanh"`` or
    ``"relu"``; the outputs are always sigmoids. The weights are copied as float32;
    bad ones raise :class:`~fastgen.errors.InvalidNetworkError` quoting the fault.

    ``Network([w1, w2], [b1, b2])`` computes ``sigmoid(sigmoid(x @ w1 + b1) @ w2 + b2)``,
    what :class:`fastgen.players.evaluators.ReferenceNetwork` (the numpy reference) computes
    with the same weights, to float32 rounding (its :meth:`~fastgen.players.evaluators.ReferenceNetwork.compiled`
    gives this network).

    - ``net(boards)`` / :meth:`evaluate`: (N, 5) float32 probabilities for the side on
      roll, made consistent (:func:`fastgen.nets.probs.make_consistent`); ``threads=``.
    - :meth:`outputs`: the network's own (N, 5 or 3) sigmoid outputs.
    - :meth:`choose`: the greedy player over candidate plays (a policy);
      :func:`fastgen.players.evaluators.greedy` of a network is this.
    - :meth:`save` / :meth:`load`: the ``.npz`` layout of :mod:`fastgen.nets.files`.
    - :attr:`about`: what the network is (*about*, a JSON-serializable dict: its name,
      version, how it was made), kept in its file.
    - Pickling carries the weights once (for Dask workers).
    """

    #: Its answers keep every rule of an evaluator's (see :mod:`fastgen.nets.probs`).
    ordered = True
    #: Its evaluation runs compiled without the GIL (threads run batches side by side) and
    #: reads turned boards (``evaluate(..., turned=True)``).
    nogil = True

    def __init__(self, weights: Sequence[ArrayLike], biases: Sequence[ArrayLike], *,
                 inputs: str | Sequence[str] = "tesauro198", activation: str = "sigmoid",
                 name: str | None = None, about: dict | None = None) -> None:
        self._inputs = _check_inputs(inputs)
        self._about = _check_about(about)
        if activation not in ACTIVATIONS:
            raise InvalidNetworkError(f"activation must be one of {ACTIVATIONS!r}, got {activation!r}")
        self._activation = activation
        if isinstance(weights, np.ndarray) or isinstance(biases, np.ndarray):
            raise InvalidNetworkError("weights and biases must be sequences of arrays, one a layer (a list), not one array")
        weights, biases = list(weights), list(biases)
        if not 1 <= len(weights) <= MAX_LAYERS or len(biases) != len(weights):
            raise InvalidNetworkError(
                f"a network has 1 to {MAX_LAYERS} layers, one bias array each: got {len(weights)} weight and "
                f"{len(biases)} bias arrays"
            )
        ws = [_as_layer(w, f"weights[{i}]", 2) for i, w in enumerate(weights)]
        bs = [_as_layer(b, f"biases[{i}]", 1) for i, b in enumerate(biases)]
        width = sum(scheme_width(s) for s in self._inputs)
        for i, (w, b) in enumerate(zip(ws, bs)):
            if w.shape[0] != width:
                need = f"the inputs' width {width} ({'+'.join(self._inputs)})" if i == 0 else f"layer {i - 1}'s {width} outputs"
                raise InvalidNetworkError(f"weights[{i}] has shape {w.shape}: its first dimension must be {need}")
            if b.shape != (w.shape[1],):
                raise InvalidNetworkError(f"biases[{i}] has shape {b.shape}, weights[{i}] {w.shape}: it must be ({w.shape[1]},)")
            width = w.shape[1]
            if i < len(ws) - 1 and not 1 <= width <= MAX_WIDTH:
                raise InvalidNetworkError(f"weights[{i}] has {width} outputs: a hidden layer has 1 to {MAX_WIDTH} units")
        if width not in (5, 3):
            raise InvalidNetworkError(f"the last layer must have 5 outputs (or 3: P(win), P(win gammon), P(lose gammon)), got {width}")
        self._weights, self._biases = tuple(ws), tuple(bs)
        self._outputs = width
        self.__name__ = name if name is not None else self._describe()
        self._kernel = self._make_kernel()

    def _make_kernel(self) -> Any:
        """The kernel's arrays: the first layer as one row per (side, point, count),
        computed in float64 from the inputs each count makes and rounded once to
        float32; every layer padded with zeros to a multiple of _forward.PAD units."""
        def pad(a: np.ndarray, width: int) -> np.ndarray:
            out = np.zeros(a.shape[:-1] + (width,), dtype=np.float32)
            out[..., : a.shape[-1]] = a
            return out

        def padded(n: int) -> int:
            return (n + _forward.PAD - 1) // _forward.PAD * _forward.PAD

        ws = [w.astype(np.float64) for w in self._weights]
        units, constant = _inputs_by_count(self._inputs)
        p1 = padded(self._weights[0].shape[1])
        table = pad(units.reshape(-1, units.shape[-1]) @ ws[0], p1)
        bias0 = pad(self._biases[0].astype(np.float64) + constant @ ws[0], p1)
        n = len(self._weights)
        hidden_w = [pad(self._weights[i], padded(self._weights[i].shape[1])) for i in range(1, n - 1)]
        hidden_b = [pad(self._biases[i], padded(self._biases[i].shape[0])) for i in range(1, n - 1)]
        last_t = pad(np.ascontiguousarray(self._weights[-1].T), padded(self._weights[-1].shape[0]))
        extra = None
        if "contact" in self._inputs:
            at = sum(scheme_width(s) for s in self._inputs[: self._inputs.index("contact")])
            extra = pad(self._weights[0][at : at + scheme_width("contact")], p1)
        return _forward.Kernel(table, bias0, hidden_w, hidden_b, last_t, np.ascontiguousarray(self._biases[-1]),
                               list(self.sizes), ACTIVATIONS.index(self._activation), self._outputs, extra)

    def _describe(self) -> str:
        sizes = [self._weights[0].shape[0]] + [w.shape[1] for w in self._weights]
        return f"network({'+'.join(self._inputs)}, {'-'.join(map(str, sizes))}, {self._activation})"

    # ------------------------------------------------------------------ what it is

    @property
    def weights(self) -> tuple[np.ndarray, ...]:
        """The layers' weights, float32 (in, out), read-only."""
        return self._weights

    @property
    def biases(self) -> tuple[np.ndarray, ...]:
        """The layers' biases, float32, read-only."""
        return self._biases

    @property
    def inputs(self) -> tuple[str, ...]:
        """The input schemes, side by side."""
        return self._inputs

    @property
    def activation(self) -> str:
        """The hidden layers' activation."""
        return self._activation

    @property
    def n_outputs(self) -> int:
        """5, or 3 (P(win), P(win gammon), P(lose gammon))."""
        return self._outputs

    @property
    def sizes(self) -> tuple[int, ...]:
        """The layers' widths, inputs first: (198, 128, 5)."""
        return (self._weights[0].shape[0],) + tuple(w.shape[1] for w in self._weights)

    @property
    def about(self) -> dict:
        """What the network is, as its maker wrote it (a copy; empty when nothing was
        written): for the shipped baseline its ``name``, ``version``, the ``recipe``
        that trained it and the ``games`` it was trained on. Not part of :meth:`digest`."""
        return json.loads(json.dumps(self._about))

    def digest(self) -> str:
        """The SHA-256 (hex) of what the network computes: inputs, activation, float32
        weights (shapes and bytes); the name is left out. What ``out=`` directories of
        rollouts record for it."""
        h = hashlib.sha256(b"fastgen-nets-network/1\0")
        h.update(("+".join(self._inputs) + "\0" + self._activation + "\0").encode())
        for a in self._weights + self._biases:
            h.update(repr(a.shape).encode() + b"\0")
            h.update(a.astype("<f4").tobytes())
        return h.hexdigest()

    def __repr__(self) -> str:
        return f"<fastgen.nets.Network {self.__name__}>"

    @property
    def name(self) -> str:
        """The name it goes by in results and messages (``name=`` or its shape)."""
        return self.__name__

    #: fastgen's players trust its answers: they are probabilities by construction
    #: (made consistent, :func:`fastgen.nets.probs.make_consistent`).
    trusted = True
    #: Its five outputs keep the order rules (made consistent).
    ordered = True
    #: The classes of position it answers for: all.
    classes = ("contact", "race", "bearoff")

    def __reduce__(self) -> Any:
        return (_rebuild, (self._weights, self._biases, self._inputs, self._activation, self.__name__, self._about))

    # ------------------------------------------------------------------ evaluation

    def _rows(self, boards: Any, raw: bool, threads: Any, turned: bool = False) -> np.ndarray:
        threads = check_threads(threads)
        arr = as_boards(boards)
        n = arr.shape[0]
        out = np.empty((n, self._outputs if raw else 5), dtype=np.float32)
        kernel = self._kernel
        swap = bool(turned)
        run_in_chunks(lambda lo, hi: kernel.rows(arr, swap, raw, out, lo, hi),
                      n, CHUNK_ROWS, max(1, min(threads, n // 1024 or 1)), StopFlag())
        return out

    def evaluate(self, boards: ArrayLike, *, threads: int = 1, turned: bool = False) -> np.ndarray:
        """(N, 5) float32 probabilities of (N, 2, 25) *boards* for the side on roll (row
        1), made consistent; the same for any *threads* (rows are independent). With
        *turned*, each board is read with its rows swapped (row 0 on roll): the positions
        after the plays of ``plays_batch``, valued for the opponent on roll next, with no
        copy to turn them around. The boards are checked once
        (:class:`~fastgen.errors.InvalidBoardError`)."""
        return self._rows(boards, False, threads, turned)

    def __call__(self, boards: ArrayLike, *, threads: int = 1) -> np.ndarray:
        return self._rows(boards, False, threads)

    def outputs(self, boards: ArrayLike, *, threads: int = 1) -> np.ndarray:
        """(N, K) float32: the network's own sigmoid outputs (K = 5 or 3), not made
        consistent."""
        return self._rows(boards, True, threads)

    def choose(self, candidates: ArrayLike, offsets: ArrayLike, *, threads: int = 1) -> np.ndarray:
        """The greedy player: for each game *g*, the index (relative to
        ``offsets[g]``) of the candidate of ``candidates[offsets[g]:offsets[g+1]]`` (the
        mover in row 1, a play's result) best for the mover: the lowest equity for the
        opponent, on roll next, ties to the first. A play that bears off the mover's last
        checker is scored exactly. A five-output network scores the others by cubeless
        equity (float64) of its consistent probabilities, a three-output network by its
        own outputs' equity in float32 (as :class:`fastgen.players.evaluators.ReferenceNetwork` plays).
        The first layer of each candidate after a game's first is updated from the
        previous candidate's. (G,) int64; the same for any *threads*."""
        cand, offs = _check_candidates(candidates, offsets)
        return self._choose(cand, offs, None, threads)

    def play_values(self, candidates: ArrayLike, offsets: ArrayLike) -> np.ndarray:
        """(M,) float64: each candidate's cubeless equity for the mover, as :meth:`choose`
        scores them (its choice is each game's first maximum)."""
        cand, offs = _check_candidates(candidates, offsets)
        values = np.empty(cand.shape[0], dtype=np.float64)
        self._choose(cand, offs, values, 1)
        return values

    def _choose(self, cand: np.ndarray, offs: np.ndarray, values: np.ndarray | None, threads: Any) -> np.ndarray:
        threads = check_threads(threads)
        games = offs.shape[0] - 1
        choice = np.zeros(games, dtype=np.int64)
        vals = values if values is not None else np.empty(cand.shape[0], dtype=np.float64)
        kernel = self._kernel
        run_in_chunks(lambda g0, g1: kernel.choose(cand, offs, choice, vals, g0, g1),
                      games, CHUNK_GAMES, max(1, min(threads, games // 64 or 1)), StopFlag())
        return choice

    def at_ply(self, plies: int) -> "Network | NetworkLookahead":
        """This network at *plies* (0 to :data:`fastgen.nets.lookahead.MAX_PLIES`): itself at
        0, its compiled look ahead above (:class:`~fastgen.nets.lookahead.NetworkLookahead`,
        named ``NAME:N``), what :class:`fastgen.Search` looks through ply by ply."""
        if isinstance(plies, bool) or not isinstance(plies, int) or not 0 <= plies <= LOOK_PLIES:
            raise InvalidArgumentError(f"a network looks 0 to {LOOK_PLIES} plies ahead, got plies={plies!r}")
        return self if plies == 0 else NetworkLookahead(self, plies)

    def chooser(self) -> Any:
        """This network's greedy play (:meth:`choose`) as the compiled game loops call it,
        a C function with scratch memory of its own (one a thread): what
        :func:`fastgen.rollout` and :func:`fastgen.duel` hand the core to play a compiled
        network's games whole, with no Python a turn."""
        return self._kernel.chooser()

    # ------------------------------------------------------------------ files

    def save(self, path: Any) -> None:
        """Write the network as :mod:`fastgen.nets.files` lays it out: a path (given the
        ``.npz`` suffix when it has none; whole or not at all) or a binary file object."""
        files.write(path, list(self._weights), list(self._biases), self._inputs, self._activation, about=self._about)

    @classmethod
    def load(cls, source: Any, *, name: str | None = None) -> "Network":
        """The network of a file :meth:`save` wrote (or a one hidden layer file of
        :class:`fastgen.players.evaluators.ReferenceNetwork`); :class:`~fastgen.errors.NetworkFileError`
        naming the file when it cannot be read, InvalidNetworkError when its weights are
        bad."""
        weights, biases, inputs, activation, about = files.read(source)
        return cls(weights, biases, inputs=inputs, activation=activation, name=name, about=about)

    @classmethod
    def from_onnx(cls, path: Any, *, inputs: str | Sequence[str] = "tesauro198", name: str | None = None) -> "Network":
        """The network of an ONNX file holding a plain multilayer perceptron (Gemm, or
        MatMul and Add, layers; Sigmoid, Tanh or Relu between them; a final Sigmoid over
        5 or 3 outputs), as PyTorch or JAX export one (the ``onnx`` extra); *inputs*:
        the schemes its input was trained on. Other graphs raise
        :class:`~fastgen.errors.NetworkFileError` naming the operator; run them with
        :func:`fastgen.players.evaluators.onnx` instead."""
        weights, biases, activation = read_mlp(path)
        return cls(weights, biases, inputs=inputs, activation=activation, name=name)

    def to_onnx(self, path: Any) -> str:
        """Write the network as an ONNX graph (Gemm layers, opset 17, input ``inputs`` of
        shape (N, width), output ``probabilities``: the raw sigmoid outputs) and return
        the path; the ``onnx`` extra. :meth:`from_onnx` reads it back exactly."""
        return write_mlp(path, list(self._weights), list(self._biases), self._activation)


def _rebuild(weights: Any, biases: Any, inputs: Any, activation: str, name: str, about: Any = None) -> Network:
    return Network(weights, biases, inputs=inputs, activation=activation, name=name, about=about)


def _check_about(about: Any) -> dict:
    """*about* as a plain dict that JSON keeps exactly; InvalidNetworkError quoting it
    otherwise."""
    if about is None:
        return {}
    if not isinstance(about, dict):
        raise InvalidNetworkError(f"about must be a dict (JSON object), got {about!r}")
    try:
        text = json.dumps(about, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidNetworkError(f"about must hold JSON values only: {exc}: {about!r}") from None
    except RecursionError:
        raise InvalidNetworkError(f"about nests too deeply to be kept as JSON: {str(about)[:80]!r}") from None
    back = json.loads(text)
    if back != about:
        raise InvalidNetworkError(f"about must have text keys and JSON values that read back the same, got {about!r}")
    return back


def _check_candidates(candidates: Any, offsets: Any) -> tuple[np.ndarray, np.ndarray]:
    cand = as_boards(candidates)
    try:
        offs = np.asarray(offsets)
    except (TypeError, ValueError):
        offs = np.asarray([])
    if offs.ndim != 1 or offs.shape[0] < 1 or offs.dtype.kind not in "iu":
        raise InvalidArgumentError(f"offsets must be a 1-D array of integers (G + 1,), got {offsets!r}")
    offs = np.ascontiguousarray(offs, dtype=np.int64)
    if offs[0] != 0 or offs[-1] != cand.shape[0] or (np.diff(offs) < 1).any():
        raise InvalidArgumentError(
            f"offsets must start at 0, end at the number of candidates ({cand.shape[0]}) and rise by at least 1 "
            f"a game (every game has a candidate), got {offsets!r}"
        )
    return cand, offs
