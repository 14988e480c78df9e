"""Type stubs of the compiled simulation loops (fastgen/core/_play.pyx): the functions the
Python layer calls. Arrays are C-contiguous numpy arrays of the dtype named (the Cython
signatures take typed memoryviews)."""

from typing import Optional

import numpy as np
import numpy.typing as npt

from fastgen.core._core import StopFlag

_I8 = npt.NDArray[np.int8]
_I32 = npt.NDArray[np.int32]
_I64 = npt.NDArray[np.int64]
_U8 = npt.NDArray[np.uint8]
_U64 = npt.NDArray[np.uint64]

MAX_ROLLOUT_TURNS: int

class Chooser:
    """A policy of another extension for the game loops (fastgen.nets: a network's greedy play)."""

def rollout_random_range(
    start: _I8,
    from_opening: bool,
    seed: int,
    opening_rolls: _I8,
    lo: int,
    hi: int,
    winner: _I8,
    result: _I8,
    turns: _I32,
    stop: Optional[StopFlag] = ...,
    pubeval: bool = ...,
    max_turns: int = ...,
    chooser: Optional[Chooser] = ...,
) -> int: ...
def duel_range(
    start: _I8,
    from_opening: bool,
    seed: int,
    opening_rolls: _I8,
    lo: int,
    hi: int,
    pol_a: int,
    pol_b: int,
    mirrored: bool,
    winner: _I8,
    result: _I8,
    turns: _I32,
    stop: Optional[StopFlag] = ...,
    max_turns: int = ...,
    chooser_a: Optional[Chooser] = ...,
    chooser_b: Optional[Chooser] = ...,
) -> int: ...
def roll_dice(seed: int, gid: _I64, turn: _I64, opening: _U8, opening_rolls: _I8, out: _I8) -> None: ...
def pool_turn(
    src: _I8,
    offsets: _I64,
    pick: _I64,
    boards: _I8,
    gid: _I64,
    turn: _I64,
    dice: _I8,
    winner: _I8,
    result: _I8,
    turns: _I32,
    start_boards: _I8,
    first_game: int,
    next_game: int,
    end: int,
    max_turns: int,
    seed: int,
    from_opening: bool,
    opening_rolls: _I8,
    info: _I64,
) -> int: ...
def merge_children(
    kids: _I8, offsets: _I64, row_w: _I64, out: _I8, out_w: _I64, out_key: _U64
) -> tuple[int, int]: ...
def count_rolls(boards: _I8, rolls: _I8, out: _I64) -> int: ...
def pubeval_weights() -> tuple[list[float], list[float]]: ...
def pubeval_best_batch(boards: _I8, dice: _I8, out: _I8, stop: Optional[StopFlag] = ...) -> int: ...
def pubeval_pick(before: _I8, dice: _I8, cands: _I8, offsets: _I64, out: _I64) -> None: ...
def pubeval_egg_first(board: _I8, d0: int, d1: int, cands: _I8, tied: _I32) -> int: ...
