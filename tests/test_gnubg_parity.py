"""Agreement with GNU Backgammon's own generator (optional peer: pip install '.[peers]').

Skipped, with the reason shown, when gnubg-nn is not installed.
"""

import numpy as np
import pytest

import fastgen
from fastgen.cli.workload import ROLLS, random_game_positions, vector_boards

gnubg = pytest.importorskip("gnubg_nn", reason="gnubg-nn not installed: pip install '.[peers]'")


def _gnubg_keys(board, dice):
    keys = set(gnubg.moves(board.tolist(), dice[0], dice[1]))
    # gnubg returns no move for a lost turn (R14); fastgen returns the unchanged position.
    return keys or {gnubg.key_of_board(board.tolist())}


def _positions():
    boards = np.concatenate([vector_boards("contact")[::5], vector_boards("race")[::5]])
    extra, _ = random_game_positions(400, seed=11)
    return np.concatenate([boards, extra])


@pytest.mark.parametrize("dice", ROLLS, ids=[f"{a}{b}" for a, b in ROLLS])
def test_same_resulting_positions_as_gnubg_R10(dice):
    for board in _positions():
        ours = {gnubg.key_of_board(b.tolist()) for b in fastgen.legal_plays(board, dice).boards}
        assert ours == _gnubg_keys(board, dice), fastgen.position_id(board)


def test_position_ids_match_gnubg():
    boards, _ = random_game_positions(300, seed=5)
    for board in boards:
        assert fastgen.position_id(board) == gnubg.position_id(board.tolist())
