"""Result containers: :class:`Plays` (one position) and :class:`PlayBatch` (many).

Both are thin views over numpy arrays produced by the compiled core (or by the reference
oracle). ``boards`` holds the resulting positions, ``moves`` the steps that produce them:
``moves[k, j] = (from, to)`` in the mover's numbering (1..24 points, 25 bar, 0 off),
rows past the last step are ``(-1, -1)``.
"""

from __future__ import annotations

from typing import Iterator, SupportsIndex, overload

import numpy as np

from fastgen._typing import Float32Array, Int8Array, Int64Array
from fastgen.core.notation import Play

__all__ = ["Plays", "PlayBatch"]


class Plays:
    """Every legal play of one position and roll, distinct by resulting position (R10).

    ``len(plays)`` is the number of plays K (at least 1: a lost turn is the single empty
    play, R14). ``plays.boards`` is (K, 2, 25) int8 and ``plays.moves`` is (K, 4, 2) int8.
    Indexing and iteration give :class:`fastgen.core.notation.Play` values (built on demand, so the
    arrays stay the cheap path). ``board`` and ``dice`` are the inputs. ``features`` is
    None, or the (K, F) float32 network inputs of the plays when the batch they come from
    was generated with ``encode=`` (see :class:`PlayBatch`).

    >>> import fastgen
    >>> plays = fastgen.legal_plays(fastgen.STARTING_BOARD, (3, 1))
    >>> len(plays)
    16
    >>> str(plays[0]) in {str(p) for p in plays}
    True
    """

    __slots__ = ("board", "dice", "boards", "moves", "features")

    def __init__(self, board: Int8Array, dice: tuple[int, int], boards: Int8Array, moves: Int8Array,
                 features: Float32Array | None = None) -> None:
        self.board = board
        self.dice = dice
        self.boards = boards
        self.moves = moves
        self.features = features

    def __len__(self) -> int:
        return self.boards.shape[0]

    def __bool__(self) -> bool:
        return True  # always at least one play, the empty one included

    @overload
    def __getitem__(self, index: SupportsIndex) -> Play: ...

    @overload
    def __getitem__(self, index: slice) -> list[Play]: ...

    def __getitem__(self, index: SupportsIndex | slice) -> Play | list[Play]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        k = range(len(self))[index]  # normalises negatives, raises IndexError
        return Play._from_core(self.board, self.dice, self.moves[k], self.boards[k])

    def __iter__(self) -> Iterator[Play]:
        for k in range(len(self)):
            yield self[k]

    def __contains__(self, play: object) -> bool:
        board_after = getattr(play, "board_after", play)
        target = np.asarray(board_after, dtype=np.int8)
        if target.shape != (2, 25):
            return False
        return bool((self.boards == target).all(axis=(1, 2)).any())

    def position_set(self) -> set[bytes]:
        """The resulting positions as a set of bytes keys (for order-free comparisons)."""
        return {b.tobytes() for b in self.boards}

    def __repr__(self) -> str:
        return f"<Plays dice={self.dice} count={len(self)}>"


class PlayBatch:
    """The plays of N positions in flat arrays.

    The plays of position ``i`` are rows ``offsets[i]:offsets[i+1]`` of ``boards``
    (M, 2, 25) int8 and ``moves`` (M, 4, 2) int8; ``offsets`` is (N+1,) int64.
    ``counts`` is ``np.diff(offsets)``. ``batch[i]`` gives position i's :class:`Plays`.

    ``features`` is None unless the batch was generated with ``plays_batch(...,
    encode=scheme)``: then it is (M, F) float32, row k the network inputs
    (:func:`fastgen.encode`) of play k's resulting board **as the side to roll next sees
    it**, i.e. ``encode(swap_sides(boards[k]), scheme)``: the opponent of the player who
    moved is the "mover" of the encoding (its turn units [1, 0] are right: it is on
    roll). An afterstate evaluator that scores these features for the side on roll
    picks the play whose value is lowest for that side.
    """

    __slots__ = ("input_boards", "dice", "offsets", "boards", "moves", "features")

    def __init__(self, input_boards: Int8Array, dice: Int8Array, offsets: Int64Array, boards: Int8Array,
                 moves: Int8Array, features: Float32Array | None = None) -> None:
        self.input_boards = input_boards
        self.dice = dice
        self.offsets = offsets
        self.boards = boards
        self.moves = moves
        self.features = features

    def __len__(self) -> int:
        return self.offsets.shape[0] - 1

    @property
    def counts(self) -> Int64Array:
        """Number of distinct plays of each position, (N,) int64."""
        return np.diff(self.offsets)

    def __getitem__(self, i: int) -> Plays:
        i = range(len(self))[i]
        lo, hi = int(self.offsets[i]), int(self.offsets[i + 1])
        dice = (int(self.dice[i, 0]), int(self.dice[i, 1]))
        features = None if self.features is None else self.features[lo:hi]
        return Plays(self.input_boards[i], dice, self.boards[lo:hi], self.moves[lo:hi], features)

    def __iter__(self) -> Iterator[Plays]:
        for i in range(len(self)):
            yield self[i]

    def __repr__(self) -> str:
        return f"<PlayBatch positions={len(self)} plays={self.boards.shape[0]}>"
