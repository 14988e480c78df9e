"""Neural networks as evaluators: the forward pass compiled, without the GIL.

- :mod:`fastgen.nets.probs`: :func:`~fastgen.nets.probs.make_consistent`, the cut that
  turns five independent sigmoid outputs into probabilities keeping every rule of an
  evaluator's answer (each gammon at most its side's wins, each backgammon at most its
  side's gammons), as GNU Backgammon does with its own nets.
- :mod:`fastgen.nets.onnx_io`: multilayer perceptrons in and out of ONNX files (the
  ``onnx`` extra) and any ONNX graph run through onnxruntime.
"""

from fastgen.nets.network import Network

__all__ = ["Network"]
