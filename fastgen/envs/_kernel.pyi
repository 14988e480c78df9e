"""Type stubs of the compiled micro-action kernel (fastgen/envs/_kernel.pyx). Arrays are
C-contiguous numpy arrays of the dtype named (the Cython signatures take typed
memoryviews); each game's row is its index."""

import numpy as np
import numpy.typing as npt

_I8 = npt.NDArray[np.int8]
_I64 = npt.NDArray[np.int64]
_U8 = npt.NDArray[np.uint8]
_U64 = npt.NDArray[np.uint64]
_F32 = npt.NDArray[np.float32]

def prefix_mask(out: _U8, counts: _I64, previous: _I64) -> None: ...
def sample_listed(legal: _U8, states: _U64, out: _I64) -> None: ...
def sample_below(counts: _I64, states: _U64, out: _I64) -> None: ...
def sample(mask: _U8, states: _U64, out: _I64) -> None: ...
def start_turns(boards: _I8, dice: _I8, games: _I64, left: _I8, todo: _I8, forced: _I8) -> None: ...
def masks(boards: _I8, left: _I8, todo: _I8, forced: _I8, out: _U8, legal: _U8) -> None: ...
def apply_steps(boards: _I8, left: _I8, todo: _I8, games: _I64, actions: _I64) -> None: ...
def seed_states(states: _U64, seeds: _U64) -> None: ...
def roll_dice(states: _U64, dice: _I8, opening: _U8) -> None: ...
def micro_step(
    boards: _I8,
    dice: _I8,
    left: _I8,
    todo: _I8,
    forced: _I8,
    states: _U64,
    player: _I8,
    actions: _I64,
    reward: _F32,
    terminated: _U8,
    truncated: _U8,
    mask: _U8,
    legal: _U8,
    final: _I8,
    start: _I8,
    autoreset: bool,
    max_passes: int,
) -> int: ...
