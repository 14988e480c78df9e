"""The records of an analysis: one for every play with its roll, one for every cube
decision, and the marks put on them.

Equities and errors are the mover's, *normalised* to the cube on the table (EMG, GNU
Backgammon's unit: +1 wins the cube's value); an error is the equity of the choice made
less that of the best, so it is 0 or negative, and bad luck is negative. At match play
``*_mwc`` fields give the same in match-winning chance (0 for money); for money
``*_points`` give it in points (times the cube).

Marks, GNU Backgammon's default thresholds, on the normalised error of one decision
(chequer or cube) and on the luck of one roll:

====================  =====================
``"doubtful"``        error below -0.03
``"bad"``             error below -0.06
``"very bad"``        error below -0.12
``"lucky"``           luck above 0.3
``"very lucky"``      luck above 0.6
``"unlucky"``         luck below -0.3
``"very unlucky"``    luck below -0.6
====================  =====================
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fastgen.core.state import MatchState
from fastgen.cube.decision import CubeAction

__all__ = ["MoveRecord", "CubeRecord", "SKILL_THRESHOLDS", "LUCK_THRESHOLDS", "skill_mark", "luck_mark", "mat_numbers"]

#: The error below which a decision is marked doubtful, bad, very bad (normalised equity).
SKILL_THRESHOLDS = {"doubtful": 0.03, "bad": 0.06, "very bad": 0.12}
#: The luck above (below minus) which a roll is marked lucky, very lucky (unlucky, very unlucky).
LUCK_THRESHOLDS = {"lucky": 0.3, "very lucky": 0.6}


def skill_mark(error: float) -> str | None:
    """The mark of a decision whose normalised *error* (<= 0) is given, or None."""
    for name in ("very bad", "bad", "doubtful"):
        if error < -SKILL_THRESHOLDS[name]:
            return name
    return None


def luck_mark(luck: float) -> str | None:
    """The mark of a roll of normalised *luck*, or None."""
    if luck > LUCK_THRESHOLDS["very lucky"]:
        return "very lucky"
    if luck > LUCK_THRESHOLDS["lucky"]:
        return "lucky"
    if luck < -LUCK_THRESHOLDS["very lucky"]:
        return "very unlucky"
    if luck < -LUCK_THRESHOLDS["lucky"]:
        return "unlucky"
    return None


@dataclass
class MoveRecord:
    """A roll and the play made with it.

    ``game`` (from 0), ``move`` (the game's turn, from 1), ``player``; ``board`` (2, 25)
    before the roll, from the mover's view, and ``state`` (score, cube); ``dice``;
    ``opening`` (the game's first roll); ``candidates`` (the legal plays; a play is
    *forced* when there is one), ``play`` and ``best_play`` (move text), ``played`` and
    ``best`` (the boards after them; ``played`` None when the game stopped before the
    play), ``equity`` and ``best_equity``, ``error`` (``equity - best_equity``) and
    ``rank`` (1 for the best); ``luck`` of the roll; ``error_mwc``, ``luck_mwc`` at
    match play; ``mark`` and ``luck_mark``; ``mwc`` the mover's match-winning chance
    after the play made (match play; NaN for money or no play).
    """

    game: int
    move: int
    player: int
    board: np.ndarray = field(repr=False)
    state: MatchState = field(repr=False)
    dice: tuple[int, int]
    opening: bool
    candidates: int
    play: str | None
    best_play: str
    played: np.ndarray | None = field(repr=False)
    best: np.ndarray = field(repr=False)
    equity: float
    best_equity: float
    error: float
    rank: int
    luck: float
    error_mwc: float
    luck_mwc: float
    mark: str | None
    luck_mark: str | None
    mwc: float = float("nan")
    kind: str = "move"

    @property
    def forced(self) -> bool:
        return self.candidates <= 1

    @property
    def error_points(self) -> float:
        return self.error * self.state.cube_value

    @property
    def luck_points(self) -> float:
        return self.luck * self.state.cube_value

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (boards as gnubg position IDs are left out: see ``board``)."""
        return {"kind": self.kind, "game": self.game, "move": self.move, "player": self.player,
                "dice": list(self.dice), "opening": self.opening, "candidates": self.candidates, "play": self.play,
                "best_play": self.best_play, "equity": self.equity, "best_equity": self.best_equity,
                "error": self.error, "error_mwc": self.error_mwc, "rank": self.rank, "luck": self.luck,
                "luck_mwc": self.luck_mwc, "mark": self.mark, "luck_mark": self.luck_mark,
                "mwc": None if self.mwc != self.mwc else self.mwc,
                "cube": self.state.cube_value, "score": list(self.state.score)}


@dataclass
class CubeRecord:
    """A cube decision: ``kind`` ``"no double"``, ``"double"``, ``"take"`` or ``"pass"``
    made by ``player`` (the doubler, or for take and pass the doubled side); ``board``
    and ``state`` the doubler's position before its roll; ``no_double``,
    ``double_take``, ``double_pass`` the doubler's normalised equities and ``proper``
    the proper action (:class:`fastgen.cube.CubeAction`); ``error`` the player's error
    (its own terms), ``error_mwc`` at match play; ``close`` (a double, take or pass, or
    a no double within 0.16 of a double: :data:`fastgen.analysis.single.CLOSE_CUBE`);
    ``mark``."""

    game: int
    move: int
    player: int
    kind: str
    board: np.ndarray = field(repr=False)
    state: MatchState = field(repr=False)
    no_double: float
    double_take: float
    double_pass: float
    proper: CubeAction
    error: float
    error_mwc: float
    close: bool
    mark: str | None

    @property
    def error_points(self) -> float:
        return self.error * self.state.cube_value

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"kind": self.kind, "game": self.game, "move": self.move, "player": self.player,
                "no_double": self.no_double, "double_take": self.double_take, "double_pass": self.double_pass,
                "proper": self.proper.value, "error": self.error, "error_mwc": self.error_mwc, "close": self.close,
                "mark": self.mark, "cube": self.state.cube_value, "score": list(self.state.score)}


def mat_numbers(decisions: list) -> dict[int, int]:
    """Each decision's move number (by ``id``) as a ``.mat`` file numbers it: the
    number of the line of its game holding the action (player 0's column left, player
    1's right, a new line whenever the next action cannot stand on the current one); a
    no double takes the number of the roll that follows it. Doubles not among the
    decisions (an analysis without the cube) are read from the cube's value growing
    between two rolls."""
    out: dict[int, int] = {}
    games: dict[int, list] = {}
    for d in decisions:
        games.setdefault(d.game, []).append(d)
    for ds in games.values():
        entries: list[tuple[int, list]] = []  # (player, the decisions written in that action)
        infer = not any(d.kind == "double" for d in ds)
        waiting: list = []  # no doubles, numbered with the roll after them
        cube = 1
        for d in ds:
            if d.kind == "no double":
                waiting.append(d)
            elif d.kind == "move":
                if infer and d.state.cube_value > cube:
                    entries += [(d.player, []), (1 - d.player, [])]
                cube = d.state.cube_value
                entries.append((d.player, waiting + [d]))
                waiting = []
            else:
                entries.append((d.player, [d]))
        entries += [(d.player, [d]) for d in waiting]
        lines: list[list] = []  # each line's two columns, as write_mat lays them out
        for player, these in entries:
            if not lines or lines[-1][player] is not None or (player == 0 and lines[-1][1] is not None):
                lines.append([None, None])
            lines[-1][player] = these
        for number, line in enumerate(lines, 1):
            for d in (line[0] or []) + (line[1] or []):
                out[id(d)] = number
    return out
