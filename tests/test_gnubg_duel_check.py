"""The play check of GNU Backgammon's compiled nets against gnubg-nn's own player: a
mirrored cubeless duel of ``gnubg:0`` (fastgen's compiled nets, greedy: every play valued
at 0 ply, ties to the first in fastgen's order) against ``gnubg-nn:0`` (gnubg-nn's
``best_move`` at 0 ply, one Python call a turn), the same weights (gnubg-nn's 1.01).

Each mirrored pair plays the same dice with the seats swapped, so two players that choose
the same play every turn score the same in both games of every pair, and the duel comes
out at exactly 0.000. 20,000 games (``python -c "import fastgen;
print(fastgen.duel('gnubg:0', 'gnubg-nn:0', 20000, seed=2026))"``, 40 s here): every one of
the 10,000 pairs scored the same over 1,108,982 turns, so the two never chose plays of
different value where it changed a game. CI plays 2,000 games; a pair may differ only
where the two players split an exact tie differently (the greedy player's turn-by-turn
check in tests/test_gnubg_nets.py counts them), at most 1% of the pairs, and the
points a game must be 0 within three standard errors of the pairs. Skipped, with the
reason shown, when gnubg-nn or a weights file is missing (CI installs both).
"""

from __future__ import annotations

import numpy as np
import pytest

import fastgen
from fastgen.errors import GnubgWeightsNotFoundError
from fastgen.nets import gnubg

pytest.importorskip("gnubg_nn", reason="gnubg-nn not installed: pip install '.[peers]'")

GAMES = 2000


def test_a_mirrored_duel_against_gnubg_nn_s_player_comes_out_even():
    try:
        gnubg.load()
    except GnubgWeightsNotFoundError as exc:
        pytest.skip(f"no GNU Backgammon weights found: {exc}")
    r = fastgen.duel("gnubg:0", "gnubg-nn:0", GAMES, seed=2026)
    assert r.mirrored and r.games == GAMES
    pairs = r.points.reshape(-1, 2).sum(axis=1)
    differ = int(np.count_nonzero(pairs))
    print(f"\n{r.games} games, {r.total_turns:,} turns: {differ} of {r.pairs} mirrored pairs scored differently; "
          f"{r.ppg:+.4f} points a game")
    assert differ <= 0.01 * r.pairs
    se = r.ppg_se if differ else 0.0
    assert abs(r.ppg) <= 3 * se + 1e-12
