"""A match to N points with the Crawford rule, or a money session (R19, R20).

A :class:`Match` is a sequence of :class:`~fastgen.games.game.Game` objects sharing one dice
generator. The score, the Crawford game and post-Crawford play are derived from the
finished games, so they are always consistent with the games themselves.

>>> m = Match(3, seed=1)
>>> g = m.new_game()
>>> m.crawford_game, m.post_crawford
(False, False)
"""

from __future__ import annotations

from html import escape

import numpy as np

from fastgen.errors import GameOverError, InvalidArgumentError, OutOfOrderError
from fastgen.games.game import RESULT_NAMES, Game, GameAction, _as_rng
from typing import Any, Iterable, Sequence
from fastgen._util import check_int

__all__ = ["Match"]


class Match:
    """A match to *length* points (R19) or, with ``length=0``, a money session.

    Parameters
    ----------
    length:
        Points needed to win; 0 means money play (no end, no Crawford rule).
    seed:
        An int seed or a ``numpy.random.Generator`` used for all games.
    names:
        Player names (used by the ``.mat`` writer).
    crawford:
        Apply the Crawford rule (R20); on by default in match play.
    jacoby:
        Money play only: gammons count single unless the cube was turned. Off by default.
    cube_cap:
        Highest cube value (R18: 64).
    info:
        What a match file says about the match besides its games: lower-case keys such as
        ``"site"``, ``"event"``, ``"date"``, ``"round"``, ``"place"``, ``"elo0"`` and
        ``"elo1"`` (the players' ratings), ``"match_id"``, with text values. The readers
        fill it and the writers write it back out; fastgen itself never reads it.
    start_score:
        The score before the first game, (0, 0) by default: a match file may hold a match
        from a later score on (a transcript of its last games).
    """

    def __init__(
        self,
        length: int = 0,
        *,
        seed: int | np.random.Generator | None = None,
        names: Sequence[str] = ("Player 0", "Player 1"),
        crawford: bool = True,
        jacoby: bool = False,
        cube_cap: int = 64,
        info: dict[str, str] | None = None,
        start_score: tuple[int, int] = (0, 0),
    ) -> None:
        if isinstance(length, (bool, np.bool_)) or not isinstance(length, (int, np.integer)) or not 0 <= length <= 32767:
            raise InvalidArgumentError(
                f"match length must be an integer 0..32767 (0 = money play), got {length!r}"
            )
        length = int(length)
        if jacoby and length:
            raise InvalidArgumentError(f"the Jacoby rule applies to money play only, not to a {length}-point match")
        if (
            isinstance(names, (str, bytes))
            or not isinstance(names, (tuple, list))
            or len(names) != 2
            or not all(isinstance(n, str) for n in names)
        ):
            raise InvalidArgumentError(f"names must be two strings, got {names!r}")
        names = tuple(names)
        Game(cube_cap=cube_cap)  # checks cube_cap now, not at the first game
        self.length = length
        self.rng = _as_rng(seed)
        self.names = names
        self.crawford_rule = bool(crawford) and length > 0
        self.jacoby = bool(jacoby)
        self.cube_cap = cube_cap
        self.games: list[Game] = []
        if info is not None and (
            not isinstance(info, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in info.items())
        ):
            raise InvalidArgumentError(f"info must be a dict of text keys and values, got {info!r}")
        self.info: dict[str, str] = dict(info or {})
        if (
            not isinstance(start_score, (tuple, list)) or len(start_score) != 2
            or not all(isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)) and x >= 0
                       for x in start_score)
            or (length and max(start_score) >= length)
        ):
            raise InvalidArgumentError(
                f"start_score must be two scores >= 0, each below the match length, got {start_score!r}")
        self.start_score = (int(start_score[0]), int(start_score[1]))
        #: What a reader asked to go on past a problem (``errors="warn"``) left out or
        #: read otherwise than the file says, one message a problem, naming the place.
        self.problems: list[str] = []

    # ------------------------------------------------------------------ derived state

    def scores_before(self, index: int) -> tuple[int, int]:
        """The score before game *index* (0-based)."""
        index = check_int(index, "index", 0)
        score = list(self.start_score)
        for game in self.games[:index]:
            if game.winner is not None:  # over
                score[game.winner] += game.points
        return score[0], score[1]

    @property
    def score(self) -> tuple[int, int]:
        """Points of players 0 and 1 from the finished games."""
        return self.scores_before(len(self.games))

    @property
    def game(self) -> Game | None:
        """The current (last) game, or None before the first."""
        return self.games[-1] if self.games else None

    @property
    def over(self) -> bool:
        """True once a side has reached the match length (never in money play)."""
        return self.length > 0 and max(self.score) >= self.length

    @property
    def winner(self) -> int | None:
        """The match winner, or None while the match goes on."""
        if not self.over:
            return None
        s = self.score
        return 0 if s[0] >= self.length else 1

    @property
    def crawford_game(self) -> bool:
        """True while the current game is the Crawford game (R20)."""
        game = self.game
        return bool(game is not None and game.crawford)

    @property
    def post_crawford(self) -> bool:
        """True once the Crawford game has been played and the match goes on (R20).

        A 1-point match has no Crawford game: both sides start 1-away, and like GNU
        Backgammon fastgen treats its game as post-Crawford (the cube is dead anyway:
        any game won ends the match).
        """
        if not self.crawford_rule or self.over:
            return False
        game = self.game
        played = [g for g in self.games if g.crawford and g.over]
        if played:
            return not (game is not None and game.crawford and not game.over)
        return self.length == 1

    def _next_is_crawford(self) -> bool:
        """R20: the first time exactly one side is 1-away, the next game is the Crawford
        game (never in a 1-point match, where both sides start 1-away; see
        :attr:`post_crawford`)."""
        if not self.crawford_rule or any(g.crawford for g in self.games):
            return False
        s0, s1 = self.score
        return (s0 == self.length - 1) != (s1 == self.length - 1)

    # ------------------------------------------------------------------ actions

    def new_game(self) -> Game:
        """Start the next game and return it (the previous one must be over)."""
        if self.over:
            raise GameOverError(f"the match is over: player {self.winner} won {self.score[0]}-{self.score[1]}")
        if self.game is not None and not self.game.over:
            raise OutOfOrderError("the current game is not over yet")
        game = Game(
            self.rng,
            cube_cap=self.cube_cap,
            crawford=self._next_is_crawford(),
            jacoby=self.jacoby and self.length == 0,
        )
        self.games.append(game)
        return game

    @classmethod
    def from_records(cls, length: int, records: Iterable[Iterable[GameAction]], **kwargs: Any) -> Match:
        """Rebuild a match from its games' records (:attr:`Game.record` of each game, in
        order): each game is started by :meth:`new_game` (so the Crawford game falls where
        the rule puts it) and its actions made by :meth:`Game.apply`, every one checked
        as in live play. *kwargs* are those of :class:`Match` (names, cube_cap ...)."""
        match = cls(length, **kwargs)
        for record in records:
            match.new_game().apply(record)
        return match

    def __repr__(self) -> str:
        kind = f"{self.length}-point match" if self.length else "money session"
        return f"<Match {kind} score={self.score} games={len(self.games)}>"

    def _repr_html_(self) -> str:
        """The match as a small HTML table for Jupyter: one row a game, with the score
        before it, its winner, result, cube and points."""
        n0, n1 = (escape(n) for n in self.names)
        s0, s1 = self.score
        kind = f"{self.length}-point match" if self.length else "Money session"
        if self.over:
            state = f", won by {escape(self.names[self.winner or 0])}"
        elif self.game is not None and not self.game.over:
            state = f", game {len(self.games)} under way"
        else:
            state = ""
        rows = []
        for i, g in enumerate(self.games):
            b0, b1 = self.scores_before(i)
            if g.winner is None:
                winner, result, points = "", "playing", ""
            else:
                winner = escape(self.names[g.winner])
                result = "double passed" if g.dropped else RESULT_NAMES[g.result or 1] + (
                    " (resigned)" if g.resigned else "")
                points = str(g.points)
            note = " (Crawford)" if g.crawford else ""
            rows.append(f"<tr><td>game {i + 1}{note}</td><td>{b0}-{b1}</td><td>{winner}</td><td>{result}</td>"
                        f"<td>{g.cube_value}</td><td>{points}</td></tr>")
        return (f'<div class="fastgen-match"><p><b>{kind}: {n0} {s0} - {s1} {n1}</b>{state}</p>'
                f"<table><tr><th>Game</th><th>Score before ({n0}-{n1})</th><th>Winner</th><th>Result</th>"
                f"<th>Cube</th><th>Points</th></tr>{''.join(rows)}</table></div>")
