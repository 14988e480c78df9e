"""``fastgen analyse``: every decision of a match judged, with each player's errors,
luck and rating, printed like GNU Backgammon's ``show statistics match``.

    fastgen analyse match.mat [--evaluator baseline|gnubg:0] [--plies 0|1] [--json] [--worst 10] [--html report.html]
    fastgen analyse folder/            # every match file in it, one table each
    fastgen analyse folder/ --workers 2   # on a local Dask cluster, one task a match

The file may be any match file :func:`fastgen.read_match` reads: a text match (``.mat``
or ``.txt``, exported by GNU Backgammon, eXtreme Gammon, BGBlitz or an online site), GNU
Backgammon's ``.sgf`` or eXtreme Gammon's ``.xg``; a folder may mix them. ``--json`` prints the
whole analysis (the totals and every decision); ``--worst N`` lists the N largest
errors after the table; ``--html FILE`` writes the report page (equity plot, the worst
decisions drawn, the totals: the ``plot`` extra). A folder shows a progress bar on the
terminal. ``--workers N`` or ``--scheduler ADDRESS`` analyse the matches on a Dask
cluster (the ``dask`` extra), with the same results.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from fastgen.cli.args import add_subcommand, int_in_range, spec_arg
from fastgen._util import MAX_THREADS
from fastgen.cli.output import json_text
from fastgen.formats.checked import check_destination
from fastgen.errors import FastgenError, InvalidArgumentError

__all__ = ["add_parser", "run_analyse"]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register the ``analyse`` subcommand on an argparse *subparsers* object."""
    parser = add_subcommand(
        subparsers,
        "analyse",
        help="judge every decision of a match file: errors, luck and ratings per player",
        description="Analyse a match file (.mat, .txt, .sgf, .xg; or every match file of a folder) with an evaluator at 0 or 1 ply: each "
        "play and cube decision judged, each roll's luck, and each player's totals, as GNU Backgammon's "
        "analyse match and show statistics match give them.",
    )
    parser.add_argument("source", help="a match file (.mat or .txt text, GNU Backgammon's .sgf, eXtreme Gammon's .xg), "
                        "or a folder of them")
    parser.add_argument("--evaluator", type=spec_arg("evaluator"),
                        help="the evaluator: gnubg:0 (GNU Backgammon's networks, whose marks agree with gnubg's own "
                        "analysis), baseline (fastgen's own network), network:SEED, PATH.npz; NAME:N searches it "
                        "N plies deep, gnubg:2 being GNU Backgammon's default analysis "
                        "(default: gnubg:0, GNU Backgammon's nets, where their weights are found, else baseline, fastgen's network)")
    parser.add_argument("--plies", type=int_in_range(0, 1), default=0,
                        help="0: the evaluator's values; 1: plays and cube decisions looked at after the 21 rolls")
    parser.add_argument("--no-cube", action="store_true", help="judge the plays only, not the cube decisions")
    parser.add_argument("--worst", type=int_in_range(0), default=0, help="also list the N worst decisions")
    parser.add_argument("--threads", type=int_in_range(1, MAX_THREADS), default=1, help="threads of the move generator and the network")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int_in_range(1, 1024),
                       help="analyse the matches on a new local Dask cluster of N worker processes")
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="analyse the matches on the Dask cluster whose scheduler is at ADDRESS (tcp://host:8786)")
    parser.add_argument("--html", metavar="FILE", help="also write the HTML report of a match file to FILE")
    parser.add_argument("--json", action="store_true", help="print the whole analysis as JSON")
    parser.set_defaults(func=run_analyse)
    return parser


def _worst_lines(a: Any, n: int) -> list[str]:
    from fastgen.analysis.records import mat_numbers  # lazy: the analysis loads only when this command runs

    lines = ["", f"The {n} worst decisions:"] if n else []
    numbers = mat_numbers(a.decisions)
    for d in a.worst(n):
        who = a.names[d.player]
        if d.kind == "move":
            what = f"rolled {d.dice[0]}{d.dice[1]}, played {d.play}, best {d.best_play}"
        else:
            what = f"{d.kind}, proper: {d.proper.value}"
        lines.append(f"  game {d.game + 1} move {numbers[id(d)]}: {who}: {what}: {d.error:+.3f}")
    return lines


def run_analyse(args: argparse.Namespace) -> int:
    """Analyse the file or folder of *args* and print the result; returns the exit status."""
    from fastgen.analysis.front import analyse  # lazy: the analysis loads only when this command runs

    if not os.path.exists(args.source):
        print(f"fastgen analyse: error: no such file or folder: {args.source!r}", file=sys.stderr)
        return 2
    if args.html is not None and os.path.isdir(args.source):
        print("fastgen analyse: error: --html writes the report of one match file, not of a folder", file=sys.stderr)
        return 2
    try:
        if args.html is not None:  # before the analysis: its result must have somewhere to go
            check_destination(args.html, "HTML report", InvalidArgumentError)
    except FastgenError as exc:
        print(f"fastgen analyse: error: {exc}", file=sys.stderr)
        return 2
    from fastgen.players.specs import default_evaluator  # lazy: as the analysis

    try:
        evaluator = args.evaluator if args.evaluator is not None else default_evaluator()
    except FastgenError as exc:  # FASTGEN_GNUBG_WEIGHTS naming no file
        print(f"fastgen analyse: error: {exc}", file=sys.stderr)
        return 2
    bar = None
    if os.path.isdir(args.source) and sys.stderr.isatty():
        from tqdm import tqdm  # lazy: a progress bar for folders on a terminal only

        from fastgen.formats.reader import match_files  # lazy: the readers load only when this command runs

        bar = tqdm(total=len(match_files(args.source)), unit="match", file=sys.stderr,
                   leave=False)
    try:
        result = analyse(args.source, evaluator, plies=args.plies, cube=not args.no_cube, threads=args.threads,
                         progress=None if bar is None else bar.update, workers=args.workers,
                         scheduler=args.scheduler)
    except (FastgenError, ImportError) as exc:  # ImportError: --workers or --scheduler without the dask extra
        print(f"fastgen analyse: error: {exc}", file=sys.stderr)
        return 2
    finally:
        if bar is not None:
            bar.close()
    results = result if isinstance(result, list) else [result]
    if args.html is not None:
        try:
            results[0].to_html(args.html, worst=max(args.worst, 10))
        except (OSError, ImportError) as exc:
            print(f"fastgen analyse: error: cannot write the report {args.html!r}: {exc}", file=sys.stderr)
            return 1
    if args.json:
        out = [a.to_dict() for a in results]
        print(json_text(out if isinstance(result, list) else out[0], indent=2))
        return 0
    for i, a in enumerate(results):
        if i:
            print()
        if a.source:
            print(a.source)
        print(a)
        print("\n".join(_worst_lines(a, args.worst)))
    if evaluator == "baseline":
        print("\nJudged by fastgen's baseline network. For GNU Backgammon's own judgement (its networks, whose marks "
              "agree with its analyse match) install gnubg or the peers extra, or add --evaluator gnubg:0.")
    return 0
