"""A backgammon bot from scratch: TD(lambda) self-play with numpy only.

The network (fastgen.players.evaluators.ReferenceNetwork, the numpy reference network,
with three outputs) reads Tesauro's 198 inputs of a position from the side to roll's
view and has one hidden layer and three sigmoid outputs: the chances that side wins,
wins a gammon, loses a gammon. It plays greedily:
the play whose resulting position (an afterstate) is worst for the opponent, who rolls
next (``fastgen.players.evaluators.greedy(net)``, which is what ``fastgen.duel(net, ...)`` plays).

Self-play runs a pool of games side by side: each turn, ONE
``fastgen.plays_batch(boards, dice, encode="tesauro198")`` call gives every legal play of
every game with its features (from the next roller's view), one matrix product scores
them all, and each game takes its best play. When a game ends, the lambda-returns of its
afterstates are computed backwards (the target of afterstate t mixes the value of
afterstate t + 1, seen from the other side, and the return after it: TD(lambda) in its
forward view) and join a buffer; every few thousand afterstates, minibatch Adam steps
on the cross-entropy between the outputs and those targets.

    python examples/td_bot.py --minutes 15 --out td_bot.npz
    python examples/td_bot.py --minutes 1 --duel-games 2000   # a quick run

The weights are saved as the same network compiled (``net.compiled()``, a
fastgen.nets.Network, in its file layout), so
``fastgen.duel(fastgen.nets.Network.load("td_bot.npz"), "pubeval", 10000)`` plays it, or
from the command line ``fastgen duel td_bot.npz pubeval --games 10000``.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

import fastgen
from fastgen.players.evaluators import ReferenceNetwork, group_best

OPENING = np.array(fastgen.games.OPENING_ROLLS, dtype=np.int8)


def flip(y: np.ndarray) -> np.ndarray:
    """Outputs (win, win gammon, lose gammon) seen by the other side."""
    return np.stack([1.0 - y[..., 0], y[..., 2], y[..., 1]], axis=-1)


def untrained(hidden: int = 40, seed: int = 0, name: str = "td_bot") -> ReferenceNetwork:
    """A three-output network with small random weights (normal, 0.1) and zero biases."""
    rng = np.random.default_rng(seed)
    return ReferenceNetwork(rng.normal(0, 0.1, (198, hidden)), np.zeros(hidden), rng.normal(0, 0.1, (hidden, 3)),
                            np.zeros(3), name=name)


class Adam:
    """Adam on a list of arrays (updated in place)."""

    def __init__(self, params, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
        self.params, self.lr, self.b1, self.b2, self.eps, self.t = params, lr, b1, b2, eps, 0
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]

    def step(self, grads):
        self.t += 1
        c1, c2 = 1 - self.b1**self.t, 1 - self.b2**self.t
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            m *= self.b1
            m += (1 - self.b1) * g
            v *= self.b2
            v += (1 - self.b2) * g * g
            p -= (self.lr * (m / c1) / (np.sqrt(v / c2) + self.eps)).astype(p.dtype)


def train_step(net: ReferenceNetwork, opt: Adam, x: np.ndarray, target: np.ndarray) -> float:
    """One minibatch step on cross-entropy(sigmoid outputs, targets); returns the loss."""
    h, y = net.forward(x)
    d2 = (y - target) / x.shape[0]  # d loss / d output pre-activation
    dh = (d2 @ net.w2.T) * h * (1 - h)
    grads = [x.T @ dh, dh.sum(0), h.T @ d2, d2.sum(0)]
    opt.step([g.astype(np.float32) for g in grads])
    eps = 1e-6
    return float(-(target * np.log(y + eps) + (1 - target) * np.log(1 - y + eps)).mean())


def lambda_returns(ys: np.ndarray, final: np.ndarray, lam: float) -> np.ndarray:
    """Targets of a game's afterstates 0..n-1 (each from its roller's view) from the
    outputs ys (n, 3) the network gave them during play and the final outcome seen by
    the roller of afterstate n - 1 (the loser: the winner made the last play)."""
    n = ys.shape[0]
    out = np.empty((n, 3))
    w, gw, gl = (float(v) for v in final)
    out[n - 1] = (w, gw, gl)
    y = ys.tolist()
    mu = 1.0 - lam
    for t in range(n - 2, -1, -1):
        # afterstate t + 1 is rolled from by the other side: flip its value and the return
        y0, y1, y2 = y[t + 1]
        w, gw, gl = mu * (1.0 - y0) + lam * (1.0 - w), mu * y2 + lam * gl, mu * y1 + lam * gw
        out[t] = (w, gw, gl)
    return out


def self_play(net: ReferenceNetwork, seconds: float, *, pool=256, lam=0.7, lr=1e-3, batch=256, buffer=8192, seed=0,
              report=None, report_every=60.0, max_games=None):
    """Train *net* in place by self-play for *seconds* (or until *max_games* games have
    finished); returns (games, afterstates)."""
    rng = np.random.default_rng(seed)
    opt = Adam([net.w1, net.b1, net.w2, net.b2], lr=lr)
    boards = np.repeat(fastgen.STARTING_BOARD[None], pool, axis=0).copy()
    turn = np.zeros(pool, dtype=np.int64)
    hist_x = [[] for _ in range(pool)]  # each game's afterstate features
    hist_y = [[] for _ in range(pool)]  # and the network's outputs for them at play time
    buf_x, buf_t, buffered = [], [], 0
    games = states = 0
    t0 = time.perf_counter()
    next_report = t0 + report_every
    while time.perf_counter() - t0 < seconds and (max_games is None or games < max_games):
        dice = rng.integers(1, 7, size=(pool, 2)).astype(np.int8)
        first = turn == 0
        if first.any():
            dice[first] = OPENING[rng.integers(0, 15, size=int(first.sum()))]
        b = fastgen.plays_batch(boards, dice, encode="tesauro198")
        _, y = net.forward(b.features)
        pick = group_best(-net.equity(y), b.offsets)  # the lowest equity for the next roller
        after = b.boards[pick]
        x_new, y_new = b.features[pick], y[pick]
        won = after[:, 1].sum(axis=1) == 0
        for g in range(pool):
            hist_x[g].append(x_new[g])
            hist_y[g].append(y_new[g])
        for g in np.flatnonzero(won):
            gammon = float(after[g, 0].sum() == 15)
            ys = np.array(hist_y[g])
            # The roller of the last afterstate lost: (win, win g, lose g) = (0, 0, gammon).
            targets = lambda_returns(ys, np.array([0.0, 0.0, gammon]), lam)
            buf_x.append(np.array(hist_x[g]))
            buf_t.append(targets)
            buffered += len(targets)
            states += len(targets)
            hist_x[g], hist_y[g] = [], []
            games += 1
        boards = np.ascontiguousarray(after[:, ::-1])  # the other side on roll
        turn += 1
        if won.any():
            boards[won] = fastgen.STARTING_BOARD
            turn[won] = 0
        if buffered >= buffer:
            x = np.concatenate(buf_x)
            t = np.concatenate(buf_t).astype(np.float32)
            order = rng.permutation(x.shape[0])
            for lo in range(0, x.shape[0], batch):
                idx = order[lo : lo + batch]
                loss = train_step(net, opt, x[idx], t[idx])
            buf_x, buf_t, buffered = [], [], 0
        now = time.perf_counter()
        if report is not None and now >= next_report:
            report(now - t0, games, states)
            t0 += time.perf_counter() - now  # reports do not eat training time
            next_report = time.perf_counter() + report_every
    return games, states


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--minutes", type=float, default=15.0, help="training time")
    p.add_argument("--hidden", type=int, default=40, help="hidden units")
    p.add_argument("--pool", type=int, default=256, help="games played side by side")
    p.add_argument("--lam", type=float, default=0.7, help="lambda of the lambda-returns")
    p.add_argument("--lr", type=float, default=1e-3, help="Adam step size")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="td_bot.npz", help="where the weights go (as a compiled fastgen.nets.Network)")
    p.add_argument("--curve-every", type=float, default=60.0, help="seconds between duels of the training curve")
    p.add_argument("--curve-games", type=int, default=1000, help="games of each curve duel against pubeval")
    p.add_argument("--duel-games", type=int, default=10000, help="games of the final duel against pubeval")
    p.add_argument("--json", help="write the training curve and the final duel to this file")
    args = p.parse_args(argv)
    net = untrained(args.hidden, seed=args.seed)
    curve = []
    spent = [0.0]  # seconds spent in curve duels (not training)

    def report(elapsed, games, states):
        t = time.perf_counter()
        r = fastgen.duel(net, "pubeval", args.curve_games, seed=10_000 + len(curve))
        spent[0] += time.perf_counter() - t
        curve.append({"seconds": elapsed, "games": games, "ppg": r.ppg, "ppg_se": r.ppg_se})
        print(f"{elapsed:7.0f} s  {games:9,d} games ({games / elapsed:,.0f}/s)  vs pubeval {r.ppg:+.3f} +/- {r.ppg_se:.3f}",
              flush=True)

    t0 = time.perf_counter()
    games, states = self_play(net, args.minutes * 60, pool=args.pool, lam=args.lam, lr=args.lr, seed=args.seed,
                              report=report, report_every=args.curve_every)
    seconds = time.perf_counter() - t0 - spent[0]
    net.compiled().save(args.out)
    final = fastgen.duel(net, "pubeval", args.duel_games, seed=1, mirrored=True)
    print(f"trained {games:,} self-play games ({states:,} afterstates) in {seconds:.0f} s: {games / seconds:,.0f} games/s")
    print(final)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": vars(args), "games": games, "seconds": seconds, "curve": curve,
                       "final": final.to_dict()}, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
