"""Cube decisions against the real GNU Backgammon: its own printed numbers reproduced.

Needs Debian's ``gnubg`` (1.07; another binary with ``FASTGEN_GNUBG=/path``); CI installs
it, and without it the module is skipped, saying so.

A corpus is built live by ``tests/_gnubg_cube_cases.py`` on this run's seed: positions
from fastgen games of several styles (openings, middle games, blitzes, races, bear-offs),
picked so that every kind of decision is present, each asked at 28 cube and score
states (money with the cube centred, owned by either side at 2 and 4, with and without
the Jacoby rule and beavers; a 7-point match at 0-0, 2-4, 4-2, 5-5, Crawford and
post-Crawford scores and owned cubes; a 5-point match at six scores), with gnubg
player 0 or 1 on roll at random. gnubg answers ``hint`` at 0-ply before the roll with
its probabilities printed to 5 decimals, and the harness checks that gnubg showed the
board and state meant.

The checks, on every case:

- feeding gnubg's printed probabilities to :func:`fastgen.cube.cube_decisions` gives
  its printed cubeful values within 0.001 (money, per cube) and 0.05 percentage points
  (match MWC): the probabilities are rounded to 5 decimals, which moves the values by a
  few 1e-5 at most, so the margins are well above rounding and well below any formula
  difference (a wrong cube life moves them by 0.01 or more);
- the same proper action on at least 99.5% of the cases; every difference must be a
  near-tie, the deciding difference within 5e-5 of zero (what 5-decimal probabilities
  cannot decide), and is listed in the failure message if not;
- "You cannot double" exactly where gnubg refuses the analysis.

Bear-offs of at most six checkers a side are answered by gnubg from its two-sided
database; the checks give fastgen's own build of that database (6 points, 6 checkers,
cubeful), so those cases are held to the same margins.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from _gnubg_cube_cases import fastgen_state
from fastgen.bearoff import build_two_sided
from fastgen.cube import cube_decisions

GNUBG = os.environ.get("FASTGEN_GNUBG", "/usr/games/gnubg")
if not os.path.exists(GNUBG):
    pytest.skip(f"GNU Backgammon is not installed ({GNUBG} not found; apt-get install gnubg)",
                allow_module_level=True)

#: Positions in the live corpus (28 states each).
POSITIONS = 50
SEED = 20261202


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    import _gnubg_cube_cases

    out = tmp_path_factory.mktemp("cube") / "cases.json"
    rc = _gnubg_cube_cases.main(["--out", str(out), "--positions", str(POSITIONS), "--seed", str(SEED),
                                 "--jobs", "2", "--gnubg", GNUBG])
    assert rc == 0, "the corpus harness reported failed cases"
    return json.loads(out.read_text())


def _decide(case: dict, db, probs=None):
    board = np.array(case["board"], dtype=np.int8)[None]
    return cube_decisions(board, [case["probs"] if probs is None else probs], fastgen_state(case["state"]),
                          beavers=case["state"].get("beavers", True), database=db).decision(0)


def _deciding_gap(d) -> float:
    """How far the closest comparison of the decision is from a tie (normalised equity)."""
    nd, dt, dp = d.equities
    return float(min(abs(nd - dt), abs(nd - dp), abs(dt - dp), abs(dt + 2.0), abs(dt), abs(2 * dt - nd)))


def test_the_corpus_is_large_and_varied(corpus):
    decisions = [c for c in corpus if c["can_double"]]
    assert len(corpus) >= 1000 and len(decisions) >= 1000
    kinds = {c["state"]["match_length"] for c in corpus}
    assert kinds == {0, 5, 7}
    actions = {c["action"] for c in decisions}
    for needed in ("No double, take", "Double, take", "Double, pass", "Too good to double, pass", "Redouble, take",
                   "No redouble, take", "No double, beaver"):
        assert needed in actions, (needed, sorted(actions))
    classes = {c["eval"]["evaluator"] for c in corpus}
    assert {"Contact", "Race", "Bearoff1", "Bearoff2"} <= classes, classes


def test_printed_probabilities_give_gnubgs_cubeful_values_and_actions(corpus):
    db = build_two_sided(6, 6)
    far, differ = [], []
    for case in corpus:
        d = _decide(case, db)
        if not case["can_double"]:
            if d.action.value != "You cannot double":
                far.append((case["case"], case["kind"], "cannot double", d.action.value))
            continue
        money = not case["state"]["match_length"]
        scale, margin = (1.0, 0.001) if money else (100.0, 0.05)
        for field in ("no_double", "double_take", "double_pass"):
            if abs(getattr(d, field) * scale - case[field]) > margin:
                far.append((case["case"], case["kind"], field, getattr(d, field) * scale, case[field]))
        if d.action.value != case["action"]:
            differ.append((case["case"], case["kind"], case["action"], d.action.value, _deciding_gap(d)))
        elif [label for label, *_ in d.ranked] != case["cubeful_order"]:  # the hint's order of the three lines
            far.append((case["case"], case["kind"], "order", [label for label, *_ in d.ranked], case["cubeful_order"]))
    assert not far, far[:20]
    n = sum(c["can_double"] for c in corpus)
    assert len(differ) <= 0.005 * n, differ
    assert all(gap < 5e-5 for *_, gap in differ), differ


def test_gnubg_nn_probabilities_give_the_same_actions(corpus):
    """With gnubg-nn's own 0-ply evaluation instead of the printed probabilities (the
    nets' versions differ from the program's), the action agrees on at least 97%."""
    pytest.importorskip("gnubg_nn", reason="gnubg-nn not installed: pip install '.[peers]'")
    from fastgen.players import evaluators

    ev = evaluators.gnubg(0)
    db = build_two_sided(6, 6)
    cases = [c for c in corpus if c["can_double"]]
    boards = np.array([c["board"] for c in cases], dtype=np.int8)
    probs = np.asarray(ev(boards), dtype=np.float64)
    same = sum(_decide(c, db, p).action.value == c["action"] for c, p in zip(cases, probs))
    assert same >= 0.97 * len(cases), (same, len(cases))
