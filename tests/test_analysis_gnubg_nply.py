"""fastgen's match analysis at 2 plies (``analyse(..., "gnubg:2")``) against the gnubg 1.07
program's ``analyse match`` at 2 plies, with the program's weights.

fastgen looks 2 plies ahead as the program's analysis does: each roll's plays valued at 0
ply, up to 16 within 0.32 of the best and the play made valued 2 plies ahead (the plain
search of :class:`fastgen.nets.gnubg.GnubgLookahead`, the cubeful equity taken from the
2-ply probabilities), the cube decisions from 2-ply probabilities, the luck at 0 ply.
The program is run without its pruning nets (tests/_gnubg_analysis.py sets ``prune
off``), cubeful: inside its search each reply is chosen and valued with the cube, which
fastgen's search does not do yet, so the two differ a little.

On the 7-point example match (111 unforced chequer decisions): the same best play on
95.5%, the error within 0.01 on 94.6%, the luck within 0.02 on all; the bars below are a
little under these. Skipped, with the reason shown, when the program or its weights are
absent (CI installs both).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fastgen.analysis import analyse

import _gnubg_analysis as G

WEIGHTS = "/usr/lib/gnubg/gnubg.wd"
MATCH = Path(__file__).resolve().parent.parent / "docs" / "_data" / "example-7pt.mat"

pytestmark = pytest.mark.skipif(G.available() is not None or not os.path.isfile(WEIGHTS),
                                reason=f"the GNU Backgammon program or its weights ({WEIGHTS}) are not installed: "
                                       "apt-get install gnubg")


def test_2_ply_analysis_is_close_to_the_program_s():
    from fastgen.nets import gnubg

    nets = gnubg.load(WEIGHTS)
    theirs = G.analyse_file(MATCH, plies=2)
    ours = analyse(MATCH, nets.at_ply(2), threads=2)
    assert ours.plies == 2
    figures = G.agreement(G.compare([theirs], [ours]))
    print(f"\n2-ply analysis of {MATCH.name} against gnubg's ({theirs['seconds']:.1f} s; fastgen "
          f"{ours.seconds:.1f} s with two threads): {figures}")
    assert figures["decisions"] > 100
    assert figures["same_best"] >= 0.93 and figures["error_within_0.01"] >= 0.92
    assert figures["luck_within_0.02"] >= 0.99
