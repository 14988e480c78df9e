"""Networks in and out of ONNX files (the ``onnx`` extra: ``pip install "fastgen-backgammon[onnx]"``).

- :func:`read_mlp` reads a plain multilayer perceptron from an ONNX file into numpy
  weights, biases and the name of its hidden activation;
- :func:`write_mlp` writes such weights as an ONNX file any ONNX runtime can run;
- :class:`OnnxEvaluator` runs any ONNX graph through onnxruntime as a fastgen evaluator
  (``fastgen.players.evaluators.onnx`` makes one).

A multilayer perceptron here is what a network trained for backgammon usually is: one
float input ``[N, inputs]``, then layers ``x @ W + b`` each followed by the same hidden
activation (``Sigmoid``, ``Tanh`` or ``Relu``), the last followed by ``Sigmoid`` over five
outputs: P(win), P(win gammon), P(win backgammon), P(lose gammon), P(lose backgammon) for
the side on roll. A layer is a ``Gemm`` node (``transA`` 0, ``transB`` 0 or 1; ``alpha``
and ``beta`` are folded into the weights) or a ``MatMul`` then an ``Add``; weights come
from initializers or ``Constant`` nodes. ``Identity`` nodes, and ``Flatten`` of the 2-D
tensor, are passed over. Every node must be of the default ONNX operator domain (``""``,
which ``"ai.onnx"`` also names; operator set 7 or later): a node of another domain is
refused, whatever its operator's name. The ``onnx`` and ``onnxruntime`` packages are imported only when
a file is read, written or run.
"""

from __future__ import annotations

import hashlib
import os
import threading
from typing import Any, Sequence

import numpy as np

from fastgen.core.features import encode_trusted, scheme_width
from fastgen.errors import InvalidArgumentError, InvalidNetworkError, NetworkFileError, UnknownSchemeError
from fastgen.nets.probs import check_probs, make_consistent
from fastgen.formats.checked import MiB, read_bytes
from fastgen._util import atomic_write, check_int, check_threads, install_hint

__all__ = ["read_mlp", "write_mlp", "OnnxEvaluator", "ACTIVATIONS", "OPSET"]

#: The hidden activations fastgen runs, by their ONNX operator.
ACTIVATIONS = {"Sigmoid": "sigmoid", "Tanh": "tanh", "Relu": "relu"}
#: The ONNX operator set :func:`write_mlp` writes (and the IR version that goes with it).
OPSET = 17
_IR_VERSION = 8
#: The names of the default ONNX operator domain, the only one :func:`read_mlp` reads.
DEFAULT_DOMAINS = ("", "ai.onnx")
#: The oldest default operator set :func:`read_mlp` reads (its Gemm and Add broadcast a
#: bias row as the reader assumes).
MIN_OPSET = 7
#: The number of outputs of a network: the evaluator's five probabilities.
OUTPUTS = 5
_NOT_MLP = "is not part of a multilayer perceptron fastgen runs"


def _import_onnx() -> Any:
    try:
        import onnx  # lazy: the onnx extra
        import onnx.numpy_helper  # lazy: the onnx extra
    except ImportError:
        raise NetworkFileError(f"reading and writing ONNX files needs the onnx package: {install_hint('onnx')}") from None
    return onnx


#: The largest ONNX file read: 2 GiB, protobuf's limit on one serialized message, so
#: the largest model ``onnx`` can load from one file (larger models keep their weights in
#: external data files, which fastgen does not read). The bound is checked before reading.
MAX_ONNX_BYTES = 2 * 1024 * MiB


def _read_bytes(path: Any) -> tuple[str, bytes]:
    """(name, bytes) of the ONNX file *path*, read by :func:`fastgen.formats.checked.read_bytes`:
    a regular file only (a FIFO or a device is refused at once, never waited on), of at
    most :data:`MAX_ONNX_BYTES`."""
    try:
        name = os.fspath(path)
    except TypeError:
        raise NetworkFileError(f"an ONNX file is named by a path, got {path!r}") from None
    return name, read_bytes(name, "ONNX file", NetworkFileError, limit=MAX_ONNX_BYTES)


def _parse(onnx: Any, name: str, data: bytes) -> Any:
    try:
        model = onnx.load_model_from_string(data)
    except Exception as exc:  # protobuf's DecodeError and kin: truncated or other bytes
        raise NetworkFileError(f"{name}: not an ONNX model (truncated or another kind of file): {exc}") from None
    if model.ir_version <= 0 or not model.graph.node:
        raise NetworkFileError(f"{name}: not an ONNX model (no IR version or no graph nodes)")
    try:
        onnx.checker.check_model(model)
    except Exception as exc:  # onnx.checker.ValidationError
        raise NetworkFileError(f"{name}: not a valid ONNX model: {exc}") from None
    return model


def _check_domains(name: str, model: Any) -> None:
    """Refuse a model :func:`read_mlp` would misread: a node of another operator domain
    than the default ONNX one (a custom ``Sigmoid`` is not ONNX's, whatever its name), or
    a default operator set older than :data:`MIN_OPSET`."""
    for node in model.graph.node:
        if node.domain not in DEFAULT_DOMAINS:
            raise NetworkFileError(
                f"{name}: node {node.name!r} ({node.op_type}) is of the operator domain {node.domain!r}, not the "
                f"default ONNX domain: {_NOT_MLP} (it reads ONNX's own operators only)"
            )
    versions = [o.version for o in model.opset_import if o.domain in DEFAULT_DOMAINS]
    if not versions:
        raise NetworkFileError(f"{name}: the model imports no version of the default ONNX operator set")
    if min(versions) < MIN_OPSET:
        raise NetworkFileError(
            f"{name}: the model imports the default ONNX operator set at version {min(versions)}; fastgen reads "
            f"version {MIN_OPSET} and later (before it, Gemm and Add broadcast a bias only when told to)"
        )


def _attrs(onnx: Any, node: Any) -> dict[str, Any]:
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def _constants(onnx: Any, graph: Any) -> dict[str, np.ndarray]:
    """Every initializer and Constant node output of *graph*, by tensor name."""
    values = {t.name: onnx.numpy_helper.to_array(t) for t in graph.initializer}
    for node in graph.node:
        attrs = _attrs(onnx, node) if node.op_type == "Constant" else {}
        if "value" in attrs:
            values[node.output[0]] = onnx.numpy_helper.to_array(attrs["value"])
        elif attrs.keys() & {"value_float", "value_floats", "value_int", "value_ints"}:
            values[node.output[0]] = np.asarray(next(iter(attrs.values())))  # ints are refused as weights
    return values


def _weight(name: str, node: Any, tensor: str, constants: dict[str, np.ndarray], what: str) -> np.ndarray:
    """The constant *tensor* of *node*, checked to be floats, all finite."""
    if tensor not in constants:
        raise NetworkFileError(
            f"{name}: the {what} {tensor!r} of node {node.name!r} ({node.op_type}) is not an initializer "
            f"or a Constant: {_NOT_MLP} (weights must be fixed)"
        )
    value = constants[tensor]
    if value.dtype.kind != "f":
        raise NetworkFileError(f"{name}: the {what} {tensor!r} of node {node.name!r} is {value.dtype}, not float")
    if not np.isfinite(value).all():
        raise NetworkFileError(f"{name}: the {what} {tensor!r} of node {node.name!r} holds NaN or infinity")
    return value


def _dims(value_info: Any) -> list[int | str]:
    """The dimensions of a graph input or output (an int, or the symbol / "?" when not fixed)."""
    dims = value_info.type.tensor_type.shape.dim
    return [d.dim_value if d.HasField("dim_value") else (d.dim_param or "?") for d in dims]


def _operator_error(name: str, node: Any, why: str) -> NetworkFileError:
    return NetworkFileError(f"{name}: operator {node.op_type!r} (node {node.name!r}) {_NOT_MLP}: {why}")


def _bias(name: str, node: Any, tensor: str, constants: dict[str, np.ndarray], width: int,
          scale: float) -> np.ndarray:
    """The (width,) float32 bias *tensor* of *node* (stored (width,) or (1, width)) times *scale*."""
    b = _weight(name, node, tensor, constants, "bias").astype(np.float64)
    if b.shape not in ((width,), (1, width)):
        raise _operator_error(name, node, f"bias of shape {b.shape} is not ({width},) or (1, {width})")
    return (b.reshape(width) * scale).astype(np.float32)


def read_mlp(path: Any) -> tuple[list[np.ndarray], list[np.ndarray], str]:
    """The multilayer perceptron of the ONNX file *path* (see the module docstring for
    the graphs read): ``(weights, biases, activation)`` where ``weights[i]`` is float32
    ``(in, out)``, ``biases[i]`` float32 ``(out,)`` and *activation* the hidden layers'
    activation, ``"sigmoid"``, ``"tanh"`` or ``"relu"`` (``"sigmoid"`` for a network of
    one layer). The network computes ``sigmoid(act(...act(x @ W0 + b0)...) @ Wk + bk)``.

    A file that cannot be read (missing, truncated, not ONNX) or a graph of another shape
    (another operator, an operator of another domain than ONNX's, a branch, no final
    sigmoid, not five outputs, shapes that do not chain, NaN or infinite weights) raises
    :class:`~fastgen.errors.NetworkFileError` naming the file and the node at fault."""
    onnx = _import_onnx()
    name, data = _read_bytes(path)
    model = _parse(onnx, name, data)
    _check_domains(name, model)
    graph = model.graph
    constants = _constants(onnx, graph)
    inputs = [i for i in graph.input if i.name not in constants]
    if len(inputs) != 1 or len(graph.output) != 1:
        raise NetworkFileError(
            f"{name}: a multilayer perceptron has one input and one output, this graph has inputs "
            f"{[i.name for i in inputs]!r} and outputs {[o.name for o in graph.output]!r}"
        )
    source = inputs[0]
    dims = _dims(source)
    if source.type.tensor_type.elem_type != onnx.TensorProto.FLOAT or len(dims) != 2:
        raise NetworkFileError(
            f"{name}: the input {source.name!r} must be a float tensor [N, inputs], got "
            f"{onnx.TensorProto.DataType.Name(source.type.tensor_type.elem_type)} {dims}"
        )
    width: int | None = dims[1] if isinstance(dims[1], int) and dims[1] > 0 else None
    nodes = [n for n in graph.node if n.op_type != "Constant"]
    consumers: dict[str, list[Any]] = {}
    for node in nodes:
        for tensor in set(node.input):
            consumers.setdefault(tensor, []).append(node)

    weights: list[np.ndarray] = []
    biases: list[np.ndarray] = []
    kinds: list[str] = []
    state = "input"  # "input", "linear" (a layer waiting for its activation), "matmul", "active"
    current = source.name
    seen = set()
    while True:
        following = consumers.get(current, [])
        if not following:
            break
        if len(following) > 1 or current == graph.output[0].name:
            names = ", ".join(f"{n.name!r} ({n.op_type})" for n in following)
            raise NetworkFileError(f"{name}: the tensor {current!r} goes to several places ({names}): "
                                   f"a branch, {_NOT_MLP}")
        node = following[0]
        seen.add(id(node))
        extra = [t for t in node.input if t and t != current]
        if list(node.input).count(current) != 1 or len(node.output) != 1:
            raise _operator_error(name, node, f"it takes {current!r} more than once or gives several outputs")
        op = node.op_type
        attrs = _attrs(onnx, node)
        if op in ("Identity", "Flatten"):
            if op == "Flatten" and attrs.get("axis", 1) not in (1, -1):
                raise _operator_error(name, node, f"axis {attrs['axis']} does not keep the [N, width] tensor")
        elif op in ("Gemm", "MatMul"):
            if state in ("linear", "matmul"):
                raise _operator_error(name, node, "two linear layers follow each other with no activation")
            if node.input[0] != current:
                raise _operator_error(name, node, f"the layer's input {current!r} must be its first operand")
            if op == "Gemm" and attrs.get("transA", 0) != 0:
                raise _operator_error(name, node, "transA=1 transposes the batch")
            w = _weight(name, node, node.input[1], constants, "weights").astype(np.float64)
            if op == "Gemm" and attrs.get("transB", 0):
                w = w.T
            if w.ndim != 2 or (width is not None and w.shape[0] != width):
                raise _operator_error(name, node, f"weights of shape {w.shape} do not take {width} inputs")
            # alpha and beta folded in float64, then rounded once (exact when they are 1)
            weights.append((w * float(attrs.get("alpha", 1.0))).astype(np.float32))
            width = w.shape[1]
            has_c = op == "Gemm" and len(node.input) > 2 and node.input[2]
            biases.append(_bias(name, node, node.input[2], constants, width, float(attrs.get("beta", 1.0)))
                          if has_c else np.zeros(width, dtype=np.float32))
            state = "linear" if op == "Gemm" else "matmul"
        elif op == "Add" and state == "matmul":
            biases[-1] = _bias(name, node, extra[0] if len(extra) == 1 else "", constants, len(biases[-1]), 1.0)
            state = "linear"
        elif op in ACTIVATIONS and state in ("linear", "matmul"):
            kinds.append(ACTIVATIONS[op])
            state = "active"
        elif op in ACTIVATIONS or op == "Add":
            raise _operator_error(name, node, "it does not follow a linear layer (Gemm, or MatMul and Add)")
        else:
            raise _operator_error(name, node, f"the operators read are Gemm, MatMul, Add, "
                                              f"{', '.join(ACTIVATIONS)}, Identity and Flatten")
        if op not in ("Gemm", "MatMul", "Add") and extra:
            raise _operator_error(name, node, f"it takes other inputs {extra!r}")
        current = node.output[0]

    left = [n for n in nodes if id(n) not in seen]
    if left:
        raise _operator_error(name, left[0], f"it is off the chain from the input {source.name!r}: a branch")
    if current != graph.output[0].name:
        raise NetworkFileError(f"{name}: the chain from the input ends at {current!r}, not at the output "
                               f"{graph.output[0].name!r}")
    if state != "active" or kinds[-1] != "sigmoid":
        last = {"input": "no layer", "active": kinds[-1] if kinds else ""}.get(state, "a linear layer")
        raise NetworkFileError(f"{name}: the network must end with a linear layer and a Sigmoid, it ends with {last}")
    if width != OUTPUTS:
        raise NetworkFileError(f"{name}: the network has {width} outputs, not the {OUTPUTS} probabilities of an evaluator")
    if len(set(kinds[:-1])) > 1:
        raise NetworkFileError(f"{name}: the hidden layers mix activations {kinds[:-1]!r}; fastgen runs one kind")
    return weights, biases, kinds[0] if len(kinds) > 1 else "sigmoid"


def _check_mlp(weights: Any, biases: Any, activation: Any) -> tuple[list[np.ndarray], list[np.ndarray]]:
    if activation not in ACTIVATIONS.values():
        raise InvalidNetworkError(f"activation must be one of {sorted(ACTIVATIONS.values())!r}, got {activation!r}")
    if isinstance(weights, np.ndarray) or isinstance(biases, np.ndarray):
        raise InvalidNetworkError(f"weights and biases are lists of arrays, one per layer, got {type(weights).__name__} "
                                  f"and {type(biases).__name__}")
    try:
        ws = [np.asarray(w) for w in weights]
        bs = [np.asarray(b) for b in biases]
    except (TypeError, ValueError) as exc:
        raise InvalidNetworkError(f"weights and biases must be lists of numeric arrays: {exc}") from None
    if not ws or len(ws) != len(bs):
        raise InvalidNetworkError(f"one bias per weight matrix, at least one layer: got {len(ws)} weights and {len(bs)} biases")
    out_w, out_b = [], []
    width = None
    for i, (w, b) in enumerate(zip(ws, bs)):
        if w.dtype.kind not in "fiu" or b.dtype.kind not in "fiu":
            raise InvalidNetworkError(f"layer {i}: weights and bias must be numbers, got {w.dtype} and {b.dtype}")
        if w.ndim != 2 or (width is not None and w.shape[0] != width) or b.shape != (w.shape[1],):
            raise InvalidNetworkError(
                f"layer {i}: weights (in, out) and bias (out,) must chain from {width or 'the inputs'}, "
                f"got {w.shape} and {b.shape}"
            )
        w32, b32 = np.ascontiguousarray(w, dtype=np.float32), np.ascontiguousarray(b, dtype=np.float32)
        if not (np.isfinite(w32).all() and np.isfinite(b32).all()):
            raise InvalidNetworkError(f"layer {i}: weights or bias hold NaN or infinity (in float32)")
        out_w.append(w32)
        out_b.append(b32)
        width = w.shape[1]
    if width != OUTPUTS:
        raise InvalidNetworkError(f"the last layer gives {width} outputs, not the {OUTPUTS} probabilities of an evaluator")
    return out_w, out_b


def write_mlp(path: Any, weights: Sequence[Any], biases: Sequence[Any], activation: str, *,
              input_name: str = "inputs", output_name: str = "probabilities") -> str:
    """Write the multilayer perceptron ``sigmoid(act(...act(x @ W0 + b0)...) @ Wk + bk)``
    as the ONNX file *path* (operator set 17; a ``Gemm`` node per layer, then *activation*,
    ``"sigmoid"``, ``"tanh"`` or ``"relu"``, after each hidden layer and ``Sigmoid`` after
    the last), whole or not at all. *weights* are ``(in, out)`` matrices and *biases*
    ``(out,)`` vectors, stored as float32; the last layer has five outputs. The input is
    *input_name* ``[N, in]`` (N symbolic), the output *output_name* ``[N, 5]``. Returns
    the path; :func:`read_mlp` reads the same float32 arrays back.

    Weights that do not chain, are not five outputs or hold NaN or infinity raise
    :class:`~fastgen.errors.InvalidNetworkError` saying what was wrong."""
    ws, bs = _check_mlp(weights, biases, activation)
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidArgumentError(f"write_mlp writes a file named by a path, got {path!r}")
    for label, value in (("input_name", input_name), ("output_name", output_name)):
        if not isinstance(value, str) or not value or value.startswith("fastgen/"):
            raise InvalidArgumentError(f"{label} must be a non-empty name not starting 'fastgen/', got {value!r}")
    if input_name == output_name:
        raise InvalidArgumentError(f"input_name and output_name must differ, both are {input_name!r}")
    target = os.fspath(path)
    onnx = _import_onnx()
    helper, numpy_helper = onnx.helper, onnx.numpy_helper
    op = next(k for k, v in ACTIVATIONS.items() if v == activation)
    initializers, nodes = [], []
    current = input_name
    for i, (w, b) in enumerate(zip(ws, bs)):
        last = i == len(ws) - 1
        initializers += [numpy_helper.from_array(w, f"fastgen/w{i}"), numpy_helper.from_array(b, f"fastgen/b{i}")]
        linear = f"fastgen/layer{i}/linear"
        nodes.append(helper.make_node("Gemm", [current, f"fastgen/w{i}", f"fastgen/b{i}"], [linear],
                                      name=f"layer{i}/gemm", transB=0))
        current = output_name if last else f"fastgen/layer{i}/out"
        kind = "Sigmoid" if last else op
        nodes.append(helper.make_node(kind, [linear], [current], name=f"layer{i}/{kind.lower()}"))
    graph = helper.make_graph(
        nodes, "fastgen-mlp",
        [helper.make_tensor_value_info(input_name, onnx.TensorProto.FLOAT, ["N", ws[0].shape[0]])],
        [helper.make_tensor_value_info(output_name, onnx.TensorProto.FLOAT, ["N", OUTPUTS])],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="fastgen")
    model.ir_version = _IR_VERSION
    onnx.checker.check_model(model)
    data = model.SerializeToString()
    with atomic_write(target, "wb") as f:
        f.write(data)
    return target


# --------------------------------------------------------------------------- onnxruntime

_ORT_FLOATS = {"tensor(float)": np.float32, "tensor(double)": np.float64, "tensor(float16)": np.float16}


class OnnxEvaluator:
    """Any ONNX graph run by onnxruntime (CPU) as a fastgen evaluator.

    The boards are encoded with the input schemes *inputs* side by side
    (:func:`fastgen.encode` of each, in order: ``("tesauro198",)`` gives 198 inputs,
    ``("tesauro198", "raw")`` 250), fed to the graph's one input in batches of at most
    *batch* positions, and the graph's first output, which must be (N, 5) floats, is
    made consistent (:func:`fastgen.nets.probs.make_consistent`), checked by
    :func:`fastgen.nets.probs.check_probs` (a graph answering NaN or a value outside
    [0, 1], one without a final ``Sigmoid`` for instance, raises
    :class:`~fastgen.errors.InvalidOutputError` naming it and the position) and answered
    as float32 probabilities. onnxruntime uses *threads* threads within each batch.

    The model's bytes are kept: an evaluator pickles as those bytes and its options (so
    it can be sent to Dask workers) and opens its onnxruntime session again when first
    called after unpickling. :meth:`digest` identifies what it computes (for resumable
    rollouts). A file that cannot be read or run, a graph whose input width is not the
    schemes' or whose output is not (N, 5) floats raises
    :class:`~fastgen.errors.NetworkFileError` naming the file."""

    #: The answers are made consistent, so every rule of fastgen.nets.probs.check_probs applies.
    ordered = True

    def __init__(self, path: Any, inputs: Sequence[str] = ("tesauro198",), *, threads: int = 1,
                 batch: int = 65536) -> None:
        if isinstance(inputs, str):
            inputs = (inputs,)
        try:
            schemes = tuple(inputs)
        except TypeError:
            raise UnknownSchemeError(f"inputs must be a sequence of encoding schemes, got {inputs!r}") from None
        if not schemes:
            raise InvalidArgumentError(f"inputs must name at least one encoding scheme, got {inputs!r}")
        self.width = sum(scheme_width(s) for s in schemes)
        self.schemes = schemes
        self.threads = check_threads(threads)
        self.batch = check_int(batch, "batch", 1)
        self.path, self._model = _read_bytes(path)
        self.__name__ = f"onnx({os.path.basename(self.path)})"
        self._digest: str | None = None
        self._lock = threading.Lock()
        self._session: Any = None
        self._session_or_open()  # a bad file fails here, not at the first position

    def _session_or_open(self) -> Any:
        with self._lock:
            if self._session is None:
                self._session = self._open()
            return self._session

    def _open(self) -> Any:
        try:
            import onnxruntime  # lazy: the onnx extra
        except ImportError:
            raise NetworkFileError(f"{self.path}: running an ONNX graph needs onnxruntime: {install_hint('onnx')}") from None
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = 1
        try:
            session = onnxruntime.InferenceSession(self._model, options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime's own errors: an invalid or unsupported graph
            raise NetworkFileError(f"{self.path}: onnxruntime cannot run this file: {exc}") from None
        ins, outs = session.get_inputs(), session.get_outputs()
        if len(ins) != 1:
            raise NetworkFileError(f"{self.path}: the graph must have one input, it has {[i.name for i in ins]!r}")
        shape = list(ins[0].shape)
        if ins[0].type not in _ORT_FLOATS or len(shape) != 2:
            raise NetworkFileError(f"{self.path}: the input {ins[0].name!r} must be floats [N, width], got {ins[0].type} {shape}")
        if isinstance(shape[1], int) and shape[1] != self.width:
            raise NetworkFileError(
                f"{self.path}: the graph takes {shape[1]} inputs but the schemes {self.schemes!r} give {self.width}"
            )
        out_shape = list(outs[0].shape)
        if outs[0].type not in _ORT_FLOATS or len(out_shape) != 2 or \
                (isinstance(out_shape[1], int) and out_shape[1] != OUTPUTS):
            raise NetworkFileError(
                f"{self.path}: the output {outs[0].name!r} must be floats [N, {OUTPUTS}], got {outs[0].type} {out_shape}"
            )
        self._feed = (ins[0].name, _ORT_FLOATS[ins[0].type], outs[0].name)
        return session

    def features(self, boards: np.ndarray) -> np.ndarray:
        """(N, width) float32 inputs of (N, 2, 25) boards: the schemes side by side."""
        parts = [encode_trusted(boards, s, threads=self.threads) for s in self.schemes]
        return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1)

    def __call__(self, boards: np.ndarray) -> np.ndarray:
        session = self._session_or_open()
        in_name, in_type, out_name = self._feed
        boards = np.ascontiguousarray(boards, dtype=np.int8)
        n = boards.shape[0]
        out = np.empty((n, OUTPUTS), dtype=np.float32)
        for lo in range(0, n, self.batch):
            hi = min(lo + self.batch, n)
            x = self.features(boards[lo:hi]).astype(in_type, copy=False)
            try:
                y = session.run([out_name], {in_name: x})[0]
            except Exception as exc:  # onnxruntime's errors: shapes the graph refuses at run time
                raise NetworkFileError(f"{self.path}: onnxruntime failed on {hi - lo} positions: {exc}") from None
            y = np.asarray(y)
            if y.shape != (hi - lo, OUTPUTS) or y.dtype.kind != "f":
                raise NetworkFileError(
                    f"{self.path}: the graph answered {y.dtype} {y.shape} for {hi - lo} positions, "
                    f"not ({hi - lo}, {OUTPUTS}) floats"
                )
            out[lo:hi] = y
        make_consistent(out)
        # A graph is any graph (one without a final Sigmoid answers values outside [0, 1]):
        # its answer is checked here, for every caller, not only by the simulations.

        check_probs(out, boards, self.__name__, True)
        return out

    def digest(self) -> str:
        """The SHA-256 (hex) of the model's bytes and the input schemes: two evaluators with
        the same digest give the same answers (what rollouts' ``out=`` directories record)."""
        if self._digest is None:
            h = hashlib.sha256(b"fastgen-onnx/1\0")
            h.update("+".join(self.schemes).encode() + b"\0")
            h.update(self._model)
            self._digest = h.hexdigest()
        return self._digest

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "model": self._model, "schemes": self.schemes,
                "threads": self.threads, "batch": self.batch, "name": self.__name__}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.path, self._model, self.schemes = state["path"], state["model"], tuple(state["schemes"])
        self.threads, self.batch, self.__name__ = state["threads"], state["batch"], state["name"]
        self.width = sum(scheme_width(s) for s in self.schemes)
        self._digest = None
        self._lock = threading.Lock()
        self._session = None

    def __repr__(self) -> str:
        return f"<OnnxEvaluator {self.__name__} inputs={'+'.join(self.schemes)}>"
