"""Plain-text match files in the JellyFish / GNU Backgammon ``.mat`` layout.

The layout (not formally specified; this follows the common export)::

     3 point match

     Game 1
     Alice : 0                        Bob : 0
      1)                             52: 13/8 13/11
      2) 31: 8/5 6/5                 Doubles => 2
      3) Takes                       64: 24/18 13/9
     ...
     12) 62: 6/off 2/off
          Wins 1 point

Player 0 is the left column, player 1 the right one; actions alternate left, right,
left ... (a take or drop answers a double, so the doubler's roll follows in its own
column). A roll is written ``d1d2:`` followed by the play (nothing when no move is
possible); the last line of a game says who won how many points. Point numbers in a
play are the mover's (bar/25, off/0, hits marked ``*``).

The reader is tolerant about spacing, accepts ``bar``/``25``, ``off``/``0``, chains
(``24/18/13``), repeats (``8/5(2)``) and ``Accepts``/``Passes``, replays every game
through :class:`~fastgen.game.Game` (so each play is checked) and raises
:class:`~fastgen.errors.MatFileError` quoting the line on any problem.
"""

from __future__ import annotations

import os
import re

import numpy as np

from fastgen.errors import FastgenError, IllegalActionError, MatFileError
from fastgen.game import Game
from fastgen.match import Match

__all__ = ["write_mat", "read_mat", "play_text", "match_play_text"]

_LEFT_WIDTH = 30  # width of the left column after "NNN) "
_RIGHT_THRESHOLD = 20  # an entry starting further right than this belongs to player 1


# --------------------------------------------------------------------------- play text


def play_text(board, dice, moves_row, board_after) -> str:
    """Text of one play, e.g. ``"8/5 6/5"``; empty for a lost turn (R14).

    Uses :class:`fastgen.notation.Play` when it is available, else a minimal formatter
    writing each step as ``from/to`` (``bar``, ``off``, ``*`` for a hit).
    """
    try:
        from fastgen.notation import Play
    except ImportError:
        return _plain_play_text(board, moves_row)
    text = str(Play.from_arrays(board, dice, moves_row, board_after))
    return _plain_play_text(board, moves_row) if text.strip().lower() in ("", "-", "cannot move") else text


def _plain_play_text(board, moves_row) -> str:
    opp = np.array(board[0], dtype=np.int16)
    parts = []
    for src, dst in np.asarray(moves_row).tolist():
        if src < 0:
            break
        hit = False
        if 1 <= dst <= 24 and opp[24 - dst] == 1:  # my point p is the opponent's index 24-p
            opp[24 - dst] = 0
            opp[24] += 1
            hit = True
        s = "bar" if src == 25 else str(src)
        d = "off" if dst == 0 else str(dst)
        parts.append(f"{s}/{d}{'*' if hit else ''}")
    return " ".join(parts)


_POINT_RE = re.compile(r"(bar|off|\d+)(\*?)\Z")


def match_play_text(board, dice, plays, text: str) -> int:
    """Index in *plays* of the play described by *text*; ValueError if none or several.

    The text is read as moves of checkers (``13/8 13/11``, ``24/18*/13``, ``8/5(2)``,
    ``bar/20``, ``25/20``, ``6/off``, ``6/0``); the play is the legal one producing the
    same position, hits (``*``) deciding between plays that differ only by a hit.
    """
    board = np.asarray(board, dtype=np.int8)
    mine = board[1].astype(np.int16)
    opp = board[0].astype(np.int16)
    cleaned = text.strip().lower()
    if cleaned in ("", "-", "cannot move", "can't move", "no move", "dances"):
        tokens = []
    else:
        tokens = cleaned.replace(",", " ").split()
    for token in tokens:
        repeat = 1
        m = re.fullmatch(r"(.*)\((\d)\)", token)
        if m:
            token, repeat = m.group(1), int(m.group(2))
        elements = token.split("/")
        if len(elements) < 2:
            raise ValueError(f"cannot read {token!r} in {text!r} as a move")
        points = []
        for element in elements:
            em = _POINT_RE.match(element)
            if not em:
                raise ValueError(f"cannot read {element!r} in {text!r} as a point")
            word, star = em.groups()
            p = 25 if word == "bar" else 0 if word == "off" else int(word)
            if not 0 <= p <= 25:
                raise ValueError(f"point {p} out of range in {text!r}")
            points.append((p, bool(star)))
        for _ in range(repeat):
            src, dst = points[0][0], points[-1][0]
            if src == 0 or dst == 25:
                raise ValueError(f"a move cannot start off the board or end on the bar: {token!r}")
            mine[24 if src == 25 else src - 1] -= 1
            if dst:
                mine[dst - 1] += 1
            for p, star in points[1:]:
                if star and 1 <= p <= 24:
                    opp[24 - p] -= 1
                    opp[24] += 1
    same_mine = (plays.boards[:, 1] == mine).all(axis=1)
    candidates = np.flatnonzero(same_mine)
    if candidates.size > 1:
        exact = candidates[(plays.boards[candidates, 0] == opp).all(axis=1)]
        candidates = exact if exact.size else candidates
    if candidates.size == 0:
        raise ValueError(f"no legal play of {tuple(dice)!r} matches {text!r}")
    if candidates.size > 1:
        raise ValueError(f"{text!r} is ambiguous between {candidates.size} legal plays")
    return int(candidates[0])


# --------------------------------------------------------------------------- writing


def _game_entries(game: Game) -> list[tuple[int, str]]:
    """(player, text) of each column entry of *game*, replaying its record."""
    walker = Game(cube_cap=game.cube_cap, crawford=game.crawford, jacoby=game.jacoby)
    entries = []
    roll = None
    for kind, player, data in game.record:
        if kind in ("opening", "roll"):
            dice = walker.roll(tuple(data), player=None if kind == "opening" else player)
            roll = f"{dice[0]}{dice[1]}:"
        elif kind == "play":
            plays = walker.legal_plays()
            after = np.frombuffer(data, dtype=np.int8).reshape(2, 25)
            k = int(np.flatnonzero((plays.boards == after).all(axis=(1, 2)))[0])
            text = play_text(walker.board, walker.dice, plays.moves[k], plays.boards[k])
            entries.append((player, f"{roll} {text}".rstrip()))
            walker.play(after, player=player)
        elif kind == "double":
            walker.double(player=player)
            entries.append((player, f"Doubles => {data}"))
        elif kind == "take":
            walker.take(player=player)
            entries.append((player, "Takes"))
        elif kind == "drop":
            walker.drop(player=player)
            entries.append((player, "Drops"))
    if roll is not None and walker.dice is not None:  # rolled but not played yet
        entries.append((walker.turn, roll))
    return entries


def _format_line(number, left, right) -> str:
    prefix = f"{number:3d}) " if number is not None else "     "
    left = left or ""
    if right and len(left) >= _LEFT_WIDTH:
        left += " "  # a long left entry still needs a gap before the right column
    return (prefix + f"{left:<{_LEFT_WIDTH}}" + (right or "")).rstrip()


def write_mat(match: Match, path=None) -> str:
    """Return *match* as ``.mat`` text; also write it to *path* when given."""
    lines = [f" {match.length} point match", ""]
    for index, game in enumerate(match.games):
        s0, s1 = match.scores_before(index)
        lines.append(f" Game {index + 1}")
        lines.append(f" {match.names[0]} : {s0}".ljust(_LEFT_WIDTH + 5) + f" {match.names[1]} : {s1}")
        number = 0
        cur = [None, None]

        def flush():
            nonlocal number, cur
            if cur != [None, None]:
                number += 1
                lines.append(_format_line(number, cur[0], cur[1]))
            cur = [None, None]

        for player, text in _game_entries(game):
            if cur[player] is not None or (player == 0 and cur[1] is not None):
                flush()
            cur[player] = text
            if player == 1:
                flush()
        flush()
        if game.over:
            unit = "point" if game.points == 1 else "points"
            text = f"Wins {game.points} {unit}"
            if match.length and index == len(match.games) - 1 and match.over:
                text += " and the match"
            lines.append(_format_line(None, text if game.winner == 0 else None, text if game.winner == 1 else None))
        lines.append("")
    text = "\n".join(lines) + "\n"
    if path is not None:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    return text


# --------------------------------------------------------------------------- reading

_LENGTH_RE = re.compile(r"^\s*(\d+)\s+point\s+match\s*$", re.I)
_GAME_RE = re.compile(r"^\s*Game\s+(\d+)\s*$", re.I)
_TWO_SCORES_RE = re.compile(r"^\s*(.+?)\s*:\s*(\d+)\s+(.+?)\s*:\s*(\d+)\s*$")
_ONE_SCORE_RE = re.compile(r"^\s*(.+?)\s*:\s*(\d+)\s*$")
_NUMBERED_RE = re.compile(r"^\s*(\d+)\)(.*)$")
_ENTRY_START_RE = re.compile(r"\d\d:|Doubles|Takes|Drops|Accepts|Passes|Rejects|Beavers|Wins", re.I)
_WINS_RE = re.compile(r"Wins\s+(\d+)\s+points?", re.I)


def _split_entries(content: str) -> list[tuple[int, str]]:
    """Split the text after ``N)`` (or a whole unnumbered line) into (column, entry)."""
    starts = [m.start() for m in _ENTRY_START_RE.finditer(content)]
    out = []
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(content)
        column = 1 if (i > 0 or start > _RIGHT_THRESHOLD) else 0
        out.append((column, content[start:end].strip()))
    return out


def read_mat(source) -> Match:
    """Read a ``.mat`` match from text or from a file path; returns a finished-as-recorded
    :class:`Match` whose games were replayed (every play checked).
    """
    if isinstance(source, (str, os.PathLike)) and "\n" not in str(source) and os.path.exists(source):
        with open(source, encoding="utf-8") as fh:
            text = fh.read()
    elif isinstance(source, str):
        text = source
    else:
        raise MatFileError(f"read_mat needs .mat text or a path to an existing file, got {source!r}")
    lines = text.splitlines()
    length = None
    names = None
    games: list[tuple[int, tuple[int, int], list]] = []  # (line no, scores, [(lineno, line, col, entry)])
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if not stripped or stripped.startswith(";"):
            i += 1
            continue
        if length is None:
            m = _LENGTH_RE.match(line)
            if not m:
                raise MatFileError(f"line {i + 1}: expected 'N point match', got {line!r}")
            length = int(m.group(1))
            i += 1
            continue
        m = _GAME_RE.match(line)
        if m:
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            header = lines[j] if j < len(lines) else ""
            hm = _TWO_SCORES_RE.match(header)
            if hm:
                game_names = (hm.group(1), hm.group(3))
                scores = (int(hm.group(2)), int(hm.group(4)))
                j += 1
            else:
                h1 = _ONE_SCORE_RE.match(header)
                h2 = _ONE_SCORE_RE.match(lines[j + 1]) if j + 1 < len(lines) else None
                if not (h1 and h2):
                    raise MatFileError(f"line {j + 1}: expected 'name : score  name : score', got {header!r}")
                game_names = (h1.group(1), h2.group(1))
                scores = (int(h1.group(2)), int(h2.group(2)))
                j += 2
            names = names or game_names
            games.append((i + 1, scores, []))
            i = j
            continue
        if not games:
            raise MatFileError(f"line {i + 1}: expected 'Game 1', got {line!r}")
        nm = _NUMBERED_RE.match(line)
        content = nm.group(2) if nm else line[5:] if line.startswith("     ") else line
        entries = _split_entries(content)
        if not entries:
            raise MatFileError(f"line {i + 1}: cannot read {line!r}")
        for column, entry in entries:
            games[-1][2].append((i + 1, line, column, entry))
        i += 1
    if length is None:
        raise MatFileError(f"no 'N point match' header in {text[:80]!r}")
    match = Match(length, names=names or ("Player 0", "Player 1"))
    for game_line, scores, entries in games:
        if match.score != scores:
            raise MatFileError(
                f"line {game_line}: the game starts at {scores[0]}-{scores[1]} but the games before "
                f"give {match.score[0]}-{match.score[1]}"
            )
        try:
            game = match.new_game()
        except IllegalActionError as exc:
            raise MatFileError(f"line {game_line}: {exc}") from None
        declared = None
        for lineno, line, column, entry in entries:
            try:
                declared = _apply_entry(game, column, entry) or declared
            except (FastgenError, ValueError) as exc:
                raise MatFileError(f"line {lineno}: {line.strip()!r}: {exc}") from None
        if declared is not None:
            winner, points = declared
            if not game.over:
                raise MatFileError(
                    f"game starting at line {game_line}: player {winner} wins {points} by resignation, "
                    "which fastgen does not record"
                )
            if (game.winner, game.points) != (winner, points):
                raise MatFileError(
                    f"game starting at line {game_line}: the file says player {winner} wins {points}, "
                    f"the replay gives player {game.winner} winning {game.points}"
                )
    return match


def _read_play(game: Game, text: str) -> np.ndarray:
    """The board after the play *text* describes: fastgen's notation parser first, then
    the tolerant reader of :func:`match_play_text` for the variants other programs write."""
    plays = game.legal_plays()
    try:
        from fastgen.validate import parse_play

        return parse_play(game.board, game.dice, text, plays=plays).board_after
    except (ImportError, FastgenError, ValueError):
        pass
    return plays.boards[match_play_text(game.board, game.dice, plays, text)]


def _apply_entry(game: Game, player: int, entry: str):
    """Apply one column entry to *game*; return (winner, points) for a 'Wins' entry."""
    m = _WINS_RE.match(entry)
    if m:
        return player, int(m.group(1))
    word = entry.split()[0].lower()
    if word == "doubles":
        game.double(player=player)
    elif word in ("takes", "accepts"):
        game.take(player=player)
    elif word in ("drops", "passes", "rejects"):
        game.drop(player=player)
    elif re.match(r"\d\d:", entry):
        d1, d2 = int(entry[0]), int(entry[1])
        moves = entry[3:].strip()
        if game.turn is None:  # the opening roll: the starter's die is the higher one (R16)
            if d1 == d2:
                raise MatFileError(f"opening roll {entry[:3]!r} is a double, which R16 forbids")
            hi, lo = max(d1, d2), min(d1, d2)
            game.roll((hi, lo) if player == 0 else (lo, hi))
        else:
            game.roll((d1, d2), player=player)
        game.play(_read_play(game, moves), player=player)
    else:
        raise MatFileError(f"unknown entry {entry!r}")
    return None
