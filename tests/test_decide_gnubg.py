"""Rollouts that decide with GNU Backgammon's nets (gnubg-nn) and against the program itself.

* variance reduction pays: with ``evaluators.gnubg(0)`` the variance-reduced equity's
  standard error is at most 1/4 of the raw one, on the best play of each of the 15
  opening rolls and on 10 middle-game positions;
* pairing pays: on plain outcomes the paired ``diff_se`` is below the unpaired
  ``sqrt(se_a**2 + se_b**2)`` (with variance reduction it was not: see the test);
* against Debian's gnubg: its ``rollout`` command (0 ply, cubeless, variance reduction,
  quasi-random dice; tests/_gnubg_rollout.py) and fastgen agree within 3 combined SE
  (plus 0.0005 for each of gnubg's printed figures, which have 3 decimals).

gnubg-nn evaluates about 40,000 positions a second here, and a variance-reduced trial
evaluates ~420 per half-move, so CI runs truncated rollouts (the trial stops after a few
half-moves and is scored by the net: the same luck adjustment, the same unbiasedness,
cheaper). ``FASTGEN_LONG=1`` runs full-length games instead (tens of minutes); the full
comparison with gnubg (5 positions, top 2 candidates, 1,296 gnubg trials) is
``bench/compare_gnubg.py`` and its table is in docs/guides/decide.rst.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import fastgen
from fastgen.players import evaluators as ev
from fastgen.sim.decide import front as D

gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg-nn not installed: pip install '.[peers]'")

from _gnubg_rollout import available, gnubg_rollout  # noqa: E402

LONG = os.environ.get("FASTGEN_LONG") == "1"
TRUNCATE = None if LONG else 6
#: Variance reduction: the openings are checked on trials truncated at 12 half-moves
#: (ratios 0.08-0.18 with 36 trials; full games cost minutes), the middle games, which
#: end sooner, on full games. Truncated trials of a middle game can say less: the raw
#: variance builds up with the depth (mLctBgA3vMAALA gave 0.26 truncated at 12 and 0.28 at
#: 20 half-moves, but 0.16 and 0.14 in full games of 36 and 72 trials).
TRUNCATE_OPENINGS = None if LONG else 12
TRUNCATE_MIDDLE = None
START = fastgen.STARTING_BOARD

#: Middle-game positions (side on roll about to roll): greedy gnubg(0) self-play from the
#: opening with random dice (numpy default_rng(7)), 8..17 half-moves in.
MIDDLE_GAMES = [
    "4OvIEwDg24YDBA", "czYPADDg54MJEA", "zTrgAQZw68HBAA", "mM/BQQKYc3DAUA", "NN/NAAC0XiMBAw",
    "bK1EwAaK5xwHAA", "mLctBgA3vMAALA", "2N0OBgBt2wAAJw", "bJ7BBAMst8EMIA", "zdoKOAAx7wYHAA",
]


@pytest.fixture(scope="module")
def gnubg0():
    return ev.gnubg(0)


def _se(x):
    return x.std(axis=1, ddof=1) / np.sqrt(x.shape[1])


def test_variance_reduction_pays_with_gnubg_nets(gnubg0):
    # Starts: the position after the 0-ply best play of each opening roll (the opponent
    # on roll), then the middle games (their side on roll is the row player).
    openings = []
    for a in range(1, 7):
        for b in range(1, a):
            legal = fastgen.legal_plays(START, (a, b))
            best = int(np.argmax(ev.equity(ev.afterstate_probs(gnubg0, legal.boards))))
            openings.append(fastgen.swap_sides(legal.boards[best]))
    trials = np.arange(72 if LONG else 36, dtype=np.int64)
    kw = dict(seed=3, variance_reduction=True, quasi_random=True)
    raw, est = D.simulate(np.stack(openings), False, gnubg0, trials, truncate=TRUNCATE_OPENINGS, **kw)
    middle = np.stack([fastgen.parse_position_id(p) for p in MIDDLE_GAMES])
    raw2, est2 = D.simulate(middle, True, gnubg0, trials, truncate=TRUNCATE_MIDDLE, **kw)
    ratio = np.concatenate([_se(ev.equity(est)) / _se(ev.equity(raw)), _se(ev.equity(est2)) / _se(ev.equity(raw2))])
    assert ratio.shape == (25,)
    bad = {i: round(float(r), 3) for i, r in enumerate(ratio) if not r <= 0.25}
    assert not bad, (bad, ratio.round(3).tolist())


def test_pairing_pays(gnubg0):
    # Trial k throws the same dice for every candidate, so the luck they share cancels in
    # the paired difference. How much they share fades with the depth: on the opening 43
    # (top 2, 144 plain trials) the per-trial equities correlated 0.57 after one
    # half-move, 0.33 after 4, 0.20 after 10, 0.08 after 20. With variance reduction the
    # lookahead has already taken the shared luck out of each row: on the opening 62, top
    # 3, 36 full-length trials, the paired diff_se was 0.044 and 0.056 against 0.042 and
    # 0.049 unpaired. So pairing is checked on plain outcomes truncated at 4 half-moves.
    for dice in [(4, 3), (6, 2)]:
        t = fastgen.rollout_plays(START, dice, gnubg0, plays=3, trials=144, truncate=4, seed=1,
                                  variance_reduction=False)
        best = t.rows[0]
        for row in t.rows[1:]:
            unpaired = np.hypot(best.equity_se, row.equity_se)
            assert row.diff_se < unpaired, (dice, str(row.play), row.diff_se, unpaired)


def test_against_the_gnubg_program(gnubg0):
    why = available()
    if why:
        pytest.skip(why)
    trials = 1296 if LONG else 144
    truncate = None if LONG else 4
    cases = [("4HPwATDgc/ABMA", (3, 1)), ("4OvIEwDg24YDBA", (5, 1))]
    report = []
    for pid, dice in cases:
        board = fastgen.parse_position_id(pid)
        t = fastgen.rollout_plays(board, dice, gnubg0, plays=2, trials=trials if LONG else 324, truncate=truncate)
        for row in t.rows:
            after = fastgen.position_id(fastgen.swap_sides(row.play.board_after))
            g = gnubg_rollout(after, trials=trials, truncate=truncate, seed=5)
            assert g["position_id"] == after  # gnubg rolls out the position we meant
            theirs = -g["equity"]  # gnubg's figures are for the opponent, on roll
            margin = 3 * np.hypot(row.equity_se, g["equity_se"] + 0.0005) + 0.0005
            report.append((pid, dice, str(row.play), row.equity, row.equity_se, theirs, g["equity_se"]))
            assert abs(row.equity - theirs) <= margin, report[-1]
