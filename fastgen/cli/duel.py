"""The ``fastgen duel`` subcommand: two policies play money games (cubeless, or with the
cube) or matches.

    fastgen duel pubeval random --games 10000 [--seed 0] [--unmirrored] [--json]
    fastgen duel gnubg:0 pubeval --games 2000          # gnubg-nn (the peers extra)
    fastgen duel gnubg-engine pubeval --games 200      # the real GNU Backgammon program
    fastgen duel mybot:policy pubeval                   # any importable batch policy
    fastgen duel pubeval random --games 1000000 --workers 2   # on a local Dask cluster
    fastgen duel baseline gnubg:0 --games 2000 --cube   # money games with the cube
    fastgen duel baseline gnubg:0 --matches 200 --match-length 7   # matches with the cube
    fastgen duel baseline gnubg:0 --matches 20 --mat matches/   # ... each written as a .mat file

Policies: ``random``, ``pubeval``, ``baseline``, ``gnubg[:N]``, ``gnubg-engine[:N]``,
``network:SEED``, a weights file ``PATH.npz`` or ``module:callable`` (the grammar of
:mod:`fastgen.players.specs`; ``module`` may be a ``module.py`` in the current directory).
With ``--cube`` both play with the doubling cube: they must be evaluators (``baseline``,
``gnubg[:N]``, ``network:SEED``, ``PATH.npz``), whose 0-ply cube decisions double and take.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from fastgen.cli.args import add_subcommand, int_in_range
from fastgen._util import MAX_THREADS
from fastgen.cli.output import json_text
from fastgen.errors import FastgenError
from fastgen.formats.matfile import write_mat
from fastgen.sim.duel.front import DuelResult, MatchDuelResult, duel, duel_matches

__all__ = ["add_parser", "run_duel"]

MAX_SEED = 2**64 - 1


def _policy_arg(text: str) -> str:
    if not text:
        raise argparse.ArgumentTypeError("a policy must not be empty")
    return text  # read by fastgen.players.specs when the duel starts: its errors are one line


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register the ``duel`` subcommand on an argparse *subparsers* object."""
    parser = add_subcommand(
        subparsers,
        "duel",
        help="two players play money games or matches; points per game (or matches won) with a 95%% interval",
        description="Play money games between policies A and B (random, pubeval, "
        "baseline[:N], gnubg[:N] for GNU Backgammon's nets, each searched N plies deep, gnubg-nn[:N], "
        "gnubg-engine[:N] for the GNU Backgammon program, network:SEED, a weights file PATH.npz[:N] or "
        "module:callable) and report A's points per game: cubeless by "
        "default, with the doubling cube with --cube, or matches with --matches (both need evaluators, whose "
        "cube decisions double and take).",
    )
    parser.add_argument("a", type=_policy_arg, help="policy A (the one the figures are about)")
    parser.add_argument("b", type=_policy_arg, help="policy B")
    parser.add_argument("--games", type=int_in_range(2), help="games (even when mirrored; default 10000)")
    parser.add_argument("--seed", type=int_in_range(0, MAX_SEED), default=0, help="the same seed gives the same games")
    parser.add_argument("--unmirrored", action="store_true", help="independent dice for every game (no duplicate pairs)")
    parser.add_argument("--threads", type=int_in_range(1, MAX_THREADS), default=1, help="threads")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int_in_range(1, MAX_THREADS), help="run on a new local Dask cluster of N worker processes")
    where.add_argument("--scheduler", metavar="ADDRESS", help="run on the Dask cluster whose scheduler is at ADDRESS (tcp://host:8786)")
    parser.add_argument("--cube", action="store_true", help="money games with the doubling cube (evaluators only)")
    parser.add_argument("--max-cube", type=int_in_range(2, 1 << 20), default=64, help="with --cube or --matches: the highest cube (a power of two)")
    parser.add_argument("--matches", type=int_in_range(2), help="play matches with the cube instead of games")
    parser.add_argument("--match-length", type=int_in_range(1, 64), default=7, help="with --matches: points")
    parser.add_argument("--mat", metavar="DIR", help="with --matches: write every match to DIR as a .mat file "
                        "(match-00001.mat ...), as GNU Backgammon imports it")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(func=run_duel)
    return parser


def run_duel(args: argparse.Namespace) -> int:
    """Run a duel from parsed arguments and print the result; returns the exit status."""
    if args.mat is not None and args.matches is None:
        print("fastgen duel: error: --mat writes the matches of --matches", file=sys.stderr)
        return 2
    if args.mat is not None:  # before the duel: a long run must not end on a folder it cannot write
        try:
            os.makedirs(args.mat, exist_ok=True)
            if not os.access(args.mat, os.W_OK):
                raise PermissionError("not writable")
        except OSError as exc:
            print(f"fastgen duel: error: cannot write the .mat files to {args.mat!r}: {exc}", file=sys.stderr)
            return 1
    try:  # duel reads the specs and closes the engines they start
        if args.matches is not None:
            if args.games is not None:
                print("fastgen duel: error: give --games or --matches, not both", file=sys.stderr)
                return 2
            result: DuelResult | MatchDuelResult = duel_matches(args.a, args.b, args.matches, args.match_length, seed=args.seed,
                                  mirrored=not args.unmirrored, threads=args.threads, workers=args.workers,
                                  scheduler=args.scheduler, max_cube=args.max_cube, records=args.mat is not None)
        else:
            result = duel(
                args.a, args.b, 10000 if args.games is None else args.games, seed=args.seed,
                mirrored=not args.unmirrored, threads=args.threads, workers=args.workers, scheduler=args.scheduler,
                cube=args.cube, max_cube=args.max_cube,
            )
    except FastgenError as exc:
        print(f"fastgen duel: error: {exc}", file=sys.stderr)
        return 2 if any(w in str(exc) for w in ("policy", "games", "cube", "matches")) else 1
    print(json_text(result.to_dict(), indent=2) if args.json else result)
    if args.mat is not None:
        try:
            _write_matches(result, args.mat)
        except OSError as exc:
            print(f"fastgen duel: error: cannot write the .mat files to {args.mat!r}: {exc}", file=sys.stderr)
            return 1
    return 0


def _write_matches(result: Any, folder: str) -> None:
    """Every match of *result* as FOLDER/match-NNNNN.mat."""
    for i in range(result.matches):
        write_mat(result.match(i), os.path.join(folder, f"match-{i + 1:05d}.mat"))
