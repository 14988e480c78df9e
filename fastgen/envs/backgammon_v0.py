"""Two-player cubeless backgammon as a PettingZoo AEC environment (as ``pettingzoo.classic``).

Needs pettingzoo and gymnasium (the ``rl`` extra). ``env()`` is :class:`raw_env` in
PettingZoo's usual wrappers (illegal actions end the game with reward -1, actions out
of bounds and calls out of order are asserted).

Agents ``"player_0"`` and ``"player_1"``; the side with the higher opening die moves
first. Observation ``{"observation": (F + 6,) float32, "action_mask": (A,) int8}``: the
observing agent's view of the board encoded by *observation* (a scheme of
:func:`fastgen.encode`) then the dice of each value it still has to play (zeros when it
is not its turn; its action mask is then all zeros). *action_mode* ``"micro"`` (one
checker step per action, A = 156, turns with no step passed for the player) or
``"afterstate"`` (the index of one of the turn's legal plays, A =
:data:`fastgen.envs.MAX_PLAYS`, their boards in ``infos[agent]["afterstates"]``). The
winner gets +1/+2/+3 (single game, gammon, backgammon), the loser the opposite.

>>> from fastgen.envs import backgammon_v0
>>> env = backgammon_v0.env(action_mode="micro", observation="raw")
>>> env.reset(seed=42)
>>> obs, reward, termination, truncation, info = env.last()
>>> obs["observation"].shape, obs["action_mask"].shape, int(obs["action_mask"].sum()) > 0
((58,), (156,), True)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from fastgen.core.boards import swap_sides
from fastgen.envs.engine import Games
from fastgen.envs.vector import action_space, observation_space
from fastgen.errors import InvalidEnvOptionError
from fastgen.games.board import Board

__all__ = ["env", "raw_env"]


def env(**kwargs):
    """:class:`raw_env` in PettingZoo's standard wrappers for classic games."""
    wrapped = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(AECEnv, EzPickle):
    """The unwrapped AEC environment (see the module docstring)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "name": "backgammon_v0", "is_parallelizable": False, "render_fps": 1}

    def __init__(self, action_mode: str = "micro", observation: str = "tesauro198", render_mode=None):
        EzPickle.__init__(self, action_mode, observation, render_mode)
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise InvalidEnvOptionError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.games = Games(1, action_mode, observation, autoreset=False)
        self.action_mode = action_mode
        self.render_mode = render_mode
        self.agents = ["player_0", "player_1"]
        self.possible_agents = self.agents[:]
        width = self.games.width
        self.action_spaces = {a: action_space(action_mode) for a in self.agents}
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": observation_space(width),
                "action_mask": spaces.Box(low=0, high=1, shape=(self.action_spaces[a].n,), dtype=np.int8),
            })
            for a in self.agents
        }
        self._final: np.ndarray | None = None

    def observation_space(self, agent):
        """The observation space of *agent* (the same for both)."""
        return self.observation_spaces[agent]

    def action_space(self, agent):
        """The action space of *agent* (the same for both)."""
        return self.action_spaces[agent]

    def observe(self, agent):
        """*agent*'s observation dict (see the module docstring)."""
        g = self.games
        me = self.possible_agents.index(agent)
        n = self.action_spaces[agent].n
        if self._final is not None:  # the winner's view of the final board
            board = self._final if me == self._winner else swap_sides(self._final)
            return {"observation": g.observe(board[None])[0], "action_mask": np.zeros(n, np.int8)}
        if me == g.player[0]:
            return {"observation": g.observe()[0], "action_mask": g.mask[0].astype(np.int8)}
        return {"observation": g.observe(swap_sides(g.boards[0])[None])[0], "action_mask": np.zeros(n, np.int8)}

    def _sync(self):
        self.agent_selection = self.agents[int(self.games.player[0])]
        for a in self.agents:
            self.infos[a] = {}
        if self.action_mode == "afterstate" and self._final is None:
            self.infos[self.agent_selection] = {"afterstates": self.games.turn_plays().boards}

    def reset(self, seed=None, options=None):
        """A new game from the opening roll."""
        self.games.reset(seed)
        self.agents = self.possible_agents[:]
        self.rewards: dict[str, float] = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards: dict[str, float] = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._final = None
        self._winner: int | None = None
        self._sync()

    def step(self, action):
        """The agent to act plays *action* (a legal one)."""
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            return self._was_dead_step(action)
        g = self.games
        mover = int(g.player[0])
        self._cumulative_rewards[self.agent_selection] = 0
        self.rewards = dict.fromkeys(self.agents, 0)
        reward, terminated, truncated = g.step(np.array([int(action)], dtype=np.int64))
        if terminated[0]:
            self._final = g.final[0].copy()
            self._winner = mover
            self.rewards[self.agents[mover]] = float(reward[0])
            self.rewards[self.agents[1 - mover]] = -float(reward[0])
            self.terminations = dict.fromkeys(self.agents, True)
        elif truncated[0]:
            self.truncations = dict.fromkeys(self.agents, True)
        if not terminated[0]:
            self._sync()
        self._accumulate_rewards()

    def render(self):
        """A text diagram of the board from the side to act (``render_mode="ansi"``)."""
        if self.render_mode != "ansi":
            return None

        return str(Board(self._final if self._final is not None else self.games.boards[0]))

    def close(self):
        """Nothing to release."""
