"""Boards drawn as SVG, in the spirit of python-chess's ``chess.svg``.

:func:`board` returns the picture as SVG text (a ``str``; Jupyter draws it, as it draws
:class:`fastgen.Board`, :class:`fastgen.Play` and :class:`fastgen.Game`). Only the
standard library's ``xml.etree`` is used.

The picture is the side on roll's view (row 1 of the board, docs/RULES.md R4), drawn light at
the bottom and moving counter-clockwise from its 24 point (top right) to its 1 point
(bottom right), its home board and borne-off tray on the right (``flipped=True`` mirrors
the picture: home board and tray on the left). The opponent (row 0) is drawn dark at the
top. Point numbers are the side on roll's.

Above and below the board a line per side gives its pip count and borne-off checkers,
with the players' names when *names* are given; the side at the bottom is marked "(on
roll)", or "(played)" when the board is drawn after its play (*played*, as a
:class:`fastgen.Play` draws itself).

Every drawn checker is an element of class ``checker`` with ``data-side`` (``mover`` =
row 1, ``opponent`` = row 0) and ``data-point`` (that side's own point 1..24, 25 for the
bar, 0 for borne off); each stack is a ``<g class="stack">`` with ``data-count``. At most
five checkers of a point (or bar) are drawn, the fifth carrying the count when there
are more. Borne-off checkers are thin slabs in the trays, one per checker.

>>> import fastgen
>>> text = board(fastgen.STARTING_BOARD, dice=(3, 1), size=300)
>>> text.startswith("<svg") and 'data-count="5"' in text
True
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import numpy as np

from fastgen.core.boards import as_board, as_dice
from fastgen.errors import InvalidMoveTextError, InvalidSVGOptionError
from fastgen.core import notation
from fastgen.core.ids import position_id
from fastgen.core.validate import parse_play

__all__ = ["board", "SvgText"]

# ------------------------------------------------------------------------ geometry
# Internal units (the viewBox); ``size`` scales the whole picture.
CUBE_COL = 60  # column left of the board for the cube
FRAME = 14
PW = 44  # point width
R = 19.5  # checker radius
STEP = 40  # distance between stacked checkers
HALF = 6 * PW
BAR = 52
TRAY = 56
HEAD = 38  # the opponent's line (pips, borne off) above the numbers
INFO_FONT = 22  # the pips lines: about 12 px high in a picture 400 px wide
NAME_CHARS = 24  # a longer name is cut, with an ellipsis
NUMS = 24  # point numbers
HH = 212  # height of one half of the playing area
BAND = 36  # the middle band between the halves
IH = 2 * HH + BAND
TRI = 188  # triangle height

PAD = 14  # outer margin on the tray's side
WIDTH = CUBE_COL + FRAME + HALF + BAR + HALF + FRAME + TRAY + FRAME + PAD
HEIGHT = HEAD + NUMS + FRAME + IH + FRAME + NUMS + HEAD

X_LEFT = CUBE_COL + FRAME  # left edge of the left half
X_BAR = X_LEFT + HALF
X_RIGHT = X_BAR + BAR
X_TRAY = X_RIGHT + HALF + FRAME
Y_TOP = HEAD + NUMS + FRAME  # top edge of the playing area
Y_BOTTOM = Y_TOP + IH
Y_MID = Y_TOP + IH / 2

COLORS = {
    "background": "#ffffff",
    "frame": "#5b3a21",
    "felt": "#2f5d4a",
    "point light": "#e3c48f",
    "point dark": "#a8432f",
    "mover": "#f6f1e4",
    "mover edge": "#3b3b3b",
    "mover text": "#1e1e1e",
    "opponent": "#2b2b2b",
    "opponent edge": "#000000",
    "opponent text": "#f6f1e4",
    "text": "#333333",
    "arrow": "#f5a623",
    "die": "#fdfdfd",
    "pip": "#1e1e1e",
    "cube": "#fdfdfd",
}

_SVG_NS = "http://www.w3.org/2000/svg"


class SvgText(str):
    """SVG text (a ``str``) that Jupyter displays as a picture (``_repr_svg_``)."""

    def _repr_svg_(self) -> str:
        return str(self)


# ------------------------------------------------------------------------ helpers


def _fmt(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".")


class _Canvas:
    """Places shapes given in unflipped coordinates, mirroring x when flipped."""

    def __init__(self, root: ET.Element, flipped: bool):
        self.root = root
        self.flipped = flipped

    def x(self, x: float) -> float:
        return WIDTH - x if self.flipped else x

    def add(self, parent, tag: str, **attrs) -> ET.Element:
        el = ET.SubElement(parent if parent is not None else self.root, tag)
        for k, v in attrs.items():
            if v is None:
                continue
            el.set(k.rstrip("_").replace("_", "-"), _fmt(v) if isinstance(v, float) else str(v))
        return el

    def rect(self, parent, x, y, w, h, **attrs):
        x0 = self.x(x + w) if self.flipped else x
        return self.add(parent, "rect", x=float(x0), y=float(y), width=float(w), height=float(h), **attrs)

    def circle(self, parent, cx, cy, r, **attrs):
        return self.add(parent, "circle", cx=float(self.x(cx)), cy=float(cy), r=float(r), **attrs)

    def text(self, parent, x, y, content, **attrs):
        el = self.add(parent, "text", x=float(self.x(x)), y=float(y), **attrs)
        el.text = content
        return el

    def polygon(self, parent, points, **attrs):
        pts = " ".join(f"{_fmt(self.x(px))},{_fmt(py)}" for px, py in points)
        return self.add(parent, "polygon", points=pts, **attrs)


def _point_x(point: int) -> float:
    """Centre x of the side on roll's *point* (1..24), unflipped."""
    if point <= 6:
        return X_RIGHT + (6 - point) * PW + PW / 2
    if point <= 12:
        return X_LEFT + (12 - point) * PW + PW / 2
    if point <= 18:
        return X_LEFT + (point - 13) * PW + PW / 2
    return X_RIGHT + (point - 19) * PW + PW / 2


def _slot_y(point: int, slot: int) -> float:
    """Centre y of the checker in *slot* (0 = at the edge) on the mover's *point*."""
    offset = 2 + R + slot * STEP
    return Y_BOTTOM - offset if point <= 12 else Y_TOP + offset


def _bar_slot_y(mover: bool, slot: int) -> float:
    """Mover's bar checkers below the middle band, the opponent's above it."""
    offset = BAND / 2 + 2 + R + slot * STEP
    return Y_MID + offset if mover else Y_MID - offset


def _as_steps(board: np.ndarray, play, dice) -> tuple:
    """The (from, to) steps of *play*: a Play, a move text (needs *dice*) or steps."""
    if play is None:
        return ()
    moves = getattr(play, "moves", None)
    if moves is not None and not isinstance(play, (str, bytes)):
        return tuple(moves)
    if isinstance(play, str):
        if dice is None:
            raise InvalidMoveTextError(f"a play given as text needs dice= to be read: {play!r}")
        return parse_play(board, dice, play).moves
    try:
        steps = [tuple(step) for step in play]
    except TypeError:
        raise InvalidMoveTextError(f"play must be a Play, a move text or (from, to) steps, got {play!r}") from None
    out = []
    for step in steps:
        if (
            len(step) != 2
            or not all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in step)
        ):
            raise InvalidMoveTextError(f"a step must be a pair of point numbers, got {step!r} in {play!r}")
        a, b = int(step[0]), int(step[1])
        if a == -1 and b == -1:  # padding of a core moves row
            continue
        if not (1 <= a <= 25 and 0 <= b <= 24 and b < a):
            raise InvalidMoveTextError(
                f"a step must go from 1..25 (25 = bar) down to 0..24 (0 = off), got {step!r} in {play!r}"
            )
        out.append((a, b))
    return tuple(out)


def _as_cube(cube):
    """(value, owner) with owner None (centred), 1 (row 1, the mover) or 0 (row 0)."""
    if cube is None:
        return None
    if isinstance(cube, (int, np.integer)) and not isinstance(cube, (bool, np.bool_)):
        value, owner = int(cube), None
    else:
        try:
            value, owner = cube
        except (TypeError, ValueError):
            raise InvalidSVGOptionError(f"cube must be a value or (value, owner), got {cube!r}") from None
    if (
        not isinstance(value, (int, np.integer))
        or isinstance(value, (bool, np.bool_))
        or value < 1
        or value > 1 << 15
        or value & (value - 1)
    ):
        raise InvalidSVGOptionError(f"cube value must be a power of two 1..32768, got {cube!r}")
    # Looked up by any hashable owner (numpy integers hash and compare as ints).
    names: dict[object, int | None] = {
        None: None, "centre": None, "center": None, "mover": 1, "opponent": 0, 0: 0, 1: 1,
    }
    if isinstance(owner, (bool, np.bool_)) or not isinstance(owner, (type(None), str, int, np.integer)) \
            or owner not in names:
        raise InvalidSVGOptionError(
            f"cube owner must be None (centred), 1 / 'mover' (row 1) or 0 / 'opponent' (row 0), got {cube!r}"
        )
    return int(value), names[owner]


def _check_size(size) -> int:
    if isinstance(size, (bool, np.bool_)) or not isinstance(size, (int, np.integer)) or not 16 <= size <= 20000:
        raise InvalidSVGOptionError(f"size must be an integer width in pixels, 16..20000, got {size!r}")
    return int(size)


# ------------------------------------------------------------------------ drawing


def _draw_frame(c: _Canvas) -> None:
    c.rect(None, 0, 0, WIDTH, HEIGHT, fill=COLORS["background"])
    c.rect(None, CUBE_COL, HEAD + NUMS, WIDTH - CUBE_COL - PAD, IH + 2 * FRAME, fill=COLORS["frame"], rx=6)
    for x0 in (X_LEFT, X_RIGHT):
        c.rect(None, x0, Y_TOP, HALF, IH, fill=COLORS["felt"])
    c.rect(None, X_TRAY, Y_TOP, TRAY, HH, fill=COLORS["felt"], class_="tray opponent")
    c.rect(None, X_TRAY, Y_BOTTOM - HH, TRAY, HH, fill=COLORS["felt"], class_="tray mover")
    points = c.add(None, "g", class_="points")
    for p in range(1, 25):
        x = _point_x(p)
        base, tip = (Y_BOTTOM, Y_BOTTOM - TRI) if p <= 12 else (Y_TOP, Y_TOP + TRI)
        color = COLORS["point dark"] if p % 2 else COLORS["point light"]
        c.polygon(points, [(x - PW / 2, base), (x + PW / 2, base), (x, tip)], fill=color, data_point=p)
    nums = c.add(None, "g", class_="numbers", font_family="sans-serif", font_size=13,
                 fill=COLORS["text"], text_anchor="middle")
    for p in range(1, 25):
        y = Y_BOTTOM + FRAME + 17 if p <= 12 else HEAD + 17
        c.text(nums, _point_x(p), y, str(p))


def _checker(c: _Canvas, parent, cx, cy, side: str, point: int, label: str | None = None) -> None:
    c.circle(parent, cx, cy, R, fill=COLORS[side], stroke=COLORS[f"{side} edge"], stroke_width=1.5,
             class_=f"checker {side}", data_side=side, data_point=point)
    c.circle(parent, cx, cy, R * 0.62, fill="none", stroke=COLORS[f"{side} edge"], stroke_width=0.8,
             stroke_opacity=0.45, class_="rim")
    if label is not None:
        c.text(parent, cx, cy + 5.5, label, class_="count", fill=COLORS[f"{side} text"], font_family="sans-serif",
               font_size=16, font_weight="bold", text_anchor="middle")


def _stack(c: _Canvas, count: int, side: str, point: int, centres) -> None:
    g = c.add(None, "g", class_="stack", data_side=side, data_point=point, data_count=count)
    shown = min(count, 5)
    for k in range(shown):
        cx, cy = centres(k)
        label = str(count) if count > 5 and k == shown - 1 else None
        _checker(c, g, cx, cy, side, point, label)


def _draw_checkers(c: _Canvas, b: np.ndarray) -> None:
    mover, opp = b[1], b[0]
    for p in range(1, 25):
        n = int(mover[p - 1])
        if n:
            _stack(c, n, "mover", p, lambda k, p=p: (_point_x(p), _slot_y(p, k)))
        n = int(opp[24 - p])  # the opponent's own point 25 - p is the mover's point p
        if n:
            _stack(c, n, "opponent", 25 - p, lambda k, p=p: (_point_x(p), _slot_y(p, k)))
    for side, row in (("mover", mover), ("opponent", opp)):
        n = int(row[24])
        if n:
            _stack(c, n, side, 25, lambda k, m=(side == "mover"): (X_BAR + BAR / 2, _bar_slot_y(m, k)))


def _check_names(names) -> tuple[str, str] | None:
    if names is None:
        return None
    if isinstance(names, (str, bytes)) or not isinstance(names, (tuple, list)) or len(names) != 2 \
            or not all(isinstance(n, str) for n in names):
        raise InvalidSVGOptionError(f"names must be two strings (row 0's, row 1's), got {names!r}")
    cut = [n if len(n) <= NAME_CHARS else n[:NAME_CHARS - 1] + "\u2026" for n in names]
    return cut[0], cut[1]


def _draw_trays_and_pips(c: _Canvas, b: np.ndarray, names=None, played: bool = False) -> None:
    slab_h, gap = 10, 2
    text = c.add(None, "g", class_="info", font_family="sans-serif", font_size=INFO_FONT, fill=COLORS["text"])
    for side, row in (("mover", b[1]), ("opponent", b[0])):
        off = 15 - int(row.sum())
        g = c.add(None, "g", class_="stack off", data_side=side, data_point=0, data_count=off)
        for k in range(off):
            y = Y_BOTTOM - 4 - (k + 1) * slab_h - k * gap if side == "mover" else Y_TOP + 4 + k * (slab_h + gap)
            c.rect(g, X_TRAY + 6, y, TRAY - 12, slab_h, rx=3, fill=COLORS[side], stroke=COLORS[f"{side} edge"],
                   stroke_width=1, class_=f"checker {side} off", data_side=side, data_point=0)
        pips = int(row[:25] @ np.arange(1, 26))
        words = f"{pips} pips, {off} off"
        if side == "mover":
            words += "  (played)" if played else "  (on roll)"
        if names is not None:
            words = f"{names[1 if side == 'mover' else 0]}: {words}"
        y = HEIGHT - 12 if side == "mover" else 26
        c.circle(text, X_LEFT + 8, y - 7.5, 8.5, fill=COLORS[side], stroke=COLORS[f"{side} edge"], stroke_width=1.2)
        el = c.text(text, X_LEFT + 24, y, words, class_=f"pips {side}", data_pips=pips, data_off=off)
        el.set("text-anchor", "end" if c.flipped else "start")


def _draw_dice(c: _Canvas, dice) -> None:
    size, gap = 34, 12
    g = c.add(None, "g", class_="dice")
    cx = X_RIGHT + HALF / 2
    x0 = cx - size - gap / 2
    spots = {
        1: [(0, 0)],
        2: [(-1, -1), (1, 1)],
        3: [(-1, -1), (0, 0), (1, 1)],
        4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
        5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
        6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
    }
    for i, d in enumerate(dice):
        # the first die on the left as seen, flipped or not
        x = x0 + (1 - i if c.flipped else i) * (size + gap)
        y = Y_MID - size / 2
        die = c.add(g, "g", class_="die", data_value=d)
        c.rect(die, x, y, size, size, rx=6, fill=COLORS["die"], stroke="#222222", stroke_width=1.5)
        for dx, dy in spots[d]:
            c.circle(die, x + size / 2 + dx * 9, y + size / 2 + dy * 9, 3.6, fill=COLORS["pip"])


def _draw_cube(c: _Canvas, cube) -> None:
    value, owner = cube
    size = 40
    x = CUBE_COL / 2 - size / 2
    if owner is None:
        y = Y_MID - size / 2
        shown = 64 if value == 1 else value
    else:
        y = Y_BOTTOM - size - 4 if owner == 1 else Y_TOP + 4
        shown = value
    owner_name = {None: "centre", 1: "mover", 0: "opponent"}[owner]
    g = c.add(None, "g", class_="cube", data_value=value, data_owner=owner_name)
    c.rect(g, x, y, size, size, rx=5, fill=COLORS["cube"], stroke="#222222", stroke_width=1.5)
    c.text(g, x + size / 2, y + size / 2 + 6.5, str(shown), font_family="sans-serif", font_size=19,
           font_weight="bold", text_anchor="middle", fill="#222222")


def _anchor(b: np.ndarray, point: int) -> tuple:
    """Where an arrow starts or ends on the mover's *point* (25 bar, 0 off)."""
    if point == 0:
        return X_TRAY + TRAY / 2, Y_BOTTOM - HH / 2
    if point == 25:
        n = int(b[1, 24])
        return X_BAR + BAR / 2, _bar_slot_y(True, max(min(n, 5) - 1, 0))
    n = int(b[1, point - 1])
    slot = max(min(n, 5) - 1, 0)
    return _point_x(point), _slot_y(point, slot)


def _draw_arrows(c: _Canvas, b: np.ndarray, steps, root: ET.Element) -> None:
    if not steps:
        return
    defs = c.add(root, "defs")
    marker = c.add(defs, "marker", id="fastgen-arrowhead", markerWidth=4, markerHeight=4, refX=2.2, refY=2,
                   orient="auto", markerUnits="strokeWidth")
    c.add(marker, "path", d="M0,0 L4,2 L0,4 z", fill=COLORS["arrow"])
    g = c.add(None, "g", class_="arrows", stroke=COLORS["arrow"], stroke_width=5.5, stroke_linecap="round",
              fill="none", opacity=0.9)
    for a, z in steps:
        x1, y1 = _anchor(b, a)
        x2, y2 = _anchor(b, z)
        # stop short of the target centre so the head sits on the checker's edge
        # within one half the arrow bows toward the middle band, clear of the stacks
        qx, qy = (x1 + x2) / 2, (y1 + y2) / 2
        if (y1 - Y_MID) * (y2 - Y_MID) > 0 and z != 0:
            bow = min(abs(x2 - x1) * 0.55, 150.0)
            qy += -bow if y1 > Y_MID else bow
        length = math.hypot(x2 - qx, y2 - qy) or 1.0
        shrink = min(R * 0.9, length / 3)
        x2, y2 = x2 - (x2 - qx) * shrink / length, y2 - (y2 - qy) * shrink / length
        d = f"M{_fmt(c.x(x1))},{_fmt(y1)} Q{_fmt(c.x(qx))},{_fmt(qy)} {_fmt(c.x(x2))},{_fmt(y2)}"
        c.add(g, "path", d=d, marker_end="url(#fastgen-arrowhead)", class_="arrow", data_from=a, data_to=z)


def board(board, *, play=None, dice=None, cube=None, flipped: bool = False, size: int = 400,
          names=None, played: bool = False) -> SvgText:
    """Draw *board* as SVG text (a :class:`SvgText`, a ``str`` Jupyter displays).

    *board* is a (2, 25) board array (or anything with an ``array`` attribute, such as
    :class:`fastgen.Board`), drawn from its side on roll (row 1, light, at the bottom).
    *play* adds an arrow per step: a :class:`fastgen.Play`, a move text (read with
    *dice*) or ``(from, to)`` steps in the side on roll's numbering (25 = bar, 0 = off);
    the arrows are drawn on the board as given, so pass the board before or after the
    play. *dice* ``(d1, d2)`` are drawn in the side on roll's half. *cube* is a value
    (centred) or ``(value, owner)`` with owner ``None`` (centred), ``1``/``"mover"``
    (row 1) or ``0``/``"opponent"`` (row 0); a centred cube of 1 shows 64. *flipped*
    mirrors the picture (home board on the left). *size* is the width in pixels.
    *names* ``(row 0's, row 1's)`` start the lines of pip counts (cut past 24
    characters). The side at the bottom is marked "(on roll)"; with *played* (the board
    is drawn after that side's play, as a :class:`fastgen.Play` draws itself) it is
    marked "(played)".

    Bad input raises the specific error quoting it: :class:`InvalidBoardError`,
    :class:`InvalidDiceError`, :class:`InvalidMoveTextError` (bad steps) or
    :class:`InvalidSVGOptionError` (cube, size, names).
    """
    arr = as_board(getattr(board, "array", board))
    size = _check_size(size)
    dice = None if dice is None else as_dice(dice)
    steps = _as_steps(arr, play, dice)
    cube = _as_cube(cube)
    names = _check_names(names)
    height = size * HEIGHT / WIDTH
    root = ET.Element("svg", {
        "xmlns": _SVG_NS,
        "version": "1.1",
        "viewBox": f"0 0 {WIDTH} {HEIGHT}",
        "width": str(size),
        "height": _fmt(height),
        "class": "fastgen-board" + (" flipped" if flipped else ""),
    })
    title = ET.SubElement(root, "title")
    title.text = f"Position ID {position_id(arr)}" + (f", dice {dice[0]}-{dice[1]}" if dice else "")
    if names is not None:
        title.text += f", {names[1]} {'played' if played else 'on roll'} against {names[0]}"
    c = _Canvas(root, bool(flipped))
    _draw_frame(c)
    _draw_trays_and_pips(c, arr, names, bool(played))
    _draw_checkers(c, arr)
    if dice is not None:
        _draw_dice(c, dice)
    if cube is not None:
        _draw_cube(c, cube)
    _draw_arrows(c, arr, steps, root)
    return SvgText(ET.tostring(root, encoding="unicode"))


def _draw_play(board_after, steps, dice) -> SvgText:
    """A play's picture for Jupyter: the board after it, an arrow per step, the dice,
    the side that played marked "(played)"."""
    return board(board_after, play=steps, dice=dice, played=True)


# Play._repr_svg_, and Board's and Game's (the notation and the games do not import the picture)
notation.set_svg_drawer(_draw_play, board)
