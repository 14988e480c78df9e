"""One agent against a fixed opponent: :class:`BackgammonEnv`, a ``gymnasium.Env``.

Needs gymnasium (the ``rl`` extra). The game state is a one-game
:class:`fastgen.envs.engine.Games`, so the rules and the micro-action masks are the ones
the vector environment uses.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from fastgen.core.boards import swap_sides
from fastgen.envs import _kernel
from fastgen.envs.engine import Games, scores
from fastgen.envs.vector import action_space, observation_space
from fastgen.errors import IllegalActionError, InvalidEnvOptionError, InvalidSpecError
from fastgen.core.plays import Plays
from fastgen.formats import svg
from fastgen.games.board import Board
from fastgen.core.generate import legal_plays
from fastgen.players import pubeval, specs
from fastgen.players.base import Evaluator, Policy, Turn, read_only
from fastgen.players.policies import as_picks

__all__ = ["BackgammonEnv", "OPPONENTS"]

#: The named opponent policies (a callable is accepted too).
OPPONENTS = ("random", "pubeval")


class BackgammonEnv(gymnasium.Env):
    """Cubeless backgammon for one agent (player 0) against a fixed opponent policy.

    *opponent*: ``"random"`` (a uniformly random legal play), ``"pubeval"`` (Tesauro's
    public evaluation, choosing as GNU Backgammon's pubeval player:
    :func:`fastgen.players.pubeval.best_play`), any other policy spec of :mod:`fastgen.players.specs`
    (``"baseline"``, ``"gnubg:0"``, ``"mybot:policy"``, a weights file ...: a batch
    policy, called for one game at a time) or an evaluator (a compiled
    :class:`fastgen.nets.Network`, a :class:`fastgen.players.evaluators.ReferenceNetwork`,
    GNU Backgammon's nets of :func:`fastgen.nets.gnubg.load`: it plays greedily), or a callable ``f(board, dice, afterstates) -> index`` given the
    opponent's view of the board (row 1 the opponent), the roll and the (K, 2, 25)
    resulting boards of its legal plays.

    *action_mode*: ``"afterstate"`` (the action is the index of one of the turn's legal
    plays, ``Discrete(MAX_PLAYS)`` with a mask; ``info["afterstates"]`` holds their
    boards (K, 2, 25), ``info["afterstate_features"]`` their features (K, F) as the side
    to roll next sees each one) or ``"micro"`` (one checker step per action,
    ``Discrete(156)``, :mod:`fastgen.envs.micro`; turns with no step are passed for the
    agent).

    Observation: the agent's view of the board encoded by *observation* (a scheme of
    :func:`fastgen.encode`) then the dice of each value still to play. Reward at the end
    only: +1/+2/+3 for a single game, gammon or backgammon won, -1/-2/-3 lost.
    ``info["action_mask"]`` and :meth:`action_masks` give the legal actions.
    ``render_mode="ansi"`` renders a text diagram, ``"svg"`` an SVG drawing.

    An action the mask does not allow ends the game with reward *illegal_reward* (-1, as
    PettingZoo's classic games do) and ``info["illegal_action"] = True``; with
    ``illegal_reward=None`` it raises :class:`fastgen.IllegalActionError` instead.

    >>> from fastgen.envs import BackgammonEnv
    >>> env = BackgammonEnv(opponent="pubeval", action_mode="afterstate", observation="raw")
    >>> obs, info = env.reset(seed=3)
    >>> obs.shape, bool(info["afterstates"].shape[0] == info["action_mask"].sum())
    ((58,), True)
    """

    metadata = {"render_modes": ["ansi", "svg"], "render_fps": 1}
    action_space: gymnasium.spaces.Discrete

    def __init__(self, opponent="random", action_mode: str = "afterstate", observation: str = "tesauro198",
                 render_mode=None, illegal_reward=-1.0):
        self._batch: Any = None  # a batch policy read from a spec (or a network)
        # an evaluator (a network, gnubg's nets) plays greedily; a plain callable is a policy
        if isinstance(opponent, (str, Evaluator, Policy)) and opponent not in OPPONENTS:
            try:
                self._batch = specs.policy(opponent)
            except InvalidSpecError as exc:
                raise InvalidEnvOptionError(f"opponent: {exc}") from None
        elif not (callable(opponent) or opponent in OPPONENTS):
            raise InvalidEnvOptionError(
                f"opponent must be one of {OPPONENTS!r}, a policy spec, a network or a callable, got {opponent!r}"
            )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise InvalidEnvOptionError(
                f"render_mode must be None or one of {self.metadata['render_modes']!r}, got {render_mode!r}"
            )
        self.games = Games(1, action_mode, observation, autoreset=False,
                           afterstate_features=action_mode == "afterstate")
        self.opponent = opponent
        self.action_mode = action_mode
        self.render_mode = render_mode
        self.illegal_reward = illegal_reward
        self.observation_space = observation_space(self.games.width)
        self.action_space = action_space(action_mode)
        self._done = True
        self._final: np.ndarray | None = None

    # ------------------------------------------------------------------ helpers
    def _choose(self, plays: Plays) -> int:
        k = len(plays)
        if k == 1:
            return 0
        if self.opponent == "random":
            return int(self.np_random.integers(k))
        if self.opponent == "pubeval":
            return pubeval.best_play(plays)
        if self._batch is not None:
            choice = self._batch_choice(plays)
        else:
            choice = self.opponent(plays.board.copy(), plays.dice, plays.boards.copy())
        if isinstance(choice, bool) or not isinstance(choice, (int, np.integer)) or not 0 <= choice < k:
            raise IllegalActionError(f"the opponent policy chose {choice!r}, not an index 0..{k - 1}")
        return int(choice)

    def _batch_choice(self, plays: Plays) -> int:
        """The batch policy's pick among the K plays of one position."""
        policy = self._batch
        offsets = np.array([0, len(plays)], dtype=np.int64)
        boards = read_only(np.ascontiguousarray(plays.boards))  # the plays the env goes on with
        turn = Turn(read_only(plays.board[None].copy()), read_only(np.array([plays.dice], dtype=np.int8)),
                    np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64))
        picked = policy.choose(boards, read_only(offsets), turn)
        return int(as_picks(picked, 1, policy.name)[0])

    def _opponent_turns(self) -> float:
        """Let the opponent play until the agent must act or the game is over; returns
        the agent's reward (negative when the opponent wins)."""
        g = self.games
        while not self._done and g.player[0] == 1:
            board = g.boards[0].copy()
            dice = (int(g.dice[0, 0]), int(g.dice[0, 1]))
            if self.action_mode == "afterstate":
                plays = g.turn_plays()[0]
            else:
                plays = legal_plays(board, dice)
            after = plays.boards[self._choose(plays)]
            if not after[1].any():
                self._done = True
                self._final = swap_sides(after)  # the agent's view
                return -float(scores(after[None])[0])
            g.boards[0] = swap_sides(after)
            g.player[0] = 0
            _kernel.roll_dice(g.states, g.dice, np.zeros(1, np.uint8))
            g.start_turns()
            if self.action_mode == "micro" and g.todo[0] == 0:  # the agent cannot move: pass
                g.boards[0] = swap_sides(g.boards[0])
                g.player[0] = 1
                _kernel.roll_dice(g.states, g.dice, np.zeros(1, np.uint8))
                g.start_turns()
        return 0.0

    def _observation(self) -> np.ndarray:
        if self._final is not None:
            return self.games.observe(self._final[None])[0]
        return self.games.observe()[0]

    def _info(self) -> dict:
        g = self.games
        info = {"action_mask": self.action_masks(), "dice": tuple(int(d) for d in g.dice[0])}
        if self.action_mode == "afterstate" and not self._done:
            plays = g.turn_plays()
            info["afterstates"] = plays.boards
            info["afterstate_features"] = plays.features
        return info

    # ------------------------------------------------------------------ gymnasium API
    def action_masks(self) -> np.ndarray:
        """The legal actions now, (A,) bool (sb3-contrib's MaskablePPO convention); all
        False once the game is over."""
        if self._done:
            return np.zeros(self.action_space.n, dtype=bool)
        return self.games.mask[0].copy()

    def reset(self, *, seed=None, options=None):
        """A new game from the opening roll; the opponent moves first when its die is higher."""
        super().reset(seed=seed)
        self.games.reset(seed)
        self._done = False
        self._final = None
        self._opponent_turns()
        return self._observation(), self._info()

    def step(self, action):
        """Play *action* (a legal one), then the opponent's turns up to the agent's next
        decision; returns (obs, reward, terminated, truncated, info)."""
        if self._done:
            raise IllegalActionError(f"the game is over: call reset() before step({action!r})")
        g = self.games
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) and not (
            isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu"
        ):
            raise IllegalActionError(f"an action is an int, got {action!r}")
        a = int(action)
        if not (0 <= a < self.action_space.n and g.mask[0, a]):
            if self.illegal_reward is None:
                raise IllegalActionError(f"action {action!r} is not legal now")
            self._done = True
            self._final = g.boards[0].copy() if g.player[0] == 0 else swap_sides(g.boards[0])
            info = self._info()
            info["illegal_action"] = True
            return self._observation(), float(self.illegal_reward), True, False, info
        reward, terminated, truncated = g.step(np.array([a], dtype=np.int64))
        r = float(reward[0])
        if terminated[0] or truncated[0]:
            self._done = True
            self._final = g.final[0].copy()
        else:
            r += self._opponent_turns()
        return self._observation(), r, bool(terminated[0]) or (self._done and not truncated[0]), \
            bool(truncated[0]), self._info()

    def render(self):
        """The agent's view of the board: text (``"ansi"``) or SVG (``"svg"``)."""
        board = self._final if self._final is not None else self.games.boards[0]
        dice = None if self._done else tuple(int(d) for d in self.games.dice[0])
        if self.render_mode == "ansi":
            text = str(Board(board))
            return text if dice is None else f"{text}\nDice: {dice[0]}-{dice[1]}\n"
        if self.render_mode == "svg":
            return svg.board(board, dice=dice)
        return None
