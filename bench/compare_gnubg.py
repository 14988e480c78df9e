"""By hand: fastgen's rollouts with evaluators.gnubg(0) against GNU Backgammon's own.

    nice python bench/compare_gnubg.py [--gnubg-trials 1296] [--fastgen-trials 1296] [--top 1] [--out FILE]

For each position and roll below, the top --top candidates at 0 ply are rolled out by
both: gnubg (Debian 1.07, its ``rollout`` command on the position after the play with
the opponent on roll, 0-ply, cubeless, variance reduction, quasi-random dice; pruning
nets and bear-off truncation off; see tests/_gnubg_rollout.py) and
``fastgen.rollout_plays(..., evaluators.gnubg(0))`` (GNU Backgammon's nets compiled,
variance reduction on). gnubg's figures are the opponent's
and are turned around. Prints a table and writes JSON lines (one per candidate) to
--out. Takes about 45 minutes on one core (the machine shared).
"""

import argparse
import json
import os
import sys
import time

import numpy as np

import fastgen
from fastgen.players import evaluators

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
from _gnubg_rollout import gnubg_rollout  # noqa: E402

#: (Position ID of the side on roll, dice). Openings and middle games.
POSITIONS = [
    ("4HPwATDgc/ABMA", (3, 1)),
    ("4HPwATDgc/ABMA", (6, 4)),
    ("4HPwATDgc/ABMA", (2, 1)),
    ("4OvIEwDg24YDBA", (5, 1)),  # middle games: greedy gnubg(0) self-play, fixed dice
    ("czYPADDg54MJEA", (5, 4)),
    ("zTrgAQZw68HBAA", (4, 3)),
]


def flip(p):
    return [1 - p[0], p[3], p[4], p[1], p[2]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gnubg-trials", type=int, default=1296)
    ap.add_argument("--fastgen-trials", type=int, default=1296)
    ap.add_argument("--top", type=int, default=1)
    ap.add_argument("--out", default="compare_gnubg.jsonl")
    args = ap.parse_args()
    ev = evaluators.gnubg(0)
    with open(args.out, "a") as out:
        for pid, dice in POSITIONS:
            board = fastgen.parse_position_id(pid)
            t0 = time.perf_counter()
            table = fastgen.rollout_plays(board, dice, ev, plays=args.top, trials=args.fastgen_trials)
            fg_seconds = time.perf_counter() - t0
            for row in table.rows:
                after = fastgen.position_id(fastgen.swap_sides(row.play.board_after))
                g = gnubg_rollout(after, trials=args.gnubg_trials)
                g_eq = -g["equity"]
                z = (row.equity - g_eq) / np.hypot(row.equity_se, g["equity_se"] + 0.0005)
                rec = {
                    "position_id": pid, "dice": dice, "play": str(row.play),
                    "fastgen": {"equity": row.equity, "equity_se": row.equity_se, "trials": row.trials,
                                "probabilities": row.probabilities, "seconds_table": fg_seconds},
                    "gnubg": {"equity": g_eq, "equity_se": g["equity_se"], "trials": g["trials"],
                              "probabilities": flip(g["probabilities"]), "seconds": g["seconds"]},
                    "z": z,
                }
                print(f"{pid} {dice[0]}{dice[1]} {str(row.play):<18} fastgen {row.equity:+.3f} ({row.equity_se:.3f}) "
                      f"gnubg {g_eq:+.3f} ({g['equity_se']:.3f})  z={z:+.2f}", flush=True)
                out.write(json.dumps(rec) + "\n")
                out.flush()


if __name__ == "__main__":
    main()
