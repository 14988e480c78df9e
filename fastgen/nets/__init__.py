"""Neural networks as evaluators: the forward pass compiled, without the GIL.

- :mod:`fastgen.nets.network`: :class:`Network`, a feed-forward network over board
  inputs, as an evaluator (``net(boards) -> (N, 5)``) and a greedy player
  (:meth:`Network.choose`); ``threads=``; pickles as its weights.
- :mod:`fastgen.nets.sets`: :class:`NetworkSet`, one evaluator per position class
  (bear-off databases exact, race, contact), with the class rule written down.
- :mod:`fastgen.nets.files`: its ``.npz`` layout (:meth:`Network.save`, :meth:`Network.load`).
- :mod:`fastgen.nets.probs`: :func:`~fastgen.nets.probs.make_consistent`, the cut that
  turns five independent sigmoid outputs into probabilities keeping every rule of an
  evaluator's answer (each gammon at most its side's wins, each backgammon at most its
  side's gammons), as GNU Backgammon does with its own nets.
- :mod:`fastgen.nets.onnx_io`: multilayer perceptrons in and out of ONNX files (the
  ``onnx`` extra) and any ONNX graph run through onnxruntime.
- :mod:`fastgen.nets.gnubg_weights`: GNU Backgammon's own nets, read from the user's
  install (:func:`~fastgen.nets.gnubg_weights.find_weights`,
  :func:`~fastgen.nets.gnubg_weights.read_weights`); fastgen never ships them.
- :mod:`fastgen.nets.gnubg`: GNU Backgammon's 0-ply evaluation compiled over those
  weights (:func:`fastgen.nets.gnubg.load`), equal to gnubg-nn's; what the ``gnubg:0``
  spec names when the weights are found.
- Errors: :class:`InvalidNetworkError` (weights fastgen cannot run),
  :class:`NetworkFileError` (a network file that cannot be read),
  :class:`GnubgWeightsNotFoundError` (no GNU Backgammon weights file found).

>>> import numpy as np, fastgen
>>> rng = np.random.default_rng(0)
>>> net = Network([rng.normal(0, 0.1, (198, 32)), rng.normal(0, 0.1, (32, 5))], [np.zeros(32), np.zeros(5)])
>>> p = net(np.stack([fastgen.STARTING_BOARD] * 4))
>>> p.shape, p.dtype.name, bool((p[:, 1] <= p[:, 0]).all())
((4, 5), 'float32', True)
"""

from fastgen.errors import GnubgWeightsNotFoundError, InvalidNetworkError, NetworkFileError
from fastgen.nets.network import Network
from fastgen.nets.sets import NetworkSet, classify

__all__ = ["Network", "NetworkSet", "classify", "InvalidNetworkError", "NetworkFileError", "GnubgWeightsNotFoundError"]
