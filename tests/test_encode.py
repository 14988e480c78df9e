"""Network inputs (fastgen.encode): hand-worked positions, a numpy reference on random
boards, the candidate features of plays_batch, and bad input."""

import weakref

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import fastgen
from fastgen import InvalidBoardError
from fastgen.errors import InvalidOutputError, UnknownSchemeError
from fastgen.core.features import SCHEMES

from _contact_reference import contact_features
from strategies import bar_boards, bearoff_boards, contact_boards, near_empty_boards, pos

# The hand-worked position. Mover (row 1): 5 on its 6 point, 3 on 8, 4 on 13, 1 on 24,
# 1 on the bar: 14 checkers, so 1 borne off. Opponent (row 0), in ITS OWN numbering:
# 6 on its 6 point, 2 on its 11 point, 2 on the bar: 10 checkers, 5 borne off.
HAND = np.zeros((2, 25), dtype=np.int8)
HAND[1, [5, 7, 12, 23, 24]] = [5, 3, 4, 1, 1]
HAND[0, [5, 10, 24]] = [6, 2, 2]


def test_hand_worked_tesauro198():
    x = fastgen.encode(HAND, "tesauro198")
    expected = np.zeros(198, dtype=np.float32)
    # mover's point p at columns 4(p-1)..4(p-1)+3: [n>=1, n>=2, n>=3, (n-3)/2 if n>3]
    expected[20:24] = [1, 1, 1, 1.0]  # point 6, n = 5: (5 - 3) / 2 = 1
    expected[28:32] = [1, 1, 1, 0]  # point 8, n = 3
    expected[48:52] = [1, 1, 1, 0.5]  # point 13, n = 4
    expected[92:96] = [1, 0, 0, 0]  # point 24, n = 1
    # opponent's point p (its numbering) at 96 + 4(p-1)
    expected[116:120] = [1, 1, 1, 1.5]  # its 6 point, n = 6
    expected[136:140] = [1, 1, 0, 0]  # its 11 point, n = 2
    expected[192] = 0.5  # mover's bar: 1 / 2
    expected[193] = 1.0  # opponent's bar: 2 / 2
    expected[194] = np.float32(1) / np.float32(15)  # mover borne off 1
    expected[195] = np.float32(5) / np.float32(15)  # opponent borne off 5
    expected[196:198] = [1, 0]  # turn units: always the mover's view
    assert x.dtype == np.float32 and x.shape == (198,)
    np.testing.assert_array_equal(x, expected)


def test_hand_worked_raw():
    x = fastgen.encode(HAND, "raw")
    f = lambda n: np.float32(n) / np.float32(15)  # noqa: E731
    expected = np.zeros(52, dtype=np.float32)
    expected[[5, 7, 12, 23, 24]] = [f(5), f(3), f(4), f(1), f(1)]  # mover's row as stored
    expected[[25 + 5, 25 + 10, 25 + 24]] = [f(6), f(2), f(2)]  # opponent's row as stored
    expected[50], expected[51] = f(1), f(5)  # borne off: mover, opponent
    assert x.dtype == np.float32 and x.shape == (52,)
    np.testing.assert_array_equal(x, expected)


def test_starting_position_is_symmetric():
    x = fastgen.encode(fastgen.STARTING_BOARD, "tesauro198")
    np.testing.assert_array_equal(x[:96], x[96:192])
    assert x[192:196].tolist() == [0, 0, 0, 0] and x[196:].tolist() == [1, 0]
    # per side: 24 point n=2 -> 2, 13 point n=5 -> 4, 8 point n=3 -> 3, 6 point n=5 -> 4; + turn unit
    assert x.sum() == 2 * (2 + 4 + 3 + 4) + 1


# ------------------------------------------------------------------ numpy reference
def reference(boards: np.ndarray, scheme: str) -> np.ndarray:
    """Straight from the docstring's table, in numpy, no shared code with the core."""
    b = boards.astype(np.int64)
    mover, opp = b[:, 1], b[:, 0]
    off_m = (15 - mover.sum(axis=1)).astype(np.float32)[:, None]
    off_o = (15 - opp.sum(axis=1)).astype(np.float32)[:, None]
    fifteen = np.float32(15)
    if scheme == "contact":
        return np.stack([contact_features(x) for x in boards]).reshape(len(boards), 22)
    if scheme == "raw":
        return np.concatenate(
            [mover.astype(np.float32) / fifteen, opp.astype(np.float32) / fifteen, off_m / fifteen, off_o / fifteen],
            axis=1,
        )

    def units(row):
        n = row[:, :24]
        u = np.stack([n >= 1, n >= 2, n >= 3, np.maximum(n - 3, 0) / 2], axis=-1)
        return u.reshape(len(row), 96).astype(np.float32)

    bars = np.stack([mover[:, 24] / 2, opp[:, 24] / 2], axis=1).astype(np.float32)
    turn = np.tile(np.array([1, 0], dtype=np.float32), (len(b), 1))
    return np.concatenate([units(mover), units(opp), bars, off_m / fifteen, off_o / fifteen, turn], axis=1)


any_board = st.one_of(contact_boards(), bar_boards(), bearoff_boards(), near_empty_boards())


# Drawing boards is the slow part: 150 batches of up to 12 (the self-play test below adds
# 2,000 positions at numpy speed).
@settings(max_examples=150)
@given(st.lists(any_board, min_size=1, max_size=12), st.sampled_from(sorted(SCHEMES)))
def test_matches_numpy_reference(boards, scheme):
    batch = np.stack(boards)
    got = fastgen.encode(batch, scheme)
    assert got.shape == (len(boards), SCHEMES[scheme]) and got.dtype == np.float32
    np.testing.assert_array_equal(got, reference(batch, scheme))
    # one board gives the same row as the batch
    np.testing.assert_array_equal(fastgen.encode(boards[0], scheme), got[0])


@pytest.mark.parametrize("best", [True, False], ids=["fastest_kernels", "portable_kernels"])
def test_reference_on_self_play_positions(best):
    from fastgen.core import _features
    from fastgen.cli.workload import random_game_positions

    boards, _ = random_game_positions(2_000, seed=3)
    try:
        _features.select_kernels(best)  # the AVX2 rows (x86-64) and the plain C rows
        for scheme in SCHEMES:
            np.testing.assert_array_equal(fastgen.encode(boards, scheme), reference(boards, scheme))
            np.testing.assert_array_equal(fastgen.encode(HAND, scheme), reference(HAND[None], scheme)[0])
    finally:
        _features.select_kernels(True)


# ------------------------------------------------------------------ candidates of plays_batch
def test_plays_batch_features_are_the_next_players_view():
    from fastgen.cli.workload import random_game_positions

    boards, dice = random_game_positions(1_500, seed=11)
    for scheme in SCHEMES:
        one = fastgen.plays_batch(boards, dice, encode=scheme)
        assert one.features.shape == (len(one.boards), SCHEMES[scheme])
        # the side to roll next is row 0 of the resulting board: swap, then encode (every
        # 10th play for "contact": its Python reference is slow, and is held to the
        # compiled scheme on every row of the tests above)
        rows = slice(None, None, 10) if scheme == "contact" else slice(None)
        np.testing.assert_array_equal(one.features[rows], reference(fastgen.swap_sides(one.boards[rows]), scheme))
        two = fastgen.plays_batch(boards, dice, encode=scheme, threads=2)  # mapped path, 2 halves
        np.testing.assert_array_equal(two.features, one.features)
        lo, hi = one.offsets[5], one.offsets[6]
        np.testing.assert_array_equal(one[5].features, one.features[lo:hi])
    assert fastgen.plays_batch(boards, dice).features is None


def test_plays_batch_features_on_a_worked_play():
    # Opening 3-1 played 8/5 6/5: the mover made its 5 point. The features take the view
    # of the side to roll next, for whom that is the opponent's 5 point (columns 96+16..).
    board = fastgen.STARTING_BOARD
    batch = fastgen.plays_batch(board[None], [(3, 1)], encode="tesauro198")
    k = [str(p) for p in batch[0]].index("8/5 6/5")
    x = batch.features[k]
    assert x[96 + 16 : 96 + 20].tolist() == [1, 1, 0, 0]  # its opponent's 5 point: 2 checkers
    assert x[96 + 20 : 96 + 24].tolist() == [1, 1, 1, 0.5]  # its opponent's 6 point: 5 - 1 = 4
    assert x[96 + 28 : 96 + 32].tolist() == [1, 1, 0, 0]  # its opponent's 8 point: 3 - 1 = 2
    assert x[20:24].tolist() == [1, 1, 1, 1]  # its own 6 point, untouched: 5
    assert x[196:].tolist() == [1, 0]


def test_iter_plays_batch_passes_encode_on():
    boards = np.stack([fastgen.STARTING_BOARD] * 5)
    dice = [(6, 5), (1, 1), (3, 1), (4, 2), (6, 6)]
    whole = fastgen.plays_batch(boards, dice, encode="raw")
    parts = [b.features for _, b in fastgen.iter_plays_batch(boards, dice, chunk_size=2, encode="raw")]
    np.testing.assert_array_equal(np.concatenate(parts), whole.features)


# ------------------------------------------------------------------ shapes, out, errors
def test_empty_batch_and_lists():
    assert fastgen.encode(np.zeros((0, 2, 25), np.int8), "tesauro198").shape == (0, 198)
    as_list = fastgen.encode(HAND.tolist(), "raw")
    np.testing.assert_array_equal(as_list, fastgen.encode(HAND, "raw"))
    assert fastgen.plays_batch(np.zeros((0, 2, 25), np.int8), np.zeros((0, 2), np.int8), encode="raw").features.shape == (0, 52)


def test_out_is_written_and_returned():
    batch = np.stack([HAND, fastgen.STARTING_BOARD])
    out = np.full((2, 198), -1, dtype=np.float32)
    got = fastgen.encode(batch, "tesauro198", out=out)
    assert got is out
    np.testing.assert_array_equal(out, reference(batch, "tesauro198"))
    one = np.empty(52, dtype=np.float32)
    assert fastgen.encode(HAND, "raw", out=one) is one
    np.testing.assert_array_equal(one, reference(HAND[None], "raw")[0])


@pytest.mark.parametrize("bad", [np.empty((2, 197), np.float32), np.empty((2, 198), np.float64), np.empty((198, 2), np.float32).T, [[0.0] * 198] * 2])
def test_bad_out_is_refused(bad):
    with pytest.raises(InvalidOutputError, match="out must"):
        fastgen.encode(np.stack([HAND, HAND]), "tesauro198", out=bad)


@pytest.mark.parametrize("scheme", ["tesauro", "TESAURO198", "", None, 198])
def test_unknown_scheme_is_quoted(scheme):
    with pytest.raises(UnknownSchemeError, match="unknown encoding scheme") as err:
        fastgen.encode(HAND, scheme)
    assert repr(scheme) in str(err.value)
    assert isinstance(err.value, ValueError)
    if scheme is not None:  # encode=None means "no features"
        with pytest.raises(UnknownSchemeError):
            fastgen.plays_batch(HAND[None], [(3, 1)], encode=scheme)


@pytest.mark.parametrize(
    "bad",
    [
        np.zeros((2, 24), np.int8),
        np.zeros((3, 2, 25, 1), np.int8),
        np.full((2, 25), 1, np.int8),  # 25 checkers a side
        pos(me={6: -1}),
        np.zeros((2, 25), np.float32),
        [[1, 2], [3]],
        "board",
    ],
)
def test_bad_boards_are_refused(bad):
    with pytest.raises(InvalidBoardError):
        fastgen.encode(bad, "raw")


def test_kept_output_memory_never_overwrites_a_live_array():
    from fastgen.cli.workload import random_game_positions

    boards, dice = random_game_positions(1_200, seed=4)  # > 1 MiB of features: kept memory
    first = fastgen.plays_batch(boards, dice, encode="tesauro198")
    assert first.features.nbytes >= 1 << 20
    saved = first.features.copy()
    part = first[7].features  # a view keeps the memory busy too
    del first
    other = fastgen.plays_batch(boards[::-1].copy(), dice[::-1].copy(), encode="tesauro198")
    lo = int(fastgen.plays_batch(boards, dice).offsets[7])
    np.testing.assert_array_equal(part, saved[lo : lo + len(part)])
    del part, other
    again = fastgen.plays_batch(boards, dice, encode="tesauro198")  # may reuse the memory
    np.testing.assert_array_equal(again.features, saved)
    del again
    assert fastgen.release_memory() >= 0


@pytest.mark.parametrize("threads", [1, 2])
def test_chunked_calls_cover_every_row(monkeypatch, threads):
    # Large batches are encoded in chunks of CHUNK_ROWS rows (Ctrl-C is handled between
    # them): shrink the chunks so that every boundary case runs on a small batch.
    from fastgen.core import _features, features
    from fastgen.cli.workload import random_game_positions

    boards, _ = random_game_positions(9_001, seed=8)
    monkeypatch.setattr(features, "CHUNK_ROWS", 1_000)
    for scheme in SCHEMES:
        got = features.encode_trusted(boards, scheme, threads=threads)
        if scheme == "contact":  # its slow Python reference is held to the scheme above: here, chunks equal one call
            want = np.empty_like(got)
            _features.encode_range(boards, 2, False, want, 0, len(boards))
        else:
            want = reference(boards, scheme)
        np.testing.assert_array_equal(got, want)


def test_kept_output_memory_serves_calls_of_similar_sizes():
    """An RL loop's steps differ a little in size: after the first, each step's features
    come from the same kept buffer (fresh pages cost ~9 us per 4 KiB), never from one
    still in use."""
    from fastgen.cli.workload import random_game_positions

    fastgen.release_memory()
    boards, _ = random_game_positions(6_000, seed=5)
    owners = []
    for n in (2_000, 2_400, 1_800, 2_900, 2_000):  # 1.6 to 2.3 MB of tesauro198 features
        x = fastgen.encode(boards[:n], "tesauro198")
        np.testing.assert_array_equal(x, fastgen.encode(boards[:n], "tesauro198", out=np.empty_like(x)))
        owner = x
        while owner.base is not None:
            owner = owner.base
        owners.append(weakref.ref(owner))  # a weak reference leaves the buffer free
        del x, owner
    assert owners[0]() is not None
    assert all(o() is owners[0]() for o in owners)
    held = fastgen.encode(boards[:2_000], "tesauro198")
    other = fastgen.encode(boards[:2_000], "tesauro198")
    assert not np.shares_memory(held, other)
    del other  # one kept buffer in use, one free; a larger call fits neither
    larger = fastgen.encode(boards, "tesauro198")
    np.testing.assert_array_equal(larger[:2_000], held)
    assert not np.shares_memory(larger, held)
    del held, larger, owners
    fastgen.release_memory()
