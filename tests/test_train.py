"""fastgen.train: the compiled TD(lambda) trainer, held to plain numpy (its inputs and
its gradient step in float64), to the networks' own greedy play (its self-play games),
to itself (threads, resume) and to the game (a short run must learn)."""

from __future__ import annotations

import numpy as np
import pytest

import fastgen
from fastgen.core._core import StopFlag
from fastgen.errors import CheckpointError, InvalidArgumentError
from fastgen.nets import Network
from fastgen.train import TDConfig, resume_td, td
from fastgen.train import _selfplay
from fastgen.train.checkpoint import read_checkpoint
from fastgen.train.weights import TrainedWeights as _Weights

from _positions import positions

START = np.ascontiguousarray(fastgen.STARTING_BOARD, dtype=np.int8)
OPENING = np.array(fastgen.games.OPENING_ROLLS, dtype=np.int8)


def _weights(hidden: int, seed: int, scale: float = 0.3, contact: bool = False) -> _Weights:
    rng = np.random.default_rng(seed)
    n = 220 if contact else 198
    return _Weights(hidden, rng.normal(0, scale, (n, hidden)), rng.normal(0, scale, hidden),
                    rng.normal(0, scale, (hidden, 5)), rng.normal(0, scale, 5))


def _x(b: np.ndarray, contact: bool) -> np.ndarray:
    x = fastgen.encode(b, "tesauro198")
    return np.concatenate([x, fastgen.encode(b, "contact")]) if contact else x


def _numpy_forward(w: _Weights, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    h = w.hidden
    a = 1 / (1 + np.exp(-(x @ w.w1[:, :h].astype(np.float64) + w.b1[:h])))
    y = 1 / (1 + np.exp(-(a @ w.w2t[:, :h].T.astype(np.float64) + w.b2)))
    return a, y


@pytest.mark.parametrize("contact", [False, True])
def test_inputs_are_fastgen_encodes(contact):
    """The trainer's sparse inputs, made dense, equal fastgen.encode's "tesauro198" (and
    "contact" after it) on every board of a random sample (bars, borne-off checkers and
    stacks included)."""
    w = _weights(16, 0, contact=contact)
    boards = [b for b, _ in positions(11, 300)]
    for b in boards:
        x = np.zeros(220 if contact else 198, np.float32)
        for i, v in w.learner.inputs(np.ascontiguousarray(b)):
            x[i] += v
        np.testing.assert_array_equal(x, _x(b, contact))


@pytest.fixture(params=[0, 1, 2], ids=["plain", "avx2", "avx512"])
def level(request):
    """The trainer's loops of each instruction set (a level the CPU lacks runs the best
    below it: the test then repeats that one), restored to the best after."""
    got = _selfplay.select_kernels(request.param)
    yield got
    _selfplay.select_kernels(None)


@pytest.mark.parametrize("contact", [False, True])
def test_forward_equals_numpy_and_the_network(contact, level):
    """Its forward pass equals a float64 numpy one within 1e-5, and the Network it
    exports (the compiled evaluator) gives the same outputs within 1e-5, with the loops
    of every instruction set."""
    w = _weights(40, 1, contact=contact)
    boards = np.stack([b for b, _ in positions(12, 100)])
    net = w.network("t")
    raw = net.outputs(boards)
    for b, r in zip(boards, raw):
        h, y = w.learner.forward(np.ascontiguousarray(b))
        a, y64 = _numpy_forward(w, _x(b, contact).astype(np.float64))
        np.testing.assert_allclose(h, a, atol=1e-5)
        np.testing.assert_allclose(y, y64, atol=1e-5)
        np.testing.assert_allclose(y, r, atol=1e-5)


@pytest.mark.parametrize("contact", [False, True])
def test_gradient_step_equals_float64_gradient(contact, level):
    """One step changes every weight by -lr times the float64 gradient of the
    cross-entropy (computed here by hand in numpy, and checked by central finite
    differences on a few weights), within 1e-6 of the step, with the loops of every
    instruction set."""
    rng = np.random.default_rng(3)
    for k, b in enumerate([b for b, _ in positions(13, 20)]):
        w = _weights(24, 100 + k, contact=contact)
        x = _x(b, contact).astype(np.float64)
        t = rng.uniform(0, 1, 5)
        before = [a.astype(np.float64).copy() for a in w.arrays()]
        a, y = _numpy_forward(w, x)
        H = w.hidden
        d2 = y - t
        dh = (d2 @ before[2][:, :H]) * a * (1 - a)
        grads = [np.outer(x, dh), dh, np.outer(d2, a), d2]
        lr = 0.05
        loss = w.learner.learn(np.ascontiguousarray(b), t.astype(np.float32), lr)
        ce = -(t * np.log(y) + (1 - t) * np.log(1 - y)).sum()
        assert loss == pytest.approx(ce, abs=1e-4)
        after = [a.astype(np.float64) for a in w.arrays()]
        for i, (g, b0, b1) in enumerate(zip(grads, before, after)):
            cut = (slice(None), slice(0, H)) if b0.ndim == 2 else (slice(0, H) if i == 1 else slice(None),)
            np.testing.assert_allclose(b1[cut] - b0[cut], -lr * g, atol=1e-6)
            np.testing.assert_array_equal(b1[..., H:] if i != 3 else [], b0[..., H:] if i != 3 else [])
        if k < 3:  # the hand-written gradient itself, by finite differences
            def ce_of(w1):
                h_ = 1 / (1 + np.exp(-(x @ w1 + before[1][:H])))
                y_ = 1 / (1 + np.exp(-(h_ @ before[2][:, :H].T + before[3])))
                return -(t * np.log(y_) + (1 - t) * np.log(1 - y_)).sum()
            for i, j in [(196, 0), (int(np.flatnonzero(x)[3]), 5)]:
                e = np.zeros_like(before[0][:, :H])
                e[i, j] = 1e-6
                fd = (ce_of(before[0][:, :H] + e) - ce_of(before[0][:, :H] - e)) / 2e-6
                assert fd == pytest.approx(grads[0][i, j], abs=1e-6)


@pytest.mark.parametrize("contact", [False, True])
def test_self_play_games_are_the_networks_greedy_games(contact):
    """With a zero step the trainer's games are the exported network's greedy games:
    fastgen.rollout of that network from the opening (same seed, the same dice hash)
    plays as many turns in all and as many gammons and backgammons."""
    w = _weights(32, 2, scale=0.1, contact=contact)
    net = w.network("t")
    assert net.inputs == (("tesauro198", "contact") if contact else ("tesauro198",))
    games, positions, _, gammons, backgammons, long_games = w.learner.play(9, 0, 300, 0.7, 0.0, START, OPENING, 5000)
    r = fastgen.rollout(games=300, policy=net, seed=9)
    assert (games, long_games) == (300, 0)
    assert positions == r.total_turns
    assert gammons == int((r.result >= 2).sum()) and backgammons == int((r.result == 3).sum())


def _small(**kw) -> TDConfig:
    base = dict(hidden=16, games=2000, sync=250, eval_every=1000, eval_games=200, seed=4, contact=False)
    base.update(kw)
    return TDConfig(**base)


@pytest.mark.parametrize("threads", [1, 2])
def test_runs_are_reproducible_and_resume_equals_the_uninterrupted_run(tmp_path, threads):
    """The same seed and thread count give the same weights; a run stopped after its
    first checkpoint and resumed gives the same weights and curve as one never stopped."""
    cfg = _small(threads=threads)
    a = td(cfg, checkpoint=tmp_path / "a.npz")
    again = td(cfg)
    for x, y in zip(a.network.weights + a.network.biases, again.network.weights + again.network.biases):
        np.testing.assert_array_equal(x, y)
    stop = StopFlag()

    def progress(info):
        if "loss" in info:  # the first curve point, checkpoint written: stop there
            stop.set()

    with pytest.raises(KeyboardInterrupt):
        td(cfg, checkpoint=tmp_path / "b.npz", progress=progress, stop=stop)
    assert read_checkpoint(tmp_path / "b.npz").games == 1000
    b = resume_td(tmp_path / "b.npz")
    for x, y in zip(a.network.weights + a.network.biases, b.network.weights + b.network.biases):
        np.testing.assert_array_equal(x, y)
    strip = lambda c: [{k: v for k, v in p.items() if k != "seconds"} for p in c]  # noqa: E731
    assert strip(a.curve) == strip(b.curve)
    saved = Network.load(tmp_path / "b.npz")
    assert saved.sizes == (198, 16, 5)
    assert saved.about["trainer"] == "fastgen.train td" and saved.about["games"] == cfg.games  # resumed to the end
    assert saved.about["config"]["hidden"] == 16 and saved.about["config"]["seed"] == cfg.seed
    c = td(_small(threads=threads, contact=True, games=600, sync=100, eval_every=300, eval_games=0))
    assert c.network.sizes == (220, 16, 5) and c.network.inputs == ("tesauro198", "contact")


def test_threads_change_the_games_but_not_the_count():
    one, two = td(_small(threads=1, eval_games=0)), td(_small(threads=2, eval_games=0))
    assert one.games == two.games == 2000
    assert not np.array_equal(one.network.weights[0], two.network.weights[0])


def test_a_short_run_learns():
    """20,000 self-play games of a 32-unit network (about 10 s on one core): it beats
    random by more than a point a game at the low end of the 95% interval over 2,000
    mirrored games (about +1.6 seen), and beats its own first weights with an interval
    above 0 (about +0.9 seen; its first weights play at random, so the bound fails
    without learning)."""
    cfg = TDConfig(hidden=32, games=20_000, sync=500, eval_every=20_000, eval_games=0, seed=1)
    run = td(cfg)
    first = td(TDConfig(hidden=32, games=1, sync=1, eval_every=1, eval_games=0, seed=1, lr=1e-9, lr_end=1e-9)).network
    vs_random = fastgen.duel(run.network, "random", 2000, seed=3)
    assert vs_random.ci95[0] > 1.0, str(vs_random)
    vs_first = fastgen.duel(run.network, first, 2000, seed=3)
    assert vs_first.ci95[0] > 0, str(vs_first)


@pytest.mark.parametrize("kw, quoted", [
    (dict(hidden=0), "hidden"), (dict(lam=1.5), "lam"), (dict(lr=-1), "lr"), (dict(games=2.5), "games"),
    (dict(eval_games=3), "eval_games"), (dict(threads=True), "threads"), (dict(init=float("nan")), "init"),
    (dict(contact=1), "contact"),
])
def test_bad_settings_are_refused(kw, quoted):
    with pytest.raises(InvalidArgumentError, match=quoted):
        TDConfig(**kw)


def test_bad_checkpoints_are_named(tmp_path):
    with pytest.raises(CheckpointError, match="does not exist"):
        resume_td(tmp_path / "missing.npz")
    net = td(_small(games=10, sync=10, eval_games=0)).network
    net.save(tmp_path / "plain.npz")
    with pytest.raises(CheckpointError, match="not a training checkpoint"):
        resume_td(tmp_path / "plain.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(CheckpointError, match="junk.npz"):
        resume_td(tmp_path / "junk.npz")
    with pytest.raises(InvalidArgumentError):
        td("not a config")


def test_games_over_the_turn_limit_are_dropped_and_counted():
    """Random weights with a 10-turn limit: most games are cut, none is learnt from, and
    the curve point counts them; a limit no game reaches drops none."""
    cut = td(_small(games=200, sync=100, eval_every=200, eval_games=0, max_turns=10))
    assert 0 < cut.curve[-1]["dropped"] <= 200
    assert "dropped" not in td(_small(games=200, sync=100, eval_every=200, eval_games=0)).curve[-1]
