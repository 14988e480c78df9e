"""fastgen.nets.Network, the compiled network, held to a few lines of float64 numpy: its
outputs, its greedy choices, its files, its errors.

The reference (``_forward64``) is the network's formula in float64 over fastgen.encode's
inputs; the compiled network computes in float32 with its own exponential (relative
error below 2e-7), so 1e-5 leaves a margin of about 50 times the largest difference seen
(2e-7) on these positions."""

from __future__ import annotations

import io
import pickle

import numpy as np
import pytest

import fastgen
import fastgen.nets.probs
from fastgen.players import evaluators as ev
from fastgen.core.features import COUNT_SCHEMES, SCHEMES, count_units, encode
from fastgen.errors import InvalidArgumentError, InvalidBoardError, InvalidNetworkError, NetworkFileError
from fastgen.nets import Network, _forward

from _positions import random_play_positions
from _td40 import td40

START = fastgen.STARTING_BOARD
TOL = 1e-5


#: Every ply of random games: contact, bar, race and bear-off positions, about 22,000.
POSITIONS = random_play_positions(games=250, plies=120, seed=11)


def _forward64(weights, biases, x, activation):
    act = {"sigmoid": lambda z: 1 / (1 + np.exp(-z)), "tanh": np.tanh, "relu": lambda z: np.maximum(z, 0)}[activation]
    h = x.astype(np.float64)
    for i, (w, b) in enumerate(zip(weights, biases)):
        h = h @ np.asarray(w, dtype=np.float32).astype(np.float64) + np.asarray(b, dtype=np.float32)
        h = act(h) if i < len(weights) - 1 else 1 / (1 + np.exp(-h))
    return h


def _random_net(sizes, inputs=("tesauro198",), activation="sigmoid", seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    ws = [rng.normal(0, scale / np.sqrt(a), (a, b)) for a, b in zip(sizes, sizes[1:])]
    bs = [rng.normal(0, 0.1, b) for b in sizes[1:]]
    return ws, bs, Network(ws, bs, inputs=inputs, activation=activation)


def _inputs(boards, inputs):
    return np.concatenate([encode(boards, s) for s in inputs], axis=1)


@pytest.mark.parametrize("inputs", [("tesauro198",), ("tesauro198", "raw"), ("raw",)])
@pytest.mark.parametrize("activation", ["sigmoid", "tanh", "relu"])
@pytest.mark.parametrize("hidden", [(128,), (40,), (64, 33), (), (7, 9, 11)])
def test_outputs_equal_a_float64_forward_pass(inputs, activation, hidden):
    width = sum(SCHEMES[s] for s in inputs)
    ws, bs, net = _random_net((width, *hidden, 5), inputs, activation, seed=len(hidden))
    ref = _forward64(ws, bs, _inputs(POSITIONS, inputs), activation)
    got = net.outputs(POSITIONS)
    assert got.dtype == np.float32 and got.shape == (len(POSITIONS), 5)
    assert np.abs(got - ref).max() < TOL


def test_the_positions_cover_contact_race_bar_and_bearoff():
    b = POSITIONS
    bar = (b[:, :, 24] > 0).any(axis=1)
    home = (b[:, :, 6:] == 0).all(axis=(1, 2))  # both sides only in their home boards or off
    assert len(b) >= 20000 and bar.sum() > 500 and home.sum() > 500


def test_answers_are_consistent_probabilities_of_the_outputs():
    # Large weights: raw outputs that break the order rules often.
    _, _, net = _random_net((198, 16, 5), scale=4.0, seed=3)
    raw, p = net.outputs(POSITIONS), net(POSITIONS)
    assert (raw[:, 1] > raw[:, 0]).any()
    np.testing.assert_array_equal(p, fastgen.nets.probs.make_consistent(raw.copy()))
    ev.check_probs(p.astype(np.float64), POSITIONS, "net")


def test_three_outputs_answer_zero_backgammons():
    ws, bs, net = _random_net((198, 20, 3))
    p = net(POSITIONS[:500])
    ref = _forward64(ws, bs, _inputs(POSITIONS[:500], ("tesauro198",)), "sigmoid")
    assert (p[:, [2, 4]] == 0).all()
    assert np.abs(p[:, 0] - ref[:, 0]).max() < TOL


def test_the_first_layer_rows_are_what_encode_gives():
    # A board's inputs are the constant inputs plus the units of each of its counts
    # (the per-count schemes; the contact features go through rows of their own).
    for scheme in COUNT_SCHEMES:
        units, constant = count_units(scheme)
        b = POSITIONS[:2000]
        mover, opp = b[:, 1].astype(int), b[:, 0].astype(int)
        x = np.tile(constant, (len(b), 1)).astype(np.float64)
        for side, row in ((0, mover), (1, opp)):
            for p in range(25):
                x += units[side, p, row[:, p]]
            x += units[side, 25, 15 - row.sum(axis=1)]
        np.testing.assert_array_equal(x.astype(np.float32), encode(b, scheme))


def test_instruction_sets_agree():
    ws, bs, net = _random_net((250, 128, 5), ("tesauro198", "raw"), seed=5)
    best = _forward.select_kernels(None)
    try:
        got = {}
        for level in (0, 1, 2):
            got[_forward.select_kernels(level)] = net.outputs(POSITIONS[:3000])
    finally:
        _forward.select_kernels(None)
    assert _forward.select_kernels(None) == best
    levels = sorted(got)
    for lv in levels[1:]:
        assert np.abs(got[lv] - got[levels[0]]).max() < 1e-6


def test_threads_give_identical_results():
    _, _, net = _random_net((198, 64, 5), seed=2)
    one = net(POSITIONS)
    for threads in (2, 3, 7):
        np.testing.assert_array_equal(net(POSITIONS, threads=threads), one)


def test_numpy_network_with_the_same_weights_agrees():
    rng = np.random.default_rng(4)
    w1, b1 = rng.normal(0, 0.07, (198, 40)), rng.normal(0, 0.1, 40)
    w2, b2 = rng.normal(0, 0.3, (40, 5)), rng.normal(0, 0.1, 5)
    compiled = Network([w1, w2], [b1, b2])
    numpy_net = ev.ReferenceNetwork(w1, b1, w2, b2)
    assert np.abs(compiled(POSITIONS) - numpy_net(POSITIONS)).max() < TOL


# --------------------------------------------------------------------------- the player


def _plain_choices(ws, bs, boards, dice, activation="sigmoid"):
    """plays_batch + a float64 forward pass + argmax of the mover's equity (a play that
    wins scored exactly): the plain loop the compiled player is held to."""
    r = fastgen.plays_batch(boards, dice)
    cand = r.boards
    done = ~cand[:, 1].any(axis=1)
    probs = _forward64(ws, bs, _inputs(np.ascontiguousarray(cand[:, ::-1]), ("tesauro198",)), activation)
    fastgen.nets.probs.make_consistent(probs)
    values = -ev.equity(probs)
    values[done] = ev.equity(ev.finished_probs(cand[done]))
    return r, values


def test_choices_equal_the_plain_loop_except_near_ties():
    ws, bs, net = _random_net((198, 48, 5), seed=8)
    rng = np.random.default_rng(2)
    boards = POSITIONS[rng.permutation(len(POSITIONS))[:4000]]
    dice = rng.integers(1, 7, size=(len(boards), 2))
    r, values = _plain_choices(ws, bs, boards, dice)
    got = net.choose(r.boards, r.offsets)
    mine = net.play_values(r.boards, r.offsets)
    assert np.abs(mine - values).max() < 4 * TOL  # an equity sums four probabilities
    differ = 0
    for g in range(len(boards)):
        lo, hi = r.offsets[g], r.offsets[g + 1]
        want = int(np.argmax(values[lo:hi]))
        if got[g] != want:
            differ += 1
            assert values[lo + want] - values[lo + got[g]] < 1e-5  # a near-tie, and only that
    assert differ <= len(boards) // 100
    np.testing.assert_array_equal(net.choose(r.boards, r.offsets, threads=3), got)


def test_greedy_of_a_compiled_network_is_its_player_and_plays_games():
    _, _, net = _random_net((198, 16, 5), seed=1)
    r = fastgen.plays_batch(POSITIONS[:300], np.tile([[3, 1]], (300, 1)))
    np.testing.assert_array_equal(ev.greedy(net)(r.boards, r.offsets), net.choose(r.boards, r.offsets))
    a = fastgen.rollout(games=64, policy=net, seed=5)
    b = fastgen.rollout(games=64, policy=ev.greedy(net), seed=5)
    assert a.summary().as_dict()["win"] == b.summary().as_dict()["win"]


def test_a_three_output_network_plays_as_the_numpy_one():
    base = td40()
    compiled = Network([base.w1, base.w2], [base.b1, base.b2])
    rng = np.random.default_rng(6)
    boards = POSITIONS[rng.permutation(len(POSITIONS))[:2000]]
    r = fastgen.plays_batch(boards, rng.integers(1, 7, size=(len(boards), 2)))
    a, b = compiled.choose(r.boards, r.offsets), base.choose(r.boards, r.offsets)
    values = compiled.play_values(r.boards, r.offsets)
    for g in np.flatnonzero(a != b):
        lo = r.offsets[g]
        assert abs(values[lo + a[g]] - values[lo + b[g]]) < 1e-5  # near-ties only
    assert (a != b).mean() < 0.01


def test_bad_candidates_are_refused():
    _, _, net = _random_net((198, 8, 5))
    r = fastgen.plays_batch(START[None], np.array([[3, 1]]))
    with pytest.raises(InvalidArgumentError, match="offsets"):
        net.choose(r.boards, [0, len(r.boards) + 1])
    with pytest.raises(InvalidArgumentError, match="offsets"):
        net.choose(r.boards, [0, 0, len(r.boards)])
    bad = r.boards.copy()
    bad[0, 0, 0] = 16
    with pytest.raises(InvalidBoardError):
        net.choose(bad, r.offsets)


# --------------------------------------------------------------------------- files and pickles


def test_save_load_round_trip(tmp_path):
    ws, bs, net = _random_net((250, 24, 12, 5), ("tesauro198", "raw"), "tanh", seed=9)
    net.save(tmp_path / "net")
    back = Network.load(tmp_path / "net.npz")
    assert back.sizes == net.sizes and back.inputs == net.inputs and back.activation == "tanh"
    assert back.digest() == net.digest()
    np.testing.assert_array_equal(back(POSITIONS[:100]), net(POSITIONS[:100]))
    buf = io.BytesIO()
    net.save(buf)
    buf.seek(0)
    assert Network.load(buf).digest() == net.digest()


def test_the_old_one_hidden_layer_files_load(tmp_path):
    base = td40()
    base.save(tmp_path / "old.npz")
    with pytest.warns(DeprecationWarning, match="convert-network"):  # for one more release
        net = Network.load(tmp_path / "old.npz")
    assert net.sizes == (198, 40, 3)
    raw = base.forward(base.features(POSITIONS[:500]))[1]
    assert np.abs(net.outputs(POSITIONS[:500]) - raw).max() < TOL


def test_damaged_and_foreign_files_name_the_path(tmp_path):
    _, _, net = _random_net((198, 8, 5))
    net.save(tmp_path / "good.npz")
    data = (tmp_path / "good.npz").read_bytes()
    (tmp_path / "cut.npz").write_bytes(data[: len(data) // 2])
    np.savez(tmp_path / "other.npz", a=np.zeros(3))
    np.savez(tmp_path / "future.npz", format=np.array("fastgen-network"), version=np.array(99))
    (tmp_path / "text.npz").write_text("not a network")
    for name, match in [("cut.npz", "cut.npz"), ("other.npz", "not a fastgen network"),
                        ("future.npz", "version 99"), ("text.npz", "text.npz"), ("missing.npz", "does not exist")]:
        with pytest.raises(NetworkFileError, match=match):
            Network.load(tmp_path / name)
    assert issubclass(NetworkFileError, ValueError)


def test_about_is_kept_by_files_and_pickles_and_left_out_of_the_digest(tmp_path):
    ws, bs, net = _random_net((198, 8, 5))
    about = {"name": "mine", "version": 3, "config": {"lr": 0.1, "tags": ["a", "b"]}}
    tagged = Network(ws, bs, about=about)
    assert tagged.about == about and net.about == {} and tagged.digest() == net.digest()
    tagged.about["name"] = "changed"  # a copy
    assert tagged.about["name"] == "mine"
    tagged.save(tmp_path / "t.npz")
    assert Network.load(tmp_path / "t.npz").about == about
    assert pickle.loads(pickle.dumps(tagged)).about == about
    net.save(tmp_path / "plain.npz")
    with np.load(tmp_path / "plain.npz") as z:
        assert "about" not in z.files
    for bad, match in [([1, 2], "must be a dict"), ({"x": object()}, "JSON values"), ({"x": float("nan")}, "JSON values"),
                       ({1: "a"}, "text keys"), ({"x": (1, 2)}, "read back the same")]:
        with pytest.raises(InvalidNetworkError, match=match):
            Network(ws, bs, about=bad)
    arrays = dict(np.load(tmp_path / "t.npz"))
    arrays["about"] = np.array("[1, 2]")
    np.savez(tmp_path / "list.npz", **arrays)
    arrays["about"] = np.array("{not json")
    np.savez(tmp_path / "broken.npz", **arrays)
    with pytest.raises(NetworkFileError, match="not a JSON object"):
        Network.load(tmp_path / "list.npz")
    with pytest.raises(NetworkFileError, match="broken.npz"):
        Network.load(tmp_path / "broken.npz")


def test_pickles_small_and_equal():
    _, _, net = _random_net((198, 128, 5))
    data = pickle.dumps(net)
    weights = sum(w.nbytes for w in net.weights) + sum(b.nbytes for b in net.biases)
    assert len(data) < 1.1 * weights  # the weights once, not the kernel's tables
    back = pickle.loads(data)
    np.testing.assert_array_equal(back(POSITIONS[:200]), net(POSITIONS[:200]))


# --------------------------------------------------------------------------- bad weights


@pytest.mark.parametrize("weights, biases, kw, match", [
    ([np.zeros((197, 8)), np.zeros((8, 5))], [np.zeros(8), np.zeros(5)], {}, r"first dimension must be the inputs' width 198"),
    ([np.zeros((198, 8)), np.zeros((9, 5))], [np.zeros(8), np.zeros(5)], {}, r"layer 0's 8 outputs"),
    ([np.zeros((198, 8)), np.zeros((8, 4))], [np.zeros(8), np.zeros(4)], {}, r"5 outputs"),
    ([np.zeros((198, 8)), np.zeros((8, 5))], [np.zeros(7), np.zeros(5)], {}, r"biases\[0\] has shape \(7,\)"),
    ([np.full((198, 8), np.nan), np.zeros((8, 5))], [np.zeros(8), np.zeros(5)], {}, r"nan .* must be finite"),
    ([np.zeros((198, 8)), np.zeros((8, 5))], [np.zeros(8), np.array([0, 0, 0, 0, np.inf])], {}, r"inf"),
    ([np.zeros((198, 8), dtype=int), np.zeros((8, 5))], [np.zeros(8), np.zeros(5)], {}, r"dtype int"),
    ([np.zeros((198, 8)), np.zeros((8, 5))], [np.zeros(8), np.zeros(5)], {"inputs": "tesauro"}, r"unknown input scheme 'tesauro'"),
    ([np.zeros((198, 8)), np.zeros((8, 5))], [np.zeros(8), np.zeros(5)], {"activation": "gelu"}, r"'gelu'"),
    ([np.zeros((198, 4096)), np.zeros((4096, 5))], [np.zeros(4096), np.zeros(5)], {}, r"1 to 2048 units"),
    ([np.zeros((198, 5))] * 10, [np.zeros(5)] * 10, {}, r"1 to 8 layers"),
    (np.zeros((198, 5)), [np.zeros(5)], {}, r"sequences of arrays"),
])
def test_bad_weights_raise_invalid_network_error(weights, biases, kw, match):
    with pytest.raises(InvalidNetworkError, match=match):
        Network(weights, biases, **kw)


def test_weights_are_copied_and_read_only():
    w1, w2 = np.zeros((198, 8)), np.zeros((8, 5))
    net = Network([w1, w2], [np.zeros(8), np.zeros(5)])
    before = net(START[None])
    w2[:] = 5.0
    np.testing.assert_array_equal(net(START[None]), before)
    with pytest.raises(ValueError):
        net.weights[0][0, 0] = 1.0


def test_bad_boards_and_threads_are_refused():
    _, _, net = _random_net((198, 8, 5))
    with pytest.raises(InvalidBoardError):
        net(np.full((1, 2, 25), 3, dtype=np.int8))
    with pytest.raises(InvalidArgumentError, match="threads"):
        net(START[None], threads=0)


# --------------------------------------------------------------------------- sets by class


def _contact_brute(board):
    """Contact by definition: some checker of one side has a checker of the other ahead
    of it (a plain loop over both sides' checkers, bar = point 25)."""
    mover = [p + 1 for p in range(25) if board[1, p] > 0]
    opp = [25 - (p + 1) for p in range(25) if board[0, p] > 0]  # the opponent's points in the mover's numbering
    return any(o < m for m in mover for o in opp)


def test_the_class_rule_is_contact_by_definition():
    from fastgen.nets import sets

    race = sets.is_race(POSITIONS)
    brute = np.array([not _contact_brute(b) for b in POSITIONS])
    np.testing.assert_array_equal(race, brute)
    np.testing.assert_array_equal(sets.is_race(np.ascontiguousarray(POSITIONS[:, ::-1])), race)  # symmetric
    assert race.any() and (~race).any()


def test_a_network_set_sends_each_class_to_its_evaluator():
    from fastgen import bearoff
    from fastgen.nets import NetworkSet, classify

    db = bearoff.build_two_sided(6, 6)
    _, _, contact = _random_net((198, 16, 5), seed=1)
    _, _, race = _random_net((198, 16, 5), seed=2)
    nset = NetworkSet(contact, race, databases=[db])
    classes = classify(POSITIONS, [db])
    got = nset(POSITIONS)
    for name, want in (("contact", contact(POSITIONS)), ("race", race(POSITIONS)),
                       ("bearoff", bearoff.evaluate(POSITIONS[classes == "bearoff"], db))):
        mask = classes == name
        assert mask.sum() > 50, name
        rows = want if name == "bearoff" else want[mask]
        np.testing.assert_allclose(got[mask], rows, rtol=0, atol=1e-7)
    assert nset.counts(POSITIONS) == {c: int((classes == c).sum()) for c in ("bearoff", "race", "contact")}
    assert nset.ordered and len(nset.digest()) == 64
    assert NetworkSet(contact, race, databases=[bearoff.build_two_sided(6, 5)]).digest() != nset.digest()
    t = fastgen.rollout_plays(START, (3, 1), nset, trials=36, plays=2, seed=1)
    assert len(t.rows) == 2
    back = pickle.loads(pickle.dumps(nset))
    np.testing.assert_array_equal(back(POSITIONS[:300]), got[:300])
