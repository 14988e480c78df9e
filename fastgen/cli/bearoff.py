"""The ``fastgen bearoff`` subcommand: GNU Backgammon bear-off databases.

    fastgen bearoff build (-o P | -t PxC) [-c] [-g] [-C] [-H] -f FILE [--threads N]
    fastgen bearoff dump FILE ID
    fastgen bearoff eval POSITION_ID [--database FILE ...]

``build`` takes makebearoff's own options and writes the same bytes (a tqdm progress bar
on a terminal). ``dump`` prints one position of a .bd file (ID: a position number, or a
Position ID whose two sides are looked up), as bearoffdump does. ``eval`` prints gnubg's
five outputs for the side on roll of a bear-off position, from the databases given (by
default built in memory: two-sided 6x6 where both sides fit it, else one-sided 6 points).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from typing import Any

import numpy as np

from fastgen.bearoff.build import build_one_sided, build_two_sided
from fastgen.bearoff.database import OneSidedDatabase, TwoSidedDatabase
from fastgen.bearoff.evaluate import covered, evaluate
from fastgen.bearoff.files import read_gnubg, write_gnubg
from fastgen.bearoff.index import MAX_POINTS, in_database, index_position, side_index
from fastgen.cli.args import add_subcommand, int_in_range, position_id_arg
from fastgen._util import MAX_THREADS
from fastgen.cli.output import json_text
from fastgen.errors import FastgenError
from fastgen.core.ids import parse_position_id, position_id

__all__ = ["add_parser"]

OUTPUTS = ("P(win)", "P(win gammon)", "P(win backgammon)", "P(lose gammon)", "P(lose backgammon)")


def _two_sided_arg(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"(\d{1,2})x(\d{1,2})", text)
    if not m or not 1 <= int(m[1]) <= MAX_POINTS or not 1 <= int(m[2]) <= 15:
        raise argparse.ArgumentTypeError(f"expected PxC with P from 1 to {MAX_POINTS} and C from 1 to 15, got {text!r}")
    return int(m[1]), int(m[2])


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register the ``bearoff`` subcommand (build, dump, eval) on an argparse *subparsers* object."""
    parser = add_subcommand(
        subparsers, "bearoff",
        help="build, dump and use GNU Backgammon bear-off databases (.bd)",
        description="Bear-off databases in GNU Backgammon's format, built from fastgen's move generation.",
    )
    sub = parser.add_subparsers(dest="bearoff_command", metavar="{build,dump,eval}", required=True)
    build = add_subcommand(
        sub, "build", help="build a .bd file (makebearoff's options, the same bytes)",
        description="Build a one-sided (-o P) or two-sided (-t PxC) bear-off database and write it "
        "as makebearoff does.",
    )
    kind = build.add_mutually_exclusive_group(required=True)
    kind.add_argument("-o", "--one-sided", metavar="P", type=int_in_range(1, MAX_POINTS), help="one-sided database of P points (15 checkers)")
    kind.add_argument("-t", "--two-sided", metavar="PxC", type=_two_sided_arg, help="two-sided database of P points and C checkers")
    build.add_argument("-c", "--no-compress", action="store_true", help="do not use the compression scheme (one-sided)")
    build.add_argument("-g", "--no-gammon", action="store_true", help="do not include the gammon distributions (one-sided)")
    build.add_argument("-C", "--no-cubeful", action="store_true", help="do not compute cubeful equities (two-sided)")
    build.add_argument("-H", "--no-header", action="store_true", help="do not write the header")
    build.add_argument("-f", "--outfile", metavar="FILE", required=True, help="output file")
    build.add_argument("--threads", type=int_in_range(1, MAX_THREADS), default=1, help="threads for a two-sided build")
    build.add_argument("--no-progress", action="store_true", help="no progress bar")
    build.set_defaults(func=run_build)
    dump = add_subcommand(sub, "dump", help="print one position of a .bd file",
                          description="Print the stored values of one position of a bear-off database.")
    dump.add_argument("file", metavar="FILE")
    dump.add_argument("id", metavar="ID", help="a position number, or a Position ID (both sides looked up)")
    dump.set_defaults(func=run_dump)
    ev = add_subcommand(sub, "eval", help="gnubg's five outputs for a bear-off position",
                        description="P(win), P(win gammon), P(win backgammon), P(lose gammon), P(lose backgammon) "
                        "for the side on roll, exact from bear-off databases.")
    ev.add_argument("position", metavar="POSITION_ID", type=position_id_arg)
    ev.add_argument("--database", metavar="FILE", action="append", default=[],
                    help="a .bd file to use (repeatable; the first that holds the position is used)")
    ev.add_argument("--json", action="store_true", help="machine-readable output")
    ev.set_defaults(func=run_eval)
    return parser


def _progress_bar(enabled: bool, label: str) -> Any:
    if not enabled or not sys.stderr.isatty():
        return None
    from tqdm import tqdm  # lazy: its import is a fifth of import fastgen's time; loaded when a bar is shown
    return tqdm(total=100, unit="%", desc=label, file=sys.stderr, leave=False)


def run_build(args: argparse.Namespace) -> int:
    """Build and write a database from parsed arguments; returns the exit code."""
    label = f"-o {args.one_sided}" if args.one_sided else f"-t {args.two_sided[0]}x{args.two_sided[1]}"
    bar = _progress_bar(not args.no_progress, label)

    def progress(done: int, total: int) -> None:
        if bar is not None:
            bar.n = int(100 * done / total) if total else 100
            bar.refresh()

    start = time.perf_counter()
    db: OneSidedDatabase | TwoSidedDatabase
    try:
        if args.one_sided:
            db = build_one_sided(args.one_sided, gammons=not args.no_gammon, compress=not args.no_compress,
                                     progress=progress)
        else:
            points, checkers = args.two_sided
            db = build_two_sided(points, checkers, cubeful=not args.no_cubeful, threads=args.threads, progress=progress)
        seconds = time.perf_counter() - start
        size = write_gnubg(args.outfile, db, compress=not args.no_compress, header=not args.no_header)
    except OSError as exc:
        print(f"fastgen bearoff build: error: cannot write {args.outfile!r}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    finally:
        if bar is not None:
            bar.close()
    print(f"{label}: {db.size:,} positions per side, {size:,} bytes written to {args.outfile} (built in {seconds:.2f} s)")
    return 0


def _one_sided_rows(db: OneSidedDatabase, index: int) -> list[str]:
    stored_rolls, stored_gammon = db.stored(np.array([index]))
    rolls = stored_rolls.astype(np.int64)
    gammon = None if stored_gammon is None else stored_gammon.astype(np.int64)
    lines = [f"position {index}: {index_position(index, db.points).tolist()} (checkers on points 1..{db.points})",
             f"{'rolls':>5} {'bear off':>9}" + (f" {'first off':>10}" if gammon is not None else "")]
    last = max(int(np.nonzero(rolls[0])[0].max()), int(np.nonzero(gammon[0])[0].max()) if gammon is not None else 0)
    for k in range(last + 1):
        row = f"{k:>5} {100 * rolls[0, k] / 65535:>8.3f}%"
        if gammon is not None:
            row += f" {100 * gammon[0, k] / 65535:>9.3f}%"
        lines.append(row)
    lines.append(f"mean rolls {float(db.mean_rolls(np.array([index]))[0]):.4f}")
    return lines


def _two_sided_rows(db: TwoSidedDatabase, me: int, opp: int) -> list[str]:
    eq = db.equities(np.array([me]), np.array([opp]))[0]
    names = ("cubeless equity", "owned cube", "centred cube", "opponent owns cube") if db.cubeful else ("cubeless equity",)
    lines = [f"on roll {me} {index_position(me, db.points, db.checkers).tolist()}, "
             f"opponent {opp} {index_position(opp, db.points, db.checkers).tolist()}"]
    lines += [f"{name:<20} {value:+.5f}" for name, value in zip(names, eq)]
    return lines


def run_dump(args: argparse.Namespace) -> int:
    """Print one position of a database file; returns the exit code."""
    try:
        db = read_gnubg(args.file)
        lines = [f"{args.file}: {db!r}"]
        if args.id.isdigit():
            index = int(args.id)
            if isinstance(db, OneSidedDatabase):
                lines += _one_sided_rows(db, index)
            else:
                lines += _two_sided_rows(db, *divmod(index, db.size))
        else:
            board = parse_position_id(args.id)[None]
            if not in_database(board, db.points, db.checkers)[0]:
                raise ValueError(f"Position ID {args.id!r} is not in this {db.kind} database of {db.points}x{db.checkers}")
            me, opp = int(side_index(board, 1, db.points, db.checkers)[0]), int(side_index(board, 0, db.points, db.checkers)[0])
            if isinstance(db, OneSidedDatabase):
                lines += ["side on roll:"] + _one_sided_rows(db, me) + ["opponent:"] + _one_sided_rows(db, opp)
            else:
                lines += _two_sided_rows(db, me, opp)
    except (FastgenError, ValueError) as exc:
        print(f"fastgen bearoff dump: error: {exc}", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


def _database_json(db: OneSidedDatabase | TwoSidedDatabase) -> dict[str, Any]:
    """What ``eval --json`` says of the database it used: its file (path and size in
    bytes; both null for a database built in memory), kind and dimensions."""
    return {
        "path": db.source,
        "kind": db.kind,
        "points": db.points,
        "checkers": db.checkers,
        "positions": db.size,  # per side
        "bytes": None if db.source is None else os.path.getsize(db.source),
    }


def run_eval(args: argparse.Namespace) -> int:
    """Print the five outputs for a Position ID; returns the exit code."""
    board = args.position[None]
    try:
        dbs = [read_gnubg(path) for path in args.database]
        if not dbs:
            dbs = [build_two_sided(6, 6)] if in_database(board, 6, 6)[0] else [build_one_sided(6)]
        if not covered(board, *dbs)[0]:
            evaluate(board, *dbs)  # raises OutsideDatabaseError with the details
        probs = evaluate(board, *dbs)[0]
        used = next(db for db in dbs if covered(board, db)[0])
    except FastgenError as exc:
        print(f"fastgen bearoff eval: error: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json_text({"position": position_id(board[0]), "database": _database_json(used),
                          **dict(zip(OUTPUTS, probs.tolist()))}))
        return 0
    print(f"{position_id(board[0])} ({used.kind} {used.points}x{used.checkers})")
    for name, p in zip(OUTPUTS, probs):
        print(f"{name:<18} {p:.6f}")
    return 0
