"""N self-play games stepped at once: :class:`VectorBackgammon`, Gymnasium's vector API.

Needs gymnasium (the ``rl`` extra). Every step is one compiled call for all games
(micro actions: :mod:`fastgen.envs._kernel`; afterstates: one
:func:`fastgen.plays_batch`), then one encoder call for the observations.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from fastgen.envs.engine import MAX_PLAYS, Games
from fastgen.envs.micro import NUM_MICRO_ACTIONS

__all__ = ["VectorBackgammon", "observation_space", "action_space"]


def observation_space(width: int) -> spaces.Box:
    """The Box of one observation: encoder features (all in 0..7.5) then dice left (0..4)."""
    return spaces.Box(low=0.0, high=8.0, shape=(width,), dtype=np.float32)


def action_space(mode: str) -> spaces.Discrete:
    """Discrete(156) for micro actions, Discrete(MAX_PLAYS) for afterstates."""
    return spaces.Discrete(NUM_MICRO_ACTIONS if mode == "micro" else MAX_PLAYS)


class VectorBackgammon(VectorEnv):
    """N cubeless self-play games stepped together in numpy, with legal-action masks.

    ``action_mode="micro"``: an action is one checker step (``source * 6 + die - 1``,
    :mod:`fastgen.envs.micro`); a turn with no legal step is passed for the player, so
    every step is a real decision. ``action_mode="afterstate"``: an action is the index
    of one of the turn's legal plays (fewer than :data:`fastgen.envs.MAX_PLAYS`), every
    turn is one step (a turn without a move has the one empty play).

    Observations (N, F + 6) float32 are the side to act's view: the board encoded by
    *observation* (a scheme of :func:`fastgen.encode`) and the number of dice of each
    value still to play. ``reward[g]`` is the points (1, 2, 3) won by the player who
    acted when its step ends game g (self-play: the loser's -reward is implied).
    Finished games restart at once (Gymnasium's same-step autoreset): the returned
    observation is the new game's, ``info["final_obs"]`` (rows of games that ended,
    ``info["_final_obs"]`` marks them) the winner's view of the final board.

    ``info`` also holds ``"action_mask"`` (N, A) bool, ``"player"`` (N,) the side to act
    (0 or 1) and ``"dice"`` (N, 2); in afterstate mode ``"afterstates"`` (M, 2, 25), the
    candidates of game g being rows ``info["offsets"][g]:info["offsets"][g + 1]``, and
    with ``afterstate_features=True`` their features ``"afterstate_features"`` (M, F), as
    the side to roll next sees each one. ``action_masks()`` gives the mask too.

    Seeds: ``reset(seed=s)`` seeds game g with ``s + g`` (or ``seed[g]`` for a list), so a
    game's dice depend only on its own seed. :meth:`sample_actions` draws uniformly
    random legal actions from per-game states.
    Every array returned is the caller's to keep; their memory is recycled once the caller
    drops them (no fresh pages per step).

    >>> from fastgen.envs import VectorBackgammon
    >>> env = VectorBackgammon(4, action_mode="micro", observation="raw")
    >>> obs, info = env.reset(seed=1)
    >>> obs.shape, info["action_mask"].shape
    ((4, 58), (4, 156))
    >>> obs, reward, terminated, truncated, info = env.step(env.sample_actions())
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int, *, action_mode: str = "micro", observation: str = "tesauro198",
                 afterstate_features: bool = False):
        self.games = Games(num_envs, action_mode, observation, autoreset=True,
                           afterstate_features=afterstate_features)
        self.num_envs = self.games.n
        self.action_mode = action_mode
        self.single_observation_space = observation_space(self.games.width)
        self.single_action_space = action_space(action_mode)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.render_mode = None

    def _info(self) -> dict:
        g = self.games
        info = {"action_mask": g.mask, "player": g.player.copy(), "dice": g.dice.copy()}
        if self.action_mode == "afterstate":
            plays = g.turn_plays()
            info["afterstates"] = plays.boards
            info["offsets"] = plays.offsets
            if g.afterstate_features:
                info["afterstate_features"] = plays.features
        return info

    def reset(self, *, seed=None, options=None):
        """Start every game over (opening rolls); returns (observations, info)."""
        self.games.reset(seed)  # checks seed: None, an int, or one int per game
        if isinstance(seed, (int, np.integer)):
            super().reset(seed=int(seed) % 2**64)
        return self.games.observe(), self._info()

    def step(self, actions):
        """One action per game; returns (obs, reward, terminated, truncated, info)."""
        reward, terminated, truncated = self.games.step(actions)
        info = self._info()
        done = terminated | truncated
        if done.any():
            final = np.zeros((self.num_envs, self.games.width), dtype=np.float32)
            final[done] = self.games.observe(self.games.final[done])
            info["final_obs"] = final
            info["_final_obs"] = done
        return self.games.observe(), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The legal actions of every game, (N, A) bool (sb3-contrib's MaskablePPO convention)."""
        return self.games.mask

    def sample_actions(self) -> np.ndarray:
        """A uniformly random legal action for every game, (N,) int64."""
        return self.games.sample_actions()

