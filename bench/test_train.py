"""Training throughput: the compiled TD(lambda) trainer (fastgen.train.td_lambda) against the
numpy TD(lambda) example (examples/td_bot.py, batched self-play over a pool of 256
games, numpy's BLAS for the matrix products: the way its users run it at its best),
same hidden width (128), timed in the same run.

Both start from random weights and play the same kind of games (greedy self-play from
the opening, a gradient step per afterstate). Their games differ in length (random
weights play long games), so the figure compared is afterstates per second (each one a
chosen play, its evaluation and its gradient step); games per second are printed too.
Memory is warm: each side runs once untimed first. The numpy example runs in a child
process of its own, so the threads of numpy's BLAS (which spin for a while after each
matrix product) never share the cores with the compiled trainer's threads, and each side
runs as it would alone.

    pytest bench/test_train.py -s
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fastgen.train import TDConfig, td

HIDDEN = 128
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "td_bot.py"


#: the child process: the example's self-play timed after its imports, rounds on stdin
_CHILD = """
import importlib.util, json, sys, time
spec = importlib.util.spec_from_file_location("td_bot_example", sys.argv[1])
ex = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ex)
for line in sys.stdin:
    games = int(line)
    net = ex.untrained(int(sys.argv[2]), seed=1)
    t0 = time.perf_counter()
    g, states = ex.self_play(net, 3600.0, seed=1, max_games=games)
    print(json.dumps([time.perf_counter() - t0, g, states]), flush=True)
"""


class _NumpyChild:
    """The numpy example in a child process, one round a request."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", _CHILD, str(EXAMPLE), str(HIDDEN)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)

    def run(self, games: int) -> tuple[float, int, int]:
        """(seconds, games, afterstates) of one round of *games* games."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"{games}\n")
        self.proc.stdin.flush()
        seconds, g, states = json.loads(self.proc.stdout.readline())
        return seconds, g, states

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


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


@pytest.mark.benchmark(group="train")
def test_training_throughput_against_numpy_example():
    """Afterstates per second of the compiled trainer (one and two threads; Tesauro's
    inputs as the example has them, and with the contact features as fastgen trains by
    default) over the numpy example's; medians of three rounds, interleaved."""
    child = _NumpyChild()
    _compiled(500, 1)
    child.run(200)
    names = ["numpy"] + [f"compiled{'+contact' if c else ''}-{t}" for c in (False, True) for t in (1, 2)]
    rates: dict[str, list[float]] = {k: [] for k in names}
    games: dict[str, list[float]] = {k: [] for k in names}
    for _ in range(3):
        s, g, a = child.run(800)
        rates["numpy"].append(a / s)
        games["numpy"].append(g / s)
        for contact in (False, True):
            for threads in (1, 2):
                s, g, a = _compiled(8000, threads, contact)
                key = f"compiled{'+contact' if contact else ''}-{threads}"
                rates[key].append(a / s)
                games[key].append(g / s)
    child.close()
    med = {k: statistics.median(v) for k, v in rates.items()}
    for k in names:
        ratio = med[k] / med["numpy"]
        print(f"{k:<20} {med[k]:>12,.0f} afterstates/s {statistics.median(games[k]):>10,.0f} games/s {ratio:>6.1f}x")
    assert med["compiled-2"] > med["numpy"]
