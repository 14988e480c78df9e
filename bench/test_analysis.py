"""Match analysis: fastgen against GNU Backgammon's ``analyse match``, timed in the same run.

Run with ``pytest bench/test_analysis.py`` (never part of the tests). The match is the
7-point match of ``docs/_data/example-7pt.mat`` (3 games, 151 plays). Three timings,
each of one whole match at 0 ply:

- ``analyse_fastgen_warm``: :func:`fastgen.analysis.analyse` of the file in this process
  with the compiled baseline, warm (the evaluator loaded and the bear-off database built
  by a first call before the timing): what a script or notebook analysing many matches
  pays a match;
- ``analyse_fastgen_command``: the whole command ``fastgen analyse FILE`` (``python -m
  fastgen``), cold: Python's start, the imports, the database's build and the printing;
- ``analyse_gnubg_analyse``: the whole command ``gnubg -t -q`` with ``import mat``,
  ``analyse match`` and ``show statistics match`` at 0 ply (chequer, cube and luck), its
  start included, as a user runs it.

The summary prints each fastgen line against the program's (time per match).
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fastgen.analysis import analyse

GNUBG = os.environ.get("FASTGEN_GNUBG", "/usr/games/gnubg")
MATCH = Path(__file__).resolve().parents[1] / "docs" / "_data" / "example-7pt.mat"


def test_analyse_fastgen_warm(benchmark):
    analyse(MATCH, "baseline")  # the evaluator and the bear-off database, once
    benchmark.group = "analyse a 7-point match"
    benchmark.extra_info["positions"] = 1
    out = benchmark.pedantic(analyse, args=(MATCH, "baseline"), rounds=5, iterations=1)
    assert out.finished and len(out.moves) > 100


def test_analyse_fastgen_command(benchmark):
    benchmark.group = "analyse a 7-point match"
    benchmark.extra_info["positions"] = 1

    def run():
        return subprocess.run([sys.executable, "-m", "fastgen", "analyse", str(MATCH)], capture_output=True,
                              text=True, timeout=600)

    done = benchmark.pedantic(run, rounds=3, iterations=1)
    assert done.returncode == 0 and "Overall statistics" in done.stdout


def test_analyse_gnubg_analyse(benchmark):
    if not os.path.exists(GNUBG):
        pytest.skip(f"GNU Backgammon is not installed ({GNUBG} not found; apt-get install gnubg)")
    lines = ["set display off"] + [f"set analysis {what} plies 0" for what in (
        "chequerplay evaluation", "cubedecision evaluation", "luckanalysis")] + [
        f"import mat {MATCH}", "analyse match", "show statistics match", "quit"]
    benchmark.group = "analyse a 7-point match"
    benchmark.extra_info["positions"] = 1

    def run():
        return subprocess.run([GNUBG, "-t", "-q"], input="\n".join(lines) + "\n", capture_output=True, text=True,
                              timeout=600)

    done = benchmark.pedantic(run, rounds=3, iterations=1)
    assert "Overall statistics" in done.stdout
