"""How much equity does a bot give away a move? A measure that is not a duel.

Positions come from GNU Backgammon's own games (gnubg-nn at 0 ply playing itself, the
``peers`` extra), each with its dice and more than one legal play. Each player picks its
play; a judge (gnubg-nn at ``--judge-plies``, 2 by default) values the plays the players
picked and the judge's own best play, as the mover's cubeless equity after the play (a
play bearing off the last checker is scored exactly). A player's loss on a position is
the best of those values minus the value of its play (0 when it picked the best); the
table gives each player's mean loss a move in thousandths of a point (millipoints) with
its standard error, and how often it picked the judge's best.

    python examples/equity_loss.py --positions 2000 --json loss.json
    python examples/equity_loss.py --positions 100 --judge-plies 1   # a quick look

The players: the shipped ``baseline`` at 0 ply and at 1 ply (``lookahead``), ``pubeval``
and gnubg-nn at 0 ply (``gnubg:0``). A 2-ply judgement takes about 30 ms a play on this
machine, so 2,000 positions take some minutes.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Callable

import numpy as np

import fastgen
from fastgen.players import evaluators, policies
from fastgen.players.pubeval import pubeval_best


def gnubg_positions(n: int, seed: int, every: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """*n* positions (side on roll in row 1) and their dice, met in gnubg-nn 0-ply
    self-play, about one non-forced decision in *every* (chosen at random), so the
    positions spread over many games."""
    rng = np.random.default_rng(seed)
    gnubg = policies.gnubg_nn(0)
    boards: list[np.ndarray] = []
    dice: list[tuple[int, int]] = []
    while len(boards) < n:
        board = fastgen.STARTING_BOARD.copy()
        for _ in range(500):
            d = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
            plays = fastgen.legal_plays(board, d)
            if len(plays) > 1 and rng.integers(every) == 0 and len(boards) < n:
                boards.append(board.copy())
                dice.append(d)
            after = plays.boards[gnubg.choose_position(board, d[0], d[1], plays.boards)]
            if after[1].sum() == 0:
                break
            board = np.ascontiguousarray(fastgen.swap_sides(after))
    return np.stack(boards), np.array(dice, dtype=np.int8)


def _index_of(candidates: np.ndarray, after: np.ndarray) -> int:
    same = np.flatnonzero((candidates == after).all(axis=(1, 2)))
    if same.size == 0:
        raise RuntimeError("a player's play is not among the legal plays")
    return int(same[0])


def players() -> dict[str, Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]]:
    """Each player as ``f(candidates, offsets, boards, dice) -> (G,) indices``."""
    base = evaluators.baseline()
    greedy, look, gnubg = policies.baseline(), policies.lookahead(base), policies.gnubg_nn(0)

    def pubeval(cand: np.ndarray, offs: np.ndarray, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
        after = pubeval_best(boards, dice)
        return np.array([_index_of(cand[offs[g]:offs[g + 1]], after[g]) for g in range(len(boards))])

    return {
        "baseline": lambda c, o, b, d: greedy(c, o),
        "baseline 1-ply": lambda c, o, b, d: look(c, o),
        "pubeval": pubeval,
        "gnubg-nn 0-ply": lambda c, o, b, d: gnubg(c, o, b, d),
    }


def judge_best(boards: np.ndarray, dice: np.ndarray, cand: np.ndarray, offs: np.ndarray, plies: int) -> np.ndarray:
    """The judge's own choice on each position: gnubg-nn's best play at *plies*."""
    judge = policies.gnubg_nn(plies)
    return judge(cand, offs, boards, dice)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--judge-plies", type=int, default=2, choices=(0, 1, 2))
    ap.add_argument("--json", help="write the table here as JSON")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    boards, dice = gnubg_positions(args.positions, args.seed)
    batch = fastgen.plays_batch(boards, dice)
    cand, offs = batch.boards, batch.offsets
    picks = {name: np.asarray(f(cand, offs, boards, dice), dtype=np.int64) for name, f in players().items()}
    picks["judge"] = np.asarray(judge_best(boards, dice, cand, offs, args.judge_plies), dtype=np.int64)
    # judge each distinct picked play once
    rows = np.unique(np.concatenate([offs[:-1] + p for p in picks.values()]))
    judge = evaluators.gnubg(args.judge_plies)
    value = np.full(cand.shape[0], np.nan)
    value[rows] = -evaluators.equity(evaluators.opponent_probs(judge, cand[rows]))
    best = np.max(np.stack([value[offs[:-1] + p] for p in picks.values()]), axis=0)
    table = {}
    for name, p in picks.items():
        if name == "judge":
            continue
        loss = best - value[offs[:-1] + p]
        table[name] = {
            "mean_loss_millipoints": round(1000 * float(loss.mean()), 2),
            "se_millipoints": round(1000 * float(loss.std(ddof=1) / np.sqrt(len(loss))), 2),
            "best_share": round(float((loss == 0).mean()), 4),
        }
    out = {"positions": len(boards), "seed": args.seed, "judge": f"gnubg-nn {args.judge_plies}-ply",
           "players": table, "seconds": round(time.perf_counter() - t0, 1)}
    print(f"{len(boards)} positions of gnubg-nn 0-ply self-play (seed {args.seed}), judged by {out['judge']}:")
    for name, r in table.items():
        print(f"  {name:16s} {r['mean_loss_millipoints']:7.2f} mp a move (SE {r['se_millipoints']:.2f}), "
              f"the judge's best {100 * r['best_share']:.1f}%")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
