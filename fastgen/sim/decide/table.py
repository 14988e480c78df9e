"""The result of a rollout that decides: :class:`RolloutTable`, one :class:`RolloutRow` per
candidate play, best first, with the statistics computed from the trials.

Every row keeps its per-trial estimates (``samples``, variance-reduced, and
``raw_samples``, the plain outcomes; (trials, 5) each, the row player's probabilities).
From them:

* ``probabilities`` / ``probabilities_se``: the mean of ``samples`` and its standard
  error ``std(ddof=1) / sqrt(n)``; ``equity`` / ``equity_se`` likewise for the
  per-trial cubeless equity; ``raw_*`` the same over ``raw_samples``.
* ``diff`` / ``diff_se``: the mean and standard error of the per-trial difference
  ``equity(row) - equity(best row)`` over the trials both rows played (common random
  numbers: trial k threw the same dice for both), so the luck they share cancels.
* ``p_best``: the probability that the row is the best, under the normal approximation
  of the rows' mean equities with the covariance of their paired trials (20,000 draws
  from a fixed generator, so the same trials give the same figure).

With quasi-random dice the trials are stratified, not independent; the standard errors
above treat them as independent and so err on the large side.

A row without trials (a rollout interrupted before its first trial finished) has NaN
statistics, ``diff``, ``diff_se`` and ``p_best`` included; the printed table ranks the
rows that have trials and lists the others after them as not rolled out, or, when no row
has any, prints :data:`NO_RESULT` instead of rows.

A variance-reduced probability can fall a little outside [0, 1] (each trial's outcome is
corrected by the evaluator's luck terms). The printed table (``str``) shows each within
[0, 1] and says so in a line under the rows; ``to_dict()`` keeps the estimates as computed.
"""

from __future__ import annotations

import math
from html import escape
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fastgen.players.evaluators import EQUITY_WEIGHTS
from fastgen.core.ids import position_id
from fastgen.core.notation import Play

__all__ = ["RolloutRow", "RolloutTable", "build_rows", "NO_RESULT"]

#: Draws of the normal approximation behind ``p_best``.
P_BEST_DRAWS = 20_000

_OUTPUTS = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")


def _equity(samples: np.ndarray) -> np.ndarray:
    return samples @ EQUITY_WEIGHTS - 1.0


def _mean_se(x: np.ndarray) -> tuple[Any, Any]:
    n = x.shape[0]
    if n == 0:
        return np.full(x.shape[1:], math.nan), np.full(x.shape[1:], math.nan)
    mean = x.mean(axis=0)
    se = x.std(axis=0, ddof=1) / math.sqrt(n) if n > 1 else np.full(x.shape[1:], math.nan)
    return mean, se


@dataclass
class RolloutRow:
    """One candidate of a :class:`RolloutTable` (see the module docstring)."""

    play: Play | None
    probabilities: tuple
    probabilities_se: tuple
    equity: float
    equity_se: float
    raw_equity: float
    raw_equity_se: float
    trials: int
    diff: float = 0.0
    diff_se: float = 0.0
    p_best: float = 1.0
    samples: np.ndarray = field(default_factory=lambda: np.zeros((0, 5)), repr=False)
    raw_samples: np.ndarray = field(default_factory=lambda: np.zeros((0, 5)), repr=False)

    def to_dict(self) -> dict:
        """The row as plain JSON-serializable values (the per-trial samples left out)."""
        play = None
        if self.play is not None:
            play = {"text": str(self.play), "position_id_after": position_id(self.play.board_after)}
        return {
            "play": play,
            "probabilities": dict(zip(_OUTPUTS, map(_num, self.probabilities))),
            "probabilities_se": dict(zip(_OUTPUTS, map(_num, self.probabilities_se))),
            "equity": _num(self.equity),
            "equity_se": _num(self.equity_se),
            "raw_equity": _num(self.raw_equity),
            "raw_equity_se": _num(self.raw_equity_se),
            "trials": self.trials,
            "diff": _num(self.diff),
            "diff_se": _num(self.diff_se),
            "p_best": _num(self.p_best),
        }


#: The footnote of a printed table in which a probability estimate fell outside [0, 1].
PROBABILITIES_CLIPPED = (
    "probabilities shown within [0, 1]: variance reduction put an estimate outside "
    "(to_dict() and --json give it as computed)"
)


#: What a rollout interrupted before its first trial (trial 0) finished prints instead of rows.
NO_RESULT = "interrupted before the first trial finished: no result"


def _shown_probability(x: float) -> float:
    """*x* as the printed table shows it: within [0, 1] (NaN, a row without trials, kept).

    A variance-reduced estimate is the mean of per-trial outcomes each corrected by the
    evaluator's luck terms, so it can fall a little below 0 or above 1."""
    return x if math.isnan(x) else min(max(x, 0.0), 1.0)


def _num(x: float) -> float | None:
    x = float(x)
    return None if math.isnan(x) else x


def build_rows(plays: list, samples: list, raw: list) -> list[RolloutRow]:
    """Rows (best first) from each candidate's (n_i, 5) variance-reduced and raw samples."""
    rows = []
    for play, s, r in zip(plays, samples, raw):
        p, p_se = _mean_se(s)
        e, e_se = _mean_se(_equity(s)[:, None])
        re, re_se = _mean_se(_equity(r)[:, None])
        rows.append(RolloutRow(
            play, tuple(map(float, p)), tuple(map(float, p_se)), float(e[0]), float(e_se[0]),
            float(re[0]), float(re_se[0]), int(s.shape[0]), samples=s, raw_samples=r,
        ))
    # Best first; a row without trials last; ties keep the generation order.
    order = sorted(range(len(rows)), key=lambda i: (rows[i].trials == 0, -np.nan_to_num(rows[i].equity, nan=-9)))
    rows = [rows[i] for i in order]
    for row in rows:
        if row.trials == 0:  # nothing to compare: not "as good as the best"
            row.diff = row.diff_se = row.p_best = math.nan
    if not rows or rows[0].trials == 0:
        return rows
    best = _equity(rows[0].samples)
    for row in rows:
        n = min(row.trials, best.shape[0])
        d = _equity(row.samples[:n]) - best[:n]
        mean, se = _mean_se(d[:, None])
        row.diff, row.diff_se = float(mean[0]), float(se[0])
    _p_best(rows)
    return rows


def _p_best(rows: list[RolloutRow]) -> None:
    live = [r for r in rows if r.trials > 0]
    n0 = min(r.trials for r in live)
    if len(live) == 1 or n0 < 2:
        for r in live:
            r.p_best = 1.0 if r is rows[0] else 0.0
        return
    means = np.array([r.equity for r in live])
    e = np.stack([_equity(r.samples[:n0]) for r in live])
    cov = np.atleast_2d(np.cov(e)) / n0
    w, v = np.linalg.eigh(cov)
    root = v * np.sqrt(np.clip(w, 0, None))
    draws = means + np.random.default_rng(0).standard_normal((P_BEST_DRAWS, len(live))) @ root.T
    wins = np.bincount(draws.argmax(axis=1), minlength=len(live)) / P_BEST_DRAWS
    for r, p in zip(live, wins):
        r.p_best = float(p)


@dataclass
class RolloutTable:
    """The candidates of a rollout, best first (``rows``), and how it was run.

    ``board`` and ``dice`` are the position and roll (``dice`` None for
    :func:`fastgen.rollout_position`); ``interrupted`` is True when Ctrl-C stopped the
    rollout early (the rows hold the trials finished by then, in order from trial 0; none
    when it came before the first finished); ``stopped`` says why it
    ended before *trials* (``"stop_se"``, ``"interrupted"``) or is None; ``stats`` holds
    timings and the evaluator's call count and positions; ``truncate_bearoff`` says
    whether trials stopped in the evaluator's bear-off databases.
    """

    rows: list
    board: np.ndarray
    dice: tuple | None
    evaluator: str
    trials: int
    seed: int
    variance_reduction: bool
    quasi_random: bool
    truncate: int | None
    interrupted: bool = False
    stopped: str | None = None
    seconds: float = 0.0
    stats: dict = field(default_factory=dict)
    truncate_bearoff: bool = False
    #: The :class:`fastgen.sim.TrialOptions` that played the trials.
    options: Any = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict:
        """The table as plain JSON-serializable values."""
        return {
            "position_id": position_id(self.board),
            "dice": None if self.dice is None else list(self.dice),
            "evaluator": self.evaluator,
            "trials": self.trials,
            "seed": self.seed,
            "variance_reduction": self.variance_reduction,
            "quasi_random": self.quasi_random,
            "truncate": self.truncate,
            "truncate_bearoff": self.truncate_bearoff,
            "interrupted": self.interrupted,
            "stopped": self.stopped,
            "seconds": self.seconds,
            "rows": [r.to_dict() for r in self.rows],
        }

    def __str__(self) -> str:
        dice = "" if self.dice is None else f", dice {self.dice[0]}{self.dice[1]}"
        head = [
            f"Cubeless rollout of {position_id(self.board)}{dice}: evaluator {self.evaluator}, seed {self.seed}, "
            f"{'variance reduction' if self.variance_reduction else 'no variance reduction'}, "
            f"{'quasi-random' if self.quasi_random else 'plain'} dice"
            + ("" if self.truncate is None else f", truncated at {self.truncate} half-moves")
            + (", stopped in the bear-off databases" if self.truncate_bearoff else ""),
        ]
        rolled = [r for r in self.rows if r.trials > 0]
        if self.interrupted:
            if not rolled:
                return "\n".join(head + [NO_RESULT])
            done = max(r.trials for r in rolled)
            head.append(f"INTERRUPTED after {done:,} of {self.trials:,} trials: the rows hold those")
        head.append(
            f"{'#':>2} {'play':<22}{'win':>7}{'wg':>7}{'wbg':>7}{'lg':>7}{'lbg':>7}"
            f"{'equity':>9}{'(se)':>8}{'diff':>9}{'(se)':>8}{'p_best':>8}{'trials':>8}"
        )
        clipped = False
        for i, r in enumerate(rolled, 1):
            name = _row_name(r)
            p = [_shown_probability(x) for x in r.probabilities]
            clipped = clipped or any(x < 0.0 or x > 1.0 for x in r.probabilities)
            head.append(
                f"{i:>2} {name:<22}" + "".join(f"{x:7.3f}" for x in p)
                + f"{r.equity:+9.3f}{r.equity_se:8.3f}{r.diff:+9.3f}{r.diff_se:8.3f}{r.p_best:8.3f}{r.trials:8d}"
            )
        for r in self.rows:
            if r.trials == 0:
                head.append(f"{'-':>2} {_row_name(r):<22}  not rolled out")
        if clipped:
            head.append(PROBABILITIES_CLIPPED)
        return "\n".join(head)

    def _repr_html_(self) -> str:
        """The table as HTML for Jupyter: what ``str`` prints, one row a candidate rolled
        out (best first), then those an interruption left without trials."""
        dice = "" if self.dice is None else f", dice {self.dice[0]}{self.dice[1]}"
        rolled = [r for r in self.rows if r.trials > 0]
        note = ""
        if self.interrupted:
            note = (f" (interrupted after {max(r.trials for r in rolled):,} of {self.trials:,} trials)" if rolled
                    else f" ({escape(NO_RESULT)})")
        head = (f"<p><b>Cubeless rollout of {position_id(self.board)}{dice}</b>: evaluator {escape(self.evaluator)}, "
                f"{self.trials:,} trials, seed {self.seed}{note}</p>")
        cols = ("#", "play", "win", "wg", "wbg", "lg", "lbg", "equity", "(se)", "diff", "(se)", "p_best", "trials")
        rows, clipped = [], False
        for i, r in enumerate(rolled, 1):
            clipped = clipped or any(x < 0.0 or x > 1.0 for x in r.probabilities)
            cells = [str(i), escape(_row_name(r))] + [f"{_shown_probability(x):.3f}" for x in r.probabilities] + [
                f"{r.equity:+.3f}", f"{r.equity_se:.3f}", f"{r.diff:+.3f}", f"{r.diff_se:.3f}", f"{r.p_best:.3f}",
                f"{r.trials:,}"]
            rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        rows += [f'<tr><td>-</td><td>{escape(_row_name(r))}</td><td colspan="{len(cols) - 2}">not rolled out</td></tr>'
                 for r in self.rows if r.trials == 0]
        foot = f"<p>{escape(PROBABILITIES_CLIPPED)}</p>" if clipped else ""
        table = ("<table><tr>" + "".join(f"<th>{c}</th>" for c in cols) + "</tr>" + "".join(rows) + "</table>"
                 if rolled else "")
        return f'<div class="fastgen-rollout">{head}{table}{foot}</div>'

    def __repr__(self) -> str:
        return f"<RolloutTable rows={len(self.rows)} trials={self.trials} evaluator={self.evaluator!r}>"


def _row_name(r: RolloutRow) -> str:
    """A row's play as players write it: "(position)" for a position rolled out whole."""
    return "(position)" if r.play is None else (str(r.play) or "(no move)")
