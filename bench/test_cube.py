"""Cube decisions: fastgen's batch against GNU Backgammon's ``hint``, timed in the same run.

Run with ``pytest bench/test_cube.py`` (never part of the tests). fastgen decides
1,000,000 positions a round with :func:`fastgen.cube.cube_decisions` (warm memory: the
boards and probabilities are made before the timing; the money game with the cube
centred, and a 7-point match at 2-4), from random probabilities on positions of every
class (the classes' cube life is part of the work). The baseline is the program itself:
one ``gnubg -t -q`` process answering ``hint`` before the roll at 0-ply for 300
positions (its start, about a third of a second, included: it is how a user asks it),
per position. The printed ratio is gnubg's time per position over fastgen's.

Cubeful rollouts of the opening position's cube decision (money, seed 1, one core each):
fastgen's :func:`~fastgen.sim.decide.cubeful.rollout_cube` with the compiled baseline
(1,296 trials) against the program's ``analyse rollout cube`` at 0-ply (324 trials),
each with its variance reduction on (how they are used) and off; a "position" there is
a trial (both of its games). The summary prints each fastgen line against the
program's line with variance reduction on; compare the "off" lines in the table.
"""

import os
import subprocess
import sys

import numpy as np
import pytest

import fastgen
from fastgen.core.ids import match_id, position_id
from fastgen.core.state import MatchState
from fastgen.cube import cube_decisions
from fastgen.sim.decide.cubeful import rollout_cube

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

GNUBG = os.environ.get("FASTGEN_GNUBG", "/usr/games/gnubg")
N = 1_000_000


@pytest.fixture(scope="module")
def work(random_games):
    rng = np.random.default_rng(3)
    games = random_games[0]
    boards = games[rng.integers(0, len(games), N)]
    p = rng.uniform(0.02, 0.98, N)
    wg = p * rng.uniform(0, 0.4, N)
    lg = (1 - p) * rng.uniform(0, 0.4, N)
    probs = np.stack([p, wg, wg * 0.1, lg, lg * 0.1], axis=1)
    return np.ascontiguousarray(boards), probs


@pytest.mark.parametrize("kind", ["money", "match"])
def test_cube_decisions_fastgen(benchmark, work, kind):
    boards, probs = work
    state = None if kind == "money" else MatchState(match_length=7, score=(2, 4), on_roll=1)
    benchmark.group = f"cube decisions {kind}"
    benchmark.extra_info["positions"] = N
    out = benchmark.pedantic(cube_decisions, args=(boards, probs, state), rounds=3, iterations=1)
    assert len(out) == N and np.isfinite(out.no_double).all()


@pytest.mark.parametrize("kind", ["money", "match"])
def test_cube_decisions_gnubg_hint(benchmark, random_games, kind):
    if not os.path.exists(GNUBG):
        pytest.skip(f"GNU Backgammon is not installed ({GNUBG} not found; apt-get install gnubg)")
    state = MatchState() if kind == "money" else MatchState(match_length=7, score=(2, 4), on_roll=1)
    boards = random_games[0][:300]
    lines = ["set automatic roll off", "set evaluation cubedecision evaluation plies 0",
             "set evaluation chequerplay evaluation plies 0", "new session" if kind == "money" else "new match 7"]
    for b in boards:
        lines += [f"set gnubgid {position_id(b)}:{match_id(state)}", "hint"]
    script = "\n".join(lines) + "\nquit\ny\n"
    benchmark.group = f"cube decisions {kind}"
    benchmark.extra_info["positions"] = len(boards)

    def run():
        return subprocess.run([GNUBG, "-t", "-q"], input=script, capture_output=True, text=True, timeout=600)

    done = benchmark.pedantic(run, rounds=3, iterations=1)
    assert done.stdout.count("Proper cube action") + done.stderr.count("cannot double") >= 250


@pytest.mark.parametrize("varredn", ["on", "off"])
def test_cubeful_rollout_fastgen(benchmark, varredn):
    board = fastgen.parse_position_id("4HPwATDgc/ABMA")
    benchmark.group = "cubeful rollout"
    benchmark.extra_info["positions"] = 1296
    out = benchmark.pedantic(rollout_cube, args=(board, "baseline"),
                             kwargs={"trials": 1296, "seed": 1, "variance_reduction": varredn == "on"},
                             rounds=1, iterations=1)
    assert out.trials == 1296


@pytest.mark.parametrize("varredn", ["on", "off"])
def test_cubeful_rollout_gnubg_hint(benchmark, varredn):
    if not os.path.exists(GNUBG):
        pytest.skip(f"GNU Backgammon is not installed ({GNUBG} not found; apt-get install gnubg)")
    from _gnubg_cube_rollout import cube_rollout

    benchmark.group = "cubeful rollout"
    benchmark.extra_info["positions"] = 324
    out = benchmark.pedantic(cube_rollout, args=("4HPwATDgc/ABMA", "cAkAAAAAAAAE"),
                             kwargs={"trials": 324, "seed": 1, "gnubg": GNUBG, "variance_reduction": varredn == "on"},
                             rounds=1, iterations=1)
    assert out["trials_done"] == 324
