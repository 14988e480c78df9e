"""``fastgen play``: a person against a bot, at the prompt and in a real terminal.

The person is scripted: it reads what the session shows and types as a player would
(plays from the legal ones, takes, doubles, resigns, asks for hints). Every record the
session writes is read back by read_mat, which replays and checks every action.
"""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time

import numpy as np
import pytest

import fastgen
from fastgen.players import evaluators
from fastgen.cli.play import BOT, HUMAN, PlaySession
from fastgen.players.evaluators import equity, opponent_probs

EVAL = evaluators.baseline()


class Person:
    """Answers a session's prompts: the first legal play (after one illegal try in the
    first turn), takes every double, rolls at once; records every prompt."""

    def __init__(self, session_ref: list, extra: list[str] | None = None) -> None:
        self.ref = session_ref
        self.extra = list(extra or [])
        self.prompts: list[str] = []
        self.tried_illegal = False

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if self.extra:
            return self.extra.pop(0)
        game = self.ref[0].match.game
        if prompt.startswith("Take or pass"):
            return "take"
        if prompt.startswith("Your play"):
            if not self.tried_illegal:
                self.tried_illegal = True
                return "24/1"
            return str(game.legal_plays()[0])
        return ""


def _session(length=3, seed=5, extra=None, **kwargs):
    ref: list = []
    person = Person(ref, extra)
    said: list[str] = []
    session = PlaySession("baseline", EVAL, length=length, seed=seed, ask=person, say=said.append, **kwargs)
    ref.append(session)
    return session, person, said


def test_a_whole_match_typed_at_the_prompt(tmp_path):
    session, person, said = _session(length=3, seed=5)
    finished = session.run()
    match = session.match
    assert match.over and max(match.score) >= 3 and finished == len(match.games)
    text = "\n".join(said)
    assert "Not legal: no unused die of that number is left in the roll (R5)." in text
    assert re.search(r"(You win|baseline wins) the match\.", text)
    assert text.count("Position ID") >= match.games[0].turns // 2
    fastgen.write_mat(match, tmp_path / "m.mat")
    back = fastgen.formats.read_mat(tmp_path / "m.mat")  # replays and checks every action
    assert back.score == match.score and [g.record for g in back.games] == [g.record for g in match.games]


def test_hint_ranks_the_plays_by_the_evaluator():
    session, person, said = _session(length=1, seed=2, extra=["hint"])
    game = session.match.new_game()
    game.roll((6, 1))  # the person (player 0) starts with 61
    assert game.turn == HUMAN
    session._human_turn()  # "hint", then one illegal try, then the first legal play
    lines = said[said.index("Your plays by cubeless equity:") + 1:][:5]
    shown = [line.split(".", 1)[1].rsplit("+", 1)[0].rsplit("-", 1)[0].strip() for line in lines]
    # a plain loop: each play's equity for the mover, one board at a time
    before = fastgen.STARTING_BOARD
    plays = fastgen.legal_plays(before, (6, 1))
    values = [-float(equity(opponent_probs(EVAL, p.board_after[None]))[0]) for p in plays]
    best = [str(plays[i]) for i in np.argsort(-np.array(values), kind="stable")[:5]]
    assert shown[0] == best[0] == "13/7 8/7"
    assert [s.split()[0] for s in shown] == [b.split()[0] for b in best]


def test_doubling_and_the_bots_take():
    session, person, said = _session(length=0, seed=3, extra=["double"], games=1)
    game = session.match.new_game()
    game.roll((5, 2))
    game.play(game.legal_plays()[0])
    session._bot_turn() if game.turn == BOT else None
    assert game.turn == HUMAN and game.dice is None
    session._human_turn()
    assert "baseline takes; the cube is at 2." in said or "baseline passes." in said
    if game.over:  # passed
        assert game.points == 1 and game.winner == HUMAN
    else:
        assert game.cube_value == 2 and game.cube_owner == BOT


def test_resignation_accepted_when_it_gives_the_bot_what_it_expects():
    session, person, said = _session(length=0, seed=4, extra=["resign backgammon"], games=1)
    game = session.match.new_game()
    game.roll((2, 1))
    game.play(game.legal_plays()[0])
    session._bot_turn()
    session._human_turn()
    assert "baseline accepts." in said and game.over and game.winner == BOT and game.points == 3


def test_money_games_end_after_the_number_asked():
    session, person, said = _session(length=0, seed=9, games=2, cube=False)
    assert session.run() == 2 and len(session.match.games) == 2
    assert all(g.over for g in session.match.games) and said[-1].startswith("Money so far: You ")


def test_quit_and_end_of_input_stop_cleanly():
    session, person, said = _session(length=5, seed=1, extra=["quit"])
    assert session.run() == 0 and said[-1] == "Stopped."

    def closed(prompt):
        raise EOFError

    s2 = PlaySession("baseline", EVAL, length=5, seed=1, ask=closed, say=said.append)
    assert s2.run() == 0 and said[-1] == "Stopped."


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_play_in_a_terminal(tmp_path):
    """The real command in a pseudo-terminal: read the screen, type plays computed from
    the Position ID and the roll it shows (one illegal first), take every double; the
    1-point match ends and its record is saved and reads back."""
    import pty

    master, slave = pty.openpty()
    mat = tmp_path / "t.mat"
    proc = subprocess.Popen([sys.executable, "-m", "fastgen", "play", "--length", "1", "--seed", "11", "--save",
                             str(mat)], stdin=slave, stdout=slave, stderr=slave, cwd=tmp_path, close_fds=True)
    os.close(slave)
    screen = ""
    typed_illegal = False
    deadline = time.monotonic() + 240
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if ready:
                try:
                    chunk = os.read(master, 65536).decode("utf-8", "replace")
                except OSError:  # the command ended and closed the terminal
                    break
                if not chunk:
                    break
                screen += chunk
            tail = screen.rstrip(" ")
            if tail.endswith("Your play?"):
                pid = re.findall(r"Position ID (\S+)", screen)[-1]
                roll = re.findall(r"You rolled (\d)(\d)\.", screen)[-1]
                if not typed_illegal:
                    typed_illegal, answer = True, "24/1"
                else:
                    board = fastgen.parse_position_id(pid)
                    answer = str(fastgen.legal_plays(board, (int(roll[0]), int(roll[1])))[0])
                screen += "\n"
                os.write(master, (answer + "\n").encode())
            elif tail.endswith("Take or pass?"):
                screen += "\n"
                os.write(master, b"take\n")
            elif tail.endswith("help?"):
                screen += "\n"
                os.write(master, b"\n")
        assert proc.wait(timeout=30) == 0, screen[-2000:]
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    assert "Not legal:" in screen and "(R5)" in screen
    assert "the match." in screen and f"The record is in {mat}" in screen
    match = fastgen.formats.read_mat(mat)
    assert match.length == 1 and match.over


def _tmux(*args: str) -> str:
    out = subprocess.run(["tmux", "-L", f"fastgen-test-{os.getpid()}", *args], capture_output=True, text=True,
                         timeout=30)
    return out.stdout


def _wait_for(pattern: str, seconds: float = 120) -> str:
    deadline = time.monotonic() + seconds
    screen = ""
    while time.monotonic() < deadline:
        screen = _tmux("capture-pane", "-p", "-t", "play")
        if re.search(pattern, screen):
            return screen
        time.sleep(0.2)
    raise AssertionError(f"the terminal never showed {pattern!r}:\n{screen}")


def test_play_in_tmux_and_its_picture(tmp_path):
    """``fastgen play`` in a real terminal (tmux): the screen shows the board, the
    roll and the prompt; a hint ranks the plays; a typed play is made and the other
    player answers. The last screen is rendered to a PNG by headless Chromium
    (``FASTGEN_PNG_DIR=docs pytest tests/test_play.py -k tmux`` keeps it: the picture
    in the docs, docs/play.png, was made so)."""
    import shutil

    if shutil.which("tmux") is None:
        pytest.skip("tmux not installed (Debian: apt-get install tmux)")
    command = f"{sys.executable} -m fastgen play --seed 3 --length 3"
    _tmux("new-session", "-d", "-s", "play", "-x", "92", "-y", "42", "-c", str(tmp_path), command)
    try:
        screen = _wait_for(r"Your play\? $|Your play\?\s*$")
        pid = re.findall(r"Position ID (\S+)", screen)[-1]
        d1, d2 = re.findall(r"You rolled (\d)(\d)\.", screen)[-1]
        assert "+------------------+---+------------------+" in screen and "(You)" in screen
        _tmux("send-keys", "-t", "play", "hint", "Enter")
        screen = _wait_for(r"Your plays by cubeless equity:(.|\n)*Your play\?")
        play = str(fastgen.legal_plays(fastgen.parse_position_id(pid), (int(d1), int(d2)))[0])
        _tmux("send-keys", "-t", "play", play, "Enter")
        screen = _wait_for(r"baseline rolls \d\d and plays .*\.(.|\n)*Your turn: roll")
        assert screen.count("Position ID") == 1  # the screen scrolled to the new position
    finally:
        _tmux("kill-server")
    from test_svg import chromium  # the browser finder of the picture tests

    browser = chromium()
    lines = "\n".join(line.rstrip() for line in screen.rstrip().splitlines())
    import html as html_module

    page = tmp_path / "play.html"
    page.write_text("<!doctype html><html><body style='margin:0;background:#1e1e1e'><pre style='margin:0;"
                    "padding:12px 16px;color:#e8e8e8;font:15px/1.25 DejaVu Sans Mono,monospace'>"
                    f"{html_module.escape(lines)}</pre></body></html>")
    png = tmp_path / "play.png"
    height = 24 + 19 * (lines.count("\n") + 1)
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--screenshot={png}", f"--window-size=860,{height}", page.as_uri()],
                   capture_output=True, timeout=120, check=False)
    assert png.exists() and png.stat().st_size > 5000, f"{browser} wrote no screenshot"
    keep = os.environ.get("FASTGEN_PNG_DIR")
    if keep:
        shutil.copy(png, os.path.join(keep, "play.png"))


def test_cube_hint_before_the_roll_ranks_the_lines():
    from fastgen.cube import cube_action

    session, person, said = _session(length=0, seed=6, extra=["hint"], games=1)
    game = session.match.new_game()
    game.roll((4, 2))
    game.play(game.legal_plays()[0])
    session._bot_turn()
    d = cube_action(game.board, state=session._state(HUMAN), evaluator=EVAL)  # the position the hint is asked at
    session._human_turn()  # "hint" before the roll, then roll and play
    line = next(s for s in said if s.startswith("Cube: "))
    labels = [name.lower() for name, *_ in d.ranked]
    assert line.startswith(f"Cube: {d.action.value} (") and [line.index(f"{x} ") for x in labels] == sorted(
        line.index(f"{x} ") for x in labels)
    assert f"{labels[0]} {d.ranked[0][1]:+.3f}" in line
