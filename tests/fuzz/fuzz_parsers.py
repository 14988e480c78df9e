"""Coverage-guided fuzzing of fastgen's parsers with atheris (libFuzzer for Python).

Not run by the tests or CI (it runs until stopped or until -max_total_time); see
README.md in this directory. Each target feeds the fuzzer's bytes to one parser, which
may only return or raise that parser's own fastgen error; any other exception (or a
hang past -timeout) is reported by libFuzzer as a crash with the input saved.

    python tests/fuzz/fuzz_parsers.py TARGET [libFuzzer options] [CORPUS_DIR ...]
    python tests/fuzz/fuzz_parsers.py TARGET --write-seeds DIR

TARGET is one of: position_id, match_id, gnubg_id, xgid, move_text, read_mat.
"""

from __future__ import annotations

import sys
from pathlib import Path

import atheris

with atheris.instrument_imports():
    import numpy as np

    import fastgen
    from fastgen.core.notation import parse_move_text

BOARDS = [
    fastgen.STARTING_BOARD,
    fastgen.parse_position_id("4HPwATDgc/ABMA"),
    fastgen.parse_position_id("sGfwATDgc/ABMA"),  # a blot to hit
    fastgen.parse_position_id("2+4OAAAA2+4OAA"),  # mutual closed boards
]


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="surrogateescape")


def position_id(data: bytes) -> None:
    text = _text(data)
    try:
        board = fastgen.parse_position_id(text)
    except fastgen.errors.InvalidPositionIDError:
        return
    assert fastgen.position_id(board) == text


def match_id(data: bytes) -> None:
    try:
        state = fastgen.parse_match_id(_text(data))
    except fastgen.errors.InvalidMatchIDError:
        return
    assert fastgen.parse_match_id(fastgen.match_id(state)).score == state.score


def gnubg_id(data: bytes) -> None:
    try:
        board, state = fastgen.parse_gnubg_id(_text(data))
    except fastgen.errors.InvalidMatchIDError:
        return
    fastgen.gnubg_id(board, state)


def xgid(data: bytes) -> None:
    try:
        board, state = fastgen.parse_xgid(_text(data))
    except fastgen.errors.InvalidXGIDError:
        return
    again, _ = fastgen.parse_xgid(fastgen.xgid(board, state))
    assert (again == board).all()


def move_text(data: bytes) -> None:
    provider = atheris.FuzzedDataProvider(data)
    board = BOARDS[provider.ConsumeIntInRange(0, len(BOARDS) - 1)]
    dice = (provider.ConsumeIntInRange(1, 6), provider.ConsumeIntInRange(1, 6))
    text = provider.ConsumeUnicodeNoSurrogates(200)
    try:
        parse_move_text(text)
    except fastgen.InvalidMoveTextError:
        pass
    try:
        play = fastgen.parse_play(board, dice, text)
    except (fastgen.InvalidMoveTextError, fastgen.errors.AmbiguousMoveError, fastgen.IllegalPlayError):
        return
    assert play in fastgen.legal_plays(board, dice)


def read_mat(data: bytes) -> None:
    try:
        fastgen.formats.read_mat(bytes(data))  # bytes: always read as .mat text, never as a path
    except fastgen.MatFileError:
        pass


TARGETS = {f.__name__: f for f in (position_id, match_id, gnubg_id, xgid, move_text, read_mat)}


def seeds(name: str) -> list[bytes]:
    """A few valid inputs to start the corpus of *name* from."""
    if name == "position_id":
        return [fastgen.position_id(b).encode() for b in BOARDS]
    if name == "match_id":
        return [b"QYkqASAAIAAA", b"cAkAAAAAAAAE", b"cAgAAAAAAAAA"]
    if name == "gnubg_id":
        return [b"4HPwATDgc/ABMA:cAkAAAAAAAAE", b"4HPwATDgc/ABMA:QYkqASAAIAAA"]
    if name == "xgid":
        return [fastgen.xgid(b).encode() for b in BOARDS] + [
            b"XGID=-b----E-C---eE---c-e----B-:1:1:1:52:2:4:0:9:10"
        ]
    if name == "move_text":
        return [bytes([0, 3, 1]) + t.encode() for t in ("8/5 6/5", "24/18*/13", "bar/22* 13/7(2)", "6/off(2)")]
    match = fastgen.Match(3, seed=1)
    while not match.over:
        game = match.new_game()
        while not game.over:
            game.roll()
            game.play(game.legal_plays().boards[0])
    return [fastgen.write_mat(match).encode()]


def main(argv: list[str]) -> None:
    if len(argv) < 2 or argv[1] not in TARGETS:
        sys.exit(f"usage: {argv[0]} {{{','.join(TARGETS)}}} [libFuzzer options] [CORPUS_DIR ...]")
    name = argv[1]
    if "--write-seeds" in argv:
        out = Path(argv[argv.index("--write-seeds") + 1])
        out.mkdir(parents=True, exist_ok=True)
        for k, seed in enumerate(seeds(name)):
            (out / f"seed{k}").write_bytes(seed)
        print(f"wrote {len(seeds(name))} seeds to {out}")
        return
    atheris.Setup([argv[0]] + argv[2:], TARGETS[name])
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv)
