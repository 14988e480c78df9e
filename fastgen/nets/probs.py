"""Five network outputs made into probabilities an evaluator may answer.

A network's five outputs (P(win), P(win gammon), P(win backgammon), P(lose gammon),
P(lose backgammon) for the side on roll, GNU Backgammon's convention) are independent
sigmoids: each in [0, 1], but nothing keeps a gammon below its win. :func:`make_consistent`
cuts them, in place, to keep the rules :func:`check_probs` checks of every evaluator's answer:

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

from typing import Any, Callable

import numpy as np

from fastgen.core.ids import position_id
from fastgen.errors import InvalidOutputError

__all__ = ["make_consistent", "check_probs", "check_answer", "checked_answer", "PROB_RULES", "PROB_TOLERANCE"]


def make_consistent(out: np.ndarray) -> np.ndarray:
    """Cut the (N, 5) float array *out* in place (see the module docstring) and return it.
    ``1 - P(win)`` is taken in *out*'s dtype."""
    np.minimum(out[:, 1], out[:, 0], out=out[:, 1])
    np.minimum(out[:, 2], out[:, 1], out=out[:, 2])
    np.minimum(out[:, 3], 1.0 - out[:, 0], out=out[:, 3])
    np.minimum(out[:, 4], out[:, 3], out=out[:, 4])
    return out


#: How far an evaluator's answer may stray past a rule of :func:`check_probs` (float32
#: rounding of a probability near 0 or 1 is below 1e-7; this leaves room for sums of a few).
PROB_TOLERANCE = 1e-6

#: The rules of an evaluator's answer (p = P(win), P(wg), P(wbg), P(lg), P(lbg)), in the
#: order they are reported; the last four only for an evaluator whose ``ordered`` is true.
PROB_RULES = (
    "every value finite",
    "every value >= 0",
    "every value <= 1",
    "P(win gammon) <= P(win)",
    "P(win backgammon) <= P(win gammon)",
    "P(lose gammon) <= P(lose) = 1 - P(win)",
    "P(lose backgammon) <= P(lose gammon)",
)


def check_probs(arr: np.ndarray, boards: np.ndarray, name: str, ordered: bool = True) -> None:
    """Raise :class:`~fastgen.errors.InvalidOutputError` unless the (N, 5) float64 answer
    *arr* of evaluator *name* for *boards* (N, 2, 25) keeps :data:`PROB_RULES` within
    :data:`PROB_TOLERANCE`: finite, in [0, 1] and, when *ordered*, gammons <= wins and
    backgammons <= gammons for both sides. The message quotes the first bad row, the rule
    it breaks and the position's GNU Backgammon Position ID. A few whole-array reductions
    when the answer is good."""
    if arr.shape[0] == 0:
        return
    tol = PROB_TOLERANCE
    w, wg, wb, lg, lb = arr[:, 0], arr[:, 1], arr[:, 2], arr[:, 3], arr[:, 4]
    # NaN fails every comparison, so a non-finite value lands in the slow path below.
    if arr.min() >= -tol and arr.max() <= 1.0 + tol and (not ordered or (
            (wg - w).max() <= tol and (wb - wg).max() <= tol and (lg + w).max() <= 1.0 + tol
            and (lb - lg).max() <= tol)):
        return
    broken = [~np.isfinite(arr).all(axis=1), (arr < -tol).any(axis=1), (arr > 1.0 + tol).any(axis=1)]
    if ordered:
        broken += [wg - w > tol, wb - wg > tol, lg + w > 1.0 + tol, lb - lg > tol]
    bad = np.logical_or.reduce(broken)
    i = int(np.flatnonzero(bad)[0])
    k = next(k for k, b in enumerate(broken) if b[i])
    rule = PROB_RULES[k]
    raise InvalidOutputError(
        f"evaluator {name!r} answered impossible probabilities {arr[i].tolist()!r} (row {i} of {arr.shape[0]}) "
        f"for position ID {position_id(boards[i])!r}: it breaks the rule {rule} (tolerance {tol:g}); an "
        "evaluator returns P(win), P(win gammon), P(win backgammon), P(lose gammon), P(lose backgammon) "
        "for the side on roll" + ("" if k < 3 else " (an evaluator whose outputs are not ordered, such as "
                                   "independent sigmoids, sets its attribute ordered = False: range checks only)")
    )


def evaluator_name(evaluator: Any) -> str:
    """The name an evaluator goes by in messages: its ``__name__``, else its type's."""
    return getattr(evaluator, "__name__", type(evaluator).__name__)


def checked_answer(evaluator: Any, boards: np.ndarray, threads: int = 1) -> np.ndarray:
    """The answer of *evaluator* for the (N, 2, 25) *boards* as (N, 5) float64: its
    ``evaluate(boards, threads=threads)`` when it has one (an evaluator of
    :mod:`fastgen.players`, a compiled network), else ``evaluator(boards)``. Unless the
    evaluator is a trusted one (its attribute ``trusted``: fastgen's own), the answer is
    checked by :func:`check_probs` (unless its attribute ``ordered`` is false, the order
    rules too); :class:`~fastgen.errors.InvalidOutputError` naming the evaluator when it
    answers anything else (None, a scalar, another shape, NaN ...)."""
    method = getattr(evaluator, "evaluate", None)
    got = method(boards, threads=threads) if callable(method) else evaluator(boards)
    if getattr(evaluator, "trusted", False):
        return np.asarray(got, dtype=np.float64)
    return check_answer(got, boards, evaluator_name(evaluator), bool(getattr(evaluator, "ordered", True)))


def check_answer(got: Any, boards: np.ndarray, name: str, ordered: bool = True) -> np.ndarray:
    """An evaluator's answer *got* for the (N, 2, 25) *boards* as (N, 5) float64, checked
    by :func:`check_probs`; :class:`~fastgen.errors.InvalidOutputError` naming the
    evaluator *name* and quoting the answer when it is not (N, 5) numbers."""
    try:
        arr = np.asarray(got, dtype=np.float64)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.shape != (boards.shape[0], 5):
        shown = " ".join(repr(got).split())[:200]  # the answer quoted on one line
        raise InvalidOutputError(f"evaluator {name!r} must return ({boards.shape[0]}, 5) finite floats, got {shown}")
    check_probs(arr, boards, name, ordered)
    return arr
