"""Argument types and the help layout shared by the ``fastgen`` subcommands.

Every value is checked while argparse parses the command line, so a bad argument is a
one-line usage error (exit status 2) before any work starts.
"""

from __future__ import annotations

import argparse
import re
from typing import Any, Callable
from fastgen.errors import FastgenError
from fastgen.core.ids import parse_position_id

__all__ = ["HelpFormatter", "add_subcommand", "int_in_range", "float_in_range", "position_id_arg", "dice_arg"]

_ASCII_INT = re.compile(r"[0-9]{1,30}")


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Help that shows each option's default, as "(default: X)" after its text.

    Left out where the help already says its default, and for the defaults that only
    mean "not given" (None, and False of on/off flags).
    """

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "default" in text or action.default is None or action.default is False:
            return text
        return super()._get_help_string(action) or text


def add_subcommand(subparsers: Any, name: str, **kwargs: Any) -> argparse.ArgumentParser:
    """Add subcommand *name* to *subparsers* with the shared help layout (defaults shown)."""
    kwargs.setdefault("formatter_class", HelpFormatter)
    parser: argparse.ArgumentParser = subparsers.add_parser(name, **kwargs)
    return parser


def int_in_range(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """An argparse type: a decimal integer (ASCII digits) in [minimum, maximum]."""
    if maximum is None:
        want = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
    else:
        want = f"an integer from {minimum} to {maximum}"

    def parse(text: str) -> int:
        if not _ASCII_INT.fullmatch(text):
            raise argparse.ArgumentTypeError(f"expected {want}, got {text!r}")
        value = int(text)
        if value < minimum or (maximum is not None and value > maximum):
            raise argparse.ArgumentTypeError(f"expected {want}, got {text!r}")
        return value

    parse.__name__ = "integer"  # argparse names the type in some messages
    return parse


def float_in_range(low: float, high: float, *, closed: bool = False) -> Callable[[str], float]:
    """An argparse type: a decimal number x with low < x <= high (low <= x <= high if *closed*)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        if not (low <= value <= high if closed else low < value <= high):
            bound = f"at least {low:g}" if closed else f"above {low:g}"
            raise argparse.ArgumentTypeError(f"expected a number {bound} and at most {high:g}, got {text!r}")
        return value

    parse.__name__ = "number"
    return parse


def spec_arg(role: str) -> Callable[[str], str]:
    """An argparse type: a policy or evaluator spec (:func:`fastgen.players.specs.check`: its form
    only; it is loaded when the command runs)."""

    def parse(text: str) -> str:
        from fastgen.players.specs import check  # lazy: the spec grammar loads the players; only sub-commands taking a spec need it

        try:
            return check(text, role)
        except FastgenError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


def position_id_arg(text: str) -> Any:
    """An argparse type: a GNU Backgammon Position ID of a game still in play -> board."""
    try:
        board = parse_position_id(text)
    except FastgenError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if (board.sum(axis=1) == 0).any():
        raise argparse.ArgumentTypeError(
            f"Position ID {text!r} is a finished game (a side has borne off all 15 checkers)"
        )
    return board


def dice_arg(text: str) -> tuple[int, int]:
    """An argparse type: two dice as ``31`` or ``3-1`` or ``3,1``."""
    m = re.fullmatch(r"([1-6])[-, ]?([1-6])", text)
    if not m:
        raise argparse.ArgumentTypeError(f"expected two dice such as 31 or 3-1, got {text!r}")
    return int(m.group(1)), int(m.group(2))
