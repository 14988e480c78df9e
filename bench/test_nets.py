"""Compiled networks against numpy, in one run, on one core.

    OPENBLAS_NUM_THREADS=1 nice python -m pytest bench/test_nets.py -s

Every figure is a ratio to a baseline timed in the same run: numpy's network
(:class:`fastgen.players.evaluators.ReferenceNetwork`, the numpy reference: fastgen's
encoder, numpy float32 matrix products and sigmoids, the best way a user calls numpy) with the same weights, on the same
10,000 positions of random play (contact, bar, race, bear-off), warm memory (each call
timed after a first one). ``OPENBLAS_NUM_THREADS=1`` keeps numpy on one core, as the
compiled network is. Reported (``benchmark.extra_info`` and printed):

* ``test_batch``: microseconds a position, compiled and numpy, and their ratio, for
  198-40-5, 198-128-5 and 250-128-5 networks, and the compiled network's first-layer
  reads a position (one row of the hidden width per non-empty count);
* ``test_candidates``: the greedy choice over each position's candidate plays (first
  layers updated from the game's first candidate) against the batch path over the same
  candidates plus numpy's argmax;
* ``test_threads``: two threads against one on a batch of 400,000 positions (the outputs
  are identical) and of 40,000, with the best loops, then with each instruction set's;
* ``test_parts``: the kernel in a plain C program (``bench/mlp_parts.c``, built here with
  the package's flags), on the same positions: the whole batch path, the first layer
  alone and the later layers alone, in ns a position, at 40 and 128 hidden units; and the
  floor of this design: the first layer's rows read at the rate the kernel's own loop
  reads the table in order, plus the later layers;
* ``test_greedy_games``: ``fastgen.rollout(policy=net)``, whole greedy games of a 198-40-5
  network inside the core, against ``fastgen.rollout(policy="pubeval")`` in games per
  second. The network plays sensible games (taught GNU Backgammon's 0-ply evaluations:
  bench/data/SOURCE.md): random weights play games of hundreds of turns.

Nothing is asserted: the machine is shared, and its speed varies through the day.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

import fastgen
from fastgen.players import evaluators
from fastgen.nets import Network, _forward

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
from _positions import random_play_positions  # noqa: E402
from _timing import best_of  # noqa: E402


def _positions(n=10000, seed=3):
    allb = random_play_positions(games=300, plies=120, seed=seed)
    rng = np.random.default_rng(seed + 1)
    return np.ascontiguousarray(allb[rng.permutation(len(allb))[:n]])


POSITIONS = _positions()
#: The first layer's rows a position (its non-empty counts and borne-off counts): what the
#: compiled network reads from its table, whatever the input width.
ROWS_PER_POSITION = float(((POSITIONS != 0).sum(axis=(1, 2)) + (POSITIONS.sum(axis=2) < 15).sum(axis=1)).mean())


def _pair(inputs, hidden, seed=1):
    width = sum(fastgen.core.features.SCHEMES[s] for s in inputs)
    rng = np.random.default_rng(seed)
    w1, b1 = rng.normal(0, 1 / np.sqrt(width), (width, hidden)).astype(np.float32), np.zeros(hidden, np.float32)
    w2, b2 = rng.normal(0, 0.3, (hidden, 5)).astype(np.float32), np.zeros(5, np.float32)
    return Network([w1, w2], [b1, b2], inputs=inputs), evaluators.ReferenceNetwork(w1, b1, w2, b2, inputs)


@pytest.mark.benchmark(group="nets")
@pytest.mark.parametrize("inputs, hidden", [(("tesauro198",), 40), (("tesauro198",), 128), (("tesauro198", "raw"), 128)])
def test_batch(benchmark, inputs, hidden):
    compiled, numpy_net = _pair(inputs, hidden)
    n = len(POSITIONS)
    c = benchmark.pedantic(lambda: best_of(lambda: compiled(POSITIONS)), rounds=1, iterations=1) / n * 1e6
    p = best_of(lambda: numpy_net(POSITIONS)) / n * 1e6
    name = "-".join(map(str, compiled.sizes))
    rows = ROWS_PER_POSITION
    kib = rows * (-(-hidden // 16) * 16) * 4 / 1024
    benchmark.extra_info.update(network=name, compiled_us=c, numpy_us=p, ratio=p / c, first_layer_rows=rows,
                                first_layer_kib=kib)
    print(f"\n{name}: compiled {c:.3f} us/position, numpy {p:.3f} us/position: {p / c:.1f}x "
          f"(first layer: {rows:.1f} rows, {kib:.2f} KiB read a position)")


@pytest.mark.benchmark(group="nets")
def test_candidates(benchmark):
    compiled, numpy_net = _pair(("tesauro198",), 128)
    rng = np.random.default_rng(5)
    r = fastgen.plays_batch(POSITIONS[:3000], rng.integers(1, 7, size=(3000, 2)))
    cand, offsets = r.boards, r.offsets
    flipped = np.ascontiguousarray(cand[:, ::-1])
    inc = benchmark.pedantic(lambda: best_of(lambda: compiled.choose(cand, offsets)), rounds=1, iterations=1)
    batch = best_of(lambda: evaluators.group_best(-evaluators.equity(compiled(flipped)), offsets))
    numpy_t = best_of(lambda: numpy_net.choose(cand, offsets))
    m = len(cand)
    own, delta = _candidate_rows(cand, offsets)
    benchmark.extra_info.update(candidates=m, incremental_us=inc / m * 1e6, batch_us=batch / m * 1e6,
                                numpy_us=numpy_t / m * 1e6, rows_own=own, rows_delta=delta)
    print(f"\n{m:,} candidates of 3,000 positions: incremental {inc / m * 1e6:.3f} us each, batch path "
          f"{batch / m * 1e6:.3f} ({batch / inc:.1f}x), numpy {numpy_t / m * 1e6:.3f} ({numpy_t / inc:.1f}x); "
          f"first layer: {own:.1f} rows of its own, {delta:.1f} updated from the first candidate")


def _candidate_rows(cand, offsets):
    """The first layer's rows a candidate: its own (non-empty counts and borne-off counts),
    and those of the update from its game's first candidate (rows that leave and rows
    that enter, the first candidates excluded): the mean of each."""
    c = cand.astype(np.int16)
    own = ((c != 0).sum(axis=(1, 2)) + (c.sum(axis=2) < 15).sum(axis=1)).mean()
    first = c[np.repeat(offsets[:-1], np.diff(offsets))]
    differ = c != first
    moved = (differ & (first != 0)).sum(axis=(1, 2)) + (differ & (c != 0)).sum(axis=(1, 2))
    off_first, off_own = first.sum(axis=2), c.sum(axis=2)
    changed = off_first != off_own
    moved = moved + (changed & (off_first < 15)).sum(axis=1) + (changed & (off_own < 15)).sum(axis=1)
    later = np.ones(len(c), dtype=bool)
    later[offsets[:-1]] = False
    return float(own), float(moved[later].mean())


@pytest.mark.benchmark(group="nets")
def test_threads(benchmark):
    compiled, _ = _pair(("tesauro198", "raw"), 128)
    big = np.concatenate([POSITIONS] * 40)
    one = best_of(lambda: compiled(big), 3)
    two = benchmark.pedantic(lambda: best_of(lambda: compiled(big, threads=2), 3), rounds=1, iterations=1)
    same = bool(np.array_equal(compiled(big), compiled(big, threads=2)))
    benchmark.extra_info.update(one_thread_s=one, two_threads_s=two, speedup=one / two, identical=same)
    print(f"\n{len(big):,} positions: one thread {one * 1e3:.1f} ms, two {two * 1e3:.1f} ms: {one / two:.2f}x, "
          f"identical outputs: {same}")
    small = big[: len(big) // 10]
    one, two = best_of(lambda: compiled(small)), best_of(lambda: compiled(small, threads=2))
    benchmark.extra_info["speedup_small"] = one / two
    print(f"  {len(small):,} positions: one thread {one * 1e3:.1f} ms, two {two * 1e3:.1f} ms: {one / two:.2f}x")
    # each instruction set the CPU has: plain C, AVX2, AVX-512
    best = _forward.select_kernels()
    try:
        for level in range(best + 1):
            _forward.select_kernels(level)
            one, two = best_of(lambda: compiled(big), 3), best_of(lambda: compiled(big, threads=2), 3)
            benchmark.extra_info[f"speedup_level_{level}"] = one / two
            print(f"  {('plain C', 'AVX2', 'AVX-512')[level]} loops, {len(big):,} positions: one thread "
                  f"{one * 1e3:.1f} ms, two {two * 1e3:.1f} ms: {one / two:.2f}x")
    finally:
        _forward.select_kernels()


@pytest.mark.benchmark(group="nets")
def test_greedy_games(benchmark):
    net = Network.load(os.path.join(os.path.dirname(__file__), "data", "distilled-198-40-5.npz"))
    games = 4000
    pub = best_of(lambda: fastgen.rollout(games=games, policy="pubeval", seed=1), reps=3)
    mine = benchmark.pedantic(lambda: best_of(lambda: fastgen.rollout(games=games, policy=net, seed=1), reps=3),
                              rounds=1, iterations=1)
    turns_net = float(fastgen.rollout(games=games, policy=net, seed=1).turns.mean())
    turns_pub = float(fastgen.rollout(games=games, policy="pubeval", seed=1).turns.mean())
    benchmark.extra_info.update(network_games_per_s=games / mine, pubeval_games_per_s=games / pub, ratio=pub / mine,
                                network_turns=turns_net, pubeval_turns=turns_pub)
    print(f"\n{games:,} greedy games of a 198-40-5 network: {games / mine:,.0f} games/s ({turns_net:.1f} turns a "
          f"game); pubeval {games / pub:,.0f} games/s ({turns_pub:.1f} turns): {100 * pub / mine:.0f}% of pubeval's rate")


@pytest.mark.benchmark(group="nets")
def test_parts(benchmark, tmp_path):
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler on PATH (set CC) to build bench/mlp_parts.c")
    here = os.path.dirname(os.path.abspath(__file__))
    program = str(tmp_path / "mlp_parts")
    subprocess.run([cc, "-O3", "-ffp-contract=off", "-DNDEBUG", "-I", os.path.join(here, "..", "fastgen", "nets"),
                    "-I", os.path.join(here, "..", "fastgen", "core"), os.path.join(here, "mlp_parts.c"), "-o", program],
                   check=True)
    boards = str(tmp_path / "positions.bin")
    POSITIONS.tofile(boards)
    def run(hidden):
        return subprocess.run([program, boards, str(len(POSITIONS)), str(hidden), "50"], check=True,
                              capture_output=True, text=True).stdout.strip()

    lines = benchmark.pedantic(lambda: [run(40), run(128)], rounds=1, iterations=1)
    print()
    for hidden, line in zip((40, 128), lines):
        words = line.split()
        whole, rows, rest, read = (float(words[words.index(k) + 1]) for k in ("whole", "rows", "rest", "read"))
        kib = ROWS_PER_POSITION * (-(-hidden // 16) * 16) * 4 / 1024
        floor = kib * read + rest  # the rows read at the table's best rate, then the later layers
        benchmark.extra_info[f"hidden_{hidden}"] = {"whole_ns": whole, "rows_ns": rows, "rest_ns": rest,
                                                    "read_ns_per_kib": read, "floor_ns": floor}
        print(f"{hidden} hidden units (instruction set {words[1]}): whole {whole:.1f} ns a position; the first "
              f"layer alone {rows:.1f} ns ({ROWS_PER_POSITION:.1f} rows, {kib:.2f} KiB; the table read in order "
              f"costs {read:.2f} ns a KiB), the later layers alone {rest:.1f} ns; floor {floor:.1f} ns")
