"""Training throughput: the compiled TD(lambda) trainer (fastgen.train.td_lambda) against the
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


def _compiled(games: int, threads: int, contact: bool = True) -> tuple[float, int, int]:
    """(seconds, games, afterstates) of the compiled trainer."""
    seen = {}

    def progress(info):
        seen.update(info)

    cfg = TDConfig(hidden=HIDDEN, games=games, threads=threads, sync=500, eval_every=games, eval_games=0, seed=1,
                   contact=contact)
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
    """Afterstates per second of the compiled trainer (one and two threads; Tesauro's
    inputs as the example has them, and with the contact features as fastgen trains by
    default) over the numpy example's; medians of three rounds, interleaved."""
    _compiled(500, 1)
    _numpy(200)
    names = ["numpy"] + [f"compiled{'+contact' if c else ''}-{t}" for c in (False, True) for t in (1, 2)]
    rates: dict[str, list[float]] = {k: [] for k in names}
    games: dict[str, list[float]] = {k: [] for k in names}
    for _ in range(3):
        s, g, a = _numpy(800)
        rates["numpy"].append(a / s)
        games["numpy"].append(g / s)
        for contact in (False, True):
            for threads in (1, 2):
                s, g, a = _compiled(8000, threads, contact)
                key = f"compiled{'+contact' if contact else ''}-{threads}"
                rates[key].append(a / s)
                games[key].append(g / s)
    med = {k: statistics.median(v) for k, v in rates.items()}
    for k in names:
        ratio = med[k] / med["numpy"]
        print(f"{k:<20} {med[k]:>12,.0f} afterstates/s {statistics.median(games[k]):>10,.0f} games/s {ratio:>6.1f}x")
    assert med["compiled-2"] > med["numpy"]
