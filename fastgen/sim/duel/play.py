"""The games of a duel, games ``first .. first + games - 1``: in the compiled game loop
when both players are built-in policies or compiled networks' greedy play, else in the
batched table of games with two seats (the same games; :mod:`fastgen.sim.pool`). Used by
:func:`fastgen.sim.duel.front.duel` in this process and by :mod:`fastgen.sim.duel.chunks` on
Dask workers.

Game g: player a moves first when g is even. Mirrored, games 2k and 2k + 1 share the
dice of pair k (``roll_of`` of game k) and the start position ``start[k % K]``.
"""

from __future__ import annotations

from fastgen.players.specs import policy as policy_of, resolve_policy
from fastgen.sim.options import GameOptions
from fastgen.sim.pool import play_native, play_pool

__all__ = ["native_player", "play_duel_games"]


def play_duel_games(a, b, games, first, start, from_opening, mirrored, options: GameOptions, progress):
    """Games first..first+games-1 (*first* even when *mirrored*): (winner, result, turns,
    timings), winner 0 when *a* won. *start*: (K, 2, 25) int8 boards, checked."""
    seed, threads, batch_size = options.seed, options.threads, options.batch_size
    seats = (native_player(a), native_player(b))
    if options.engine != "python" and seats[0] is not None and seats[1] is not None:
        winner, result, turns = play_native(games, first, seats, start, from_opening, seed, alternate=True,
                                            mirrored=mirrored, threads=threads, batch_size=batch_size,
                                            progress=progress)
        return winner, result, turns, {}
    choose_a, _ = resolve_policy(a, seed, threads)
    choose_b, _ = resolve_policy(b, seed, threads)
    return play_pool([choose_a, choose_b], games, first, start, from_opening, seed, mirrored=mirrored,
                     batch_size=batch_size, threads=threads, progress=progress)


def native_player(policy):
    """*policy* (a resolved spec) as the compiled game loop plays it: the typed policy,
    whose native chooser the loop calls (the random policy, pubeval, a compiled
    network's greedy play), or None when only the batched table can."""
    found = policy_of(policy)
    return found if found.native is not None else None
