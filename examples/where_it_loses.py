"""Where does a bot lose its points to GNU Backgammon? Swap in gnubg's play by position class.

A bot's game splits into contact positions, races and bear-offs
(:func:`fastgen.nets.classify`). This script plays mirrored duels against gnubg-nn at 0
ply (the ``peers`` extra) with players that take the bot's evaluator in some classes and
gnubg-nn's in the others (:class:`fastgen.nets.NetworkSet`), so the change in points a
game tells how much of the bot's gap each class holds:

- ``bot``: the bot everywhere;
- ``bot+bearoff``: exact bear-off values (fastgen's one-sided database of 6 points);
- ``bot+gnubg_race``: gnubg-nn for races (bear-offs included);
- ``gnubg_contact+bot``: gnubg-nn for contact positions, the bot for races.

    python examples/where_it_loses.py --games 20000 --seed 1
    python examples/where_it_loses.py --games 2000 --bot my_weights.npz

Each line prints the player, its points a game against gnubg-nn 0-ply with the standard
error (over mirrored pairs), and the seconds taken.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import fastgen
from fastgen.players import evaluators, policies, specs
from fastgen.bearoff import build_one_sided
from fastgen.nets import NetworkSet

PLAYERS = ("bot", "bot+bearoff", "bot+gnubg_race", "gnubg_contact+bot")


def player(which: str, bot: Any, gnubg: Any) -> Any:
    """The evaluator named *which* (module docstring) from the *bot* and *gnubg* evaluators."""
    if which == "bot":
        return NetworkSet(bot, bot)
    if which == "bot+bearoff":
        return NetworkSet(bot, bot, databases=[build_one_sided(6)])
    if which == "bot+gnubg_race":
        return NetworkSet(bot, gnubg)
    if which == "gnubg_contact+bot":
        return NetworkSet(gnubg, bot)
    raise ValueError(f"unknown player {which!r}; expected one of {PLAYERS}")


def run(which: str, games: int, seed: int, bot: Any) -> dict:
    """One duel of the player *which* against gnubg-nn at 0 ply."""
    t = time.perf_counter()
    d = fastgen.duel(evaluators.greedy(player(which, bot, evaluators.gnubg(0))), policies.gnubg(0), games, seed=seed)
    return {"player": which, "games": games, "ppg": d.ppg, "se": d.ppg_se, "seconds": time.perf_counter() - t}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20000, help="mirrored games a duel (even)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bot", default="baseline", help="the bot's evaluator spec (default: the shipped baseline)")
    ap.add_argument("--players", nargs="+", choices=PLAYERS, default=list(PLAYERS))
    ap.add_argument("--json", help="also write the lines to this file")
    args = ap.parse_args(argv)
    bot = specs.evaluator(args.bot)
    lines = []
    for which in args.players:
        line = run(which, args.games, args.seed, bot)
        print(f"{which:<20} {line['ppg']:+.4f} +/- {line['se']:.4f}  ({line['seconds']:.0f} s)", flush=True)
        lines.append(line)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(lines, f, indent=1)


if __name__ == "__main__":
    main()
