"""Throughput measurements behind ``fastgen bench``.

Every figure is a median over repeated runs of the same workload in one process, with
the baselines (the reference oracle on a sample, GNU Backgammon's generator through the
optional ``gnubg-nn`` package when installed) timed in the same run.
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from dataclasses import asdict, dataclass, field

import numpy as np

from fastgen._version import __version__
from fastgen.generate import count_plays_batch, legal_plays, plays_batch
from fastgen.workload import random_game_positions, vector_workload

__all__ = ["Timing", "environment", "run_benchmarks"]


@dataclass
class Timing:
    """Seconds per position over repeated runs (min / median / max) of one generator."""

    name: str
    positions: int
    plays: int
    seconds: list = field(default_factory=list)

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


def _time(fn, repeat: int) -> list:
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
    timings = []

    def add(name, fn, positions=n, total=plays, rep=repeat):
        timings.append(Timing(name, positions, total, _time(fn, rep)))
        if progress:
            progress(name)

    add("plays_batch", lambda: plays_batch(boards, dice))
    add(f"plays_batch threads={threads}", lambda: plays_batch(boards, dice, threads=threads))
    add("count_plays_batch", lambda: count_plays_batch(boards, dice))
    add("legal_plays loop", lambda: [legal_plays(b, d) for b, d in zip(boards, dice_list)])

    # The oracle is ~1000x slower: time it on an evenly spread sample.
    from fastgen import reference

    idx = np.linspace(0, n - 1, min(oracle_sample, n)).astype(int)
    sample_plays = int(np.diff(plays_batch(boards[idx], dice[idx]).offsets).sum())
    add(
        "reference oracle (sample)",
        lambda: [reference.legal_plays(boards[i], dice_list[i]) for i in idx],
        positions=len(idx),
        total=sample_plays,
        rep=max(1, min(repeat, 3)),
    )

    try:
        import gnubg_nn
    except ImportError:
        gnubg_nn = None
    if gnubg_nn is not None:
        lists = [b.tolist() for b in boards]
        add("gnubg_nn.moves loop", lambda: [gnubg_nn.moves(b, d[0], d[1]) for b, d in zip(lists, dice_list)])

    by_name = {t.name: t.per_position["median"] for t in timings}
    ratios = {}
    baselines = ("reference oracle (sample)", "gnubg_nn.moves loop")
    for base in baselines:
        if base in by_name:
            ratios[base] = {t.name: by_name[base] / by_name[t.name] for t in timings if t.name not in baselines}
    return {
        "environment": environment(),
        "workload": {"name": workload, "description": WORKLOADS[workload], "positions": n, "plays": plays, "repeat": repeat},
        "timings": [t.as_dict() for t in timings],
        "speedup_vs": ratios,
    }
