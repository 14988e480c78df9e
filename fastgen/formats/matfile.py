"""Plain-text match files in the JellyFish / GNU Backgammon ``.mat`` layout.

The layout is not formally specified; fastgen writes it the way GNU Backgammon's own
exporter lays it out (checked against the real program, ``tests/test_gnubg_program.py``)::

    ; [CubeLimit "64"]

     3 point match

     Game 1
     Alice : 0                      Bob : 0
      1)                             52: 13/8 13/11
      2) 31: 8/5 6/5                 Doubles => 2
      3)  Takes                      64: 24/18 13/9
     ...
     12) 62: 6/off 2/off
          Wins 1 point

Player 0 is the left column, player 1 the right one: the number ``NNN)`` and a space,
the left entry padded to 27 characters and a space, so the right entry starts at
column 33 (cube actions carry a leading space, so they always stand two spaces or more
from a long left entry). Actions alternate left, right, left ... A roll is written
``d1d2:`` followed by the play (nothing for a lost turn, or when the game ended before
the roll was played); a pass puts the winner's ``Wins`` line next to it; a game that
ends without a bear-off or a pass was resigned: its ``Wins N points`` (N = result type
times the cube) stands in the winner's column. A rejected resignation leaves no trace.
Point numbers in a play are the mover's (bar/25, off/0, hits marked ``*``). The header
comment ``; [CubeLimit "N"]`` keeps :attr:`Match.cube_cap` (gnubg ignores it; files
without it get gnubg's own limit, 4096); ``; [Crawford "Off"]`` and ``; [Jacoby "On"]``
keep those match options.

The reader is tolerant about spacing, accepts ``bar``/``25``, ``off``/``0``, chains
(``24/18/13``), repeats (``8/5(2)``) and ``Accepts``/``Passes``, replays every game
through :class:`~fastgen.games.game.Game` (so each play is checked), runs in time linear in
the input, and raises only :class:`~fastgen.errors.MatFileError`, quoting the line, on
any problem.
"""

from __future__ import annotations

import os
import re
import warnings
from typing import cast

import numpy as np

from fastgen.formats.checked import MiB, read_bytes
from fastgen._util import atomic_write
from fastgen.errors import FastgenError, MatFileError, MatFileWarning
from fastgen.games.game import BACKGAMMON, GAMMON, SINGLE, Game
from fastgen.games.match import Match
from fastgen.core.notation import Play

__all__ = ["write_mat", "read_mat", "play_text", "match_play_text", "INFO_TAGS"]

_LEFT_WIDTH = 27  # gnubg: "%3d) %-27s " puts the right column at 33
_RIGHT_THRESHOLD = 20  # an entry starting at or after this column belongs to player 1
_WINS_RIGHT = " " * 34  # an unnumbered line's right-column "Wins", as gnubg writes it
_WINS_LEFT = " " * 6
#: The cube cap of a file without a ``CubeLimit`` tag: GNU Backgammon's largest cube.
GNUBG_MAX_CUBE = 4096
#: The largest .mat file read: a long money session's text is a few MiB at most.
LIMIT = 64 * MiB
#: The header comment tags (``; [Name "value"]``) kept in :attr:`Match.info`, and the key
#: each is kept under; other tags are kept under their name in lower case, spaces as
#: ``_``. The players' names and the match's rules (Crawford, CubeLimit, Jacoby) are
#: read into the match itself.
INFO_TAGS = {
    "Site": "site", "Match ID": "match_id", "Event": "event", "Round": "round", "EventDate": "date",
    "EventTime": "time", "Player 1 Elo": "elo0", "Player 2 Elo": "elo1", "Place": "place",
    "Annotator": "annotator", "Transcriber": "transcriber", "Comment": "comment", "Variation": "variation",
    "Unrated": "unrated", "ClockType": "clock",
}
_INFO_KEYS = {tag.lower(): key for tag, key in INFO_TAGS.items()}
_RULE_TAGS = ("crawford", "cubelimit", "jacoby", "player 1", "player 2")
_MAX_DIGITS = 6  # numbers in a .mat file (length, scores, points) are small


# --------------------------------------------------------------------------- play text


def play_text(board, dice, moves_row, board_after) -> str:
    """Text of one play, e.g. ``"8/5 6/5"``; empty for a lost turn (R14).

    Uses :class:`fastgen.core.notation.Play`; a play it writes as no move falls back to a
    minimal formatter writing each step as ``from/to`` (``bar``, ``off``, ``*`` for a hit).
    """
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


_POINT_RE = re.compile(r"(bar|off|[0-9]{1,2})(\*?)\Z", re.ASCII)
_REPEAT_RE = re.compile(r"(.*)\(([1-4])\)\Z", re.ASCII | re.DOTALL)
_NO_MOVE_WORDS = ("", "-", "cannot move", "can't move", "no move", "dances")


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
    tokens = [] if cleaned in _NO_MOVE_WORDS else cleaned.replace(",", " ").split()
    if len(tokens) > 4:
        raise ValueError(f"{text!r} has {len(tokens)} moves; a roll plays at most 4")
    for token in tokens:
        repeat = 1
        m = _REPEAT_RE.match(token)
        if m:
            token, repeat = m.group(1), int(m.group(2))
        elements = token.split("/")
        if not 2 <= len(elements) <= 5:
            raise ValueError(f"cannot read {token!r} in {text!r} as a move")
        points = []
        for element in elements:
            em = _POINT_RE.match(element)
            if not em:
                raise ValueError(f"cannot read {element!r} in {text!r} as a point")
            word = em.group(1)
            p = 25 if word == "bar" else 0 if word == "off" else int(word)
            if not 0 <= p <= 25:
                raise ValueError(f"point {p} out of range in {text!r}")
            points.append(p)
        if points[0] == 0 or 25 in points[1:] or 0 in points[1:-1]:
            raise ValueError(f"a move cannot start off the board or end on the bar: {token!r}")
        for _ in range(repeat):
            # Each written point after the first is a landing: a lone opposing checker
            # there is hit, written with "*" or not (most sites' exports leave it out).
            for src, dst in zip(points, points[1:]):
                mine[24 if src == 25 else src - 1] -= 1
                if dst:
                    mine[dst - 1] += 1
                    if opp[24 - dst] == 1:
                        opp[24 - dst] = 0
                        opp[24] += 1
    same_mine = (plays.boards[:, 1] == mine).all(axis=1)
    candidates = np.flatnonzero(same_mine)
    if candidates.size > 1:  # the written landings' hits decide; else a hit on a point passed over
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
        # The kind fixes the data's type (see GameAction): dice, a board's bytes, a result.
        if kind in ("opening", "roll"):
            dice = walker.roll(cast("tuple[int, int]", data), player=None if kind == "opening" else player)
            roll = f"{dice[0]}{dice[1]}:"
        elif kind == "play":
            plays = walker.legal_plays()
            after = np.frombuffer(cast(bytes, data), dtype=np.int8).reshape(2, 25)
            k = int(np.flatnonzero((plays.boards == after).all(axis=(1, 2)))[0])
            text = play_text(walker.board, walker.dice, plays.moves[k], plays.boards[k])
            entries.append((player, f"{roll} {text}".rstrip()))
            walker.play(after, player=player)
        elif kind == "double":
            walker.double(player=player)
            entries.append((player, f" Doubles => {data}"))
        elif kind == "take":
            walker.take(player=player)
            entries.append((player, " Takes"))
        elif kind == "drop":
            walker.drop(player=player)
            entries.append((player, " Drops"))
        elif kind == "resign":
            walker.resign(cast(int, data), player=player)
        elif kind == "reject":  # .mat files have no place for a rejected offer
            walker.reject_resignation(player=player)
        elif kind == "accept":
            walker.accept_resignation(player=player)
    if walker.dice is not None and walker.turn is not None and roll is not None:
        entries.append((walker.turn, roll))  # rolled but not played (the game goes on, or was resigned)
    return entries


def _wins_text(points: int) -> str:
    return f"Wins {points} point{'' if points == 1 else 's'}"


def _check_name(name: str) -> None:
    if not name or name != name.strip() or ":" in name or not name.isprintable():
        raise MatFileError(
            f"player name {name!r} does not fit a .mat file: it must be non-empty "
            "printable text without a colon or surrounding spaces"
        )


def _ordered_info(info: dict[str, str]):
    """(key, value) of *info*: the known keys in :data:`INFO_TAGS`'s order, then the rest."""
    known = [key for key in INFO_TAGS.values() if key in info]
    return [(key, info[key]) for key in known + sorted(set(info) - set(known))]


def _tag_line(key: str, value: str) -> str:
    names = {v: k for k, v in INFO_TAGS.items()}
    tag = names.get(key) or key.replace("_", " ").title()
    if '"' in value or not value.isprintable() or not tag.replace(" ", "").isalnum() or tag.lower() in _RULE_TAGS:
        raise MatFileError(f"match info {key!r}: {value!r} does not fit a .mat header line")
    return f'; [{tag} "{value}"]'


def write_mat(match: Match, path: str | os.PathLike[str] | None = None) -> str:
    """Return *match* as ``.mat`` text; also write it to *path* when given (whole: a
    temporary file beside it renamed over it, see :func:`fastgen._util.atomic_write`).

    Raises :class:`MatFileError` when a player name cannot be read back (a colon, a line
    break, surrounding spaces).
    """
    for name in match.names:
        _check_name(name)
    lines = [_tag_line(key, value) for key, value in _ordered_info(match.info)]
    lines.append(f'; [CubeLimit "{match.cube_cap}"]')
    if match.length and not match.crawford_rule:
        lines.append('; [Crawford "Off"]')
    if match.jacoby:
        lines.append('; [Jacoby "On"]')
    lines += ["", f" {match.length} point match", ""]
    for index, game in enumerate(match.games):
        s0, s1 = match.scores_before(index)
        lines.append(f" Game {index + 1}")
        left_score = f"{match.names[0]} : {s0}"
        gap = "" if len(left_score) < 31 else " "
        lines.append(f" {left_score:<31}{gap}{match.names[1]} : {s1}")
        number = 0
        cur: list = [None, None]

        def flush():
            nonlocal number, cur
            if cur != [None, None]:
                number += 1
                left, right = cur  # a lone left entry keeps its padding: no short lines
                lines.append(f"{number:3d}) {left or '':<{_LEFT_WIDTH}} {right or ''}")
            cur = [None, None]

        for player, text in _game_entries(game):
            if cur[player] is not None or (player == 0 and cur[1] is not None):
                flush()
            cur[player] = text
            if player == 1:
                flush()
        if game.over:
            wins = _wins_text(game.points)
            if game.winner == 1 and cur[0] is not None and cur[1] is None:
                cur[1] = " " + wins  # next to a pass (or a roll) on the left
                flush()
            else:
                flush()
                lines.append((_WINS_LEFT if game.winner == 0 else _WINS_RIGHT) + wins)
        flush()
        lines.append("")
    text = "\n".join(lines) + "\n"
    if path is not None:
        with atomic_write(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    return text


# --------------------------------------------------------------------------- reading

# Every pattern below is matched at known positions or scanned once (no nested
# quantifiers), so reading is linear in the size of the input.
_ENTRY_START_RE = re.compile(
    r"[0-9][0-9]:|Doubles|Beavers|Raccoons|Takes|Accepts|Drops|Passes|Rejects|Wins|Losses|Loses|Concedes|Resigns|(?<!: )(?<!:)[?]{4}", re.I | re.ASCII
)
# entries that end a game: "Wins N points", and what some sites write beside it for the
# loser ("Losses N point", "Concedes"); their column is where they stand
_RESULT_WORDS = ("wins", "lose", "loss", "conc", "resi")
_WINS_RE = re.compile(r"(Wins|Loses|Losses) +([0-9]{1,6}) +points?(?: +and +the +match)? *\Z", re.I | re.ASCII)
_NUMBER_RE = re.compile(r" *[0-9]{1,6}\)", re.ASCII)
# a move number left inside a line (one site glues a game's last two lines together)
_GLUED_NUMBER_RE = re.compile(r" [0-9]{1,4}\) *\Z", re.ASCII)


def _load_text(source) -> str:
    """The text of *source*: .mat text, or a path (str or os.PathLike) to a file."""
    path: str | os.PathLike[str] | None = None
    if isinstance(source, os.PathLike):
        path = source
    elif isinstance(source, str):
        if "\n" not in source and source.strip() and _looks_like_path(source):
            path = source
    elif isinstance(source, (bytes, bytearray)):
        return _decode(bytes(source), "the given bytes")
    else:
        raise MatFileError(f"read_mat needs .mat text or a path to a .mat file, got {source!r}")
    if path is None:
        return source
    data = read_bytes(path, ".mat file", MatFileError, LIMIT)
    return _decode(data, repr(os.fspath(source)) if not isinstance(source, str) else repr(source))


def _looks_like_path(source: str) -> bool:
    try:
        if os.path.exists(source):
            return True
    except (OSError, ValueError):
        return False
    # no such file: a single line that cannot be a .mat header is meant as a path
    return source.lower().endswith(".mat") or os.sep in source


def _decode(data: bytes, what: str) -> str:
    """The file's text: UTF-8 (with or without a byte-order mark), else Latin-1 (older
    programs write names in it; every byte is a Latin-1 character)."""
    nul = data.find(0)
    if nul >= 0:
        raise MatFileError(f"{what} is not text: byte {nul} is a NUL")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _number(text: str, lineno: int, line: str) -> int:
    if not (text.isascii() and text.isdigit()) or len(text) > _MAX_DIGITS:
        raise MatFileError(f"line {lineno}: expected a number of at most {_MAX_DIGITS} digits, got {text!r} in {line!r}")
    return int(text)


def _parse_tag(stripped: str):
    """(name, value) of a ``; [Name "value"]`` comment, else None."""
    body = stripped[1:].strip()
    if not (body.startswith("[") and body.endswith('"]')):
        return None
    name, sep, value = body[1:-2].partition(' "')
    name = name.strip()
    if not sep or '"' in value or not value.isprintable() or not name.replace(" ", "").isalnum() or not name.isascii():
        return None
    return name.lower(), value


def _parse_length(line: str, lineno: int) -> int:
    words = line.split()
    if len(words) != 3 or words[1].lower() != "point" or words[2].lower() != "match":
        raise MatFileError(f"line {lineno}: expected 'N point match', got {line!r}")
    return _number(words[0], lineno, line)


def _name_and_score(part: str, lineno: int, line: str) -> tuple[str, int, str]:
    """Split ``name : score rest`` into (name, score, rest)."""
    name, colon, rest = part.partition(":")
    name = name.strip()  # may be empty: one site leaves a guest's name out
    if not colon:
        raise MatFileError(f"line {lineno}: expected 'name : score  name : score', got {line!r}")
    rest = rest.lstrip()
    end = 0
    while end < len(rest) and not rest[end].isspace():
        end += 1
    return name, _number(rest[:end], lineno, line), rest[end:]


def _parse_scores(lines: list[str], j: int) -> tuple[tuple[str, str], tuple[int, int], int]:
    """Names and scores of the game header at line index *j*; returns the next index."""
    line = lines[j] if j < len(lines) else ""
    name0, score0, rest = _name_and_score(line, j + 1, line)
    if rest.strip():
        name1, score1, rest = _name_and_score(rest, j + 1, line)
        if rest.strip():
            raise MatFileError(f"line {j + 1}: unexpected {rest.strip()!r} after the scores in {line!r}")
        return (name0, name1), (score0, score1), j + 1
    line2 = lines[j + 1] if j + 1 < len(lines) else ""  # the two players on two lines
    name1, score1, rest = _name_and_score(line2, j + 2, line2)
    if rest.strip():
        raise MatFileError(f"line {j + 2}: unexpected {rest.strip()!r} after the score in {line2!r}")
    return (name0, name1), (score0, score1), j + 2


def _split_entries(line: str, lineno: int) -> list[tuple[int, str]]:
    """(column, entry) pairs of one move line (after an optional ``NNN)`` number).

    An entry starting at column 20 or later is the right column's. Actions alternate, so
    an entry after a left one is the right one; a ``Wins`` always goes by where it
    stands, since GNU Backgammon writes a resignation's ``Wins`` right after the roll
    of a player who had not played yet (``42:  Wins 2 points``, ``61:       Wins 1
    point``).
    """
    m = _NUMBER_RE.match(line)
    offset = m.end() if m else 0
    if m and not line[offset:].strip():
        return []  # a numbered line with nothing on it (where a game ended, or a resignation)
    starts = [x.start() for x in _ENTRY_START_RE.finditer(line, offset)]
    if not starts or line[offset:starts[0]].strip():
        raise MatFileError(f"line {lineno}: cannot read {line!r}")
    if len(starts) > 3:
        raise MatFileError(f"line {lineno}: more than two entries (left and right column) in {line!r}")
    out = []
    column = -1
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(line)
        entry = _GLUED_NUMBER_RE.sub("", line[start:end]).strip()
        by_place = 1 if start >= _RIGHT_THRESHOLD else 0
        if entry[:4].lower() in _RESULT_WORDS:
            column = by_place
        else:
            column = by_place if column < 0 else column + 1
            if column > 1 or (i == 2):
                raise MatFileError(f"line {lineno}: more than two entries (left and right column) in {line!r}")
        out.append((column, entry))
    return out


def read_mat(source: str | os.PathLike[str] | bytes, *, errors: str = "raise") -> Match:
    """Read a ``.mat`` match from text or from a file path; returns a finished-as-recorded
    :class:`Match` whose games were replayed (every play checked). Resignations (a game
    ending in ``Wins N points`` without a bear-off or a pass) are recorded as accepted
    offers of N / cube (single, gammon or backgammon). The header's comment lines go to
    :attr:`Match.info` (see :data:`INFO_TAGS`).

    *errors*: ``"raise"`` (the default) raises :class:`MatFileError` at the first
    problem: a play that fits no legal play, a result the replay contradicts, a score
    the games before do not give. ``"warn"`` reads on as GNU Backgammon does when it
    warns: a game that cannot be replayed is kept up to the problem and ended by the
    result the file writes for it, a contradicted result keeps the replay's, and each
    problem is issued as a :class:`MatFileWarning` and kept in :attr:`Match.problems`.
    A file that cannot be read at all raises in both modes.

    Raises :class:`MatFileError` (and nothing else) for anything it cannot read.
    """
    if errors not in ("raise", "warn"):
        raise MatFileError(f"errors must be 'raise' or 'warn', got {errors!r}")
    text = _load_text(source)
    lines = text.splitlines()
    length = None
    names = None
    tags: dict[str, str] = {}
    games: list[tuple[int, tuple[int, int], list]] = []  # (line no, scores, [(lineno, line, col, entry)])
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if not stripped:
            i += 1
            continue
        if stripped[0] in ";#":
            tag = _parse_tag(stripped) if length is None else None
            if tag:
                tags[tag[0]] = tag[1]
            i += 1
            continue
        if length is None:
            length = _parse_length(line, i + 1)
            i += 1
            continue
        words = stripped.split()
        if len(words) == 2 and words[0].lower() == "game":
            _number(words[1], i + 1, line)
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            game_names, scores, j = _parse_scores(lines, j)
            game_names = (  # an empty name: the header's, else "Player 1" / "Player 2"
                game_names[0] or tags.get("player 1", "").strip() or "Player 1",
                game_names[1] or tags.get("player 2", "").strip() or "Player 2",
            )
            for name in game_names:
                _check_name(name)
            names = names or game_names
            games.append((i + 1, scores, []))
            i = j
            continue
        if not games:
            raise MatFileError(f"line {i + 1}: expected 'Game 1', got {line!r}")
        for column, entry in _split_entries(line, i + 1):
            games[-1][2].append((i + 1, line, column, entry))
        i += 1
    if length is None:
        raise MatFileError(f"no 'N point match' header in {text[:80]!r}")
    match = _new_match(length, names, tags, games[0][1] if games else (0, 0))
    for number, (game_line, scores, entries) in enumerate(games, 1):
        if not _read_game(match, number, game_line, scores, entries, errors):
            left = len(games) - number
            if left:
                _problem(match, errors, f"games {number + 1} to {len(games)} left out: game {number} has no end")
            break
    return match


def _problem(match: Match, errors: str, message: str) -> None:
    """Raise *message* as a MatFileError, or (errors="warn") keep it and go on."""
    if errors == "raise":
        raise MatFileError(message)
    match.problems.append(message)
    warnings.warn(message, MatFileWarning, stacklevel=4)


def _read_game(match: Match, number: int, game_line: int, scores, entries, errors: str) -> bool:
    """Replay one game's entries into a new game of *match*; False when the game could
    not be started or ended (errors="warn": the match is read up to there)."""
    if match.score != scores:
        _problem(match, errors, f"line {game_line}: the game starts at {scores[0]}-{scores[1]} but the games "
                 f"before give {match.score[0]}-{match.score[1]}")
    try:
        game = match.new_game()
    except FastgenError as exc:
        _problem(match, errors, f"line {game_line}: {exc}")
        return False
    length = match.length
    needed = (length - match.score[0], length - match.score[1]) if length else None
    last_wins = max((k for k, e in enumerate(entries) if e[3][:4].lower() == "wins"), default=-1)
    for k, (lineno, line, column, entry) in enumerate(entries):
        following = entries[k + 1] if k + 1 < len(entries) else None
        try:
            _apply_entry(game, column, entry, following, needed, k < last_wins)
        except (FastgenError, ValueError) as exc:
            move = re.match(r"\s*([0-9]+)\)", line)
            where = f"game {number}, move {move.group(1)}" if move else f"game {number}"
            _problem(match, errors, f"{where} (line {lineno}): {line.strip()!r}: {exc}")
            if not game.over:  # the rest of the game cannot be replayed: end it as the file does
                _end_as_written(game, entries[k:])
            break
    return game.over


def _end_as_written(game: Game, rest) -> None:
    """End a game that could not be replayed to its end by the result the file writes for
    it (its ``Wins`` line, as a resignation accepted where the replay stopped)."""
    for _lineno, _line, column, entry in rest:
        m = _WINS_RE.match(entry)
        if m and m.group(1).lower() == "wins":
            try:
                if game.pending_double:
                    game.take()
                if game.pending_resignation is not None:
                    game.reject_resignation()
                _resign(game, column, int(m.group(2)))
            except FastgenError:
                pass
            return


def _new_match(length: int, names, tags: dict, start_score=(0, 0)) -> Match:
    """The empty match the header describes (cube cap, Crawford and Jacoby tags; the
    other tags go to its info)."""
    variation = tags.get("variation", "backgammon")
    if variation.strip().lower() not in ("backgammon", "standard", ""):
        raise MatFileError(f"the match is played as {variation!r}: fastgen reads backgammon matches only")
    cap_text = tags.get("cubelimit")
    cap = GNUBG_MAX_CUBE
    if cap_text is not None:
        if not (cap_text.isascii() and cap_text.isdigit()) or len(cap_text) > _MAX_DIGITS:
            raise MatFileError(f"CubeLimit must be a power of two, got {cap_text!r}")
        cap = int(cap_text)
    flags = {}
    for key in ("crawford", "jacoby"):
        value = tags.get(key)
        if value is not None and value.lower() not in ("on", "off", "yes", "no", "true", "false"):
            raise MatFileError(f"tag {key!r} must be On or Off, got {value!r}")
        flags[key] = None if value is None else value.lower() in ("on", "yes", "true")
    try:
        return Match(
            length,
            names=names or ("Player 0", "Player 1"),
            cube_cap=cap,
            crawford=True if flags["crawford"] is None else flags["crawford"],
            jacoby=bool(flags["jacoby"]) and length == 0,
            start_score=start_score,
            info={_INFO_KEYS.get(tag, tag.replace(" ", "_")): value for tag, value in tags.items()
                  if tag not in _RULE_TAGS},
        )
    except (FastgenError, ValueError) as exc:
        raise MatFileError(f"the header cannot describe a match: {exc}") from None


def _read_play(game: Game, text: str) -> np.ndarray:
    """The board after the play *text* describes (checked by Game.play afterwards)."""
    plays = game.legal_plays()
    return plays.boards[match_play_text(game.board, game.dice, plays, text)]


def _resign(game: Game, winner: int, points: int) -> None:
    """Record the loser's resignation of *points* (result type x cube) and its acceptance.

    Points that are not 1, 2 or 3 times the cube are read as GNU Backgammon reads them:
    the smallest result worth them, a single game at least and a backgammon at most."""
    cube = game.cube_value
    if game.jacoby and cube == 1 and points == 1:
        result = SINGLE
    elif points % cube == 0 and points // cube in (SINGLE, GAMMON, BACKGAMMON):
        result = points // cube
    else:
        # GNU Backgammon reads any other number as the nearest result up: at least a
        # single game, at most a backgammon (sites write the points counted towards the
        # match, and one writes nonsense such as 4016 after a play it lost)
        result = min(BACKGAMMON, max(SINGLE, -(-points // cube)))
    game.resign(result, player=1 - winner)
    game.accept_resignation(player=winner)


def _enough(written: int, points: int, needed, winner: int) -> bool:
    """Whether *written* points, fewer than the game's *points*, are what the winner
    needed to win the match: several sites write the points that count towards the score."""
    return needed is not None and needed[winner] <= written < points


def _apply_entry(game: Game, player: int, entry: str, following, needed, wins_follows: bool) -> None:
    """Apply one column entry to *game* (*following* is the next entry, for lookahead;
    *needed*, the points each player needs to win the match, None in money play)."""
    word = entry.split()[0].lower()
    if not entry.strip("? "):  # a site's mark for an action it lost, the game ending there
        if following is None or following[3][:4].lower() in _RESULT_WORDS:
            return
        raise MatFileError(f"{entry!r} stands for an action the file does not hold, and the game goes on")
    if word in ("concedes", "resigns") and entry.strip().lower() == word:
        if wins_follows:
            return  # the "Wins" line after it gives the points
        raise MatFileError(f"{entry!r} is not followed by the points the winner gets ('Wins N points')")
    if word in ("wins", "loses", "losses"):
        m = _WINS_RE.match(entry)
        if not m:
            raise MatFileError(f"cannot read {entry!r}: expected 'Wins N point(s)' or 'Losses N point(s)'")
        points = int(m.group(2))
        if word != "wins" and wins_follows:
            return  # the "Wins" line decides; a "Losses" line's column is not always the loser's
        winner = player if word == "wins" else 1 - player
        if not game.over:
            _resign(game, winner, points)
        elif game.winner != winner:
            raise MatFileError(
                f"the file says player {winner} wins, the replay gives player {game.winner} winning "
                f"{game.points}"
            )
        elif game.points != points and not _enough(points, game.points, needed, winner):
            raise MatFileError(
                f"the file says player {winner} wins {points}, the replay gives {game.points}"
            )
        return
    if word == "doubles":
        game.double(player=player)
    elif word in ("takes", "accepts"):
        game.take(player=player)
    elif word in ("drops", "passes", "rejects"):
        game.drop(player=player)
    elif word in ("beavers", "raccoons"):
        raise MatFileError(f"{entry!r}: fastgen does not play beavers")
    elif re.match(r"[0-9][0-9]:", entry):
        d1, d2 = int(entry[0]), int(entry[1])
        if d1 == d2 == 0 and not entry[3:].strip().strip("?") and _unrolled(following):
            return  # one site writes "00: ????" for a roll never made (the player left)
        if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
            raise MatFileError(f"{entry[:3]!r} is not a roll of two dice 1..6")
        moves = entry[3:].strip()
        if game.turn is None:  # the opening roll: the starter's die is the higher one (R16)
            if d1 == d2:
                raise MatFileError(f"opening roll {entry[:3]!r} is a double, which R16 forbids")
            hi, lo = max(d1, d2), min(d1, d2)
            game.roll((hi, lo) if player == 0 else (lo, hi))
        else:
            game.roll((d1, d2), player=player)
        if moves.lower() in _NO_MOVE_WORDS and _unplayed(game, following):
            return
        if moves and not moves.strip("?"):  # one site's mark for a play it lost (the player left)
            plays = game.legal_plays()
            if len(plays) == 1:  # forced: GNU Backgammon plays it, as it would have been
                game.play(plays.boards[0], player=player)
                return
            if _unplayed(game, following):
                return
        game.play(_read_play(game, moves), player=player)
    else:
        raise MatFileError(f"unknown entry {entry!r}")


def _unrolled(following) -> bool:
    """Whether what follows a "00:" roll ends the game (nothing, or the result)."""
    return following is None or following[3][:4].lower() in _RESULT_WORDS


def _unplayed(game: Game, following) -> bool:
    """Whether a roll written without a play was left unplayed (the game or the file ends
    there, or a resignation follows) rather than being a lost turn.

    A roll with no legal move is always read as the lost turn, as GNU Backgammon reads
    it (a game resigned between such a roll and its empty play reads as resigned after
    it); a roll with legal plays and no play written must end the game's record.
    """
    plays = game.legal_plays()
    if len(plays) == 1 and plays.moves[0, 0, 0] < 0:  # no legal move: a lost turn (R14)
        return False
    if following is not None and following[3][:4].lower() not in _RESULT_WORDS:
        raise MatFileError(f"the roll {game.dice!r} has legal plays but none is written, and the game goes on")
    return True
