"""The ``fastgen rollout`` subcommand: bulk cubeless self-play with a summary.

    fastgen rollout --games 100000 --policy random --seed 1 [--json] [--batch-size 4096]
    fastgen rollout ... [--workers N | --scheduler tcp://host:8786] [--chunk-size N] [--out DIR [--key TEXT]]
    fastgen rollout --resume DIR [--workers N | --scheduler ADDRESS]

With ``--workers``/``--scheduler`` the games run on a Dask cluster (the ``dask`` extra) in
chunks; the result is the same game for game. ``--out DIR`` keeps finished chunks in DIR
as they arrive; ``--resume DIR`` finishes that run (its games, seed, policy, position and
chunk size come from DIR's manifest). A ``module:callable`` policy is code fastgen cannot
identify, so ``--out`` with one needs ``--key TEXT``, a text that changes whenever the
policy's choices would (a version, a digest of its weights); rerun with the same
arguments and key to finish the run. Ctrl-C prints the summary of the finished chunks.

A progress bar (tqdm, when importable) is shown only when stdout is a terminal and
``--json`` is not given.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Callable, Optional


from fastgen.cli.args import add_subcommand, int_in_range, position_id_arg, spec_arg
from fastgen._util import MAX_THREADS
from fastgen.cli.output import json_text
from fastgen.errors import FastgenError, InvalidSpecError, RolloutStoreError
from fastgen.sim.rollout.front import DEFAULT_SEED, rollout
from fastgen.sim.rollout.chunks import RolloutInterrupted, RolloutStore, policy_identity

__all__ = ["add_parser", "run_rollout", "LEGEND"]

#: What the numbers of the text summary mean (also in the JSON output, key "legend").
LEGEND = {
    "side_0": "side 0 is the side that moves first: the winner of the opening roll, "
    "or with --position the side on roll in that position",
    "intervals": "[low, high] brackets are 95% Wilson score intervals of each rate",
    "gammon": "gammon rates include backgammons",
    "points_per_game": "points per game are side 0's cubeless points (1, 2 or 3 a game, "
    "negative when side 1 wins) with a 95% normal-approximation interval",
}

MAX_SEED = 2**64 - 1


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register the ``rollout`` subcommand on an argparse *subparsers* object."""
    parser = add_subcommand(
        subparsers,
        "rollout",
        help="play many cubeless games at once and print win/gammon/backgammon rates",
        description="Bulk cubeless rollouts from the opening (or a Position ID), "
        "one plays_batch call per turn for all games.",
        epilog="Output: " + "; ".join(LEGEND.values()) + ".",
    )
    parser.add_argument("--games", type=int_in_range(1), default=10000, help="number of games")
    parser.add_argument("--policy", type=spec_arg("policy"), default="random",
                        help="move policy: random, pubeval, baseline, gnubg[:N], network:SEED, PATH.npz or module:callable")
    parser.add_argument(
        "--seed",
        type=int_in_range(0, MAX_SEED),
        default=DEFAULT_SEED,
        help="the same seed gives the same games, as rollout(seed=...)",
    )
    parser.add_argument("--batch-size", type=int_in_range(1), default=4096, help="games played side by side")
    parser.add_argument(
        "--threads",
        type=int_in_range(1, MAX_THREADS),
        default=1,
        help="threads: games in parallel (random policy) or for plays_batch",
    )
    parser.add_argument(
        "--position",
        metavar="POSITION_ID",
        type=position_id_arg,
        help="start every game from this GNU Backgammon Position ID (side on roll first to move)",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int_in_range(1, MAX_THREADS), help="run on a new local Dask cluster of N worker processes")
    where.add_argument("--scheduler", metavar="ADDRESS", help="run on the Dask cluster whose scheduler is at ADDRESS (tcp://host:8786)")
    parser.add_argument("--chunk-size", type=int_in_range(1), help="games per chunk (default: about 8 chunks per worker)")
    saved = parser.add_mutually_exclusive_group()
    saved.add_argument("--out", metavar="DIR", help="save finished chunks in DIR as they arrive (rerun with the same arguments, or --resume DIR, to finish)")
    saved.add_argument("--resume", metavar="DIR", help="finish the run saved in DIR (games, seed, policy, position and chunk size from its manifest)")
    parser.add_argument("--key", metavar="TEXT", help="with --out and a module:callable policy: a text that changes whenever the policy's choices would (it identifies the run)")
    parser.set_defaults(func=run_rollout)
    return parser


def _progress_bar(total: int, enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm import tqdm  # lazy: its import is a fifth of import fastgen's time; loaded when a bar is shown
    return tqdm(total=total, unit="game", file=sys.stderr, leave=False)


def run_rollout(args: argparse.Namespace) -> int:
    """Run a rollout from parsed arguments and print the summary; returns the exit code."""
    out = getattr(args, "out", None)
    if getattr(args, "resume", None):
        try:
            _from_manifest(args)
        except (FastgenError, argparse.ArgumentTypeError) as exc:
            print(f"fastgen rollout: error: {exc}", file=sys.stderr)
            return 2
        out = args.resume
    key = getattr(args, "key", None)
    if key is not None and out is None:
        print("fastgen rollout: error: --key identifies the policy of an --out run; give --out DIR with it", file=sys.stderr)
        return 2
    if out is not None and key is None and policy_identity(args.policy, None) is None:
        print(f"fastgen rollout: error: --out with the policy {args.policy!r} needs --key TEXT: fastgen cannot "
              "identify a module:callable policy, so give a text that changes whenever its choices would "
              "(a version, a digest of its weights), or run without --out", file=sys.stderr)
        return 2
    bar = _progress_bar(args.games, enabled=sys.stdout.isatty() and not args.json)
    progress: Optional[Callable[[int], Any]] = bar.update if bar is not None else None
    interrupted = None
    try:
        result = rollout(
            games=args.games,
            policy=args.policy,
            seed=args.seed,
            start=args.position,  # a board: parsed and checked by position_id_arg
            batch_size=args.batch_size,
            threads=args.threads,
            progress=progress,
            workers=getattr(args, "workers", None),
            scheduler=getattr(args, "scheduler", None),
            chunk_size=getattr(args, "chunk_size", None),
            out=out,
            key=key,
        )
    except RolloutInterrupted as exc:
        interrupted, result = exc, exc.result
    except InvalidSpecError as exc:  # the policy's spec could not be loaded
        print(f"fastgen rollout: error: {exc}", file=sys.stderr)
        return 2
    except (ValueError, RuntimeError, MemoryError) as exc:
        # Found only while playing (e.g. a position where no game can end).
        print(f"fastgen rollout: error: {exc or type(exc).__name__}", file=sys.stderr)
        return 1
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
        data["legend"] = LEGEND
        print(json_text(data, indent=2))
    else:
        print(summary)
        for line in LEGEND.values():
            print(f"  {line}")
    return 130 if interrupted is not None else 0


def _from_manifest(args: argparse.Namespace) -> None:
    """Set the run's arguments of *args* from the manifest of ``args.resume``."""
    run = RolloutStore.read_run(args.resume)
    if run.get("policy") not in ("random", "pubeval") or run.get("first_game") != 0 or (
        run.get("start") is not None and len(run["start"]) != 1
    ):
        raise RolloutStoreError(
            f"{args.resume!r} holds a run the command line cannot repeat; finish it with fastgen.rollout(out=...)"
        )
    args.games, args.seed, args.policy, args.chunk_size = run["games"], run["seed"], run["policy"], run["chunk_size"]
    args.position = position_id_arg(run["start"][0]) if run.get("start") else None
