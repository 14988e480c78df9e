"""``fastgen hint``: which play, the legal plays of a position and roll ranked, printed
like GNU Backgammon's hint.

    fastgen hint --position 4HPwATDgc/ABMA --dice 31 [--evaluator baseline|gnubg:0|gnubg:2]
                 [--match 7 --score 4-2 --cube 2 --owner me | --match-id ID] [--cubeless]
                 [--plays N] [--json]

The position is the side on roll's, before it plays the roll (a Position ID gives it
first). The equities are cubeful at the cube and score given (money, cube centred, by
default), or cubeless money equities with ``--cubeless``; each play's probabilities are
the mover's after it (:func:`fastgen.analysis.hint.hint`). With ``gnubg:N`` (N = 1 to
3) the plays that pass GNU Backgammon's move filters are valued N plies ahead and listed
first; the others keep the value of the ply the filter left them at, and their line
names it (``gnubg:0``). ``--json`` prints
``{"plays": [{"play": ..., "equity": ..., "probs": [5 floats], "ply": N}, ...]}``, best
first.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from fastgen.cli.args import add_subcommand, dice_arg, int_in_range, position_id_arg, spec_arg
from fastgen.cli.output import json_text
from fastgen.cli.state_args import add_state_arguments, state_from
from fastgen.errors import FastgenError

__all__ = ["add_parser", "run_hint", "format_hint"]

#: Plays printed by default, as GNU Backgammon's hint lists them.
DEFAULT_PLAYS = 10


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register the ``hint`` subcommand on an argparse *subparsers* object."""
    parser = add_subcommand(
        subparsers,
        "hint",
        help="which play: the legal plays of a position and roll ranked by an evaluator, like GNU Backgammon's hint",
        description="The legal plays of a position with a roll, ranked by their cubeful (or cubeless) equity "
        "after each play, with the mover's probabilities after it.",
    )
    parser.add_argument("--position", metavar="POSITION_ID", type=position_id_arg, required=True,
                        help="GNU Backgammon Position ID, the side on roll first")
    parser.add_argument("--dice", type=dice_arg, required=True, help="the roll, e.g. 31")
    add_state_arguments(parser)
    parser.add_argument("--evaluator", type=spec_arg("evaluator"),
                        help="gnubg:0, gnubg:1, baseline, network:SEED, PATH.npz or module:callable "
                        "(default: gnubg:0, GNU Backgammon's nets, where their weights are found, else baseline, fastgen's network)")
    parser.add_argument("--cubeless", action="store_true", help="rank by the cubeless money equity")
    parser.add_argument("--plays", type=int_in_range(1), default=DEFAULT_PLAYS, metavar="N",
                        help=f"print the best N plays (default {DEFAULT_PLAYS}; --json gives them all)")
    parser.add_argument("--json", action="store_true", help="print every play as JSON")
    parser.set_defaults(func=run_hint)
    return parser


def format_hint(h: Any, plays: int) -> str:
    """The best *plays* of hint *h* as GNU Backgammon's hint lists them: rank, play,
    equity (and its difference from the best), then the mover's win, gammon and
    backgammon chances, a dash, and its losing ones."""
    kind = "Cubeful" if h.cubeful else "Cubeless"
    lines = []
    best = h.plays[0].equity
    for i, p in enumerate(h.plays[:plays], 1):
        diff = "" if i == 1 else f" ({p.equity - best:+.5f})"
        mwc = "" if p.mwc is None else f"  MWC {100 * p.mwc:.3f}%"
        lines.append(f"{i:5d}. {kind} {_label(h.evaluator, p.ply):<10} {p.play:<28} Eq.: {p.equity:+.5f}{diff}{mwc}")
        w, wg, wbg, lg, lbg = p.probs
        lines.append(f"       {w:.5f} {wg:.5f} {wbg:.5f} - {1 - w:.5f} {lg:.5f} {lbg:.5f}")
    if len(h.plays) > plays:
        lines.append(f"({len(h.plays) - plays} more plays: --plays {len(h.plays)} lists them all)")
    return "\n".join(lines)


def _label(evaluator: str, ply: int) -> str:
    """The evaluator's name at the ply a play was valued at (``gnubg:0`` for a play of a
    ``gnubg:2`` hint that the move filter left behind at 0 ply)."""
    base, sep, plies = evaluator.rpartition(":")
    return f"{base}:{ply}" if sep and plies.isdigit() and int(plies) != ply else evaluator


def run_hint(args: argparse.Namespace) -> int:
    """Rank the plays from parsed arguments and print; returns the exit code."""
    from fastgen.analysis.hint import hint  # lazy: the analysis loads only when this subcommand runs
    from fastgen.players.specs import default_evaluator  # lazy: as above

    try:
        spec = args.evaluator if args.evaluator is not None else default_evaluator()
        h = hint(args.position, args.dice, spec, state_from(args), cubeless=args.cubeless)
    except FastgenError as exc:
        print(f"fastgen hint: error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json_text(h.as_dict(), indent=2))
    else:
        print(format_hint(h, args.plays))
    return 0
