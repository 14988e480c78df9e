"""GNU Backgammon's ``.sgf`` match files, read and written.

GNU Backgammon (gnubg) saves a match (``save match``) as an SGF collection (FF[4], the
backgammon game GM[6]) holding one game tree per game; :func:`read_sgf` reads all the
trees of a file into one :class:`~fastgen.games.match.Match`, replaying every game
through :class:`~fastgen.games.game.Game` (every play checked against the legal plays),
and :func:`write_sgf` writes a match the way gnubg does, so gnubg opens it (``load
match``), checked against the real program (``tests/test_sgf_gnubg.py``). A game's tree
looks like this (the layout of gnubg 1.07)::

    (;FF[4]GM[6]CA[UTF-8]AP[GNU Backgammon:1.07.001]MI[length:7][game:0][ws:0][bs:0]
    PW[Alice]PB[Bob]DT[2021-03-04]EV[The Event]RU[Crawford]RE[B+2R]
    ;B[65lrrw]
    ;W[14xwfb]
    ;B[double]
    ;W[take]
    ;B[44ydaegkko]
    ;PL[W]DI[64])

**Players and points.** White (``W``, gnubg's O) is fastgen's player 0, Black (``B``,
X) player 1. A move node ``W[...]`` holds the two dice as rolled, then from/to letter
pairs, one a checker moved: ``a``..``x`` are White's points 1..24 for either mover (so
Black's point *p* is the letter of White's point 25 - *p*), ``y`` the bar and ``z`` off;
no letters is a roll that cannot be played. The play is the unique legal play whose board
is the one the pairs give (a lone opposing checker on a landing point is hit).
``double``, ``take`` and ``drop`` are cube actions. The first move is the opening roll,
its mover the starter (the higher die, R16). A setup node ``PL[W]DI[64]`` is a roll left
unplayed: the game ends there by a resignation, or the file ends there. fastgen writes
the opening roll's higher die first, other rolls as rolled, and a play's steps highest
point first (a checker moved by both dice takes the first die first when that lands on
the same points): an order in which they can be made. Any order is read (gnubg keeps the
order a play was entered or generated in).

**The root of each tree.** ``MI`` holds the match length (0 or none: a money session),
the game's number from 0 and the score before it (``ws``, ``bs``), which must be the
score the games before give (a file whose first game starts at a later score, saved by
gnubg's ``save game``, is read as a match from that score on:
:attr:`Match.start_score`, past the Crawford game when ``RU`` says ``Crawford`` without
``CrawfordGame`` at a Crawford score); ``RU`` the rules (``Crawford`` the Crawford rule,
``CrawfordGame`` the Crawford game, ``Jacoby`` in money play, ``NoCube``: read as
:attr:`Match.cube_cap` 1); ``RE`` the result, ``W+2`` (White won 2 points) or ``B+4R``
(won by a resignation: recorded as the loser's offer of 4 / the cube's value, single,
gammon or backgammon, and the winner's acceptance; with the Jacoby rule and a centred
cube gnubg writes the offer's points, fastgen scores 1). A result must be the one the
replay gives. ``PW``/``PB`` are the names; :attr:`Match.info` keeps ``WR``/``BR`` (the
ratings, as ``elo0``/``elo1``), ``DT`` (``date``), ``EV`` (``event``), ``RO``
(``round``), ``PC`` (``place``), ``AN`` (``annotator``) and ``GC`` (``comment``); other
``MI`` entries go to ``info`` under their own key and are written back there (so are
info keys without a property of their own, e.g. ``site``). ``MI[cubelimit:N]`` keeps
:attr:`Match.cube_cap` (gnubg ignores it; a file without it gets gnubg's largest cube,
4096). ``CA`` names the charset: ``UTF-8`` (what gnubg writes, and fastgen) or
``ISO-8859-1`` (older files); a file without it is read as UTF-8 when it is, else
Latin-1.

**Analysis.** The other properties of a node (gnubg's ``A``, ``DA``, ``LU``, ``GB``/
``GW``, ``BM``, ``DO``, ``IT``, ``TE``, ``BC``, ``DC``, ``MR``, ``C``, any other) go
to :attr:`Game.annotations` at the index of the node's action in :attr:`Game.record`
(a move node's at its ``play``: its luck is the roll's, its cube analysis the decision
not to double before it; a ``PL``/``DI`` node's at its ``roll``), parsed by
:func:`fastgen.formats.sgfprops.annotation` (``{"source": "gnubg", "luck": ...,
"move_analysis": [...], "cube_analysis": {...}, "comment": ..., "raw": {"A": [...],
...}}``). A game root's other properties (gnubg's statistics ``GS``) go to
``annotations[0]["game"]`` (``{"statistics": {...}, "raw": {...}}``). :func:`write_sgf`
writes the ``raw`` values back (and ``comment`` as ``C``), so a file read and written
keeps gnubg's analysis; annotations without ``raw`` (another program's) keep only their
comment.

**Left out.** A rejected resignation, or one still waiting for its answer, leaves no
trace (gnubg writes none either); set-up positions (``AE``/``AB``/``AW``), a turn or a
cube that a setup node changes (``PL``, ``CV``, ``CP`` that do not agree with the
replay), beavers and the variants (nackgammon, hypergammon) raise, as fastgen's games
cannot hold them. Of variations, the main line is read.

Every problem raises :class:`~fastgen.errors.SgfFileError` (a
:class:`~fastgen.errors.MatFileError`) naming the file and the place (byte offset, game
and node, both from 1); nothing else escapes. Reading is linear in the size of the file,
which is bounded (:data:`LIMIT`), and so is the number of its nodes and values
(:data:`fastgen.formats.sgfprops.MAX_VALUES`).
"""

from __future__ import annotations

import os
import re
from typing import Any, NoReturn, cast

import numpy as np

from fastgen._util import atomic_write
from fastgen._version import __version__
from fastgen.errors import FastgenError, SgfFileError
from fastgen.formats.checked import MiB, decoding, read_bytes
from fastgen.formats.sgfprops import Node, annotation, escape, game_statistics, parse_collection
from fastgen.games.game import BACKGAMMON, GAMMON, SINGLE, Game
from fastgen.games.match import Match

__all__ = ["read_sgf", "write_sgf", "LIMIT", "GNUBG_MAX_CUBE"]

#: The largest .sgf file read: a long match analysed by gnubg takes a few MiB.
LIMIT = 64 * MiB
#: The cube cap of a file without ``MI[cubelimit:N]``: GNU Backgammon's largest cube.
GNUBG_MAX_CUBE = 4096
_MAX_DIGITS = 6

#: Match info keys and the root properties that hold them (in gnubg's order).
INFO_PROPERTIES = {"elo0": "WR", "elo1": "BR", "date": "DT", "event": "EV", "round": "RO", "place": "PC",
                   "annotator": "AN", "comment": "GC"}
_INFO_OF = {prop: key for key, prop in INFO_PROPERTIES.items()}
_MI_OWN = ("length", "game", "ws", "bs", "cubelimit")
_ROOT_ONLY = frozenset({"FF", "GM", "CA", "AP", "MI", "PW", "PB", "RU", "RE", *_INFO_OF})
_SETUP = ("PL", "DI", "CV", "CP", "AE", "AB", "AW")
_ACTIONS = ("W", "B")
_VARIANTS = ("nackgammon", "hypergammon", "hypergammon1", "hypergammon2", "hypergammon3")
_CHARSETS = {"utf-8": "utf-8", "utf8": "utf-8", "iso-8859-1": "latin-1", "iso8859-1": "latin-1",
             "iso_8859-1": "latin-1", "latin-1": "latin-1", "latin1": "latin-1", "us-ascii": "utf-8",
             "ascii": "utf-8", "windows-1252": "cp1252", "cp1252": "cp1252"}
_LETTERS = "abcdefghijklmnopqrstuvwx"
_MOVE_RE = re.compile(r"([1-6])([1-6])((?:[a-z][a-z]){0,4})\Z", re.ASCII)
_RESULT_RE = re.compile(r"([WB])\+([0-9]{1,6})(R?)\Z", re.ASCII)
_NAME_RE = re.compile(r"[A-Z]{1,16}\Z", re.ASCII)


# --------------------------------------------------------------------------- reading


def _load(source: Any) -> tuple[bytes, str, bool]:
    """(the file's bytes, its name for messages, whether it was given as text)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source), "(the given bytes)", False
    if isinstance(source, str) and source.lstrip("\ufeff \t\r\n").startswith("(;"):
        return source.encode("utf-8", "surrogatepass"), "(the given text)", True
    if isinstance(source, (str, os.PathLike)):
        return read_bytes(source, ".sgf file", SgfFileError, LIMIT), repr(os.fspath(source)), False
    raise SgfFileError(f"read_sgf needs a path to an .sgf file, its bytes or its text, got {source!r}")


class _Reader:
    """Replays the trees of one file into a match."""

    def __init__(self, name: str, text: bool) -> None:
        self.name = name
        self.charset: str | None = "utf-8" if text else None
        self.fixed = text  # text given as str: its values are UTF-8 whatever CA says
        self.tree = 0  # the tree (game) and node being read, from 1
        self.node = 0
        self.offset = 0
        self.early: dict[str, list[str]] = {}
        self.first = 0  # the number of the file's first game in the match (gnubg's from 0)

    def fail(self, message: str, offset: int | None = None) -> NoReturn:
        at = self.offset if offset is None else offset
        place = f"game {self.tree}, node {self.node} (byte {at})" if self.tree else f"byte {at}"
        raise SgfFileError(f"cannot read the .sgf file {self.name}: {place}: {message}")

    def syntax(self, offset: int, message: str, tree: int, node: int) -> NoReturn:
        self.tree, self.node = tree, node
        self.fail(message, offset)

    # ------------------------------------------------------------------ values

    def text(self, value: bytes, offset: int) -> str:
        if self.charset is not None:
            try:
                return value.decode(self.charset)
            except UnicodeDecodeError as exc:
                self.fail(f"a value is not {self.charset} text (byte {exc.start} of the value)", offset)
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return value.decode("latin-1")

    def props(self, node: Node) -> dict[str, tuple[list[str], int]]:
        out: dict[str, tuple[list[str], int]] = {}
        for name, values, offset in node.props:
            if name in out:
                self.fail(f"the property {name} appears twice in one node", offset)
            out[name] = ([self.text(v, offset) for v in values], offset)
        return out

    def set_charset(self, node: Node) -> None:
        if self.fixed:
            return
        for name, values, offset in node.props:
            if name == "CA" and values:
                label = values[0].decode("latin-1").strip().lower()
                if label not in _CHARSETS:
                    self.fail(f"CA[{label}]: fastgen reads files in UTF-8 or ISO-8859-1 only", offset)
                self.charset = _CHARSETS[label]

    def number(self, text: str, what: str, offset: int) -> int:
        text = text.strip()
        if not (text.isascii() and text.isdigit()) or len(text) > _MAX_DIGITS:
            self.fail(f"{what} must be a number of at most {_MAX_DIGITS} digits, got {text!r}", offset)
        return int(text)

    def one(self, props: dict, name: str) -> tuple[str, int] | None:
        if name not in props:
            return None
        values, offset = props[name]
        if len(values) != 1:
            self.fail(f"the property {name} holds {len(values)} values, not one", offset)
        return values[0], offset

    # ------------------------------------------------------------------ the match

    def match_info(self, props: dict) -> tuple[dict[str, str], list[str], int | None]:
        """The MI entries (key to text), the RU tokens and the cube cap of a root."""
        entries: dict[str, str] = {}
        for value in props.get("MI", ([], 0))[0]:
            key, sep, rest = value.partition(":")
            if sep and key.strip():
                entries.setdefault(key.strip(), rest.strip())
        rules: list[str] = []
        if "RU" in props:
            for value in props["RU"][0]:
                rules += [t.strip() for t in value.split(":") if t.strip()]
        for token in rules:
            if token.lower() in _VARIANTS:
                self.fail(f"RU[{token}]: fastgen plays standard backgammon only", props["RU"][1])
        cap = None
        if "cubelimit" in entries:
            cap = self.number(entries["cubelimit"], "MI's cubelimit", props["MI"][1])
        return entries, rules, cap

    def new_match(self, props: dict) -> Match:
        game_kind = self.one(props, "GM")
        if game_kind is not None and game_kind[0].strip() != "6":
            self.fail(f"GM[{game_kind[0]}]: not a backgammon file (backgammon is GM[6])", game_kind[1])
        entries, rules, cap = self.match_info(props)
        length = self.number(entries["length"], "MI's match length", props["MI"][1]) if "length" in entries else 0
        names = []
        for prop, default in (("PW", "Player 0"), ("PB", "Player 1")):
            found = self.one(props, prop)
            names.append(found[0] if found is not None else default)
        info = {key: value for key, value in entries.items() if _writable_key(key)}
        for prop, key in _INFO_OF.items():
            found = self.one(props, prop)
            if found is not None:
                info[key] = found[0]
        if "NoCube" in rules:
            cap = 1
        where = props.get("MI", ([], self.offset))[1]
        start = tuple(self.number(entries.get(key, "0"), f"MI's {key}", where) for key in ("ws", "bs"))
        self.first = self.number(entries.get("game", "0"), "MI's game number", where)
        try:
            return Match(length, names=names, crawford="Crawford" in rules, jacoby="Jacoby" in rules and length == 0,
                         cube_cap=GNUBG_MAX_CUBE if cap is None else cap, info=info,
                         start_score=cast("tuple[int, int]", start))
        except (FastgenError, ValueError) as exc:
            self.fail(f"the root cannot describe a match: {exc}", props.get("MI", ([], self.offset))[1])

    def check_root(self, match: Match, props: dict, index: int) -> None:
        """A later tree's root: the same match as the first's, this game's number and score."""
        entries, _, _ = self.match_info(props)
        where = props.get("MI", ([], self.offset))[1]
        if "length" in entries and self.number(entries["length"], "MI's match length", where) != match.length:
            self.fail(f"MI gives the match length {entries['length']}, the first game {match.length}", where)
        for prop, name in (("PW", match.names[0]), ("PB", match.names[1])):
            found = self.one(props, prop)
            if found is not None and found[0] != name:
                self.fail(f"{prop}[{found[0]}] is not the first game's player {name!r}", found[1])
        if "game" in entries and self.number(entries["game"], "MI's game number", where) != self.first + index:
            self.fail(f"MI numbers the game {entries['game']}, but it is game {self.first + index} of the match "
                      f"(from 0)", where)
        score = match.score
        if match.jacoby:  # gnubg scores a resignation without the Jacoby rule, fastgen with it
            return
        for key, side in (("ws", 0), ("bs", 1)):
            if key in entries and self.number(entries[key], f"MI's {key}", where) != score[side]:
                self.fail(f"MI gives the score {entries.get('ws', '?')}-{entries.get('bs', '?')} before the game, "
                          f"the games before give {score[0]}-{score[1]}", where)

    # ------------------------------------------------------------------ one game

    def game(self, match: Match, nodes: list[Node], index: int) -> None:
        root = self.props(nodes[0])
        if index:
            self.check_root(match, root, index)
        try:
            game = match.new_game()
        except FastgenError as exc:
            self.fail(f"game {index} does not end, and another game follows ({exc})", nodes[0].offset)
        rules = self.match_info(root)[1]
        if game.crawford and match.start_score != (0, 0) and "Crawford" in rules and "CrawfordGame" not in rules \
                and not any(g.crawford for g in match.games[:-1]):
            game.crawford = False  # a match read from a later score, past its Crawford game
        result = self.one(root, "RE")
        extra = {name: root.pop(name)[0] for name in list(root)
                 if name not in _ROOT_ONLY and name not in _SETUP and name not in _ACTIONS}
        self.early = extra  # notes of nodes without an action before the first action join the root's
        for k, node in enumerate(nodes):
            self.node, self.offset = k + 1, node.offset
            self.apply(game, root if k == 0 else self.props(node), k == 0)
        self.node, self.offset = len(nodes), nodes[-1].offset
        if result is not None:
            self.finish(game, *result)
        if extra and game.record:
            note: dict[str, Any] = {"source": "gnubg", "raw": extra}
            stats = game_statistics(extra.get("GS", []))
            if stats:
                note["statistics"] = stats
            if extra.get("C"):
                note["comment"] = extra["C"][0]
            game.annotations.setdefault(0, {})["game"] = note

    def apply(self, game: Game, props: dict, root: bool) -> None:
        """Make the action of one node and keep its other properties as its annotation."""
        moves = [name for name in _ACTIONS if name in props]
        setup = [name for name in _SETUP if name in props]
        if len(moves) > 1 or (moves and setup):
            self.fail(f"a node holds {' and '.join(moves + setup)}: one action a node")
        for name in ("AE", "AB", "AW"):
            if name in props:
                self.fail(f"{name}: a set-up position; fastgen's games start from the starting position",
                          props[name][1])
        rest = {name: values for name, (values, _) in props.items()
                if name not in _ACTIONS and name not in _SETUP and not (root and name in _ROOT_ONLY)}
        try:
            if moves:
                value, offset = self.one(props, moves[0]) or ("", 0)
                self.offset = offset
                index: int | None = self.action(game, "WB".index(moves[0]), value.strip())
            elif setup:
                index = self.setup(game, props)
            else:
                index = None
        except SgfFileError:
            raise
        except FastgenError as exc:
            self.fail(str(exc))
        if rest:
            self.annotate(game, index, rest)

    def annotate(self, game: Game, index: int | None, raw: dict[str, list[str]]) -> None:
        if index is None:  # a node without an action: its notes join the last action's
            if not game.record:
                for name, values in raw.items():
                    self.early.setdefault(name, []).extend(values)
                return
            index = len(game.record) - 1
        old = game.annotations.get(index)
        if old is not None and "raw" in old:
            merged = {name: list(values) for name, values in old["raw"].items()}
            for name, values in raw.items():
                merged.setdefault(name, []).extend(values)
            raw = merged
        new = annotation(raw, game.record[index].player)
        if old is not None and "game" in old:
            new["game"] = old["game"]
        game.annotations[index] = new

    def action(self, game: Game, player: int, value: str) -> int:
        """Make the move or cube action *value* of *player*; the index of its last record entry."""
        word = value.lower()
        if word == "double":
            game.double(player=player)
        elif word == "take":
            game.take(player=player)
        elif word in ("drop", "pass"):
            game.drop(player=player)
        elif word in ("beaver", "raccoon"):
            self.fail(f"{value!r}: fastgen does not play beavers")
        else:
            m = _MOVE_RE.match(value)
            if not m:
                self.fail(f"cannot read {value!r} as a move (two dice 1..6, then from/to letter pairs a..z) "
                          "or a cube action (double, take, drop)")
            self.roll(game, player, (int(m.group(1)), int(m.group(2))))
            game.play(self.board_after(game, player, m.group(3)), player=player)
        return len(game.record) - 1

    def roll(self, game: Game, player: int, dice: tuple[int, int]) -> None:
        if game.turn is None and not game.over:  # the opening roll: the mover had the higher die (R16)
            if dice[0] == dice[1]:
                self.fail(f"the opening roll {dice[0]}{dice[1]} is a double, which R16 forbids")
            high, low = max(dice), min(dice)
            game.roll((high, low) if player == 0 else (low, high))
        else:
            game.roll(dice, player=player)

    def board_after(self, game: Game, player: int, letters: str) -> np.ndarray:
        """The board after the legal play the from/to pairs *letters* describe."""
        plays = game.legal_plays()
        board = game.board
        mine = board[1].astype(np.int16)
        opp = board[0].astype(np.int16)
        for k in range(0, len(letters), 2):
            a, b = letters[k], letters[k + 1]
            if a == "z" or b == "y":
                self.fail(f"{letters[k:k + 2]!r} in {letters!r}: a checker moves from a point or the bar (y) "
                          "to a point or off (z)")
            src = 24 if a == "y" else self.point(a, player, letters)
            if mine[src] <= 0:
                self.fail(f"{letters[k:k + 2]!r} in {letters!r} moves a checker from where the mover has none")
            mine[src] -= 1
            if b != "z":
                dst = self.point(b, player, letters)
                mine[dst] += 1
                if opp[23 - dst] == 1:
                    opp[23 - dst] = 0
                    opp[24] += 1
        same = np.flatnonzero((plays.boards[:, 1] == mine).all(axis=1))
        if same.size > 1:
            exact = same[(plays.boards[same, 0] == opp).all(axis=1)]
            same = exact if exact.size else same
        if same.size != 1:
            why = "none of" if same.size == 0 else f"{same.size} of"
            self.fail(f"the play {letters or '(no move)'!r} of {game.dice!r} fits {why} the {len(plays)} legal plays")
        return plays.boards[int(same[0])]

    def point(self, letter: str, player: int, letters: str) -> int:
        """The mover's board index (its point - 1) of a point letter."""
        if letter not in _LETTERS:
            self.fail(f"{letter!r} in {letters!r} is not a point (a..x), the bar (y) or off (z)")
        i = _LETTERS.index(letter)
        return i if player == 0 else 23 - i

    def setup(self, game: Game, props: dict) -> int | None:
        """A setup node: a roll left unplayed (``PL``, ``DI``), or a turn or cube that
        must agree with the replay."""
        turn = None
        if "PL" in props:
            value, offset = self.one(props, "PL") or ("", 0)
            if value.strip() not in ("W", "B"):
                self.fail(f"PL[{value}]: the player is W or B", offset)
            turn = "WB".index(value.strip())
            if game.turn is not None and turn != game.turn and not game.over:
                self.fail(f"PL[{value}] hands the turn to the player not on roll, which fastgen's games cannot",
                          offset)
        owner = "c" if game.cube_owner is None else "wb"[game.cube_owner]
        for name, have in (("CV", str(game.cube_value)), ("CP", owner)):
            if name in props:
                value, offset = self.one(props, name) or ("", 0)
                if value.strip().lower() != have:
                    self.fail(f"{name}[{value}] sets the cube where the game's actions do not put it "
                              f"({name}[{have}]), which fastgen's games cannot", offset)
        if "DI" not in props:
            return None
        value, offset = self.one(props, "DI") or ("", 0)
        value = value.strip()
        if len(value) != 2 or not all(c in "123456" for c in value):
            self.fail(f"DI[{value}]: the dice are two digits 1..6", offset)
        player = turn if game.turn is None else game.turn
        if player is None:
            self.fail(f"DI[{value}] before the opening roll needs PL to say whose roll it is", offset)
        self.roll(game, player, (int(value[0]), int(value[1])))
        return len(game.record) - 1

    def finish(self, game: Game, value: str, offset: int) -> None:
        """Check the result ``RE``; a resignation is made here (its offer and acceptance)."""
        text = value.strip()
        if text in ("", "?"):
            return
        m = _RESULT_RE.match(text)
        if not m:
            self.fail(f"RE[{value}]: expected W+N or B+N (N points), with R for a resignation", offset)
        winner, points, resigned = "WB".index(m.group(1)), int(m.group(2)), bool(m.group(3))
        if resigned:
            if game.over:
                self.fail(f"RE[{value}] says the game was resigned, but its moves end it", offset)
            cube = game.cube_value
            if points % cube or points // cube not in (SINGLE, GAMMON, BACKGAMMON):
                self.fail(f"RE[{value}]: a resignation gives 1, 2 or 3 times the cube ({cube}) points", offset)
            try:
                game.resign(points // cube, player=1 - winner)
                game.accept_resignation(player=winner)
            except FastgenError as exc:
                self.fail(f"RE[{value}]: {exc}", offset)
            if game.jacoby and cube == 1:
                return  # gnubg writes the offer's points; the Jacoby rule scores 1
        if not game.over:
            self.fail(f"RE[{value}] says the game ended, but its moves do not end it", offset)
        if (game.winner, game.points) != (winner, points):
            self.fail(f"RE[{value}] says {'WB'[winner]} won {points}, the moves give {'WB'[game.winner or 0]} "
                      f"winning {game.points}", offset)


def read_sgf(source: str | os.PathLike[str] | bytes) -> Match:
    """Read the match of a GNU Backgammon ``.sgf`` file (what gnubg's ``save match``
    writes): *source* is a path (str or os.PathLike), the file's bytes, or its text (a
    str starting with ``(;``).

    Every game tree of the file is a game of the one :class:`fastgen.Match` returned,
    replayed through fastgen's rules (every play checked against the legal plays of its
    roll). White is player 0, Black player 1. A resignation (``RE[B+2R]``) is recorded as
    the loser's offer and the winner's acceptance. The match length, the Crawford and
    Jacoby rules and ``NoCube`` (a cube cap of 1) come from ``MI`` and ``RU``; ``WR``,
    ``BR``, ``DT``, ``EV``, ``RO``, ``PC``, ``AN`` and ``GC`` go to
    :attr:`fastgen.Match.info` as ``elo0``, ``elo1``, ``date``, ``event``, ``round``,
    ``place``, ``annotator`` and ``comment``. gnubg's analysis of each action (its
    candidate plays with their probabilities and equities, the cube analysis, the luck,
    the marks and comments) goes to :attr:`fastgen.Game.annotations` at the action's
    index, parsed into numbers and kept as raw text for :func:`write_sgf`. A file whose
    first game starts at a later score (gnubg's ``save game``) is a match from that score
    on (:attr:`fastgen.Match.start_score`). The module :mod:`fastgen.formats.sgf` says
    the rest.

    Raises :class:`fastgen.formats.SgfFileError` (and nothing else) naming the file and the
    place (byte offset, game and node) for anything it cannot read: a damaged or
    truncated file, an illegal play, dice or a result the replay contradicts, a set-up
    position, beavers or another variant.
    """
    data, name, text = _load(source)
    reader = _Reader(name, text)
    try:
        with decoding(".sgf file", name, SgfFileError):
            trees = parse_collection(data, reader.syntax)
            match: Match | None = None
            for index, nodes in enumerate(trees):
                reader.tree, reader.node, reader.offset = index + 1, 1, nodes[0].offset
                reader.set_charset(nodes[0])
                if match is None:
                    match = reader.new_match(reader.props(nodes[0]))
                reader.game(match, nodes, index)
            return cast(Match, match)
    except SgfFileError:
        raise
    except FastgenError as exc:  # defensive: every check above already names the place
        raise SgfFileError(f"cannot read the .sgf file {name}: {exc}") from None


# --------------------------------------------------------------------------- writing


def _steps(moves: np.ndarray, board: np.ndarray, dice: tuple[int, int]) -> list[tuple[int, int]]:
    """A play's steps (mover's points, 25 the bar, 0 off) as gnubg lists them: a checker
    moved by both dice of a roll moves by the first die first when that lands on the
    same points (no hit on the way, no block), and the highest point moved from comes
    first (an order in which the steps can be made), then the highest landing."""
    steps = [(int(src), int(dst)) for src, dst in moves.tolist() if src >= 0]
    first, second = int(dice[0]), int(dice[1])
    if len(steps) == 2 and first != second and steps[0][1] == steps[1][0]:
        (src, mid), (_, dst) = steps
        alt = src - first
        opp = board[0]
        if src - dst == first + second and mid != alt and 1 <= alt <= 24 and opp[24 - mid] == 0 and opp[24 - alt] == 0:
            steps = [(src, alt), (alt, dst)]
    return sorted(steps, reverse=True)


def _letters(steps: list[tuple[int, int]], player: int) -> str:
    """The from/to letter pairs of a play's steps: a..x White's points, y the bar, z off."""
    out = []
    for step in steps:
        for p, edge in zip(step, "yz"):
            if p in (0, 25):
                out.append(edge)
            else:
                out.append(_LETTERS[p - 1] if player == 0 else _LETTERS[24 - p])
    return "".join(out)


def _props(note: Any, skip: frozenset[str] = frozenset()) -> dict[str, list[str]]:
    """The properties an annotation writes: its raw values, and its comment as C."""
    if not note:
        return {}
    if not isinstance(note, dict):
        raise SgfFileError(f"an annotation is a dict, got {note!r}")
    raw = note.get("raw") or {}
    if not isinstance(raw, dict):
        raise SgfFileError(f"an annotation's raw properties are a dict of names to lists of text, got {raw!r}")
    out: dict[str, list[str]] = {}
    for name, values in raw.items():
        if not (isinstance(name, str) and _NAME_RE.match(name)) or not isinstance(values, (list, tuple)) or not all(
                isinstance(v, str) for v in values):
            raise SgfFileError(f"an annotation's raw property {name!r}: {values!r} is not an SGF property "
                               "(upper-case letters, a list of text values)")
        if name not in skip and name not in _ACTIONS and name not in _SETUP and values:
            out[name] = list(values)
    comment = note.get("comment")
    if isinstance(comment, str) and comment:
        out["C"] = [comment]
    return out


def _text(props: dict[str, list[str]]) -> str:
    return "".join(name + "".join(f"[{escape(v)}]" for v in values) for name, values in props.items())


def _nodes(game: Game) -> list[str]:
    """The nodes of *game*'s tree after its root, replaying its record."""
    walker = Game(cube_cap=game.cube_cap, crawford=game.crawford, jacoby=game.jacoby)
    record = game.record
    notes = game.annotations
    out = []
    i = 0
    while i < len(record):
        kind, player, data = record[i]
        color = "WB"[player]
        if kind in ("opening", "roll"):
            dice = walker.roll(cast("tuple[int, int]", data), player=None if kind == "opening" else player)
            shown = f"{dice[0]}{dice[1]}" if kind == "opening" else "".join(str(int(d)) for d in cast(tuple, data))
            props = _props(notes.get(i))
            if i + 1 < len(record) and record[i + 1].kind == "play":
                plays = walker.legal_plays()
                after = record[i + 1].data
                board = np.frombuffer(after, dtype=np.int8).reshape(2, 25) if isinstance(after, bytes) else after
                k = int(np.flatnonzero((plays.boards == np.asarray(board)).all(axis=(1, 2)))[0])
                steps = _steps(plays.moves[k], walker.board, (int(shown[0]), int(shown[1])))
                walker.play(plays.boards[k], player=player)
                props.update(_props(notes.get(i + 1)))
                out.append(f";{color}[{shown}{_letters(steps, player)}]{_text(props)}")
                i += 2
                continue
            out.append(f";PL[{color}]DI[{shown}]{_text(props)}")
        elif kind in ("double", "take", "drop"):
            getattr(walker, kind)(player=player)
            out.append(f";{color}[{kind}]{_text(_props(notes.get(i)))}")
        elif kind == "resign":
            walker.resign(cast(int, data), player=player)
        elif kind == "accept":
            walker.accept_resignation(player=player)
        elif kind == "reject":
            walker.reject_resignation(player=player)
        i += 1
    return out


def _writable_key(key: str) -> bool:
    """Whether a match info key can stand in ``MI`` as ``[key:value]`` and read back."""
    return bool(key) and key == key.strip() and ":" not in key and key not in _MI_OWN


def _info_text(match: Match) -> tuple[str, str]:
    """(the extra ``MI`` entries, the info properties) of the first game's root."""
    entries = []
    props = {}
    for key, value in match.info.items():
        if key in INFO_PROPERTIES:
            props[INFO_PROPERTIES[key]] = value
        elif not _writable_key(key):
            raise SgfFileError(f"the match info key {key!r} cannot be written in an .sgf file: a key is text "
                               f"without a colon or surrounding spaces, and not one of {', '.join(_MI_OWN)}")
        else:
            entries.append(f"[{escape(key)}:{escape(value)}]")
    ordered = "".join(f"{p}[{escape(props[p])}]" for p in INFO_PROPERTIES.values() if p in props)
    return "".join(entries), ordered


def write_sgf(match: Match, path: str | os.PathLike[str] | None = None) -> str:
    """Return *match* as the text of a GNU Backgammon ``.sgf`` file, one game tree per
    game as gnubg writes them (so gnubg's ``load match`` opens it); also write it to
    *path* when given (UTF-8, whole: a temporary file beside it renamed over it, see
    :func:`fastgen._util.atomic_write`).

    The names, rules, results and :attr:`fastgen.Match.info` go to each tree's root
    (info keys without a property of their own, e.g. ``site``, as ``MI`` entries; a cube
    cap other than gnubg's 4096 as ``MI[cubelimit:N]``); the annotations read from a
    gnubg file are written back as they were read (their ``raw`` properties), and any
    annotation's ``comment`` as ``C``. A rejected resignation, or one not answered,
    leaves no trace, as in gnubg's own files.

    Raises :class:`fastgen.formats.SgfFileError` for a match without games (a file holds one
    tree a game), a match info key that cannot be written (empty, with a colon or
    surrounding spaces, or one of ``MI``'s own), or annotations whose raw properties are
    not SGF properties.
    """
    if not match.games:
        raise SgfFileError("a match without games cannot be written as an .sgf file: it holds one tree per game")
    extra_mi, info = _info_text(match)
    cap = "" if match.cube_cap in (1, GNUBG_MAX_CUBE) else f"[cubelimit:{match.cube_cap}]"
    trees = []
    for index, game in enumerate(match.games):
        s0, s1 = match.scores_before(index)
        root = [f"(;FF[4]GM[6]CA[UTF-8]AP[fastgen:{__version__}]",
                f"MI[length:{match.length}][game:{index}][ws:{s0}][bs:{s1}]{cap}{extra_mi if index == 0 else ''}",
                f"PW[{escape(match.names[0])}]PB[{escape(match.names[1])}]", info if index == 0 else ""]
        rules = (["NoCube"] if match.cube_cap == 1 else []) + (["Crawford"] if match.crawford_rule else [])
        rules += (["CrawfordGame"] if game.crawford else []) + (["Jacoby"] if match.jacoby and not match.length else [])
        if rules:
            root.append(f"RU[{':'.join(rules)}]")
        if game.over and game.winner is not None:
            points = (game.result or 1) * game.cube_value if game.resigned else game.points
            root.append(f"RE[{'WB'[game.winner]}+{points}{'R' if game.resigned else ''}]")
        first = game.annotations.get(0)
        root.append(_text(_props(first.get("game") if isinstance(first, dict) else None, _ROOT_ONLY)))
        try:
            nodes = _nodes(game)
        except FastgenError as exc:
            raise SgfFileError(f"game {index + 1} cannot be written: its record does not replay ({exc})") from None
        trees.append("".join(root) + "".join("\n" + n for n in nodes) + ")\n")
    text = "".join(trees)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise SgfFileError(f"the match holds text that UTF-8 cannot write (a lone surrogate "
                           f"{text[exc.start]!r} at character {exc.start}): it cannot be an .sgf file") from None
    if path is not None:
        with atomic_write(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    return text
