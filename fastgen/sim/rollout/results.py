"""What a rollout returns: every game's winner, result and length (:class:`RolloutResult`)
and their summary statistics with intervals (:class:`RolloutSummary`, :func:`summarize`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fastgen.errors import InvalidArgumentError

def _wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score 95% interval of a binomial proportion k/n."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class RolloutSummary:
    """Rates per side (0 = the side that moved first) with Wilson 95% intervals."""

    games: int
    win: tuple[float, float]
    gammon: tuple[float, float]
    backgammon: tuple[float, float]
    intervals: dict
    points_per_game: float
    points_per_game_interval: tuple[float, float]
    average_turns: float
    seconds: float
    games_per_second: float
    turns_per_second: float
    policy: str
    seed: int

    def as_dict(self) -> dict:
        """Plain JSON-serializable dict."""
        return {
            "games": self.games,
            "policy": self.policy,
            "seed": self.seed,
            "win": list(self.win),
            "gammon": list(self.gammon),
            "backgammon": list(self.backgammon),
            "intervals": {k: [list(v[0]), list(v[1])] for k, v in self.intervals.items()},
            "points_per_game": self.points_per_game,
            "points_per_game_interval": list(self.points_per_game_interval),
            "average_turns": self.average_turns,
            "seconds": self.seconds,
            "games_per_second": self.games_per_second,
            "turns_per_second": self.turns_per_second,
        }

    def __str__(self) -> str:
        lines = [f"{self.games} games, policy {self.policy}, seed {self.seed}"]
        lines.append(f"{'':<12}{'side 0 (first)':>26}{'side 1':>26}")
        for key in ("win", "gammon", "backgammon"):
            cells = []
            for side in (0, 1):
                rate = getattr(self, key)[side]
                lo, hi = self.intervals[key][side]
                cells.append(f"{100 * rate:6.2f}% [{100 * lo:5.2f}, {100 * hi:5.2f}]")
            lines.append(f"{key:<12}{cells[0]:>26}{cells[1]:>26}")
        lo, hi = self.points_per_game_interval
        lines.append(f"points/game (side 0): {self.points_per_game:+.4f} [{lo:+.4f}, {hi:+.4f}]")
        lines.append(f"average turns: {self.average_turns:.2f}")
        lines.append(
            f"time: {self.seconds:.3f} s, {self.games_per_second:,.0f} games/s, "
            f"{self.turns_per_second:,.0f} turns/s"
        )
        return "\n".join(lines)


@dataclass
class RolloutResult:
    """Per-game outcome arrays of a rollout.

    ``winner`` (0 = the side that moved first), ``result`` (1 single, 2 gammon,
    3 backgammon), ``turns`` (plays made, lost turns included) and ``points``
    (cubeless: equal to ``result``), each of shape (games,).

    ``timings`` (the batched loop of a callable policy, or ``engine="python"``): seconds in
    ``plays_batch``, in the ``policy`` call itself, and ``other`` (checking the policy's
    answer, turning the chosen positions over, recording finished games and refilling
    their slots, rolling the dice: one compiled call per turn).
    """

    winner: np.ndarray
    result: np.ndarray
    turns: np.ndarray
    points: np.ndarray
    seed: int
    policy: str
    seconds: float = 0.0
    timings: dict = field(default_factory=dict)
    #: The :class:`fastgen.sim.GameOptions` that played the games (set by :func:`fastgen.rollout`).
    options: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def cubeless(cls, winner, result, turns, seed, policy, seconds, timings) -> "RolloutResult":
        """A result of cubeless games: each game scores its result type (R17, cube 1)."""
        return cls(winner, result, turns, result.astype(np.int16), seed, policy, seconds, timings)

    @property
    def games(self) -> int:
        return int(self.winner.shape[0])

    @property
    def total_turns(self) -> int:
        return int(self.turns.sum())

    def summary(self) -> RolloutSummary:
        """Win / gammon / backgammon rates per side with 95% intervals."""
        return summarize(self)

    def __repr__(self) -> str:
        return f"<RolloutResult games={self.games} policy={self.policy!r} seed={self.seed} turns={self.total_turns}>"


def summarize(result: RolloutResult) -> RolloutSummary:
    """Summary statistics of a :class:`RolloutResult`."""
    if not isinstance(result, RolloutResult):
        raise InvalidArgumentError(f"summarize needs a RolloutResult (from rollout()), got {result!r}")
    n = result.games
    rates: dict[str, tuple[float, float]] = {}
    intervals = {}
    for key, mask in (
        ("win", np.ones(n, dtype=bool)),
        ("gammon", result.result >= 2),
        ("backgammon", result.result == 3),
    ):
        counts = [int(((result.winner == side) & mask).sum()) for side in (0, 1)]
        rates[key] = (counts[0] / n if n else 0.0, counts[1] / n if n else 0.0)
        intervals[key] = tuple(_wilson(c, n) for c in counts)
    signed = np.where(result.winner == 0, result.points, -result.points).astype(float)
    ppg = float(signed.mean()) if n else 0.0
    half = 1.96 * float(signed.std(ddof=1)) / math.sqrt(n) if n > 1 else float("inf")
    seconds = result.seconds
    return RolloutSummary(
        games=n,
        win=rates["win"],
        gammon=rates["gammon"],
        backgammon=rates["backgammon"],
        intervals=intervals,
        points_per_game=ppg,
        points_per_game_interval=(ppg - half, ppg + half),
        average_turns=float(result.turns.mean()) if n else 0.0,
        seconds=seconds,
        games_per_second=n / seconds if seconds > 0 else float("inf"),
        turns_per_second=result.total_turns / seconds if seconds > 0 else float("inf"),
        policy=result.policy,
        seed=result.seed,
    )


