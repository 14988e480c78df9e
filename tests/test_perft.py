"""perft: node counts of the game tree, against a plain recursive count over
``legal_plays`` and against GNU Backgammon's generator (gnubg-nn, when installed).
The same counts on a Dask cluster are checked in test_cluster.py."""

import collections
import importlib

import numpy as np
import pytest

import fastgen
from fastgen.errors import InvalidBoardError
from fastgen.search.perft import ROLLS, perft, perft_run, perft_weighted

#: Named positions of the README's perft table (side on roll in row 1).
POSITIONS = {
    "opening": "4HPwATDgc/ABMA",
    "bear-off": "t90OAAC72w0AAA",  # all 30 checkers home, no contact
    "bar": "bJ3BATDgc/ABYA",  # two on the bar against a three-point board
}


def _board(name):
    return fastgen.parse_position_id(POSITIONS[name])


def _naive(board, depth, weighted=False):
    """The definition, one position at a time: no batches, no merging."""
    counts = [0] * depth

    def walk(b, k, w):
        for d1, d2 in ROLLS.tolist():
            rw = w * (1 if d1 == d2 else 2) if weighted else w
            plays = fastgen.legal_plays(b, (d1, d2))
            counts[k] += rw * len(plays)
            if k + 1 < depth:
                for after in plays.boards:
                    if after[1].any():  # the mover has not borne off its last checker
                        walk(after[::-1].copy(), k + 1, rw)

    walk(board, 0, 1)
    return counts


@pytest.mark.parametrize("name", ["opening", "bar", "bear-off"])
def test_perft_matches_the_definition(name):
    board = _board(name)
    assert perft(board, 2) == _naive(board, 2)
    got = perft_weighted(board, 2)
    want = [c / 36**k for k, c in enumerate(_naive(board, 2, weighted=True), start=1)]
    assert got == pytest.approx(want, rel=1e-12)


def test_a_game_that_ends_has_no_children():
    b = np.zeros((2, 25), dtype=np.int8)
    b[0, 5] = 15
    b[1, 0] = 1  # the side on roll has one checker left, on its ace point: every roll wins
    assert perft(b, 3) == [21, 0, 0]
    finished = b.copy()
    finished[1, 0] = 0
    assert perft(finished, 2) == [0, 0]


def test_depth_3_and_batch_size_do_not_change_counts(monkeypatch):
    board = _board("bar")
    want = perft(board, 3)
    mod = importlib.import_module("fastgen.search.perft")  # the module (fastgen.perft is the function)

    monkeypatch.setattr(mod, "BATCH", 7)  # many small batches, merged only within each
    assert perft(board, 3) == want
    assert perft(board, 3, threads=2) == want


@pytest.mark.parametrize("name", ["opening", "bar", "bear-off"])
def test_children_are_merged_exactly_in_the_core(name):
    """merge_children against a plain dict merge of the same expanded batch: every
    distinct child (turned over) once with the summed weight of its copies, finished games
    counted but dropped, and the sort key equal for children with the same opponent row
    only."""
    from fastgen.search import _perft
    from fastgen.cli.workload import random_game_positions

    boards, _ = random_game_positions(40, seed=3)
    boards = np.concatenate([_board(name)[None], boards, _board(name)[None]])  # a repeat
    if name == "bear-off":  # near the end: some children finish the game
        boards = np.concatenate([boards, np.zeros((3, 2, 25), dtype=np.int8)])
        boards[-3:, 0, 5] = 15
        boards[-3:, 1, :3] = [[1, 0, 0], [0, 2, 0], [1, 1, 1]]
    n = boards.shape[0]
    batch = fastgen.plays_batch(np.repeat(boards, len(ROLLS), axis=0), np.tile(ROLLS, (n, 1)))
    row_w = np.arange(1, n * len(ROLLS) + 1, dtype=np.int64)
    m = batch.boards.shape[0]
    kids, w, key = np.empty((m, 2, 25), np.int8), np.empty(m, np.int64), np.empty(m, np.uint64)
    u, total = _perft.merge_children(batch.boards, batch.offsets, row_w, kids, w, key)

    want = collections.Counter()
    counts = np.diff(batch.offsets)
    for r, weight in enumerate(row_w.tolist()):
        for child in batch.boards[batch.offsets[r] : batch.offsets[r + 1]]:
            if child[1].any():
                want[child[::-1].tobytes()] += weight
    assert total == int((row_w * counts).sum())
    assert u == len(want) < m
    assert {kids[i].tobytes(): int(w[i]) for i in range(u)} == dict(want)
    rows = collections.defaultdict(set)
    for i in range(u):
        rows[int(key[i]) >> 24].add(kids[i, 0].tobytes())
    assert all(len(v) == 1 for v in rows.values())  # the key's high bits: one opponent row
    assert len(rows) == len({kids[i, 0].tobytes() for i in range(u)})
    if name == "bear-off":
        assert any(not b[1].any() for b in batch.boards)  # finished children were there


def test_last_level_counts_every_roll_in_one_pass():
    """count_rolls (each board read once for its 21 rolls) against count_plays_batch over
    the repeated boards; an invalid board is reported by index, and perft refuses it."""
    from fastgen.search import _perft
    from fastgen.cli.workload import random_game_positions

    boards, _ = random_game_positions(300, seed=9)
    n = boards.shape[0]
    want = fastgen.count_plays_batch(np.repeat(boards, len(ROLLS), axis=0), np.tile(ROLLS, (n, 1)))
    got = np.empty((n, len(ROLLS)), dtype=np.int64)
    assert _perft.count_rolls(boards, ROLLS, got) == -1
    assert np.array_equal(got, want.reshape(n, len(ROLLS)))
    bad = boards.copy()
    bad[7, 1, 3] += 1  # 16 checkers
    assert _perft.count_rolls(bad, ROLLS, got) == 7
    with pytest.raises(ValueError, match="dice 1..6"):
        _perft.count_rolls(boards, np.array([[0, 1]], dtype=np.int8), got[:, :1].copy())
    mod = importlib.import_module("fastgen.search.perft")
    with pytest.raises(InvalidBoardError):
        mod._roll_counts(bad, 1)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="depth"):
        perft(fastgen.STARTING_BOARD, 0)
    with pytest.raises(InvalidBoardError):
        perft(np.zeros((2, 24), dtype=np.int8), 1)
    with pytest.raises(ValueError, match="split_depth"):
        perft_run(fastgen.STARTING_BOARD, 2, split_depth=2, workers=1)


def test_cli_prints_the_table(capsys):
    from fastgen.cli.main import main

    assert main(["perft", "--depth", "2", "--position", POSITIONS["bar"], "--json"]) == 0
    import json

    data = json.loads(capsys.readouterr().out)
    assert [row["nodes"] for row in data["rows"]] == perft(_board("bar"), 2)
    assert main(["perft", "--depth", "2"]) == 0
    text = capsys.readouterr().out
    assert "202,782" in text and "4HPwATDgc/ABMA" in text


# --------------------------------------------------------------------------- gnubg


def _gnubg_perft(gnubg, board, depth):
    """perft with GNU Backgammon's generator: gnubg_nn.moves gives the distinct plays
    (an empty tuple for a lost turn, which is one play: the same position)."""
    counts = [0] * depth
    level = collections.Counter({tuple(map(tuple, board.tolist())): 1})
    for k in range(depth):
        nxt = collections.Counter()
        for b, mult in level.items():
            lists = [list(b[0]), list(b[1])]
            for d1, d2 in ROLLS.tolist():
                keys = set(gnubg.moves(lists, d1, d2))
                children = [gnubg.board_from_position_key(key) for key in keys] or [b]
                counts[k] += mult * len(children)
                if k + 1 < depth:
                    for after in children:
                        if any(after[1]):
                            nxt[(tuple(after[1]), tuple(after[0]))] += mult
        level = nxt
    return counts


@pytest.mark.parametrize(
    "position, depth",
    [(POSITIONS["opening"], 2), (POSITIONS["bar"], 2), (POSITIONS["bear-off"], 2), ("mgIAQJoAAAAAAA", 3)],
    ids=["opening-2", "bar-2", "bear-off-2", "five-checker-race-3"],
)
def test_perft_matches_gnubg(position, depth):
    gnubg = pytest.importorskip("gnubg_nn", reason="gnubg-nn not installed: pip install '.[peers]'")
    board = fastgen.parse_position_id(position)
    assert perft(board, depth) == _gnubg_perft(gnubg, board, depth)


def test_import_and_in_process_perft_and_rollout_do_not_import_dask():
    from _child import run_python

    code = (
        "import sys, fastgen; fastgen.perft(fastgen.STARTING_BOARD, 2); fastgen.rollout(games=10);"
        "print(sorted(m for m in ('dask', 'distributed', 'cloudpickle') if m in sys.modules))"
    )
    out = run_python("-c", code, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("n, tasks", [(10, 3), (10, 10), (3, 8), (4096 + 5, 5)])
def test_split_cuts_the_frontier_into_contiguous_slices(n, tasks):
    """The Dask split keeps neighbouring (similar, sorted) positions in one task: slices
    are contiguous, in order, cover the frontier once and differ in length by at most one."""
    from fastgen.search.perft import _split

    boards = np.arange(n * 50, dtype=np.int64).astype(np.int8).reshape(n, 2, 25)
    weights = np.arange(n, dtype=np.int64)
    parts = _split(boards, weights, tasks)
    assert len(parts) == min(n, tasks)
    np.testing.assert_array_equal(np.concatenate([w for _, w in parts]), weights)
    np.testing.assert_array_equal(np.concatenate([b for b, _ in parts]), boards)
    assert max(len(w) for _, w in parts) - min(len(w) for _, w in parts) <= 1


@pytest.mark.parametrize("n, tasks", [(10, 3), (10, 10), (12, 5), (100, 7)])
def test_split_by_cost_balances_contiguous_slices(n, tasks):
    """Cut by cost (the children of each position), slices stay contiguous and non-empty,
    and no slice costs more than an equal share plus its most expensive position."""
    from fastgen.search.perft import _split

    rng = np.random.default_rng(n)
    boards = np.zeros((n, 2, 25), dtype=np.int8)
    weights = np.arange(n, dtype=np.int64)
    for cost in (rng.integers(0, 50, n), np.zeros(n), np.r_[np.zeros(n - 1), 1e6], np.r_[1e6, np.zeros(n - 1)]):
        parts = _split(boards, weights, tasks, cost)
        assert len(parts) == min(n, tasks) and all(len(w) for _, w in parts)
        np.testing.assert_array_equal(np.concatenate([w for _, w in parts]), weights)
        share = (cost + 1).sum() / len(parts)
        assert max((cost[w] + 1).sum() for _, w in parts) <= share + (cost + 1).max()
