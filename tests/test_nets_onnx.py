"""ONNX networks in and out (fastgen.nets.onnx_io): multilayer perceptrons read from and
written to ONNX files, and any ONNX graph run by onnxruntime as an evaluator.

The graphs are built with ``onnx.helper`` alone; every read network is checked against
onnxruntime's own output of the same file through a float64 numpy forward pass.
"""

from __future__ import annotations

import os
import pickle
import re
import subprocess
import sys

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="needs the onnx extra: pip install '.[onnx]'")
ort = pytest.importorskip("onnxruntime", reason="needs the onnx extra: pip install '.[onnx]'")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import fastgen  # noqa: E402
from fastgen.errors import (  # noqa: E402
    InvalidArgumentError, InvalidNetworkError, NetworkFileError, UnknownSchemeError,
)
from fastgen.nets.onnx_io import OnnxEvaluator, read_mlp, write_mlp  # noqa: E402
from fastgen.nets.probs import make_consistent  # noqa: E402
from fastgen.sim.store import evaluator_identity  # noqa: E402


# --------------------------------------------------------------------------- helpers

def reference(weights, biases, activation, x):
    """The float64 forward pass of a multilayer perceptron."""
    act = {"sigmoid": lambda z: 1 / (1 + np.exp(-z)), "tanh": np.tanh, "relu": lambda z: np.maximum(z, 0)}[activation]
    h = np.asarray(x, dtype=np.float64)
    for i, (w, b) in enumerate(zip(weights, biases)):
        z = h @ np.asarray(w, dtype=np.float64) + np.asarray(b, dtype=np.float64)
        h = 1 / (1 + np.exp(-z)) if i == len(weights) - 1 else act(z)
    return h


def ort_run(path, x):
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, {session.get_inputs()[0].name: np.asarray(x, dtype=np.float32)})[0]


def random_layers(sizes, seed=0):
    rng = np.random.default_rng(seed)
    ws = [rng.normal(0, 1 / np.sqrt(a), (a, b)).astype(np.float32) for a, b in zip(sizes, sizes[1:])]
    bs = [rng.normal(0, 0.3, b).astype(np.float32) for b in sizes[1:]]
    return ws, bs


def save(path, nodes, inits, width, out="y", out_width=5, input_name="x"):
    graph = helper.make_graph(
        nodes, "test",
        [helper.make_tensor_value_info(input_name, TensorProto.FLOAT, ["batch", width])],
        [helper.make_tensor_value_info(out, TensorProto.FLOAT, ["batch", out_width])],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return path


def gemm_net(path, ws, bs, act="Sigmoid", **kw):
    """Gemm (transB=0) layers, *act* between them, Sigmoid at the end."""
    nodes, inits, cur = [], {}, "x"
    for i, (w, b) in enumerate(zip(ws, bs)):
        inits[f"w{i}"], inits[f"b{i}"] = w, b
        nodes.append(helper.make_node("Gemm", [cur, f"w{i}", f"b{i}"], [f"z{i}"], name=f"gemm{i}"))
        last = i == len(ws) - 1
        nodes.append(helper.make_node("Sigmoid" if last else act, [f"z{i}"], ["y" if last else f"h{i}"], name=f"act{i}"))
        cur = f"h{i}"
    return save(path, nodes, inits, ws[0].shape[0], out_width=ws[-1].shape[1], **kw)


def positions(n, seed=0):
    """*n* positions of random play from the start, each with its side on roll in row 1."""
    rng = np.random.default_rng(seed)
    found = []
    boards = np.stack([fastgen.STARTING_BOARD] * 64)
    while sum(len(f) for f in found) < n:
        dice = rng.integers(1, 7, size=(len(boards), 2))
        batch = fastgen.plays_batch(boards, dice)
        counts = np.diff(batch.offsets)
        pick = batch.offsets[:-1] + (rng.random(len(boards)) * counts).astype(np.int64)
        child = batch.boards[pick][:, ::-1]
        alive = (child.sum(axis=2) > 0).all(axis=1)
        boards = np.ascontiguousarray(child[alive])
        found.append(boards)
        if len(boards) < 8:
            boards = np.stack([fastgen.STARTING_BOARD] * 64)
    return np.ascontiguousarray(np.concatenate(found)[:n], dtype=np.int8)


def features(boards, schemes):
    return np.concatenate([fastgen.encode(boards, s) for s in schemes], axis=1)


X = np.random.default_rng(7).random((64, 12)).astype(np.float32)


# --------------------------------------------------------------------------- read_mlp

def test_gemm_with_transposed_weights_alpha_and_beta(tmp_path):
    ws, bs = random_layers([12, 8, 5], seed=1)
    alpha, beta = 0.5, 2.0
    nodes = [
        helper.make_node("Gemm", ["x", "w0t", "b0"], ["z0"], name="g0", transB=1, alpha=alpha, beta=beta),
        helper.make_node("Sigmoid", ["z0"], ["h0"], name="s0"),
        helper.make_node("Gemm", ["h0", "w1", "b1"], ["z1"], name="g1", alpha=3.0, beta=0.25),
        helper.make_node("Sigmoid", ["z1"], ["y"], name="s1"),
    ]
    inits = {"w0t": ws[0].T.copy(), "b0": bs[0], "w1": ws[1], "b1": bs[1].reshape(1, 5)}
    path = save(tmp_path / "gemm.onnx", nodes, inits, 12)
    weights, biases, act = read_mlp(path)
    assert act == "sigmoid"
    assert [w.shape for w in weights] == [(12, 8), (8, 5)] and [b.shape for b in biases] == [(8,), (5,)]
    assert all(a.dtype == np.float32 for a in weights + biases)
    np.testing.assert_allclose(weights[0], alpha * ws[0], rtol=1e-6)
    np.testing.assert_allclose(biases[1], 0.25 * bs[1], rtol=1e-6)
    np.testing.assert_allclose(reference(weights, biases, act, X), ort_run(path, X), atol=1e-5)


def test_matmul_add_with_constant_nodes_tanh_three_layers(tmp_path):
    ws, bs = random_layers([12, 10, 6, 5], seed=2)
    nodes, cur = [], "x"
    for i, (w, b) in enumerate(zip(ws, bs)):
        nodes.append(helper.make_node("Constant", [], [f"W{i}"], name=f"cw{i}", value=numpy_helper.from_array(w)))
        nodes.append(helper.make_node("Constant", [], [f"B{i}"], name=f"cb{i}", value=numpy_helper.from_array(b)))
        nodes.append(helper.make_node("MatMul", [cur, f"W{i}"], [f"m{i}"], name=f"mm{i}"))
        # the bias first in one layer: Add is commutative
        add_in = [f"B{i}", f"m{i}"] if i == 1 else [f"m{i}", f"B{i}"]
        nodes.append(helper.make_node("Add", add_in, [f"z{i}"], name=f"add{i}"))
        last = i == len(ws) - 1
        nodes.append(helper.make_node("Sigmoid" if last else "Tanh", [f"z{i}"], ["y" if last else f"h{i}"]))
        cur = f"h{i}"
    path = save(tmp_path / "mm.onnx", nodes, {}, 12)
    weights, biases, act = read_mlp(path)
    assert act == "tanh" and len(weights) == 3
    for got, want in zip(weights + biases, ws + bs):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(reference(weights, biases, act, X), ort_run(path, X), atol=1e-5)


def test_relu_with_identity_and_flatten_skipped(tmp_path):
    ws, bs = random_layers([12, 9, 7, 5], seed=3)
    nodes = [
        helper.make_node("Flatten", ["x"], ["xf"], name="flat", axis=1),
        helper.make_node("Gemm", ["xf", "w0", "b0"], ["z0"], name="g0"),
        helper.make_node("Relu", ["z0"], ["h0"], name="r0"),
        helper.make_node("Identity", ["h0"], ["h0i"], name="id"),
        helper.make_node("MatMul", ["h0i", "w1"], ["m1"], name="mm1"),
        helper.make_node("Add", ["m1", "b1"], ["z1"], name="a1"),
        helper.make_node("Relu", ["z1"], ["h1"], name="r1"),
        helper.make_node("Gemm", ["h1", "w2", "b2"], ["z2"], name="g2"),
        helper.make_node("Sigmoid", ["z2"], ["y"], name="s2"),
    ]
    inits = {"w0": ws[0], "b0": bs[0], "w1": ws[1], "b1": bs[1], "w2": ws[2], "b2": bs[2]}
    path = save(tmp_path / "relu.onnx", nodes, inits, 12)
    weights, biases, act = read_mlp(path)
    assert act == "relu" and [w.shape for w in weights] == [(12, 9), (9, 7), (7, 5)]
    np.testing.assert_allclose(reference(weights, biases, act, X), ort_run(path, X), atol=1e-5)


def test_one_layer_reads_as_sigmoid(tmp_path):
    ws, bs = random_layers([12, 5], seed=4)
    path = gemm_net(tmp_path / "one.onnx", ws, bs)
    weights, biases, act = read_mlp(path)
    assert act == "sigmoid" and len(weights) == 1
    np.testing.assert_allclose(reference(weights, biases, act, X), ort_run(path, X), atol=1e-5)


@pytest.mark.parametrize("activation", ["sigmoid", "tanh", "relu"])
@pytest.mark.parametrize("sizes", [[12, 5], [12, 8, 5], [12, 8, 6, 5]])
def test_write_then_read_is_exact(tmp_path, activation, sizes):
    ws, bs = random_layers(sizes, seed=len(sizes))
    path = write_mlp(tmp_path / "w.onnx", ws, bs, activation)
    weights, biases, act = read_mlp(path)
    assert act == (activation if len(sizes) > 2 else "sigmoid")
    assert len(weights) == len(ws)
    for got, want in zip(weights + biases, ws + bs):
        assert got.dtype == np.float32 and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(reference(ws, bs, activation, X), ort_run(path, X), atol=1e-5)
    model = onnx.load(str(path))
    assert model.opset_import[0].version == 17
    assert model.graph.input[0].name == "inputs" and model.graph.output[0].name == "probabilities"
    assert model.graph.input[0].type.tensor_type.shape.dim[0].dim_param  # symbolic batch


def test_write_names_the_input_and_output(tmp_path):
    ws, bs = random_layers([12, 5])
    model = onnx.load(str(write_mlp(tmp_path / "n.onnx", ws, bs, "relu", input_name="board", output_name="p")))
    assert [i.name for i in model.graph.input] == ["board"] and [o.name for o in model.graph.output] == ["p"]
    with pytest.raises(InvalidArgumentError, match="'same'"):
        write_mlp(tmp_path / "m.onnx", ws, bs, "relu", input_name="same", output_name="same")


# --------------------------------------------------------------------------- read errors

def _err(path):
    return re.escape(str(path))


def test_other_operator_is_named(tmp_path):
    ws, bs = random_layers([12, 5])
    nodes = [helper.make_node("Gemm", ["x", "w0", "b0"], ["z0"], name="g0"),
             helper.make_node("Softmax", ["z0"], ["y"], name="sm")]
    path = save(tmp_path / "net.onnx", nodes, {"w0": ws[0], "b0": bs[0]}, 12)
    with pytest.raises(NetworkFileError, match=_err(path) + r": operator 'Softmax' \(node 'sm'\) is not part"):
        read_mlp(path)


def test_branch_is_refused(tmp_path):
    ws, bs = random_layers([12, 8, 5])
    nodes = [helper.make_node("Gemm", ["x", "w0", "b0"], ["z0"], name="g0"),
             helper.make_node("Sigmoid", ["z0"], ["h0"], name="s0"),
             helper.make_node("Gemm", ["h0", "w1", "b1"], ["z1"], name="g1"),
             helper.make_node("Gemm", ["h0", "w1", "b1"], ["z2"], name="g2"),
             helper.make_node("Add", ["z1", "z2"], ["z3"], name="sum"),
             helper.make_node("Sigmoid", ["z3"], ["y"], name="s1")]
    path = save(tmp_path / "branch.onnx", nodes, {"w0": ws[0], "b0": bs[0], "w1": ws[1], "b1": bs[1]}, 12)
    with pytest.raises(NetworkFileError, match=_err(path) + r".*'h0'.*branch"):
        read_mlp(path)


def test_missing_final_sigmoid(tmp_path):
    ws, bs = random_layers([12, 8, 5])
    nodes = [helper.make_node("Gemm", ["x", "w0", "b0"], ["z0"], name="g0"),
             helper.make_node("Tanh", ["z0"], ["h0"], name="t0"),
             helper.make_node("Gemm", ["h0", "w1", "b1"], ["y"], name="g1")]
    path = save(tmp_path / "nosig.onnx", nodes, {"w0": ws[0], "b0": bs[0], "w1": ws[1], "b1": bs[1]}, 12)
    with pytest.raises(NetworkFileError, match=_err(path) + ".*Sigmoid"):
        read_mlp(path)
    ends_tanh = tmp_path / "tanh.onnx"
    gemm_net(ends_tanh, ws, bs)
    model = onnx.load(str(ends_tanh))
    model.graph.node[-1].op_type = "Tanh"
    onnx.save(model, str(ends_tanh))
    with pytest.raises(NetworkFileError, match=_err(ends_tanh) + ".*Sigmoid.*tanh"):
        read_mlp(ends_tanh)


def test_wrong_output_width(tmp_path):
    ws, bs = random_layers([12, 8, 4])
    path = gemm_net(tmp_path / "four.onnx", ws, bs)
    with pytest.raises(NetworkFileError, match=_err(path) + ".*4 outputs"):
        read_mlp(path)


def test_shapes_that_do_not_chain(tmp_path):
    ws, bs = random_layers([12, 8, 5])
    ws[1] = np.ones((7, 5), dtype=np.float32)
    path = gemm_net(tmp_path / "chain.onnx", ws, bs)
    with pytest.raises(NetworkFileError, match=_err(path) + r".*'gemm1'.*\(7, 5\) do not take 8 inputs"):
        read_mlp(path)
    bs[1] = np.ones(4, dtype=np.float32)
    ws[1] = np.ones((8, 5), dtype=np.float32)
    path = gemm_net(tmp_path / "bias.onnx", ws, bs)
    with pytest.raises(NetworkFileError, match=_err(path) + r".*'gemm1'.*bias of shape \(4,\)"):
        read_mlp(path)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_weights(tmp_path, bad):
    ws, bs = random_layers([12, 8, 5])
    ws[1][3, 2] = bad
    path = gemm_net(tmp_path / "nan.onnx", ws, bs)
    with pytest.raises(NetworkFileError, match=_err(path) + ".*'w1'.*NaN or infinity"):
        read_mlp(path)


def test_mixed_hidden_activations(tmp_path):
    ws, bs = random_layers([12, 8, 6, 5])
    path = gemm_net(tmp_path / "mixed.onnx", ws, bs, act="Tanh")
    model = onnx.load(str(path))
    model.graph.node[3].op_type = "Relu"
    onnx.save(model, str(path))
    with pytest.raises(NetworkFileError, match=_err(path) + ".*mix activations"):
        read_mlp(path)


def test_two_linear_layers_in_a_row(tmp_path):
    ws, bs = random_layers([12, 8, 5])
    nodes = [helper.make_node("Gemm", ["x", "w0", "b0"], ["z0"], name="g0"),
             helper.make_node("Gemm", ["z0", "w1", "b1"], ["z1"], name="g1"),
             helper.make_node("Sigmoid", ["z1"], ["y"], name="s1")]
    path = save(tmp_path / "lin.onnx", nodes, {"w0": ws[0], "b0": bs[0], "w1": ws[1], "b1": bs[1]}, 12)
    with pytest.raises(NetworkFileError, match=_err(path) + r".*'Gemm' \(node 'g1'\)"):
        read_mlp(path)


def test_weights_from_the_input_are_refused(tmp_path):
    ws, bs = random_layers([12, 5])
    graph = helper.make_graph(
        [helper.make_node("Gemm", ["x", "w", "b0"], ["z"], name="g0"), helper.make_node("Sigmoid", ["z"], ["y"])],
        "test",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 12]),
         helper.make_tensor_value_info("w", TensorProto.FLOAT, [12, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 5])],
        [numpy_helper.from_array(bs[0], "b0")],
    )
    path = tmp_path / "twoin.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    with pytest.raises(NetworkFileError, match=_err(path) + ".*one input"):
        read_mlp(path)


def test_unreadable_files(tmp_path):
    missing = tmp_path / "missing.onnx"
    with pytest.raises(NetworkFileError, match=_err(missing)):
        read_mlp(missing)
    ws, bs = random_layers([12, 8, 5])
    data = write_mlp(tmp_path / "good.onnx", ws, bs, "tanh")
    raw = open(data, "rb").read()
    truncated = tmp_path / "truncated.onnx"
    truncated.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(NetworkFileError, match=_err(truncated)):
        read_mlp(truncated)
    for i, junk in enumerate([b"", b"hello, this is not an ONNX file\n", bytes(range(256)) * 4]):
        other = tmp_path / f"other{i}.onnx"
        other.write_bytes(junk)
        with pytest.raises(NetworkFileError, match=_err(other)):
            read_mlp(other)
    with pytest.raises(NetworkFileError, match=_err(tmp_path)):
        read_mlp(tmp_path)  # a directory


# --------------------------------------------------------------------------- write errors

def test_write_refuses_bad_weights_and_keeps_the_old_file(tmp_path):
    path = tmp_path / "keep.onnx"
    ws, bs = random_layers([12, 8, 5])
    write_mlp(path, ws, bs, "relu")
    before = path.read_bytes()
    nan_w = [ws[0].copy(), ws[1]]
    nan_w[0][0, 0] = np.nan
    cases = [
        ((nan_w, bs, "relu"), "NaN or infinity"),
        (([ws[0], np.ones((7, 5))], bs, "relu"), r"layer 1.*\(7, 5\)"),
        (random_layers([12, 8, 4]) + ("relu",), "4 outputs"),
        ((ws, bs[:1], "relu"), "2 weights and 1 biases"),
        ((ws, bs, "softplus"), "'softplus'"),
        ((ws, bs, "Tanh"), "'Tanh'"),
    ]
    for args, message in cases:
        with pytest.raises(InvalidNetworkError, match=message):
            write_mlp(path, *args)
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["keep.onnx"]  # no temporary file left behind


# --------------------------------------------------------------------------- OnnxEvaluator

@pytest.fixture(scope="module")
def boards():
    return positions(1000, seed=11)


@pytest.fixture(scope="module")
def net250(tmp_path_factory):
    ws, bs = random_layers([250, 16, 5], seed=5)
    path = write_mlp(tmp_path_factory.mktemp("nets") / "net250.onnx", ws, bs, "tanh")
    return path, ws, bs


def test_positions_are_varied_and_valid(boards):
    assert boards.shape == (1000, 2, 25) and len(np.unique(boards.reshape(1000, -1), axis=0)) > 500
    assert (boards.sum(axis=2) >= 1).all() and (boards.sum(axis=2) <= 15).all()


def test_evaluator_matches_the_reference(boards, net250):
    path, ws, bs = net250
    ev = OnnxEvaluator(path, ("tesauro198", "raw"))
    read = boards.copy()
    read.flags.writeable = False
    got = ev(read)
    assert got.dtype == np.float32 and got.shape == (1000, 5)
    want = make_consistent(reference(ws, bs, "tanh", features(boards, ("tesauro198", "raw"))))
    np.testing.assert_allclose(got, want, atol=1e-5)
    assert not np.array_equal(got, reference(ws, bs, "tanh", features(boards, ("tesauro198", "raw"))))
    fastgen.players.evaluators.check_probs(got, boards, ev.__name__, ordered=True)
    assert ev.ordered is True and ev.__name__ == "onnx(net250.onnx)"
    small = OnnxEvaluator(path, ["tesauro198", "raw"], batch=7, threads=2)
    np.testing.assert_allclose(small(boards[:50]), got[:50], atol=1e-6)
    assert ev(boards[:0]).shape == (0, 5)


def test_evaluators_onnx_makes_one(net250, boards):
    path = net250[0]
    ev = fastgen.players.evaluators.onnx(path, ("tesauro198", "raw"), threads=1)
    assert isinstance(ev, OnnxEvaluator)
    np.testing.assert_array_equal(ev(boards[:10]), OnnxEvaluator(path, ("tesauro198", "raw"))(boards[:10]))


def test_any_graph_runs(tmp_path, boards):
    # a softmax head is no multilayer perceptron read_mlp reads, but onnxruntime runs it
    ws, bs = random_layers([52, 5], seed=6)
    nodes = [helper.make_node("Gemm", ["x", "w0", "b0"], ["z0"], name="g0"),
             helper.make_node("Softmax", ["z0"], ["y"], name="sm", axis=1)]
    path = save(tmp_path / "soft.onnx", nodes, {"w0": ws[0], "b0": bs[0]}, 52)
    with pytest.raises(NetworkFileError):
        read_mlp(path)
    got = OnnxEvaluator(path, "raw")(boards[:100])
    z = features(boards[:100], ("raw",)).astype(np.float64) @ ws[0] + bs[0]
    soft = np.exp(z - z.max(axis=1, keepdims=True))
    np.testing.assert_allclose(got, make_consistent(soft / soft.sum(axis=1, keepdims=True)), atol=1e-5)


def test_evaluator_width_and_output_checks(tmp_path, net250):
    with pytest.raises(NetworkFileError, match=_err(net250[0]) + ".*250 inputs.*'raw'.*52"):
        OnnxEvaluator(net250[0], ("raw",))
    ws, bs = random_layers([198, 4])
    four = gemm_net(tmp_path / "four.onnx", ws, bs)
    with pytest.raises(NetworkFileError, match=_err(four) + r".*\[N, 5\]"):
        OnnxEvaluator(four)
    # an output whose width is the batch's (a transposed answer) is checked on the answer
    ws, bs = random_layers([198, 5])
    nodes = [helper.make_node("Gemm", ["x", "w0", "b0"], ["z0"], name="g0"),
             helper.make_node("Transpose", ["z0"], ["y"], name="tr", perm=[1, 0])]
    graph = helper.make_graph(nodes, "t", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 198])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [5, "N"])],
                              [numpy_helper.from_array(ws[0], "w0"), numpy_helper.from_array(bs[0], "b0")])
    path = tmp_path / "transposed.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    ev = OnnxEvaluator(path)
    with pytest.raises(NetworkFileError, match=_err(path) + r".*\(5, 3\) for 3 positions, not \(3, 5\)"):
        ev(np.stack([fastgen.STARTING_BOARD] * 3))
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not a model")
    with pytest.raises(NetworkFileError, match=_err(junk)):
        OnnxEvaluator(junk)
    with pytest.raises(NetworkFileError, match=_err(tmp_path / "nope.onnx")):
        OnnxEvaluator(tmp_path / "nope.onnx")


def test_evaluator_bad_arguments(net250):
    path = net250[0]
    with pytest.raises(InvalidArgumentError, match="threads.*0"):
        OnnxEvaluator(path, ("tesauro198", "raw"), threads=0)
    with pytest.raises(InvalidArgumentError, match="batch.*-1"):
        OnnxEvaluator(path, ("tesauro198", "raw"), batch=-1)
    with pytest.raises(UnknownSchemeError, match="'bogus'"):
        OnnxEvaluator(path, ("tesauro198", "bogus"))
    with pytest.raises(InvalidArgumentError, match=r"\(\)"):
        OnnxEvaluator(path, ())


def test_digest(net250, tmp_path):
    path, ws, bs = net250
    ev = OnnxEvaluator(path, ("tesauro198", "raw"))
    assert re.fullmatch("[0-9a-f]{64}", ev.digest())
    assert ev.digest() == OnnxEvaluator(path, ("tesauro198", "raw"), threads=2).digest()
    copy = tmp_path / "copy.onnx"
    copy.write_bytes(open(path, "rb").read())
    assert OnnxEvaluator(copy, ("tesauro198", "raw")).digest() == ev.digest()
    other = write_mlp(tmp_path / "other.onnx", ws, [bs[0], bs[1] + 1], "tanh")
    assert OnnxEvaluator(other, ("tesauro198", "raw")).digest() != ev.digest()
    ws52, bs52 = random_layers([250, 5])
    swapped = write_mlp(tmp_path / "s.onnx", ws52, bs52, "tanh")
    assert OnnxEvaluator(swapped, ("raw", "tesauro198")).digest() != OnnxEvaluator(swapped, ("tesauro198", "raw")).digest()
    assert evaluator_identity(ev, None, "evaluator") == "digest:" + ev.digest()


def test_pickle_is_small_and_answers_the_same(net250, boards):
    path = net250[0]
    ev = OnnxEvaluator(path, ("tesauro198", "raw"))
    before = ev(boards[:200])
    data = pickle.dumps(ev)
    assert len(data) < 2 * os.path.getsize(path)
    back = pickle.loads(data)
    assert back._session is None  # opened again on first use
    np.testing.assert_array_equal(back(boards[:200]), before)
    assert back.digest() == ev.digest() and back.__name__ == ev.__name__ and back.schemes == ev.schemes
    assert len(pickle.dumps(back)) == len(data)  # the session is never pickled


def test_in_a_rollout(net250, tmp_path):
    ws, bs = random_layers([198, 8, 5], seed=9)
    ev = OnnxEvaluator(write_mlp(tmp_path / "r.onnx", ws, bs, "relu"))
    table = fastgen.rollout_plays(fastgen.STARTING_BOARD, (3, 1), ev, trials=36, plays=2, seed=1)
    assert len(table.rows) == 2 and "onnx(r.onnx)" in str(table)
    again = fastgen.rollout_plays(fastgen.STARTING_BOARD, (3, 1), pickle.loads(pickle.dumps(ev)), trials=36, plays=2, seed=1)
    assert table.to_dict()["rows"] == again.to_dict()["rows"]


def test_import_fastgen_does_not_import_onnx():
    root = os.path.dirname(os.path.dirname(fastgen.__file__))
    code = ("import sys, fastgen, fastgen.players.evaluators, fastgen.nets.onnx_io; "
            "bad = [m for m in ('onnx', 'onnxruntime') if m in sys.modules]; "
            "assert not bad, bad; print('clean')")
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=root)
    assert done.returncode == 0 and done.stdout.strip() == "clean", done.stderr


def test_compiled_network_to_onnx_and_back(tmp_path):
    ort = pytest.importorskip("onnxruntime", reason="needs the onnx extra: pip install '.[onnx]'")
    from fastgen.nets import Network

    rng = np.random.default_rng(12)
    net = Network([rng.normal(0, 0.07, (250, 32)), rng.normal(0, 0.2, (32, 16)), rng.normal(0, 0.2, (16, 5))],
                  [rng.normal(0, 0.1, 32), rng.normal(0, 0.1, 16), rng.normal(0, 0.1, 5)],
                  inputs=("tesauro198", "raw"), activation="relu")
    path = net.to_onnx(tmp_path / "net.onnx")
    back = Network.from_onnx(path, inputs=("tesauro198", "raw"))
    assert back.digest() == net.digest()
    boards = np.stack([fastgen.STARTING_BOARD] * 3)
    x = np.concatenate([fastgen.encode(boards, "tesauro198"), fastgen.encode(boards, "raw")], axis=1)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    want = session.run(None, {session.get_inputs()[0].name: x})[0]
    assert np.abs(net.outputs(boards) - want).max() < 1e-5
