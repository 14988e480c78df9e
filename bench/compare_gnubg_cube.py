"""By hand: fastgen's cubeful rollouts with GNU Backgammon's nets against the program's own.

    nice python bench/compare_gnubg_cube.py [--trials 1296] [--out FILE]

For each cube decision below (a position before the roll, its cube and score), both roll
out no double and double/take with *--trials* trials: the gnubg program (Debian 1.07,
``hint``, ``analyse rollout cube``, ``hint``; 0-ply cubeful chequer play and cube
decisions for both sides, the pruning nets off so that its 0-ply player picks the full
nets' best play, variance reduction, quasi-random dice, no truncation, seed 1; see
tests/_gnubg_cube_rollout.py) and ``fastgen.rollout_cube(..., evaluators.gnubg(0),
variance_reduction=True)`` (the compiled nets; the same settings but that fastgen's
players choose their plays by cubeless equity, the program's by cubeful equity). Prints a
table with z, the difference over the combined standard error, and writes JSON lines (one
a decision) to --out. Takes about an hour on one core.
"""

import argparse
import json
import math
import os
import sys
import time

from fastgen.core.ids import parse_gnubg_id
from fastgen.players import evaluators
from fastgen.sim.decide.cubeful import rollout_cube

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
from _gnubg_cube_rollout import cube_rollout  # noqa: E402

#: (Position ID, Match ID): the side on roll before its roll.
CASES = [
    ("4HPwATDgc/ABMA", "cAkAAAAAAAAE"),   # the opening position, money
    ("4O3gAUTYnYMBMA", "cAkAAAAAAAAE"),   # a blitz, the opponent on the bar, money
    ("ttuxAAC2uzMAAA", "cAkAAAAAAAAE"),   # a race, 71 against 78 pips, money
    ("4HPwATDgc/ABMA", "cAngACAAIAAE"),   # the opening position, 7-point match, 3-away against 5-away
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=1296)
    ap.add_argument("--out", default="compare_gnubg_cube.jsonl")
    args = ap.parse_args()
    ev = evaluators.gnubg(0)
    print(f"{'position:match':<28} {'':<12} {'fastgen':>16} {'gnubg':>16} {'z':>6}")
    with open(args.out, "a") as out:
        for pid, mid in CASES:
            board, state = parse_gnubg_id(f"{pid}:{mid}")
            t0 = time.perf_counter()
            ours = rollout_cube(board, ev, state, trials=args.trials, seed=1, variance_reduction=True)
            seconds = time.perf_counter() - t0
            theirs = cube_rollout(pid, mid, trials=args.trials, seed=1, prune=False)
            rec = {"position_id": pid, "match_id": mid, "trials": args.trials, "fastgen_seconds": seconds,
                   "gnubg_seconds": theirs["seconds"], "fastgen_action": ours.action.value,
                   "gnubg_action": theirs["action"]}
            for field in ("no_double", "double_take"):
                a, sa = getattr(ours, field), getattr(ours, f"{field}_se")
                b, sb = theirs[field], theirs[f"{field}_se"]
                z = (a - b) / math.hypot(sa, sb)
                rec[field] = {"fastgen": a, "fastgen_se": sa, "gnubg": b, "gnubg_se": sb, "z": z}
                print(f"{pid}:{mid} {field:<12} {a:+.4f} ({sa:.4f}) {b:+.4f} ({sb:.4f}) {z:+6.2f}", flush=True)
            print(f"{'':<28} action       {ours.action.value:<16} {theirs['action']}", flush=True)
            out.write(json.dumps(rec) + "\n")
            out.flush()


if __name__ == "__main__":
    main()
