"""The standard workload: the shared vector positions (2,000) times the 21 distinct rolls.

The Position IDs ship inside the package (fastgen/data), so the benchmark needs no
network and no checkout of the tests.
"""

from __future__ import annotations

from importlib import resources

import numpy as np

from fastgen._util import check_int
from fastgen.core.boards import STARTING_BOARD
from fastgen.core.generate import legal_plays
from fastgen.errors import InvalidArgumentError
from fastgen.core.ids import parse_position_id
from fastgen.players.pubeval import pubeval_best

__all__ = ["ROLLS", "vector_boards", "vector_workload", "random_game_positions"]

#: The 21 distinct rolls: 6 doubles and 15 non-doubles, as (high, low).
ROLLS = tuple((hi, lo) for hi in range(1, 7) for lo in range(1, hi + 1))


def vector_boards(name: str) -> np.ndarray:
    """The 1,000 positions of ``"contact"`` or ``"race"`` as an (1000, 2, 25) int8 array."""
    if name not in ("contact", "race"):
        raise ValueError(f"vector set must be 'contact' or 'race', got {name!r}")
    # One name per joinpath: Traversable.joinpath takes several only from Python 3.11.
    text = resources.files("fastgen").joinpath("data").joinpath(f"{name}.csv").read_text()
    return np.stack([parse_position_id(line.strip()) for line in text.split() if line.strip()])


def vector_workload(names=("contact", "race")) -> tuple[np.ndarray, np.ndarray]:
    """(boards, dice) for every position of the named sets with each of the 21 rolls.

    Position-major: rows ``21*i .. 21*i+20`` are position i with the rolls of ROLLS.
    """
    boards = np.concatenate([vector_boards(n) for n in names])
    dice = np.array(ROLLS, dtype=np.int8)
    return np.repeat(boards, len(ROLLS), axis=0), np.tile(dice, (boards.shape[0], 1))


def random_game_positions(n: int, seed: int = 0, policy: str = "random") -> tuple[np.ndarray, np.ndarray]:
    """(boards, dice) for n positions met in self-play, each with the roll then thrown.

    Games start from the opening position; each side picks uniformly among the distinct
    legal plays (``policy="random"``) or plays pubeval's choice (``policy="pubeval"``,
    see fastgen.players.pubeval.pubeval_best). Every position met (side on roll in row 1) is
    taken with its roll, and a new game starts when one ends. Deterministic for a seed.
    """
    check_int(n, "n", 0)
    if policy not in ("random", "pubeval"):
        raise InvalidArgumentError(f"policy must be 'random' or 'pubeval', got {policy!r}")
    rng = np.random.default_rng(seed)
    boards = np.empty((n, 2, 25), dtype=np.int8)
    dice = rng.integers(1, 7, size=(n, 2)).astype(np.int8)
    board = STARTING_BOARD.copy()
    for i in range(n):
        boards[i] = board
        if policy == "pubeval":
            after = pubeval_best(boards[i : i + 1], dice[i : i + 1])[0]
        else:
            plays = legal_plays(board, (int(dice[i, 0]), int(dice[i, 1])))
            after = plays.boards[rng.integers(len(plays))]
        if after[1].sum() == 0:  # the mover bore off its last checker: new game
            board = STARTING_BOARD.copy()
        else:
            board = after[::-1].copy()  # the other side is now on roll
    return boards, dice
