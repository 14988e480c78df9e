"""The weights being trained, in the layout the compiled trainer reads.

A trainable network is a :class:`fastgen.nets.Network` of Tesauro's 198 inputs (and
optionally the contact features after them), one hidden layer of sigmoid units and five
outputs. :class:`TrainedWeights` holds its arrays padded for the compiled kernel (the
hidden width rounded up to a multiple of 16, zeros beyond it), with one compiled
``Learner`` over them (fastgen/train/_selfplay.pyx), and gives the network back.
"""

from __future__ import annotations

import numpy as np

from fastgen.errors import InvalidNetworkError
from fastgen.nets.network import Network
from fastgen.train import _selfplay

__all__ = ["TrainedWeights", "inputs_of", "trainable"]


def inputs_of(width: int) -> tuple[str, ...]:
    """The input schemes of a trainable network with *width* inputs (198 or 220)."""
    return ("tesauro198", "contact") if width == _selfplay.CONTACT_INPUTS else ("tesauro198",)


def trainable(net: Network) -> "TrainedWeights":
    """*net*'s weights as :class:`TrainedWeights`; InvalidNetworkError naming it when it is
    not of the trainable kind (see the module docstring)."""
    if not isinstance(net, Network):
        raise InvalidNetworkError(f"the trainer refines a fastgen.nets.Network, got {net!r}")
    width = net.sizes[0]
    if (len(net.sizes) != 3 or net.sizes[2] != 5 or net.activation != "sigmoid"
            or width not in (_selfplay.INPUTS, _selfplay.CONTACT_INPUTS) or net.inputs != inputs_of(width)):
        raise InvalidNetworkError(
            f"the trainer refines networks of tesauro198 (and contact) inputs, one sigmoid hidden layer and five "
            f"outputs; {net.__name__} has sizes {net.sizes}, inputs {net.inputs} and {net.activation} units")
    return TrainedWeights(net.sizes[1], net.weights[0], net.biases[0], net.weights[1], net.biases[1])


class TrainedWeights:
    """The trained arrays in the layout the compiled loop reads, one copy a thread."""

    def __init__(self, hidden: int, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: np.ndarray) -> None:
        pad = _selfplay.PAD
        p = (hidden + pad - 1) // pad * pad
        self.hidden = hidden
        self.w1 = np.zeros((w1.shape[0], p), np.float32)
        self.w1[:, :hidden] = w1
        self.b1 = np.zeros(p, np.float32)
        self.b1[:hidden] = b1
        self.w2t = np.zeros((5, p), np.float32)
        self.w2t[:, :hidden] = np.asarray(w2).T
        self.b2 = np.array(b2, np.float32)
        self.learner = _selfplay.Learner(self.w1, self.b1, self.w2t, self.b2, hidden)

    def arrays(self) -> tuple[np.ndarray, ...]:
        """w1, b1, w2t, b2 (changed in place by the learner)."""
        return self.w1, self.b1, self.w2t, self.b2

    def network(self, name: str) -> Network:
        """The network of the current weights (a copy)."""
        h = self.hidden
        return Network([self.w1[:, :h], self.w2t[:, :h].T], [self.b1[:h], self.b2], inputs=inputs_of(self.w1.shape[0]),
                       activation="sigmoid", name=name)
