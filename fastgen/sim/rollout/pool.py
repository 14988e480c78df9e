"""The in-process rollout engine: games played by one policy against itself.

:func:`play_in_process` plays the games of a rollout in the compiled game loop
(:func:`fastgen.sim.pool.play_native`) when the policy is built in (``"random"``,
``"pubeval"``) or a compiled network's greedy play (:class:`fastgen.nets.Network`), else
in the batched table of games (:func:`fastgen.sim.pool.play_pool`) with one seat. Both
give the same games: each game's dice and random choices come from a counter-based hash
(:mod:`fastgen.core.hashing`) of ``(seed, game index, turn, purpose)``, so game ``i`` is
the same game whatever the batch size, the threads or the order games finish in. The
policies are read by :func:`fastgen.players.specs.policy`.
"""

from __future__ import annotations

import time

from fastgen._util import check_int
from fastgen.core.boards import STARTING_BOARD
from fastgen.errors import InvalidArgumentError
from fastgen.players.policies import step_function
from fastgen.players.specs import policy as policy_of
from fastgen.sim.options import GameOptions
from fastgen.sim.pool import check_start, play_native, play_pool
from fastgen.sim.rollout.results import RolloutResult


def rollout_native(games, start_boards, from_opening, first, policy, options: GameOptions, progress,
                   name: str) -> RolloutResult:
    """Games first..first+games-1 played in the compiled game loop by *policy*'s native
    chooser (the random policy, pubeval, a compiled network's greedy play),
    ``options.batch_size`` games per call, in ``options.threads`` threads."""
    t0 = time.perf_counter()
    winner, result, turns = play_native(games, first, (policy, policy), start_boards, from_opening, options.seed,
                                        alternate=False, mirrored=False, threads=options.threads,
                                        batch_size=options.batch_size, progress=progress)
    seconds = time.perf_counter() - t0
    return RolloutResult.cubeless(winner, result, turns, options.seed, name, seconds, {"native": seconds})


def play_in_process(games: int | None, policy, start, first_game: int, options: GameOptions, progress) -> RolloutResult:
    """Games ``first_game .. first_game + games - 1`` of the run with ``options.seed``,
    played in this process: inside the core for ``"random"`` and ``"pubeval"`` (unless
    ``options.engine`` is ``"python"``), else by the batched pool loop. The arguments are
    :func:`fastgen.rollout`'s (*options* checked when built)."""
    first_game = check_int(first_game, "first_game", 0)
    if start is None:
        start_boards = STARTING_BOARD[None]
        from_opening = True
    else:
        start_boards, games = check_start(start, games)
        from_opening = False
    games = check_int(games, "games", 0)
    if progress is not None and not callable(progress):
        raise InvalidArgumentError(f"progress must be None or a callable, got {progress!r}")
    found = policy_of(policy)
    name = policy if isinstance(policy, str) else found.name
    if options.engine == "native" and found.native is None:
        raise InvalidArgumentError(
            "the native engine plays the 'random' and 'pubeval' policies, compiled networks "
            f"(fastgen.nets.Network) and gnubg's nets only, got policy {policy!r}"
        )
    if options.engine != "python" and found.native is not None:
        return rollout_native(games, start_boards, from_opening, first_game, found, options, progress, name)
    seed, batch_size, threads = options.seed, options.batch_size, options.threads
    choose = step_function(found, seed, threads)
    t0 = time.perf_counter()
    winner, result, turns, timings = play_pool([choose], games, first_game, start_boards, from_opening, seed,
                                               mirrored=False, batch_size=batch_size, threads=threads,
                                               progress=progress)
    seconds = time.perf_counter() - t0
    timings["other"] = seconds - timings["plays_batch"] - timings["policy"]
    return RolloutResult.cubeless(winner, result, turns, seed, name, seconds, timings)
