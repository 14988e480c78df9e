"""Real matches played by people, read by fastgen and by GNU Backgammon.

The corpus (``tests/data/matches``, its README names the sources) holds every match one
player exported from Backgammon Galaxy and Backgammon Studio, and a live tournament
match as eXtreme Gammon and GNU Backgammon export it. fastgen must read at least
99% of the files GNU Backgammon reads, and read each of them as gnubg does: every game's
rolls, plays, cube actions, winner and points (``tests/_gnubg_import.py`` has gnubg import
each file and export what it read; fastgen reads both). The files fastgen refuses must be
refused with a MatFileError naming the place, and read with ``errors="warn"``.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import fastgen
from fastgen.errors import MatFileError, MatFileWarning

import _gnubg_import

CORPUS = Path(__file__).parent / "data" / "matches"
# the text matches (the .sgf and .xg files of the corpus have tests of their own)
FILES = sorted(p for folder in sorted(CORPUS.iterdir()) if folder.is_dir() for p in folder.iterdir()
               if p.suffix in (".txt", ".mat"))


def test_the_corpus_is_there():
    folders = {p.parent.name for p in FILES}
    assert folders == {"galaxy", "studio", "gbf"} and len(FILES) == 1779


def test_fastgen_reads_99_percent_and_names_the_place_in_the_rest():
    refused = {}
    for path in FILES:
        try:
            match = fastgen.formats.read_mat(path)
        except MatFileError as exc:
            refused[path] = str(exc)
            continue
        assert match.games and all(g.over for g in match.games[:-1])
    assert len(refused) <= 0.01 * len(FILES), refused
    for path, message in refused.items():
        assert "line " in message, message  # the place is named
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            match = fastgen.formats.read_mat(path, errors="warn")
        assert match.problems and match.games
        assert any(issubclass(w.category, MatFileWarning) for w in caught)


def test_the_header_lines_are_kept_and_written_back():
    match = fastgen.formats.read_mat(CORPUS / "galaxy" / "match10013413.txt")
    assert match.info["site"] == "BackgammonGalaxy" and match.info["match_id"] == "10013413"
    assert match.info["elo0"] == "5,00/0" and match.info["date"] == "2024.08.04"
    assert match.names == ("lasse", "mglough") and match.cube_cap == 1024 and match.crawford_rule
    again = fastgen.formats.read_mat(fastgen.write_mat(match))
    assert again.info == match.info
    assert _gnubg_import.summary(again.games) == _gnubg_import.summary(match.games)


@pytest.mark.skipif(_gnubg_import.available() is not None, reason=str(_gnubg_import.available()))
def test_fastgen_reads_the_corpus_as_gnubg_reads_it():
    result = _gnubg_import.compare(FILES)
    print(f"\n{result['files']} files; gnubg reads {result['gnubg']}; fastgen reads {result['fastgen']}; "
          f"read alike: {result['both_equal']}")
    for path, problem in result["problems"]:
        print(f"  {Path(path).name}: {problem}")
    assert result["gnubg"] >= 0.99 * len(FILES)
    # fastgen reads at least 99% of the files gnubg reads, each one exactly as gnubg does
    assert result["both_equal"] >= 0.99 * result["gnubg"]
    # no file that both read is read differently but for the kinds listed in the guide
    differ = [p for p in result["problems"] if "readings differ" in p[1]]
    assert len(differ) <= 4, differ
