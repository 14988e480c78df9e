"""Bulk cubeless rollouts: :func:`rollout`, the front that plays the games in this process
(:mod:`fastgen.sim.rollout.pool`) or spreads them over a Dask cluster (:mod:`fastgen.sim.rollout.chunks`).

Every turn, all unfinished games of the pool generate their plays in ONE
:func:`fastgen.plays_batch` call, a vectorized policy picks one play per game, finished
games report their result, and the rest swap sides. Finished games are replaced by new
ones so the pool stays full.

Reproducibility does not depend on the batch size or on the order games finish in:
each game's dice and random choices come from a counter-based hash (splitmix64) of
``(seed, game index, turn, purpose)``, never from a shared sequential stream. So game
``i`` of ``rollout(seed=S)`` is the same game whatever ``batch_size`` or ``threads``.

>>> r = rollout(games=64, seed=1, batch_size=16)
>>> r2 = rollout(games=64, seed=1, batch_size=64)
>>> bool((r.winner == r2.winner).all() and (r.turns == r2.turns).all())
True
"""

from __future__ import annotations

import os
from typing import Any, Callable

from fastgen.players import specs
from fastgen._typing import ArrayLike
from fastgen.sim.options import ClusterOptions, GameOptions, merge_options
from fastgen.sim.rollout.pool import play_in_process
from fastgen.sim.rollout.results import RolloutResult
from fastgen.sim.rollout.chunks import policy_identity, rollout_chunked


#: The seed of :func:`rollout` (and of ``fastgen rollout``) when none is given.
DEFAULT_SEED = 0


def rollout(
    games: int | None = 10000,
    policy: str | Callable[..., Any] = "random",
    seed: int = DEFAULT_SEED,
    start: ArrayLike | None = None,
    batch_size: int = 4096,
    threads: int = 1,
    progress: Callable[[int], object] | None = None,
    engine: str = "auto",
    *,
    first_game: int = 0,
    workers: int | None = None,
    scheduler: str | None = None,
    client: Any = None,
    chunk_size: int | None = None,
    out: str | os.PathLike[str] | None = None,
    key: str | None = None,
    resume: str = "check",
    options: GameOptions | None = None,
    cluster: ClusterOptions | None = None,
) -> RolloutResult:
    """Play *games* cubeless games to the end and return their outcomes.

    Parameters
    ----------
    games:
        Number of games. With *start* and ``games=None``: one game per start board.
    policy:
        ``"random"`` (uniform over the distinct plays), ``"pubeval"`` (Tesauro's
        evaluation), any other spec of :mod:`fastgen.players.specs` (``"baseline"``,
        ``"gnubg:0"``, ``"mybot:policy"``, a weights file ...), a
        network (a compiled :class:`fastgen.nets.Network` or a :class:`fastgen.players.evaluators.ReferenceNetwork`: it plays greedily) or a callable ``f(candidate_boards (M, 2, 25), offsets (G+1,)) ->
        (G,) indices`` relative to each game's range, called once per turn for all games
        (``f(candidates, offsets, boards, dice)`` when it has ``wants_position = True``:
        the positions before the play and their dice too).
    seed:
        Non-negative int; the same seed gives the same games whatever *batch_size*.
    start:
        None: every game starts with the opening roll (R16). Else a board (2, 25) or
        boards (K, 2, 25) with the side on roll in row 1; game i starts at
        ``start[i % K]`` with an ordinary roll (doubles allowed).
    batch_size:
        Number of games played side by side (the pool size of each ``plays_batch`` call).
    threads:
        Threads of each :func:`fastgen.plays_batch` call and of the policy's network (or
        games played in parallel inside the core); the results are the same for any
        number.
    progress:
        Optional callable receiving the number of games finished at each turn.
    engine:
        ``"native"`` plays whole games inside the compiled core (the ``"random"`` and
        ``"pubeval"`` policies: no candidate arrays are built, each thread plays a range
        of games), ``"python"``
        runs the batched loop above, ``"auto"`` (default) picks native when it can.
        Both give identical games for the same seed.
    first_game:
        Index of the first game: the call plays games ``first_game .. first_game +
        games - 1`` of the run with this seed (a slice of a larger rollout).
    workers, scheduler, client, chunk_size, out:
        Spread the games over a Dask cluster, in chunks of *chunk_size* games; *out*, a
        directory, keeps finished chunks and resumes an interrupted run: see
        :ref:`cluster-arguments`. The result equals the in-process one game for game.
        The directory and its parts carry the run's identity (the SHA-256 of the
        arguments and of the policy's content); a part that does not fit raises
        :class:`fastgen.errors.RolloutStoreError` naming it.
    key, resume:
        With *out*: *key* is a text identifying a callable policy (other than a
        network, compiled or :class:`fastgen.players.evaluators.ReferenceNetwork`) or a ``module:callable`` spec, which must
        change whenever its choices would; *out* with such a policy and no key raises
        InvalidArgumentError. *resume* ``"recompute"`` plays a stored chunk that does
        not fit the run again instead of raising (default ``"check"``).
    options, cluster:
        *seed*, *batch_size*, *threads* and *engine* as one
        :class:`fastgen.sim.GameOptions`, and *workers* to *out* as one
        :class:`fastgen.sim.ClusterOptions`, instead of the keywords (not both).

    Returns
    -------
    RolloutResult
        The winner, result type and number of turns of every game, and the options
        that played them (``result.options``).

    Notes
    -----
    Ctrl-C stops either engine within a turn (KeyboardInterrupt). A start position
    where no game can end raises :class:`fastgen.errors.DeadPositionError` before any
    game is played (see :func:`fastgen.sim.pool.dead_positions`); a game reaching MAX_TURNS raises
    :class:`fastgen.errors.TurnLimitError`.
    """
    options = merge_options(GameOptions, options, seed=seed, batch_size=batch_size, threads=threads, engine=engine)
    cluster = merge_options(ClusterOptions, cluster, "cluster", workers=workers, scheduler=scheduler, client=client,
                            chunk_size=chunk_size, out=out)
    content = policy_identity(policy, key)
    found: Any = specs.policy(policy)
    try:
        if cluster.chunked:
            result = rollout_chunked(games, found, start, first_game, options, cluster, progress, content, resume)
        else:
            result = play_in_process(games, found, start, first_game, options, progress)
        result.options = options
        return result
    finally:  # an engine process a spec started ends with the rollout
        if isinstance(policy, str) and found is not policy and callable(getattr(found, "close", None)):
            found.close()
