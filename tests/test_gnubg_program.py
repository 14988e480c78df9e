""".mat files round-trip through the real GNU Backgammon program, both ways.

Needs Debian's ``gnubg`` (1.07, ``/usr/games/gnubg``; another binary with
``FASTGEN_GNUBG=/path``), driven as ``gnubg -t -q`` with commands on stdin. CI installs
it; without it the module is skipped, saying so.

- fastgen -> gnubg: 64 random fastgen matches (doubles, takes, passes, resignations
  offered before and after rolling and rejected ones, Crawford games, cubes up to 128 in
  match play and 4096 in money sessions, unfinished games left after a roll) are written
  with ``write_mat``, imported by gnubg (``import mat``), which reports the score
  (``show score``) and re-exports them (``export match mat``). The score, game count,
  names and Crawford state (a 1-point match's game is post-Crawford, as in fastgen)
  gnubg reports, the rolls and cube actions of its re-export, and every game record read
  back from it must equal the original match.
- gnubg -> fastgen: 42 matches to 7 points auto-played by gnubg against itself (0-ply,
  so fast; several gnubg processes at once, since gnubg waits about 10 ms per move
  whatever its settings) are exported and read by ``read_mat``; every play of every game
  is checked again with ``fastgen.check_play`` on gnubg's own move text, and the final
  score must be the one gnubg reports. Resignations (gnubg resigns hopeless games) must
  be among them.

gnubg 1.07 crashes (SIGSEGV) importing a match of 2 points or more once the cube passes
128 (money sessions and 1-point matches take cubes up to 4096), so the match-play cubes
here stop at 128; fastgen itself reads and writes any cap (``test_matfile.py``).
"""

from __future__ import annotations

import os
import re
import subprocess

import numpy as np
import pytest

from fastgen.games.game import Game
from fastgen.formats.matfile import read_mat, write_mat
from fastgen.core.validate import check_play

from _matches import random_match, written_record

GNUBG = os.environ.get("FASTGEN_GNUBG", "/usr/games/gnubg")
if not os.path.exists(GNUBG):
    pytest.skip(f"GNU Backgammon is not installed ({GNUBG} not found; apt-get install gnubg)",
                allow_module_level=True)

# Cheapest settings: no board drawing, no Jacoby rule (fastgen's matches have none),
# 0-ply chequer play and cube decisions for both computer players.
_SETUP = ["set display off", "set jacoby off"] + [
    f"set player {p} chequerplay evaluation plies 0" for p in (0, 1)
] + [f"set player {p} cubedecision evaluation plies 0" for p in (0, 1)]

_SCORE_RE = re.compile(
    r"The score \(after (\d+) games?\) is: (.*?) (\d+), (.*?) (\d+) \((?:match to (\d+) points?|money session)([^)]*)"
)
_TOKEN_RE = re.compile(r"[1-6][1-6]:|Doubles => [0-9]+|Takes|Drops|Wins [0-9]+")


def _start(commands: list[str]) -> subprocess.Popen:
    proc = subprocess.Popen([GNUBG, "-t", "-q"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    proc.stdin.write("\n".join(_SETUP + commands + ["quit"]) + "\n")
    proc.stdin.close()
    return proc


def run_gnubg(batches: list[list[str]], timeout: float = 300, auto_play: bool = False) -> list[list[tuple]]:
    """Run each batch of commands in its own gnubg process, all at once; return the
    ``show score`` reports of each batch as tuples (games, name0, score0, name1, score1,
    length or None). With *auto_play*, gnubg also reports the score after each game it
    plays: the report kept is the first after each match ends."""
    procs = [_start(batch) for batch in batches]
    reports = []
    for proc, batch in zip(procs, batches):
        try:
            out = proc.stdout.read()
            proc.wait(timeout=timeout)
        finally:
            proc.kill()
        assert proc.returncode == 0, f"gnubg exited with {proc.returncode}; end of its output:\n{out[-2000:]}"
        if auto_play:
            parts = out.split("has won the match.")[1:]
            out = "".join(part[: m.end()] for part in parts if (m := _SCORE_RE.search(part)))
        found = [(int(g), n0, int(s0), n1, int(s1), int(n) if n else None, rest.strip(", "))
                 for g, n0, s0, n1, s1, n, rest in _SCORE_RE.findall(out)]
        expected = sum(cmd == "show score" for cmd in batch)
        assert len(found) == expected, f"gnubg reported {len(found)} scores for {expected} requests:\n{out[-2000:]}"
        reports.append(found)
    return reports


def _tokens(text: str) -> list[str]:
    """Rolls, cube actions and wins of a .mat text in file order (the opening roll as
    dice in either order, which gnubg and fastgen write differently)."""
    out = []
    for line in text.splitlines():
        if line.lstrip().startswith(";"):
            continue
        out += [("".join(sorted(t[:2])) + ":") if t[2:] == ":" else t for t in _TOKEN_RE.findall(line)]
    return out


# --------------------------------------------------------------------------- fastgen -> gnubg

FASTGEN_MATCHES = 64


def _fastgen_match(i: int):
    length = (1, 3, 5, 7, 11, 0)[i % 6]
    if length == 0:  # money: long cubes
        return random_match(0, i, cube_cap=4096, p_double=0.35, p_drop=0.1, p_resign=0.02, max_games=5,
                            names=("Alice", "Bob"))
    return random_match(length, i, cube_cap=(64, 128)[i % 2], p_double=(0.08, 0.5)[i % 2],
                        p_drop=(0.3, 0.1)[i % 2],
                        p_resign=0.02, stop_after_roll=i % 4 == 3,
                        names=(("Alice", "Bob Smith"), ("Ann", "Zoe"))[i % 2])


def test_fastgen_matches_round_trip_through_gnubg(tmp_path):
    matches = [_fastgen_match(i) for i in range(FASTGEN_MATCHES)]
    games = [g for m in matches for g in m.games]
    assert sum(g.resigned for g in games) >= 10 and any(g.crawford for g in games)
    assert any(a.kind == "reject" for g in games for a in g.record)
    assert sum(g.dropped for g in games) >= 10
    assert max(g.cube_value for m in matches if m.length for g in m.games) == 128
    assert max(g.cube_value for g in games) >= 1024
    assert any(not g.over and g.dice is not None for g in games)  # rolled, not played
    commands = []
    for i, m in enumerate(matches):
        write_mat(m, tmp_path / f"fastgen{i}.mat")
        commands += [f"import mat {tmp_path / f'fastgen{i}.mat'}", "show score",
                     f"export match mat {tmp_path / f'gnubg{i}.mat'}"]
    half = len(commands) // 2 // 3 * 3
    reports = [r for batch in run_gnubg([commands[:half], commands[half:]]) for r in batch]
    states = []  # gnubg's Crawford states seen
    for i, (m, report) in enumerate(zip(matches, reports)):
        where = f"match {i} ({tmp_path / f'fastgen{i}.mat'})"
        games_played, name0, s0, name1, s1, length, state = report
        if m.length:  # gnubg's Crawford state of the last game: a 1-point match is post-Crawford
            last = m.games[-1]
            post = m.length == 1 or any(g.crawford for g in m.games[:-1])
            assert state == ("Crawford game" if last.crawford else "post-Crawford play" if post else ""), where
            assert m.over or (m.crawford_game, m.post_crawford) == (last.crawford, post and not last.crawford), where
            states.append(state)
        assert (games_played, name0, name1) == (sum(g.over for g in m.games), *m.names), where
        assert (s0, s1) == m.score and length == (m.length or None), where
        exported = (tmp_path / f"gnubg{i}.mat").read_text()
        assert _tokens(exported) == _tokens(write_mat(m)), where
        back = read_mat(exported)
        assert back.score == m.score and len(back.games) == len(m.games), where
        for k, (a, b) in enumerate(zip(m.games, back.games)):
            assert written_record(a) == b.record, f"{where}, game {k + 1}"
            assert (a.winner, a.points, a.resigned, a.dropped, a.crawford) == (
                b.winner, b.points, b.resigned, b.dropped, b.crawford), f"{where}, game {k + 1}"
    assert {"Crawford game", "post-Crawford play", ""} <= set(states)


def test_matches_played_by_a_duel_import_into_gnubg(tmp_path):
    # 8 matches to 5 points between two cube players (the baseline's cube decisions against
    # a player that doubles at every chance and takes everything), kept with records=True:
    # gnubg imports each, reports its score and games, and re-exports the same rolls, cube
    # actions and wins
    import fastgen
    from fastgen.players.policies import cube_policy
    from fastgen.players import evaluators

    eager = cube_policy(evaluators.baseline(), name="eager")
    eager.offer = lambda boards, owns, states=None: np.ones(len(boards), dtype=bool)
    eager.accept = lambda boards, owns, states=None: np.ones(len(boards), dtype=bool)
    r = fastgen.duel_matches("baseline", eager, 8, 5, seed=15, records=True)
    matches = [r.match(i, names=("Baseline", "Eager")) for i in range(r.matches)]
    assert any(g.dropped for m in matches for g in m.games) and any(g.crawford for m in matches for g in m.games)
    commands = []
    for i, m in enumerate(matches):
        write_mat(m, tmp_path / f"duel{i}.mat")
        commands += [f"import mat {tmp_path / f'duel{i}.mat'}", "show score",
                     f"export match mat {tmp_path / f'back{i}.mat'}"]
    for i, (m, report) in enumerate(zip(matches, run_gnubg([commands])[0])):
        assert report[:6] == (len(m.games), "Baseline", m.score[0], "Eager", m.score[1], 5), f"match {i}"
        assert _tokens((tmp_path / f"back{i}.mat").read_text()) == _tokens(write_mat(m)), f"match {i}"


# --------------------------------------------------------------------------- gnubg -> fastgen

GNUBG_PROCESSES, GNUBG_MATCHES_EACH = 6, 7


def _check_plays_with_gnubg_text(game, text_lines: list[str]) -> int:
    """Replay *game*'s record, checking each play with fastgen.check_play on the move
    text gnubg wrote for it (taken from the file in order); returns the plays checked."""
    texts = [t.strip() for line in text_lines
             for t in re.findall(r"[1-6][1-6]:((?: +[0-9]+/[0-9]+\*?)*)", line)]
    walker = Game(cube_cap=game.cube_cap, crawford=game.crawford)
    checked = 0
    for kind, player, data in game.record:
        if kind == "play":
            after = np.frombuffer(data, dtype=np.int8).reshape(2, 25)
            play = check_play(walker.board, walker.dice, texts[checked])
            assert (play.board_after == after).all(), (texts[checked], walker.dice)
            checked += 1
            walker.play(after, player=player)
        elif kind == "opening":
            walker.roll(tuple(data))
        elif kind == "roll":
            walker.roll(tuple(data), player=player)
        elif kind == "resign":
            walker.resign(data, player=player)
        else:
            method = {"double": walker.double, "take": walker.take, "drop": walker.drop,
                      "accept": walker.accept_resignation, "reject": walker.reject_resignation}[kind]
            method(player=player)
    assert (walker.winner, walker.points) == (game.winner, game.points)
    return checked


def test_gnubg_auto_played_matches_are_read_and_every_play_checked(tmp_path):
    batches = []
    for p in range(GNUBG_PROCESSES):
        batch = [f"set seed {1000 + p}"] + [f"set player {k} gnubg" for k in (0, 1)]
        for j in range(GNUBG_MATCHES_EACH):
            batch += ["new match 7", "show score", f"export match mat {tmp_path / f'auto{p}_{j}.mat'}"]
        batches.append(batch)
    reports = run_gnubg(batches, timeout=600, auto_play=True)
    resigned = plays = 0
    for p, batch_reports in enumerate(reports):
        for j, (games_played, _, s0, _, s1, length, _) in enumerate(batch_reports):
            path = tmp_path / f"auto{p}_{j}.mat"
            m = read_mat(path)  # every play replayed through fastgen.Game
            assert (m.length, m.score, len(m.games)) == (length, (s0, s1), games_played), path
            assert m.over, path
            lines = path.read_text().splitlines()
            starts = [k for k, line in enumerate(lines) if line.startswith(" Game ")] + [len(lines)]
            for k, game in enumerate(m.games):
                plays += _check_plays_with_gnubg_text(game, lines[starts[k] + 2:starts[k + 1]])
            resigned += sum(g.resigned for g in m.games)
    assert len(reports) * GNUBG_MATCHES_EACH >= 40
    assert resigned >= 5 and plays > 1000
