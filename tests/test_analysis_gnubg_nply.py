"""fastgen's match analysis at 2 plies (``analyse(..., "gnubg:2")``) against the gnubg 1.07
program's ``analyse match`` at 2 plies, with the program's weights.

fastgen looks 2 plies ahead as the program's analysis does: each roll's plays valued at 0
ply, up to 16 within 0.32 of the best and the play made valued 2 plies ahead by a
cubeful search (the cube carried down, each side's cube action at each ply:
:func:`fastgen.cube.lookahead.two_ply_batch`), the cube decisions by the same search,
the luck at 0 ply, each reply inside the search chosen among the plays the pruning nets
rank best. The program runs its default analysis (tests/_gnubg_analysis.py: 2 plies,
pruning nets on).

On the 7-point example match (111 unforced chequer decisions, 57 cube decisions),
measured: the same best play on 97.3%, the error within 0.01 on all, the luck within
0.02 on all; each player's chequer error rate within 0.1% of the program's; the no
double equity within 1e-4 on all cube decisions but one (1.3e-3), double/take within
1e-4 on 55 of 57 (2.8e-3 at most) and the same proper action on all. The bars below
are a little under these. Skipped, with the reason shown, when the program or its weights are absent (CI
installs both).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from fastgen.analysis import analyse

import _gnubg_analysis as G

WEIGHTS = "/usr/lib/gnubg/gnubg.wd"
MATCH = Path(__file__).resolve().parent.parent / "docs" / "_data" / "example-7pt.mat"

pytestmark = pytest.mark.skipif(G.available() is not None or not os.path.isfile(WEIGHTS),
                                reason=f"the GNU Backgammon program or its weights ({WEIGHTS}) are not installed: "
                                       "apt-get install gnubg")


@pytest.fixture(scope="module")
def both():
    from fastgen.nets import gnubg

    nets = gnubg.load(WEIGHTS)
    return G.analyse_file(MATCH, plies=2), analyse(MATCH, nets.at_ply(2), threads=2)


def test_2_ply_chequer_play_and_luck_equal_the_program_s(both):
    theirs, ours = both
    assert ours.plies == 2
    comparison = G.compare([theirs], [ours])
    figures = G.agreement(comparison)
    print(f"\n2-ply analysis of {MATCH.name} against gnubg's ({theirs['seconds']:.1f} s; fastgen "
          f"{ours.seconds:.1f} s with two threads): {figures}")
    assert figures["decisions"] > 100
    assert figures["same_best"] >= 0.95 and figures["error_within_0.01"] >= 0.98
    assert figures["luck_within_0.02"] >= 0.99
    for row in comparison["players"]:
        for key in ("chequer_error_rate_memg", "luck_rate_memg"):
            program, fastgen_ = row[key]
            assert abs(fastgen_ - program) <= 0.02 * abs(program) + 0.05, (row["player"], key, program, fastgen_)


def test_2_ply_cube_decisions_equal_the_program_s(both):
    theirs, ours = both
    program = [m["cube"] for m in theirs["moves"] if m["cube"] is not None]
    mine = [d for d in ours.decisions if d.kind != "move"]
    assert len(program) == len(mine) > 40
    nd = np.array([abs(abs(p["no_double"]) - abs(m.no_double)) for p, m in zip(program, mine)])
    dt = np.array([abs(abs(p["double_take"]) - abs(m.double_take)) for p, m in zip(program, mine)])
    same = np.mean([p["proper"] == m.proper.value for p, m in zip(program, mine)])
    print(f"\n{len(mine)} cube decisions: no double within 1e-4 on {(nd <= 1e-4).mean():.1%} (largest "
          f"{nd.max():.1e}), double/take within 1e-4 on {(dt <= 1e-4).mean():.1%} and within 1e-3 on "
          f"{(dt <= 1e-3).mean():.1%} (largest {dt.max():.1e}), "
          f"the same proper action on {same:.1%}")
    assert (nd <= 1e-4).mean() >= 0.95 and nd.max() <= 0.01 and same >= 0.95
    assert (dt <= 1e-3).mean() >= 0.9 and dt.max() <= 0.01


#: Matches of the corpus analysed by both at 2 plies (made by fastgen's noisy players:
#: tests/_gnubg_analysis.py make_corpus, lengths 1, 3, 5, 7, 9 in turn). CI analyses 4 (to
#: 7 points, some two minutes in all); ``FASTGEN_NPLY_MATCHES=12 python -m pytest
#: tests/test_analysis_gnubg_nply.py -s -k corpus`` the larger corpus the figures below
#: come from.
CORPUS = int(os.environ.get("FASTGEN_NPLY_MATCHES", "4"))
CORPUS_SEED = 20261205


def test_2_ply_error_and_luck_rates_of_a_corpus_equal_the_program_s(tmp_path):
    """Each player's overall error rate, chequer error rate and luck rate (mEMG) over a
    corpus of matches, fastgen's ``gnubg:2`` against the program's default analysis:
    within 2% of the program's (plus 0.2 mEMG, a tenth of a decision's rounding) for
    every player of every match. Measured on 12 matches (24 players, 1,102 unforced
    chequer decisions): the same best play on 98.6%, every error within 0.01 and every
    luck value within 0.02; the rates at most 0.25% (errors) and 1.1% (luck) apart."""
    from fastgen.nets import gnubg

    paths = G.make_corpus(tmp_path, n=CORPUS, seed=CORPUS_SEED)
    theirs = G.gnubg_analyse(paths, processes=2, plies=2)
    ours = analyse(paths, gnubg.load(WEIGHTS).at_ply(2), threads=2)
    comparison = G.compare(theirs, ours)
    worst: dict[str, float] = {}
    for row in comparison["players"]:
        for key in ("error_rate_memg", "chequer_error_rate_memg", "luck_rate_memg"):
            program, fastgen_ = row[key]
            rel = abs(fastgen_ - program) / max(abs(program), 1e-9)
            worst[key] = max(worst.get(key, 0.0), rel)
            assert abs(fastgen_ - program) <= 0.02 * abs(program) + 0.2, (row["file"], row["player"], key, program,
                                                                         fastgen_)
    figures = G.agreement(comparison)
    print(f"\n{len(paths)} matches, {len(comparison['players'])} players at 2 plies: {figures}; the largest "
          f"relative differences: " + ", ".join(f"{k} {v:.2%}" for k, v in worst.items()))
    assert figures["same_best"] >= 0.95 and figures["error_within_0.01"] >= 0.97
