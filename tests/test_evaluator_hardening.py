"""Evaluators, network files and specs refuse bad input with fastgen's own errors.

Each test builds its bad file or object and checks the one-line error it gives: a
truncated weights file named as a spec, a FIFO where a file is wanted, an evaluator
answering impossible probabilities when called directly, an ONNX graph of operators that
are not ONNX's own, and a duel too small to have an interval.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal

import numpy as np
import pytest

import fastgen
from fastgen.players import evaluators, specs
from fastgen.cli.main import main
from fastgen.errors import FastgenError, InvalidArgumentError, InvalidOutputError, InvalidSpecError, NetworkFileError
from fastgen.nets import Network as CompiledNetwork, NetworkSet

from _matches import random_match

START = fastgen.STARTING_BOARD
START_ID = fastgen.position_id(START)


@contextlib.contextmanager
def within(seconds):
    """Fail (instead of hanging) when the body blocks longer than *seconds*: a blocked
    open() or read() of a FIFO is interrupted by the alarm."""
    if not hasattr(signal, "SIGALRM"):
        yield
        return

    def expired(signum, frame):
        raise AssertionError(f"blocked for more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def fifo(tmp_path, name):
    if not hasattr(os, "mkfifo"):
        pytest.skip("this platform has no FIFOs (os.mkfifo)")
    path = tmp_path / name
    os.mkfifo(path)
    return path


def one_line_error(capsys, command):
    """The one stderr line of a failed command (no traceback, nothing else)."""
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert "Traceback" not in err and len(lines) == 1, err
    assert lines[0].startswith(f"fastgen {command}: error: "), err
    return lines[0]


# --------------------------------------------------------------------------- truncated weights files


def _truncated(tmp_path, layout):
    """A network file fastgen wrote (*layout*: the one hidden layer layout of
    fastgen.players.evaluators.ReferenceNetwork or fastgen.nets' layout), cut in half."""
    whole = tmp_path / f"whole-{layout}.npz"
    if layout == "one-hidden-layer":
        evaluators.random_network(hidden=4, seed=1).save(whole)
    else:
        rng = np.random.default_rng(0)
        CompiledNetwork([rng.normal(0, 0.1, (198, 4)), rng.normal(0, 0.1, (4, 5))], [np.zeros(4), np.zeros(5)]).save(whole)
    data = whole.read_bytes()
    cut = tmp_path / f"cut-{layout}.npz"
    cut.write_bytes(data[: len(data) // 2])
    return cut


def _command(name, spec, tmp_path):
    if name == "duel":
        return ["duel", spec, "pubeval", "--games", "2"]
    if name == "cube":
        return ["cube", "--position", START_ID, "--evaluator", spec]
    if name == "analyse":
        mat = tmp_path / "m.mat"
        fastgen.write_mat(random_match(3, 1), mat)
        return ["analyse", str(mat), "--evaluator", spec]
    if name == "serve-external":
        return ["serve-external", "--port", "0", "--quiet", "--policy", spec]
    assert name == "rollout-plays"
    return ["rollout-plays", "--position", START_ID, "--dice", "31", "--evaluator", spec, "--trials", "36"]


@pytest.mark.parametrize("layout", ["one-hidden-layer", "layered"])
@pytest.mark.parametrize("command", ["duel", "cube", "analyse", "serve-external", "rollout-plays"])
def test_truncated_npz_spec_is_a_one_line_error(tmp_path, capsys, command, layout):
    cut = _truncated(tmp_path, layout)
    assert main(_command(command, str(cut), tmp_path)) == 2
    line = one_line_error(capsys, command)
    assert repr(str(cut)) in line and "truncated" in line


def test_truncated_npz_spec_in_python(tmp_path):
    cut = _truncated(tmp_path, "one-hidden-layer")
    for load in (specs.policy, specs.evaluator, specs.cube_player):
        with pytest.raises(InvalidSpecError, match="truncated") as info:
            load(str(cut))
        assert repr(str(cut)) in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(InvalidArgumentError, match="truncated"):
        evaluators.ReferenceNetwork.load(cut)
    with pytest.raises(InvalidArgumentError, match="truncated"):
        evaluators.ReferenceNetwork.load(open(cut, "rb"))


def test_network_load_refuses_a_pickle_and_a_missing_array(tmp_path):
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, w1=np.array([object()], dtype=object), b1=np.zeros(2), w2=np.zeros((2, 5)), b2=np.zeros(5))
    with pytest.raises(InvalidArgumentError, match="pickles") as info:
        evaluators.ReferenceNetwork.load(pickled)
    assert repr(str(pickled)) in str(info.value)
    partial = tmp_path / "partial.npz"
    np.savez(partial, w1=np.zeros((198, 2)), b1=np.zeros(2))
    with pytest.raises(InvalidArgumentError, match="no array w2, b2"):
        evaluators.ReferenceNetwork.load(partial)
    scalar = tmp_path / "scalar-schemes.npz"
    net = evaluators.random_network(hidden=2)
    np.savez(scalar, w1=net.w1, b1=net.b1, w2=net.w2, b2=net.b2, schemes=np.array("tesauro198"))
    assert evaluators.ReferenceNetwork.load(scalar).schemes == ("tesauro198",)  # one text reads as a row of one
    bad = tmp_path / "bad-schemes.npz"
    np.savez(bad, w1=net.w1, b1=net.b1, w2=net.w2, b2=net.b2, schemes=np.zeros(1))
    with pytest.raises(InvalidArgumentError, match="'schemes' array must be a row of texts"):
        evaluators.ReferenceNetwork.load(bad)


# --------------------------------------------------------------------------- FIFOs


def test_fifo_spec_fails_at_once(tmp_path, capsys):
    path = fifo(tmp_path, "pipe.npz")
    with within(20):
        with pytest.raises(InvalidSpecError, match="FIFO") as info:
            specs.policy(str(path))
        assert repr(str(path)) in str(info.value)
        with pytest.raises(InvalidSpecError, match="FIFO"):
            specs.check(str(path), "evaluator")
        with pytest.raises(InvalidArgumentError, match="FIFO"):
            evaluators.ReferenceNetwork.load(path)
        assert main(["duel", str(path), "pubeval", "--games", "2"]) == 2
    assert "FIFO" in one_line_error(capsys, "duel")


# --------------------------------------------------------------------------- evaluators called directly


def _boards():
    race = np.zeros((2, 25), np.int8)
    race[1, 1:6] = 3
    race[0, 1:6] = 3
    return np.stack([START, race, START])


def _part(answer, name):
    def part(boards):
        return answer(boards)

    part.__name__ = name
    return part


@pytest.mark.parametrize("answer, words", [
    (lambda b: None, "must return"),
    (lambda b: 2.0, "must return"),
    (lambda b: np.full((len(b), 5), np.nan), "every value finite"),
    (lambda b: np.full((len(b), 5), 2.0), "every value <= 1"),
    (lambda b: np.tile([0.4, 0.5, 0.0, 0.1, 0.0], (len(b), 1)), "P(win gammon) <= P(win)"),
    (lambda b: np.zeros((len(b), 4)), "must return"),
], ids=["none", "scalar", "nan", "two", "unordered", "shape"])
def test_network_set_refuses_an_impossible_answer_of_a_part(answer, words):
    good = _part(lambda b: np.tile([0.5, 0.1, 0.0, 0.1, 0.0], (len(b), 1)), "good")
    for contact, race in ((_part(answer, "broken"), good), (good, _part(answer, "broken"))):
        nset = NetworkSet(contact, race)
        with pytest.raises(InvalidOutputError, match=re.escape(words)) as info:
            nset(_boards())
        assert "'broken'" in str(info.value) and "\n" not in str(info.value)
    # the same error through the simulations' own check
    with pytest.raises(InvalidOutputError, match=re.escape(words)):
        evaluators.evaluate(NetworkSet(_part(answer, "broken")), _boards())


def test_network_set_of_good_parts_answers_them():
    a = _part(lambda b: np.tile([0.5, 0.1, 0.0, 0.1, 0.0], (len(b), 1)), "a")
    unordered = _part(lambda b: np.tile([0.4, 0.5, 0.0, 0.1, 0.0], (len(b), 1)), "independent")
    unordered.ordered = False  # range checks only, as evaluate does
    out = NetworkSet(a, unordered)(_boards())
    assert out.tolist() == [[0.5, 0.1, 0.0, 0.1, 0.0], [0.4, 0.5, 0.0, 0.1, 0.0], [0.5, 0.1, 0.0, 0.1, 0.0]]
    net = evaluators.random_network(hidden=4)
    assert np.allclose(NetworkSet(net)(_boards()), net(_boards()))


# --------------------------------------------------------------------------- ONNX


def _onnx():
    onnx = pytest.importorskip("onnx", reason="needs the onnx extra: pip install '.[onnx]'")
    pytest.importorskip("onnxruntime", reason="needs the onnx extra: pip install '.[onnx]'")
    return onnx


def _graph_file(onnx, path, *, final="Sigmoid", domain="", opset=17, bias=-0.25):
    """x [N, 198] -> Gemm (zero weights, bias *bias*) -> *final* (none: the Gemm's output)."""
    helper, numpy_helper = onnx.helper, onnx.numpy_helper
    inits = [numpy_helper.from_array(np.zeros((198, 5), np.float32), "w"),
             numpy_helper.from_array(np.full(5, bias, np.float32), "b")]
    nodes = [helper.make_node("Gemm", ["x", "w", "b"], ["z" if final else "y"], name="gemm")]
    if final:
        nodes.append(helper.make_node(final, ["z"], ["y"], name="last", domain=domain))
    graph = helper.make_graph(
        nodes, "test", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["n", 198])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["n", 5])], inits)
    imports = [helper.make_opsetid("", opset)] + ([helper.make_opsetid(domain, 1)] if domain else [])
    model = helper.make_model(graph, opset_imports=imports)
    model.ir_version = 8
    path.write_bytes(model.SerializeToString())
    return path


def test_onnx_graph_without_a_final_sigmoid_is_refused_when_called(tmp_path):
    onnx = _onnx()
    path = _graph_file(onnx, tmp_path / "linear.onnx", final=None)
    ev = evaluators.onnx(path)
    with pytest.raises(InvalidOutputError, match=r"every value >= 0") as info:
        ev(_boards())
    msg = str(info.value)
    assert "linear.onnx" in msg and "-0.25" in msg and "position ID" in msg
    ok = evaluators.onnx(_graph_file(onnx, tmp_path / "sigmoid.onnx"))
    assert ok(_boards()).shape == (3, 5)


def test_onnx_fifo_is_refused_at_once(tmp_path):
    _onnx()
    from fastgen.nets.onnx_io import read_mlp

    path = fifo(tmp_path, "pipe.onnx")
    with within(20):
        for read in (evaluators.onnx, read_mlp, CompiledNetwork.from_onnx):
            with pytest.raises(NetworkFileError, match="FIFO") as info:
                read(path)
            assert str(path) in str(info.value)


def test_onnx_file_larger_than_the_bound_is_refused_before_reading(tmp_path, monkeypatch):
    onnx = _onnx()
    from fastgen.nets import onnx_io

    assert onnx_io.MAX_ONNX_BYTES == 2 << 30  # protobuf's limit on one message
    path = _graph_file(onnx, tmp_path / "big.onnx")
    monkeypatch.setattr(onnx_io, "MAX_ONNX_BYTES", 100)
    with pytest.raises(NetworkFileError, match="more than"):
        evaluators.onnx(path)


def test_onnx_node_of_another_domain_is_refused(tmp_path):
    onnx = _onnx()
    from fastgen.nets.onnx_io import read_mlp

    path = _graph_file(onnx, tmp_path / "custom.onnx", domain="com.example")
    for read in (read_mlp, CompiledNetwork.from_onnx):
        with pytest.raises(NetworkFileError, match=r"node 'last' \(Sigmoid\) is of the operator domain 'com.example'") as info:
            read(path)
        assert str(path) in str(info.value)
    # the same graph with ONNX's own Sigmoid reads
    weights, _, _ = read_mlp(_graph_file(onnx, tmp_path / "default.onnx"))
    assert weights[0].shape == (198, 5)


def test_onnx_old_default_operator_set_is_refused(tmp_path):
    onnx = _onnx()
    from fastgen.nets.onnx_io import read_mlp

    path = _graph_file(onnx, tmp_path / "old.onnx", opset=6)
    with pytest.raises(NetworkFileError, match="operator set at version 6; fastgen reads version 7") as info:
        read_mlp(path)
    assert str(path) in str(info.value)
    assert read_mlp(_graph_file(onnx, tmp_path / "seven.onnx", opset=7))[2] == "sigmoid"


# --------------------------------------------------------------------------- duels and specs


def test_one_pair_duel_prints_no_infinite_interval(capsys):
    games = fastgen.duel("pubeval", "random", 2)
    assert games.ppg_se == float("inf") and "inf" not in str(games) and "n/a" in str(games)
    matches = fastgen.duel_matches("network:1", "network:2", 2, 1)
    assert matches.mwc_se == float("inf") and "inf" not in str(matches) and "n/a" in str(matches)
    same = fastgen.duel("pubeval", "pubeval", 4)  # every pair cancels: no spread to go by
    assert same.ppg_se == 0 and "n/a" in str(same)
    assert main(["duel", "pubeval", "random", "--games", "2"]) == 0
    out = capsys.readouterr().out
    assert "inf" not in out and "n/a" in out
    wide = fastgen.duel("pubeval", "random", 40)
    lo, hi = wide.ci95
    assert f"(95%: [{lo:+.4f}, {hi:+.4f}])" in str(wide)


def test_module_callable_spec_is_documented_as_running_code():
    text = " ".join(specs.__doc__.split())
    assert "os:abort" in text and "runs code" in text and "trust" in text
    assert issubclass(InvalidSpecError, FastgenError)
