"""The ``fastgen`` command line: ``fastgen bench`` (the main job), ``rollout``, ``perft``,
``bearoff``, ``rollout-plays``, ``duel``, ``serve-external``, ``train``, ``cube``,
``hint``, ``analyse``, ``play`` and ``convert-network``."""

from __future__ import annotations

import argparse
from importlib import import_module
import os
import sys
from typing import Any, Sequence

from fastgen.cli.args import HelpFormatter, add_subcommand, int_in_range
from fastgen.cli.output import json_text
from fastgen._util import MAX_THREADS, Terminated, install_hint, signals_as_interrupt
from fastgen._version import __version__

__all__ = ["main", "build_parser"]


def _headline(result: dict) -> str:
    """One line: the batch generators' median time per position and their speed-up against
    GNU Backgammon's generator, or, without gnubg-nn, the command that adds that baseline."""
    from fastgen.cli.bench import GNUBG  # lazy: the benchmark module loads only when bench runs

    median = {t["name"]: t["per_position"]["median"] * 1e6 for t in result["timings"]}
    gnubg = result["speedup_vs"].get(GNUBG)
    plays, count = "plays_batch", "count_plays_batch"
    if gnubg is None:
        return (
            f"headline: {plays} {median[plays]:.3f} us per position; {count} {median[count]:.3f} us; "
            f"the ratio to GNU Backgammon's generator needs gnubg-nn, the peers extra: "
            f"{install_hint('peers')} && fastgen bench"
        )
    return (
        f"headline: {plays} {median[plays]:.3f} us per position, {gnubg[plays]:.1f}x GNU Backgammon's "
        f"generator ({GNUBG}); {count} {median[count]:.3f} us, {gnubg[count]:.1f}x"
    )


def _bench(args: argparse.Namespace) -> int:
    def progress(name: str) -> None:
        if not args.json:
            print(f"  timed {name}", file=sys.stderr, flush=True)

    from fastgen.cli.bench import run_benchmarks  # lazy: the workload and the generator load only when bench runs

    result = run_benchmarks(
        repeat=args.repeat,
        oracle_sample=args.oracle_sample,
        threads=args.threads,
        progress=progress,
        workload=args.workload,
    )
    if args.json:
        print(json_text(result, indent=2))
        return 0
    env, work = result["environment"], result["workload"]
    headline = _headline(result)
    print(headline)
    print()
    print(f"fastgen {env['fastgen']} | Python {env['python']} | numpy {env['numpy']}")
    print(f"CPU: {env['cpu']} ({env['cores']} cores) | {env['platform']}")
    print(
        f"workload: {work['description']}: {work['positions']:,} generations, "
        f"{work['plays']:,} plays; {work['repeat']} runs each"
    )
    print()
    print(f"{'generator':<36}{'results':>8}{'min us':>9}{'median us':>11}{'max us':>9}{'positions/s':>14}{'plays/s':>14}")
    for t in result["timings"]:
        pp = t["per_position"]
        print(
            f"{t['name']:<36}{t['results']:>8}{pp['min'] * 1e6:>9.3f}{pp['median'] * 1e6:>11.3f}{pp['max'] * 1e6:>9.3f}"
            f"{t['positions_per_s']:>14,.0f}{t['plays_per_s']:>14,.0f}"
        )
    print()
    for base, ratios in result["speedup_vs"].items():
        print(f"speed-up vs {base} (median time ratio, higher is faster):")
        for name, r in ratios.items():
            print(f"  {name:<36}{r:>10.1f}x")
    print("dropped: each result dropped before the next call or run (later batches reuse memory);")
    print("kept: every result of every run kept alive (each batch writes fresh memory)")
    mem = result["memory"]
    print(
        f"fresh memory: {mem['first_touch_us_per_page']:.2f} us per 4 KiB page written the first time, "
        f"{mem['rewrite_us_per_page']:.2f} us written again"
    )
    print()
    print(headline)  # again at the end, where the terminal stops
    return 0


#: Subcommands other than ``bench`` and their modules, each with a function
#: ``add_parser(subparsers)`` that registers the subcommand and its handler (``func``).
#: Only the module of the subcommand being run is imported (all of them for the help
#: that lists them), so ``fastgen bearoff build`` loads no rollout or duel code.
SUBCOMMANDS = {
    "rollout": "fastgen.cli.rollout",
    "perft": "fastgen.cli.perft",
    "bearoff": "fastgen.cli.bearoff",
    "rollout-plays": "fastgen.cli.decide",
    "duel": "fastgen.cli.duel",
    "serve-external": "fastgen.cli.serve",
    "train": "fastgen.cli.train",
    "cube": "fastgen.cli.cube",
    "hint": "fastgen.cli.hint",
    "analyse": "fastgen.cli.analyse",
    "play": "fastgen.cli.play",
    "convert-network": "fastgen.cli.convert",
}

#: The exit status after the reader of the output went away (``fastgen ... | head``):
#: 128 + SIGPIPE, as a shell reports a Unix tool that a closed pipe stopped.
BROKEN_PIPE_STATUS = 141



def add_bench_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register the ``bench`` subcommand on an argparse *subparsers* object."""
    bench = add_subcommand(
        subparsers,
        "bench",
        help="time move generation on the shared vector workload",
        description="Time each generator on a fixed workload and print per-position "
        "times and speed-ups against the baselines timed in the same run.",
    )
    bench.add_argument("--repeat", type=int_in_range(1), default=5, help="runs per generator (median is reported)")
    bench.add_argument(
        "--threads", type=int_in_range(1, MAX_THREADS), default=2, help="threads for the threaded batch row"
    )
    bench.add_argument(
        "--oracle-sample", type=int_in_range(1), default=420, help="generations timed with the reference oracle"
    )
    bench.add_argument(
        "--workload",
        choices=["vectors", "random"],
        default="vectors",
        help="vectors: the 2,000 vector positions x 21 rolls; random: 20,000 self-play positions",
    )
    bench.add_argument("--json", action="store_true", help="machine-readable output")
    bench.set_defaults(func=_bench)
    return bench


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``fastgen`` argument parser: with every subcommand registered, or only *command*
    when that names one (the modules of the others are then not imported)."""

    parser = argparse.ArgumentParser(
        prog="fastgen",
        description="Backgammon on a fast, checked core: play a match against the bot in the terminal "
        "(fastgen play), analyse matches, rank the plays of a roll, decide cube actions, roll out plays, "
        "run duels between bots, "
        "train networks by self-play, and generate every legal play at speed.",
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"fastgen {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    every = command != "bench" and command not in SUBCOMMANDS
    if every or command == "bench":
        add_bench_parser(sub)
    for name, module in SUBCOMMANDS.items():
        if every or command == name:
            import_module(module).add_parser(sub)
    return parser


def _command(argv: Sequence[str]) -> str | None:
    """The subcommand *argv* names: its first argument that is not an option (the options
    before it, ``-h`` and ``--version``, take no value)."""
    return next((a for a in argv if not a.startswith("-")), None)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with *argv* (default ``sys.argv[1:]``); returns the exit status.

    Bad arguments exit with status 2 and a one-line usage error before any work starts;
    Ctrl-C exits with status 130, and SIGTERM or SIGHUP stop the work the same way (engines
    closed, workers cancelled) with status 128 + the signal's number; when the reader of the output goes away (``fastgen ...
    | head``) the command stops quietly with status 141, as Unix tools do.
    """
    parser = build_parser(_command(sys.argv[1:] if argv is None else argv))
    try:
        try:
            args = parser.parse_args(argv)  # may print help and exit
            with signals_as_interrupt():
                status: int = args.func(args)
        finally:
            sys.stdout.flush()  # a closed pipe shows here, not in the flush at exit
    except Terminated as exc:
        print(f"fastgen: {exc}", file=sys.stderr)
        return 128 + exc.signum
    except KeyboardInterrupt:
        print("fastgen: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # Python's "Note on SIGPIPE": point stdout at the null device, so that the flush
        # at exit of what is still buffered raises no second error.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return BROKEN_PIPE_STATUS
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
