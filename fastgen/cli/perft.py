"""The ``fastgen perft`` subcommand: the perft table of a position, in this process or on
a Dask cluster.

    fastgen perft --depth 3 [--position POSITION_ID] [--weighted] [--workers N | --scheduler ADDRESS]

Prints one row per depth (nodes, and with ``--weighted`` the dice-weighted expected
number of nodes), then the wall time and nodes per second (all depths' nodes over the
time; cluster start-up excluded).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from fastgen.cli.args import add_subcommand, int_in_range, position_id_arg
from fastgen._util import MAX_THREADS
from fastgen.cli.output import json_text
from fastgen.core.boards import STARTING_BOARD
from fastgen.core.ids import position_id
from fastgen.search.perft import perft_run

__all__ = ["add_parser", "run_perft"]

OPENING_ID = "4HPwATDgc/ABMA"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register the ``perft`` subcommand on an argparse *subparsers* object."""
    parser = add_subcommand(
        subparsers,
        "perft",
        help="count the nodes of the game tree at depths 1..D (perft)",
        description="perft: a node is a position with a side on roll; its children are, for "
        "each of the 21 distinct rolls, each distinct legal play (a lost turn is one play); "
        "a finished game has none. Prints the number of nodes at each depth.",
    )
    parser.add_argument("--depth", type=int_in_range(1, 12), required=True, help="deepest level counted")
    parser.add_argument(
        "--position", metavar="POSITION_ID", type=position_id_arg, default=None,
        help=f"GNU Backgammon Position ID, side on roll first (default: the opening position {OPENING_ID})",
    )
    parser.add_argument("--weighted", action="store_true", help="also print the dice-weighted counts (doubles 1/36, others 2/36)")
    parser.add_argument("--threads", type=int_in_range(1, MAX_THREADS), default=1, help="threads for the in-process run")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int_in_range(1, 1024), help="run on a new local Dask cluster of N worker processes")
    where.add_argument("--scheduler", metavar="ADDRESS", help="run on the Dask cluster whose scheduler is at ADDRESS (tcp://host:8786)")
    parser.add_argument("--split-depth", type=int_in_range(1, 11), help="depth at which the tree is cut into Dask tasks (default: automatic)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(func=run_perft)
    return parser


def run_perft(args: argparse.Namespace) -> int:
    """Compute and print the perft table from parsed arguments; returns the exit code."""
    board = STARTING_BOARD if args.position is None else args.position
    if args.split_depth is not None and args.split_depth >= args.depth:
        print(f"fastgen perft: error: --split-depth must be below --depth {args.depth}, got {args.split_depth}", file=sys.stderr)
        return 2
    where = dict(workers=args.workers, scheduler=args.scheduler, split_depth=args.split_depth)
    run = perft_run(board, args.depth, threads=args.threads, **where)
    weighted = perft_run(board, args.depth, weighted=True, threads=args.threads, **where) if args.weighted else None
    seconds = run.seconds
    total = sum(run.counts)
    place = f"{run.workers} Dask workers, split at depth {run.split_depth} into {run.tasks} tasks" if run.tasks else "in process"
    rows = []
    for k, nodes in enumerate(run.counts, start=1):
        row = {"depth": k, "nodes": nodes}
        if weighted is not None:
            row["expected_nodes"] = weighted.counts[k - 1] / 36**k
        rows.append(row)
    if args.json:
        out = {"position": position_id(board), "rows": rows, "seconds": seconds, "nodes_per_second": total / seconds if seconds else None,
               "workers": run.workers, "split_depth": run.split_depth, "tasks": run.tasks, "task_seconds": run.task_seconds}
        print(json_text(out, indent=2))
        return 0
    print(f"perft from {position_id(board)} ({place})")
    head = f"{'depth':>5} {'nodes':>22}" + (f" {'expected nodes':>18}" if weighted is not None else "")
    print(head)
    for row in rows:
        line = f"{row['depth']:>5} {row['nodes']:>22,}"
        if weighted is not None:
            line += f" {row['expected_nodes']:>18,.2f}"
        print(line)
    rate = f"{total / seconds:,.0f}" if seconds else "-"
    print(f"time {seconds:.2f} s, {rate} nodes/s")
    return 0
