"""Five network outputs made into probabilities an evaluator may answer.

A network's five outputs (P(win), P(win gammon), P(win backgammon), P(lose gammon),
P(lose backgammon) for the side on roll, GNU Backgammon's convention) are independent
sigmoids: each in [0, 1], but nothing keeps a gammon below its win. :func:`make_consistent`
cuts them, in place, to keep the rules :func:`fastgen.evaluators.check_probs` checks:

- ``P(win gammon) <= P(win)`` and ``P(win backgammon) <= P(win gammon)``;
- ``P(lose gammon) <= 1 - P(win)`` and ``P(lose backgammon) <= P(lose gammon)``.

A value is only ever lowered, to the bound it broke; P(win) is never changed. The
compiled networks (:mod:`fastgen.nets`) make the same cut, in the same order, in C.

>>> import numpy as np
>>> p = np.array([[0.30, 0.35, 0.40, 0.80, 0.10]])
>>> make_consistent(p).round(2).tolist()
[[0.3, 0.3, 0.3, 0.7, 0.1]]
"""

from __future__ import annotations

import numpy as np

__all__ = ["make_consistent"]


def make_consistent(out: np.ndarray) -> np.ndarray:
    """Cut the (N, 5) float array *out* in place (see the module docstring) and return it.
    ``1 - P(win)`` is taken in *out*'s dtype."""
    np.minimum(out[:, 1], out[:, 0], out=out[:, 1])
    np.minimum(out[:, 2], out[:, 1], out=out[:, 2])
    np.minimum(out[:, 3], 1.0 - out[:, 0], out=out[:, 3])
    np.minimum(out[:, 4], out[:, 3], out=out[:, 4])
    return out
