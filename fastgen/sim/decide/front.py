"""Rollouts that decide: which play is best for this position and roll, by how much, how sure.

:func:`rollout_plays` rolls out every candidate play of a position and roll with a
0-ply player (:func:`fastgen.players.evaluators.greedy` of the evaluator) for both sides;
:func:`rollout_position` rolls out a position whose side on roll has not rolled yet.

The machinery, for all trials of all candidates at once (the "pool"):

* every half-move, the unfinished games generate their plays in ONE
  :func:`fastgen.plays_batch` call and the evaluator sees all the resulting positions in
  one call (cut into chunks of ``EVAL_CHUNK`` positions);
* with variance reduction the pool instead generates the plays of all 21 distinct rolls
  (one ``plays_batch`` call over games x 21 rolls), evaluates all of them in one call,
  and takes both the luck and the play from that: the play for the roll thrown is the
  lookahead's best play for that roll;
* trial ``k`` throws the dice of :func:`fastgen.sim.rollout_dice` for every candidate
  (common random numbers), so the differences between candidates are paired.

Variance reduction (GNU Backgammon's lookahead luck adjustment): at each half-move the
luck of the roll thrown is ``V(roll) - sum_r w_r V(r) / 36`` over the 21 distinct rolls
(weight 1 for doubles, 2 otherwise), where ``V(r)`` is the evaluator's five
probabilities after the best play for roll ``r``, from the roller's point of view. The
trial's estimate is its outcome minus the sum of its lucks (all five outputs, in the
row player's view). Each luck has expectation zero whatever the policy, so the estimate
stays unbiased; when the evaluator is good, the luck explains most of the outcome.

Trials run in blocks of whole trials (all candidates together). Trial k's dice and plays
do not depend on the block size, the threads or the order of blocks, so with an
evaluator that computes each position on its own in float64 neither do the results, to
the last bit (in process, with ``out=`` and on a cluster alike). A float32
:class:`fastgen.players.evaluators.ReferenceNetwork` rounds its matrix products according to how many
positions one call holds, so a run cut into other blocks (``out=``, a cluster) can
differ from the plain run in the last float32 bits of a value (the test
``tests/test_run_identity.py::test_out_equals_the_plain_run_as_documented`` checks that
every per-trial value agrees within 1e-5, and the float64 case to the last bit). The stop
rules act between blocks, and the progress is reported per block (a block is about
``POOL_GAMES`` games: small, so that the progress moves from the start). Ctrl-C keeps
the trials finished in order from trial 0: the finished blocks and, of the block under
way, its trials up to its first unfinished one (short games finish first, so keeping
every finished trial would bias the result towards them). The trials themselves are
played by :mod:`fastgen.sim.decide.trials`; on a Dask cluster, in chunks of trials, by :mod:`fastgen.sim.decide.chunks`.
"""

from __future__ import annotations

import contextlib
import math
import time
import warnings
from typing import Any, Callable, Sequence

import numpy as np

from fastgen.players import specs
from fastgen._util import check_int
from fastgen.players.evaluators import afterstate_probs, equity
from fastgen.core.boards import as_board, as_dice
from fastgen.core.generate import legal_plays
from fastgen.errors import DeadPositionError, InvalidArgumentError, InvalidBoardError
from fastgen.core.ids import position_id
from fastgen.core.notation import Play
from fastgen.core.validate import parse_play
from fastgen.sim.cluster import default_chunk_size
from fastgen.sim.decide.chunks import TRIAL_CHUNKS, ClusterRunner, TrialJob, TrialStore, play_job
from fastgen.sim.decide.trials import MAX_HALF_MOVES, block_size, simulate
from fastgen.sim.decide.cubeful import rollout_cube
from fastgen.sim.options import ClusterOptions, TrialOptions, merge_options
from fastgen.sim.store import RESUME_MODES, evaluator_identity
from fastgen.sim.pool import dead_positions
from fastgen.sim.decide.table import RolloutTable, build_rows
from fastgen._typing import ArrayLike, DiceLike

__all__ = ["rollout_plays", "rollout_position", "simulate", "POOL_GAMES", "MAX_HALF_MOVES"]

#: Games (candidates x trials) played side by side in one block, about: small enough that
#: the progress (reported per block) moves from the start and Ctrl-C loses little, large
#: enough that an evaluator call still holds many positions (with variance reduction,
#: every play of the 21 rolls of every unfinished game of the block).
POOL_GAMES = 128


# --------------------------------------------------------------------------- checks


def _check_evaluator(evaluator) -> str:
    """The name of an evaluator already read by :func:`fastgen.players.specs.evaluator`."""
    return evaluator.name


def _check_board(board) -> np.ndarray:
    arr = as_board(board)
    if (arr.sum(axis=1) == 0).any():
        raise InvalidBoardError(f"the position is a finished game (a side has no checkers left): {arr!r}")
    return arr


def _candidates(board: np.ndarray, dice: tuple, plays, evaluator, stats: dict, threads: int = 1) -> list[Play]:
    legal = legal_plays(board, dice)
    if plays is None:
        return list(legal)
    if isinstance(plays, (int, np.integer)) and not isinstance(plays, (bool, np.bool_)):
        k = check_int(plays, "plays", 1)
        values = equity(afterstate_probs(evaluator, legal.boards, stats, threads=threads))
        order = sorted(range(len(legal)), key=lambda i: -values[i])  # stable: ties in generation order
        return [legal[i] for i in order[:k]]
    if isinstance(plays, (str, bytes)) or not isinstance(plays, Sequence):
        raise InvalidArgumentError(f"plays must be None, an int or a list of plays or move texts, got {plays!r}")
    chosen, seen = [], set()
    for p in plays:
        if isinstance(p, str):
            play = parse_play(board, dice, p, plays=legal)
        elif isinstance(p, Play):
            if not np.array_equal(p.board_before, board) or p not in legal:
                raise InvalidArgumentError(f"{p!r} is not a legal play of this position with dice {dice}")
            play = legal[int(np.flatnonzero((legal.boards == p.board_after).all(axis=(1, 2)))[0])]
        else:
            raise InvalidArgumentError(f"plays must hold Play values or move texts, got {p!r}")
        key = play.board_after.tobytes()
        if key in seen:
            raise InvalidArgumentError(f"plays names the play {str(play)!r} twice (as {p!r})")
        seen.add(key)
        chosen.append(play)
    if not chosen:
        raise InvalidArgumentError(f"plays must name at least one play, got {plays!r}")
    return chosen


def _check_live(starts: np.ndarray, what: list[str]) -> None:
    dead = dead_positions(starts)
    if dead.size:
        i = int(dead[0])
        raise DeadPositionError(
            f"{what[i]} leads to position ID {position_id(starts[i])!r} where neither side can ever move"
        )


# --------------------------------------------------------------------------- the driver


def _progress_bar(progress, total: int):
    """(update(n), close()) for *progress*: None/False nothing, True a tqdm bar, a callable."""
    if progress is None or progress is False:
        return (lambda n: None), (lambda: None)
    if progress is True:
        from tqdm import tqdm  # lazy: its import is a fifth of import fastgen's time; loaded when a bar is shown
        bar = tqdm(total=total, unit="trial", desc="rollout")
        return bar.update, bar.close
    if callable(progress):
        return progress, (lambda: None)
    raise InvalidArgumentError(f"progress must be None, True or a callable, got {progress!r}")


def _run(board: np.ndarray, dice: tuple | None, starts: np.ndarray, plays: list, self_first: bool, evaluator,
         name: str, opts: TrialOptions, cluster: ClusterOptions, progress, stats: dict,
         resume: tuple = (None, "check")) -> RolloutTable:
    trials = opts.trials
    n_rows = starts.shape[0]
    samples: list[list] = [[] for _ in range(n_rows)]
    raw: list[list] = [[] for _ in range(n_rows)]
    active = list(range(n_rows))
    done_trials = 0
    interrupted = False
    stopped = None
    min_trials = 36 if opts.min_trials is None else opts.min_trials
    update, close = _progress_bar(progress, trials)

    def take(lo: int, hi: int, r: np.ndarray, s: np.ndarray, part_stats: dict) -> None:
        nonlocal done_trials
        for j, row in enumerate(active):
            raw[row].append(r[j])
            samples[row].append(s[j])
        for k, v in part_stats.items():
            stats[k] = stats.get(k, 0) + v
        update(hi - lo)
        done_trials = hi

    t0 = time.perf_counter()
    try:
        with contextlib.ExitStack() as stack:
            job = TrialJob(starts, self_first, evaluator, POOL_GAMES, opts)
            runner = None
            if cluster.on_cluster:
                runner = stack.enter_context(ClusterRunner(job, name, cluster))
                t0 = time.perf_counter()  # the cluster's start-up apart
                stats["workers"] = runner.workers
            store, grid, size = None, [], 0
            if cluster.chunked:
                workers = 1 if runner is None else runner.workers
                chunk_size = cluster.chunk_size
                if cluster.out is not None and chunk_size is None:
                    chunk_size = TrialStore.stored_chunk_size(cluster.out)
                size = chunk_size or default_chunk_size(trials, workers, TRIAL_CHUNKS)
                grid = [(lo, min(trials, lo + size)) for lo in range(0, trials, size)]
                if cluster.out is not None:
                    content, mode = resume
                    half_moves = MAX_HALF_MOVES if opts.truncate is None else opts.truncate
                    store = TrialStore(cluster.out, _manifest_run(board, dice, plays, self_first, name, size, opts),
                                       content, n_rows, half_moves, opts.variance_reduction, mode)
            while done_trials < trials and active:
                if runner is None and store is None:
                    hi = min(trials, done_trials + block_size(POOL_GAMES, len(active)))
                    part: dict = {}
                    try:
                        r, s = simulate(starts[active], self_first, evaluator,
                                        np.arange(done_trials, hi, dtype=np.int64), stats=part, **opts.play())
                    except KeyboardInterrupt as cut:  # keep the trials finished in order from the block's first
                        r, s = getattr(cut, "finished_trials", (np.zeros((len(active), 0, 5)),) * 2)
                        if r.shape[1]:
                            take(done_trials, done_trials + r.shape[1], r, s, part)
                        raise
                    take(done_trials, hi, r, s, part)
                else:
                    got: dict = {} if store is None else store.load(grid, len(active))
                    stats["chunks_loaded"] = stats.get("chunks_loaded", 0) + len(got)
                    ranges = [(lo, hi) for lo, hi in grid if lo >= done_trials and lo not in got]
                    if opts.stops and runner is not None:  # a round of one chunk per worker, then the stop rules
                        ranges = ranges[: runner.workers]

                    def save(lo: int, hi: int, r: np.ndarray, s: np.ndarray) -> None:
                        if store is not None:
                            store.save_trials(lo, hi, r, s)
                        stats["chunks_played"] = stats.get("chunks_played", 0) + 1

                    try:
                        if runner is not None:
                            runner.run(active, ranges, got, save)
                        else:
                            for lo, hi in ranges:
                                r, s, part = play_job(job, tuple(active), lo, hi)
                                save(lo, hi, r, s)
                                got[lo] = (hi, r, s, part)
                    finally:  # also on Ctrl-C: keep the chunks finished from done_trials on
                        while done_trials in got:
                            hi, r, s, part = got.pop(done_trials)
                            take(done_trials, hi, r, s, part)
                if done_trials >= min_trials and opts.stops:
                    active, stopped = _apply_stops(active, samples, opts.stop_se, opts.stop_z, stopped)
    except KeyboardInterrupt:
        interrupted, stopped = True, "interrupted"
    finally:
        close()
    seconds = time.perf_counter() - t0
    cat = [np.concatenate(x) if x else np.zeros((0, 5)) for x in samples]
    cat_raw = [np.concatenate(x) if x else np.zeros((0, 5)) for x in raw]
    rows = build_rows(plays, cat, cat_raw)
    stats["seconds_total"] = seconds
    return RolloutTable(rows, board, dice, name, trials, opts.seed, opts.variance_reduction, opts.quasi_random,
                        opts.truncate, interrupted, stopped, seconds, stats, opts.truncate_bearoff, options=opts)


def _manifest_run(board, dice, plays, self_first, name, chunk_size, opts: TrialOptions) -> dict:
    """What an ``out`` directory records of the run (a rerun must match it)."""
    return {
        "position_id": position_id(board), "dice": None if dice is None else list(dice),
        "plays": [None if p is None else str(p) for p in plays], "self_first": bool(self_first),
        "evaluator": name, "trials": opts.trials, "chunk_size": chunk_size, "seed": opts.seed,
        "variance_reduction": opts.variance_reduction, "quasi_random": opts.quasi_random,
        "truncate": opts.truncate, "truncate_bearoff": opts.truncate_bearoff,
    }


def _apply_stops(active, samples, stop_se, stop_z, stopped):
    eq = {i: equity(np.concatenate(samples[i])) for i in active}
    means = {i: float(e.mean()) for i, e in eq.items()}
    if stop_z is not None and len(active) > 1:
        best = max(active, key=lambda i: means[i])
        keep = []
        for i in active:
            d = eq[best] - eq[i]
            se = d.std(ddof=1) / math.sqrt(d.size) if d.size > 1 else math.inf
            if i == best or not (d.mean() > stop_z * se):
                keep.append(i)
        active = keep
    if stop_se is not None:
        ses = [eq[i].std(ddof=1) / math.sqrt(eq[i].size) for i in active]
        if all(se < stop_se for se in ses):
            return [], "stop_se"
    return active, stopped


def _resume(evaluator, cluster: ClusterOptions, key, resume) -> tuple:
    """``(the evaluator's identity, resume mode)`` for the store of ``out`` (see
    :func:`fastgen.sim.store.evaluator_identity`); InvalidArgumentError when *out* is
    given for an opaque evaluator without *key*."""
    content = evaluator_identity(evaluator, key, "evaluator")
    if resume not in RESUME_MODES:
        raise InvalidArgumentError(f"resume must be one of {RESUME_MODES!r}, got {resume!r}")
    if cluster.out is not None and content is None:
        raise InvalidArgumentError(
            f"out={cluster.out!r} needs to know the evaluator {_check_evaluator(evaluator)!r}: it is neither a "
            "Network nor gnubg, so pass key='...' (a text that changes whenever the evaluator's results would), "
            "or run without out"
        )
    return content, resume


def _options(evaluator, cluster: ClusterOptions, options: TrialOptions | None, **trial) -> tuple[TrialOptions, str]:
    """The trial options (checked: *options*, or the keywords *trial*), after the checks
    that involve the evaluator or the cluster options too; and the evaluator's name."""
    name = _check_evaluator(evaluator)
    opts = merge_options(TrialOptions, options, **trial)
    if cluster.out is not None and opts.stops:
        raise InvalidArgumentError(
            f"out={cluster.out!r} does not combine with stop_se / stop_z (the stored chunks hold every candidate)"
        )
    if opts.truncate_bearoff and not callable(getattr(evaluator, "covers", None)):
        raise InvalidArgumentError(
            "truncate_bearoff=True needs an evaluator with a covers(boards) method, such as "
            f"evaluators.chain(evaluators.bearoff(db), net); got {evaluator!r}"
        )
    return opts, name


def rollout_plays(
    board: ArrayLike,
    dice: DiceLike,
    evaluator: Callable[[np.ndarray], Any] | str,
    *,
    plays: None | int | Sequence[Play | str] = None,
    trials: int = 1296,
    seed: int = 0,
    variance_reduction: bool = True,
    quasi_random: bool = True,
    truncate: int | None = None,
    stop_se: float | None = None,
    stop_z: float | None = None,
    min_trials: int | None = None,
    threads: int = 1,
    truncate_bearoff: bool = False,
    workers: int | None = None,
    scheduler: str | None = None,
    client: Any = None,
    chunk_size: int | None = None,
    out: Any = None,
    progress: Any = None,
    key: str | None = None,
    resume: str = "check",
    options: TrialOptions | None = None,
    cluster: ClusterOptions | None = None,
) -> RolloutTable:
    """Roll out the candidate plays of *board* (side on roll in row 1) with *dice*.

    Parameters
    ----------
    board, dice:
        The position, the side on roll in row 1, and its roll.
    evaluator:
        ``f(boards (N, 2, 25) int8) -> (N, 5)`` probabilities of the side on roll (see
        :mod:`fastgen.players.evaluators`), or its spec (:mod:`fastgen.players.specs`: ``"baseline"``,
        ``"gnubg:0"``, a weights file, ``"mybot:evaluate"`` ...). Both sides play its 0-ply choice
        (:func:`~fastgen.players.evaluators.greedy`); it also scores truncated trials and
        measures the luck of variance reduction.
    plays:
        None (every legal play), a list of :class:`fastgen.Play` values or move texts
        (``"8/5 6/5"``), or an int k: the k best plays at 0 ply by the evaluator.
    trials:
        Trials per candidate; trial k throws the same dice for every candidate
        (:func:`fastgen.sim.rollout_dice`).
    seed:
        Non-negative int below 2**64.
    variance_reduction:
        Subtract the lookahead luck of every roll (see the module docstring).
    quasi_random:
        Stratify the first two rolls over blocks of 36 and 1,296 trials.
    truncate:
        None, or stop every trial after that many half-moves and score it with the
        evaluator (0: the 0-ply value of each candidate).
    stop_se:
        Stop once every remaining row's ``equity_se`` is below this (checked between
        blocks of trials, after *min_trials*).
    stop_z:
        Stop rolling out a candidate once the best row is ahead of it by more than
        *stop_z* standard errors of the paired difference (after *min_trials*).
    min_trials:
        Trials before the stop rules apply (default 36).
    threads:
        Threads of :func:`fastgen.plays_batch` and of the evaluator (a compiled network
        uses them); the results are the same for any number.
    truncate_bearoff:
        Stop a trial, scored by the evaluator, once its position (the side on roll about
        to roll) is one the evaluator ``covers``: with
        ``chain(bearoff(db), net)`` that is once both sides are inside a two-sided
        database (exact there) or a one-sided one (its estimate). Needs an evaluator with
        a ``covers(boards)`` method; the count of such stops is ``stats["bearoff_stops"]``.
    workers, scheduler, client:
        At most one: play the trials on a Dask cluster (:ref:`cluster-arguments`), in
        chunks of *chunk_size* consecutive trials (default: whole blocks of 36, about
        four chunks per worker); the table is the in-process one (trial k's dice
        depend only on the seed, k and the turn), to the last bit with an evaluator computing each position on its own
        in float64. The evaluator must pickle with cloudpickle
        (:class:`fastgen.errors.NotPicklableError` otherwise). With *stop_se* or
        *stop_z* the chunks go out one per worker at a time and the stop rules apply
        between such rounds.
    chunk_size:
        Trials per chunk on a cluster or with *out* (else ignored).
    out:
        None, or a directory where every finished chunk of trials is saved (npz, next to
        a manifest of the arguments; see :mod:`fastgen.sim.decide.chunks`). A rerun
        with the same arguments loads the finished chunks and plays only the rest, to
        the same table; a directory of another run raises
        :class:`fastgen.errors.RolloutStoreError`. Not with *stop_se* / *stop_z*.
        The directory and each part carry the run's identity (the SHA-256 of the
        arguments and of the evaluator's content); a part of another run, or with
        values no trial can produce, raises RolloutStoreError naming the file.
    progress:
        None, True (a tqdm progress bar) or a callable receiving the number of trials
        finished, once per block of about ``POOL_GAMES`` games (candidates x trials; with
        *out* or a cluster, once per chunk).
    key:
        With *out*: a text identifying an evaluator that is neither a
        network (a compiled :class:`fastgen.nets.Network` or a
        :class:`fastgen.players.evaluators.ReferenceNetwork`, identified by its weights) nor
        ``gnubg:N``; it must change whenever the evaluator's results would. *out* with
        such an evaluator and no key raises InvalidArgumentError. Given for a
        network, it replaces the weights' digest.
    resume:
        ``"check"`` (default): a stored part that does not fit the run raises
        RolloutStoreError; ``"recompute"``: such a part is played again and
        overwritten.
    options, cluster:
        *trials* to *truncate_bearoff* and *threads* as one
        :class:`fastgen.sim.TrialOptions`, and *workers* to *out* as one
        :class:`fastgen.sim.ClusterOptions`, instead of the keywords (not both).

    Returns
    -------
    RolloutTable
        One row per candidate, best first; the options that played the trials as
        ``table.options``. Ctrl-C returns the table of the trials
        finished so far, in order from trial 0, with ``interrupted=True`` (rows with
        ``trials == 0`` when none had: their statistics are NaN and ``str`` prints no
        table).

    Raises
    ------
    InvalidBoardError, InvalidDiceError, InvalidArgumentError
        Bad input (quoted).
    DeadPositionError
        A candidate leads to a position where no game can end.

    Examples
    --------
    >>> import fastgen
    >>> from fastgen.players import evaluators
    >>> t = rollout_plays(fastgen.STARTING_BOARD, (3, 1), evaluators.random_network(hidden=8),
    ...                   plays=["8/5 6/5", "24/21 6/5"], trials=72)
    >>> len(t.rows), t.rows[0].trials, t.rows[0].diff
    (2, 72, 0.0)
    """
    evaluator = specs.evaluator(evaluator)
    cluster = merge_options(ClusterOptions, cluster, "cluster", workers=workers, scheduler=scheduler, client=client,
                            chunk_size=chunk_size, out=out)
    store_args = _resume(evaluator, cluster, key, resume)
    opts, name = _options(evaluator, cluster, options, trials=trials, seed=seed, variance_reduction=variance_reduction,
                          quasi_random=quasi_random, truncate=truncate, truncate_bearoff=truncate_bearoff,
                          stop_se=stop_se, stop_z=stop_z, min_trials=min_trials, threads=threads)
    board = _check_board(board)
    dice = as_dice(dice)
    stats: dict = {}
    cands = _candidates(board, dice, plays, evaluator, stats, opts.threads)
    after = np.stack([p.board_after for p in cands])
    won = after[:, 1].sum(axis=1) == 0
    starts = np.ascontiguousarray(after[:, ::-1])
    if won.any():  # a play that ends the game: its value is exact, every trial the same
        return _run_with_wins(board, dice, cands, starts, won, evaluator, name, opts, cluster, progress, stats,
                              store_args)
    _check_live(starts, [f"play {str(p)!r}" for p in cands])
    return _run(board, dice, starts, cands, False, evaluator, name, opts, cluster, progress, stats, store_args)


def _run_with_wins(board, dice, cands, starts, won, evaluator, name, opts: TrialOptions, cluster: ClusterOptions,
                   progress, stats, store_args: tuple) -> RolloutTable:
    """Candidates that bear off the last checker score their exact result in every trial;
    the others are rolled out as usual."""
    live = np.flatnonzero(~won)
    if live.size:
        _check_live(starts[live], [f"play {str(cands[i])!r}" for i in live])
        table = _run(board, dice, starts[live], [cands[i] for i in live], False, evaluator, name, opts, cluster,
                     progress, stats, store_args)
        done = max((r.trials for r in table.rows), default=0)  # the trials played (stop_z may drop rows)
    else:
        table = RolloutTable([], board, dice, name, opts.trials, opts.seed, opts.variance_reduction,
                             opts.quasi_random, opts.truncate, stats=stats, truncate_bearoff=opts.truncate_bearoff,
                             options=opts)
        done = opts.trials
    samples = [r.samples for r in table.rows]
    raw = [r.raw_samples for r in table.rows]
    plays = [r.play for r in table.rows]
    for i in np.flatnonzero(won):
        after = cands[i].board_after
        loser = after[0].astype(np.int64)
        exact = np.array([1.0, loser.sum() == 15, loser.sum() == 15 and loser[18:25].sum() > 0, 0.0, 0.0])
        plays.append(cands[i])
        samples.append(np.tile(exact, (done, 1)))
        raw.append(np.tile(exact, (done, 1)))
    table.rows = build_rows(plays, samples, raw)
    return table


def rollout_position(
    board: ArrayLike,
    evaluator: Callable[[np.ndarray], Any] | str,
    *,
    trials: int = 1296,
    seed: int = 0,
    variance_reduction: bool = True,
    quasi_random: bool = True,
    truncate: int | None = None,
    stop_se: float | None = None,
    min_trials: int | None = None,
    threads: int = 1,
    truncate_bearoff: bool = False,
    workers: int | None = None,
    scheduler: str | None = None,
    client: Any = None,
    chunk_size: int | None = None,
    out: Any = None,
    progress: Any = None,
    key: str | None = None,
    resume: str = "check",
    cubeful: bool = False,
    state: Any = None,
    met: Any = None,
    options: TrialOptions | None = None,
    cluster: ClusterOptions | None = None,
) -> Any:
    """Roll out *board* with its side on roll (row 1) about to roll: a table of one row
    (``play`` None), from that side's point of view. Turn 0 of the dice is its roll.
    The options are :func:`rollout_plays`'s (but *stop_z*, which compares candidates).

    *cubeful*, *state* and *met* are deprecated: ``cubeful=True`` calls
    :func:`fastgen.rollout_cube` (with a DeprecationWarning), which rolls out the cube
    decision and returns a :class:`fastgen.sim.decide.cubeful.CubeRollout`.

    >>> import fastgen
    >>> from fastgen.players import evaluators
    >>> t = rollout_position(fastgen.STARTING_BOARD, evaluators.random_network(hidden=8), trials=36)
    >>> len(t.rows), t.rows[0].play is None, t.dice is None
    (1, True, True)
    """
    if not isinstance(cubeful, (bool, np.bool_)):
        raise InvalidArgumentError(f"cubeful must be True or False, got {cubeful!r}")
    if cubeful:
        warnings.warn("rollout_position(cubeful=True) is deprecated and will be removed in fastgen 0.3: use "
                      "fastgen.rollout_cube(board, evaluator, state)", DeprecationWarning, stacklevel=2)
        unused = {"truncate": truncate, "stop_se": stop_se, "min_trials": min_trials, "workers": workers,
                  "scheduler": scheduler, "client": client, "chunk_size": chunk_size, "out": out, "key": key,
                  "cluster": cluster}
        given = [name for name, value in unused.items() if value is not None]
        if given or truncate_bearoff:
            raise InvalidArgumentError(f"a cubeful rollout takes trials, seed, variance_reduction, quasi_random, "
                                       f"threads, progress, state and met; not {', '.join(given) or 'truncate_bearoff'}")
        return rollout_cube(board, evaluator, state, trials=trials, seed=seed, quasi_random=quasi_random,
                            threads=threads, met=met, variance_reduction=variance_reduction, progress=progress,
                            options=options)
    if state is not None or met is not None:
        raise InvalidArgumentError("state and met are for cubeful rollouts (fastgen.rollout_cube)")
    evaluator = specs.evaluator(evaluator)
    cluster = merge_options(ClusterOptions, cluster, "cluster", workers=workers, scheduler=scheduler, client=client,
                            chunk_size=chunk_size, out=out)
    store_args = _resume(evaluator, cluster, key, resume)
    opts, name = _options(evaluator, cluster, options, trials=trials, seed=seed, variance_reduction=variance_reduction,
                          quasi_random=quasi_random, truncate=truncate, truncate_bearoff=truncate_bearoff,
                          stop_se=stop_se, min_trials=min_trials, threads=threads)
    if opts.stop_z is not None:
        raise InvalidArgumentError(f"stop_z compares candidates; a position's rollout has one: options={opts!r}")
    board = _check_board(board)
    _check_live(board[None], ["the position"])
    return _run(board, None, board[None].copy(), [None], True, evaluator, name, opts, cluster, progress, {},
                store_args)
