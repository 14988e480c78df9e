"""Many ``.mat`` match files at once: a compiled scanner, the Python reader where it must.

:func:`read_mat_files` reads a list of text match files (the JellyFish / GNU Backgammon
layout of :mod:`fastgen.formats.matfile`) into a :class:`MatchBatch`. Each file is read
by the compiled scanner (``fastgen/formats/_matscan.pyx``), which replays its games by
the rules :func:`~fastgen.formats.matfile.read_mat` applies and writes them to arrays;
a file it does not read exactly as ``read_mat`` does (a control character, a move line
past ASCII, ``Concedes``, beavers, a play that fits no legal play, any error ...) is read
by ``read_mat`` instead, which gives its precise reading or error (:attr:`MatchBatch.fallbacks`
says which files, and why). Either way, ``batch.match(i)`` equals
``read_mat(batch.paths[i])``: names, length, rules, information, start score, and every
game's record, winner, result, points and cube.

>>> import tempfile
>>> from fastgen import Match, write_mat
>>> folder = tempfile.TemporaryDirectory()
>>> paths = []
>>> for seed in range(3):  # three 3-point matches played out, written as .mat files
...     match = Match(3, seed=seed, names=("Alice", "Bob"))
...     while not match.over:
...         game = match.new_game()
...         while not game.over:
...             _ = game.roll()
...             game.play(game.legal_plays().boards[-1])
...     paths.append(Path(folder.name) / f"match{seed}.mat")
...     _ = write_mat(match, paths[-1])
>>> batch = read_mat_files(paths)
>>> len(batch), batch.fast, batch.boards_after.shape[1:]
(3, 3, (2, 25))
>>> [g.record for g in batch.match(2).games] == [g.record for g in read_mat(paths[2]).games]
True
>>> folder.cleanup()

The arrays (:attr:`MatchBatch.boards_before`, :attr:`~MatchBatch.boards_after`,
:attr:`~MatchBatch.dice`, :attr:`~MatchBatch.play_match` ...) hold every play of every
match, for bulk work without building :class:`~fastgen.games.match.Match` objects.
"""

from __future__ import annotations

import os
import stat
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Iterable, Iterator, Union, cast

import numpy as np

from fastgen.core.boards import STARTING_BOARD
from fastgen.errors import MatFileError
from fastgen.formats import _matscan
from fastgen.formats.matfile import LIMIT, read_mat
from fastgen.games.game import GameAction
from fastgen.games.match import Match

__all__ = ["read_mat_files", "MatchBatch"]

PathLike = Union[str, "os.PathLike[str]"]

_matscan.set_start(np.ascontiguousarray(STARTING_BOARD, dtype=np.int8).reshape(-1))

_F = {name: k for k, name in enumerate(_matscan.FILE_FIELDS)}
_G = {name: k for k, name in enumerate(_matscan.GAME_FIELDS)}
_PLAY = _matscan.KINDS.index("play")
_DICE_KINDS = (_matscan.KINDS.index("opening"), _matscan.KINDS.index("roll"))
_DOUBLE = _matscan.KINDS.index("double")
_RESIGN = _matscan.KINDS.index("resign")
_PAST_ASCII = len(_matscan.REASONS)
_REASONS = _matscan.REASONS + ("characters past ASCII that the reader takes as spaces or line breaks, or not as "
                               "the scanner does",)
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
_VIEWS = ("boards_before", "boards_after", "dice", "play_match", "play_game", "play_turn", "play_player")


def _read(path: PathLike) -> bytes | None:
    """The bytes of *path* when it is a regular file of at most LIMIT bytes, else None
    (the Python reader then reads it, and names the problem). Opened as
    :func:`fastgen.formats.checked.open_regular` opens files: nothing is read from a
    FIFO, a device or a folder, and opening a FIFO does not block."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except (OSError, TypeError, ValueError):
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > LIMIT:
            return None
        data = os.read(fd, info.st_size + 1)
        if len(data) < info.st_size:  # a short read: on to the end
            parts = [data]
            while True:
                more = os.read(fd, LIMIT + 1 - sum(map(len, parts)))
                if not more:
                    break
                parts.append(more)
            data = b"".join(parts)
        return data if len(data) <= min(info.st_size, LIMIT) else None  # grown: the reader's
    except OSError:
        return None
    finally:
        os.close(fd)


def _path_bytes(path: PathLike) -> bytes:
    """*path* in the file system's encoding for the scanner's reader; b"" (not read there:
    the Python reader names the problem) when it cannot be one."""
    try:
        name = os.fsencode(path)
    except (TypeError, ValueError):
        return b""
    return b"" if b"\0" in name else name


def _scan(paths: list[PathLike], lo: int, hi: int) -> tuple[dict, int]:
    """Read and scan files lo..hi: the scanner's arrays, and how many plays the move
    generator found."""
    scanner = _matscan.Scanner()
    if not scanner.scan_paths([_path_bytes(p) for p in paths[lo:hi]], lo, LIMIT):
        datas = [_read(p) for p in paths[lo:hi]]  # no reader in the scanner on this platform
        scanner.scan([b"" if d is None else d for d in datas], lo)  # no bytes: no game, the reader's
    return scanner.take(), scanner.generated


def read_mat_files(paths: Iterable[PathLike], *, errors: str = "raise", threads: int = 1) -> MatchBatch:
    """Read text match files (``.mat``) into a :class:`MatchBatch`, as
    :func:`~fastgen.formats.matfile.read_mat` reads each of them.

    *errors*: ``"raise"`` (the default) raises the :class:`MatFileError` of the first
    file (in order) that cannot be read; ``"warn"`` reads each file with ``read_mat(path,
    errors="warn")`` where the scanner leaves it to the reader (its problems issued as
    warnings and kept in :attr:`Match.problems`), and a file that cannot be read even so
    is left out, its message in :attr:`MatchBatch.errors`; ``"skip"`` leaves out every
    file ``read_mat`` refuses, its message in :attr:`MatchBatch.errors`.

    *threads*: files are read and scanned in this many threads (the scan runs without the
    GIL); the batch is the same for any number.
    """
    if errors not in ("raise", "warn", "skip"):
        raise MatFileError(f"errors must be 'raise', 'warn' or 'skip', got {errors!r}")
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise MatFileError(f"threads must be an integer >= 1, got {threads!r}")
    if isinstance(paths, (str, bytes, os.PathLike)):
        raise MatFileError(f"read_mat_files reads a list of paths, got {paths!r}: use read_mat for one file")
    paths = list(paths)
    for p in paths:
        if not isinstance(p, (str, os.PathLike)):
            raise MatFileError(f"a match file is named by a path (str or os.PathLike), got {p!r}")
    n = len(paths)
    threads = max(1, min(threads, n // 64 or 1))  # a thread for every 64 files at least
    bounds = [n * k // threads for k in range(threads + 1)]
    if threads == 1:
        done = [_scan(paths, 0, n)]
    else:
        with ThreadPoolExecutor(threads) as pool:
            done = list(pool.map(lambda k: _scan(paths, bounds[k], bounds[k + 1]), range(threads)))
    return MatchBatch._build(paths, done, errors)


def _read_mat_texts(texts: list[bytes], *, errors: str = "raise") -> MatchBatch:
    """A batch of match texts (bytes) rather than files: the scanner on each text, read_mat
    where it must (for tests: the texts stand where the paths stand)."""
    scanner = _matscan.Scanner()
    scanner.scan(list(texts), 0)
    return MatchBatch._build(list(texts), [(scanner.take(), scanner.generated)], errors)


class MatchBatch:
    """Matches read by :func:`read_mat_files`: ``batch.match(i)`` builds the i-th
    :class:`~fastgen.games.match.Match` (equal to ``read_mat(batch.paths[i])``), and the
    arrays give every play of every match at once.

    The matches the scanner read are built anew by each call (their games set from the
    arrays: no replay); those the Python reader read are kept as it returned them, and
    the same object is returned each time.
    """

    def __init__(self) -> None:
        #: The paths of the matches, in the order given (files left out are not here).
        self.paths: list[PathLike] = []
        #: Files left out (``errors="warn"`` or ``"skip"``): path -> the reader's message.
        self.errors: dict[str, str] = {}
        #: Files the Python reader read, path -> why the scanner left them to it.
        self.fallbacks: dict[str, str] = {}
        self._where: list[tuple[int, int] | Match] = []  # (part, file row) or the reader's Match
        self._heads: dict[int, bytes] = {}  # the heads of files past ASCII, as UTF-8
        self._parts: list[dict] = []
        self._views: dict[str, np.ndarray] | None = None
        self._generated = 0

    @classmethod
    def _build(cls, sources: list, done: list[tuple[dict, int]], errors: str) -> MatchBatch:
        """The batch of *sources* (paths, or texts as bytes) from the scanners' arrays,
        reading with read_mat each file the scanner left to it."""
        batch = cls()
        batch._parts = [part for part, _ in done]
        batch._generated = sum(g for _, g in done)
        rows = [(k, row) for k, part in enumerate(batch._parts) for row in range(len(part["files"]))]
        statuses = [int(x) for part in batch._parts for x in part["files"][:, _F["status"]]]
        for index, ((k, row), status) in enumerate(zip(rows, statuses)):
            source = sources[index]
            head = None
            if status == 0 and batch._parts[k]["files"][row, _F["flags"]]:
                head = _head_past_ascii(batch._parts[k], row)
                if head is None:
                    status = _PAST_ASCII
            if status == 0:
                if head is not None:
                    batch._heads[len(batch.paths)] = head
                batch.paths.append(source)
                batch._where.append((k, row))
                continue
            name = source if isinstance(source, bytes) else os.fspath(source)
            try:
                match = read_mat(source if isinstance(source, (bytes, os.PathLike)) else Path(source),
                                 errors="warn" if errors == "warn" else "raise")
            except MatFileError as exc:
                if errors == "raise":
                    raise
                batch.errors[name] = str(exc)  # type: ignore[index]
                continue
            batch.fallbacks[name] = _REASONS[status]  # type: ignore[index]
            batch.paths.append(source)
            batch._where.append(match)
        return batch

    # ------------------------------------------------------------------ matches

    def __len__(self) -> int:
        return len(self.paths)

    def __iter__(self) -> Iterator[Match]:
        for i in range(len(self)):
            yield self.match(i)

    @property
    def fast(self) -> int:
        """The number of matches that the compiled scanner read; the Python reader read the rest."""
        return sum(1 for w in self._where if not isinstance(w, Match))

    def match(self, i: int) -> Match:
        """The i-th match, equal to ``read_mat(self.paths[i])``."""
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
            raise MatFileError(f"a match is chosen by its index, got {i!r}")
        if not -len(self) <= i < len(self):
            raise IndexError(f"match {i} of a batch of {len(self)}")
        i = int(i) % len(self)
        where = self._where[i]
        if isinstance(where, Match):
            return where
        part, row = where
        arrays = self._parts[part]
        file_row = arrays["files"][row]
        start = int(file_row[_F["head"]])
        head = self._heads.get(i)
        if head is None:
            head = arrays["heads"][start:start + int(file_row[_F["head_end"]])].tobytes()
        # the header, the rules, the names and the start score: the reader's own reading
        # of the file's head (its lines up to the first game's names)
        match = read_mat(head)
        match.games.clear()
        first = int(file_row[_F["first_game"]])
        for g in range(first, first + int(file_row[_F["n_games"]])):
            _fill(match, arrays, g)
        return match

    # ------------------------------------------------------------------ arrays

    def _view(self, name: str) -> np.ndarray:
        if self._views is None:
            self._views = self._make_views()
        return self._views[name]

    @property
    def boards_before(self) -> np.ndarray:
        """(P, 2, 25) int8: the position before each play of every match, the mover in
        row 1 (the matches in order, each one's games and plays in order)."""
        return self._view("boards_before")

    @property
    def boards_after(self) -> np.ndarray:
        """(P, 2, 25) int8: the position after each play, the mover still in row 1 (the
        ``"play"`` records' boards)."""
        return self._view("boards_after")

    @property
    def dice(self) -> np.ndarray:
        """(P, 2) int8: the dice of each play (as the game holds them: the opening roll's
        higher die first)."""
        return self._view("dice")

    @property
    def play_match(self) -> np.ndarray:
        """(P,) int32: the index in the batch of each play's match."""
        return self._view("play_match")

    @property
    def play_game(self) -> np.ndarray:
        """(P,) int32: each play's game in its match (0 for the first)."""
        return self._view("play_game")

    @property
    def play_turn(self) -> np.ndarray:
        """(P,) int32: the plays made in the game before each play (lost turns counted)."""
        return self._view("play_turn")

    @property
    def play_player(self) -> np.ndarray:
        """(P,) int8: the player (0 or 1) who made each play."""
        return self._view("play_player")

    def _make_views(self) -> dict[str, np.ndarray]:
        batch_of: dict[tuple[int, int], int] = {}
        reader = []
        for i, where in enumerate(self._where):
            if isinstance(where, Match):
                reader.append((i, where))
            else:
                batch_of[where] = i
        pieces = []
        for k, arrays in enumerate(self._parts):
            files, games = arrays["files"], arrays["games"]
            if not len(games):
                continue
            in_batch = np.array([batch_of.get((k, r), -1) for r in range(len(files))], dtype=np.int64)
            rows = games[:, _G["file"]] - files[0, _F["index"]]  # the file row of each game
            n_plays = games[:, _G["n_plays"]]
            first_game = files[rows, _F["first_game"]]
            after = arrays["after"]
            before = np.empty_like(after)  # the position before a play: the last one turned round
            before[1:] = after[:-1, ::-1]
            before[games[n_plays > 0, _G["first_play"]]] = STARTING_BOARD
            pieces.append({
                "boards_before": before,
                "boards_after": after,
                "dice": arrays["dice"],
                "play_match": np.repeat(in_batch[rows], n_plays),
                "play_game": np.repeat(np.arange(len(games)) - first_game, n_plays),
                "play_turn": np.arange(len(arrays["after"])) - np.repeat(games[:, _G["first_play"]], n_plays),
                "play_player": arrays["actions"][arrays["actions"][:, 0] == _PLAY, 1],
            })
            kept = pieces[-1]["play_match"] >= 0  # not the plays of files the reader read after all
            if not kept.all():
                pieces[-1] = {name: view[kept] for name, view in pieces[-1].items()}
        if reader:
            pieces.append(_reader_views(reader))
        dtypes = {"boards_before": np.int8, "boards_after": np.int8, "dice": np.int8, "play_match": np.int32,
                  "play_game": np.int32, "play_turn": np.int32, "play_player": np.int8}
        shapes = {"boards_before": (0, 2, 25), "boards_after": (0, 2, 25), "dice": (0, 2)}
        views = {}
        for name in _VIEWS:
            parts = [p[name] for p in pieces]
            views[name] = (np.concatenate(parts) if parts else np.zeros(shapes.get(name, (0,)))).astype(
                dtypes[name], copy=False)
        order = np.argsort(views["play_match"], kind="stable")
        if (np.diff(order) != 1).any():
            views = {name: view[order] for name, view in views.items()}
        for view in views.values():
            view.setflags(write=False)
        return views


def _head_past_ascii(arrays: dict, row: int) -> bytes | None:
    """The head (as UTF-8) of a file the scanner read with bytes past ASCII, when the
    scanner's reading holds: every character past ASCII of its text (UTF-8, else Latin-1,
    as the reader decodes it) is printable, so neither a space nor a line break to the
    reader (as the scanner takes it), and a byte-order mark the scanner skipped starts a
    UTF-8 text; else None (the reader reads the file)."""
    file_row = arrays["files"][row]
    start = int(file_row[_F["head"]])
    kept = arrays["heads"][start:start + int(file_row[_F["kept"]])].tobytes()
    try:
        kept.decode("utf-8-sig")
        codec = "utf-8-sig"
    except UnicodeDecodeError:
        codec = "latin-1"
        if file_row[_F["flags"]] & 2:
            return None
    text = kept.decode(codec)
    if not "".join(c for c in set(text) if c > "\x7f").isprintable():
        return None
    return kept[:int(file_row[_F["head_end"]])].decode(codec).encode("utf-8")


def _fill(match: Match, arrays: dict, g: int) -> None:
    """Start the next game of *match* and give it the state of game row *g* (the record,
    the result, the cube, the position), as the reader's replay leaves it."""
    game = match.new_game()
    row = arrays["games"][g].tolist()
    get = dict(zip(_matscan.GAME_FIELDS, row))
    first, count, play = get["first_action"], get["n_actions"], get["first_play"]
    after = arrays["after"]
    record = []
    for kind, player, v1, v2 in arrays["actions"][first:first + count].tolist():
        if kind == _PLAY:
            data: object = after[play].tobytes()
            play += 1
        elif kind in _DICE_KINDS:
            data = (v1, v2)
        elif kind == _DOUBLE:
            data = 1 << v1  # the scanner keeps the cube's log2
        elif kind == _RESIGN:
            data = v1
        else:
            data = None
        record.append(GameAction(_matscan.KINDS[kind], player, data))
    game.record = record
    game.turn = None if get["turn"] < 0 else get["turn"]
    game.dice = None if get["d1"] == 0 else (get["d1"], get["d2"])
    game.cube_value = get["cube"]
    game.cube_owner = None if get["owner"] < 0 else get["owner"]
    game.pending_double = bool(get["pending"])
    game.winner = None if get["winner"] < 0 else get["winner"]
    game.result = None if get["winner"] < 0 else get["result"]
    game.points = get["points"]
    game.dropped = bool(get["dropped"])
    game.resigned = bool(get["resigned"])
    game.resigner = None if get["resigner"] < 0 else get["resigner"]
    game.turns = get["turns"]
    game._board = np.array(arrays["ends"][g], dtype=np.int8)


def _reader_views(reader: list[tuple[int, Match]]) -> dict[str, np.ndarray]:
    """The play arrays of the matches the Python reader read."""
    before, after, dice, where = [], [], [], []
    for i, match in reader:
        for number, game in enumerate(match.games):
            board = np.asarray(STARTING_BOARD, dtype=np.int8)
            roll: tuple[int, int] = (0, 0)
            turn = 0
            for kind, player, data in game.record:
                # the kind fixes the data's type (GameAction): dice, or a board's bytes
                if kind == "opening":
                    d0, d1 = cast("tuple[int, int]", data)
                    roll = (max(d0, d1), min(d0, d1))
                elif kind == "roll":
                    roll = cast("tuple[int, int]", data)
                elif kind == "play":
                    board_after = np.frombuffer(cast(bytes, data), dtype=np.int8).reshape(2, 25)
                    before.append(board)
                    after.append(board_after)
                    dice.append(roll)
                    where.append((i, number, turn, player))
                    board = board_after[::-1]
                    turn += 1
    table = np.array(where, dtype=np.int32).reshape(-1, 4)
    return {
        "boards_before": np.array(before, dtype=np.int8).reshape(-1, 2, 25),
        "boards_after": np.array(after, dtype=np.int8).reshape(-1, 2, 25),
        "dice": np.array(dice, dtype=np.int8).reshape(-1, 2),
        "play_match": table[:, 0],
        "play_game": table[:, 1],
        "play_turn": table[:, 2],
        "play_player": table[:, 3].astype(np.int8),
    }
