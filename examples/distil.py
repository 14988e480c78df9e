"""Teach a network to imitate another evaluator: supervised learning with numpy only.

A network that plays like a strong evaluator, in seconds: positions from self-play
(pubeval's choices, with a share of random plays so the positions vary), each labelled
with the teacher's five probabilities for the side on roll, and a
:class:`fastgen.nets.Network` fitted to them by minibatch Adam on the cross-entropy of
its five sigmoid outputs. The default teacher is GNU Backgammon's own evaluation at 0 ply
(``fastgen.players.evaluators.gnubg(0)``, the ``peers`` extra); ``--teacher`` takes any spec
that :func:`fastgen.players.specs.evaluator` reads.

    python examples/distil.py --out distilled.npz      # 9.2 s on a 2-core machine (2026-12-04)
    python examples/distil.py --positions 20000 --epochs 3 --out small.npz   # a quick run

(the first command, timed with ``/usr/bin/time`` with gnubg-nn as the teacher: 220,000
positions labelled in 1.8 s, 12 epochs, a network of 128 hidden units whose held-out
error on P(win) is 0.031 and which beat pubeval by +0.31 points a game in its closing
duel).

The result loads anywhere a network is taken: ``fastgen.nets.Network.load("distilled.npz")``,
``fastgen duel distilled.npz pubeval``, ``fastgen rollout-plays --evaluator distilled.npz``.
It prints the held-out error of each output and the mean game length of its greedy
self-play against the teacher's positions' (pubeval self-play).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

import fastgen
import fastgen.players.specs
from fastgen.nets import Network

OPENING = np.array(fastgen.games.OPENING_ROLLS, dtype=np.int8)


def self_play_positions(n: int, seed: int, random_share: float, games: int = 2000) -> np.ndarray:
    """*n* positions (side on roll in row 1) met in pubeval self-play, each play random
    with probability *random_share*; games side by side, a finished game restarting from
    the opening."""
    rng = np.random.default_rng(seed)
    boards = np.repeat(fastgen.STARTING_BOARD[None], games, axis=0)
    out = []
    have = 0
    while have < n:
        dice = rng.integers(1, 7, size=(games, 2)).astype(np.int8)
        batch = fastgen.plays_batch(boards, dice)
        best = fastgen.pubeval_best(boards, dice)
        counts = batch.counts
        pick = batch.offsets[:-1] + (rng.random(games) * counts).astype(np.int64)
        random_after = batch.boards[pick]
        use_random = rng.random(games) < random_share
        after = np.where(use_random[:, None, None], random_after, best)
        finished = (after[:, 1].sum(axis=1) == 0)  # the mover bore off its last checker
        nxt = np.ascontiguousarray(after[:, ::-1])  # the other side on roll
        nxt[finished] = fastgen.STARTING_BOARD
        out.append(nxt[~finished])
        have += int((~finished).sum())
        boards = nxt
    allb = np.concatenate(out)[:n]
    return np.ascontiguousarray(allb)


def encode(boards: np.ndarray, inputs: tuple[str, ...]) -> np.ndarray:
    return np.concatenate([fastgen.encode(boards, s) for s in inputs], axis=1).astype(np.float32)


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(x, -40, 40)))


def train(x: np.ndarray, y: np.ndarray, hidden: int, epochs: int, seed: int, lr: float = 2e-3,
          batch: int = 256, log=print) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """One hidden sigmoid layer, five sigmoid outputs, Adam on the cross-entropy."""
    rng = np.random.default_rng(seed)
    n_in = x.shape[1]
    params = [rng.normal(0, 1 / np.sqrt(n_in), (n_in, hidden)).astype(np.float32), np.zeros(hidden, np.float32),
              rng.normal(0, 1 / np.sqrt(hidden), (hidden, 5)).astype(np.float32), np.zeros(5, np.float32)]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    step = 0
    for epoch in range(epochs):
        order = rng.permutation(len(x))
        rate = lr * (0.5 ** (epoch / max(1, epochs // 3)))
        for lo in range(0, len(x), batch):
            idx = order[lo:lo + batch]
            xb, yb = x[idx], y[idx]
            w1, b1, w2, b2 = params
            h = sigmoid(xb @ w1 + b1)
            o = sigmoid(h @ w2 + b2)
            d2 = (o - yb) / len(idx)  # cross-entropy through the output sigmoid
            dh = (d2 @ w2.T) * h * (1 - h)
            grads = [xb.T @ dh, dh.sum(0), h.T @ d2, d2.sum(0)]
            step += 1
            for i, g in enumerate(grads):
                m[i] = 0.9 * m[i] + 0.1 * g
                v[i] = 0.999 * v[i] + 0.001 * g * g
                mh = m[i] / (1 - 0.9 ** step)
                vh = v[i] / (1 - 0.999 ** step)
                params[i] -= (rate * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
        log(f"epoch {epoch + 1}/{epochs} done (rate {rate:.2e})")
    return [params[0], params[2]], [params[1], params[3]]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--teacher", default="gnubg:0", help="the evaluator to imitate (a spec; default gnubg:0)")
    ap.add_argument("--positions", type=int, default=200_000, help="training positions (default 200,000)")
    ap.add_argument("--hidden", type=int, default=128, help="hidden units (default 128)")
    ap.add_argument("--inputs", default="tesauro198,raw", help="input schemes, comma-separated (default tesauro198,raw)")
    ap.add_argument("--epochs", type=int, default=12, help="passes over the positions (default 12)")
    ap.add_argument("--random-share", type=float, default=0.1, help="share of random plays in self-play (default 0.1)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True, help="where to save the network (.npz)")
    args = ap.parse_args(argv)
    inputs = tuple(s.strip() for s in args.inputs.split(","))
    teacher = fastgen.players.specs.evaluator(args.teacher)
    t0 = time.perf_counter()
    boards = self_play_positions(args.positions + args.positions // 10, args.seed, args.random_share)
    print(f"{len(boards):,} positions of self-play in {time.perf_counter() - t0:.1f} s")
    t0 = time.perf_counter()
    y = np.asarray(teacher(boards), dtype=np.float32)
    print(f"labelled by {args.teacher} in {time.perf_counter() - t0:.1f} s")
    x = encode(boards, inputs)
    n_train = args.positions
    weights, biases = train(x[:n_train], y[:n_train], args.hidden, args.epochs, args.seed)
    net = Network(weights, biases, inputs=inputs)
    held = net(boards[n_train:])
    err = np.abs(held - y[n_train:]).mean(axis=0)
    print("held-out mean absolute error (win, win g, win bg, lose g, lose bg):", np.round(err, 4).tolist())
    net.save(args.out)
    duel = fastgen.duel(net, "pubeval", 2000, seed=args.seed)
    print(json.dumps({"out": args.out, "sizes": list(net.sizes), "held_out_mae": err.tolist(),
                      "duel_vs_pubeval_ppg": duel.ppg}))


if __name__ == "__main__":
    main()
