"""Which play: fastgen.hint and ``fastgen hint``, held to a plain loop over the legal
plays and to the GNU Backgammon program's own ``hint`` at 0 ply (its weights read by
fastgen; skipped, with the reason shown, when the program is not installed: CI installs
it)."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import pytest

import fastgen
from fastgen.analysis.hint import hint
from fastgen.core.ids import match_id, position_id
from fastgen.errors import InvalidArgumentError, InvalidCubeStateError, InvalidDiceError
from fastgen.players import evaluators
from fastgen.players.evaluators import equity, flip, opponent_probs

from _child import child_env
from _gnubg_positions import self_play

OPENING_31 = ["8/5 6/5", "24/23 13/10", "24/23 24/21", "24/20"]


@pytest.fixture(scope="module")
def positions():
    return self_play(31, 40, 0.3)


def test_every_legal_play_ranked_as_a_plain_loop_ranks_them(positions):
    """Cubeless: each play's equity is minus the opponent's after it, one board at a time;
    the plays are the generator's, best first, ties in the generator's order; each
    play's probabilities are the mover's."""
    ev = evaluators.baseline()
    rng = np.random.default_rng(8)
    for i in rng.choice(len(positions), 25, replace=False):
        board = positions[i]
        dice = tuple(int(x) for x in rng.integers(1, 7, 2))
        h = hint(board, dice, ev, cubeless=True)
        plays = fastgen.legal_plays(board, dice)
        values = [-float(equity(opponent_probs(ev, p.board_after[None]))[0]) for p in plays]
        want = [str(plays[int(k)]) for k in np.argsort(-np.array(values), kind="stable")]
        assert [p.play for p in h.plays] == want
        assert [p.equity for p in h.plays] == sorted(values, reverse=True)
        top = plays[int(np.argmax(values))]
        assert np.allclose(h.plays[0].probs, flip(opponent_probs(ev, top.board_after[None]))[0], atol=1e-15)
        assert np.array_equal(h.plays[0].board, top.board_after)


def test_the_opening_3_1_and_its_states():
    money = hint(fastgen.STARTING_BOARD, (3, 1), "baseline")
    assert [p.play for p in money.plays[:4]] == OPENING_31 and money.cubeful and money.plays[0].mwc is None
    cubeless = hint(fastgen.STARTING_BOARD, (3, 1), "baseline", cubeless=True)
    assert not cubeless.cubeful and cubeless.plays[0].equity != money.plays[0].equity
    match = hint(fastgen.STARTING_BOARD, (3, 1), "baseline", fastgen.MatchState(match_length=7, score=(4, 2)))
    assert 0 < match.plays[0].mwc < 0.5   # the side on roll (player 1, 2 points) is 5 away, its opponent 3
    assert match.as_dict()["plays"][0]["mwc"] == match.plays[0].mwc
    with pytest.raises(InvalidDiceError):
        hint(fastgen.STARTING_BOARD, (7, 1))
    with pytest.raises(InvalidArgumentError, match="cubeless"):
        hint(fastgen.STARTING_BOARD, (3, 1), cubeless="yes")
    with pytest.raises(InvalidCubeStateError):
        hint(fastgen.STARTING_BOARD, (3, 1), state="money")
    rolled = hint(fastgen.STARTING_BOARD, (3, 1), state=fastgen.MatchState(dice=(1, 3)))
    assert rolled.plays[0].equity == money.plays[0].equity
    with pytest.raises(InvalidArgumentError, match="not the dice given"):
        hint(fastgen.STARTING_BOARD, (3, 1), state=fastgen.MatchState(dice=(5, 2)))


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fastgen", "hint", *args], capture_output=True, text=True,
                          timeout=300, cwd=tempfile.gettempdir(), env=child_env())  # the installed fastgen


def test_the_command_prints_the_plays_and_json():
    text = _cli("--position", "4HPwATDgc/ABMA", "--dice", "31", "--plays", "3", "--evaluator", "baseline")
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert "8/5 6/5" in lines[0] and "Eq.: +" in lines[0] and "24/23 13/10" in lines[2]
    assert "13 more plays" in lines[-1]
    out = _cli("--position", "4HPwATDgc/ABMA", "--dice", "3-1", "--json", "--cubeless", "--evaluator", "baseline")
    data = json.loads(out.stdout)
    assert [p["play"] for p in data["plays"][:4]] == OPENING_31 and len(data["plays"]) == 16
    eq = [p["equity"] for p in data["plays"]]
    assert eq == sorted(eq, reverse=True) and data["cubeful"] is False and data["dice"] == [3, 1]
    assert all(len(p["probs"]) == 5 for p in data["plays"])
    bad = _cli("--position", "4HPwATDgc/ABMA", "--dice", "71")
    assert bad.returncode == 2 and "71" in bad.stderr
    crawford = _cli("--position", "4HPwATDgc/ABMA", "--dice", "31", "--crawford")
    assert crawford.returncode == 2 and "--crawford needs --match" in crawford.stderr


# --------------------------------------------------------------------------- the program

GNUBG = os.environ.get("FASTGEN_GNUBG", "/usr/games/gnubg")
WEIGHTS = "/usr/lib/gnubg/gnubg.wd"
#: A play's line of gnubg's hint: rank, play, cubeful equity (money) or MWC in % (match).
LINE = re.compile(r"^\s*\d+\. Cubeful 0-ply\s+(.+?)\s+(?:Eq\.|MWC):\s+([+-]?\d+\.\d+)(%?)")
CASES = 60


@pytest.mark.skipif(not (shutil.which(GNUBG) and os.path.isfile(WEIGHTS)),
                    reason=f"the GNU Backgammon program ({GNUBG}) and its weights ({WEIGHTS}) are not installed: "
                           "apt-get install gnubg")
def test_the_same_plays_and_equities_as_the_program_s_hint(positions):
    """60 positions and rolls, money (the Jacoby rule, gnubg's default, or a cube owned
    by the side on roll) and 7-point match play: every play the program lists (up to 40
    a position) is one of fastgen's, its equity within 1e-3 (MWC within 0.1%) on 99% of
    them and within 0.01 on all (builds of gnubg differ by about 2e-5 in each
    probability; the program also calls some races certain wins, which its nets alone do
    not), and the best play is the program's, or one fastgen values the same within 1e-3
    (a tie broken the other way)."""
    from fastgen.nets import gnubg

    nets = gnubg.load(WEIGHTS)
    rng = np.random.default_rng(4)
    script = ["set player 0 human", "set player 1 human", "set evaluation chequerplay evaluation plies 0",
              "set output digits 5", "set output mwc on", "set display off"]
    cases = []
    for n, i in enumerate(rng.choice(len(positions), CASES, replace=False)):
        dice = tuple(int(x) for x in rng.integers(1, 7, 2))
        state = [fastgen.MatchState(jacoby=True), fastgen.MatchState(match_length=7, score=(2, 4)),
                 fastgen.MatchState(cube_value=2, cube_owner=1)][n % 3]
        cases.append((positions[i], dice, state))
        script += [f"@@C{n}", f"set gnubgid {position_id(positions[i])}:{match_id(dataclasses.replace(state, dice=dice))}",
                   "hint 40"]
    with tempfile.TemporaryDirectory() as home:
        # the markers' "Unknown keyword" goes to stderr: both unbuffered, in one stream, in order
        out = subprocess.run(["stdbuf", "-o0", "-e0", GNUBG, "-t", "-q"], text=True, timeout=600,
                             input="\n".join(script + ["@@C-1", "quit", "y", ""]), stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, env=dict(os.environ, HOME=home, LANG="C", LC_ALL="C"))
    parts = re.split(r"Unknown keyword `@@C(-?\d+)'\.", out.stdout)
    texts = {int(parts[k]): parts[k + 1] for k in range(1, len(parts) - 1, 2)}
    diffs, listed, ties = [], 0, 0
    for n, (board, dice, state) in enumerate(cases):
        theirs = [(m.group(1).strip(), float(m.group(2)) / (100.0 if m.group(3) else 1.0))
                  for m in map(LINE.match, texts[n].splitlines()) if m]
        h = hint(board, dice, nets, state)
        if not theirs:   # no legal move: a single play that changes nothing
            assert "no legal moves" in texts[n] and len(h.plays) == 1
            continue
        mine = {p.play: (p.mwc if state.match_length else p.equity) for p in h.plays}
        assert set(p for p, _ in theirs) <= set(mine), (n, [p for p, _ in theirs if p not in mine])
        listed += len(theirs)
        diffs += [abs(mine[p] - v) for p, v in theirs]
        if theirs[0][0] != h.plays[0].play:
            ties += 1
            assert abs(mine[theirs[0][0]] - mine[h.plays[0].play]) <= 1e-3, (n, theirs[:2], h.plays[:2])
    d = np.array(diffs)
    print(f"\n{listed} plays of {CASES} hints: median difference {np.median(d):.1e}, "
          f"{(d <= 1e-3).mean():.2%} within 1e-3, largest {d.max():.1e}; best play differs on {ties} (ties)")
    assert listed > 300 and (d <= 1e-3).mean() >= 0.99 and d.max() <= 0.01 and ties <= 2
