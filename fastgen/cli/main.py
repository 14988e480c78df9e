"""The ``fastgen`` command line: ``fastgen bench`` (the main job), ``rollout``, ``perft``,
``bearoff``, ``rollout-plays``, ``duel`` and ``serve-external``."""

from __future__ import annotations

import argparse
from importlib import import_module
import json
import sys
from typing import Any, Sequence

from fastgen.cli.args import HelpFormatter, add_subcommand, int_in_range
from fastgen._version import __version__
from fastgen.cli.bench import GNUBG, run_benchmarks

__all__ = ["main", "build_parser"]


#: The command that adds GNU Backgammon's generator (gnubg-nn, the peers extra) as a baseline.
PEERS_COMMAND = 'pip install ".[peers]" && fastgen bench'


def _headline(result: dict) -> str:
    """One line: the batch generators' median time per position and their speed-up against
    GNU Backgammon's generator, or, without gnubg-nn, the command that adds that baseline."""
    median = {t["name"]: t["per_position"]["median"] * 1e6 for t in result["timings"]}
    gnubg = result["speedup_vs"].get(GNUBG)
    plays, count = "plays_batch", "count_plays_batch"
    if gnubg is None:
        return (
            f"headline: {plays} {median[plays]:.3f} us per position; {count} {median[count]:.3f} us; "
            f"the ratio to GNU Backgammon's generator needs gnubg-nn, the peers extra: {PEERS_COMMAND}"
        )
    return (
        f"headline: {plays} {median[plays]:.3f} us per position, {gnubg[plays]:.1f}x GNU Backgammon's "
        f"generator ({GNUBG}); {count} {median[count]:.3f} us, {gnubg[count]:.1f}x"
    )


def _bench(args: argparse.Namespace) -> int:
    def progress(name: str) -> None:
        if not args.json:
            print(f"  timed {name}", file=sys.stderr, flush=True)

    result = run_benchmarks(
        repeat=args.repeat,
        oracle_sample=args.oracle_sample,
        threads=args.threads,
        progress=progress,
        workload=args.workload,
    )
    if args.json:
        print(json.dumps(result, indent=2))
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


# Subcommands other than ``bench`` live in their own modules, each with a function
# ``add_parser(subparsers)`` that registers the subcommand and its handler (``func``).
_SUBCOMMAND_MODULES = (
    "fastgen.cli.rollout", "fastgen.cli.perft", "fastgen.cli.bearoff", "fastgen.cli.decide", "fastgen.cli.duel",
    "fastgen.cli.serve",
)

MAX_THREADS = 1024


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


def build_parser() -> argparse.ArgumentParser:
    """The ``fastgen`` argument parser with every subcommand registered."""

    parser = argparse.ArgumentParser(
        prog="fastgen", description="Fast, correct backgammon move generation.", formatter_class=HelpFormatter
    )
    parser.add_argument("--version", action="version", version=f"fastgen {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_bench_parser(sub)
    for name in _SUBCOMMAND_MODULES:
        import_module(name).add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with *argv* (default ``sys.argv[1:]``); returns the exit status.

    Bad arguments exit with status 2 and a one-line usage error before any work starts;
    Ctrl-C exits with status 130.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.func(args)
    except KeyboardInterrupt:
        print("fastgen: interrupted", file=sys.stderr)
        return 130
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
