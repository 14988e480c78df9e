"""The settings of a TD(lambda) training run (:class:`TDConfig`) and its step size.

Read by the trainer (:mod:`fastgen.train.td_lambda`) and by the checkpoint reader
(:mod:`fastgen.train.checkpoint`), which checks a checkpoint's settings against them.
"""

from __future__ import annotations

from dataclasses import dataclass

from fastgen._util import check_int, check_positive_float, check_threads
from fastgen.errors import InvalidArgumentError
from fastgen.nets.network import MAX_WIDTH

__all__ = ["TDConfig", "geometric_step"]


@dataclass(frozen=True)
class TDConfig:
    """The settings of a TD(lambda) run (checked when made; a bad value raises
    :class:`~fastgen.errors.InvalidArgumentError` quoting it).

    hidden: hidden units; contact: the "contact" features (fastgen.encode's) as inputs
    after Tesauro's 198; games: self-play games in all; lam: lambda (0 < lam <= 1; 1
    learns from the game's result alone); lr, lr_end: the step size at the first and at
    the last game (geometric in between); threads: threads, each training its own copy;
    sync: games a thread plays between two averagings of the copies; seed: the first
    weights (normal, standard deviation *init*) and every game's dice; max_turns: a game
    longer than this is dropped, not learnt from (counted as ``"dropped"`` in the next
    curve point); eval_every, eval_games: games between two points of the curve, and
    mirrored games of each of its duels (0: no duels)."""

    hidden: int = 128
    contact: bool = True
    games: int = 1_000_000
    lam: float = 0.7
    lr: float = 0.1
    lr_end: float = 0.02
    threads: int = 1
    sync: int = 500
    seed: int = 0
    init: float = 0.1
    max_turns: int = 5000
    eval_every: int = 50_000
    eval_games: int = 2000

    def __post_init__(self) -> None:
        check_int(self.hidden, "hidden", 1, MAX_WIDTH)
        if not isinstance(self.contact, bool):
            raise InvalidArgumentError(f"contact must be True or False, got {self.contact!r}")
        check_int(self.games, "games", 1)
        check_positive_float(self.lam, "lam", 1.0)
        check_positive_float(self.lr, "lr", 10.0)
        check_positive_float(self.lr_end, "lr_end", 10.0)
        check_threads(self.threads)
        check_int(self.sync, "sync", 1)
        check_int(self.seed, "seed", 0, 2**63 - 1)
        check_positive_float(self.init, "init", 10.0)
        check_int(self.max_turns, "max_turns", 10)
        check_int(self.eval_every, "eval_every", 1)
        check_int(self.eval_games, "eval_games", 0)
        if self.eval_games % 2:
            raise InvalidArgumentError(f"eval_games must be even (mirrored pairs), got {self.eval_games!r}")

    def lr_at(self, games: int) -> float:
        """The step size after *games* games: lr * (lr_end / lr) ** (games / self.games)."""
        return geometric_step(self.lr, self.lr_end, min(games, self.games) / self.games)


def geometric_step(lr: float, lr_end: float, fraction: float) -> float:
    """The step size *fraction* (0..1) of the way from *lr* to *lr_end*, geometrically:
    ``lr * (lr_end / lr) ** fraction``."""
    return lr * (lr_end / lr) ** fraction
