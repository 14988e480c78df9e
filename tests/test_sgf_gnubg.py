""".sgf match files through the real GNU Backgammon program, both ways.

Needs Debian's ``gnubg`` (1.07, ``/usr/games/gnubg``; another binary with
``FASTGEN_GNUBG=/path``), driven as ``gnubg -t -q`` with commands on stdin from a
temporary directory (its ``HOME`` too, so no saved settings of the user's play a part).
Without it the module is skipped, saying so.

- fastgen -> gnubg -> fastgen: 60 random fastgen matches (doubles, takes, drops,
  resignations before and after a roll, rejected ones, Crawford games, 1-point matches,
  money sessions with cubes up to 4096, games left after a roll) are written with
  ``write_sgf``, loaded by gnubg (``load match``), which reports the score (``show
  score``) and saves them again (``save match``, and ``save game`` for the last game
  alone); fastgen reads gnubg's files: the same games (records, winners, points, cubes),
  names and scores (the last game's file: a match from the score before it).
- gnubg's own reading of a text match: gnubg imports the ``.mat`` file of each of 30
  matches (``import mat``) and saves it as ``.sgf``; fastgen's ``read_sgf`` of that file
  equals its ``read_mat`` of the ``.mat`` file.
- gnubg's own matches: gnubg plays 4 matches to 5 points against itself (0-ply) and
  saves each as ``.sgf`` (with the evaluations of its own moves, which fastgen keeps as
  annotations) and exports it as ``.mat``; both readings agree, gnubg's resignations
  included.

gnubg reads a backslash in a value as itself and writes it escaped, so a name with a
backslash grows one at each trip through gnubg: the names here have none (fastgen's own
round trip of such names is in ``test_sgf.py``). And gnubg's ``show score`` leaves out a
game resigned after its opening move and nothing else (``;W[64mihb]`` then ``RE[B+1R]``,
with or without the next roll), though it saves the game as it was: the score gnubg
reports is compared for the other matches.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from fastgen.formats.matfile import read_mat, write_mat
from fastgen.formats.sgf import read_sgf, write_sgf
from fastgen.games.match import Match

from _matches import random_match, written_record

GNUBG = os.environ.get("FASTGEN_GNUBG", "/usr/games/gnubg")
if not os.path.exists(GNUBG):
    pytest.skip(f"GNU Backgammon is not installed ({GNUBG} not found; apt-get install gnubg)",
                allow_module_level=True)

# No board drawing, no questions before a new match, no Jacoby rule for imported money
# sessions (a .mat file has no place for it; fastgen's matches here have none), 0-ply
# computer players.
_SETUP = ["set display off", "set confirm new off", "set jacoby off"] + [
    f"set player {p} {kind} evaluation plies 0" for p in (0, 1) for kind in ("chequerplay", "cubedecision")]

_SCORE_RE = re.compile(
    r"The score \(after (\d+) games?\) is: (.*?) (\d+), (.*?) (\d+) \((?:match to (\d+) points?|money session)")


def run_gnubg(commands: list[str], cwd: Path, timeout: float = 120) -> str:
    """gnubg's output for *commands* (run in *cwd*, which is also its HOME)."""
    done = subprocess.run([GNUBG, "-t", "-q"], input="\n".join(_SETUP + commands + ["quit"]) + "\n", cwd=cwd,
                          text=True, capture_output=True, timeout=timeout, env={**os.environ, "HOME": str(cwd)})
    out = done.stdout + done.stderr
    assert done.returncode == 0, f"gnubg exited with {done.returncode}; end of its output:\n{out[-2000:]}"
    return out


def scores(out: str) -> list[tuple]:
    """The ``show score`` reports: (games, name0, score0, name1, score1, length or None)."""
    return [(int(g), n0, int(s0), n1, int(s1), int(n) if n else None)
            for g, n0, s0, n1, s1, n in _SCORE_RE.findall(out)]


def assert_same_games(a: Match, b: Match, where: str, *, rejects_dropped: bool = True) -> None:
    """The same games (records, winners, points, cubes), names, length and score."""
    assert (b.length, b.names, b.score, len(b.games)) == (a.length, a.names, a.score, len(a.games)), where
    for k, (x, y) in enumerate(zip(a.games, b.games)):
        record = written_record(x) if rejects_dropped else x.record
        assert record == y.record, f"{where}, game {k + 1}"
        assert (x.winner, x.points, x.result, x.resigned, x.dropped, x.crawford, x.cube_value, x.cube_owner) == (
            y.winner, y.points, y.result, y.resigned, y.dropped, y.crawford, y.cube_value, y.cube_owner), \
            f"{where}, game {k + 1}"


# gnubg 1.07 crashes importing a .mat match of 2 points or more once the cube passes 128
# (test_gnubg_program.py), so match cubes stop there; money sessions go to 4096.
def _resigned_after_the_opening(m: Match) -> bool:
    """Whether a game of *m* was resigned with one move made (gnubg does not count it)."""
    kinds = [[a.kind for a in g.record if a.kind not in ("opening", "roll", "resign", "accept", "reject")]
             for g in m.games if g.resigned]
    return ["play"] in kinds


def _fastgen_match(i: int) -> Match:
    length = (1, 3, 5, 7, 11, 0)[i % 6]
    if length == 0:
        return random_match(0, i, cube_cap=4096, p_double=0.35, p_drop=0.1, p_resign=0.03, max_games=5,
                            stop_after_roll=i % 4 == 3, names=("Alice", "Bob"))
    return random_match(length, i, cube_cap=(64, 128)[i % 2], p_double=(0.08, 0.5)[i % 2], p_drop=(0.3, 0.1)[i % 2],
                        p_resign=0.03, stop_after_roll=i % 4 == 3,
                        names=(("Alice", "Bob Smith"), ("Åse ]", "Zoë 名"))[i % 2])


MATCHES = [_fastgen_match(i) for i in range(60)]


def test_the_matches_have_every_feature():
    games = [g for m in MATCHES for g in m.games]
    assert sum(g.resigned for g in games) >= 10 and sum(g.dropped for g in games) >= 10
    assert any(g.resigned and g.dice is not None for g in games)  # resigned after a roll
    assert any(g.crawford for g in games) and any(not m.length for m in MATCHES)
    assert any(a.kind == "reject" for g in games for a in g.record)
    assert any(not g.over and g.dice is not None for g in games)  # rolled, not played
    assert max(g.cube_value for g in games) >= 1024


def test_fastgen_files_load_and_save_in_gnubg(tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "out").mkdir()
    commands = []
    for i, m in enumerate(MATCHES):
        write_sgf(m, tmp_path / "in" / f"{i:03d}.sgf")
        commands += [f"load match in/{i:03d}.sgf", "show score", f"save match out/{i:03d}.sgf",
                     f"save game out/{i:03d}-last.sgf"]
    reports = scores(run_gnubg(commands, tmp_path))
    assert len(reports) == len(MATCHES)
    checked = later = 0
    for i, (m, report) in enumerate(zip(MATCHES, reports)):
        where = f"match {i} ({tmp_path / 'in' / f'{i:03d}.sgf'})"
        if not _resigned_after_the_opening(m):
            assert report == (sum(g.over for g in m.games), m.names[0], m.score[0], m.names[1], m.score[1],
                              m.length or None), where
            checked += 1
        saved = tmp_path / "out" / f"{i:03d}.sgf"
        assert "AP[GNU Backgammon:" in saved.read_text(encoding="utf-8"), where
        back = read_sgf(saved)
        assert_same_games(m, back, where)
        assert (back.crawford_rule, back.jacoby) == (m.crawford_rule, m.jacoby), where
        assert [g.crawford for g in back.games] == [g.crawford for g in m.games], where
        # gnubg's file of the last game alone: a match from the score before it
        last = read_sgf(tmp_path / "out" / f"{i:03d}-last.sgf")
        assert (last.start_score, len(last.games)) == (m.scores_before(len(m.games) - 1), 1), where
        assert written_record(m.games[-1]) == last.games[0].record and last.score == m.score, where
        assert last.games[0].crawford == m.games[-1].crawford, where
        later += len(m.games) > 1
    assert checked >= 50 and later >= 20


def test_gnubgs_import_of_a_mat_file_reads_as_the_mat_file(tmp_path):
    commands = []
    chosen = MATCHES[:30]
    for i, m in enumerate(chosen):
        write_mat(m, tmp_path / f"{i:03d}.mat")
        commands += [f"import mat {i:03d}.mat", f"save match {i:03d}.sgf"]
    run_gnubg(commands, tmp_path)
    for i in range(len(chosen)):
        where = f"match {i} ({tmp_path / f'{i:03d}.sgf'})"
        ours, theirs = read_mat(tmp_path / f"{i:03d}.mat"), read_sgf(tmp_path / f"{i:03d}.sgf")
        assert_same_games(ours, theirs, where, rejects_dropped=False)
        assert theirs.info.get("date"), where  # gnubg dates an imported match (today)


def test_gnubgs_own_matches_read_as_its_mat_exports(tmp_path):
    commands = ["set seed 1000"] + [f"set player {p} gnubg" for p in (0, 1)]
    for j in range(4):
        commands += ["new match 5", f"save match auto{j}.sgf", f"export match mat auto{j}.mat"]
    run_gnubg(commands, tmp_path, timeout=300)
    resigned = analysed = 0
    for j in range(4):
        where = f"match {j} ({tmp_path / f'auto{j}.sgf'})"
        theirs = read_sgf(tmp_path / f"auto{j}.sgf")
        assert theirs.over, where
        assert_same_games(read_mat(tmp_path / f"auto{j}.mat"), theirs, where, rejects_dropped=False)
        resigned += sum(g.resigned for g in theirs.games)
        for g in theirs.games:
            for note in g.annotations.values():
                analysed += sum(c.get("played", False) for c in note.get("move_analysis", []))
        # read and written by fastgen, the file keeps gnubg's analysis and reads back the same
        again = read_sgf(write_sgf(theirs))
        assert [g.annotations for g in again.games] == [g.annotations for g in theirs.games], where
        assert_same_games(theirs, again, where, rejects_dropped=False)
    assert resigned >= 1 and analysed > 100
