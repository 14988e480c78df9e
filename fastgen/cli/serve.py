"""The ``fastgen serve-external`` subcommand: answer GNU Backgammon's external player.

    fastgen serve-external --port 4711                     # the baseline network plays
    fastgen serve-external --port 4711 --policy baseline --cube baseline   # with the cube on in gnubg

then in ``gnubg -t``: ``set player 1 external 127.0.0.1:4711`` and ``new match 3`` (or
``new session`` for money games).
``--cube EVALUATOR`` answers gnubg's cube questions (double or roll, take or drop) by that
evaluator's 0-ply cube decisions; without it the server rolls and takes every double.
Policies: any policy spec of :mod:`fastgen.players.specs` but ``gnubg-engine`` (``pubeval``,
``baseline``, ``gnubg[:N]`` for gnubg-nn, ``module:callable`` ...).
Listens on 127.0.0.1 only; one line per question and answer goes to stderr (unless
``--quiet``); Ctrl-C stops it (exit status 130).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from fastgen.players.engines import GnubgEngine
from fastgen.sim.duel.external import serve_forever
from fastgen.cli.args import add_subcommand, int_in_range, spec_arg
from fastgen.players.specs import policy as load_policy
from fastgen.errors import FastgenError

__all__ = ["add_parser", "run_serve"]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register the ``serve-external`` subcommand on an argparse *subparsers* object."""
    parser = add_subcommand(
        subparsers,
        "serve-external",
        help="answer GNU Backgammon's external-player requests with a fastgen policy",
        description="Listen on 127.0.0.1:PORT and answer the FIBS board lines GNU Backgammon sends "
        "an external player (gnubg: set player 1 external 127.0.0.1:PORT).",
    )
    parser.add_argument("--port", type=int_in_range(0, 65535), default=0, help="TCP port (0: any free port, printed)")
    parser.add_argument("--policy", type=spec_arg("policy"), default="baseline",
                        help="baseline (fastgen's trained network), random, pubeval, gnubg[:N], "
                        "network:SEED, PATH.npz or module:callable")
    parser.add_argument("--seed", type=int_in_range(0, 2**64 - 1), default=0, help="seed of the random policy")
    parser.add_argument("--timeout", type=int_in_range(1, 86400), default=120, help="seconds to wait for each line")
    parser.add_argument("--cube", type=spec_arg("evaluator"), metavar="EVALUATOR",
                        help="answer cube questions by this evaluator's cube decisions (baseline, gnubg:0, PATH.npz ...)")
    parser.add_argument("--quiet", action="store_true", help="do not log questions and answers")
    parser.set_defaults(func=run_serve)
    return parser


def run_serve(args: argparse.Namespace) -> int:
    """Serve until Ctrl-C (KeyboardInterrupt goes up to fastgen.cli.main: status 130)."""
    try:
        policy = load_policy(args.policy)
        if isinstance(policy, GnubgEngine):
            raise FastgenError("serve-external cannot answer gnubg with gnubg-engine; use gnubg[:N] (gnubg-nn)")
        serve_forever(policy, args.port, timeout=args.timeout, seed=args.seed, log=None if args.quiet else sys.stderr,
                      cube=args.cube)
    except (FastgenError, OSError) as exc:
        print(f"fastgen serve-external: error: {exc}", file=sys.stderr)
        return 2
    return 0
