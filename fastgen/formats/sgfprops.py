"""The syntax of SGF files, and the values of GNU Backgammon's own SGF properties.

:func:`parse_collection` reads the bytes of an SGF collection (FF[4]: ``(;A[x]B[y];C[z])
(;...)``) into its game trees, each a list of :class:`Node` along the main line (the
first variation at each branch; the others are read for their syntax and left out). It
works on bytes, so it needs no charset: the bytes that make the syntax (``( ; ) [ ] \\``)
never occur inside a UTF-8 or Latin-1 character, and each value is decoded later
(:func:`decode`) by the charset the file names (``CA``). In a value, ``\\`` makes the
next byte plain (``\\]`` is ``]``, ``\\\\`` is ``\\``) and a ``\\`` before a line break
removes it (a soft line break). Property names are upper-case letters (lower-case letters
inside a name, as in FF[3]'s ``CoPyright``, are left out). Reading is one pass over the
bytes (no backtracking pattern), and the number of values is bounded
(:data:`MAX_VALUES`) so a small file cannot make a huge number of Python objects.

The rest of the module gives GNU Backgammon's properties of a node their meaning
(:func:`annotation`): ``A`` (the analysis of a play: the index of the play made, then one
value per candidate: its from/to letters, ``E`` for an evaluation, ``ver`` and the
format's version, the five probabilities, the equity and the evaluation's settings,
``0C ...`` for a cubeful 0-ply one), ``DA`` (the analysis of a cube decision: ``E ver
3``, the settings, then seven numbers for no double and seven for double/take: the five
probabilities, the cubeless equity and the cubeful one), ``LU`` (the luck of the roll),
``GB`` / ``GW`` (a roll good for Black or White: 1 lucky, 2 very lucky), ``BM`` (a bad
move: 1 bad, 2 very bad), ``DO`` (doubtful), ``IT`` (interesting), ``TE`` (good: 1, very
good: 2), ``BC`` (a bad cube decision), ``DC`` (a doubtful one) and ``C`` (a comment);
``GS`` (a game's statistics, ``M:``, ``C:`` and ``D:`` lists of numbers) on a game's
root. Whatever cannot be parsed into numbers is kept as text only: the raw values of
every property are kept beside the parsed ones, and they are what is written back.
"""

from __future__ import annotations

import re
from typing import Any, Callable, NoReturn

__all__ = ["Node", "parse_collection", "decode", "escape", "letters_text", "annotation", "game_statistics",
           "MAX_VALUES", "MAX_NAME", "MAX_DEPTH"]

#: The most nodes and values (``[...]``) together a file may hold: a long analysed match
#: holds a few hundred thousand; a file of millions of tiny ones is refused, not turned
#: into millions of Python objects.
MAX_VALUES = 2_000_000
#: The longest property name read (SGF's own are one or two letters).
MAX_NAME = 16
#: The deepest nesting of variations read (GNU Backgammon writes none).
MAX_DEPTH = 1000

_WHITESPACE = frozenset(b" \t\r\n\x0b\x0c")
_UPPER = frozenset(range(ord("A"), ord("Z") + 1))
_LETTER = _UPPER | frozenset(range(ord("a"), ord("z") + 1))
_SPECIAL_RE = re.compile(rb"[\\\]]")  # the next byte that ends or escapes a value


class Node:
    """One node: its byte offset and its properties, each (name, raw values, offset)."""

    __slots__ = ("offset", "props")

    def __init__(self, offset: int) -> None:
        self.offset = offset
        self.props: list[tuple[str, list[bytes], int]] = []


Fail = Callable[[int, str], NoReturn]


def _value(data: bytes, i: int, fail: Fail) -> tuple[bytes, int]:
    """The value whose ``[`` is at *i*, with its escapes resolved, and the offset after
    its ``]``."""
    start = i
    i += 1
    parts = []
    n = len(data)
    while True:
        m = _SPECIAL_RE.search(data, i)
        if m is None:
            fail(start, "a value ([...]) is not closed: the file ends inside it")
        j = m.start()
        parts.append(data[i:j])
        if data[j] == 0x5D:  # ]
            return b"".join(parts), j + 1
        if j + 1 >= n:
            fail(j, "the file ends after an escape (\\) inside a value")
        nxt = data[j + 1]
        if nxt in (0x0A, 0x0D):  # a soft line break: the escape and the break vanish
            k = j + 2
            if k < n and data[k] in (0x0A, 0x0D) and data[k] != nxt:
                k += 1
            i = k
        else:
            parts.append(data[j + 1:j + 2])
            i = j + 2


def parse_collection(data: bytes, fail: Callable[[int, str, int, int], NoReturn]) -> list[list[Node]]:
    """The game trees of the SGF collection *data*, each its main line of nodes.

    *fail(offset, message, tree, node)* raises the caller's error; it is called for any
    fault of the syntax (the tree and node numbers are 1-based, 0 before the first)."""
    trees: list[list[Node]] = []
    # one entry per open "(": [on the main line, variations seen inside, nodes seen]
    stack: list[list[Any]] = []
    node: Node | None = None
    values = 0
    n = len(data)

    def where(offset: int, message: str) -> NoReturn:
        fail(offset, message, len(trees), len(trees[-1]) if trees else 0)

    i = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    while i < n:
        c = data[i]
        if c in _WHITESPACE:
            i += 1
        elif not stack and c != 0x28:
            if not trees:
                where(i, f"byte {data[i:i + 1]!r} where an SGF file starts with '(;'")
            where(i, f"byte {data[i:i + 1]!r} after a game tree, where only another tree '(;...)' may follow")
        elif c == 0x28:  # (
            if not stack:
                trees.append([])
                stack.append([True, 0, 0])
            else:
                parent = stack[-1]
                if parent[2] == 0:
                    where(i, "a variation '(' comes before any node of its game tree")
                if len(stack) >= MAX_DEPTH:
                    where(i, f"variations nested more than {MAX_DEPTH} deep")
                stack.append([parent[0] and parent[1] == 0, 0, 0])
                parent[1] += 1
            node = None
            i += 1
        elif c == 0x29:  # )
            if stack[-1][2] == 0:
                where(i, "an empty game tree '()': a tree holds one node or more")
            stack.pop()
            node = None
            i += 1
        elif c == 0x3B:  # ;
            level = stack[-1]
            if level[1]:
                where(i, "a node ';' after a variation: a tree's variations come after its nodes")
            level[2] += 1
            values += 1
            if values > MAX_VALUES:
                where(i, f"more than {MAX_VALUES:,} nodes and values: no match file holds so many")
            node = Node(i)
            if level[0]:
                trees[-1].append(node)
            i += 1
        elif c in _LETTER:
            if node is None:
                where(i, "a property outside a node (a property follows a ';')")
            start = i
            while i < n and data[i] in _LETTER:
                i += 1
            if i - start > MAX_NAME:
                where(start, f"a property name longer than {MAX_NAME} letters")
            name = bytes(b for b in data[start:i] if b in _UPPER).decode("ascii")
            if not name:
                where(start, "a property name without an upper-case letter")
            while i < n and data[i] in _WHITESPACE:
                i += 1
            if i >= n or data[i] != 0x5B:
                where(start, f"the property {name} has no value ([...])")
            found = []
            while i < n and data[i] == 0x5B:
                value, i = _value(data, i, where)
                found.append(value)
                values += 1
                if values > MAX_VALUES:
                    where(i, f"more than {MAX_VALUES:,} nodes and values: no match file holds so many")
                while i < n and data[i] in _WHITESPACE:
                    i += 1
            node.props.append((name, found, start))
        else:
            where(i, f"unexpected byte {data[i:i + 1]!r} (outside a value, only ( ; ) and property names may stand)")
    if stack:
        where(n, "the file ends inside a game tree: a ')' is missing (a truncated file?)")
    if not trees:
        where(n, "no game tree: an SGF file holds '(;...)' for each game")
    return trees


def decode(value: bytes, charset: str) -> str:
    """*value* as text in *charset* (a Python codec name); UnicodeDecodeError when it is not."""
    return value.decode(charset)


def escape(text: str) -> str:
    """*text* as an SGF value's content: ``\\`` and ``]`` escaped."""
    return text.replace("\\", "\\\\").replace("]", "\\]")


# --------------------------------------------------------------------------- GNU Backgammon's analysis

_LETTERS = "abcdefghijklmnopqrstuvwx"


def letters_text(letters: str, player: int) -> str | None:
    """The from/to letter pairs of *letters* as the mover's move text (``"8/5 6/5"``,
    ``"bar/22"``, ``"6/off"``; hits are not marked), or None when they are not pairs of
    point letters. *player* is the mover (0: White, whose letter ``a`` is its point 1;
    1: Black, whose point 1 is ``x``)."""
    if len(letters) % 2 or len(letters) > 8:
        return None
    steps = []
    for k in range(0, len(letters), 2):
        words = []
        for ch in letters[k:k + 2]:
            if ch == "y":
                words.append("bar")
            elif ch == "z":
                words.append("off")
            elif ch in _LETTERS:
                i = _LETTERS.index(ch)
                words.append(str(i + 1 if player == 0 else 24 - i))
            else:
                return None
        steps.append("/".join(words))
    return " ".join(steps)


def _float(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value == value and abs(value) != float("inf") else None


def _floats(tokens: list[str]) -> list[float] | None:
    out = []
    for t in tokens:
        v = _float(t)
        if v is None:
            return None
        out.append(v)
    return out


def _level(token: str) -> tuple[str, bool] | None:
    """(``"N-ply"``, cubeful) of an evaluation's settings token such as ``0C``."""
    digits = token.rstrip("C")
    if not digits.isdigit() or len(digits) > 2 or len(token) - len(digits) > 1:
        return None
    return f"{int(digits)}-ply", token.endswith("C")


def _candidate(text: str, player: int, played: bool) -> dict[str, Any]:
    """One candidate of an ``A`` property, parsed as far as its form is known."""
    tokens = text.split()
    out: dict[str, Any] = {"played": played}
    if tokens and tokens[0] not in ("E", "R") and re.fullmatch(r"[a-z]*", tokens[0]):
        letters = tokens.pop(0)
        out["moves"] = letters
        shown = letters_text(letters, player)
        if shown is not None:
            out["play"] = shown
    if len(tokens) >= 10 and tokens[0] == "E" and tokens[1] == "ver":
        numbers = _floats(tokens[3:9])
        level = _level(tokens[9])
        if numbers is not None and tokens[2].isdigit():
            out.update(kind="evaluation", probs=numbers[:5], equity=numbers[5])
            if level is not None:
                out["level"], out["cubeful"] = level
    elif tokens and tokens[0] == "R":
        out["kind"] = "rollout"
    return out


def _move_analysis(values: list[str], player: int) -> list[dict[str, Any]] | None:
    if not values or not values[0].strip().lstrip("-").isdigit() or len(values[0]) > 6:
        return None
    played = int(values[0])
    return [_candidate(v, player, i == played) for i, v in enumerate(values[1:])]


def _cube_analysis(value: str) -> dict[str, Any] | None:
    tokens = value.split()
    if len(tokens) < 3 + 1 + 14 or tokens[0] != "E" or tokens[1] != "ver" or not tokens[2].isdigit():
        return None
    numbers = _floats(tokens[-14:])
    if numbers is None:
        return None
    out: dict[str, Any] = {
        "kind": "evaluation",
        "probs": numbers[0:5], "cubeless_equity": numbers[5], "no_double": numbers[6],
        "probs_double": numbers[7:12], "double_take": numbers[13],
    }
    level = _level(tokens[3])
    if level is not None:
        out["level"], out["cubeful"] = level
    return out


_MOVE_MARKS = {("BM", "1"): "bad", ("BM", "2"): "very bad", ("TE", "1"): "good", ("TE", "2"): "very good"}
_PLAIN_MARKS = {"DO": "doubtful", "IT": "interesting"}
_CUBE_MARKS = {("BC", "1"): "bad", ("BC", "2"): "very bad"}


def annotation(raw: dict[str, list[str]], player: int | None) -> dict[str, Any]:
    """GNU Backgammon's annotation of one node, from its properties *raw* (name to
    decoded values, the move itself left out); *player* is the node's mover (None for
    none). The parsed fields are ``comment``, ``luck``, ``luck_mark`` (``"lucky"``,
    ``"very lucky"``, ``"unlucky"``, ``"very unlucky"``, for the mover), ``mark`` (the
    play's or the cube action's: ``"bad"``, ``"very bad"``, ``"doubtful"``,
    ``"interesting"``, ``"good"``, ``"very good"``), ``cube_mark`` (the decision not to
    double before a play), ``move_analysis`` and ``cube_analysis``; ``raw`` keeps *raw*."""
    out: dict[str, Any] = {"source": "gnubg"}
    if "C" in raw and raw["C"]:
        out["comment"] = raw["C"][0]
    if raw.get("LU"):
        luck = _float(raw["LU"][0])
        if luck is not None:
            out["luck"] = luck
    for name, side in (("GW", 0), ("GB", 1)):
        value = raw.get(name, [""])[0] if raw.get(name) else None
        if value in ("1", "2") and player is not None:
            good = side == player
            out["luck_mark"] = ("very " if value == "2" else "") + ("lucky" if good else "unlucky")
    for name, values in raw.items():
        first = values[0] if values else ""
        if (name, first) in _MOVE_MARKS:
            out["mark"] = _MOVE_MARKS[(name, first)]
        elif name in _PLAIN_MARKS:
            out["mark"] = _PLAIN_MARKS[name]
        elif (name, first) in _CUBE_MARKS:
            out["cube_mark"] = _CUBE_MARKS[(name, first)]
        elif name == "DC":
            out["cube_mark"] = "doubtful"
    if raw.get("A") and player is not None:
        moves = _move_analysis(raw["A"], player)
        if moves is not None:
            out["move_analysis"] = moves
    if raw.get("DA"):
        cube = _cube_analysis(raw["DA"][0])
        if cube is not None:
            out["cube_analysis"] = cube
    out["raw"] = raw
    return out


def game_statistics(values: list[str]) -> dict[str, list[float]]:
    """The lists of numbers of a ``GS`` property by their letter (``M``, ``C``, ``D``);
    values of another form are left out (they stay in the raw text)."""
    out: dict[str, list[float]] = {}
    for value in values:
        key, sep, rest = value.partition(":")
        numbers = _floats(rest.split()) if sep else None
        if numbers is not None and key.isalpha() and len(key) <= 4:
            out[key] = numbers
    return out
