"""GNU Backgammon's nets 2 plies ahead: fastgen's compiled search against the gnubg 1.07
program, timed in the same run, the program's weights for both.

    OPENBLAS_NUM_THREADS=1 nice python -m pytest bench/test_search.py -s

Each comparison pairs like with like: fastgen's ``gnubg:2`` (its choices inside the
search pruned, as the program's default) against the program at its defaults (pruning
nets on, cubeful), and fastgen's unpruned search (``at_ply(2, prune=False)``) against
the program with its pruning nets off.

- ``test_hint_two_plies``: the 2-ply ``hint`` of 60 positions and rolls (contact and
  crashed positions from games of mixed strength, random rolls; money, cube centred):
  :func:`fastgen.hint` in one process, warm (the nets loaded before the timing), one
  thread and two, cubeful, against the program's ``hint`` at 2 plies, its start
  subtracted (one process for all 60), one thread (``set threads 1``); milliseconds a
  hint. Then the positions fastgen's full nets evaluate a hint (a run of its own,
  counted) and the share of the time spent evaluating them.
- ``test_cube_two_plies``: the 2-ply cube decision before the roll of the same 60
  positions (money, cube centred, the Jacoby rule): :func:`fastgen.cube.cube_action`,
  warm, one thread, against the program's ``hint`` before the roll at 2 plies, one
  thread; milliseconds a decision, and the positions the full nets evaluate a decision.
- ``test_analysis_two_plies``: the 7-point example match analysed at 2 plies, whole
  commands: ``fastgen analyse FILE --evaluator gnubg:2`` (one thread, two) against
  ``gnubg -t -q`` importing and analysing it at its default analysis (2 plies, pruning
  nets on, luck at 0 ply), one thread.

Nothing is asserted: the machine is shared, and its speed varies through the day.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

import fastgen
from fastgen.cube import cube_action
from fastgen.core.ids import match_id, position_id

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
from _gnubg_positions import self_play  # noqa: E402

GNUBG = os.environ.get("FASTGEN_GNUBG", "/usr/games/gnubg")
WEIGHTS = "/usr/lib/gnubg/gnubg.wd"
MATCH = Path(__file__).resolve().parents[1] / "docs" / "_data" / "example-7pt.mat"
CASES = 60

pytestmark = pytest.mark.skipif(not (shutil.which(GNUBG) and os.path.isfile(WEIGHTS)),
                                reason=f"needs the GNU Backgammon program ({GNUBG}) and its weights ({WEIGHTS})")


def _gnubg(lines: list[str]) -> float:
    """Seconds the program takes for *lines* (its start included), fresh settings."""
    with tempfile.TemporaryDirectory() as home:
        t = time.perf_counter()
        subprocess.run([GNUBG, "-t", "-q"], input="\n".join(lines + ["quit", "y", ""]), text=True,
                       capture_output=True, check=False, env=dict(os.environ, HOME=home, LANG="C", LC_ALL="C"))
        return time.perf_counter() - t


def _settings(prune: bool, what: str) -> list[str]:
    return [f"set {what} prune {'on' if prune else 'off'}", f"set {what} cubeful on"]


@pytest.fixture(scope="module")
def cases():
    from fastgen.nets import gnubg

    nets = gnubg.load(WEIGHTS)
    boards = self_play(8, 40, 0.3)
    rng = np.random.default_rng(8)
    rows = rng.choice(np.flatnonzero(nets.classify(boards) >= 3), CASES, replace=False)
    return nets, [(boards[i], tuple(int(x) for x in rng.integers(1, 7, 2))) for i in rows]


def _per_case_ms(call, todo) -> float:
    """Milliseconds a case of ``call(board, dice)`` over *todo*."""
    t = time.perf_counter()
    for b, d in todo:
        call(b, d)
    return (time.perf_counter() - t) / len(todo) * 1e3


def _program_ms(what: str, per_case: list[str], cases: int, prune: bool) -> float:
    """Milliseconds a case the program takes for *per_case* (its commands for all the
    cases) at 2 plies of its *what* evaluation (``chequerplay`` or ``cubedecision``), one
    thread, cubeful, its pruning nets on (its default) or off (*prune*); its start
    subtracted."""
    head = ["set player 0 human", "set player 1 human", "set threads 1", "set display off",
            f"set evaluation {what} evaluation plies 2"]
    start = _gnubg(head)
    return (_gnubg(head + _settings(prune, f"evaluation {what} evaluation") + per_case) - start) / cases * 1e3


#: The pairs timed: (label, fastgen's search pruned, the program's pruning nets on).
PAIRS = (("defaults (pruning on)", True), ("pruning off", False))


def _nodes(nets, run) -> tuple[int, float]:
    """(positions the nets evaluated, the share of the time in their evaluation) over a
    call of *run*, counted by wrapping the nets' ``evaluate`` (a run apart from the timed
    ones, since the counting costs a little)."""
    cls = type(nets)
    plain = cls.evaluate
    seen = [0, 0.0]

    def counted(self, boards, **kw):
        t = time.perf_counter()
        out = plain(self, boards, **kw)
        seen[0] += len(boards)
        seen[1] += time.perf_counter() - t
        return out

    cls.evaluate = counted
    try:
        t = time.perf_counter()
        run()
        total = time.perf_counter() - t
    finally:
        cls.evaluate = plain
    return int(seen[0]), seen[1] / total


def _timed_pairs(benchmark, nets, todo, call, what: str, script: list[str], threads: tuple[int, ...]) -> list:
    """Each of :data:`PAIRS` timed: fastgen's milliseconds a case of ``call(evaluator,
    board, dice, threads)`` at each of *threads*, warm (the pruned pair's first timed by
    *benchmark*); the program's (:func:`_program_ms` of its *what* evaluation with
    *script*); the positions the full nets evaluate a case and their share of the time.
    Rows of (label, fastgen's ms by thread count, the program's ms, positions, share)."""
    rows = []
    for label, prune in PAIRS:
        evaluator = nets.at_ply(2, prune=prune)
        call(evaluator, *todo[0], 1)

        def ours(t, evaluator=evaluator):
            return _per_case_ms(lambda b, d: call(evaluator, b, d, t), todo)

        first = benchmark.pedantic(lambda: ours(threads[0]), rounds=1, iterations=1) if prune else ours(threads[0])
        ms = [first] + [ours(t) for t in threads[1:]]
        theirs = _program_ms(what, script, len(todo), prune)
        nodes, share = _nodes(nets, lambda: ours(1))
        benchmark.extra_info[label] = dict(fastgen_ms=dict(zip(threads, ms)), gnubg_ms=theirs,
                                           positions_per_case=nodes / len(todo), evaluator_share=share)
        rows.append((label, ms, theirs, nodes / len(todo), share))
    return rows


@pytest.mark.benchmark(group="search")
def test_hint_two_plies(benchmark, cases):
    nets, todo = cases
    state = fastgen.MatchState(jacoby=True)
    script = [line for b, d in todo for line in (
        f"set gnubgid {position_id(b)}:{match_id(fastgen.MatchState(jacoby=True, dice=d))}", "hint")]
    rows = _timed_pairs(benchmark, nets, todo, lambda ev, b, d, t: fastgen.hint(b, d, ev, state, threads=t),
                        "chequerplay", script, (1, 2))
    print(f"\n2-ply hint, {len(todo)} positions and rolls, warm, cubeful:")
    for label, (one, two), theirs, nodes, share in rows:
        print(f"  {label}: fastgen {one:.1f} ms a hint, one thread, {two:.1f} with two; gnubg 1.07 "
              f"{theirs:.1f} ms, one thread ({theirs / one:.1f}x fastgen's one thread, {theirs / two:.1f}x "
              f"its two); {nodes:,.0f} positions through the full nets a hint, {share:.0%} of the time")


@pytest.mark.benchmark(group="search")
def test_cube_two_plies(benchmark, cases):
    nets, todo = cases
    state = fastgen.MatchState(jacoby=True)
    script = [line for b, _ in todo for line in (
        f"set gnubgid {position_id(b)}:{match_id(fastgen.MatchState(jacoby=True))}", "hint")]
    rows = _timed_pairs(benchmark, nets, todo, lambda ev, b, _, t: cube_action(b, evaluator=ev, state=state, threads=t),
                        "cubedecision", script, (1,))
    print(f"\n2-ply cube decision before the roll, {len(todo)} positions, warm, one thread:")
    for label, (one,), theirs, nodes, share in rows:
        print(f"  {label}: fastgen {one:.1f} ms a decision; gnubg 1.07 {theirs:.1f} ms ({theirs / one:.1f}x); "
              f"{nodes:,.0f} positions through the full nets a decision, {share:.0%} of the time")


@pytest.mark.benchmark(group="search")
def test_analysis_two_plies(benchmark, tmp_path):
    env = dict(os.environ, FASTGEN_GNUBG_WEIGHTS=WEIGHTS)

    def ours(threads):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "fastgen", "analyse", str(MATCH), "--evaluator", "gnubg:2",
                        "--threads", str(threads)], capture_output=True, check=True, cwd=tmp_path, env=env)
        return time.perf_counter() - t

    ours(1)  # bytecode and caches, untimed
    one = benchmark.pedantic(lambda: ours(1), rounds=1, iterations=1)
    two = ours(2)
    shutil.copy(MATCH, tmp_path / "match.mat")
    lines = ["set threads 1", "set display off"]
    for what in ("chequerplay evaluation", "cubedecision evaluation"):
        lines += [f"set analysis {what} plies 2", f"set analysis {what} prune on"]
    theirs = _gnubg(lines + [f"import mat {tmp_path / 'match.mat'}", "analyse match", "show statistics match"])
    benchmark.extra_info.update(fastgen_s=one, fastgen_2_threads_s=two, gnubg_s=theirs)
    print(f"\n2-ply analysis of the 7-point example match, whole commands: fastgen {one:.1f} s, one thread; "
          f"{two:.1f} s with two; gnubg 1.07 at its defaults (pruning on), one thread: {theirs:.1f} s "
          f"({theirs / one:.1f}x fastgen's one thread, {theirs / two:.1f}x its two)")
