"""The generation API: batch/single agreement, threads, chunking, memory, bad input (R4, R5)."""

import sys
import textwrap
import threading

import numpy as np
import pytest

import fastgen
from fastgen import InvalidBoardError, InvalidDiceError
from fastgen.errors import InvalidPositionIDError
from fastgen.cli.workload import random_game_positions, vector_workload

from _child import run_python


@pytest.fixture(scope="module")
def mixed():
    """Positions from random self-play plus a slice of the vectors, with their rolls."""
    b1, d1 = random_game_positions(3_000, seed=7)
    b2, d2 = vector_workload(("contact",))
    return np.concatenate([b1, b2[::7]]), np.concatenate([d1, d2[::7]])


def test_batch_equals_single_calls_in_order(mixed):
    boards, dice = mixed
    batch = fastgen.plays_batch(boards, dice)
    assert batch.offsets[0] == 0 and batch.offsets[-1] == len(batch.boards) == len(batch.moves)
    for i in range(0, len(boards), 13):
        single = fastgen.legal_plays(boards[i], (int(dice[i, 0]), int(dice[i, 1])))
        lo, hi = batch.offsets[i], batch.offsets[i + 1]
        np.testing.assert_array_equal(batch.boards[lo:hi], single.boards)
        np.testing.assert_array_equal(batch.moves[lo:hi], single.moves)
        assert len(batch[i]) == len(single)


def test_dice_order_does_not_matter_R11(mixed):
    boards, dice = mixed
    a = fastgen.plays_batch(boards, dice)
    b = fastgen.plays_batch(boards, dice[:, ::-1])
    np.testing.assert_array_equal(a.offsets, b.offsets)
    np.testing.assert_array_equal(a.boards, b.boards)


@pytest.mark.parametrize("threads", [2, 3, 7])
def test_threads_give_identical_output(mixed, threads):
    boards, dice = mixed
    one = fastgen.plays_batch(boards, dice)
    many = fastgen.plays_batch(boards, dice, threads=threads)
    np.testing.assert_array_equal(one.offsets, many.offsets)
    np.testing.assert_array_equal(one.boards, many.boards)
    np.testing.assert_array_equal(one.moves, many.moves)
    np.testing.assert_array_equal(fastgen.count_plays_batch(boards, dice, threads=threads), one.counts)


def test_two_thread_path_falls_back_when_its_reservation_overflows():
    """threads=2 writes both halves straight into one reserved mapping; a half that does
    not fit is reported (None) so the caller takes the ordinary path."""
    from fastgen.core import _core

    boards = np.stack([fastgen.STARTING_BOARD] * 200)
    dice = np.full((200, 2), 2, dtype=np.int8)  # 75 plays each: 7,500 per half
    fastgen.release_memory()  # no spare mapping: a fresh, small reservation
    job = _core.PairJob(boards, dice, 100, 0)  # room for 4,096 plays a half
    assert job.reserved
    job.run(0)
    job.run(1)
    assert job.finish() is None
    roomy = _core.PairJob(boards, dice, 100)
    roomy.run(1)
    roomy.run(0)
    offsets, out_boards, out_moves = roomy.finish()
    single = fastgen.plays_batch(boards, dice)
    np.testing.assert_array_equal(offsets, single.offsets)
    np.testing.assert_array_equal(out_boards, single.boards)
    np.testing.assert_array_equal(out_moves, single.moves)
    np.testing.assert_array_equal(fastgen.plays_batch(boards, dice, threads=2).boards, single.boards)


def test_one_thread_fills_its_mapping_in_pieces(mixed, monkeypatch):
    """With one thread a large batch is generated in the calling thread, PLAYS_RANGE
    positions per call (PairJob.run_upper): the pieces follow one another exactly as one
    run(1) lays them; a reservation too small for a later piece is reported (None), and
    an invalid board in a later piece is found."""
    from fastgen.core import _core

    from fastgen.core import generate
    boards, dice = (np.concatenate([a, a]) for a in mixed)  # large enough for the mapped path
    whole = _core.PairJob(boards, dice, 0)
    whole.run(0)
    whole.run(1)
    offsets, out_boards, out_moves = whole.finish()
    pieces = _core.PairJob(boards, dice, 0)
    pieces.run(0)
    for hi in (1, 1000, 1000, 4321, len(boards) + 5):  # an empty piece, then past the end
        assert pieces.run_upper(hi)
    got = pieces.finish()
    np.testing.assert_array_equal(got[0], offsets)
    np.testing.assert_array_equal(got[1], out_boards)
    np.testing.assert_array_equal(got[2], out_moves)

    small = _core.PairJob(boards, dice, 0, 0)  # room for 4,096 plays
    small.run(0)
    assert small.run_upper(10)
    assert not small.run_upper(len(boards))
    assert not small.run_upper(len(boards))  # stays failed
    assert small.finish() is None

    monkeypatch.setattr(generate, "PLAYS_RANGE", 1000)
    batch = fastgen.plays_batch(boards, dice)
    np.testing.assert_array_equal(batch.offsets, offsets)
    np.testing.assert_array_equal(batch.boards, out_boards)
    np.testing.assert_array_equal(batch.moves, out_moves)
    bad = boards.copy()
    bad[5432, 1, 0] = 16
    with pytest.raises(InvalidBoardError, match="index 5432"):
        fastgen.plays_batch(bad, dice)
    del batch
    np.testing.assert_array_equal(fastgen.plays_batch(boards, dice).boards, out_boards)  # after the error


def test_output_memory_is_reused_and_released(mixed):
    """plays_batch keeps the mapping of a batch whose arrays are gone for the next one;
    release_memory gives it back. Results are unaffected by reuse."""
    boards, dice = (np.concatenate([a, a]) for a in mixed)  # large enough for the mapped path
    fastgen.release_memory()
    first = fastgen.plays_batch(boards, dice)
    expected = first.boards.copy()
    del first
    again = fastgen.plays_batch(boards, dice)  # reuses the kept mapping
    np.testing.assert_array_equal(again.boards, expected)
    again.boards[:] = 0  # the caller owns its arrays: writing them is allowed
    del again
    assert fastgen.release_memory() > 0
    assert fastgen.release_memory() == 0
    np.testing.assert_array_equal(fastgen.plays_batch(boards, dice, threads=2).boards, expected)


def test_concurrent_python_threads_match_serial(mixed):
    boards, dice = mixed
    expected = fastgen.plays_batch(boards, dice)
    results, errors = {}, []

    def work(k):
        try:
            if k % 2:
                results[k] = fastgen.plays_batch(boards, dice, threads=2).boards
            else:
                results[k] = np.concatenate(
                    [fastgen.legal_plays(b, (int(d[0]), int(d[1]))).boards for b, d in zip(boards[:400], dice[:400])]
                )
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    pool = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert not errors
    head = expected.boards[: expected.offsets[400]]
    for k, out in results.items():
        np.testing.assert_array_equal(out, expected.boards if k % 2 else head)


def test_iter_plays_batch_chunks_cover_the_batch(mixed):
    boards, dice = mixed
    whole = fastgen.plays_batch(boards, dice)
    starts, pieces = [], []
    for start, chunk in fastgen.iter_plays_batch(boards, dice, chunk_size=1000):
        starts.append(start)
        pieces.append(chunk.boards)
    assert starts == list(range(0, len(boards), 1000))
    np.testing.assert_array_equal(np.concatenate(pieces), whole.boards)


def test_empty_and_single_batches():
    empty = fastgen.plays_batch(np.zeros((0, 2, 25), np.int8), np.zeros((0, 2), np.int8))
    assert len(empty) == 0 and empty.boards.shape == (0, 2, 25) and empty.offsets.tolist() == [0]
    assert fastgen.count_plays_batch(np.zeros((0, 2, 25), np.int8), np.zeros((0, 2), np.int8)).shape == (0,)
    one = fastgen.plays_batch(fastgen.STARTING_BOARD[None], [(3, 1)], threads=4)
    assert one.counts.tolist() == [16]


def test_results_own_their_memory_and_inputs_are_copied():
    board = fastgen.STARTING_BOARD.copy()
    plays = fastgen.legal_plays(board, (6, 5))
    board[1, 23] = 0  # the caller changes its array afterwards
    assert plays.board[1, 23] == 2
    batch = fastgen.plays_batch(np.stack([fastgen.STARTING_BOARD] * 3), [(1, 1)] * 3)
    del plays
    assert batch.boards.flags.owndata or batch.boards.base is not None
    assert batch.boards.sum() > 0


def test_input_layouts_accepted():
    """Lists, other integer dtypes and non-contiguous arrays are converted (R4)."""
    start = fastgen.STARTING_BOARD
    expected = fastgen.legal_plays(start, (4, 2)).boards
    for board in (start.tolist(), start.astype(np.int64), np.asfortranarray(start), start[:, ::1]):
        np.testing.assert_array_equal(fastgen.legal_plays(board, [4, 2]).boards, expected)
    np.testing.assert_array_equal(fastgen.legal_plays(start, (np.int64(4), np.uint8(2))).boards, expected)


# ---------------------------------------------------------------- bad input (R4, R5)
def _board(**changes):
    b = fastgen.STARTING_BOARD.copy()
    for (row, idx), value in changes.get("set", {}).items():
        b[row, idx] = value
    return b


BAD_BOARDS = [
    ("wrong shape", np.zeros((2, 24), np.int8), "shape"),
    ("wrong ndim", np.zeros(50, np.int8), "shape"),
    ("float dtype", fastgen.STARTING_BOARD.astype(float), "dtype"),
    ("bool dtype", np.zeros((2, 25), bool), "dtype"),
    ("not numbers", [["a"] * 25] * 2, "integers"),
    ("ragged", [[0] * 25, [0] * 24], "integers"),
    ("negative count", _board(set={(1, 3): -1}), "negative"),
    ("16 checkers", _board(set={(1, 0): 1}), "more than 15"),
    ("shared point", _board(set={(0, 0): 1, (1, 23): 2, (0, 23): 1}), "both sides"),
    ("int8 overflow", np.full((2, 25), 300, np.int64), "int8"),
    ("None", None, "board"),
]


@pytest.mark.parametrize("label,board,needle", BAD_BOARDS, ids=[b[0] for b in BAD_BOARDS])
def test_R4_bad_boards_raise_specific_errors(label, board, needle):
    with pytest.raises(InvalidBoardError, match=needle):
        fastgen.legal_plays(board, (3, 1))
    batch = None if board is None else np.asarray(board, dtype=object if label in ("not numbers", "ragged") else None)
    if batch is not None and label not in ("not numbers", "ragged", "wrong ndim"):
        with pytest.raises(InvalidBoardError):
            fastgen.plays_batch(batch[None], [(3, 1)])
        with pytest.raises(InvalidBoardError):
            fastgen.count_plays_batch(batch[None], [(3, 1)])


def test_R4_bad_board_in_a_batch_names_its_index():
    boards = np.stack([fastgen.STARTING_BOARD] * 5)
    boards[3, 1, 0] = 1  # 16 checkers
    with pytest.raises(InvalidBoardError, match="index 3"):
        fastgen.plays_batch(boards, [(1, 2)] * 5)


BAD_DICE = [(0, 1), (7, 1), (3,), (1, 2, 3), "31", None, (1.0, 2), (True, 2), (-1, 3), 31]


@pytest.mark.parametrize("dice", BAD_DICE, ids=[repr(d) for d in BAD_DICE])
def test_R5_bad_dice_raise_and_quote(dice):
    with pytest.raises(InvalidDiceError) as info:
        fastgen.legal_plays(fastgen.STARTING_BOARD, dice)
    assert repr(dice) in str(info.value) or str(dice) in str(info.value)


def test_R5_bad_batch_dice():
    boards = np.stack([fastgen.STARTING_BOARD] * 2)
    for dice in ([(1, 2)], [(1, 2), (0, 3)], [(1, 2), (3, 9)], np.ones((2, 2)) * 1.5, [[1, 2, 3], [1, 2, 3]]):
        with pytest.raises(InvalidDiceError):
            fastgen.plays_batch(boards, dice)
        with pytest.raises(InvalidDiceError):
            fastgen.count_plays_batch(boards, dice)


def test_R5_bad_batch_die_found_at_any_place():
    """Batch dice are checked eight at a time: every int8 value at every place of a batch
    is accepted exactly when it is 1..6, and the error names the first bad row."""
    boards = np.stack([fastgen.STARTING_BOARD] * 9)
    for value in range(-128, 128):
        for place in range(18):
            dice = np.full((9, 2), 3, dtype=np.int8)
            dice.reshape(-1)[place] = value
            if 1 <= value <= 6:
                assert fastgen.count_plays_batch(boards, dice).shape == (9,)
            else:
                with pytest.raises(InvalidDiceError, match=f"index {place // 2} "):
                    fastgen.count_plays_batch(boards, dice)


@pytest.mark.parametrize("threads", [0, -1, 1.5, "2", True])
def test_bad_thread_counts(threads):
    with pytest.raises(ValueError, match="threads"):
        fastgen.plays_batch(fastgen.STARTING_BOARD[None], [(1, 2)], threads=threads)


@pytest.mark.parametrize("chunk", [0, -5, 2.5, None])
def test_bad_chunk_size(chunk):
    with pytest.raises(ValueError, match="chunk_size"):
        list(fastgen.iter_plays_batch(fastgen.STARTING_BOARD[None], [(1, 2)], chunk_size=chunk))


@pytest.mark.parametrize(
    "pid",
    ["", "4HPwATDgc/ABM", "4HPwATDgc/ABMAA", "4HPwATDgc/AB!A", "////////////////", "//////////////", None, 12],
)
def test_bad_position_ids(pid):
    with pytest.raises(InvalidPositionIDError) as info:
        fastgen.parse_position_id(pid)
    assert repr(pid) in str(info.value)


def test_swap_sides_shapes():
    b = np.stack([fastgen.STARTING_BOARD, fastgen.STARTING_BOARD[::-1]])
    assert fastgen.swap_sides(b).shape == (2, 2, 25)
    with pytest.raises(InvalidBoardError):
        fastgen.swap_sides(np.zeros((3, 25)))


def test_starting_board_is_read_only_R3():
    assert fastgen.STARTING_BOARD[1].sum() == 15
    assert int((fastgen.STARTING_BOARD[1] * np.r_[np.arange(1, 25), 25]).sum()) == 167
    with pytest.raises(ValueError):
        fastgen.STARTING_BOARD[1, 0] = 1


@pytest.mark.skipif(
    not sys.platform.startswith("linux"),
    reason="measured with resource.getrusage ru_maxrss in KiB: Linux only (bytes on macOS, no resource module on Windows)",
)
def test_batch_peak_memory_is_close_to_output_size(tmp_path):
    """A batch's peak resident memory stays within 1.3x of its output (measured in a
    fresh interpreter so nothing else has grown the heap)."""
    code = textwrap.dedent(
        """
        import resource, numpy as np, fastgen
        from fastgen.cli.workload import vector_workload
        b, d = vector_workload()
        b = np.concatenate([b] * 3); d = np.concatenate([d] * 3)
        fastgen.count_plays_batch(b[:10], d[:10])
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        out = fastgen.plays_batch(b, d)
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        size = out.boards.nbytes + out.moves.nbytes + out.offsets.nbytes
        print((after - before) * 1024 / size)
        """
    )
    # Run outside the checkout, importing the very package under test.
    proc = run_python("-c", code, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    ratio = float(proc.stdout)
    assert ratio <= 1.3, f"peak memory {ratio:.2f}x the output size"


def test_position_with_thousands_of_plays_R10_R12():
    """A double with over two thousand distinct plays: the core agrees with the oracle, and
    batches of it (far past the per-position room reserved for batches) fall back to the
    growing buffers and still equal one-by-one generation, with one and two threads."""
    from fastgen import reference

    board = fastgen.parse_position_id("AAAAqJSSSlIAAA")
    core = fastgen.legal_plays(board, (1, 1))
    assert len(core) == 2224
    assert core.position_set() == reference.legal_plays(board, (1, 1)).position_set()
    boards = np.stack([board] * 200)
    dice = np.ones((200, 2), dtype=np.int8)
    for threads in (1, 2, 3):
        fastgen.release_memory()  # no spare mapping, so the reservation is too small
        batch = fastgen.plays_batch(boards, dice, threads=threads)
        assert batch.counts.tolist() == [2224] * 200
        np.testing.assert_array_equal(batch.boards[2224 * 7 : 2224 * 8], core.boards)
        np.testing.assert_array_equal(batch.moves[-2224:], core.moves)
    assert fastgen.count_plays_batch(boards, dice, threads=2).tolist() == [2224] * 200


def _skewed_board(draw_rows):
    """A (2, 25) int8 board from rows of small counts, around the limits of R4."""
    return np.array(draw_rows, dtype=np.int8).reshape(2, 25)


def test_sse2_board_check_agrees_with_the_plain_one():
    """The core checks boards (R4) with SSE2 where the build has it: its error code must
    equal the plain-C version's on boards near every limit (negative, 15, 16 checkers,
    shared points, the bars)."""
    from hypothesis import given, strategies as st

    from fastgen.core import _core

    counts = st.one_of(st.integers(-2, 17), st.sampled_from([0, 0, 0, 1, 2, 15, 16, -1, -128, 127]))

    @given(st.lists(counts, min_size=50, max_size=50))
    def agree(rows):
        b = _skewed_board(rows)
        fast, plain = _core.board_error_variants(b)
        assert fast == plain, (b.tolist(), fast, plain)

    agree()
    rng = np.random.default_rng(7)
    for _ in range(20000):  # valid and nearly valid positions: 15 checkers a side placed at random
        b = np.zeros((2, 25), dtype=np.int8)
        for side in range(2):
            np.add.at(b[side], rng.integers(0, 25, size=int(rng.integers(0, 17))), 1)
        fast, plain = _core.board_error_variants(b)
        assert fast == plain, (b.tolist(), fast, plain)
