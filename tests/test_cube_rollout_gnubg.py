"""Cubeful rollouts against the real GNU Backgammon's own cubeful rollouts.

Needs Debian's ``gnubg`` (1.07; another binary with ``FASTGEN_GNUBG=/path``) and gnubg-nn
(the ``peers`` extra) for fastgen's side; CI installs both, and without them the module
is skipped, saying so. ``tests/_gnubg_cube_rollout.py`` drives the program: ``hint``,
``analyse rollout cube`` and ``hint`` again, with 0-ply cubeful chequer play and cube
decisions for both sides, variance reduction, quasi-random dice, no truncation, seed 1.

Four positions (money: the opening position, a gammonish blitz, a race of 71 against 78
pips; the opening position at 2-4 in a 7-point match): gnubg rolls out 216 trials,
fastgen 216 trials with ``evaluators.gnubg(0)`` (GNU Backgammon's nets compiled) for its
plays and cube decisions, with its variance reduction, as the program's. For no double
and double/take the two must agree within three combined standard errors plus an
allowance for what differs on purpose: the program's rollout plays by cubeful equity
while fastgen's players play by cubeless equity and decide the cube by the 0-ply
formula; the allowance is 0.05 per cube in money play and 1 percentage point of MWC in
the match, a fraction of the decisions' margins here. With 1,296 trials each
(``python bench/compare_gnubg_cube.py``; the table is in docs/guides/cube.rst) every
difference was within 2 combined standard errors without it. The proper action must be
the same.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor

import pytest

GNUBG = os.environ.get("FASTGEN_GNUBG", "/usr/games/gnubg")
if not os.path.exists(GNUBG):
    pytest.skip(f"GNU Backgammon is not installed ({GNUBG} not found; apt-get install gnubg)",
                allow_module_level=True)
pytest.importorskip("gnubg_nn", reason="gnubg-nn not installed: pip install '.[peers]'")

from fastgen.players import evaluators  # noqa: E402
from fastgen.core.ids import parse_gnubg_id  # noqa: E402
from fastgen.sim.decide.cubeful import rollout_cube  # noqa: E402

CASES = [
    ("4HPwATDgc/ABMA", "cAkAAAAAAAAE"),   # the opening position, money
    ("4O3gAUTYnYMBMA", "cAkAAAAAAAAE"),   # a blitz, the opponent on the bar, money
    ("ttuxAAC2uzMAAA", "cAkAAAAAAAAE"),   # a race, 71 against 78 pips, money
    ("4HPwATDgc/ABMA", "cAngACAAIAAE"),   # the opening position, 7-point match, 3-away against 5-away
]
ALLOWANCE = {"money": 0.05, "match": 0.01}


@pytest.fixture(scope="module")
def program():
    from _gnubg_cube_rollout import cube_rollout

    with ThreadPoolExecutor(2) as pool:  # one gnubg process a core
        return list(pool.map(lambda c: cube_rollout(c[0], c[1], trials=216, seed=1, gnubg=GNUBG), CASES))


@pytest.mark.parametrize("i", range(len(CASES)))
def test_cubeful_rollout_agrees_with_gnubgs(program, i):
    pid, mid = CASES[i]
    board, state = parse_gnubg_id(f"{pid}:{mid}")
    ours = rollout_cube(board, evaluators.gnubg(0), state, trials=216, seed=1, variance_reduction=True)
    theirs = program[i]
    assert ours.match == (theirs["units"] == "mwc_fraction")
    allowance = ALLOWANCE["match" if ours.match else "money"]
    for field in ("no_double", "double_take"):
        se = math.hypot(getattr(ours, f"{field}_se"), theirs[f"{field}_se"])
        diff = abs(getattr(ours, field) - theirs[field])
        assert diff <= 3 * se + allowance, (pid, mid, field, getattr(ours, field), theirs[field], se)
    assert ours.double_pass == pytest.approx(theirs["double_pass"], abs=1e-5)
    assert ours.action.value == theirs["action"], (pid, mid, ours, theirs["raw"])
