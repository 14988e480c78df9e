"""examples/equity_loss.py: the equity each player gives away a move, judged by gnubg-nn
(the peers extra)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import fastgen

from _examples import load_example

pytest.importorskip("gnubg_nn", reason="needs the peers extra: pip install '.[peers]'")



def _example():
    return load_example("equity_loss")


def test_positions_are_non_forced_decisions_of_gnubg_games():
    boards, dice = _example().gnubg_positions(60, seed=2)
    assert boards.shape == (60, 2, 25) and dice.shape == (60, 2)
    fastgen.core.boards.as_boards(boards)
    assert all(len(fastgen.legal_plays(b, tuple(int(x) for x in d))) > 1 for b, d in zip(boards, dice))
    assert len({b.tobytes() for b in boards}) > 50  # spread over games, not one game's


def test_the_judge_s_own_level_loses_nothing_and_pubeval_most(tmp_path):
    """Judged by gnubg-nn at 0 ply, gnubg-nn at 0 ply picks the judge's best every time
    (loss exactly 0), and the others lose something. On 150 positions (seed 3) pubeval
    lost 35 millipoints a move (standard error 7) and the baseline 8.4 (1.7): the order is
    asserted, more than three standard errors apart."""
    out = tmp_path / "loss.json"
    assert _example().main(["--positions", "150", "--judge-plies", "0", "--seed", "3", "--json", str(out)]) == 0
    table = json.loads(out.read_text())["players"]
    assert table["gnubg-nn 0-ply"]["mean_loss_millipoints"] == 0 and table["gnubg-nn 0-ply"]["best_share"] == 1
    base, pub = table["baseline"], table["pubeval"]
    assert 0 < base["mean_loss_millipoints"] < pub["mean_loss_millipoints"]
    assert all(r["mean_loss_millipoints"] >= 0 and 0 <= r["best_share"] <= 1 for r in table.values())
    assert np.isfinite([r["se_millipoints"] for r in table.values()]).all()
