"""Throughput measurements behind ``fastgen bench``.

Every figure is a median over repeated runs of the same workload in one process, with
the baselines (the reference oracle on a sample, GNU Backgammon's generator through the
optional ``gnubg-nn`` package when installed) timed in the same run.

Both sides are timed the same way: inputs are converted before the timer starts, and each
row says what happens to the results. In the ``dropped`` rows every result is dropped as
a user's loop would drop it (``gnubg_nn.moves`` results one by one, each ``plays_batch``
batch before the next run, so the next batch reuses its memory). In the ``kept`` rows
every result stays alive until all runs are over, on both sides, so every batch writes
memory the process has never touched (the kernel hands out and zeroes fresh pages, which
costs far more per byte than writing pages already in use). Ratios compare rows of the
same kind.
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from dataclasses import asdict, dataclass, field

import numpy as np

from fastgen._version import __version__
from fastgen.core.generate import count_plays_batch, legal_plays, plays_batch, release_memory
from fastgen.cli.workload import random_game_positions, vector_workload
from fastgen import reference

__all__ = ["Timing", "environment", "page_costs", "run_benchmarks", "GNUBG", "GNUBG_KEPT"]

GNUBG = "gnubg_nn.moves loop"
GNUBG_KEPT = "gnubg_nn.moves loop, results kept"


@dataclass
class Timing:
    """Seconds per position over repeated runs (min / median / max) of one generator.

    ``results`` is ``"dropped"`` (each result dropped before the next call or run) or
    ``"kept"`` (every result of every run alive until the timing ends).
    """

    name: str
    positions: int
    plays: int
    seconds: list = field(default_factory=list)
    results: str = "dropped"

    @property
    def per_position(self) -> dict:
        per = [s / self.positions for s in self.seconds]
        return {"min": min(per), "median": statistics.median(per), "max": max(per)}

    def as_dict(self) -> dict:
        d = asdict(self)
        d["per_position"] = self.per_position
        d["positions_per_s"] = 1.0 / self.per_position["median"]
        d["plays_per_s"] = self.plays / self.positions / self.per_position["median"]
        return d


def environment() -> dict:
    """CPU, core count, Python, numpy and fastgen versions of this run."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "fastgen": __version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "cpu": cpu,
        "cores": os.cpu_count(),
        "platform": platform.platform(),
    }


def page_costs(nbytes: int = 64 << 20) -> dict:
    """Microseconds per 4 KiB page to write memory the process has just been given
    (first touch: the kernel faults each page in and zeroes it) and to write the same
    memory again: why a batch that cannot reuse earlier memory costs more."""
    buf = np.empty(nbytes, dtype=np.uint8)
    t0 = time.perf_counter()
    buf.fill(1)
    t1 = time.perf_counter()
    buf.fill(2)
    t2 = time.perf_counter()
    pages = nbytes / 4096
    return {"first_touch_us_per_page": (t1 - t0) / pages * 1e6, "rewrite_us_per_page": (t2 - t1) / pages * 1e6}


def _time(fn, repeat: int, warmup: int = 1) -> list:
    """Seconds of each of *repeat* timed runs of fn, after *warmup* untimed ones (as
    pytest-benchmark warms up): first runs pay for cold caches, lazily filled tables and
    memory not yet reused, and would pull the median up."""
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


WORKLOADS = {
    "vectors": "shared vectors, 2,000 positions x 21 rolls",
    "random": "20,000 positions from random self-play (seed 1) with random dice",
}


def run_benchmarks(
    repeat: int = 5, oracle_sample: int = 420, threads: int = 2, progress=None, workload: str = "vectors"
) -> dict:
    """Time every generator on a workload (see WORKLOADS); returns a JSON-ready dict."""
    if workload not in WORKLOADS:
        raise ValueError(f"workload must be one of {sorted(WORKLOADS)}, got {workload!r}")
    boards, dice = vector_workload() if workload == "vectors" else random_game_positions(20_000, seed=1)
    n = boards.shape[0]
    plays = int(plays_batch(boards, dice).offsets[-1])
    dice_list = [(int(a), int(b)) for a, b in dice]
    pairs = list(zip(boards, dice_list))
    timings = []
    kept: list[object] = []  # results of the "kept" rows, alive until their timing is over

    def add(name, fn, positions=n, total=plays, rep=repeat, results="dropped", warmup=1):
        timings.append(Timing(name, positions, total, _time(fn, rep, warmup), results))
        kept.clear()
        release_memory()  # no row inherits memory another row kept for reuse
        if progress:
            progress(name)

    # Each row runs once untimed first (add's warm-up): the "dropped" rows then measure
    # reused memory; in the "kept" rows the warm-up's result is kept too, so every timed
    # run still writes fresh memory.
    add("plays_batch", lambda: plays_batch(boards, dice))
    add("plays_batch, batches kept", lambda: kept.append(plays_batch(boards, dice)), results="kept")
    add(f"plays_batch threads={threads}", lambda: plays_batch(boards, dice, threads=threads))
    add("count_plays_batch", lambda: count_plays_batch(boards, dice))

    def legal_loop():
        for b, d in pairs:
            legal_plays(b, d)

    add("legal_plays loop", legal_loop)

    # The oracle is ~1000x slower: time it on an evenly spread sample.

    idx = np.linspace(0, n - 1, min(oracle_sample, n)).astype(int)
    sample_plays = int(np.diff(plays_batch(boards[idx], dice[idx]).offsets).sum())

    def oracle_loop():
        for i in idx:
            reference.legal_plays(boards[i], dice_list[i])

    # warmed up on its sample's first positions only: a full untimed run would cost seconds
    for i in idx[:20]:
        reference.legal_plays(boards[i], dice_list[i])
    add("reference oracle (sample)", oracle_loop, positions=len(idx), total=sample_plays,
        rep=max(1, min(repeat, 3)), warmup=0)

    try:
        import gnubg_nn  # lazy: the peers extra, only for the gnubg baseline
    except ImportError:
        gnubg_nn = None
    if gnubg_nn is not None:
        # gnubg-nn takes nested lists: converted before the timer, like fastgen's arrays.
        items = [(b.tolist(), d[0], d[1]) for b, d in zip(boards, dice_list)]
        moves = gnubg_nn.moves

        def gnubg_loop():
            for b, d1, d2 in items:
                moves(b, d1, d2)

        add(GNUBG, gnubg_loop)
        add(GNUBG_KEPT, lambda: kept.append([moves(b, d1, d2) for b, d1, d2 in items]), results="kept")

    by_name = {t.name: t.per_position["median"] for t in timings}
    ratios = {}
    oracle = "reference oracle (sample)"
    baselines = (oracle, GNUBG, GNUBG_KEPT)
    ratios[oracle] = {t.name: by_name[oracle] / by_name[t.name] for t in timings if t.name not in baselines}
    # gnubg: rows whose results are dropped against its dropped loop, kept against kept.
    for base, kind in ((GNUBG, "dropped"), (GNUBG_KEPT, "kept")):
        if base in by_name:
            ratios[base] = {
                t.name: by_name[base] / by_name[t.name]
                for t in timings
                if t.name not in baselines and t.results == kind
            }
    return {
        "environment": environment(),
        "memory": page_costs(),
        "workload": {"name": workload, "description": WORKLOADS[workload], "positions": n, "plays": plays, "repeat": repeat},
        "timings": [t.as_dict() for t in timings],
        "speedup_vs": ratios,
    }
