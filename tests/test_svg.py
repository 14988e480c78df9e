"""fastgen.formats.svg: the drawn checkers, dice, cube and arrows read back from the SVG as XML,
bad options, the Jupyter hooks, and a real browser rendering to PNG.

Set ``FASTGEN_PNG_DIR=docs`` to keep the browser's pictures (docs/opening.png,
docs/board.png are made that way).
"""

import os
import shutil
import subprocess
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import fastgen
from fastgen.formats import svg
from fastgen.errors import InvalidBoardError, InvalidDiceError, InvalidMoveTextError, InvalidSVGOptionError

from strategies import bar_boards, bearoff_boards, contact_boards, near_empty_boards

NS = {"s": "http://www.w3.org/2000/svg"}
MID_GAME = ("0JfiACyMt+AQUA", (4, 4), "bar/17 24/20*/16*")  # from random self-play, seed 5


def parse(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return root


def checkers(root, side, point):
    return [
        e for e in root.iter("{http://www.w3.org/2000/svg}circle")
        if "checker" in e.get("class", "").split() and e.get("data-side") == side and e.get("data-point") == str(point)
    ]


def slabs(root, side):
    return [
        e for e in root.iter("{http://www.w3.org/2000/svg}rect")
        if e.get("class", "").split() == ["checker", side, "off"]
    ]


def label_x(root) -> dict:
    """x of each point number printed on the picture (the side on roll's numbering)."""
    group = next(g for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "numbers")
    return {int(t.text): float(t.get("x")) for t in group}


def check_checkers(board, root):
    """Every drawn checker agrees with the board, side by side and point by point."""
    for side, row in (("mover", board[1]), ("opponent", board[0])):
        for own in range(1, 26):  # own points 1..24, 25 = bar
            n = int(row[own - 1] if own <= 24 else row[24])
            drawn = checkers(root, side, own)
            assert len(drawn) == min(n, 5), (side, own, n)
        assert len(slabs(root, side)) == 15 - int(row.sum())
    # stacks carry their full count; a count is written on the 5th checker past 5
    for g in root.iter("{http://www.w3.org/2000/svg}g"):
        if "stack" not in g.get("class", "").split():
            continue
        side, own, count = g.get("data-side"), int(g.get("data-point")), int(g.get("data-count"))
        row = board[1] if side == "mover" else board[0]
        expected = 15 - int(row.sum()) if own == 0 else int(row[own - 1] if own <= 24 else row[24])
        assert count == expected
        texts = [t.text for t in g.iter("{http://www.w3.org/2000/svg}text")]
        assert texts == ([str(count)] if count > 5 and own != 0 else [])


def check_layout(board, root, flipped):
    """Checkers stand on the column of their point's number: the mover's point p, the
    opponent's own point q on the mover's point 25 - q; points 1..12 at the bottom."""
    xs = label_x(root)
    height = float(root.get("viewBox").split()[3])
    bottom_row = [xs[p] for p in range(1, 13)]
    # counter-clockwise from 24 (top right) to 1 (bottom right); flipped mirrors
    assert bottom_row == sorted(bottom_row, reverse=not flipped)
    for side, row in (("mover", board[1]), ("opponent", board[0])):
        for own in range(1, 25):
            p = own if side == "mover" else 25 - own
            for c in checkers(root, side, own):
                assert float(c.get("cx")) == pytest.approx(xs[p])
                assert (float(c.get("cy")) > height / 2) == (p <= 12)


any_board = st.one_of(contact_boards(), bar_boards(), bearoff_boards(), near_empty_boards())


@settings(max_examples=60)
@given(any_board, st.booleans())
def test_drawn_checkers_match_random_boards(board, flipped):
    root = parse(svg.board(board, flipped=flipped))
    check_checkers(board, root)
    check_layout(board, root, flipped)


def test_opening_position_by_hand():
    root = parse(svg.board(fastgen.STARTING_BOARD, dice=(3, 1), cube=1, size=500))
    for side in ("mover", "opponent"):
        assert {p: len(checkers(root, side, p)) for p in (6, 8, 13, 24)} == {6: 5, 8: 3, 13: 5, 24: 2}
        assert sum(len(checkers(root, side, p)) for p in range(26)) == 15
        pips = next(e for e in root.iter("{http://www.w3.org/2000/svg}text") if e.get("class") == f"pips {side}")
        assert pips.get("data-pips") == "167" and pips.text.startswith("167 pips, 0 off")
    assert root.get("width") == "500"
    assert root.find("s:title", NS).text == "Position ID 4HPwATDgc/ABMA, dice 3-1"
    dice = [g for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "die"]
    assert [d.get("data-value") for d in dice] == ["3", "1"]
    assert [len(d.findall("s:circle", NS)) for d in dice] == [3, 1]  # the spots
    cube = next(g for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "cube")
    assert cube.get("data-owner") == "centre" and cube.find("s:text", NS).text == "64"


def test_counts_past_five_bar_and_off():
    board = np.zeros((2, 25), np.int8)
    board[1, [0, 5, 24]] = [2, 9, 1]  # mover: 2 on its 1 point, 9 on 6, 1 on the bar, 3 off
    board[0, [0, 24]] = [7, 2]  # opponent: 7 on its 1 point (the mover's 24), 2 on the bar, 6 off
    root = parse(svg.board(board))
    check_checkers(board, root)
    assert len(checkers(root, "mover", 6)) == 5 and len(checkers(root, "opponent", 1)) == 5
    assert len(checkers(root, "mover", 25)) == 1 and len(checkers(root, "opponent", 25)) == 2
    assert len(slabs(root, "mover")) == 3 and len(slabs(root, "opponent")) == 6
    texts = {t.text for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "count"}
    assert texts == {"9", "7"}


def test_arrows_follow_the_play_steps():
    pid, dice, text = MID_GAME
    board = fastgen.parse_position_id(pid)
    play = fastgen.parse_play(board, dice, text)
    for drawn, given_play in ((play.board_after, play), (board, text), (board, play.moves)):
        root = parse(svg.board(drawn, play=given_play, dice=dice))
        arrows = [e for e in root.iter("{http://www.w3.org/2000/svg}path") if e.get("class") == "arrow"]
        assert sorted((int(a.get("data-from")), int(a.get("data-to"))) for a in arrows) == sorted(play.moves)
        assert all(a.get("marker-end") == "url(#fastgen-arrowhead)" for a in arrows)
    # a bear-off step points at the tray
    home = np.zeros((2, 25), np.int8)
    home[1, [0, 2]] = [1, 1]
    home[0, 0] = 13  # its 1 point, the mover's 24
    root = parse(svg.board(home, play=[(3, 0), (1, 0)]))
    assert len([e for e in root.iter("{http://www.w3.org/2000/svg}path") if e.get("class") == "arrow"]) == 2


def test_cube_owner_sides():
    y = {}
    for owner in (None, "mover", "opponent", 1, 0):
        root = parse(svg.board(fastgen.STARTING_BOARD, cube=(8, owner)))
        cube = next(g for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "cube")
        assert cube.find("s:text", NS).text == "8" and cube.get("data-value") == "8"
        y[cube.get("data-owner")] = float(cube.find("s:rect", NS).get("y"))
    assert y["opponent"] < y["centre"] < y["mover"]  # the mover owns it at the bottom


def test_jupyter_hooks():
    board = fastgen.Board()
    check_checkers(fastgen.STARTING_BOARD, parse(board._repr_svg_()))
    play = fastgen.parse_play(fastgen.STARTING_BOARD, (3, 1), "8/5 6/5")
    root = parse(play._repr_svg_())
    check_checkers(play.board_after, root)
    assert len([e for e in root.iter("{http://www.w3.org/2000/svg}path") if e.get("class") == "arrow"]) == 2
    game = fastgen.Game(seed=3)
    game.roll()
    root = parse(game._repr_svg_())
    check_checkers(game.board, root)
    dice = [g.get("data-value") for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "die"]
    assert dice == [str(d) for d in game.dice]
    text = svg.board(fastgen.STARTING_BOARD)
    assert isinstance(text, str) and text._repr_svg_() == text


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"board": np.zeros((2, 24), np.int8)}, InvalidBoardError),
        ({"dice": (0, 3)}, InvalidDiceError),
        ({"cube": 3}, InvalidSVGOptionError),
        ({"cube": (2, "left")}, InvalidSVGOptionError),
        ({"cube": "2"}, InvalidSVGOptionError),
        ({"size": 0}, InvalidSVGOptionError),
        ({"size": 1.5}, InvalidSVGOptionError),
        ({"play": [(0, 3)]}, InvalidMoveTextError),
        ({"play": [(6, 2, 1)]}, InvalidMoveTextError),
        ({"play": 7}, InvalidMoveTextError),
        ({"play": "8/5 6/5"}, InvalidMoveTextError),  # text needs dice
    ],
)
def test_bad_options_raise_quoting_them(kwargs, error):
    kwargs = dict(kwargs)
    board = kwargs.pop("board", fastgen.STARTING_BOARD)
    with pytest.raises(error) as err:
        svg.board(board, **kwargs)
    assert isinstance(err.value, ValueError)
    if kwargs:
        (value,) = kwargs.values()
        assert repr(value) in str(err.value) or str(value) in str(err.value)


# ------------------------------------------------------------------ a real browser
def read_png(path: Path) -> np.ndarray:
    """(height, width, 3) uint8 pixels of an 8-bit RGB/RGBA non-interlaced PNG."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, []
    while pos < len(data):
        length = int.from_bytes(data[pos : pos + 4], "big")
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            w, h = int.from_bytes(body[:4], "big"), int.from_bytes(body[4:8], "big")
            depth, ctype, interlace = body[8], body[9], body[12]
        elif kind == b"IDAT":
            idat.append(body)
    assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
    bpp = 3 if ctype == 2 else 4
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), np.uint8).reshape(h, 1 + w * bpp)
    out = np.zeros((h, w * bpp), np.int64)
    prev = np.zeros(w * bpp, np.int64)
    for y in range(h):
        f, line = raw[y, 0], raw[y, 1:].astype(np.int64)
        if f == 0:
            cur = line
        elif f == 1:  # Sub: a running sum per channel
            cur = np.cumsum(line.reshape(w, bpp), axis=0).reshape(-1) & 255
        elif f == 2:  # Up
            cur = (line + prev) & 255
        else:  # Average or Paeth: byte by byte (plain Python ints are quicker than numpy here)
            ln, up, rec = line.tolist(), prev.tolist(), [0] * (w * bpp)
            for x in range(w * bpp):
                a = rec[x - bpp] if x >= bpp else 0
                b = up[x]
                if f == 3:
                    rec[x] = (ln[x] + (a + b) // 2) & 255
                    continue
                c = up[x - bpp] if x >= bpp else 0
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                rec[x] = (ln[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            cur = np.array(rec, np.int64)
        out[y] = cur
        prev = cur
    return out.reshape(h, w, bpp)[..., :3].astype(np.uint8)


def share_of(pixels: np.ndarray, hex_color: str, tol: int = 12) -> float:
    rgb = np.array([int(hex_color[i : i + 2], 16) for i in (1, 3, 5)])
    return float((np.abs(pixels.astype(int) - rgb).max(axis=-1) <= tol).mean())


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no headless Chromium installed (Debian: apt-get install chromium)")


def screenshot(browser: str, text: str, tmp_path: Path, name: str) -> Path:
    width = int(ET.fromstring(text).get("width"))
    height = int(float(ET.fromstring(text).get("height"))) + 1
    page = tmp_path / f"{name}.html"
    page.write_text(f"<!doctype html><html><body style='margin:0'>{text}</body></html>")
    png = tmp_path / f"{name}.png"
    subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         f"--screenshot={png}", f"--window-size={width},{height}", page.as_uri()],
        capture_output=True, timeout=120, check=False,
    )
    assert png.exists(), f"{browser} wrote no screenshot"
    keep = os.environ.get("FASTGEN_PNG_DIR")
    if keep:
        shutil.copy(png, Path(keep) / f"{name}.png")
    return png


def test_browser_renders_opening_and_mid_game_play(tmp_path):
    browser = chromium()
    opening = svg.board(fastgen.STARTING_BOARD, dice=(3, 1), cube=1, size=760)
    pid, dice, text = MID_GAME
    before = fastgen.parse_position_id(pid)
    play = fastgen.parse_play(before, dice, text)
    mid = svg.board(play.board_after, play=play, dice=dice, cube=(2, "opponent"), size=760)
    for name, picture, arrows in (("opening", opening, False), ("board", mid, True)):
        pixels = read_png(screenshot(browser, picture, tmp_path, name))
        assert pixels.shape[1] == 760 and pixels.shape[0] >= 590
        assert share_of(pixels, svg.COLORS["felt"]) > 0.2  # the playing area
        assert share_of(pixels, svg.COLORS["frame"]) > 0.05
        assert share_of(pixels, svg.COLORS["mover"]) > 0.01  # light checkers
        assert share_of(pixels, svg.COLORS["opponent"]) > 0.01  # dark checkers
        assert (share_of(pixels, svg.COLORS["arrow"], tol=40) > 0.002) == arrows
