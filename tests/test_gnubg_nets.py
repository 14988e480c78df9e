"""GNU Backgammon's 0-ply evaluation compiled (fastgen.nets.gnubg) against gnubg-nn.

gnubg-nn (the ``peers`` extra, weights 1.01) is the reference: its
``probabilities(board, 0)`` on at least 20,000 positions of each class (bear-off, race,
crashed, contact) from games of mixed strength (tests/_gnubg_positions.py) must equal
fastgen's within 1e-6 on all five outputs; the largest difference per class is printed,
with every position above 1e-7. The compiled loops of every instruction set give the
same bits, and so do one and two threads, and turned boards. Skipped, with the reason
shown, when gnubg-nn is not installed.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import fastgen
from fastgen.bearoff.gnubg import first_checker_distributions
from fastgen.errors import GnubgWeightsNotFoundError, InvalidBoardError, NetworkFileError
from fastgen.nets import _gnubg, _gnubg_eval, gnubg
from fastgen.players import evaluators

from _gnubg_positions import mixed

gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg-nn not installed: pip install '.[peers]'")

TOL = 1e-6
PER_CLASS = 20_000


@pytest.fixture(scope="module")
def nets():
    return gnubg.load()


@pytest.fixture(scope="module")
def sample(nets):
    """At least PER_CLASS positions of each class but over (at most 25,000 of each), with
    their classes and gnubg-nn's probabilities."""
    boards = mixed(11, 6000, nets)
    classes = gnubg.classify(boards)
    rng = np.random.default_rng(0)
    keep = []
    for c in range(1, 5):
        rows = np.flatnonzero(classes == c)
        assert len(rows) >= PER_CLASS, (gnubg.CLASSES[c], len(rows))
        keep.append(rng.choice(rows, min(len(rows), 25_000), replace=False))
    rows = np.sort(np.concatenate(keep))
    boards, classes = np.ascontiguousarray(boards[rows]), classes[rows]
    theirs = np.array([gnubg_nn.probabilities(b, 0) for b in boards.tolist()])
    return boards, classes, theirs


def test_every_class_equals_gnubg_nn_within_1e_6(nets, sample):
    boards, classes, theirs = sample
    ours = nets.evaluate(boards)
    assert ours.shape == theirs.shape and ours.dtype == np.float64
    diff = np.abs(ours - theirs)
    failures = []
    for c in range(1, 5):
        rows = classes == c
        worst = diff[rows].max(axis=0)
        above = np.flatnonzero(rows & (diff.max(axis=1) > 1e-7))
        print(f"{gnubg.CLASSES[c]}: {rows.sum()} positions, largest difference per output "
              f"{np.array2string(worst, precision=2)}, {len(above)} above 1e-7")
        for i in above[:20]:
            print(f"   {gnubg.CLASSES[c]} {boards[i].tolist()} ours {ours[i].tolist()} gnubg-nn {theirs[i].tolist()}")
        if worst.max() > TOL:
            i = np.flatnonzero(rows)[np.argmax(diff[rows].max(axis=1))]
            failures.append((gnubg.CLASSES[c], float(worst.max()), boards[i].tolist(), ours[i].tolist(), theirs[i].tolist()))
    assert not failures, failures


def test_every_instruction_set_threads_and_turned_boards_give_the_same_bits(nets, sample):
    boards = sample[0][:30_000]
    best = _gnubg_eval.select_kernels()
    try:
        results = []
        for level in range(best + 1):
            assert _gnubg_eval.select_kernels(level) == level
            results.append(nets.evaluate(boards))
    finally:
        _gnubg_eval.select_kernels()
    for r in results[1:]:
        assert np.array_equal(r.view(np.uint64), results[0].view(np.uint64))
    assert np.array_equal(nets.evaluate(boards, threads=2), results[0])
    turned = np.ascontiguousarray(boards[:, ::-1])
    assert np.array_equal(nets.evaluate(turned, turned=True), results[0])


def _forward_in_order(arrays, beta_h, beta_o, x):
    """A net's five outputs in numpy float32, gnubg's order: each hidden sum the threshold
    then the non-zero inputs' terms by index, each output the threshold then the hidden
    units' terms by index; gnubg's sigmoid (no corrections)."""
    w, wo, th, to = arrays
    h = np.repeat(th[None], len(x), axis=0)
    for i in range(w.shape[0]):
        on = x[:, i] != 0
        h[on] = h[on] + x[on, i:i + 1] * w[i]
    a = _gnubg.sigmoid(np.float32(-beta_h) * h)
    r = np.repeat(to[None], len(x), axis=0)
    for j in range(w.shape[1]):
        r = r + a[:, j:j + 1] * wo[:, j]
    return _gnubg.sigmoid(np.float32(-beta_o) * r)


@pytest.mark.parametrize("hidden", [40, 100])
def test_nets_of_other_widths_sum_in_order_at_every_instruction_set(nets, sample, hidden):
    """Nets of fewer hidden units than gnubg's 128 (not a multiple of the vector loops'
    blocks: their remainder paths) give, at every level, the outputs of the sums in
    gnubg's order (numpy, one term at a time), corrected."""
    boards, classes = sample[0][:1500], sample[1][:1500]
    specs = {}
    for name in ("race", "crashed", "contact"):
        arrays, beta_h, beta_o = gnubg._net_spec(nets.weights, name)
        w, wo, th, to = arrays
        specs[name] = ((np.ascontiguousarray(w[:, :hidden]), np.ascontiguousarray(wo[:, :hidden]),
                        np.ascontiguousarray(th[:hidden]), to), beta_h, beta_o)
    tables = _gnubg.RaceTables(nets.one_sided)
    kernel = _gnubg_eval.GnubgKernel(specs["race"], specs["crashed"], specs["contact"], 101,
                                     tables.bearoff, tables.escape, first_checker_distributions())
    expected = np.zeros((len(boards), 5), np.float32)
    inputs = {"race": _gnubg.race_inputs, "crashed": _gnubg.crashed_inputs, "contact": _gnubg.contact_inputs}
    for cls, name in ((_gnubg.RACE, "race"), (_gnubg.CRASHED, "crashed"), (_gnubg.CONTACT, "contact")):
        rows = np.flatnonzero(classes == cls)
        expected[rows] = _forward_in_order(*specs[name], inputs[name](boards[rows]))
    expected = _gnubg.correct(boards, expected, classes, tables)
    best = _gnubg_eval.select_kernels()
    try:
        for level in range(best + 1):
            _gnubg_eval.select_kernels(level)
            got = np.zeros((len(boards), 5), np.float32)
            cls_out = np.empty(len(boards), np.int8)
            kernel.rows(boards, False, got, cls_out, 0, len(boards))
            net_rows = classes >= _gnubg.RACE
            assert np.array_equal(got[net_rows].view(np.uint32), expected[net_rows].view(np.uint32)), level
    finally:
        _gnubg_eval.select_kernels()


def test_gnubg_0_is_the_compiled_nets_and_plays_as_gnubg_nn(nets, sample):
    ev = evaluators.gnubg(0)
    assert isinstance(ev, gnubg.GnubgNetworks) and ev.name == "gnubg:0" and ev.version == "1.01"
    boards = sample[0][:2000]
    assert np.array_equal(ev.evaluate(boards), nets.evaluate(boards))
    # a pickled copy (what a Dask worker gets) reads the same files again
    again = pickle.loads(pickle.dumps(ev))
    assert again.digest() == ev.digest() and np.array_equal(again.evaluate(boards), ev.evaluate(boards))


def test_gnubg_nn_stays_reachable_by_name():
    ev = evaluators.gnubg_nn(0)
    assert ev.name == "gnubg-nn:0"
    b = fastgen.STARTING_BOARD[None]
    assert np.allclose(ev.evaluate(b), evaluators.gnubg(0).evaluate(b), atol=TOL)


def test_classes_of_hand_built_positions():
    start = fastgen.STARTING_BOARD
    race = np.zeros((2, 25), np.int8)
    race[0, 7], race[0, 0] = 10, 5      # the opponent: 10 on its 8-point, 5 on its ace
    race[1, 2], race[1, 8] = 8, 7       # the side on roll: 8 on its 3-point, 7 on its 9-point
    bearoff = np.zeros((2, 25), np.int8)
    bearoff[0, 0:5] = 3
    bearoff[1, 0:3] = 5
    over = bearoff.copy()
    over[1] = 0
    crashed = np.zeros((2, 25), np.int8)  # the side on roll has collapsed: 13 on its ace and deuce
    crashed[1, 0], crashed[1, 1], crashed[1, 23] = 9, 4, 2
    crashed[0, 5], crashed[0, 7], crashed[0, 12], crashed[0, 18] = 5, 3, 5, 2
    got = gnubg.classify(np.stack([over, bearoff, race, crashed, start]))
    assert [gnubg.CLASSES[c] for c in got] == ["over", "bearoff", "race", "crashed", "contact"]


def test_finished_and_bearoff_positions_are_exact(nets):
    won = np.zeros((2, 25), np.int8)
    won[0, 20] = 15                      # the opponent never left: a backgammon for the side that is off
    lost = np.zeros((2, 25), np.int8)
    lost[1, 3] = 15
    got = nets.evaluate(np.stack([won, lost]))
    assert got[0].tolist() == [1, 1, 1, 0, 0]
    assert got[1].tolist() == [0, 0, 0, 1, 0]
    one = np.zeros((2, 25), np.int8)
    one[0, 5], one[1, 0] = 1, 1          # the side on roll is off with any roll
    assert nets.evaluate(one[None])[0, 0] == 1.0


def test_bad_input_and_missing_files_raise_fastgen_errors(nets, tmp_path, monkeypatch):
    with pytest.raises(InvalidBoardError):
        nets.evaluate(np.zeros((1, 2, 24), np.int8))
    with pytest.raises(GnubgWeightsNotFoundError, match="no GNU Backgammon weights file at"):
        gnubg.load(tmp_path / "missing.weights")
    bad = tmp_path / "gnubg.weights"
    bad.write_text("GNU Backgammon 1.01\n250 128 5 0 0.1 1\n1.0\n")
    with pytest.raises(NetworkFileError, match="gnubg.weights"):
        gnubg.load(bad)
    with pytest.raises(NetworkFileError, match="bearoff must be"):
        gnubg.load(bearoff=("only one",))


def test_the_same_play_as_gnubg_nn_on_99_9_percent_of_turns(nets, sample):
    """gnubg:0's greedy choice against gnubg-nn's own (best_move at 0 ply) on 30,000
    positions of every class with random dice (over 20,000 turns with a choice). Where
    the two plays differ, gnubg-nn's must be worth as much by our values (an exact tie:
    both equities equal to the bit, such as two plays of a certain win; the two programs
    list the plays in other orders and keep the first best) or within 1e-5 (a near
    tie), and the near ties at most 0.1% of the turns."""
    boards = sample[0]
    rng = np.random.default_rng(7)
    rows = rng.choice(len(boards), 30_000, replace=False)
    boards = boards[rows]
    dice = rng.integers(1, 7, (len(boards), 2))
    batch = fastgen.plays_batch(boards, dice)
    offsets = np.asarray(batch.offsets, dtype=np.int64)
    cand = np.asarray(batch.boards)
    ours = evaluators.greedy(nets).choose(cand, offsets)
    values = -evaluators.equity(evaluators.opponent_probs(nets, cand))
    ties = near = compared = 0
    for g in range(len(boards)):
        lo, hi = offsets[g], offsets[g + 1]
        if hi - lo <= 1:
            continue
        compared += 1
        _, key = gnubg_nn.best_move(boards[g].tolist(), int(dice[g, 0]), int(dice[g, 1]), n=0, b=1)
        after = np.asarray(gnubg_nn.board_from_position_key(key), dtype=np.int8)[::-1]
        theirs = int(np.flatnonzero((cand[lo:hi] == after).all(axis=(1, 2)))[0])
        if theirs != ours[g]:
            gap = values[lo + ours[g]] - values[lo + theirs]
            assert 0 <= gap < 1e-5, (boards[g].tolist(), dice[g].tolist(), gap)
            if gap == 0:
                ties += 1
            else:
                near += 1
    print(f"{compared} turns with a choice: the same play on {compared - ties - near}, another play of exactly "
          f"the same value on {ties}, a near tie (within 1e-5) on {near}")
    assert compared > 20_000 and near <= compared // 1000


def test_native_greedy_games_are_the_batched_ones(nets):
    """gnubg's nets play whole games inside the compiled game loop (their native chooser,
    with bear-offs valued in C): every game of a rollout and of a duel is the one the
    batched loop plays with the Python greedy player, from the opening, a race with
    gammon chances and a bear-off, on one thread and two."""
    from fastgen.players.evaluators import greedy

    player = greedy(nets)
    assert player.native is nets and player.chooser(0) is not None
    race = np.zeros((2, 25), np.int8)
    race[1, [2, 4, 6, 9, 14]] = [3, 4, 3, 3, 2]
    race[0, [0, 3, 5, 7, 8]] = [3, 3, 3, 3, 3]
    bear = np.zeros((2, 25), np.int8)
    bear[1, :6] = [2, 3, 3, 3, 2, 2]
    bear[0, :6] = [4, 4, 3, 2, 1, 1]
    for start in (None, race, bear):
        for threads in (1, 2):
            runs = [fastgen.rollout(games=300, policy=player, seed=9, start=start, threads=threads, engine=e)
                    for e in ("native", "python")]
            for field in ("winner", "result", "turns"):
                assert np.array_equal(getattr(runs[0], field), getattr(runs[1], field)), (start, threads, field)
    duels = [fastgen.duel(player, "pubeval", 200, seed=4, engine=e) for e in ("native", "python")]
    assert np.array_equal(duels[0].points, duels[1].points) and np.array_equal(duels[0].turns, duels[1].turns)


def test_the_nets_are_read_once_a_process_while_their_files_stay_the_same(nets, tmp_path):
    import os
    import shutil

    assert gnubg.load() is gnubg.load() is evaluators.gnubg(0)
    copy = tmp_path / "gnubg.weights"
    shutil.copyfile(nets.weights.path, copy)
    one, two = (str(p) if p else None for p in gnubg.find_bearoff(nets.weights.path))
    first = gnubg.load(copy, bearoff=(one, two))
    assert gnubg.load(str(copy), bearoff=(one, two)) is first
    stat = os.stat(copy)
    os.utime(copy, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))   # the file changed on disk
    second = gnubg.load(copy, bearoff=(one, two))
    assert second is not first and second.digest() == first.digest()
    assert pickle.loads(pickle.dumps(second)) is second   # in this process: the same files, the same object
