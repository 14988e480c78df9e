"""Run GNU Backgammon's own rollout of a position (Debian's gnubg 1.07) and read its table.

gnubg 1.07 prints its rollout table only when stdout is a terminal, so the program runs
under ``script -q -c 'gnubg -t -q < commands' /dev/null``. The position is set with
``set board <Position ID>`` and ``set turn 1`` (the human player, on roll, about to
roll), then ``rollout`` rolls it out: cubeless, 0-ply chequer play, lookahead variance
reduction, quasi-random dice, no bear-off truncation; the pruning nets are off, so its 0-ply player picks
the full net's best play, as ``evaluators.greedy(evaluators.gnubg(0))``.

The order of the commands matters: with ``set board`` before ``set turn 1``, gnubg 1.07
rolled out the position turned around (the side that had just moved on roll again)
whenever "new game" had given the opening roll to the other side: ``sGfwATDgc/ABMA``
(the opening 31 played 8/5 6/5, the opponent on roll) came out +0.306 or -0.162
depending on the seed (fastgen: -0.160, SE 0.001, truncated at 4 half-moves).

Used by tests/test_decide_gnubg.py and by hand (``python tests/_gnubg_rollout.py ID``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile

GNUBG = os.environ.get("FASTGEN_GNUBG", "/usr/games/gnubg")
_ROW = re.compile(r"^\s*([0-9.]+) ([0-9.]+) ([0-9.]+) - ([0-9.]+) ([0-9.]+) ([0-9.]+) CL\s+([-+0-9.]+)")
_SE = re.compile(r"^\s*\[([0-9.]+) ([0-9.]+) ([0-9.]+) - ([0-9.]+) ([0-9.]+) ([0-9.]+) CL\s+([0-9.]+)\]")


def available() -> str | None:
    """None when gnubg and script can run, else why not."""
    if not os.path.exists(GNUBG):
        return f"GNU Backgammon not found at {GNUBG} (set FASTGEN_GNUBG)"
    if shutil.which("script") is None:
        return "the `script` program (util-linux) is needed to give gnubg a terminal"
    return None


def commands(position_id: str, trials: int, truncate: int | None, seed: int, prune: bool = False,
             quasi_random: bool = True) -> str:
    lines = [
        "set player 0 human",
        "set player 1 human",
        "set rollout cubeful off",
        f"set rollout trials {trials}",
        "set rollout varredn on",
        f"set rollout quasirandom {'on' if quasi_random else 'off'}",
        "set rollout chequerplay plies 0",
        f"set rollout chequerplay prune {'on' if prune else 'off'}",
        "set rollout bearofftruncation exact off",
        "set rollout bearofftruncation onesided off",
        f"set rollout seed {seed}",
    ]
    if truncate is None:
        lines.append("set rollout truncation enable off")
    else:
        lines += ["set rollout truncation enable on", f"set rollout truncation plies {truncate}",
                  "set rollout truncation chequerplay plies 0"]
    # "new game" rolls the opening: either side may be on roll. "set turn 1" first, then
    # the board: set the other way round, gnubg kept the board of the side that was on
    # roll and so sometimes rolled out the position turned around (see the docstring).
    lines += ["new game", "set turn 1", f"set board {position_id}", "show board", "rollout", "quit", "y"]
    return "\n".join(lines) + "\n"


def gnubg_rollout(position_id: str, trials: int = 1296, truncate: int | None = None, seed: int = 1,
                  prune: bool = False, quasi_random: bool = True, timeout: float = 3600) -> dict:
    """gnubg's cubeless rollout of *position_id* (side on roll about to roll):
    ``{"probabilities": [5], "equity": e, "probabilities_se": [5], "equity_se": s,
    "trials": n, "position_id": the board gnubg showed before rolling out, "seconds": wall}``."""
    import time

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "commands")
        with open(path, "w") as f:
            f.write(commands(position_id, trials, truncate, seed, prune, quasi_random))
        t0 = time.perf_counter()
        done = subprocess.run(
            ["script", "-q", "-c", f"{GNUBG} -t -q < {path}", "/dev/null"],
            capture_output=True, text=True, timeout=timeout, cwd=tmp,
        )
        seconds = time.perf_counter() - t0
    text = done.stdout.replace("\r", "")
    before = text.split("Rollout done. Printing final results.")[0].split("Current Position:")[0]
    tail = text.split("Rollout done. Printing final results.")[-1]
    rows = [m for m in map(_ROW.match, tail.splitlines()) if m]
    ses = [m for m in map(_SE.match, tail.splitlines()) if m]
    shown = re.findall(r"Position ID: (\S+)", before)
    if not rows or not ses or "Rollout done" not in text:
        raise RuntimeError(f"could not read gnubg's rollout table:\n{text[-3000:]}")
    r, s = rows[0].groups(), ses[0].groups()
    games = re.findall(r"(\d+) games,", tail)
    return {
        "probabilities": [float(r[0]), float(r[1]), float(r[2]), float(r[4]), float(r[5])],
        "probabilities_se": [float(s[0]), float(s[1]), float(s[2]), float(s[4]), float(s[5])],
        "equity": float(r[6]),
        "equity_se": float(s[6]),
        "trials": int(games[0]) if games else trials,
        "position_id": shown[-1] if shown else None,  # as shown just before the rollout
        "seconds": seconds,
    }


if __name__ == "__main__":  # by hand: python tests/_gnubg_rollout.py ID [trials] [truncate]
    args = sys.argv[1:]
    print(gnubg_rollout(args[0], int(args[1]) if len(args) > 1 else 1296,
                        int(args[2]) if len(args) > 2 and args[2] != "none" else None))
