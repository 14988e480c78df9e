"""The ``fastgen rollout`` subcommand: bulk cubeless self-play with a summary.

    fastgen rollout --games 100000 --policy random --seed 1 [--json] [--batch-size 4096]
    fastgen rollout ... [--workers N | --scheduler tcp://host:8786] [--chunk-size N] [--out DIR]
    fastgen rollout --resume DIR [--workers N | --scheduler ADDRESS]

With ``--workers``/``--scheduler`` the games run on a Dask cluster (the ``dask`` extra) in
chunks; the result is the same game for game. ``--out DIR`` keeps finished chunks in DIR
as they arrive; ``--resume DIR`` finishes that run (its games, seed, policy, position and
chunk size come from DIR's manifest). Ctrl-C prints the summary of the finished chunks.

A progress bar (tqdm, when importable) is shown only when stdout is a terminal and
``--json`` is not given.
"""

from __future__ import annotations

import argparse
import json
import sys

__all__ = ["add_rollout_parser", "run_rollout"]


def _int_at_least(minimum: int, what: str):
    """An argparse type: an int >= minimum, else a usage error quoting the text."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < minimum:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value

    return parse


_positive_int = _int_at_least(1, "a positive integer")
_seed = _int_at_least(0, "a non-negative integer seed")


def add_rollout_parser(subparsers) -> argparse.ArgumentParser:
    """Register the ``rollout`` subcommand on an argparse *subparsers* object."""
    parser = subparsers.add_parser(
        "rollout",
        help="play many cubeless games at once and print win/gammon/backgammon rates",
        description="Bulk cubeless rollouts from the opening (or a Position ID), "
        "one plays_batch call per turn for all games.",
    )
    parser.add_argument("--games", type=_positive_int, default=10000, help="number of games (default 10000)")
    parser.add_argument("--policy", choices=("random", "pubeval"), default="random", help="move policy")
    parser.add_argument("--seed", type=_seed, default=1, help="seed; same seed, same games (default 1)")
    parser.add_argument("--batch-size", type=_positive_int, default=4096, help="games played side by side")
    parser.add_argument("--threads", type=_positive_int, default=1, help="threads: games in parallel (random policy) or for plays_batch (default 1)")
    parser.add_argument("--position", metavar="POSITION_ID", help="start every game from this GNU Backgammon Position ID (side on roll first to move)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--workers", type=_positive_int, help="run on a new local Dask cluster of N worker processes")
    where.add_argument("--scheduler", metavar="ADDRESS", help="run on the Dask cluster whose scheduler is at ADDRESS (tcp://host:8786)")
    parser.add_argument("--chunk-size", type=_positive_int, help="games per Dask task (default: about 8 chunks per worker)")
    saved = parser.add_mutually_exclusive_group()
    saved.add_argument("--out", metavar="DIR", help="save finished chunks in DIR as they arrive (rerun with the same arguments, or --resume DIR, to finish)")
    saved.add_argument("--resume", metavar="DIR", help="finish the run saved in DIR (arguments from its manifest)")
    parser.set_defaults(func=run_rollout)
    return parser


def _progress_bar(total: int, enabled: bool):
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, unit="game", file=sys.stderr, leave=False)


def run_rollout(args) -> int:
    """Run a rollout from parsed arguments and print the summary; returns the exit code."""
    from fastgen.errors import FastgenError
    from fastgen.rollout import rollout

    out = getattr(args, "out", None)
    if getattr(args, "resume", None):
        from fastgen.rollout_chunks import read_manifest

        try:
            run = read_manifest(args.resume)["run"]
        except FastgenError as exc:
            print(f"fastgen rollout: {exc}", file=sys.stderr)
            return 2
        if run.get("policy") not in ("random", "pubeval") or run.get("first_game") != 0 or (
            run.get("start") is not None and len(run["start"]) != 1
        ):
            print(f"fastgen rollout: {args.resume!r} was not written by the command line; resume it with fastgen.rollout(out=...)", file=sys.stderr)
            return 2
        out = args.resume
        args.games, args.seed, args.policy, args.chunk_size = run["games"], run["seed"], run["policy"], run["chunk_size"]
        args.position = run["start"][0] if run.get("start") else None
    start = None
    if args.position:
        from fastgen.ids import board_from_position_id

        try:
            start = board_from_position_id(args.position)
        except FastgenError as exc:
            print(f"fastgen rollout: {exc}", file=sys.stderr)
            return 2
    from fastgen.rollout_chunks import RolloutInterrupted

    bar = _progress_bar(args.games, enabled=sys.stdout.isatty() and not args.json)
    interrupted = None
    try:
        result = rollout(
            games=args.games,
            policy=args.policy,
            seed=args.seed,
            start=start,
            batch_size=args.batch_size,
            threads=args.threads,
            progress=bar.update if bar is not None else None,
            workers=getattr(args, "workers", None),
            scheduler=getattr(args, "scheduler", None),
            chunk_size=getattr(args, "chunk_size", None),
            out=out,
        )
    except RolloutInterrupted as exc:
        interrupted, result = exc, exc.result
    except FastgenError as exc:
        print(f"fastgen rollout: {exc}", file=sys.stderr)
        return 2
    finally:
        if bar is not None:
            bar.close()
    if interrupted is not None:
        hint = f"; finish it with --resume {out}" if out else ""
        print(f"interrupted: summary of the {interrupted.finished} of {interrupted.total} games finished{hint}", file=sys.stderr)
    summary = result.summary()
    if args.json:
        data = summary.as_dict()
        data["timings"] = result.timings
        print(json.dumps(data, indent=2))
    else:
        print(summary)
    return 130 if interrupted is not None else 0
