"""The ``fastgen rollout-plays`` subcommand: which play is best, by how much, how sure.

    fastgen rollout-plays --position 4HPwATDgc/ABMA --dice 31 [--evaluator baseline] [--plays 4] [--trials 216] [--json]

Rolls out the candidate plays of the position (side on roll first) with the dice, both
sides playing the evaluator's 0-ply choice, with variance reduction and quasi-random
dice unless turned off, and prints a table like GNU Backgammon's (``--json``: the
table's ``to_dict()``). The defaults answer in seconds: the shipped network
(``baseline``), the 4 best plays at 0 ply (``--plays all`` for every legal play), 216
trials each. Other evaluators: ``gnubg:PLIES`` (GNU Backgammon's nets through gnubg-nn,
the ``peers`` extra), ``network:SEED`` (the documented numpy example with random
weights), a weights file, ``module:callable``. Ctrl-C prints the table of the trials
finished so far, in order from the first (exit status 130); before the first finished it
says so and prints no table. A progress bar (tqdm), moving block by block (32 trials of
4 plays), is shown when stderr is a terminal and ``--json`` is not given.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from fastgen.players import specs
from fastgen.cli.args import add_subcommand, dice_arg, int_in_range, position_id_arg, spec_arg
from fastgen._util import MAX_THREADS
from fastgen.cli.output import json_text
from fastgen.errors import FastgenError
from fastgen.sim.decide.front import rollout_plays
from fastgen.sim.decide.table import NO_RESULT

__all__ = ["add_parser", "run_rollout_plays", "evaluator_arg"]

MAX_SEED = 2**64 - 1

#: The defaults: answers in seconds (see the decide guide for the measured times).
DEFAULT_PLAYS = 4
DEFAULT_TRIALS = 216


#: An argparse type: an evaluator spec of fastgen.players.specs (``gnubg:0``, ``baseline``, ...).
evaluator_arg = spec_arg("evaluator")


_positive_int = int_in_range(1)


def _plays_arg(text: str) -> int | None:
    """An argparse type: a positive number of plays, or ``all`` (None: every legal play)."""
    if text == "all":
        return None
    try:
        return _positive_int(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected a positive integer or all, got {text!r}") from None


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register the ``rollout-plays`` subcommand on an argparse *subparsers* object."""
    parser = add_subcommand(
        subparsers,
        "rollout-plays",
        help="roll out the candidate plays of a position and roll: which is best, by how much",
        description="Cubeless rollouts of each candidate play with a 0-ply evaluator, variance "
        "reduction, quasi-random common dice and paired statistics.",
    )
    parser.add_argument("--position", metavar="POSITION_ID", type=position_id_arg, required=True,
                        help="GNU Backgammon Position ID, the side on roll first")
    parser.add_argument("--dice", type=dice_arg, required=True, help="the roll, e.g. 31")
    parser.add_argument("--evaluator", type=evaluator_arg,
                        help="gnubg:0, gnubg:1, baseline, network:SEED, PATH.npz or module:callable "
                        "(default: gnubg:0, GNU Backgammon's nets, where their weights are found, else baseline, fastgen's network)")
    parser.add_argument("--trials", type=int_in_range(1), default=DEFAULT_TRIALS,
                        help=f"trials per candidate (default: {DEFAULT_TRIALS})")
    parser.add_argument("--plays", metavar="K|all", type=_plays_arg, default=DEFAULT_PLAYS,
                        help=f"roll out the K best plays at 0 ply, or all legal plays (default: {DEFAULT_PLAYS})")
    parser.add_argument("--seed", type=int_in_range(0, MAX_SEED), default=0, help="dice seed")
    parser.add_argument("--truncate", type=int_in_range(0), help="stop each trial after this many half-moves")
    parser.add_argument("--stop-se", type=_positive_float, help="stop once every row's equity SE is below this")
    parser.add_argument("--stop-z", type=_positive_float, help="drop a candidate once the best leads it by this many SE")
    parser.add_argument("--no-variance-reduction", action="store_true", help="plain outcomes")
    parser.add_argument("--no-quasi-random", action="store_true", help="plain hashed dice")
    parser.add_argument("--threads", type=int_in_range(1, MAX_THREADS), default=1, help="threads of the move generator and the network")
    parser.add_argument("--json", action="store_true", help="print the table as JSON")
    parser.set_defaults(func=run_rollout_plays)
    return parser


def run_rollout_plays(args: argparse.Namespace) -> int:
    """Run the rollout from parsed arguments and print the table; returns the exit code."""
    try:
        evaluator = specs.evaluator(args.evaluator if args.evaluator is not None else specs.default_evaluator())
    except FastgenError as exc:
        print(f"fastgen rollout-plays: error: {exc}", file=sys.stderr)
        return 2
    show_bar = sys.stderr.isatty() and not args.json
    try:
        table = rollout_plays(
            args.position, args.dice, evaluator, plays=args.plays, trials=args.trials, seed=args.seed,
            variance_reduction=not args.no_variance_reduction, quasi_random=not args.no_quasi_random,
            truncate=args.truncate, stop_se=args.stop_se, stop_z=args.stop_z, threads=args.threads,
            progress=True if show_bar else None,
        )
    except FastgenError as exc:
        print(f"fastgen rollout-plays: error: {exc}", file=sys.stderr)
        return 1
    if table.interrupted and not any(r.trials for r in table.rows):
        print(f"fastgen rollout-plays: {NO_RESULT}", file=sys.stderr)
        return 130
    if args.json:
        print(json_text(table.to_dict(), indent=2))
    else:
        print(table)
    return 130 if table.interrupted else 0
