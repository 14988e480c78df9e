"""Training networks from scratch: TD(lambda) self-play in the compiled core.

- :mod:`fastgen.train.td_lambda`: :func:`td` and :func:`resume_td`, TD(lambda) self-play of a
  :class:`fastgen.nets.Network` (games and gradient steps without the GIL, one weight
  copy a thread averaged every few hundred games), with its :class:`TDConfig`.
- :mod:`fastgen.train.refine`: :func:`supervise`, refinement from rollouts: positions
  from the network's own games (close decisions first), each rolled out with it, and
  the network trained on their probabilities; the data set kept in a folder.
- :mod:`fastgen.train.checkpoint`: the checkpoint file (a network file with the run's
  state beside it), written whole at every point of the training curve.
- :mod:`fastgen.train.weights`: the weights in the compiled trainer's layout.
- :class:`CheckpointError`: a checkpoint that cannot be resumed.

The command line is ``fastgen train td``, ``fastgen train supervise`` and ``fastgen
train plot`` (see docs/guides/training.rst).
"""

from fastgen.errors import CheckpointError
from fastgen.train.refine import SuperviseConfig, SuperviseRun, supervise
from fastgen.train.config import TDConfig
from fastgen.train.td_lambda import TDRun, resume_td, td

__all__ = ["TDConfig", "TDRun", "td", "resume_td", "SuperviseConfig", "SuperviseRun", "supervise", "CheckpointError"]
