"""Type stubs of the compiled engine (fastgen/core/_core.pyx): the functions and classes
the Python layer calls. Arrays are C-contiguous numpy arrays of the dtype named (the
Cython signatures take typed memoryviews)."""

from typing import Any, Optional

import numpy as np
import numpy.typing as npt

_I8 = npt.NDArray[np.int8]
_I32 = npt.NDArray[np.int32]
_I64 = npt.NDArray[np.int64]
_U8 = npt.NDArray[np.uint8]
_U64 = npt.NDArray[np.uint64]
_F64 = npt.NDArray[np.float64]

MAX_ROLLOUT_TURNS: int
USES_MMAP: bool

class StopFlag:
    def set(self) -> None: ...
    def is_set(self) -> bool: ...

class Part:
    @property
    def count(self) -> int: ...

class Mapping:
    """Address space reserved for the output of two-thread batches."""

    @property
    def length(self) -> int: ...
    @property
    def bytes_per(self) -> int: ...

class Lease:
    """Part of a Mapping that numpy arrays view (a writable buffer of int8)."""

class PairJob:
    def __init__(self, boards: _I8, dice: _I8, mid: int, per_position: int = ...) -> None: ...
    @property
    def invalid(self) -> bool: ...
    @property
    def reserved(self) -> bool: ...
    def run(self, k: int, stop: Optional[StopFlag] = ...) -> None: ...
    def run_upper(self, hi: int) -> bool: ...
    def abandon(self) -> None: ...
    def finish(self) -> Optional[tuple[_I64, _I8, _I8]]: ...

class Counter:
    def __init__(self, boards: _I8, dice: _I8, counts: _I64) -> None: ...
    def count(self, lo: int, hi: int, stop: Optional[StopFlag] = ...) -> bool: ...

def board_error_variants(board: _I8) -> tuple[int, int]: ...
def validate_board(board: _I8) -> int: ...
def first_bad_dice(dice: _I8) -> int: ...
def validate_boards(boards: _I8) -> tuple[int, int]: ...
def legal_plays_fast(board: object, dice: object) -> Optional[tuple[_I8, int, int, _I8, _I8]]: ...
def batch_part(
    boards: _I8, dice: _I8, offsets: _I64, lo: int, hi: int, stop: Optional[StopFlag] = ...
) -> Optional[Part]: ...
def merge_parts(parts: list[Part]) -> tuple[_I8, _I8]: ...
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
def release_memory() -> int: ...
def balanced_bounds(boards: _I8, dice: _I8, parts: int, first_share: float = ...) -> _I64: ...
def count_rolls(boards: _I8, rolls: _I8, out: _I64) -> int: ...
def pubeval_load(contact: _F64, race: _F64) -> None: ...
def pubeval_best_batch(boards: _I8, dice: _I8, out: _I8, stop: Optional[StopFlag] = ...) -> int: ...
def pubeval_pick(before: _I8, dice: _I8, cands: _I8, offsets: _I64, out: _I64) -> None: ...
def pubeval_egg_first(board: _I8, d0: int, d1: int, cands: _I8, tied: _I32) -> int: ...
