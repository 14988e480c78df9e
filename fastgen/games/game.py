"""One game of backgammon: opening roll, turns, the doubling cube and scoring (R16-R18).

A :class:`Game` is a small state machine driven by explicit actions::

    game.roll()            # the opening roll the first time (R16), a normal roll after
    game.play(play)        # one of game.legal_plays(): a Play, a board after it, or text
    game.double()          # before rolling, on one's own turn (R18)
    game.take() / game.drop()
    game.resign(GAMMON)    # offer to lose a single game, gammon or backgammon
    game.accept_resignation() / game.reject_resignation()

Every action is checked; an illegal one raises a specific
:class:`~fastgen.errors.IllegalActionError` subclass quoting the input and leaves the
state unchanged. Dice come from a ``numpy.random.Generator`` (or a seed), and every
action is appended to :attr:`Game.record`, from which :meth:`Game.replay` rebuilds the
game without any randomness.

Players are 0 and 1. :attr:`Game.board` is always seen from the side on roll
(row 1 = :attr:`Game.turn`, docs/RULES.md R4).

>>> g = Game(seed=7)
>>> g.roll() in OPENING_ROLLS
True
>>> g.play(g.legal_plays().boards[0])
>>> g.turn in (0, 1) and g.dice is None
True
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from fastgen._util import as_list
from fastgen.core import _features
from fastgen.core.boards import OPENING_ROLLS, STARTING_BOARD, as_board, as_dice  # R3, R16
from fastgen.core.generate import legal_plays
from fastgen.errors import (
    CrawfordDoubleError,
    CubeCapError,
    CubeOwnershipError,
    DoubleAfterRollError,
    GameOverError,
    AmbiguousMoveError,
    IllegalActionError,
    IllegalGamePlayError,
    IllegalPlayError,
    InvalidArgumentError,
    InvalidDiceError,
    InvalidResignationError,
    InvalidMoveTextError,
    OutOfOrderError,
    OutOfTurnError,
)
from typing import TYPE_CHECKING, Any, Iterable
from fastgen._typing import ArrayLike, DiceLike, Int8Array, StepsLike
from fastgen.core.notation import draw_board
from fastgen.core.validate import check_play

if TYPE_CHECKING:
    from fastgen.core.notation import Play
    from fastgen.core.plays import Plays

__all__ = [
    "Game",
    "GameAction",
    "OPENING_ROLLS",
    "SINGLE",
    "GAMMON",
    "BACKGAMMON",
    "result_types",
    "result_type",
]

#: Result types (R17): the multiplier of the cube value.
SINGLE, GAMMON, BACKGAMMON = 1, 2, 3
RESULT_NAMES = {SINGLE: "single", GAMMON: "gammon", BACKGAMMON: "backgammon"}



class GameAction(NamedTuple):
    """One entry of :attr:`Game.record`.

    ``kind`` is ``"opening"`` (data: the two opening dice, player 0's first),
    ``"roll"`` (data: the dice), ``"play"`` (data: the board after the play, from the
    mover's view, as ``bytes`` of a (2, 25) int8 array), ``"double"`` (data: the cube
    value offered), ``"take"``, ``"drop"`` (data: None), ``"resign"`` (data: the result
    type offered, 1..3), ``"accept"`` and ``"reject"`` (of a resignation; data: None).
    """

    kind: str
    player: int
    data: object = None


def result_type(board_after: ArrayLike) -> int:
    """Result type (R17) of a finished game from the winner's board after its last play.

    Row 0 is the loser: single if it has borne off a checker, backgammon if it has none
    off and a checker on the bar or in the winner's home board (its points 19..24),
    else gammon.

    >>> b = np.zeros((2, 25), dtype=np.int8); b[0, 5] = 15
    >>> result_type(b)
    2
    >>> b[0, 5], b[0, 20] = 14, 1
    >>> result_type(b)
    3
    """
    loser = as_board(board_after)[0]
    if int(loser.sum()) < 15:
        return SINGLE
    if int(loser[18:25].sum()) > 0:  # indices 18..23 = points 19..24, 24 = bar
        return BACKGAMMON
    return GAMMON


def result_types(boards_after: np.ndarray) -> np.ndarray:
    """(N,) int8 for (N, 2, 25) boards after a play, the mover in row 1 (trusted): 0
    where the mover still has checkers (the game goes on), else :func:`result_type`'s
    single, gammon or backgammon."""
    return results_of(_features.row_measures(np.ascontiguousarray(boards_after, dtype=np.int8)))


def results_of(measures: np.ndarray) -> np.ndarray:
    """:func:`result_types` from the boards' (N, 2, 3) row measures
    (``fastgen.core._features.row_measures``: each row's checkers left and checkers on
    its points 19..24 and bar), for a caller that has them already."""
    out = np.zeros(measures.shape[0], dtype=np.int8)
    won = np.flatnonzero(measures[:, 1, 0] == 0)  # the mover has no checker left
    if won.size:
        gammon = measures[won, 0, 0] == 15
        backgammon = measures[won, 0, 2] > 0
        out[won] = SINGLE + gammon + (gammon & backgammon)
    return out


def _as_rng(seed) -> np.random.Generator:
    """A Generator from None, a non-negative int (numpy ints too), a SeedSequence, a
    BitGenerator or a Generator (kept, so games can share one); InvalidArgumentError else."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or isinstance(seed, (np.random.SeedSequence, np.random.BitGenerator)):
        return np.random.default_rng(seed)
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)) and seed >= 0:
        return np.random.default_rng(int(seed))
    raise InvalidArgumentError(
        f"seed must be None, a non-negative integer or a numpy.random.Generator, got {seed!r}"
    )


def _check_player(player) -> int:
    """*player* as 0 or 1; InvalidArgumentError (a ValueError) quoting it otherwise."""
    if isinstance(player, (bool, np.bool_)) or not isinstance(player, (int, np.integer)) or player not in (0, 1):
        raise InvalidArgumentError(f"a player is 0 or 1, got {player!r}")
    return int(player)


def _check_record(record) -> list[tuple[str, int, Any]]:
    """*record* (a :attr:`Game.record`) as a list of (kind, player, data) triples, checked
    for shape (the game itself judges whether each action is legal)."""
    actions = as_list(record, InvalidArgumentError, "a game record is a list of GameAction entries")
    out = []
    for action in actions:
        try:
            kind, player, data = action
        except (TypeError, ValueError):
            raise InvalidArgumentError(f"a record entry is (kind, player, data), got {action!r}") from None
        if not isinstance(kind, str):
            raise InvalidArgumentError(f"the kind of a record entry is a string, got {kind!r} in {action!r}")
        if isinstance(player, (bool, np.bool_)) or player not in (0, 1):
            raise InvalidArgumentError(f"the player of a record entry is 0 or 1, got {player!r} in {action!r}")
        if kind in ("opening", "roll") and (isinstance(data, (str, bytes)) or not hasattr(data, "__len__")):
            raise InvalidArgumentError(f"the data of a {kind!r} entry is the dice, got {data!r}")
        if kind == "play" and not isinstance(data, (bytes, np.ndarray)):
            raise InvalidArgumentError(f"the data of a 'play' entry is the board after it, got {data!r}")
        if kind == "play" and isinstance(data, bytes) and len(data) != 50:
            raise InvalidArgumentError(f"the data of a 'play' entry is 50 bytes (a (2, 25) int8 board), got {data!r}")
        out.append((kind, int(player), data))
    return out


class Game:
    """A game of backgammon between players 0 and 1 (docs/RULES.md R16-R18).

    Parameters
    ----------
    seed:
        An int seed, a ``numpy.random.Generator`` (shared, e.g. by a match) or None.
    cube_cap:
        Highest cube value (R18: 64).
    crawford:
        True for the Crawford game of a match (R20): no doubling at all.
    jacoby:
        Money play only: gammons and backgammons count single unless the cube was turned.
    """

    def __init__(
        self, seed: int | np.random.Generator | None = None, *, cube_cap: int = 64, crawford: bool = False,
        jacoby: bool = False,
    ) -> None:
        if (
            isinstance(cube_cap, (bool, np.bool_))
            or not isinstance(cube_cap, (int, np.integer))
            or cube_cap < 1
            or cube_cap & (cube_cap - 1)
        ):
            raise InvalidArgumentError(f"cube_cap must be a power of two >= 1, got {cube_cap!r}")
        cube_cap = int(cube_cap)
        self.rng = _as_rng(seed)
        self.cube_cap = cube_cap
        self.crawford = bool(crawford)
        self.jacoby = bool(jacoby)
        self.turn: int | None = None  # side on roll; None before the opening roll
        self.dice: tuple[int, int] | None = None
        self.cube_value = 1
        self.cube_owner: int | None = None  # None = centred
        self.pending_double = False
        self.winner: int | None = None
        self.result: int | None = None  # SINGLE / GAMMON / BACKGAMMON, None while playing
        self.points = 0
        self.dropped = False
        self.resigned = False  # True when the game ended by an accepted resignation
        self.pending_resignation: int | None = None  # result type offered, awaiting an answer
        self.resigner: int | None = None  # who offered it
        self.turns = 0  # plays made (lost turns included)
        self.record: list[GameAction] = []
        #: What a match file says about an action besides the action itself (another
        #: program's analysis of a play or a cube decision, its luck figure, a comment),
        #: keyed by the action's index in :attr:`record`. Readers fill it; play ignores it.
        self.annotations: dict[int, dict[str, Any]] = {}
        self._board = STARTING_BOARD.copy()
        self._plays: Plays | None = None  # cached legal plays of the current roll

    # ------------------------------------------------------------------ state views

    @property
    def over(self) -> bool:
        """True once the game has a winner."""
        return self.winner is not None

    @property
    def board(self) -> Int8Array:
        """The position from the side on roll's view (row 1 = :attr:`turn`), a copy."""
        return self._board.copy()

    def board_for(self, player: int) -> Int8Array:
        """The position with *player* as row 1."""
        _check_player(player)
        if self.turn is None or player == self.turn:
            return self._board.copy()
        return self._board[::-1].copy()

    @property
    def may_double(self) -> bool:
        """Whether the side on roll may double now (R18, R20)."""
        try:
            self._check_double(self.turn)
        except IllegalActionError:
            return False
        return True

    def __repr__(self) -> str:
        if self.result is not None:  # over: _finish sets the result with the winner
            how = " (resigned)" if self.resigned else " (dropped)" if self.dropped else ""
            state = f"winner={self.winner} result={RESULT_NAMES[self.result]}{how} points={self.points}"
        else:
            state = f"turn={self.turn} dice={self.dice}"
        return f"<Game {state} cube={self.cube_value} owner={self.cube_owner} plays={self.turns}>"

    def _repr_svg_(self) -> str | None:
        """The position from the side on roll's view with its dice and the cube (owner
        drawn on its side), as SVG (:func:`fastgen.formats.svg.board`) for Jupyter; a game won by
        bearing off is drawn after the winner's last play, the winner marked "(played)"."""
        owner = None if self.cube_owner is None else int(self.cube_owner == self.turn)
        borne_off = self.over and not (self.dropped or self.resigned)
        return draw_board(self._board, dice=self.dice, cube=(self.cube_value, owner), played=borne_off)

    # ------------------------------------------------------------------ checks

    def _check_not_over(self, action: str) -> None:
        if self.over:
            raise GameOverError(f"cannot {action}: the game is over (player {self.winner} won)")
        if self.pending_resignation is not None and action not in ("list plays",):
            raise OutOfOrderError(
                f"cannot {action}: player {self.resigner} offered to resign; the offer must be "
                "accepted or rejected first"
            )

    def _on_roll(self) -> int:
        """:attr:`turn` where the caller knows the opening roll was made."""
        if self.turn is None:  # pragma: no cover
            raise AssertionError("no side is on roll before the opening roll")
        return self.turn

    def _check_actor(self, player, expected: int, action: str) -> None:
        if player is not None:
            _check_player(player)
        if player is not None and player != expected:
            raise OutOfTurnError(f"player {player!r} cannot {action}: it is player {expected}'s turn to act")

    def _check_double(self, player) -> None:
        self._check_not_over("double")
        if self.turn is None:
            raise OutOfOrderError("cannot double before the opening roll (R16, R18)")
        self._check_actor(player, self.turn, "double")
        if self.pending_double:
            raise OutOfOrderError("a double is already pending: it must be taken or dropped")
        if self.dice is not None:
            raise DoubleAfterRollError(
                f"player {self.turn} has rolled {self.dice!r}: doubling is allowed only before rolling (R18)"
            )
        if self.crawford:
            raise CrawfordDoubleError("no doubling in the Crawford game (R20)")
        if self.cube_owner is not None and self.cube_owner != self.turn:
            raise CubeOwnershipError(
                f"player {self.turn} cannot redouble: player {self.cube_owner} owns the cube at "
                f"{self.cube_value} (R18)"
            )
        if self.cube_value * 2 > self.cube_cap:
            raise CubeCapError(f"the cube is at {self.cube_value}; doubling would pass the cap {self.cube_cap}")

    # ------------------------------------------------------------------ actions

    def roll(self, dice: DiceLike | None = None, *, player: int | None = None) -> tuple[int, int]:
        """Roll the dice for the side on roll and return them.

        The first call is the opening roll (R16): each side rolls one die, ties are
        re-rolled, and the higher die's owner starts with both numbers. *dice* may then
        be given as (player 0's die, player 1's die), which must differ. Later calls roll
        two dice (or use *dice*) for :attr:`turn`.
        """
        self._check_not_over("roll")
        if self.pending_double:
            raise OutOfOrderError("a double is pending: it must be taken or dropped before rolling")
        if self.dice is not None:
            raise OutOfOrderError(f"already rolled {self.dice!r}: play first")
        if self.turn is None:
            return self._opening(dice, player)
        self._check_actor(player, self.turn, "roll")
        if dice is None:
            d = self.rng.integers(1, 7, size=2)
            dice = (int(d[0]), int(d[1]))
        else:
            dice = as_dice(dice)
        self.dice = dice
        self._plays = None
        self.record.append(GameAction("roll", self.turn, dice))
        return dice

    def _opening(self, dice, player) -> tuple[int, int]:
        if player is not None:
            _check_player(player)
        if dice is None:
            while True:  # R16: ties are re-rolled
                d = self.rng.integers(1, 7, size=2)
                if d[0] != d[1]:
                    break
            dice = (int(d[0]), int(d[1]))
        else:
            dice = as_dice(dice)
            if dice[0] == dice[1]:
                raise InvalidDiceError(f"opening dice {dice!r} tie: a tie is re-rolled, never played (R16)")
        starter = 0 if dice[0] > dice[1] else 1
        self.turn = starter
        self.dice = (max(dice), min(dice))
        self._plays = None
        self.record.append(GameAction("opening", starter, dice))
        return self.dice

    def legal_plays(self) -> Plays:
        """The legal plays (:class:`fastgen.Plays`) of the current position and roll."""
        self._check_not_over("list plays")
        if self.dice is None:
            raise OutOfOrderError("no dice rolled yet: roll first")
        if self._plays is None:
            self._plays = legal_plays(self._board, self.dice)
        return self._plays

    def _find_play(self, play) -> int:
        plays = self.legal_plays()
        if isinstance(play, str) or (hasattr(play, "board_after") and hasattr(play, "moves")):
            try:
                target = check_play(self._board, plays.dice, play).board_after
            except (IllegalPlayError, InvalidMoveTextError, AmbiguousMoveError) as exc:
                raise IllegalGamePlayError(
                    f"play {str(play)!r} is not legal with {self.dice!r}: {exc}",
                    getattr(exc, "reason", None),
                    getattr(exc, "step", None),
                ) from None
        else:
            target = play
        try:
            arr = np.asarray(target)
        except (TypeError, ValueError):
            arr = None
        if arr is None or arr.shape != (2, 25) or arr.dtype.kind not in "iu":
            raise IllegalGamePlayError(
                f"a play is a Play, a move text or the (2, 25) board after the play; got {play!r}"
            )
        hits = np.flatnonzero((plays.boards == arr).all(axis=(1, 2)))  # no int8 cast: no wrap-around
        if hits.size == 0:
            raise IllegalGamePlayError(
                f"play {play!r} is not one of the {len(plays)} legal plays of {self.dice!r}"
            )
        return int(hits[0])

    def play(self, play: Play | str | StepsLike, *, player: int | None = None) -> None:
        """Make a play for the side on roll: a Play, its (2, 25) board after, or text.

        The play must be one of :meth:`legal_plays` (R10-R15), else
        :class:`~fastgen.errors.IllegalGamePlayError`. When the mover has borne off its last checker the game
        ends (R17); otherwise the turn passes.
        """
        self._check_not_over("play")
        if self.turn is None or self.dice is None:
            raise OutOfOrderError(f"cannot play {play!r}: roll first")
        self._check_actor(player, self.turn, "play")
        k = self._find_play(play)
        after = self.legal_plays().boards[k]
        self.record.append(GameAction("play", self.turn, after.tobytes()))
        self._apply_play(after)

    def _apply_play(self, after: np.ndarray) -> None:
        self.turns += 1
        self.dice = None
        self._plays = None
        if int(after[1].sum()) == 0:  # R17: all 15 borne off
            self._board = np.array(after, dtype=np.int8)
            self._finish(self._on_roll(), result_type(after))
            return
        self._board = np.ascontiguousarray(after[::-1], dtype=np.int8)
        self.turn = 1 - self._on_roll()

    def double(self, *, player: int | None = None) -> int:
        """Offer a double (R18); returns the value offered. The opponent must take or drop."""
        self._check_double(player)
        self.pending_double = True
        self.record.append(GameAction("double", self._on_roll(), self.cube_value * 2))
        return self.cube_value * 2

    def _check_response(self, player, action: str) -> int:
        self._check_not_over(action)
        if not self.pending_double:
            raise OutOfOrderError(f"cannot {action}: no double is pending")
        responder = 1 - self._on_roll()
        self._check_actor(player, responder, action)
        return responder

    def take(self, *, player: int | None = None) -> None:
        """Take the pending double: the cube doubles and the taker owns it (R18)."""
        responder = self._check_response(player, "take")
        self.pending_double = False
        self.cube_value *= 2
        self.cube_owner = responder
        self.record.append(GameAction("take", responder))

    def drop(self, *, player: int | None = None) -> None:
        """Pass the pending double: the doubler wins the current cube value at once (R18)."""
        responder = self._check_response(player, "drop")
        self.pending_double = False
        self.record.append(GameAction("drop", responder))
        self.dropped = True
        self._finish(self._on_roll(), SINGLE)

    # ------------------------------------------------------------------ resignations

    def resign(self, result: int = SINGLE, *, player: int | None = None) -> int:
        """Offer to resign: to lose *result* (``SINGLE``, ``GAMMON`` or ``BACKGAMMON``)
        times the cube value. Returns the points offered.

        Either player may offer while the game is going on (before or after its roll),
        but not while a double awaits its answer. *player* defaults to the side on roll;
        before the opening roll no side is on roll, and the resigner must be named (a
        player who leaves before the first roll: match files from online play hold such
        games, and GNU Backgammon reads them).
        The opponent answers with :meth:`accept_resignation` (the game ends: the
        opponent wins those points) or :meth:`reject_resignation` (play goes on).
        """
        self._check_not_over("resign")
        if self.turn is None and player is None:
            raise OutOfOrderError("before the opening roll no side is on roll: name the player who resigns")
        if self.pending_double:
            raise OutOfOrderError("a double is pending: it must be taken or dropped before resigning")
        if player is None:
            player = self.turn
        if isinstance(player, (bool, np.bool_)) or not isinstance(player, (int, np.integer)) or player not in (0, 1):
            raise OutOfTurnError(f"player must be 0 or 1, got {player!r}")
        valid = isinstance(result, (int, np.integer)) and not isinstance(result, (bool, np.bool_))
        if not valid or int(result) not in (SINGLE, GAMMON, BACKGAMMON):
            raise InvalidResignationError(
                f"a resignation offers SINGLE (1), GAMMON (2) or BACKGAMMON (3), got {result!r}"
            )
        self.pending_resignation = int(result)
        self.resigner = int(player)
        self.record.append(GameAction("resign", int(player), int(result)))
        return self._points_for(int(result))

    def _check_resignation_answer(self, player, action: str) -> tuple[int, int]:
        """(the player who answers, the result offered) of the pending resignation."""
        if self.over:
            raise GameOverError(f"cannot {action}: the game is over (player {self.winner} won)")
        offered, resigner = self.pending_resignation, self.resigner
        if offered is None or resigner is None:  # resign() sets both
            raise OutOfOrderError(f"cannot {action}: no resignation has been offered")
        answerer = 1 - resigner
        self._check_actor(player, answerer, action)
        return answerer, offered

    def accept_resignation(self, *, player: int | None = None) -> None:
        """Accept the offered resignation: the game ends and the opponent of the resigner
        wins the offered result times the cube value."""
        winner, result = self._check_resignation_answer(player, "accept a resignation")
        self.pending_resignation = None
        self.record.append(GameAction("accept", winner))
        self.resigned = True
        self._finish(winner, result)

    def reject_resignation(self, *, player: int | None = None) -> None:
        """Reject the offered resignation; the game goes on where it stood."""
        answerer, _ = self._check_resignation_answer(player, "reject a resignation")
        self.pending_resignation = None
        self.resigner = None
        self.record.append(GameAction("reject", answerer))

    def _points_for(self, result: int) -> int:
        if self.jacoby and self.cube_value == 1:  # Jacoby: an unturned cube counts single
            return self.cube_value
        return result * self.cube_value

    def _finish(self, winner: int, result: int) -> None:
        self.winner = winner
        self.result = result
        if self.dropped:
            self.points = self.cube_value
        else:
            self.points = self._points_for(result)

    # ------------------------------------------------------------------ replay

    @classmethod
    def replay(cls, record: Iterable[GameAction], **kwargs: Any) -> Game:
        """Rebuild a game from its :attr:`record` (no randomness is used).

        Raises the same :class:`IllegalActionError` as the live game if the record
        holds an illegal action.
        """
        game = cls(**kwargs)
        game.apply(record)
        return game

    def apply(self, record: Iterable[GameAction]) -> None:
        """Make the actions of a :attr:`record` (or any list of :class:`GameAction`) in
        this game, in order, each checked as the live action is: how a match's games are
        rebuilt from records (its :meth:`fastgen.Match.new_game` then ``apply``)."""
        game = self
        for action in _check_record(record):
            kind, player, data = action
            if kind == "opening":
                game.roll(tuple(data))
            elif kind == "roll":
                game.roll(tuple(data), player=player)
            elif kind == "play":
                board = np.frombuffer(data, dtype=np.int8).reshape(2, 25) if isinstance(data, bytes) else data
                game.play(board, player=player)
            elif kind == "double":
                game.double(player=player)
            elif kind == "take":
                game.take(player=player)
            elif kind == "drop":
                game.drop(player=player)
            elif kind == "resign":
                game.resign(data, player=player)
            elif kind == "accept":
                game.accept_resignation(player=player)
            elif kind == "reject":
                game.reject_resignation(player=player)
            else:
                raise InvalidArgumentError(f"unknown action kind {kind!r} in {action!r}")
