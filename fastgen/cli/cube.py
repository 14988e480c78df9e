"""``fastgen cube``: the cube decision of one position, printed like GNU Backgammon's hint.

    fastgen cube --position 4HPwATDgc/ABMA [--match 7 --score 4-2 --cube 2 --owner me]
                 [--evaluator baseline|gnubg:0 [--plies 1] | --probs P WG WB LG LB] [--json]

The position is before the roll of the side on roll (a Position ID gives it first).
Without ``--match`` the game is for money. ``--score`` is the side on roll's score,
then its opponent's; ``--owner`` who owns the cube (``centred``, ``me``: the side on
roll, ``opponent``). ``--match-id`` takes the whole state from a GNU Backgammon Match ID
instead (its player on roll is the side the Position ID has on roll). ``--json`` names
the evaluator that judged (``"evaluator"``, null with ``--probs``).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from fastgen.players import specs
from fastgen.cli.args import add_subcommand, float_in_range, position_id_arg, spec_arg
from fastgen.cli.output import json_text
from fastgen.cli.state_args import add_state_arguments, state_from
from fastgen.errors import FastgenError

__all__ = ["add_parser", "run_cube", "format_decision"]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register the ``cube`` subcommand on an argparse *subparsers* object."""
    parser = add_subcommand(
        subparsers,
        "cube",
        help="should the side on roll double, should the opponent take: GNU Backgammon's 0-ply cube decision",
        description="The no double, double/take and double/pass values and the proper cube action of a "
        "position before the roll, money or match, from an evaluator's (or given) cubeless probabilities.",
    )
    parser.add_argument("--position", metavar="POSITION_ID", type=position_id_arg, required=True,
                        help="GNU Backgammon Position ID, the side on roll first")
    add_state_arguments(parser)
    parser.add_argument("--no-beavers", action="store_true", help="money: no beavers")
    parser.add_argument("--evaluator", type=spec_arg("evaluator"),
                        help="gnubg:0, gnubg:1, baseline, network:SEED, PATH.npz or module:callable "
                        "(default: gnubg:0, GNU Backgammon's nets, where their weights are found, else baseline, fastgen's network)")
    parser.add_argument("--plies", type=int, choices=(0, 1), default=0,
                        help="1: look at the evaluator's 21 rolls first (default 0)")
    parser.add_argument("--probs", type=float_in_range(0.0, 1.0, closed=True), nargs=5, metavar=("P", "WG", "WB", "LG", "LB"),
                        help="the cubeless probabilities instead of an evaluator's")
    parser.add_argument("--json", action="store_true", help="print the decision as JSON")
    parser.set_defaults(func=run_cube)
    return parser


def format_decision(d: Any, source: str) -> str:
    """The decision *d* as GNU Backgammon's hint prints one (equities, or MWC in %)."""
    def value(v: float) -> str:
        return f"{100 * v:9.4f}%" if d.match else f"{v:+9.5f}"

    p = d.probs
    head = f"cubeless MWC {value(d.cubeless)}" if d.match else f"cubeless equity {value(d.cubeless)}"
    lines = [f"Cube analysis ({source}, cube life {d.cube_life:.3f}, {d.position_class})", head,
             f"  {p[0]:.5f} {p[1]:.5f} {p[2]:.5f} - {1 - p[0]:.5f} {p[3]:.5f} {p[4]:.5f}", "Cubeful equities:"]
    for i, (name, v, cost) in enumerate(d.ranked, 1):  # the proper line first, as gnubg ranks them
        diff = "" if i == 1 else (f"  ({100 * cost:+.4f}%)" if d.match else f"  ({cost:+.5f})")
        lines.append(f"{i}. {name:<20}{value(v)}{diff}")
    lines.append(f"Proper cube action: {d.action.value}")
    return "\n".join(lines)


def run_cube(args: argparse.Namespace) -> int:
    """Decide from parsed arguments and print; returns the exit code."""
    from fastgen.cube import cube_action  # lazy: the cube loads only when this subcommand runs

    spec: str | None = None  # the evaluator that judges (None: the probabilities given)
    try:
        state = state_from(args)
        if args.probs is not None:
            if args.plies:
                print("fastgen cube: error: --plies 1 looks at the rolls with an evaluator; it takes no --probs",
                      file=sys.stderr)
                return 2
            decision = cube_action(args.position, args.probs, state, beavers=not args.no_beavers)
            source = "given probabilities"
        else:
            spec = args.evaluator if args.evaluator is not None else specs.default_evaluator()
            evaluator = specs.evaluator(spec)
            decision = cube_action(args.position, state=state, evaluator=evaluator, plies=args.plies,
                                   beavers=not args.no_beavers)
            depth = getattr(evaluator, "plies", 0)
            source = f"{args.plies or (depth if isinstance(depth, int) else 0)}-ply {spec}"
    except FastgenError as exc:
        print(f"fastgen cube: error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        out = {k: getattr(decision, k) for k in ("no_double", "double_take", "double_pass", "equities", "cubeless",
                                                  "probs", "doubles", "takes", "match", "position_class",
                                                  "cube_life")}
        out["action"] = decision.action.value
        out["evaluator"] = spec
        print(json_text(out, indent=2))
    else:
        print(format_decision(decision, source))
    return 0
