"""Training throughput: the compiled TD(lambda) trainer (fastgen.train.td) against the
numpy TD(lambda) example (examples/td_bot.py, batched self-play over a pool of 256
games, numpy's BLAS for the matrix products: the way its users run it at its best),
same hidden width (128), timed in the same run.

Both start from random weights and play the same kind of games (greedy self-play from
the opening, a gradient step per afterstate). Their games differ in length (random
weights play long games), so the figure compared is afterstates per second (each one a
chosen play, its evaluation and its gradient step); games per second are printed too.
Memory is warm: each side runs once untimed first.

    pytest bench/test_train.py -s
"""

from __future__ import annotations

import importlib.util
import statistics
import time
from pathlib import Path

import pytest

from fastgen.train import TDConfig, td

HIDDEN = 128
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "td_bot.py"


def _example():
    spec = importlib.util.spec_from_file_location("td_bot_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _compiled(games: int, threads: int) -> tuple[float, int, int]:
    """(seconds, games, afterstates) of the compiled trainer."""
    seen = {}

    def progress(info):
        seen.update(info)

    cfg = TDConfig(hidden=HIDDEN, games=games, threads=threads, sync=500, eval_every=games, eval_games=0, seed=1)
    t0 = time.perf_counter()
    run = td(cfg, progress=progress)
    seconds = time.perf_counter() - t0
    return seconds, run.games, int(seen["afterstates"])


def _numpy(games: int) -> tuple[float, int, int]:
    ex = _example()
    net = ex.untrained(HIDDEN, seed=1)
    t0 = time.perf_counter()
    g, states = ex.self_play(net, 3600.0, seed=1, max_games=games)
    return time.perf_counter() - t0, g, states


@pytest.mark.benchmark(group="train")
def test_training_throughput_against_numpy_example():
    """Afterstates per second, compiled (one and two threads) over the numpy example;
    medians of three rounds, interleaved."""
    _compiled(500, 1)
    _numpy(200)
    rates: dict[str, list[float]] = {"numpy": [], "compiled-1": [], "compiled-2": []}
    games: dict[str, list[float]] = {k: [] for k in rates}
    for _ in range(3):
        s, g, a = _numpy(800)
        rates["numpy"].append(a / s)
        games["numpy"].append(g / s)
        for threads in (1, 2):
            s, g, a = _compiled(8000, threads)
            rates[f"compiled-{threads}"].append(a / s)
            games[f"compiled-{threads}"].append(g / s)
    med = {k: statistics.median(v) for k, v in rates.items()}
    for k in rates:
        print(f"{k:<12} {med[k]:>12,.0f} afterstates/s {statistics.median(games[k]):>10,.0f} games/s")
    for threads in (1, 2):
        print(f"compiled, {threads} thread(s), over numpy: {med[f'compiled-{threads}'] / med['numpy']:.1f}x")
    assert med["compiled-2"] > med["numpy"]
