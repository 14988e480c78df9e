"""Match analysis: fastgen against GNU Backgammon's ``analyse match``, timed in the same run.

Run with ``pytest bench/test_analysis.py`` (never part of the tests). The match is the
7-point match of ``docs/_data/example-7pt.mat`` (3 games, 151 plays). Each timing is of
one whole match, at 0 ply and at 1 ply (chequer play and cube decisions; the luck at 0
ply in both programs):

- ``analyse_fastgen_warm``: :func:`fastgen.analysis.analyse` of the file in this process
  with the compiled baseline, warm (the evaluator loaded and the bear-off database built
  by a first call before the timing): what a script or notebook analysing many matches
  pays a match;
- ``analyse_fastgen_command[baseline]``: the whole command ``fastgen analyse FILE
  --evaluator baseline`` (``python -m fastgen``), cold: Python's start, the imports, the
  database's build and the printing; with the package's bytecode compiled, as ``pip
  install`` leaves it (one untimed run first writes it for a source tree, even where
  ``PYTHONDONTWRITEBYTECODE`` is set); ``analyse_fastgen_command[gnubg:0]``: the same
  with ``--evaluator gnubg:0``, the command's default where gnubg's weights are found
  (the nets read too);
- ``analyse_gnubg_analyse``: the whole command ``gnubg -t -q`` with ``import mat``,
  ``analyse match`` and ``show statistics match`` at the same plies, its start included,
  as a user runs it;
- ``analyse_python_numpy_start`` (0 ply's group only): ``python -c "import numpy"``,
  the least any Python command built on numpy takes before it does anything.

- ``analyse_fastgen_gnubg_nets_warm``: as ``analyse_fastgen_warm`` with GNU
  Backgammon's own nets compiled (``gnubg:0``); ``analyse_gnubg_start``: the gnubg
  command with the import only (its start), so that the program's analysis proper is
  ``analyse_gnubg_analyse`` less it;
- a folder of 20 matches (1 to 9 points, tests/_gnubg_analysis.py's corpus):
  ``fastgen analyse FOLDER --evaluator gnubg:0`` as a whole command against gnubg
  importing and analysing the same files in one process.

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
PLIES = pytest.mark.parametrize("plies", [0, 1])


def _group(benchmark, plies: int) -> None:
    benchmark.group = f"analyse a 7-point match at {plies} ply"
    benchmark.extra_info["positions"] = 1


@PLIES
def test_analyse_fastgen_warm(benchmark, plies):
    analyse(MATCH, "baseline", plies=plies)  # the evaluator and the bear-off database, once
    _group(benchmark, plies)
    out = benchmark.pedantic(analyse, args=(MATCH, "baseline"), kwargs={"plies": plies}, rounds=5, iterations=1)
    assert out.finished and len(out.moves) > 100 and out.plies == plies


@PLIES
@pytest.mark.parametrize("evaluator", ["baseline", "gnubg:0"])
def test_analyse_fastgen_command(benchmark, plies, evaluator):
    if evaluator == "gnubg:0":
        from fastgen.errors import GnubgWeightsNotFoundError
        from fastgen.nets.gnubg_weights import find_weights

        try:
            find_weights()
        except GnubgWeightsNotFoundError as exc:
            pytest.skip(str(exc))
    _group(benchmark, plies)

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def run():
        return subprocess.run([sys.executable, "-m", "fastgen", "analyse", str(MATCH), "--plies", str(plies),
                               "--evaluator", evaluator], capture_output=True, text=True, timeout=600, env=env)

    done = benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=1)
    assert done.returncode == 0 and "Overall statistics" in done.stdout


def test_analyse_python_numpy_start(benchmark):
    _group(benchmark, 0)

    def run():
        return subprocess.run([sys.executable, "-c", "import numpy"], capture_output=True, timeout=600)

    done = benchmark.pedantic(run, rounds=5, iterations=1)
    assert done.returncode == 0


@PLIES
def test_analyse_gnubg_analyse(benchmark, plies):
    if not os.path.exists(GNUBG):
        pytest.skip(f"GNU Backgammon is not installed ({GNUBG} not found; apt-get install gnubg)")
    settings = [("chequerplay evaluation", plies), ("cubedecision evaluation", plies), ("luckanalysis", 0)]
    lines = ["set display off"] + [f"set analysis {what} {s}" for what, ply in settings
                                   for s in (f"plies {ply}", "prune off")] + [
        f"import mat {MATCH}", "analyse match", "show statistics match", "quit"]
    _group(benchmark, plies)

    def run():
        return subprocess.run([GNUBG, "-t", "-q"], input="\n".join(lines) + "\n", capture_output=True, text=True,
                              timeout=600)

    done = benchmark.pedantic(run, rounds=3, iterations=1)
    assert "Overall statistics" in done.stdout


# --------------------------------------------------------------------------- GNU Backgammon's nets


@PLIES
def test_analyse_fastgen_gnubg_nets_warm(benchmark, plies):
    """:func:`fastgen.analysis.analyse` of the match with GNU Backgammon's nets compiled
    (``gnubg:0``: the weights found on this machine), warm, as ``analyse_fastgen_warm``."""
    from fastgen.players import evaluators

    nets = evaluators.gnubg(0)
    analyse(MATCH, nets, plies=plies)
    _group(benchmark, plies)
    out = benchmark.pedantic(analyse, args=(MATCH, nets), kwargs={"plies": plies}, rounds=5, iterations=1)
    assert out.finished and len(out.moves) > 100


@PLIES
def test_analyse_gnubg_start(benchmark, plies):
    """The gnubg command of ``analyse_gnubg_analyse`` without ``analyse match`` and its
    statistics: its start and the import. ``analyse_gnubg_analyse`` less this is its
    analysis proper."""
    if not os.path.exists(GNUBG):
        pytest.skip(f"GNU Backgammon is not installed ({GNUBG} not found; apt-get install gnubg)")
    lines = ["set display off", f"import mat {MATCH}", "quit"]
    _group(benchmark, plies)

    def run():
        return subprocess.run([GNUBG, "-t", "-q"], input="\n".join(lines) + "\n", capture_output=True, text=True,
                              timeout=600)

    done = benchmark.pedantic(run, rounds=3, iterations=1)
    assert done.returncode == 0


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """20 matches of 1 to 9 points (tests/_gnubg_analysis.py's corpus, its seed)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    import _gnubg_analysis as G

    where = tmp_path_factory.mktemp("folder")
    G.make_corpus(where, n=20, seed=20261203)
    return where


def test_analyse_folder_fastgen_command(benchmark, folder):
    """``fastgen analyse FOLDER --evaluator gnubg:0``: the whole command over 20 matches,
    cold (its start, the imports, the nets read, the bear-off database built, printing)."""
    benchmark.group = "analyse a folder of 20 matches at 0 ply, gnubg's nets"
    benchmark.extra_info["positions"] = 20  # a match

    def run():
        return subprocess.run([sys.executable, "-m", "fastgen", "analyse", str(folder), "--evaluator", "gnubg:0"],
                              capture_output=True, text=True, timeout=1200)

    done = benchmark.pedantic(run, rounds=2, iterations=1, warmup_rounds=1)
    assert done.returncode == 0 and done.stdout.count("Overall statistics") == 20


def test_analyse_folder_gnubg_analyse(benchmark, folder):
    """The gnubg program importing and analysing the same 20 files in one process at 0
    ply (``import mat``, ``analyse match``, ``show statistics match`` for each)."""
    if not os.path.exists(GNUBG):
        pytest.skip(f"GNU Backgammon is not installed ({GNUBG} not found; apt-get install gnubg)")
    benchmark.group = "analyse a folder of 20 matches at 0 ply, gnubg's nets"
    benchmark.extra_info["positions"] = 20
    settings = [("chequerplay evaluation", 0), ("cubedecision evaluation", 0), ("luckanalysis", 0)]
    lines = ["set display off"] + [f"set analysis {what} {s}" for what, ply in settings
                                   for s in (f"plies {ply}", "prune off")]
    for path in sorted(folder.glob("*.mat")):
        lines += [f"import mat {path}", "analyse match", "show statistics match"]
    lines.append("quit")

    def run():
        return subprocess.run([GNUBG, "-t", "-q"], input="\n".join(lines) + "\n", capture_output=True, text=True,
                              timeout=1800)

    done = benchmark.pedantic(run, rounds=1, iterations=1)
    assert done.stdout.count("Overall statistics") == 20
