"""The "contact" input scheme (fastgen.encode(board, "contact")): each feature's value on
hand-built positions, worked out by hand in the comments from the definitions in
fastgen/core/features.py, and the compiled networks that read it."""

from __future__ import annotations

import numpy as np
import pytest

import fastgen
from fastgen.errors import UnknownSchemeError
from fastgen.core.features import count_units
from fastgen.nets import Network

from _positions import positions

# column names of one side's ten features (columns 0..9 the side on roll, 10..19 the other)
SIDE = ["pips", "shots", "blots", "escapes", "prime", "home", "anchors", "back", "dance", "past"]


def board(me: dict, opp: dict) -> np.ndarray:
    """A board from {point: checkers} of the side on roll (row 1) and of the other side
    (row 0, its own numbering); point 25 is the bar."""
    b = np.zeros((2, 25), np.int8)
    for row, side in ((1, me), (0, opp)):
        for p, n in side.items():
            b[row, p - 1] = n
    return b


def features(b: np.ndarray) -> tuple[dict, dict, float, float]:
    x = fastgen.encode(b, "contact")
    assert x.shape == (22,) and x.dtype == np.float32
    return dict(zip(SIDE, x[:10].tolist())), dict(zip(SIDE, x[10:20].tolist())), float(x[20]), float(x[21])


def close(got: dict, want: dict) -> None:
    for k, v in want.items():
        assert got[k] == pytest.approx(v, abs=1e-6), (k, got[k], v)


def test_starting_position():
    """No blots, so no shots. The back checkers (point 24) face the other side's points
    held at my 19 (its 6), 17 (its 8) and 12 (its 13) within 12 pips; getting below 12
    takes 13 pips or more: only 4-4 (24-20-16-12 held), 5-5 (19 held), 6-6 (18, then 12
    held) reach that far, and each is stopped: 0 escapes. One point in a row held
    (6, 8, 13 and 24 apart), the 6 point at home, the 24 point as anchor, 2 back checkers."""
    me, other, race, lead = features(fastgen.STARTING_BOARD)
    want = dict(pips=1.67, shots=0, blots=0, escapes=0, prime=1 / 6, home=1 / 6, anchors=1 / 3, back=2 / 15, dance=0,
                past=0)
    close(me, want)
    close(other, want)
    assert (race, lead) == (0.0, 0.0)


def test_a_blot_in_direct_range():
    """My blot on 10 and 14 checkers on my 2; the other side has a blot on its 20 (my 5)
    and 14 on its 1 (my 24). Its blot is 5 pips from mine: a 5 (11 rolls), 1-4 and 2-3
    through the open 6 or 9 (4 rolls): 15 shots. Mine hits its blot the same way (10 to
    5, points 6..9 open): 15. Nothing held in front of either rearmost checker: 36
    escapes each. Past contact: its rearmost checker is on my 5, so my 14 on 2 are past;
    mine is on my 10 (its 15), so its 14 on its 1 are past. Pips 10 + 28 = 38 and
    20 + 14 = 34: a lead of -4 / 50."""
    b = board({10: 1, 2: 14}, {20: 1, 1: 14})
    me, other, race, lead = features(b)
    close(me, dict(pips=0.38, shots=15 / 36, blots=1 / 5, escapes=1, prime=1 / 6, home=1 / 6, anchors=0, back=0,
                   dance=0, past=14 / 15))
    close(other, dict(pips=0.34, shots=15 / 36, blots=1 / 5, escapes=1, prime=1 / 6, home=1 / 6, anchors=0,
                      back=1 / 15, dance=0, past=14 / 15))
    assert race == 0.0 and lead == pytest.approx(-4 / 50)


def test_shots_from_the_bar_only():
    """The other side has a checker on the bar (and 14 on its 12, my 13, which could
    otherwise hit). My blot on 3, my points 1 and 2 held: it hits only by entering on
    3 directly (11 rolls); 1-2 would enter on my held 1 or 2, 1-1 on my held 1. Its
    chance of dancing: my 2 home points, (2/6)^2."""
    b = board({3: 1, 1: 7, 2: 7}, {25: 1, 12: 14})
    me, other, race, _ = features(b)
    close(me, dict(shots=11 / 36, blots=1 / 5, home=2 / 6, prime=2 / 6, dance=(2 / 6) ** 2))
    close(other, dict(pips=(25 + 12 * 14) / 100, back=1 / 15, dance=0))
    assert race == 0.0


def test_escapes_past_one_point():
    """My two back checkers on 24, the other side holding my 18 (its 7) and its 24 (my
    1, far behind). Getting below 18 takes 7 pips or more: the nine non-doubles adding
    to 7..11 all pass (one of the two points after the first die is open: only 18 is
    held), 18 rolls; of the doubles 4-4 (20, 16) and 5-5 (19, 14) pass, 6-6 (18), 3-3
    (21, 18) and 2-2 (22, 20, 18) are stopped: 20 escapes."""
    b = board({24: 2, 6: 13}, {7: 2, 24: 13})
    me, _, _, _ = features(b)
    close(me, dict(escapes=20 / 36, anchors=1 / 3, back=2 / 15, home=1 / 6))


def test_a_pure_race():
    """Every checker past every other: a race, all checkers past contact, no shots."""
    b = board({1: 5, 2: 5, 3: 5}, {1: 5, 2: 5, 3: 5})
    me, other, race, lead = features(b)
    assert race == 1.0 and lead == 0.0
    close(me, dict(past=1, shots=0, prime=3 / 6, home=3 / 6, escapes=1))
    close(other, dict(past=1, shots=0))


def test_batches_and_views_agree():
    """A batch gives each board's row; the scheme is not a per-count one."""
    boards = np.stack([b for b, _ in positions(21, 200)])
    x = fastgen.encode(boards, "contact")
    for i in range(0, 200, 37):
        np.testing.assert_array_equal(x[i], fastgen.encode(boards[i], "contact"))
    with pytest.raises(UnknownSchemeError, match="contact"):
        count_units("contact")


@pytest.mark.parametrize("hidden_layers", [1, 2])
def test_networks_reading_contact_features(hidden_layers):
    """A compiled network over tesauro198 + contact inputs equals a float64 numpy network
    on the encoded inputs (within 1e-5), and its greedy choice among a position's plays
    is the candidate of highest equity by its own outputs."""
    rng = np.random.default_rng(hidden_layers)
    sizes = [220] + [48] * hidden_layers + [5]
    W = [rng.normal(0, 0.15, (a, b)) for a, b in zip(sizes, sizes[1:])]
    B = [rng.normal(0, 0.1, b) for b in sizes[1:]]
    net = Network(W, B, inputs=("tesauro198", "contact"))
    boards = np.stack([b for b, _ in positions(22, 300)])
    h = np.concatenate([fastgen.encode(boards, "tesauro198"), fastgen.encode(boards, "contact")], 1).astype(np.float64)
    for w, b in zip(W[:-1], B[:-1]):
        h = 1 / (1 + np.exp(-(h @ w + b)))
    y = 1 / (1 + np.exp(-(h @ W[-1] + B[-1])))
    np.testing.assert_allclose(net.outputs(boards), y, atol=1e-5)
    dice = np.array([[3, 1]] * 40, np.int8)
    batch = fastgen.plays_batch(boards[:40], dice)
    cands, offsets = batch.boards, batch.offsets
    picks = net.choose(cands, offsets)
    p = net(fastgen.swap_sides(cands)).astype(np.float64)
    eq = -(2 * p[:, 0] - 1 + p[:, 1] + p[:, 2] - p[:, 3] - p[:, 4])
    for g in range(40):
        lo, hi = offsets[g], offsets[g + 1]
        if fastgen.swap_sides(cands[lo:hi])[:, 0].sum(axis=1).min() == 0:
            continue  # a play bearing off the last checker is scored exactly, not by the net
        assert eq[lo + picks[g]] >= eq[lo:hi].max() - 1e-5
