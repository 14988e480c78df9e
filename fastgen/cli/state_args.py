"""The cube and score of one position on the command line, shared by ``fastgen cube``
and ``fastgen hint``.

``--match LENGTH --score ME-OPPONENT --cube VALUE --owner centred|me|opponent
[--crawford] [--jacoby]``, or ``--match-id MATCH_ID`` for the whole state (its player on
roll is the side the Position ID has on roll). Without ``--match`` the game is for money.
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

from fastgen.cli.args import int_in_range
from fastgen.errors import InvalidCubeStateError
from fastgen.formats.matfile import GNUBG_MAX_CUBE

__all__ = ["add_state_arguments", "state_from", "score_arg", "MAX_CUBE"]

#: The cube's cap on the command line: GNU Backgammon's (a cube at it cannot be turned).
MAX_CUBE = GNUBG_MAX_CUBE


def score_arg(text: str) -> tuple[int, int]:
    """An argparse type: a score ME-OPPONENT such as 4-2."""
    parts = text.split("-")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise argparse.ArgumentTypeError(f"a score is ME-OPPONENT, e.g. 4-2, got {text!r}")
    return int(parts[0]), int(parts[1])


def add_state_arguments(parser: argparse.ArgumentParser) -> None:
    """The state's options on *parser* (module docstring)."""
    parser.add_argument("--match", type=int_in_range(1, 64), default=0, metavar="LENGTH",
                        help="match length (default: a money game)")
    parser.add_argument("--score", type=score_arg, default=(0, 0), help="ME-OPPONENT: the side on roll's score first")
    parser.add_argument("--cube", type=int_in_range(1, 4096), default=1,
                        help="cube value: a power of two up to 4096, the cap (a cube at the cap cannot be turned)")
    parser.add_argument("--owner", choices=("centred", "me", "opponent"), default="centred", help="cube owner")
    parser.add_argument("--crawford", action="store_true", help="this game is the Crawford game")
    parser.add_argument("--jacoby", action="store_true", help="money: the Jacoby rule (gammons count single "
                        "until the cube is turned)")
    parser.add_argument("--match-id", metavar="MATCH_ID", help="the whole state from a GNU Backgammon Match ID")


def state_from(args: argparse.Namespace) -> Any:
    """The :class:`fastgen.MatchState` the parsed options give (the side on roll is
    player 1, as the Position ID shows it), or InvalidCubeStateError."""
    from fastgen.core.ids import parse_match_id  # lazy: loaded when a subcommand runs
    from fastgen.core.state import MatchState  # lazy: as above

    if args.match_id is not None:
        state = parse_match_id(args.match_id)
        return dataclasses.replace(state, max_cube=max(state.max_cube, MAX_CUBE))
    if args.cube & (args.cube - 1):
        raise InvalidCubeStateError(f"--cube must be a power of two from 1 to {MAX_CUBE}, got {args.cube}")
    if args.crawford and not args.match:
        raise InvalidCubeStateError("--crawford needs --match: a money game has no Crawford game")
    me, opp = 1, 0  # the board shows player 1 on roll
    owner = {"centred": None, "me": me, "opponent": opp}[args.owner]
    score = (args.score[1], args.score[0])
    return MatchState(match_length=args.match, score=score if args.match else (0, 0), cube_value=args.cube,
                      cube_owner=owner, crawford=args.crawford, jacoby=args.jacoby, on_roll=me, max_cube=MAX_CUBE)
