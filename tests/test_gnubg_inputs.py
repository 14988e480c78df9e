"""GNU Backgammon's network inputs, classes and sigmoid (fastgen.nets._gnubg) against gnubg-nn.

gnubg-nn is used as a black box: its ``probabilities(board, 0)`` (0 ply, gnubg 1.01's
weights), its ``classify(board)``, and its weights file (read by :mod:`fastgen.nets.gnubg_weights`). Our
inputs go through gnubg's forward pass written below with numpy in float32, in gnubg's
summation order (each hidden sum starts at its threshold and adds the inputs one by one;
each output adds the hidden units one by one), with OUR compiled sigmoid; the result must
equal gnubg-nn's probabilities within 1e-6 on thousands of positions of each class from
self-play games (pubeval's plays, some or all of them replaced by random plays, and
gnubg-nn's own 0-ply plays).

What gnubg changes after its net at 0 ply is left out of the comparison:

- its clamps (a gammon at most its side's wins, a backgammon at most its gammons) are
  applied to our outputs too, as gnubg does;
- an output gnubg returns as exactly 0 is skipped: contact outputs below 1e-4 are zeroed,
  and its sanity checks zero the gammons a side can no longer win or lose (a side that
  has borne off a checker cannot be gammoned);
- so is an output of exactly 1: its certain-win, certain-loss and certain-gammon tests
  (positions without contact);
- on race positions the backgammon outputs (2 and 4) are skipped: gnubg replaces them by
  its race backgammon estimate.

A second check reads each of the 50 hand-made inputs alone: gnubg-nn loads a weights file
whose contact and crashed nets see one input only, and its P(win) must equal that probe
net's value over our inputs.

Skipped, with the reason shown, when gnubg-nn is not installed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import fastgen
from fastgen.errors import InvalidBoardError
from fastgen.nets import _gnubg
from fastgen.nets.gnubg_weights import read_weights

from _gnubg_positions import board, self_play

gnubg = pytest.importorskip("gnubg_nn", reason="gnubg-nn not installed: pip install '.[peers]'")

WEIGHTS = Path(gnubg.__file__).parent / "data" / "gnubg.weights"
TOL = 1e-6


# ------------------------------------------------------------------ gnubg-nn's weights file

#: gnubg-nn's name line for each net, in its file's order.
NN_NAMES = {"race": "race", "prune race": "prune race", "crashed": "crashed",
            "prune crashed": "prune crashed", "contact": "contact contact250", "prune contact": "prune contact"}
WEIGHTS_FILE = read_weights(WEIGHTS)


def as_dict(net) -> dict:
    return {"W": net.hidden_weights, "Wo": net.output_weights, "th": net.hidden_bias, "to": net.output_bias,
            "bh": np.float32(net.beta_hidden), "bo": np.float32(net.beta_output)}


NETS = {name: as_dict(net) for name, net in WEIGHTS_FILE.nets.items()}


def write_nn_text(nets: dict[str, dict], path: Path) -> None:
    """*nets* (by our names) in gnubg-nn's text layout, every float written so it reads back
    to the same float32."""
    out = ["GNU Backgammon " + WEIGHTS_FILE.version]
    for name, nn_name in NN_NAMES.items():
        net = nets[name]
        n_in, n_hid = net["W"].shape
        out += [nn_name, f"{n_in} {n_hid} {net['Wo'].shape[0]} 0 {float(net['bh']):.7f} {float(net['bo']):.7f}"]
        values = np.concatenate([net["W"].ravel(), net["Wo"].ravel(), net["th"], net["to"]]).astype(np.float32)
        out += ["%.9g" % v for v in values.tolist()]
    path.write_text("\n".join(out) + "\n")


def forward(net: dict, x: np.ndarray) -> np.ndarray:
    """gnubg's forward pass over rows of inputs, float32 in its order, our sigmoid."""
    h = np.repeat(net["th"][None], len(x), 0)
    for i in range(x.shape[1]):
        h += x[:, i : i + 1] * net["W"][i]
    a = _gnubg.sigmoid(-net["bh"] * h)
    r = np.repeat(net["to"][None], len(x), 0)
    for j in range(a.shape[1]):
        r += a[:, j : j + 1] * net["Wo"][:, j]
    return _gnubg.sigmoid(-net["bo"] * r)


def clamp(p: np.ndarray) -> np.ndarray:
    """gnubg's clamps after its net: WG <= W, LG <= 1 - W, WBG <= WG, LBG <= LG."""
    p = p.astype(np.float64).copy()
    p[:, 1] = np.minimum(p[:, 1], p[:, 0])
    p[:, 3] = np.minimum(p[:, 3], 1 - p[:, 0])
    p[:, 2] = np.minimum(p[:, 2], p[:, 1])
    p[:, 4] = np.minimum(p[:, 4], p[:, 3])
    return p


def test_the_weights_file_holds_six_nets_of_the_documented_shapes():
    assert WEIGHTS_FILE.layout == "gnubg-nn text" and WEIGHTS_FILE.version == "1.01"
    shapes = {name: (net["W"].shape, net["Wo"].shape) for name, net in NETS.items()}
    assert shapes["race"] == ((214, 128), (5, 128))
    assert shapes["crashed"] == shapes["contact"] == ((250, 128), (5, 128))
    assert all(net["bh"] == np.float32(0.1) and net["bo"] == 1 for net in NETS.values())


# ------------------------------------------------------------------ positions


def gnubg_play_positions(seed: int, games: int) -> np.ndarray:
    """Every position on roll of *games* games of gnubg-nn's 0-ply plays (its best_move:
    checker moves as (from, to) points of the side on roll, 25 the bar, 0 off)."""
    rng = np.random.default_rng(seed)
    seen = []
    for _ in range(games):
        b = fastgen.STARTING_BOARD.copy()
        while b[0].sum() and b[1].sum():
            seen.append(b.copy())
            d1, d2 = (int(d) for d in rng.integers(1, 7, 2))
            for f, t in gnubg.best_move(b.tolist(), d1, d2):
                b[1, f - 1] -= 1
                if t > 0:
                    if b[0, 24 - t] == 1:  # a hit
                        b[0, 24 - t] = 0
                        b[0, 24] += 1
                    b[1, t - 1] += 1
            b = fastgen.swap_sides(b)
    return np.stack(seen)


@pytest.fixture(scope="module")
def positions():
    boards = np.concatenate([self_play(s, 250, share) for s, share in ((1, 0.0), (2, 0.3), (3, 1.0))]
                            + [gnubg_play_positions(4, 150)])
    boards = np.unique(boards, axis=0)
    probs = np.array([gnubg.probabilities(b.tolist(), 0) for b in boards])
    classes = np.array([gnubg.classify(b.tolist()) for b in boards])
    return boards, probs, classes


def test_classify_agrees_with_gnubg_nn(positions):
    boards, _, theirs = positions
    # gnubg-nn's codes: c_over 0, 1 two-sided bear-off (inside ours), c_bearoff 2 (one-sided),
    # c_race 3, c_crashed 4, c_contact 5
    as_ours = np.array([_gnubg.OVER, _gnubg.BEAROFF, _gnubg.BEAROFF, _gnubg.RACE, _gnubg.CRASHED, _gnubg.CONTACT])
    ours = _gnubg.classify(boards)
    assert ours.dtype == np.int8 and ours.shape == (len(boards),)
    bad = np.where(ours != as_ours[theirs])[0]
    assert not len(bad), boards[bad[:3]].tolist()
    counts = np.bincount(ours, minlength=5)
    assert counts[_gnubg.RACE] >= 2000 and counts[_gnubg.CRASHED] >= 2000 and counts[_gnubg.CONTACT] >= 2000, counts


@pytest.mark.parametrize(
    "cls, net, encode, outputs",
    [
        # race: the backgammon outputs are gnubg's race estimate, not the net's
        (_gnubg.RACE, "race", _gnubg.race_inputs, [0, 1, 3]),
        (_gnubg.CRASHED, "crashed", _gnubg.crashed_inputs, [0, 1, 2, 3, 4]),
        (_gnubg.CONTACT, "contact", _gnubg.contact_inputs, [0, 1, 2, 3, 4]),
    ],
    ids=["race", "crashed", "contact"],
)
def test_net_on_our_inputs_gives_gnubg_nn_probabilities(positions, cls, net, encode, outputs):
    boards, probs, _ = positions
    rows = np.where(_gnubg.classify(boards) == cls)[0]
    assert len(rows) >= 2000
    ours = clamp(forward(NETS[net], encode(boards[rows])))
    theirs = probs[rows]
    compared = 0
    for k in outputs:
        # gnubg's exact 0s and 1s: the 1e-4 cut and its sanity checks (certain wins and
        # losses, gammons that can no longer happen or cannot be avoided)
        keep = (theirs[:, k] > 0) & (theirs[:, k] < 1)
        diff = np.abs(ours[keep, k] - theirs[keep, k])
        compared += keep.sum()
        worst = np.argmax(diff) if len(diff) else 0
        assert not len(diff) or diff.max() <= TOL, (k, diff.max(), boards[rows[keep]][worst].tolist())
        print(f"{net} output {k}: {keep.sum()} compared, largest difference {diff.max():.2e}")
    assert compared >= 2000 * len(outputs) // 2


def test_version_100_changes_only_the_shot_inputs(positions):
    boards = positions[0]
    rows = _gnubg.classify(boards) >= _gnubg.CRASHED
    for encode in (_gnubg.contact_inputs, _gnubg.crashed_inputs):
        new, old = encode(boards[rows], 1.01), encode(boards[rows], "1.00")
        differ = np.where((new != old).any(0))[0]
        assert set(differ) <= {207, 208, 209, 232, 233, 234}, differ
        assert len(differ)  # the old rule does make a difference on some positions


# ------------------------------------------------------------------ each input alone


def test_each_hand_made_input_alone_matches_gnubg_nn(positions, tmp_path):
    """gnubg-nn with probe nets: P(win) = sigmoid(3 - 6 sigmoid(x_i)) for one input x_i of
    the contact and crashed nets (gammons near 0); it must match the same probe over ours."""
    boards = positions[0]
    classes = _gnubg.classify(boards)
    rng = np.random.default_rng(0)
    pick = np.concatenate([rng.choice(np.where(classes == c)[0], 400, replace=False) for c in (_gnubg.CRASHED, _gnubg.CONTACT)])
    sample = boards[pick]
    ours = np.where((classes[pick] == _gnubg.CRASHED)[:, None], _gnubg.crashed_inputs(sample), _gnubg.contact_inputs(sample))
    try:
        for i in range(200, 250):
            probe = {
                "W": np.zeros((250, 128), np.float32), "Wo": np.zeros((5, 128), np.float32),
                "th": np.zeros(128, np.float32), "to": np.array([3, 20, 20, 20, 20], np.float32),
                "bh": np.float32(0.1), "bo": np.float32(1),
            }
            probe["W"][i, 0] = -10
            probe["Wo"][0, 0] = -6
            path = tmp_path / f"probe{i}.weights"
            write_nn_text({**NETS, "crashed": probe, "contact": probe}, path)
            gnubg.net_use(gnubg.net_load(str(path)))
            theirs = np.array([gnubg.probabilities(b.tolist(), 0)[0] for b in sample])
            diff = np.abs(forward(probe, ours)[:, 0] - theirs)
            assert diff.max() <= TOL, (i, sample[np.argmax(diff)].tolist(), ours[np.argmax(diff), i])
    finally:
        gnubg.net_use(gnubg.net_load(str(WEIGHTS)))  # the real nets again, for later tests


# ------------------------------------------------------------------ the sigmoid


def test_sigmoid_is_gnubgs_table_formula():
    x = np.array([0, 0.05, 1, -1, 2.34, -7.77, 9.99, 10, 25, -10, -25, -0.0], np.float32)
    s = _gnubg.sigmoid(x)
    assert s.dtype == np.float32 and s.shape == x.shape
    table = (np.exp(np.arange(100) / 10.0) / 10.0).astype(np.float32)
    for xi, si in zip(x, s):
        a = np.float32(abs(xi))
        if a >= 10:
            # divided in float32, as gnubg-nn's clamped race outputs show (5.0172162e-05)
            top, bottom = np.float32(19930.370438230298), np.float32(19931.370438230298)
            want = np.float32(1) / bottom if xi >= 0 else top / bottom
        else:
            x1 = np.float32(10) * a
            i = int(x1)
            v = np.float32(1) / (np.float32(1) + table[i] * (np.float32(10 - i) + x1))
            want = v if xi >= 0 else np.float32(1) - v
        assert si == want, (xi, si, want)
    assert s[0] == 0.5 and abs(s[2] - 1 / (1 + np.e)) < 1e-3
    # piecewise linear in e^x: a small jump at each tenth
    below, above = _gnubg.sigmoid(np.array([np.nextafter(np.float32(0.3), np.float32(0)), 0.3], np.float32))
    assert above < below and below - above > 1e-4
    assert _gnubg.sigmoid(np.zeros((2, 3), np.float32)).shape == (2, 3)


# ------------------------------------------------------------------ single inputs by hand


MOVER, OTHER = 200, 225  # the contact net's hand-made blocks: the side on roll's, the other's


def test_break_contact_and_freepip():
    # other side's rearmost checker on its index 20 = our index 3: our checker on 10 has
    # (10 + 1 - 3) pips to pass it, ours on 0 are past it (1 pip each to bear off)
    b = board({10: 1, 0: 14}, {20: 1, 0: 14})
    x = _gnubg.contact_inputs(b[None])[0]
    assert x[MOVER + 3] == pytest.approx(8 / 167)
    assert x[MOVER + 23] == pytest.approx(14 / 100)


def test_backg_and_backg1():
    # two anchors in the other's home board (our 18..23) and 7 checkers there: (7 - 3) / 4
    two = board({18: 3, 20: 2, 23: 2, 5: 8}, {2: 15})
    x = _gnubg.contact_inputs(two[None])[0]
    assert (x[MOVER + 21], x[MOVER + 22]) == (1.0, 0.0)
    # one anchor and a blot there: BACKG1 = 3 / 8
    one = board({23: 2, 19: 1, 5: 12}, {5: 15})
    x = _gnubg.contact_inputs(one[None])[0]
    assert (x[MOVER + 21], x[MOVER + 22]) == (0.0, 3 / 8)


def test_enter2_counts_the_other_sides_closed_home_points():
    for closed in range(7):
        other = {i: 2 for i in range(closed)} | {20: 15 - 2 * closed}
        x = _gnubg.contact_inputs(board({24: 1, 12: 14}, other)[None])[0]
        assert x[MOVER + 18] == pytest.approx((36 - (closed - 6) ** 2) / 36)


def test_enter_on_a_closed_board_and_without_a_bar_checker():
    closed = {i: 2 for i in range(6)} | {20: 3}
    x = _gnubg.contact_inputs(board({24: 1, 12: 14}, closed)[None])[0]
    # every roll fails: doubles 4(i+1) each, pairs 2(i+j+2) each
    loss = sum(4 * (i + 1) for i in range(6)) + sum(2 * (i + j + 2) for i in range(6) for j in range(i + 1, 6))
    assert x[MOVER + 17] == pytest.approx(loss / (36 * 49 / 6))
    assert _gnubg.contact_inputs(board({12: 15}, closed)[None])[0][MOVER + 17] == 0


@pytest.mark.parametrize("off, contact, crashed", [
    (0, (0, 0, 0), (0, 0, 0)), (2, (2 / 3, 0, 0), (2 / 5, 0, 0)), (4, (1, 1 / 3, 0), (4 / 5, 0, 0)),
    (7, (1, 1, 1 / 3), (1, 2 / 5, 0)), (12, (1, 1, 2), (1, 1, 2 / 5)),
])
def test_off_units(off, contact, crashed):
    # the side on roll has `off` checkers off; the other side none
    b = board({20: 1, 0: 14 - off}, {20: 1, 0: 14})
    x = _gnubg.contact_inputs(b[None])[0]
    # the contact net carries the side on roll's off units in the other side's block
    assert x[OTHER : OTHER + 3] == pytest.approx(contact) and x[MOVER : MOVER + 3] == pytest.approx([0, 0, 0])
    y = _gnubg.crashed_inputs(b[None])[0]
    assert y[MOVER : MOVER + 3] == pytest.approx(crashed) and y[OTHER : OTHER + 3] == pytest.approx([0, 0, 0])


def test_base_and_race_units():
    b = board({0: 1, 1: 2, 2: 3, 3: 7}, {5: 5, 24: 0, 7: 10})
    x = _gnubg.contact_inputs(b[None])[0]
    assert list(x[100:116]) == [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 2]
    bar = _gnubg.contact_inputs(board({24: 5, 23: 10}, {5: 15})[None])[0]
    assert list(bar[196:200]) == [1, 1, 1, 1]
    r = _gnubg.race_inputs(board({0: 3, 7: 2, 13: 1, 20: 1}, {0: 14})[None])[0]
    assert r.shape == (214,)
    # the side on roll (second block of 107): 8 off, crossovers 2 * 1 + 2 + 3
    assert list(r[107 + 92 : 107 + 106]) == [1 if k == 7 else 0 for k in range(14)]
    assert r[107 + 106] == pytest.approx(7 / 10)
    assert list(r[92:106]) == [1] + [0] * 13


def test_pipeloss_versions_differ_on_made_points():
    # the side on roll has single checkers on its 1-, 3- and 4-points and 3 on its 6: gnubg
    # 1.00 counts four made home points, so a blot on the other's 23-point (our 2-point) is
    # a target; 1.01 counts one (two or more checkers), and the blot is not
    b = board({0: 1, 2: 1, 3: 1, 5: 3, 12: 9}, {22: 1, 5: 14})
    new = _gnubg.contact_inputs(b[None], 1.01)[0]
    old = _gnubg.contact_inputs(b[None], "1.00")[0]
    assert list(new[MOVER + 7 : MOVER + 10]) == [0, 0, 0]
    # (hit from our 2-, 4- and 6-points, and the midpoint: every roll with a 1, 2 or 4...)
    assert old[MOVER + 8] > 0.5 and 0 < old[MOVER + 7] <= 2 * 36 / 432  # it loses 2 pips a hit
    same = np.ones(250, bool)
    same[[MOVER + 7, MOVER + 8, MOVER + 9]] = False
    assert (new[same] == old[same]).all()


def test_classify_by_hand():
    assert list(_gnubg.classify(np.stack([
        board({0: 1}, {}),                      # over
        board({0: 15}, {5: 15}),                # bear-off
        board({6: 15}, {5: 15}),                # race
        board({20: 1, 0: 5}, {20: 1, 0: 14}),   # contact, the side on roll crashed
        fastgen.STARTING_BOARD,                 # contact
    ]))) == [_gnubg.OVER, _gnubg.BEAROFF, _gnubg.RACE, _gnubg.CRASHED, _gnubg.CONTACT]


def test_bad_arguments():
    with pytest.raises(ValueError, match="version"):
        _gnubg.contact_inputs(fastgen.STARTING_BOARD[None], 1.02)
    bad = np.array(fastgen.STARTING_BOARD[None])
    bad[0, 1, 0] = 16
    with pytest.raises(InvalidBoardError):
        _gnubg.race_inputs(bad)
    assert _gnubg.classify(np.zeros((0, 2, 25), np.int8)).shape == (0,)
