"""fastgen.bearoff: gnubg's numbering, building, .bd files and exact evaluation.

The byte-for-byte comparisons with GNU Backgammon's makebearoff are in
tests/test_bearoff_gnubg.py; here the databases are checked against plain Python: an
enumeration of the positions, and exhaustive recursions over the reference oracle's plays
(fastgen.reference, which shares no code with the core the builders use).
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pytest

import fastgen
from fastgen import bearoff, reference
from fastgen.bearoff import _build
from fastgen.errors import BearoffFileError, InvalidArgumentError, InvalidBoardError, OutsideDatabaseError

ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]


def enumerate_positions(points: int, checkers: int) -> list[tuple[int, ...]]:
    """gnubg's order, spelled out: by number of checkers, then descending lexicographic."""
    out = []
    for n in range(checkers + 1):
        level = [c for c in itertools.product(range(n + 1), repeat=points) if sum(c) == n]
        out += sorted(level, reverse=True)
    return out


def board_of(mine, theirs) -> np.ndarray:
    b = np.zeros((2, 25), np.int8)
    b[1, : len(mine)] = mine
    b[0, : len(theirs)] = theirs
    return b


# ------------------------------------------------------------------------- numbering


@pytest.mark.parametrize("points,checkers", [(1, 15), (2, 15), (3, 9), (4, 6), (6, 4), (5, 15)])
def test_index_both_ways_matches_a_plain_enumeration(points, checkers):
    positions = enumerate_positions(points, checkers)
    assert len(positions) == bearoff.n_positions(points, checkers)
    arr = np.array(positions)
    assert bearoff.position_index(arr).tolist() == list(range(len(positions)))
    assert bearoff.index_position(np.arange(len(positions)), points, checkers).tolist() == [list(p) for p in positions]


def test_index_is_the_same_as_gnubg_nn():
    gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg-nn not installed: pip install '.[peers]'")
    for i in range(1, bearoff.n_positions(6, 15), 997):
        assert list(gnubg_nn.bearoff_id_2_pos(i)) == bearoff.index_position(i, 6).tolist()


def test_compiled_rank_agrees_with_the_python_one():
    positions = np.array(enumerate_positions(4, 15), dtype=np.int8)
    assert _build.rank_positions(positions).tolist() == list(range(len(positions)))


def test_side_index_and_in_database_on_a_batch():
    boards = np.stack([
        board_of([1, 2, 0], [0, 0, 3]),           # both in 3x3
        board_of([1, 2, 0, 1], [0, 0, 3]),        # side on roll has a checker on point 4
        board_of([4, 0, 0], [1]),                 # 4 checkers: not in 3x3, in 3x15
        fastgen.STARTING_BOARD,
    ])
    assert bearoff.side_index(boards, 1, 3, 3).tolist() == [bearoff.position_index([1, 2, 0]), -1, -1, -1]
    assert bearoff.side_index(boards, 0, 3, 3).tolist()[0] == bearoff.position_index([0, 0, 3])
    assert bearoff.in_database(boards, 3, 3).tolist() == [True, False, False, False]
    assert bearoff.in_database(boards, 3).tolist() == [True, False, True, False]


# ------------------------------------------------------------------ exhaustive oracles


def _children(position: tuple[int, ...], roll) -> list[tuple[int, ...]]:
    plays = reference.legal_plays(board_of(position, []), roll)
    return sorted({tuple(int(x) for x in b[1, : len(position)]) for b in plays.boards})


@lru_cache(maxsize=None)
def _win(me: tuple[int, ...], them: tuple[int, ...]) -> Fraction:
    """Exact probability that the side on roll (me) wins, both playing perfectly."""
    if sum(me) == 0:
        return Fraction(1)
    if sum(them) == 0:
        return Fraction(0)
    total = Fraction(0)
    for a, b in ROLLS:
        best = max(1 - _win(them, child) for child in _children(me, (a, b)))
        total += Fraction(1 if a == b else 2, 36) * best
    return total


def test_two_sided_3x3_equals_an_exhaustive_recursion_on_the_oracle():
    db = bearoff.build_two_sided(3, 3)
    positions = enumerate_positions(3, 3)
    boards = np.stack([board_of(a, b) for a in positions for b in positions if sum(a) and sum(b)])
    got = bearoff.evaluate(boards, db)
    want = np.array([float(_win(tuple(b[1, :3]), tuple(b[0, :3]))) for b in boards])
    # stored in 1/32767.5 of equity, rounded at every level: a few units of 1/65535
    assert np.abs(got[:, 0] - want).max() < 5e-5
    assert (got[:, 1:] == 0).all()


@lru_cache(maxsize=None)
def _rolls_distribution(position: tuple[int, ...]) -> tuple[float, ...]:
    """Rolls to bear off, playing each roll to the child of least expected rolls."""
    if sum(position) == 0:
        return (1.0,) + (0.0,) * 31
    out = np.zeros(32)
    for a, b in ROLLS:
        kids = [np.array(_rolls_distribution(c)) for c in _children(position, (a, b))]
        best = min(kids, key=lambda d: float(d @ np.arange(32)))
        out[1:] += (1 if a == b else 2) / 36 * best[:31]
    return tuple(out)


def test_one_sided_3_points_equals_an_exhaustive_recursion_on_the_oracle():
    db = bearoff.build_one_sided(3)
    positions = enumerate_positions(3, 15)
    for i in range(0, len(positions), 7):
        got, _ = db.distributions(np.array([i]))
        assert np.abs(got[0] - np.array(_rolls_distribution(positions[i]))).max() < 2e-4, positions[i]


def test_one_sided_evaluate_combines_the_two_distributions():
    db = bearoff.build_one_sided(3)
    me, them = (2, 2, 1), (0, 3, 0)
    a = np.array(_rolls_distribution(me))
    b = np.array(_rolls_distribution(them))
    want = sum(a[i] * b[i:].sum() for i in range(32))
    got = bearoff.evaluate(board_of(me, them)[None], db)[0]
    assert got[0] == pytest.approx(want, abs=2e-4)
    assert got[1] == got[2] == got[3] == got[4] == 0  # fewer than 15 checkers: no gammons


@pytest.mark.parametrize("gammons", [True, False])
def test_evaluate_reads_every_layout_alike(tmp_path, gammons):
    # the same database held as tables, in the compressed layout, and read back from a
    # compressed and an uncompressed file (memory-mapped): the same outputs to the bit
    tables = bearoff.build_one_sided(4, gammons=gammons)
    packed = bearoff.build_one_sided(4, gammons=gammons, compress=True)
    for compress in (True, False):
        bearoff.write_gnubg(tmp_path / f"{compress}.bd", tables, compress=compress)
    dbs = [tables, packed] + [bearoff.read_gnubg(tmp_path / f"{c}.bd") for c in (True, False)]
    rng = np.random.default_rng(4)
    boards = np.zeros((3000, 2, 25), np.int8)
    for side in (0, 1):  # a share of checkers kept per board: some near 15 (gammons), some few
        keep = rng.random(3000)
        for k in range(15):
            live = rng.random(3000) < keep
            np.add.at(boards[:, side, :], (np.nonzero(live)[0], rng.integers(0, 4, 3000)[live]), 1)
    want = bearoff.evaluate(boards, tables)
    assert want[:, 0].min() < 0.5 < want[:, 0].max() and (want[:, 3] > 0).any() == gammons
    assert (want[:, 1] > 0).any() == gammons
    for db in dbs[1:]:
        assert np.array_equal(bearoff.evaluate(boards, db), want)


def test_gammons_from_the_first_checker_distributions():
    db = bearoff.build_one_sided(6)
    # 15 checkers on the 6-point against one on the ace: the ace side wins whatever
    # happens, a gammon unless the side on roll bears one checker off now: any 6 (11
    # rolls), 5-1 and 4-2 (6/1/off, 6/2/off: 4 rolls), 3-3 and 2-2 (2 rolls): 17 of 36
    out = bearoff.evaluate(board_of([0, 0, 0, 0, 0, 15], [1])[None], db)[0]
    assert out[0] == 0 and out[1] == 0
    assert out[3] == pytest.approx(19 / 36, abs=2e-5)
    # and the other way round: the ace side on roll bears off, a gammon
    out = bearoff.evaluate(board_of([1], [0, 0, 0, 0, 0, 15])[None], db)[0]
    assert out[0] == pytest.approx(1) and out[1] == pytest.approx(1)


def test_evaluate_agrees_with_gnubg_nn_probabilities():
    gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg-nn not installed: pip install '.[peers]'")
    rng = np.random.default_rng(17)
    one, two = bearoff.build_one_sided(6), bearoff.build_two_sided(6, 6)
    boards = []
    for _ in range(300):
        sides = []
        for _side in range(2):
            n = int(rng.integers(1, 16))
            sides.append(np.bincount(rng.integers(0, 6, n), minlength=6))
        boards.append(board_of(*sides))
    boards = np.stack(boards)
    got = bearoff.evaluate(boards, two, one)
    for b, row in zip(boards, got):
        want = gnubg_nn.probabilities(b.tolist(), 0)
        assert np.allclose(row, want, atol=2e-5), (b.tolist(), row, want)


def test_one_sided_distributions_agree_with_gnubg_nn():
    gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg-nn not installed: pip install '.[peers]'")
    db = bearoff.build_one_sided(6)
    for i in range(1, db.size, 331):
        want = gnubg_nn.bearoff_probabilities(i)  # P(1 roll), P(2 rolls), ...
        got, _ = db.distributions(np.array([i]))
        assert np.allclose(got[0, 1 : 1 + len(want)], want, atol=1e-6), i


def test_evaluate_masks_or_raises_outside():
    db = bearoff.build_one_sided(3)
    boards = np.stack([board_of([1], [1]), fastgen.STARTING_BOARD])
    with pytest.raises(OutsideDatabaseError, match="board 1 .*4HPwATDgc/ABMA"):
        bearoff.evaluate(boards, db)
    out = bearoff.evaluate(boards, db, outside="mask")
    assert np.isfinite(out[0]).all() and np.isnan(out[1]).all()
    assert bearoff.covered(boards, db).tolist() == [True, False]


def test_the_first_database_holding_a_board_is_used():
    one, two = bearoff.build_one_sided(6), bearoff.build_two_sided(6, 3)
    boards = np.stack([board_of([0, 1, 2], [3]), board_of([0, 5], [3])])
    both = bearoff.evaluate(boards, two, one)
    assert both[0, 0] == pytest.approx(bearoff.evaluate(boards[:1], two)[0, 0])
    assert both[1, 0] == pytest.approx(bearoff.evaluate(boards[1:], one)[0, 0])


# -------------------------------------------------------------------------- files


@pytest.mark.parametrize("compress", [True, False])
@pytest.mark.parametrize("gammons", [True, False])
def test_one_sided_file_round_trip(tmp_path, compress, gammons):
    db = bearoff.build_one_sided(4, gammons=gammons)
    path = tmp_path / "os.bd"
    bearoff.write_gnubg(path, db, compress=compress)
    back = bearoff.read_gnubg(path)
    assert isinstance(back, bearoff.OneSidedDatabase) and back.gammons == gammons
    assert (back.rolls == db.rolls).all()
    if gammons:
        assert (back.gammon == db.gammon).all()
    idx = np.array([0, 5, 3875])
    assert np.array_equal(back.stored(idx)[0], db.stored(idx)[0])


@pytest.mark.parametrize("gammons", [True, False])
def test_compressed_build_holds_the_same_distributions(gammons):
    # 5 points: 15,504 positions, so the runs' buffer grows several times during the build
    full = bearoff.build_one_sided(5, gammons=gammons)
    packed = bearoff.build_one_sided(5, gammons=gammons, compress=True)
    assert packed.index_bytes is not None and packed.index_bytes.shape == (full.size, 8 if gammons else 6)
    assert np.array_equal(packed.rolls, full.rolls)
    if gammons:
        assert np.array_equal(packed.gammon, full.gammon)
    else:
        assert packed.gammon is None
    idx = np.array([0, 1, 77, full.size - 1])
    assert np.array_equal(packed.stored(idx)[0], full.stored(idx)[0])


def test_compress_must_be_a_bool():
    with pytest.raises(InvalidArgumentError, match="compress must be True or False, got 'yes'"):
        bearoff.build_one_sided(2, compress="yes")  # type: ignore[arg-type]


@pytest.mark.parametrize("cubeful", [True, False])
def test_two_sided_file_round_trip(tmp_path, cubeful):
    db = bearoff.build_two_sided(4, 3, cubeful=cubeful)
    path = tmp_path / "ts.bd"
    bearoff.write_gnubg(path, db)
    back = bearoff.read_gnubg(path)
    assert isinstance(back, bearoff.TwoSidedDatabase) and back.cubeful == cubeful
    assert np.array_equal(np.asarray(back.values), db.values)


def test_two_threads_build_the_same_table():
    assert np.array_equal(bearoff.build_two_sided(5, 4, threads=2).values, bearoff.build_two_sided(5, 4).values)


# ------------------------------------------------------------------------ bad input


def test_wrong_file_type(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("these are not the checkers you are looking for\n" * 3)
    with pytest.raises(BearoffFileError, match="notes.txt.*header"):
        bearoff.read_gnubg(path)
    with pytest.raises(BearoffFileError, match="missing.bd"):
        bearoff.read_gnubg(tmp_path / "missing.bd")
    short = tmp_path / "short.bd"
    short.write_bytes(b"gnubg")
    with pytest.raises(BearoffFileError, match="short.bd.*shorter than"):
        bearoff.read_gnubg(short)


@pytest.mark.parametrize("build", [lambda: bearoff.build_one_sided(3), lambda: bearoff.build_two_sided(3, 3)])
@pytest.mark.parametrize("compress", [True, False])
def test_truncated_file(tmp_path, build, compress):
    path = tmp_path / "cut.bd"
    data = bearoff.files.encode_gnubg(build(), compress=compress)
    path.write_bytes(data[:-2])
    with pytest.raises(BearoffFileError, match="cut.bd.*(truncated|damaged)"):
        bearoff.read_gnubg(path)


def test_damaged_index(tmp_path):
    data = bytearray(bearoff.files.encode_gnubg(bearoff.build_one_sided(3)))
    data[40 + 8 * 5] ^= 0x40  # the offset of position 5
    path = tmp_path / "bad.bd"
    path.write_bytes(bytes(data))
    with pytest.raises(BearoffFileError, match="bad.bd.*index is damaged"):
        bearoff.read_gnubg(path)


def test_points_or_checkers_out_of_range():
    for bad in (0, 13, -1, 2.0, True, "6"):
        with pytest.raises(OutsideDatabaseError, match=f"points .*{bad!r}"):
            bearoff.build_one_sided(bad)
    with pytest.raises(OutsideDatabaseError, match="checkers .*16"):
        bearoff.build_two_sided(6, 16)
    with pytest.raises(OutsideDatabaseError, match="0 to 9.*10"):
        bearoff.index_position(10, 3, 2)
    with pytest.raises(OutsideDatabaseError, match=r"total at most 15"):
        bearoff.position_index([10, 6])
    with pytest.raises(InvalidBoardError):
        bearoff.evaluate(np.zeros((1, 2, 24), np.int8), bearoff.build_one_sided(2))


def test_positions_outside_a_database_are_named():
    db = bearoff.build_two_sided(3, 3)
    with pytest.raises(OutsideDatabaseError, match="0 to 19, got position 20"):
        db.equities(np.array([20]), np.array([0]))


def test_a_stop_request_ends_the_compiled_loops_early():
    # what Ctrl-C does through fastgen._util.run_threads: the flag is read in the nogil loops
    stop = _build.BuildStop()
    stop.set()
    size = bearoff.n_positions(4)
    index, data = np.zeros((size, 8), np.uint8), np.zeros(size * 64, np.uint16)
    mean, gmean = np.zeros(size, np.uint16), np.zeros(size, np.uint16)
    cursor = np.zeros(4, np.int8)
    assert _build.one_sided_packed(4, index, data, 0, mean, gmean, cursor, 0, size, _build.Children(4), stop) == (0, 0)
    offsets, kids = bearoff.build.children_table(3, 3)
    values = np.zeros((20, 20, 4), np.uint16)
    assert _build.two_sided(values, offsets, kids, 0, 20, 0, 1, -1, stop) == 0
    assert not values.any()


def test_cli_eval_json_names_the_database_it_used(tmp_path, capsys):
    from fastgen.cli.main import main

    path = str(tmp_path / "os3.bd")
    size = bearoff.write_gnubg(path, bearoff.build_one_sided(3))
    board = board_of([1, 1], [2])
    pid = fastgen.position_id(board)
    assert main(["bearoff", "eval", pid, "--database", path, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["database"] == {"path": path, "kind": "one-sided", "points": 3, "checkers": 15,
                                "positions": bearoff.n_positions(3, 15), "bytes": size}
    assert data["position"] == pid
    assert data["P(win)"] == bearoff.evaluate(board[None], bearoff.read_gnubg(path))[0, 0]
    # The default, built in memory: no file.
    assert main(["bearoff", "eval", pid, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["database"] == {"path": None, "kind": "two-sided", "points": 6, "checkers": 6,
                                "positions": bearoff.n_positions(6, 6), "bytes": None}
