"""Training networks from scratch: TD(lambda) self-play in the compiled core.

- :mod:`fastgen.train.td`: :func:`td` and :func:`resume_td`, TD(lambda) self-play of a
  :class:`fastgen.nets.Network` (games and gradient steps without the GIL, one weight
  copy a thread averaged every few hundred games), with its :class:`TDConfig`.
- :mod:`fastgen.train.checkpoint`: the checkpoint file (a network file with the run's
  state beside it), written whole at every point of the training curve.

The command line is ``fastgen train td`` (see docs/guides/training.rst).
"""

from fastgen.train.td import TDConfig, TDRun, resume_td, td

__all__ = ["TDConfig", "TDRun", "td", "resume_td"]
