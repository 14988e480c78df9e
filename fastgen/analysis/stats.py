"""Per-player totals of an analysis, in GNU Backgammon's units and signs.

Errors and luck are totals of normalised equity (EMG), errors negative; each total is
also given *unnormalised*: in match-winning chance at match play, in points (times the
cube) for money. The rates are per decision in thousandths (mEMG):

- chequer error rate: the errors of the unforced moves (more than one legal play) per
  unforced move;
- cube error rate: per *close or actual* cube decision (every double, take and pass,
  and each no double whose best action is within 0.16 of double/take);
- overall error rate: chequer and cube errors per unforced move and close cube decision;
- Snowie error rate: the overall error per move of *both* players (every roll played,
  forced ones and dances included), as Snowie counts;
- luck rate: luck per move (roll) of the player.

Cube errors fall in GNU Backgammon's six kinds: missed doubles below and above the cash
point (double/take above 1: the opponent should pass), wrong doubles below the double
point and above the too-good point (no double above 1), wrong takes, wrong passes.

The results (GNU Backgammon's, from its source): the *actual result* is the points won
(money) or the match-winning chance won (each game's winner gains the difference of
the match equity table's values after and before it: a match won from 0-0 is +50%);
the *luck-adjusted result* is the actual result less the player's unnormalised luck
plus its opponent's. In a money session both are also given per game over the finished
games (GNU Backgammon's "Advantage in ppg"), each with its 95% confidence interval, the
mean plus and minus 1.959964 (the normal distribution's 97.5% point) standard errors of
the games' values (sample standard deviation over the square root of the number of
games; none below two games). GNU Backgammon 1.07 prints both intervals about the
session's *totals* rather than the means; their widths are the same. At match play of
length N, the ratings are:

- error-based absolute FIBS rating, Kees van den Doel's formula as GNU Backgammon gives
  it: 2050 - EPM (8798 + 25526 / N) - EPC (863 - 519 / N), EPM the chequer error per
  unforced move and EPC the cube error per close cube decision (normalised, positive);
- luck-based FIBS rating difference (player 0's): the FIBS rating formula (a player
  rated D above its opponent wins an N-point match with chance
  1 / (1 + 10^(-D sqrt(N) / 2000))) solved for D at the chance 0.5 + player 0's
  luck-adjusted result, not below -2100 (None when that chance is not in (0, 1)).

The level names by error rate (normalised error per decision, strict bounds), as GNU
Backgammon names them: below 0.002 Supernatural, 0.005 World class, 0.008 Expert, 0.012
Advanced, 0.018 Intermediate, 0.026 Casual player, 0.035 Beginner, else Awful!; and of
luck by the luck per move: above 0.06 "Go to Las Vegas", above 0.03 "Good dice, man!",
below -0.06 "Go to bed", below -0.03 "Bad dice, man!", else "None".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from fastgen.analysis.records import CubeRecord, MoveRecord

__all__ = ["PlayerStats", "player_stats", "RATINGS", "rating_name", "luck_rating", "CUBE_ERROR_KINDS",
           "fibs_rating_difference"]

#: GNU Backgammon's level names by normalised error per decision: the name applies below the bound.
RATINGS = (("Supernatural", 0.002), ("World class", 0.005), ("Expert", 0.008), ("Advanced", 0.012),
           ("Intermediate", 0.018), ("Casual player", 0.026), ("Beginner", 0.035), ("Awful!", math.inf))

#: The normal distribution's 97.5% point: a 95% interval is the mean plus and minus this many standard errors.
Z95 = 1.959964

#: The six kinds of cube error, in GNU Backgammon's order.
CUBE_ERROR_KINDS = ("missed double below CP", "missed double above CP", "wrong double below DP",
                    "wrong double above TG", "wrong take", "wrong pass")


def rating_name(rate: float) -> str:
    """The level of an error rate *rate* in mEMG per decision (its size counts)."""
    r = abs(rate) / 1000.0
    for name, top in RATINGS:
        if r < top:
            return name
    return RATINGS[-1][0]


def luck_rating(rate: float) -> str:
    """The luck level of a luck rate *rate* in mEMG per move."""
    r = rate / 1000.0
    if r > 0.06:
        return "Go to Las Vegas"
    if r > 0.03:
        return "Good dice, man!"
    if r < -0.06:
        return "Go to bed"
    if r < -0.03:
        return "Bad dice, man!"
    return "None"


def fibs_rating_difference(chance: float, length: int) -> float | None:
    """The FIBS rating difference that wins an N-point match (*length*) with *chance*
    (module docstring), or None outside (0, 1)."""
    if not 0.0 < chance < 1.0 or length < 1:
        return None
    return max(-2000.0 / math.sqrt(length) * math.log10(1.0 / chance - 1.0), -2100.0)


def _mean(values: list) -> float | None:
    return math.fsum(values) / len(values) if values else None


def _interval(values: list) -> tuple[float, float] | None:
    n = len(values)
    if n < 2:
        return None
    mean = math.fsum(values) / n
    half = Z95 * math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1) / n)
    return mean - half, mean + half


def _rate(total: float, count: int) -> float:
    return 1000.0 * total / count if count else 0.0


def _cube_kind(c: CubeRecord) -> str:
    if c.kind == "no double":
        return CUBE_ERROR_KINDS[1 if c.double_take > 1.0 else 0]
    if c.kind == "double":
        return CUBE_ERROR_KINDS[3 if c.no_double > 1.0 else 2]
    return CUBE_ERROR_KINDS[4 if c.kind == "take" else 5]


@dataclass
class PlayerStats:
    """One player's totals (module docstring). Error totals are negative; ``*_mwc`` and
    ``*_points`` are the unnormalised totals (match, money); rates are in mEMG."""

    name: str
    player: int
    match_length: int = 0
    moves: int = 0
    unforced_moves: int = 0
    marked_moves: dict = field(default_factory=lambda: {"doubtful": 0, "bad": 0, "very bad": 0})
    chequer_error: float = 0.0
    chequer_error_unnormalised: float = 0.0
    rolls: int = 0
    marked_rolls: dict = field(default_factory=lambda: {"very lucky": 0, "lucky": 0, "unlucky": 0,
                                                        "very unlucky": 0})
    luck: float = 0.0
    luck_unnormalised: float = 0.0
    cube_decisions: int = 0
    close_cube_decisions: int = 0
    doubles: int = 0
    takes: int = 0
    passes: int = 0
    cube_errors: dict = field(default_factory=lambda: {k: [0, 0.0, 0.0] for k in CUBE_ERROR_KINDS})
    cube_error: float = 0.0
    cube_error_unnormalised: float = 0.0
    snowie_moves: int = 0
    actual_result: float = 0.0
    luck_adjusted_result: float = 0.0
    #: money: the points won and the luck-adjusted points of each finished game
    game_results: list = field(default_factory=list)
    game_luck_adjusted_results: list = field(default_factory=list)

    @property
    def chequer_error_rate(self) -> float:
        """mEMG per unforced move."""
        return _rate(self.chequer_error, self.unforced_moves)

    @property
    def cube_error_rate(self) -> float:
        """mEMG per close or actual cube decision."""
        return _rate(self.cube_error, self.close_cube_decisions)

    @property
    def overall_error(self) -> float:
        return self.chequer_error + self.cube_error

    @property
    def overall_error_unnormalised(self) -> float:
        return self.chequer_error_unnormalised + self.cube_error_unnormalised

    @property
    def overall_error_rate(self) -> float:
        """mEMG per unforced move and close cube decision."""
        return _rate(self.overall_error, self.unforced_moves + self.close_cube_decisions)

    @property
    def snowie_error_rate(self) -> float:
        """mEMG per move of both players."""
        return _rate(self.overall_error, self.snowie_moves)

    @property
    def luck_rate(self) -> float:
        """mEMG per move."""
        return _rate(self.luck, self.moves)

    @property
    def chequer_rating(self) -> str | None:
        return rating_name(self.chequer_error_rate) if self.unforced_moves else None

    @property
    def cube_rating(self) -> str | None:
        return rating_name(self.cube_error_rate) if self.close_cube_decisions else None

    @property
    def overall_rating(self) -> str | None:
        return rating_name(self.overall_error_rate) if self.unforced_moves + self.close_cube_decisions else None

    @property
    def luck_rating(self) -> str:
        return luck_rating(self.luck_rate)

    @property
    def chequer_rating_loss(self) -> float | None:
        """FIBS rating points lost to chequer errors (match play)."""
        n = self.match_length
        return -self.chequer_error_rate / 1000.0 * (8798 + 25526 / n) if n else None

    @property
    def cube_rating_loss(self) -> float | None:
        """FIBS rating points lost to cube errors (match play)."""
        n = self.match_length
        return -self.cube_error_rate / 1000.0 * (863 - 519 / n) if n else None

    @property
    def absolute_rating(self) -> float | None:
        """The error-based absolute FIBS rating (match play; module docstring)."""
        if not self.match_length:
            return None
        return 2050.0 - (self.chequer_rating_loss or 0.0) - (self.cube_rating_loss or 0.0)

    @property
    def ppg(self) -> float | None:
        """Money: the points won per finished game (None at match play or before one)."""
        return _mean(self.game_results)

    @property
    def ppg_interval(self) -> tuple[float, float] | None:
        """Money: the 95% confidence interval of :attr:`ppg` (module docstring)."""
        return _interval(self.game_results)

    @property
    def luck_adjusted_ppg(self) -> float | None:
        """Money: the luck-adjusted points per finished game."""
        return _mean(self.game_luck_adjusted_results)

    @property
    def luck_adjusted_ppg_interval(self) -> tuple[float, float] | None:
        """Money: the 95% confidence interval of :attr:`luck_adjusted_ppg`."""
        return _interval(self.game_luck_adjusted_results)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of the totals, rates and ratings."""
        out = {k: v for k, v in self.__dict__.items() if k != "cube_errors"}
        out["cube_errors"] = {k: {"count": c, "error": e, "unnormalised": u} for k, (c, e, u) in self.cube_errors.items()}
        for k in ("chequer_error_rate", "cube_error_rate", "overall_error", "overall_error_unnormalised",
                  "overall_error_rate", "snowie_error_rate", "luck_rate", "chequer_rating", "cube_rating",
                  "overall_rating", "luck_rating", "chequer_rating_loss", "cube_rating_loss", "absolute_rating",
                  "ppg", "ppg_interval", "luck_adjusted_ppg", "luck_adjusted_ppg_interval"):
            out[k] = getattr(self, k)
        return out


def player_stats(names: tuple[str, str], length: int, moves: list[MoveRecord], cubes: list[CubeRecord],
                 results: tuple[float, float], games: list | None = None) -> list[PlayerStats]:
    """The two players' totals from the records of their match (module docstring);
    *results* are their actual results (MWC won at match play, points for money);
    *games*, for a money session: each game's (player 0's, player 1's) points, None
    for a game not finished."""
    stats = [PlayerStats(names[0], 0, length), PlayerStats(names[1], 1, length)]
    money = not length
    game_luck = [[0.0, 0.0] for _ in (games or ())] if money else []  # points, per game and player
    for m in moves:
        s = stats[m.player]
        s.rolls += 1
        s.luck += m.luck
        s.luck_unnormalised += m.luck_points if money else m.luck_mwc
        if game_luck:
            game_luck[m.game][m.player] += m.luck_points
        if m.luck_mark:
            s.marked_rolls[m.luck_mark] += 1
        if m.played is None:
            continue
        s.moves += 1
        if m.forced:
            continue
        s.unforced_moves += 1
        s.chequer_error += m.error
        s.chequer_error_unnormalised += m.error_points if money else m.error_mwc
        if m.mark:
            s.marked_moves[m.mark] += 1
    for c in cubes:
        s = stats[c.player]
        s.cube_decisions += 1
        s.close_cube_decisions += c.close
        s.doubles += c.kind == "double"
        s.takes += c.kind == "take"
        s.passes += c.kind == "pass"
        unnormalised = c.error_points if money else c.error_mwc
        s.cube_error += c.error
        s.cube_error_unnormalised += unnormalised
        if c.error < 0:
            kind = s.cube_errors[_cube_kind(c)]
            kind[0] += 1
            kind[1] += c.error
            kind[2] += unnormalised
    both = stats[0].moves + stats[1].moves
    for s, other in ((stats[0], stats[1]), (stats[1], stats[0])):
        s.snowie_moves = both
        s.actual_result = results[s.player]
        s.luck_adjusted_result = results[s.player] - s.luck_unnormalised + other.luck_unnormalised
    for won, luck in zip(games or (), game_luck):
        if won is None:
            continue
        for p in (0, 1):
            stats[p].game_results.append(won[p])
            stats[p].game_luck_adjusted_results.append(won[p] - luck[p] + luck[1 - p])
    return stats
