"""The ``fastgen convert-network`` subcommand: a weights file of the old one hidden layer
layout, rewritten in the compiled network's layout.

    fastgen convert-network OLD.npz NEW.npz

*OLD* holds the arrays ``w1, b1, w2, b2`` (and ``schemes``) that
:meth:`fastgen.players.evaluators.ReferenceNetwork.save` writes; *NEW* gets the same
network as a :class:`fastgen.nets.Network` in :mod:`fastgen.nets.files`' layout, the
layout the spec grammar reads (``fastgen duel NEW.npz pubeval``). What
:func:`fastgen.players.evaluators.convert_network_file` does; prints one line naming the
network written.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from fastgen.cli.args import add_subcommand
from fastgen.errors import FastgenError
from fastgen.players.evaluators import convert_network_file

__all__ = ["add_parser", "run_convert"]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register the ``convert-network`` subcommand on an argparse *subparsers* object."""
    parser = add_subcommand(
        subparsers,
        "convert-network",
        help="rewrite a weights file of the old one hidden layer layout in the compiled network's layout",
        description="Read OLD, a weights file of the one hidden layer layout (arrays w1, b1, w2, b2), and write "
        "the same network to NEW in the layout of fastgen.nets.Network, the one a PATH.npz spec reads.",
    )
    parser.add_argument("old", metavar="OLD", help="the weights file in the old layout (.npz)")
    parser.add_argument("new", metavar="NEW", help="where the compiled network goes (.npz is added when missing)")
    parser.set_defaults(func=run_convert)
    return parser


def run_convert(args: argparse.Namespace) -> int:
    """Convert the file and print what was written; returns the exit status."""
    try:
        net = convert_network_file(args.old, args.new)
    except (FastgenError, OSError) as exc:
        print(f"fastgen convert-network: error: {exc}", file=sys.stderr)
        return 2
    target = args.new if args.new.endswith(".npz") else args.new + ".npz"
    print(f"wrote {target}: {'-'.join(map(str, net.sizes))} {net.activation} network over "
          f"{'+'.join(net.inputs)}, in the compiled layout (fastgen.nets.Network.load, or {target} as a spec)")
    return 0
