"""Build a corpus of GNU Backgammon 1.07 cube decisions (0-ply ``hint`` before the roll).

Steps (all seeded, re-runnable):

1. Play games with fastgen (its shipped baseline net, plus noisy / random / gammon-hungry
   players for variety) and collect positions before the roll, tagged by kind
   (opening, middle game, blitz/bar, races by pip count, bear-offs).
2. Pre-screen a pool of them with gnubg (money, cube centred) and pick ``--positions``
   positions so that every kind and every kind of cube decision is represented
   ("too good", near the take point, double/take, no double ...).
3. For each position and each cube/score state (money and 7- and 5-point match
   states, the side on roll drawn at random as gnubg player 0 or 1), feed gnubg
   ``set gnubgid <PositionID>:<MatchID>`` / ``show board`` / ``hint`` / ``eval`` in
   batches, several gnubg processes in parallel, each with a timeout.
4. Check that gnubg shows the intended board and state (Position ID, Match ID and the
   ASCII diagram parsed back), parse the cube analysis and the evaluation, validate
   every field, and write one JSON list.

tests/test_cube_gnubg.py runs it (fewer positions, its own seed); by hand:
``python tests/_gnubg_cube_cases.py --out cases.json`` (the default 200 positions: 5,600 cases
in about a minute on two cores).
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures as cf
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

import fastgen
from fastgen.players import evaluators
from fastgen.core.ids import match_id, parse_match_id, position_id, parse_position_id
from fastgen.core.state import MatchState

GNUBG = os.environ.get("FASTGEN_GNUBG", "/usr/games/gnubg")

# --------------------------------------------------------------------------- states

# Each state: (kind, match_length, roller_score, opponent_score, cube_value, owner, crawford, jacoby, beavers)
# owner: None = centred, "roller" = the side on roll, "opp" = the other side.
# Scores are (side on roll, opponent); the side on roll is then drawn as gnubg player 0 or 1.
# beavers: money only; True = gnubg's default (3 beavers/raccoons), False = `set beavers 0`.
STATES = [
    # money
    ("money/centred", 0, 0, 0, 1, None, False, False, True),
    ("money/centred/jacoby", 0, 0, 0, 1, None, False, True, True),
    ("money/centred/nobeaver", 0, 0, 0, 1, None, False, False, False),
    ("money/cube2/roller", 0, 0, 0, 2, "roller", False, False, True),
    ("money/cube4/roller", 0, 0, 0, 4, "roller", False, False, True),
    ("money/cube2/roller/nobeaver", 0, 0, 0, 2, "roller", False, False, False),
    ("money/cube2/opp", 0, 0, 0, 2, "opp", False, False, True),
    ("money/cube4/opp", 0, 0, 0, 4, "opp", False, False, True),
    # 7-point match
    ("7pt/0-0", 7, 0, 0, 1, None, False, False, False),
    ("7pt/2-4", 7, 2, 4, 1, None, False, False, False),
    ("7pt/4-2", 7, 4, 2, 1, None, False, False, False),
    ("7pt/5-5", 7, 5, 5, 1, None, False, False, False),
    ("7pt/0-0/cube2/roller", 7, 0, 0, 2, "roller", False, False, False),
    ("7pt/2-4/cube2/roller", 7, 2, 4, 2, "roller", False, False, False),
    ("7pt/3-3/cube2/roller", 7, 3, 3, 2, "roller", False, False, False),
    ("7pt/3-3/cube2/opp", 7, 3, 3, 2, "opp", False, False, False),
    ("7pt/6-4/crawford", 7, 6, 4, 1, None, True, False, False),
    ("7pt/4-6/crawford", 7, 4, 6, 1, None, True, False, False),
    ("7pt/6-3/post-crawford", 7, 6, 3, 1, None, False, False, False),
    ("7pt/3-6/post-crawford", 7, 3, 6, 1, None, False, False, False),
    ("7pt/4-6/post-crawford", 7, 4, 6, 1, None, False, False, False),
    # 5-point match (away-scores not already in the 7-point states: gnubg's match
    # figures depend on the away-scores only, so 5pt 3-3 would repeat 7pt 5-5)
    ("5pt/0-0", 5, 0, 0, 1, None, False, False, False),
    ("5pt/1-3", 5, 1, 3, 1, None, False, False, False),
    ("5pt/3-1", 5, 3, 1, 1, None, False, False, False),
    ("5pt/2-3", 5, 2, 3, 1, None, False, False, False),
    ("5pt/3-2", 5, 3, 2, 1, None, False, False, False),
    ("5pt/3-4/post-crawford", 5, 3, 4, 1, None, False, False, False),
    ("5pt/2-2/cube2/roller", 5, 2, 2, 2, "roller", False, False, False),
]

PRESCREEN_STATE = STATES[0]

# --------------------------------------------------------------------------- positions


def pips(board):
    w = np.arange(1, 26)
    return int(board[1] @ w), int(board[0] @ w)


def is_race(board):
    """No contact: every checker of the side on roll is past every opposing checker."""
    a = np.flatnonzero(board[1])
    b = np.flatnonzero(board[0])
    if a.size == 0 or b.size == 0:
        return True
    return (a.max() + 1) + (b.max() + 1) <= 25


def category(board, turn):
    """A coarse kind of position (from the board alone; the pre-screen refines it)."""
    if turn < 4:
        return "opening"
    if is_race(board):
        home = board[1, 6:].sum() == 0 and board[0, 6:].sum() == 0
        if home:
            if board[1].sum() <= 6 and board[0].sum() <= 6:
                return "bearoff/small"
            return "bearoff/large"
        p = pips(board)[0]
        if p > 100:
            return "race/long"
        if p > 60:
            return "race/mid"
        return "race/short"
    if board[1, 24] or board[0, 24]:
        return "contact/bar"
    # many checkers already borne off by one side while in contact: gammonish
    if board[1].sum() < 15 or board[0].sum() < 15:
        return "contact/bearoff"
    return "contact/middle"


class Player:
    def __init__(self, style, net, rng):
        self.style, self.net, self.rng = style, net, rng

    def choose(self, plays):
        n = len(plays)
        if n == 1:
            return 0
        style = self.style
        if style == "random" or (style == "noisy" and self.rng.random() < 0.25) or (
                style == "greedy" and self.rng.random() < 0.03):
            return int(self.rng.integers(n))
        if style == "gammon":
            opp = evaluators.opponent_probs(self.net, np.ascontiguousarray(plays.boards))
            mine = evaluators.flip(opp)
            value = 2 * mine[:, 0] - 1 + 2.5 * (mine[:, 1] - mine[:, 3]) + (mine[:, 2] - mine[:, 4])
            return int(np.argmax(value))
        return int(self.net.choose(np.ascontiguousarray(plays.boards), np.array([0, n], dtype=np.int64))[0])


MATCHUPS = [  # (weight, style a, style b)
    (0.30, "greedy", "greedy"),
    (0.20, "greedy", "random"),
    (0.20, "gammon", "noisy"),
    (0.15, "noisy", "noisy"),
    (0.15, "gammon", "greedy"),
]


def play_game(rng, net, styles):
    """One game; returns [(board before the roll, turn number)] with row 1 on roll."""
    players = [Player(s, net, rng) for s in styles]
    board = fastgen.STARTING_BOARD.copy()
    out = []
    turn = 0
    mover = int(rng.integers(2))
    while True:
        out.append((board.copy(), turn))
        if turn == 0:
            while True:
                d = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
                if d[0] != d[1]:
                    break
        else:
            d = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        plays = fastgen.legal_plays(board, d)
        k = players[mover].choose(plays)
        after = plays.boards[k]
        if after[1].sum() == 0:
            return out
        board = np.ascontiguousarray(after[::-1])
        mover = 1 - mover
        turn += 1
        if turn > 400:  # pragma: no cover - a safety net
            return out


POOL_SHARES = {  # share of the candidate pool per category
    "opening": 0.08, "contact/middle": 0.26, "contact/bar": 0.16, "contact/bearoff": 0.08,
    "race/long": 0.10, "race/mid": 0.10, "race/short": 0.08, "bearoff/large": 0.08, "bearoff/small": 0.06,
}


def build_pool(rng, size):
    net = evaluators.baseline()
    caps = {c: max(2, int(math.ceil(size * s))) for c, s in POOL_SHARES.items()}
    pool, seen = [], set()
    weights = np.array([m[0] for m in MATCHUPS])
    games = 0
    # the starting position itself is always a candidate
    start = fastgen.STARTING_BOARD.copy()
    pool.append({"board": start, "category": "opening", "turn": 0, "game": -1, "styles": None})
    seen.add(position_id(start))
    counts = collections.Counter({"opening": 1})
    while any(counts[c] < caps[c] for c in caps) and games < 20000:
        m = MATCHUPS[int(rng.choice(len(MATCHUPS), p=weights / weights.sum()))]
        styles = [m[1], m[2]] if rng.random() < 0.5 else [m[2], m[1]]
        positions = play_game(rng, net, styles)
        games += 1
        # take a few positions of each game, spread over its length
        idx = rng.permutation(len(positions))[: max(3, len(positions) // 6)]
        for i in sorted(idx):
            b, turn = positions[i]
            c = category(b, turn)
            pid = position_id(b)
            if pid in seen or counts[c] >= caps[c]:
                continue
            seen.add(pid)
            counts[c] += 1
            pool.append({"board": b, "category": c, "turn": turn, "game": games, "styles": styles})
    return pool, games, counts


# --------------------------------------------------------------------------- cases


def make_state(st, on_roll):
    kind, length, rs, os_, cube, owner, crawford, jacoby, beavers = st
    score = [0, 0]
    score[on_roll], score[1 - on_roll] = rs, os_
    cube_owner = None if owner is None else (on_roll if owner == "roller" else 1 - on_roll)
    ms = MatchState(cube_value=cube, cube_owner=cube_owner, on_roll=on_roll, crawford=crawford,
                    match_length=length, score=tuple(score), jacoby=jacoby)
    post = bool(length) and not crawford and max(score) == length - 1
    state = {"match_length": length, "score": score, "cube_value": cube, "cube_owner": cube_owner,
             "crawford": crawford, "post_crawford": post, "jacoby": jacoby, "on_roll": on_roll,
             "beavers": length == 0 and beavers}
    return ms, state


def fastgen_state(s: dict) -> MatchState:
    """The :class:`fastgen.MatchState` of a case's ``state`` record."""
    return MatchState(match_length=s["match_length"], score=tuple(s["score"]), cube_value=s["cube_value"],
                      cube_owner=s["cube_owner"], crawford=s["crawford"], jacoby=s["jacoby"], on_roll=s["on_roll"])


def make_case(cid, pos, st, on_roll):
    ms, state = make_state(st, on_roll)
    b = pos["board"]
    return {"case": cid, "kind": st[0], "position_category": pos["category"], "position_id": position_id(b),
            "sent_match_id": match_id(ms), "board": b.tolist(), "state": state,
            "source": {"game": pos["game"], "turn": pos["turn"], "styles": pos["styles"]},
            "pips": list(pips(b))}


# --------------------------------------------------------------------------- gnubg runner

#: The program's depth for the cube decisions (``--plies``): 0, or N plies with its
#: pruning nets on (its default, as ``gnubg:N``), cubeful, as its ``hint`` before the roll.
PLIES = 0


def preamble() -> str:
    deeper = "" if not PLIES else ("set evaluation cubedecision evaluation prune on\n"
                                   "set evaluation cubedecision evaluation cubeful on\n")
    return ("set player 0 human\nset player 1 human\nset evaluation chequerplay evaluation plies 0\n"
            f"set evaluation cubedecision evaluation plies {PLIES}\n{deeper}"
            "set output digits 5\nset output mwc on\nset display off\n")

# gnubg answers the marker command `@@C<case>_<SECTION>` with "Unknown keyword `...'.";
# searched anywhere in a line: some gnubg messages (e.g. of `set score`) end without a newline.
MARK_RE = re.compile(r"Unknown keyword `@@C(\d+)_([A-Z]+)'\.[ \t]*\n?")


def split_sections(out):
    """{case: {section: text}} from gnubg's output cut at the markers."""
    sections = collections.defaultdict(dict)
    marks = list(MARK_RE.finditer(out))
    for k, mk in enumerate(marks):
        end = marks[k + 1].start() if k + 1 < len(marks) else len(out)
        sections[int(mk.group(1))][mk.group(2)] = out[mk.end():end]
    return dict(sections)


def case_commands(case):
    n = case["case"]
    return (f"@@C{n}_SET\n"
            f"set beavers {3 if case['state']['beavers'] else 0}\n"
            f"set gnubgid {case['position_id']}:{case['sent_match_id']}\n"
            f"@@C{n}_BOARD\n"
            "show board\n"
            f"@@C{n}_HINT\n"
            "clear hint\n"
            "hint\n"
            f"@@C{n}_EVAL\n"
            "eval\n"
            f"@@C{n}_END\n")


def run_chunk(cases, timeout, home, commands=case_commands):
    """Run one gnubg process over *cases* (each fed to gnubg as *commands*(case) gives it);
    returns ({case: {section: text}}, error or None)."""
    script = preamble() + "".join(commands(c) for c in cases) + "quit\ny\n"
    env = dict(os.environ, HOME=home, LANG="C", LC_ALL="C")
    try:
        proc = subprocess.run(["stdbuf", "-o0", "-e0", GNUBG, "-t", "-q"], input=script, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout, env=env)
        out, err = proc.stdout, None
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        err = f"timeout after {timeout}s"
    return split_sections(out), err


def run_all(cases, jobs, chunk, timeout, home, log, retry=True, commands=case_commands):
    chunks = [cases[i:i + chunk] for i in range(0, len(cases), chunk)]
    results, errors = {}, []
    t0 = time.time()
    with cf.ThreadPoolExecutor(max_workers=jobs) as ex:
        futs = {ex.submit(run_chunk, ch, timeout, home, commands): ch for ch in chunks}
        done = 0
        for fut in cf.as_completed(futs):
            ch = futs[fut]
            sec, err = fut.result()
            if err:
                errors.append(f"chunk of cases {ch[0]['case']}..{ch[-1]['case']}: {err}")
            results.update(sec)
            done += 1
            log(f"  gnubg chunk {done}/{len(chunks)} done ({time.time() - t0:.1f}s)")
    if retry:
        # one retry, one case per process, for any case whose output is incomplete
        missing = [c for c in cases if "END" not in results.get(c["case"], {})]
        if missing:
            log(f"retrying {len(missing)} cases with incomplete output, one per gnubg process")
            res2, err2 = run_all(missing, jobs, 1, 60, home, log, retry=False, commands=commands)
            results.update(res2)
            errors += [f"(retry) {e}" for e in err2]
    return results, errors


# --------------------------------------------------------------------------- parsing

NUM = r"[+-]?\s*\d+\.\d+"
BOARD_HDR_RE = re.compile(r"GNU Backgammon\s+Position ID:\s*(\S+)")
BOARD_MID_RE = re.compile(r"^\s+Match ID\s*:\s*(\S+)", re.M)


class ParseError(Exception):
    pass


def fnum(s):
    return float(s.replace(" ", ""))


def parse_ascii_board(lines, on_roll):
    """The (2, 25) board (row 1 = side on roll) and borne-off counts read from gnubg's diagram."""
    h = None
    for i, line in enumerate(lines):
        if re.match(r"^ \+(13|12)-", line):
            h = i
            break
    if h is None or h + 12 >= len(lines):
        raise ParseError("no board diagram")
    header, footer, barline = lines[h], lines[h + 12], lines[h + 6]
    if "|BAR|" not in barline:
        raise ParseError("diagram without a BAR line")
    cols_top = {m.end() - 1: int(m.group()) for m in re.finditer(r"\d+", header[:45])}
    cols_bot = {m.end() - 1: int(m.group()) for m in re.finditer(r"\d+", footer[:45])}
    bar_col = barline.index("|BAR|") + 2
    top = [lines[h + 1 + y].ljust(48) for y in range(5)]  # edge first, then the count row
    bot = [lines[h + 11 - y].ljust(48) for y in range(4)] + [lines[h + 7].ljust(48)]

    def stack(rows, col):
        owner, n = None, 0
        for y in range(4):
            c = rows[y][col]
            if c in "XO":
                if owner not in (None, c):
                    raise ParseError("mixed column")
                owner, n = c, n + 1
            elif c != " ":
                raise ParseError(f"odd char {c!r}")
        c = rows[4][col]
        if c in "XO":
            owner, n = c, n + 1
        elif c in "6789ABCDEF":
            n = int(c, 16)
        elif c != " ":
            raise ParseError(f"odd count char {c!r}")
        return owner, n

    roller = "X" if on_roll == 1 else "O"
    board = np.zeros((2, 25), dtype=np.int64)
    for rows, cols in ((top, cols_top), (bot, cols_bot)):
        for col, p in cols.items():
            owner, n = stack(rows, col)
            if n == 0:
                continue
            if owner == roller:
                board[1, p - 1] += n
            else:
                board[0, 24 - p] += n
    # bar: O (player 0) in the top half, X (player 1) in the bottom half
    _, o_bar = stack(top, bar_col)
    _, x_bar = stack(bot, bar_col)
    board[1 if roller == "O" else 0, 24] = o_bar
    board[1 if roller == "X" else 0, 24] = x_bar
    o_off = sum(r[45:48].count("O") for r in top)
    x_off = sum(r[45:48].count("X") for r in bot)
    on_roll_top = any("On roll" in r for r in top)
    on_roll_bot = any("On roll" in r for r in bot)
    return board, {"O": o_off, "X": x_off}, on_roll_top, on_roll_bot


def parse_board_section(text, case):
    m = BOARD_HDR_RE.search(text)
    m2 = BOARD_MID_RE.search(text)
    if not m or not m2:
        raise ParseError("show board: no Position ID / Match ID")
    pid, mid = m.group(1), m2.group(1)
    on_roll = case["state"]["on_roll"]
    board, off, top, bot = parse_ascii_board(text.splitlines(), on_roll)
    want = np.array(case["board"])
    problems = []
    if pid != case["position_id"]:
        problems.append(f"gnubg shows Position ID {pid}, sent {case['position_id']}")
    if mid != case["sent_match_id"]:
        problems.append(f"gnubg shows Match ID {mid}, sent {case['sent_match_id']}")
    if not np.array_equal(board, want):
        problems.append("diagram differs from the board meant")
    roller = "X" if on_roll == 1 else "O"
    if off[roller] != 15 - want[1].sum() or off["X" if roller == "O" else "O"] != 15 - want[0].sum():
        problems.append(f"diagram off counts {off} differ")
    if (on_roll == 0) != top or (on_roll == 1) != bot:
        problems.append("'On roll' drawn on the wrong side")
    st = parse_match_id(mid)
    s = case["state"]
    if (st.on_roll, st.cube_value, st.cube_owner, st.match_length, list(st.score), st.crawford) != (
            s["on_roll"], s["cube_value"], s["cube_owner"], s["match_length"], s["score"], s["crawford"]):
        problems.append("gnubg's Match ID decodes to another state")
    if st.dice != (0, 0) or st.doubled:
        problems.append("dice set or double pending")
    if problems:
        raise ParseError("; ".join(problems))
    return mid


CUBELESS_RE = re.compile(
    r"^(\d+)-ply cubeless (equity|MWC)\s+(" + NUM + r")(%?)(?: \(Money:\s*(" + NUM + r")\))?\s*$")
PROBS_RE = re.compile(r"^\s+(\d\.\d+) (\d\.\d+) (\d\.\d+) - (\d\.\d+) (\d\.\d+) (\d\.\d+)\s*$")
CUBEFUL_RE = re.compile(r"^([123])\. (No double|Double, take|Double, pass)\s+(" + NUM + r")(%?)"
                        r"(?:\s+\(\s*(" + NUM + r")%?\))?\s*$")
ACTION_RE = re.compile(r"^Proper cube action: (.+?)(?: \((\d+\.\d+)%\))?\s*$")
CANNOT = "You cannot double."


def parse_hint(text, match):
    lines = [l for l in text.splitlines()]
    stripped = [l.strip() for l in lines]
    if CANNOT in stripped and "Cube analysis" not in stripped:
        return {"can_double": False, "action": CANNOT}
    if "Cube analysis" not in stripped:
        raise ParseError("hint: neither 'Cube analysis' nor 'You cannot double.'")
    start = stripped.index("Cube analysis")
    body = lines[start:]
    r = {"can_double": True}
    m = CUBELESS_RE.match(body[1]) if len(body) > 1 else None
    if not m:
        raise ParseError(f"hint: cubeless line {body[1:2]!r}")
    r["ply"] = int(m.group(1))
    if (m.group(2) == "MWC") != bool(match) or (m.group(4) == "%") != bool(match):
        raise ParseError("hint: equity/MWC units do not fit the state")
    r["cubeless_equity"] = fnum(m.group(3))
    r["cubeless_money_equity"] = fnum(m.group(5)) if m.group(5) else r["cubeless_equity"]
    if match and not m.group(5):
        raise ParseError("hint: match play without '(Money: ...)'")
    m = PROBS_RE.match(body[2]) if len(body) > 2 else None
    if not m:
        raise ParseError(f"hint: probability line {body[2:3]!r}")
    six = [float(x) for x in m.groups()]
    r["probs_printed"] = six
    r["probs"] = [six[0], six[1], six[2], six[4], six[5]]
    if body[3].strip() != "Cubeful equities:":
        raise ParseError("hint: no 'Cubeful equities:'")
    order, vals = [], {}
    for i in range(3):
        m = CUBEFUL_RE.match(body[4 + i]) if len(body) > 4 + i else None
        if not m or int(m.group(1)) != i + 1:
            raise ParseError(f"hint: cubeful line {body[4 + i:5 + i]!r}")
        if (m.group(4) == "%") != bool(match):
            raise ParseError("hint: cubeful units do not fit the state")
        order.append(m.group(2))
        vals[m.group(2)] = fnum(m.group(3))
    if len(vals) != 3:
        raise ParseError("hint: repeated cubeful label")
    r["no_double"], r["double_take"], r["double_pass"] = vals["No double"], vals["Double, take"], vals["Double, pass"]
    r["cubeful_order"] = order
    m = ACTION_RE.match(body[7]) if len(body) > 7 else None
    if not m:
        raise ParseError(f"hint: action line {body[7:8]!r}")
    r["action"] = m.group(1)
    r["action_percent"] = float(m.group(2)) if m.group(2) else None
    r["action_line"] = body[7].strip()
    return r


def action_consistent(r, match, cube_owner):
    """Whether the printed action fits the three printed values (gnubg's FindBestCubeDecision
    and getPercent, with slack for the 5-digit rounding). Returns an error string or None."""
    nd, dt, dp = r["no_double"], r["double_take"], r["double_pass"]
    tol = 2e-3 if match else 2e-5  # MWC values are printed in percent to 4 decimals
    a = r["action"]
    gammons = r["probs"][1] > 0
    if a.startswith(("Double, take", "Redouble, take", "Optional double, take", "Optional redouble, take",
                     "Double, beaver", "Optional double, beaver")):
        ok = dp >= dt - tol and dt >= nd - tol
        if "Optional" in a:
            ok = ok and abs(dt - nd) <= tol
    elif a.startswith(("Double, pass", "Redouble, pass", "Optional double, pass", "Optional redouble, pass")):
        ok = dt >= dp - tol and (dp >= nd - tol or not gammons)
    elif a.startswith(("Too good to double, pass", "Too good to redouble, pass")):
        ok = nd >= dp - tol and dt >= dp - tol and gammons
        # gnubg prints a percentage only when DT >= ND (its case 3), none when ND > DT (case 1)
        ok = ok and (dt >= nd - tol if r["action_percent"] is not None else nd >= dt - tol)
    elif a.startswith(("Too good to double, take", "Too good to redouble, take")):
        ok = nd >= dp - tol and dp >= dt - tol and gammons
    elif a.startswith(("No double", "No redouble")):
        ok = nd >= min(dt, dp) - tol and (nd <= dp + tol or not gammons)
        if a.endswith("beaver"):
            ok = ok and not match and -2 - tol <= dt <= tol
    else:
        return f"unknown action {a!r}"
    if not ok:
        return f"action {a!r} does not fit ND {nd} DT {dt} DP {dp}"
    pct = r["action_percent"]
    if pct is None and a.startswith(("No double", "No redouble")):
        return f"no percentage after {a!r}: gnubg prints one after every No (re)double"
    if pct is not None and not a.startswith(("No double", "No redouble", "Too good to double, pass",
                                             "Too good to redouble, pass")):
        return f"a percentage after {a!r}"
    if pct is not None:
        if a.startswith(("No double", "No redouble")):
            want = (nd - dt) / (dp - dt)
        elif a.startswith("Too good"):
            want = (nd - dp) / (dt - dp)
        else:
            return f"a percentage after {a!r}"
        if abs(100 * want - pct) > 0.15 + 100 * tol / max(abs(dp - dt), 1e-9):
            return f"percentage {pct} does not fit {100 * want:.2f}"
    return None


EVAL_ROW_RE = re.compile(r"^static:\s+(\d\.\d+)\s+(\d\.\d+)\s+(\d\.\d+)\s+(\d\.\d+)\s+(\d\.\d+)\s+"
                         r"(" + NUM + r")(%?)\s+(" + NUM + r")(%?)\s*$")


def parse_eval(text, match):
    ev = re.search(r"^Evaluator:\s*(.+?)\s*$", text, re.M)
    rows = [EVAL_ROW_RE.match(l) for l in text.splitlines()]
    rows = [m for m in rows if m]
    if not ev or len(rows) != 1:
        raise ParseError("eval: no evaluator line or not exactly one 'static:' row")
    m = rows[0]
    if (m.group(7) == "%") != bool(match) or (m.group(9) == "%") != bool(match):
        raise ParseError("eval: units do not fit the state")
    return {"evaluator": ev.group(1), "probs": [float(m.group(i)) for i in range(1, 6)],
            "cubeless": fnum(m.group(6)), "cubeful": fnum(m.group(8))}


def may_double(s):
    """Whether the side on roll may double (gnubg's GetDPEq): it has access to the cube and,
    in a match, it is not the Crawford game, it is not the post-Crawford leader, and its
    score plus the cube value is short of the match length (else the cube is dead)."""
    if s["cube_owner"] not in (None, s["on_roll"]):
        return False
    if not s["match_length"]:
        return True
    mine = s["score"][s["on_roll"]]
    return (not s["crawford"] and not (s["post_crawford"] and mine == s["match_length"] - 1)
            and mine + s["cube_value"] < s["match_length"])


def finish_case(case, sections):
    """Parse and validate one case in place; returns an error string or None."""
    if not sections or not all(k in sections for k in ("SET", "BOARD", "HINT", "EVAL", "END")):
        return f"missing output sections (got {sorted(sections or {})})"
    match = case["state"]["match_length"] > 0
    want = ("3 beavers/raccoons allowed in money sessions." if case["state"]["beavers"]
            else "No beavers allowed in money sessions.")
    if want not in sections["SET"]:
        return f"`set beavers` did not answer {want!r}"
    try:
        case["match_id"] = parse_board_section(sections["BOARD"], case)
        hint_text = sections["HINT"].strip("\n")
        hint_text = "\n".join(l for l in hint_text.splitlines()
                              if l.strip() != "Analysis used for `hint' has been cleared")
        case["raw"] = hint_text.strip("\n")
        case["raw_eval"] = sections["EVAL"].strip("\n")
        h = parse_hint(case["raw"], match)
        e = parse_eval(case["raw_eval"], match)
    except ParseError as exc:
        return str(exc)
    case.update(h)
    case["eval"] = e
    case["units"] = "mwc_percent" if match else "money"
    if not h["can_double"]:
        # gnubg gives no cube analysis: keep the evaluation's numbers, no cubeful triple
        case["probs"] = e["probs"]
        case["cubeless_equity"] = e["cubeless"]
        case["probs_source"] = "eval"
        for k in ("no_double", "double_take", "double_pass", "action_percent", "ply"):
            case.setdefault(k, None)
    else:
        case["probs_source"] = "hint"
    # ---- validation
    if h["can_double"] != may_double(case["state"]):
        return f"gnubg says can_double={h['can_double']}, the rules say {may_double(case['state'])}"
    need = ["position_id", "match_id", "board", "state", "probs", "cubeless_equity", "action", "raw"]
    if h["can_double"]:
        need += ["no_double", "double_take", "double_pass"]
    missing = [k for k in need if case.get(k) is None]
    if missing:
        return f"fields missing: {missing}"
    p = case["probs"]
    if len(p) != 5 or not (0 <= p[0] <= 1 and p[2] <= p[1] <= 1 and p[4] <= p[3] <= 1):
        return f"odd probabilities {p}"
    if h["can_double"]:
        if abs(h["probs_printed"][0] + h["probs_printed"][3] - 1) > 2e-5:
            return "win + lose != 1"
        if not PLIES and max(abs(a - b) for a, b in zip(h["probs"], e["probs"])) > 1.5e-5:  # eval: 0 ply
            return f"hint and eval probabilities differ: {h['probs']} vs {e['probs']}"
        if not match and h["double_pass"] != 1.0:
            return f"money Double, pass is {h['double_pass']}, not +1"
        if h["ply"] != PLIES:
            return f"hint was at {h['ply']} ply, not {PLIES}"
        redouble = case["state"]["cube_owner"] is not None
        if redouble != ("edouble" in h["action"]):
            return f"action {h['action']!r} does not fit the cube owner"
        err = action_consistent(h, match, case["state"]["cube_owner"])
        if err:
            return err
        if h["action"].endswith("beaver") and not case["state"]["beavers"]:
            return "a beaver where beavers are off"
    return None


# --------------------------------------------------------------------------- selection


def decision_class(h):
    a = h.get("action", "")
    if a.startswith("Too good"):
        return "toogood"
    if a.startswith("Double, pass") or a.startswith("Redouble, pass"):
        return "double_pass"
    if a.startswith("Double, take") or a.startswith("Double, beaver") or a.startswith("Redouble, take"):
        return "double_take"
    return "no_double"


def select_positions(rng, pool, n):
    """Pick n pre-screened positions: quotas by decision class first, then by category."""
    chosen, used, report = [], set(), {}

    def take(pred, k, label=None):
        k = max(0, min(k, n - len(chosen)))
        idx = [i for i, p in enumerate(pool) if i not in used and pred(p)]
        rng.shuffle(idx)
        for i in idx[:k]:
            used.add(i)
            chosen.append(pool[i])
        if label:
            report[label] = {"wanted": k, "available": len(idx), "taken": min(k, len(idx))}

    pool = [p for p in pool if p.get("screen")]
    take(lambda p: p["category"] == "opening" and p["turn"] == 0, 1)  # the starting position
    take(lambda p: decision_class(p["screen"]) == "toogood" and not p["category"].startswith("bearoff"), int(0.08 * n), "toogood")
    take(lambda p: decision_class(p["screen"]) == "toogood" and p["category"].startswith("bearoff"), int(0.03 * n), "toogood/bearoff")
    # near the take point: Double, take and Double, pass within 0.1 (money, cube centred)
    take(lambda p: abs(p["screen"]["double_take"] - p["screen"]["double_pass"]) < 0.10, int(0.12 * n), "near take point")
    take(lambda p: decision_class(p["screen"]) == "double_take", int(0.10 * n), "double_take")
    take(lambda p: decision_class(p["screen"]) == "double_pass", int(0.06 * n), "double_pass")
    # near the doubling point: No double and Double, take within 0.05
    take(lambda p: abs(p["screen"]["no_double"] - p["screen"]["double_take"]) < 0.05, int(0.06 * n), "near doubling point")
    rest = n - len(chosen)
    cats = list(POOL_SHARES)
    shares = np.array([POOL_SHARES[c] for c in cats])
    quota = {c: int(round(rest * s / shares.sum())) for c, s in zip(cats, shares)}
    for c in cats:
        take(lambda p, c=c: p["category"] == c, quota[c], c)
    take(lambda p: True, n - len(chosen))
    assert len(chosen) == min(n, len(pool)), (len(chosen), n)
    return chosen, report


# --------------------------------------------------------------------------- main


def main(argv=None):
    global GNUBG, PLIES
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="cases.json")
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--positions", type=int, default=200, help="positions (each gets every state)")
    ap.add_argument("--jobs", type=int, default=max(1, os.cpu_count() or 1))
    ap.add_argument("--pool-factor", type=float, default=12.0, help="candidate positions pre-screened per position kept")
    ap.add_argument("--chunk", type=int, default=150, help="cases per gnubg process")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per gnubg process")
    ap.add_argument("--gnubg", default=GNUBG)
    ap.add_argument("--summary", default=None, help="also write a summary JSON here (default: <out>.summary.json)")
    ap.add_argument("--plies", type=int, default=0, help="the program's depth for the cube decisions (pruning nets off)")
    args = ap.parse_args(argv)
    GNUBG = args.gnubg
    PLIES = args.plies
    t_start = time.time()

    def log(msg):
        print(f"[{time.time() - t_start:7.1f}s] {msg}", file=sys.stderr, flush=True)

    home = tempfile.mkdtemp(prefix="gnubg-home-")  # fresh settings: no ~/.gnubg leaks in
    rng = np.random.default_rng(args.seed)

    pool_size = int(args.positions * args.pool_factor)
    pool, games, counts = build_pool(rng, pool_size)
    log(f"pool: {len(pool)} positions from {games} games: {dict(counts)}")

    # pre-screen: money, cube centred, player 1 on roll
    screen_cases = [make_case(i, p, PRESCREEN_STATE, 1) for i, p in enumerate(pool)]
    res, errs = run_all(screen_cases, args.jobs, args.chunk, args.timeout, home, log)
    bad_screen = 0
    for c, p in zip(screen_cases, pool):
        err = finish_case(c, res.get(c["case"]))
        if err or not c.get("can_double"):
            bad_screen += 1
            continue
        p["screen"] = {k: c[k] for k in ("probs", "no_double", "double_take", "double_pass", "action")}
    log(f"pre-screen: {len(pool) - bad_screen} ok, {bad_screen} failed {errs}")

    positions, selection = select_positions(rng, pool, args.positions)
    log(f"selection quotas: {selection}")
    log(f"selected {len(positions)} positions: {dict(collections.Counter(p['category'] for p in positions))}")

    cases = []
    for p in positions:
        for st in STATES:
            cases.append(make_case(len(cases), p, st, int(rng.integers(2))))
    log(f"{len(cases)} cases; running gnubg with {args.jobs} jobs")
    t_gnubg = time.time()
    res, run_errors = run_all(cases, args.jobs, args.chunk, args.timeout, home, log)
    gnubg_seconds = time.time() - t_gnubg

    failures = []
    out = []
    for c in cases:
        err = finish_case(c, res.get(c["case"]))
        if err:
            failures.append({"case": c["case"], "kind": c["kind"], "position_id": c["position_id"],
                             "match_id": c["sent_match_id"], "error": err})
        else:
            out.append(c)

    with open(args.out, "w") as f:  # one record per line: valid JSON, easy to grep
        f.write("[\n" + ",\n".join(json.dumps(c, separators=(",", ":")) for c in out) + "\n]\n")
    summary = {
        "seed": args.seed, "positions": len(positions), "cases_built": len(cases), "cases_written": len(out),
        "failures": failures, "run_errors": run_errors,
        "full_cube_decisions": sum(1 for c in out if c["can_double"]),
        "cannot_double": sum(1 for c in out if not c["can_double"]),
        "by_kind": dict(sorted(collections.Counter(c["kind"] for c in out).items())),
        "by_action": dict(collections.Counter(c["action"] for c in out).most_common()),
        "by_category": dict(collections.Counter(c["position_category"] for c in out).most_common()),
        "by_evaluator": dict(collections.Counter(c["eval"]["evaluator"] for c in out).most_common()),
        "pool": {"size": len(pool), "games": games, "by_category": dict(counts),
                 "prescreen_actions": dict(collections.Counter(p["screen"]["action"] for p in pool if p.get("screen")))},
        "selection": selection,
        "gnubg_seconds": round(gnubg_seconds, 1), "total_seconds": round(time.time() - t_start, 1),
        "jobs": args.jobs,
        "gnubg_version": subprocess.run([GNUBG, "--version"], capture_output=True, text=True).stdout.splitlines()[0],
        "argv": sys.argv,
    }
    with open(args.summary or (os.path.splitext(args.out)[0] + ".summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    shutil.rmtree(home, ignore_errors=True)
    log(f"wrote {len(out)} cases to {args.out}; {len(failures)} failures; "
        f"gnubg {gnubg_seconds:.1f}s, total {time.time() - t_start:.1f}s")
    for fl in failures[:20]:
        log(f"  FAIL {fl}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
