"""The numpy reference network and the compiled network it converts to.

:class:`fastgen.players.evaluators.ReferenceNetwork` is the forward pass in plain numpy;
:meth:`~fastgen.players.evaluators.ReferenceNetwork.compiled` gives the same network as a
:class:`fastgen.nets.Network`, which computes the same to float32 rounding;
:func:`~fastgen.players.evaluators.convert_network_file` and ``fastgen convert-network``
rewrite a weights file of the reference's layout in the compiled one.
"""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest

from fastgen.cli.main import main
from fastgen.errors import InvalidArgumentError
from fastgen.nets import Network as CompiledNetwork
from fastgen.players import evaluators, specs
from fastgen.players.evaluators import ReferenceNetwork, convert_network_file, random_network

from _positions import random_play_positions
from _td40 import PATH as TD40_PATH, td40

#: 320 positions of random games (contact, race, bear-off), the side on roll in row 1.
POSITIONS = random_play_positions(games=8, plies=40, seed=11)
#: The compiled forward pass against the reference's, on every answer.
TOL = 1e-5


def _agree(reference: ReferenceNetwork, compiled: CompiledNetwork) -> None:
    """The same network: the same weights exactly, its evaluator's answers and its raw
    outputs within TOL on POSITIONS."""
    assert isinstance(compiled, CompiledNetwork)
    assert compiled.inputs == reference.schemes and compiled.n_outputs == reference.outputs
    assert compiled.activation == "sigmoid" and compiled.sizes[1:] == (reference.hidden, reference.outputs)
    for got, want in zip(compiled.weights + compiled.biases, (reference.w1, reference.w2, reference.b1, reference.b2)):
        np.testing.assert_array_equal(got, want)
    assert len(POSITIONS) == 320  # (the networks guide quotes it)
    assert np.abs(compiled.evaluate(POSITIONS) - reference.evaluate(POSITIONS)).max() < TOL
    raw = reference.forward(reference.features(POSITIONS))[1]
    assert np.abs(compiled.outputs(POSITIONS) - raw).max() < TOL


@pytest.mark.parametrize("outputs", [5, 3])
@pytest.mark.parametrize("schemes", [("tesauro198",), ("tesauro198", "raw"), ("tesauro198", "contact")])
def test_the_compiled_network_computes_the_reference_forward_pass(schemes, outputs):
    reference = random_network(hidden=32, schemes=schemes, seed=5, outputs=outputs)
    compiled = reference.compiled()
    _agree(reference, compiled)
    assert compiled.name == reference.name == f"network({'+'.join(schemes)}, 32 hidden)"


def test_a_trained_network_converts_too():
    reference = td40()  # three outputs, trained: answers far from one half
    compiled = reference.compiled()
    _agree(reference, compiled)
    assert compiled.name == "td40"


def test_weights_the_compiled_network_cannot_run_are_refused_naming_the_fault():
    twice = ReferenceNetwork(np.zeros((44, 2)), np.zeros(2), np.zeros((2, 5)), np.zeros(5), ("contact", "contact"))
    with pytest.raises(InvalidArgumentError, match=r"network\(contact\+contact, 2 hidden\) has no compiled equivalent: "
                                                   r"inputs may name 'contact' once"):
        twice.compiled()
    wide = random_network(hidden=2049, seed=1)
    with pytest.raises(InvalidArgumentError, match="a hidden layer has 1 to 2048 units"):
        wide.compiled()


def test_convert_network_file_writes_the_compiled_layout(tmp_path):
    net = convert_network_file(TD40_PATH, tmp_path / "td40-compiled")  # the suffix is added
    _agree(td40(), net)
    back = CompiledNetwork.load(tmp_path / "td40-compiled.npz")
    assert back.digest() == net.digest()
    buf = io.BytesIO()
    assert convert_network_file(TD40_PATH, buf).digest() == net.digest()  # a file object as the target
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # the converted file is read as a spec with no warning
        loaded = specs.evaluator(str(tmp_path / "td40-compiled.npz"))
    assert isinstance(loaded, CompiledNetwork) and loaded.digest() == net.digest()


def test_convert_network_file_refuses_what_is_not_the_old_layout(tmp_path):
    random_network(hidden=4, seed=1).compiled().save(tmp_path / "compiled.npz")
    with pytest.raises(InvalidArgumentError, match=r"compiled\.npz' is a compiled network's file .* "
                                                   r"fastgen\.nets\.Network\.load"):
        convert_network_file(tmp_path / "compiled.npz", tmp_path / "out.npz")
    with pytest.raises(InvalidArgumentError, match="does not exist"):
        convert_network_file(tmp_path / "missing.npz", tmp_path / "out.npz")
    assert not (tmp_path / "out.npz").exists()


def test_the_command_line_converts_a_file(tmp_path, capsys):
    assert main(["convert-network", str(TD40_PATH), str(tmp_path / "new")]) == 0
    out = capsys.readouterr().out.splitlines()
    target = tmp_path / "new.npz"
    assert out == [f"wrote {target}: 198-40-3 sigmoid network over tesauro198, in the compiled layout "
                   f"(fastgen.nets.Network.load, or {target} as a spec)"]
    assert CompiledNetwork.load(target).digest() == td40().compiled().digest()
    assert main(["convert-network", str(target), str(tmp_path / "again.npz")]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith(f"fastgen convert-network: error: {str(target)!r} is a compiled network's file")


def test_the_reference_network_is_still_an_evaluator_and_a_player():
    net = random_network(hidden=8, seed=3)
    assert isinstance(net, evaluators.Evaluator) and repr(net) == "<ReferenceNetwork network(tesauro198, 8 hidden)>"
    policy = evaluators.greedy(net)
    assert policy.network is None  # not compiled: the game loops call its choose


def test_the_compiled_loader_reads_the_old_layout_with_a_deprecation_warning():
    with pytest.warns(DeprecationWarning, match=r"old one hidden layer layout .*`fastgen convert-network"):
        net = CompiledNetwork.load(TD40_PATH)
    assert net.digest() == td40().compiled().digest()  # the same network the converter writes
