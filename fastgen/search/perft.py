"""perft for backgammon: the number of nodes of the game tree at depths 1..D.

A node is a position with a side on roll. Its children are, for each of the 21 distinct
rolls, each distinct legal play of that roll (a lost turn counts as one play), after which
the other side is on roll; a finished game (the mover bore off its last checker) is a node
without children. ``perft(board, D)[k - 1]`` is the number of nodes at depth k, counted
along paths as in chess perft (a position reached by two paths counts twice).

The tree is walked level by level in batches: each level is one :func:`fastgen.plays_batch`
call per batch of positions x 21 rolls, identical positions of a batch are merged with a
multiplicity (their subtrees are the same, so the counts stay exact), and the last level
is counted with :func:`fastgen.count_plays_batch` without building any play. The merge
runs in the core (one pass through a hash table); the merged positions are then ordered
so that those with the same opponent checkers are neighbours: the next level's batches
then hold positions whose children overlap, and merge far more of them (depth 4 from the
bear-off position ``t90OAAC72w0AAA`` ran about 6x longer in the order of first
appearance).

``perft_weighted`` weighs each path by the probability of its dice (a double 1/36, any
other roll 2/36): its value at depth k is the expected number of nodes at depth k.

With *workers*, *scheduler* or *client* the tree is expanded here down to a shallow split
depth, and the positions there are cut into independent subtrees that run as Dask tasks
(:mod:`fastgen.sim.cluster`). The numbers are the same whatever the split. In-process perft
does not need Dask.

>>> perft(STARTING_BOARD, 1)
[447]
"""

from __future__ import annotations

import time
from typing import Any, List, Optional

import numpy as np

from fastgen.core.boards import STARTING_BOARD, as_board
from fastgen._util import check_int
from fastgen.search import _perft
from fastgen.core.generate import count_plays_batch
from fastgen.core.generate import plays_batch
from fastgen.sim.cluster import as_finished, connect, dumps_checked, worker_count
from fastgen.sim.cluster import loads_cached, task_memory

__all__ = ["perft", "perft_weighted", "perft_run", "PerftRun", "ROLLS"]

#: The 21 distinct rolls, larger die first, and each one's weight in 36ths.
ROLLS = np.array([(a, b) for a in range(6, 0, -1) for b in range(a, 0, -1)], dtype=np.int8)
_WEIGHTS = np.where(ROLLS[:, 0] == ROLLS[:, 1], 1, 2).astype(np.int64)
_UNIT = np.ones(len(ROLLS), dtype=np.int64)
_COST_ROLLS = np.ascontiguousarray(ROLLS[::3])  # 6-6 6-3 5-5 5-2 4-3 3-3 2-2: the split's cost estimate
#: Positions expanded per plays_batch call (x 21 rolls), some 12 MB of children: small
#: enough to stay mostly in the caches, large enough that merging identical children
#: still saves most of the repeated work (with the sort-based merge this replaced, depth 4
#: from bJ3BATDgc/ABYA took 12.3-13.1 s in batches of 2,048, 10.2 s in batches of 512).
BATCH = 512
#: Default split: the tree is expanded (and merged) here while the next level stays under
#: about this many children (some 200 MB), so tasks lose no merging they could have had.
SPLIT_CHILDREN = 4_000_000
_FANOUT = 21 * 20  # rolls x a typical number of plays


def _merge(boards: np.ndarray, weights: np.ndarray):
    """Identical boards merged, their weights added (exact int64)."""
    if boards.shape[0] < 2:
        return boards, weights
    keys = np.ascontiguousarray(boards).reshape(boards.shape[0], 50).view(np.dtype((np.void, 50))).ravel()
    uniq, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    merged = np.zeros(uniq.shape[0], dtype=np.int64)
    np.add.at(merged, inverse.ravel(), weights)
    return boards[first], merged


def _expand(boards, weights, roll_w, threads):
    """Children of *boards* (side on roll in row 1) with their weights, and the weighted
    number of children. Finished games are counted but not returned; the returned
    positions are turned over (the other side on roll), merged in the core (a hash table:
    one pass over the children) and ordered by merge_children's key (positions with the
    same opponent checkers next to each other)."""
    n = boards.shape[0]
    batch = _plays_batch(np.repeat(boards, len(ROLLS), axis=0), np.tile(ROLLS, (n, 1)), threads)
    per = np.repeat(weights, len(ROLLS)) * np.tile(roll_w, n)
    m = batch.boards.shape[0]
    kids = np.empty((m, 2, 25), dtype=np.int8)
    w = np.empty(m, dtype=np.int64)
    key = np.empty(m, dtype=np.uint64)
    u, total = _perft.merge_children(batch.boards, batch.offsets, per, kids, w, key)
    order = np.argsort(key[:u])
    return kids[order], w[order], total


def _plays_batch(boards, dice, threads):
    return plays_batch(boards, dice, threads=threads)


def _roll_counts(boards, threads, rolls=ROLLS) -> np.ndarray:
    """(N, R) int64: the number of plays of each position for each of *rolls* (default
    the 21), counted by the count-only core path (one thread: each board read once for
    all its rolls; with more, count_plays_batch shares the repeated boards out)."""
    n = boards.shape[0]
    if threads == 1:
        counts = np.empty((n, len(rolls)), dtype=np.int64)
        bad = _perft.count_rolls(np.ascontiguousarray(boards), rolls, counts)
        if bad >= 0:
            as_board(boards[bad])  # raises for the invalid board
        return counts

    counts = count_plays_batch(np.repeat(boards, len(rolls), axis=0), np.tile(rolls, (n, 1)), threads=threads)
    return counts.reshape(n, len(rolls))


def _last_level(boards, weights, roll_w, threads) -> int:
    return int((_roll_counts(boards, threads) * roll_w * weights[:, None]).sum())


def subtree_counts(boards, weights, levels: int, roll_w=_UNIT, threads: int = 1) -> list:
    """Weighted node counts at depths 1..*levels* below *boards* (each with the side on
    roll in row 1; a finished game must not be among them), as Python ints."""
    counts = [0] * levels
    if levels == 0:
        return counts
    for lo in range(0, boards.shape[0], BATCH):
        b, w = boards[lo : lo + BATCH], weights[lo : lo + BATCH]
        if levels == 1:
            counts[0] += _last_level(b, w, roll_w, threads)
            continue
        kids, kw, total = _expand(b, w, roll_w, threads)
        counts[0] += total
        for k, c in enumerate(subtree_counts(kids, kw, levels - 1, roll_w, threads)):
            counts[k + 1] += c
    return counts


def _task(blob, boards, weights):
    """A Dask task: the counts of one slice of the split frontier."""
    levels, roll_w = loads_cached(blob)
    t0 = time.perf_counter()
    with task_memory():
        counts = subtree_counts(boards, weights, levels, roll_w)
    return counts, time.perf_counter() - t0


class PerftRun:
    """The outcome of :func:`perft_run`: ``counts`` (depths 1..D, in units of the path
    weights), ``seconds`` (wall time, cluster start-up excluded), ``split_depth`` and
    ``tasks`` (0 in-process), ``task_seconds`` (their summed run time on the workers)."""

    def __init__(self, counts, seconds, split_depth, tasks, task_seconds, workers):
        self.counts = counts
        self.seconds = seconds
        self.split_depth = split_depth
        self.tasks = tasks
        self.task_seconds = task_seconds
        self.workers = workers

    def __repr__(self) -> str:
        return f"<PerftRun counts={self.counts} seconds={self.seconds:.3f} tasks={self.tasks}>"


def perft_run(
    board=STARTING_BOARD, depth: int = 1, *, weighted: bool = False, workers=None, scheduler=None,
    client=None, split_depth=None, tasks=None, threads: int = 1,
) -> PerftRun:
    """:func:`perft` (or, with *weighted*, the integer numerators of
    :func:`perft_weighted` over 36**k) with its timing and split.

    *split_depth*: the depth (1..D-1) down to which the tree is expanded (and identical
    positions merged) here before being cut into *tasks* Dask tasks. Default: as deep as
    the next level stays under about SPLIT_CHILDREN positions, and at least 64
    positions per worker. *tasks*: the number of contiguous slices of that frontier
    (at most one per position); default 8 per worker, or more so that no slice is longer
    than 4 * BATCH positions (a task walks its slice in batches of BATCH).
    """
    root = as_board(board)
    depth = check_int(depth, "depth", 1, 1000)  # bounded: a huge int would overflow an index
    threads = check_int(threads, "threads", 1)
    roll_w = _WEIGHTS if weighted else _UNIT
    on_cluster = any(v is not None for v in (workers, scheduler, client))
    if split_depth is not None:
        split_depth = check_int(split_depth, "split_depth", 1)
        if split_depth >= depth:
            raise ValueError(f"split_depth must be below depth {depth}, got {split_depth!r}")
    if tasks is not None:
        tasks = check_int(tasks, "tasks", 1)
    if not root[1].any() or not root[0].any():  # a finished game has no children
        return PerftRun([0] * depth, 0.0, 0, 0, 0.0, 0)
    boards, weights = root[None].copy(), np.ones(1, dtype=np.int64)
    if not on_cluster or depth == 1:
        t0 = time.perf_counter()
        counts = subtree_counts(boards, weights, depth, roll_w, threads)
        return PerftRun(counts, time.perf_counter() - t0, 0, 0, 0.0, 0)


    with connect(workers, scheduler, client) as c:
        n_workers = worker_count(c)
        t0 = time.perf_counter()
        counts = []
        level = 0
        while level < depth - 1 and (
            (split_depth is None and (boards.shape[0] < 64 * n_workers or boards.shape[0] * _FANOUT <= SPLIT_CHILDREN))
            or (split_depth is not None and level < split_depth)
        ):
            boards, weights, total = _expand_all(boards, weights, roll_w, threads)
            counts.append(total)
            level += 1
        n_tasks = tasks or max(8 * n_workers, -(-boards.shape[0] // (4 * BATCH)))
        # tasks that expand a level are cut at equal numbers of children (estimated by a
        # cheap count of the next level for one roll in three, while the workers wait),
        # so that no task is much longer than the others at the end
        cost = None
        if depth - level >= 2 and n_tasks < boards.shape[0]:
            cost = _roll_counts(boards, threads, _COST_ROLLS).sum(axis=1)
        parts = _split(boards, weights, n_tasks, cost)
        n_tasks = len(parts)
        rest = [0] * (depth - level)
        task_seconds = 0.0
        if n_tasks:
            blob = dumps_checked((depth - level, roll_w), "the perft job")
            for _, (sub, secs) in as_finished(c, _task, blob, parts, f"fastgen-perft-{time.time_ns()}"):
                rest = [a + b for a, b in zip(rest, sub)]
                task_seconds += secs
        seconds = time.perf_counter() - t0
    return PerftRun(counts + rest, seconds, level, n_tasks, task_seconds, n_workers)


def _split(boards, weights, n_tasks, cost=None):
    """The frontier cut into min(n_tasks, len) contiguous, non-empty slices: of near-equal
    length, or with *cost* (one non-negative number per position) of near-equal cost.

    The frontier comes out of :func:`_merge` sorted by board bytes, so neighbours are
    similar positions whose children overlap: contiguous slices keep them in one task,
    whose batches of BATCH positions merge them as the in-process walk does. Interleaved slices measured about 1.5x more work (depth 4
    from ``bJ3BATDgc/ABYA``: 30.8 s of tasks against 20.5 s)."""
    n = boards.shape[0]
    n_tasks = min(n, n_tasks)
    if n_tasks == 0:
        return []
    if cost is None or n_tasks < 2:
        cuts = [i * n // n_tasks for i in range(n_tasks + 1)]
    else:
        cum = np.cumsum(np.asarray(cost, dtype=np.float64) + 1.0)  # +1: a slice never costs 0
        inner = np.searchsorted(cum, cum[-1] * np.arange(1, n_tasks) / n_tasks, side="right")
        cuts = [0]
        for i, c in enumerate(inner.tolist(), start=1):  # every slice at least one position
            cuts.append(min(max(c, cuts[-1] + 1), n - (n_tasks - i)))
        cuts.append(n)
    return [(boards[a:b], weights[a:b]) for a, b in zip(cuts, cuts[1:])]


def _expand_all(boards, weights, roll_w, threads):
    """One level of the whole frontier (in batches), merged across batches."""
    kids, kws, total = [], [], 0
    for lo in range(0, boards.shape[0], BATCH):
        k, w, t = _expand(boards[lo : lo + BATCH], weights[lo : lo + BATCH], roll_w, threads)
        kids.append(k)
        kws.append(w)
        total += t
    if not kids:  # an empty frontier: every game ended at the level above
        return boards, weights, 0
    k, w = _merge(np.concatenate(kids), np.concatenate(kws))
    return k, w, total


def perft(
    board: Any, depth: int, *, workers: Optional[int] = None, scheduler: Optional[str] = None,
    client: Any = None, threads: int = 1,
) -> List[int]:
    """Number of nodes at depths 1..*depth* of the game tree below *board* (side on roll
    in row 1): see the module docstring. Runs in this process, or on Dask with *workers*
    (a new local cluster of that many processes), *scheduler* (an address) or *client*.

    >>> perft(STARTING_BOARD, 2)
    [447, 202782]
    """
    return perft_run(board, depth, workers=workers, scheduler=scheduler, client=client, threads=threads).counts


def perft_weighted(
    board: Any, depth: int, *, workers: Optional[int] = None, scheduler: Optional[str] = None,
    client: Any = None, threads: int = 1,
) -> List[float]:
    """Expected number of nodes at depths 1..*depth* when the dice are rolled: every path
    weighs the product of its rolls' probabilities (doubles 1/36, other rolls 2/36).

    >>> [round(x, 4) for x in perft_weighted(STARTING_BOARD, 1)]
    [17.6944]
    """
    run = perft_run(board, depth, weighted=True, workers=workers, scheduler=scheduler, client=client, threads=threads)
    return [c / 36**k for k, c in enumerate(run.counts, start=1)]
