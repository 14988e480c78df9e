"""Generating plays the way users do. tests/test_typing.py checks this file with
``mypy --strict`` (``assert_type`` fails where fastgen's types are missing or Any) and
runs it as a script."""

from __future__ import annotations

import sys

import numpy as np
import numpy.typing as npt

import fastgen

if sys.version_info >= (3, 11):
    from typing import assert_type
else:  # pragma: no cover
    from typing_extensions import assert_type

Int8Array = npt.NDArray[np.int8]


def opening_plays() -> list[str]:
    """Every play of 6-5 from the opening position, as text."""
    board = fastgen.parse_position_id("4HPwATDgc/ABMA")
    assert_type(board, Int8Array)
    plays = fastgen.legal_plays(board, (6, 5))
    assert_type(plays, fastgen.Plays)
    first = plays[0]
    assert_type(first, fastgen.Play)
    assert_type(first.board_after, Int8Array)
    assert_type(plays.boards, Int8Array)
    assert_type(fastgen.position_id(first.board_after), str)
    assert plays.boards.shape == (len(plays), 2, 25)
    return [str(play) for play in plays]


def batch_counts() -> list[int]:
    """Plays of two positions at once, and their counts."""
    boards = np.stack([fastgen.STARTING_BOARD, fastgen.STARTING_BOARD])
    batch = fastgen.plays_batch(boards, [(6, 5), (2, 2)], threads=2)
    assert_type(batch, fastgen.PlayBatch)
    assert_type(batch[1], fastgen.Plays)
    counts = fastgen.count_plays_batch(boards, [(6, 5), (2, 2)])
    assert_type(counts, npt.NDArray[np.int64])
    assert batch.counts.tolist() == counts.tolist()
    total = 0
    for start, chunk in fastgen.iter_plays_batch(boards, np.array([[3, 1], [4, 4]]), chunk_size=1):
        assert_type(start, int)
        assert_type(chunk, fastgen.PlayBatch)
        total += len(chunk)
    assert total == 2
    assert_type(fastgen.release_memory(), int)
    return [int(c) for c in counts]


def notation() -> str:
    """Parse, check and format move text."""
    board = fastgen.STARTING_BOARD
    play = fastgen.parse_play(board, (3, 1), "8/5 6/5")
    assert_type(play, fastgen.Play)
    assert fastgen.check_play(board, (3, 1), "8/5 6/5") == play
    assert_type(fastgen.check_play(board, (3, 1), play), fastgen.Play)
    text = fastgen.format_play(board, play.moves)
    assert_type(text, str)
    steps = fastgen.legal_steps(board, (6, 4), played=[(24, 18)])
    assert_type(steps, list[tuple[int, int, int]])
    try:
        fastgen.check_play(board, (6, 4), "24/18")
    except fastgen.IllegalPlayError as err:
        assert_type(err.reason, fastgen.errors.IllegalReason)
        assert err.reason.name == "MORE_DICE_POSSIBLE"
    assert_type(fastgen.swap_sides(play.board_after), Int8Array)
    return text


if __name__ == "__main__":
    print(opening_plays(), batch_counts(), notation())
