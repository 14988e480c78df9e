"""Child process of tests/test_interrupt.py: runs long calls that the parent interrupts.

Protocol, one line per event on stdout:
  READY                           set-up done
  START <case> <full_seconds>     the call starts now; it would take about full_seconds
                                  (timed on a small slice and scaled up)
  INTERRUPTED <case> <seconds>    KeyboardInterrupt arrived after that long in the call
  FINISHED <case> <seconds>       the call ran to its end (a failure for the parent)
  HEALTHY <case>                  afterwards: no thread left, same results as before
  UNHEALTHY <case> <reason>
"""

from __future__ import annotations

import gc
import signal
import sys
import threading
import time

import numpy as np

import fastgen
from fastgen.sim.rollout.front import rollout
from fastgen.cli.workload import vector_workload
from fastgen.players import evaluators

VB, VD = vector_workload()  # 42,000 positions
REPEAT = 150  # 6.3M positions
BIG_B = np.ascontiguousarray(np.tile(VB, (REPEAT, 1, 1)))
BIG_D = np.ascontiguousarray(np.tile(VD, (REPEAT, 1)))
# Counting is fast: count one of its slowest cases instead (1-1 with 190 plays, bearing
# off), as many times as take about 2.5 s here (at least 2M, at most 8M: 400 MB).
SLICE = 40_000
_HEAVY_ONE = fastgen.parse_position_id("//MAAIB220EAAg")


def _heavy(n):
    return np.ascontiguousarray(np.broadcast_to(_HEAVY_ONE, (n, 2, 25))), np.ones((n, 2), dtype=np.int8)


def _slice_seconds():
    b, d = _heavy(SLICE)
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        fastgen.count_plays_batch(b, d)
        best = min(best, time.perf_counter() - t0)
    return best


HEAVY = SLICE * min(200, max(50, int(2.5 / max(_slice_seconds(), 1e-6))))
NET = evaluators.baseline()  # the compiled network: its threads run parts of each call
HEAVY_B, HEAVY_D = _heavy(HEAVY)


def vm_size_kib() -> int:
    """Address space of this process (Linux), 0 elsewhere."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def user_policy(candidates, offsets):
    """A pure-Python user policy: the last play of every game."""
    return [int(offsets[i + 1] - offsets[i] - 1) for i in range(len(offsets) - 1)]


def decide(trials, threads):
    """A decision rollout, whose Ctrl-C ends it with the trials finished (its table says
    so): raised again here, as the other calls raise it."""
    table = fastgen.rollout_plays(fastgen.STARTING_BOARD, (3, 1), NET, plays=2, trials=trials, threads=threads)
    if table.interrupted:
        raise KeyboardInterrupt
    return table


OPENING_31 = fastgen.swap_sides(fastgen.legal_plays(fastgen.STARTING_BOARD, (3, 1))[0].board_after)

PASSES = 5  # chunks are dropped as they come, so several passes cost no memory


def iterate(threads):
    total = 0
    for _ in range(PASSES):
        for _, batch in fastgen.iter_plays_batch(BIG_B, BIG_D, chunk_size=65536, threads=threads):
            total += len(batch.boards)
    return total


# case -> (the long call, a small slice of it, how many slices make the long call)
CASES = {
    "rollout-native-1": (lambda: rollout(games=1_000_000, threads=1), lambda: rollout(games=2000, threads=1), 500),
    "rollout-native-2": (lambda: rollout(games=1_000_000, threads=2), lambda: rollout(games=4000, threads=2), 250),
    "plays_batch-1": (lambda: fastgen.plays_batch(BIG_B, BIG_D), lambda: fastgen.plays_batch(VB, VD), REPEAT),
    "plays_batch-2": (
        lambda: fastgen.plays_batch(BIG_B, BIG_D, threads=2),
        lambda: fastgen.plays_batch(VB, VD, threads=2),
        REPEAT,
    ),
    "plays_batch-3": (  # more threads than the mapped path takes: per-thread parts
        lambda: fastgen.plays_batch(BIG_B, BIG_D, threads=3),
        lambda: fastgen.plays_batch(VB, VD, threads=3),
        REPEAT,
    ),
    "count_plays_batch-1": (
        lambda: fastgen.count_plays_batch(HEAVY_B, HEAVY_D),
        lambda: fastgen.count_plays_batch(HEAVY_B[:SLICE], HEAVY_D[:SLICE]),
        HEAVY // SLICE,
    ),
    "count_plays_batch-2": (
        lambda: fastgen.count_plays_batch(HEAVY_B, HEAVY_D, threads=2),
        lambda: fastgen.count_plays_batch(HEAVY_B[:SLICE], HEAVY_D[:SLICE], threads=2),
        HEAVY // SLICE,
    ),
    "iter_plays_batch-1": (lambda: iterate(1), lambda: fastgen.plays_batch(VB, VD), REPEAT * PASSES),
    "iter_plays_batch-2": (lambda: iterate(2), lambda: fastgen.plays_batch(VB, VD, threads=2), REPEAT * PASSES),
    "rollout-python-1": (
        lambda: rollout(games=200_000, engine="python"),
        lambda: rollout(games=2000, engine="python"),
        100,
    ),
    "rollout-python-2": (
        lambda: rollout(games=200_000, engine="python", batch_size=65536, threads=2),
        lambda: rollout(games=2000, engine="python", batch_size=65536, threads=2),
        100,
    ),
    "rollout-user-policy": (
        lambda: rollout(games=100_000, policy=user_policy),
        lambda: rollout(games=500, policy=user_policy),
        200,
    ),
    "rollout-pubeval-2": (
        lambda: rollout(games=100_000, policy="pubeval", threads=2, engine="python"),
        lambda: rollout(games=500, policy="pubeval", threads=2, engine="python"),
        200,
    ),
    "rollout-native-pubeval-2": (
        lambda: rollout(games=1_000_000, policy="pubeval", threads=2),
        lambda: rollout(games=2000, policy="pubeval", threads=2),
        500,
    ),
    "pubeval_best-1": (lambda: fastgen.pubeval_best(BIG_B, BIG_D), lambda: fastgen.pubeval_best(VB, VD), REPEAT),
    "network-1": (lambda: NET.evaluate(BIG_B), lambda: NET.evaluate(VB), REPEAT),
    "network-2": (  # the calling thread runs one part, a new thread the other
        lambda: NET.evaluate(BIG_B, threads=2),
        lambda: NET.evaluate(VB, threads=2),
        REPEAT,
    ),
    "decision-2": (lambda: decide(36_000, 2), lambda: decide(72, 2), 500),  # trials in groups side by side
    # gnubg's nets at 1 ply (run when the parent finds their weights): a few hundred 0-ply
    # evaluations a position, 4 positions between two checks a thread
    "gnubg-1-ply-2": (lambda: gnubg_1().evaluate(VB, threads=2), lambda: gnubg_1().evaluate(VB[:200], threads=2), 210),
    # at 2 and 3 plies a position is milliseconds to seconds: worker threads poll a stop
    # flag before each roll at every ply while the calling thread waits for the signal
    "gnubg-2-ply-2": (lambda: gnubg_at(2).evaluate(VB[:4000], threads=2),
                      lambda: gnubg_at(2).evaluate(VB[:20], threads=2), 200),
    "gnubg-3-ply-1": (lambda: gnubg_at(3).evaluate(VB[:40]), lambda: gnubg_at(2).evaluate(VB[:2]), 8000),
    # fastgen's network the same way (its compiled look ahead, fastgen.nets.lookahead)
    "network-2-ply-2": (lambda: NET.at_ply(2).evaluate(VB[:4000], threads=2),
                        lambda: NET.at_ply(2).evaluate(VB[:20], threads=2), 200),
    "network-3-ply-1": (lambda: NET.at_ply(3).evaluate(VB[:40]), lambda: NET.at_ply(2).evaluate(VB[:2]), 8000),
    "cubeful-2": (
        lambda: fastgen.rollout_cube(OPENING_31, NET, trials=50_000, threads=2),
        lambda: fastgen.rollout_cube(OPENING_31, NET, trials=100, threads=2),
        500,
    ),
}


def gnubg_1():
    return gnubg_at(1)


def gnubg_at(plies):
    from fastgen.nets import gnubg

    return gnubg.load().at_ply(plies)


def reference():
    """Results the process must still compute identically after every interrupt."""
    small_b, small_d = VB[:20000], VD[:20000]
    batch1 = fastgen.plays_batch(small_b, small_d)
    batch2 = fastgen.plays_batch(small_b, small_d, threads=2)
    batch3 = fastgen.plays_batch(small_b, small_d, threads=3)
    r = rollout(games=300, seed=5, threads=2)
    rp = rollout(games=100, seed=5, engine="python")
    return {
        "counts1": fastgen.count_plays_batch(VB, VD).tolist(),
        "counts2": fastgen.count_plays_batch(VB, VD, threads=2).tolist(),
        "offsets": [b.offsets.tolist() for b in (batch1, batch2, batch3)],
        "boards": [b.boards.tobytes() for b in (batch1, batch2, batch3)],
        "moves": [b.moves.tobytes() for b in (batch1, batch2, batch3)],
        "rollout": (r.winner.tolist(), r.result.tolist(), r.turns.tolist()),
        "rollout-python": (rp.winner.tolist(), rp.result.tolist(), rp.turns.tolist()),
    }


def reuse_works() -> bool:
    """Output memory of a finished batch is reused by the next (the same address, once
    the spares kept so far are released)."""
    b, d = VB[:20000], VD[:20000]
    fastgen.release_memory()
    first = fastgen.plays_batch(b, d)
    address = first.boards.__array_interface__["data"][0]
    del first
    gc.collect()
    second = fastgen.plays_batch(b, d)
    return second.boards.__array_interface__["data"][0] == address


def say(*words):
    print(*words, flush=True)


def main(names):
    # A process started in the background by a shell without job control inherits SIGINT
    # ignored (POSIX), and Python then leaves it so: Ctrl-C's own handler, as a terminal
    # session has it, whatever started the tests.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    ref = reference()
    reuse_before = reuse_works()
    fastgen.release_memory()
    gc.collect()
    vm_before = vm_size_kib()
    say("READY")
    for name in names:
        long_call, small_call, scale = CASES[name]
        t = time.perf_counter()
        small_call()
        full = (time.perf_counter() - t) * scale
        say("START", name, f"{full:.3f}")
        t = time.perf_counter()
        try:
            long_call()
        except KeyboardInterrupt:
            say("INTERRUPTED", name, f"{time.perf_counter() - t:.3f}")
        else:
            say("FINISHED", name, f"{time.perf_counter() - t:.3f}")
            continue
        problems = []
        if threading.active_count() != 1:
            problems.append(f"threads left running: {[t.name for t in threading.enumerate()]}")
        if reference() != ref:
            problems.append("results differ from before the interrupt")
        if reuse_works() != reuse_before:
            problems.append("output memory is no longer reused")
        fastgen.release_memory()
        gc.collect()
        grown = vm_size_kib() - vm_before
        if grown > 1 << 20:  # a leaked output reservation is tens of GB
            problems.append(f"address space grew by {grown} KiB")
        if problems:
            say("UNHEALTHY", name, "; ".join(problems))
        else:
            say("HEALTHY", name)


if __name__ == "__main__":
    main(sys.argv[1:])
