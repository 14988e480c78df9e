"""Damaged, replaced and odd bear-off files.

- A damaged file is refused when it is opened: BearoffFileError naming the file and the
  first bad position, for every check read_gnubg makes (each one-sided distribution sums
  to 65535, the zero-roll entries of finished positions, the compressed index and runs;
  the two-sided rows of finished games). Any single changed byte in the stored tables
  of a one-sided file is caught; ``verify=False`` opens such a file unchecked and
  evaluation still stays in [0, 1].
- A Hypothesis fuzz test flips bytes of small files of every layout: reading raises
  BearoffFileError or gives a database whose every evaluation is in [0, 1]. Its number
  of examples comes from the profile in conftest.py (derandomized in CI; many more with
  FASTGEN_HYPOTHESIS_PROFILE=large).
- A file rewritten while a reader has it memory-mapped: the reader keeps the old file
  (write_gnubg writes a temporary file and renames it over the old one).
- A FIFO given as a database is refused at once.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, strategies as st

import fastgen
from fastgen import bearoff
from fastgen._util import atomic_write
from fastgen.cli.main import main
from fastgen.errors import BearoffFileError, InvalidArgumentError

HEADER = bearoff.files.HEADER_BYTES
#: Where the tested fastgen is installed (site-packages in CI, whose source tree has no
#: compiled core): a child process imports the same package.
INSTALLED = Path(fastgen.__file__).resolve().parent.parent

_DBS: dict = {}


def database(kind: str):
    """Small databases of every layout, built once."""
    if kind not in _DBS:
        _DBS[kind] = {
            "os3": lambda: bearoff.build_one_sided(3),
            "os3-nogammon": lambda: bearoff.build_one_sided(3, gammons=False),
            "os4": lambda: bearoff.build_one_sided(4),
            "ts33": lambda: bearoff.build_two_sided(3, 3),
            "ts33-cubeless": lambda: bearoff.build_two_sided(3, 3, cubeful=False),
        }[kind]()
    return _DBS[kind]


def encoded(kind: str, compress: bool = True) -> bytes:
    return bearoff.files.encode_gnubg(database(kind), compress=compress)


def pair_boards(db, me: np.ndarray, opp: np.ndarray) -> np.ndarray:
    """(N, 2, 25) boards of the pairs (me[k], opp[k]) of position numbers of *db*."""
    boards = np.zeros((me.size, 2, 25), np.int8)
    boards[:, 1, : db.points] = bearoff.index_position(me, db.points, db.checkers)
    boards[:, 0, : db.points] = bearoff.index_position(opp, db.points, db.checkers)
    return boards


def all_pairs_boards(db, limit: int | None = None) -> np.ndarray:
    """(N, 2, 25) boards of pairs of positions of *db* (every pair, or *limit* of them
    spread over the table)."""
    n = db.size
    me, opp = np.divmod(np.arange(n * n), n)
    if limit is not None and n * n > limit:
        pick = np.linspace(0, n * n - 1, limit).astype(np.int64)
        me, opp = me[pick], opp[pick]
    return pair_boards(db, me, opp)


def assert_probabilities(db, limit: int = 4000) -> None:
    out = bearoff.evaluate(all_pairs_boards(db, limit), db)
    assert np.isfinite(out).all()
    assert (out >= 0).all() and (out <= 1).all(), out[(out < 0) | (out > 1)][:5]


# ----------------------------------------------------------------- the probe's reproducer


def test_damaged_distribution_is_refused_by_read_and_eval(tmp_path, capsys):
    good, bad = tmp_path / "x.bd", tmp_path / "bad.bd"
    assert main(["bearoff", "build", "-o", "4", "-f", str(good), "--no-progress"]) == 0
    data = bytearray(good.read_bytes())
    data[79548:79550] = b"\xff\xff"
    bad.write_bytes(bytes(data))
    with pytest.raises(BearoffFileError, match=r"bad\.bd.*position 3475 \(checkers on points 1 to 4: \[3, 3, 3, 6\]\).*sums to 131046, not 65535"):
        bearoff.read_gnubg(bad)
    capsys.readouterr()
    assert main(["bearoff", "eval", "770DAAB39wMAAA", "--database", str(bad), "--json"]) != 0
    captured = capsys.readouterr()
    assert "bad.bd" in captured.err and "position 3475" in captured.err and "P(win)" not in captured.out
    # unchecked, the file opens; its outputs are capped in [0, 1]
    db = bearoff.read_gnubg(bad, verify=False)
    n = database("os4").size
    out = bearoff.evaluate(pair_boards(db, np.full(n, 3475), np.arange(n)), db)
    assert out.max() == 1.0 and out.min() >= 0.0
    assert main(["bearoff", "eval", "770DAAB39wMAAA", "--database", str(good), "--json"]) == 0
    assert 0 <= json.loads(capsys.readouterr().out)["P(win)"] <= 1


@pytest.mark.parametrize("kind", ["os3", "os3-nogammon"])
@pytest.mark.parametrize("compress", [True, False])
def test_every_changed_byte_of_a_one_sided_table_is_caught(tmp_path, kind, compress):
    """A changed byte changes one stored value, so its distribution no longer sums to
    65535 (600 bytes drawn from the tables, each changed in turn)."""
    data = encoded(kind, compress)
    db = database(kind)
    start = HEADER + (0 if not compress else db.size * (8 if db.gammons else 6))
    path = tmp_path / "flip.bd"
    rng = np.random.default_rng(7)
    for at in rng.choice(np.arange(start, len(data)), size=600, replace=False):
        changed = bytearray(data)
        changed[at] ^= int(rng.integers(1, 256))
        path.write_bytes(bytes(changed))
        with pytest.raises(BearoffFileError, match=r"flip\.bd.*position \d+"):
            bearoff.read_gnubg(path)


def test_flipped_bytes_of_the_probe_load_no_more(tmp_path):
    """32 flipped bytes spread over a -o 4 file (header, index and runs): each is refused,
    or (a run shifted within rolls 0..31, which leaves a valid distribution) evaluates
    within [0, 1]."""
    data = encoded("os4")
    path = tmp_path / "flip.bd"
    loaded = 0
    for at in np.linspace(0, len(data) - 1, 32).astype(int):
        changed = bytearray(data)
        changed[at] ^= 0xFF
        path.write_bytes(bytes(changed))
        try:
            db = bearoff.read_gnubg(path)
        except BearoffFileError as exc:
            assert "flip.bd" in str(exc)
            continue
        loaded += 1
        assert_probabilities(db)
    assert loaded <= 2  # the probe saw 11 of 32 load before the checks


# -------------------------------------------------------------------- each check, named


def _write(tmp_path, data: bytes | bytearray, name: str = "bad.bd") -> Path:
    path = tmp_path / name
    path.write_bytes(bytes(data))
    return path


def _u16(data: bytearray, at: int, value: int) -> None:
    data[at:at + 2] = int(value).to_bytes(2, "little")


def test_uncompressed_faults_name_the_position(tmp_path):
    db = database("os3")
    row = 2 * 32 * 2  # bytes a position: 32 rolls, then 32 first-checker values
    base = bytearray(encoded("os3", compress=False))
    # position 0 must need 0 rolls: move its mass to roll 1
    data = bytearray(base)
    _u16(data, HEADER, 0)
    _u16(data, HEADER + 2, 65535)
    with pytest.raises(BearoffFileError, match=r"bad\.bd.*position 0 .*probability of 0 rolls to bear off is 0/65535 where it must be 65535"):
        bearoff.read_gnubg(_write(tmp_path, data))
    # any other position needs at least one roll
    data = bytearray(base)
    x = 10
    at = HEADER + x * row
    values = np.frombuffer(bytes(data[at:at + 64]), "<u2").copy()
    values[0], values[values.argmax()] = 1, values.max() - 1
    data[at:at + 64] = values.astype("<u2").tobytes()
    with pytest.raises(BearoffFileError, match=r"position 10 .*probability of 0 rolls to bear off is 1/65535 where it must be 0"):
        bearoff.read_gnubg(_write(tmp_path, data))
    # a first-checker distribution that does not sum to 65535
    data = bytearray(base)
    _u16(data, HEADER + 700 * row + 64 + 2 * 5, 12)
    with pytest.raises(BearoffFileError, match=r"position 700 .*rolls to bear off the first checker sums to"):
        bearoff.read_gnubg(_write(tmp_path, data))
    # a position of fewer than 15 checkers has its first checker off: 0 rolls
    fewer = bearoff.n_positions(3, 14)
    assert fewer > 5
    data = bytearray(base)
    _u16(data, HEADER + 5 * row + 64, 0)
    _u16(data, HEADER + 5 * row + 66, 65535)
    with pytest.raises(BearoffFileError, match=r"position 5 .*0 rolls to bear off the first checker is 0/65535"):
        bearoff.read_gnubg(_write(tmp_path, data))
    assert db.size > 700


def test_compressed_index_faults(tmp_path):
    db = database("os3")
    base = bytearray(encoded("os3"))
    entry = lambda x: HEADER + 8 * x  # noqa: E731
    data = bytearray(base)
    data[entry(9) + 4] = 0  # an empty run
    with pytest.raises(BearoffFileError, match=r"bad\.bd.*index is damaged at position 9 .*run holds 0 values"):
        bearoff.read_gnubg(_write(tmp_path, data))
    data = bytearray(base)
    data[entry(9) + 7] = 32  # a first-checker run past roll 31
    with pytest.raises(BearoffFileError, match=r"index is damaged at position 9 .*first-checker run starts at roll 32"):
        bearoff.read_gnubg(_write(tmp_path, data))
    data = bytearray(base)
    data[entry(9)] ^= 1  # an offset out of step
    with pytest.raises(BearoffFileError, match=r"index is damaged at position 9 .*offset"):
        bearoff.read_gnubg(_write(tmp_path, data))
    data = bytearray(base) + b"\0\0"  # one value too many
    with pytest.raises(BearoffFileError, match=r"stored values where its index needs"):
        bearoff.read_gnubg(_write(tmp_path, data))
    # an index fault is found with verify=False too: it says where the runs are
    data = bytearray(base)
    data[entry(9) + 4] = 0
    with pytest.raises(BearoffFileError, match="index is damaged"):
        bearoff.read_gnubg(_write(tmp_path, data), verify=False)
    assert db.size == 816


def test_compressed_run_with_a_zero_end(tmp_path):
    base = bytearray(encoded("os3"))
    data = bytearray(base)
    size = database("os3").size
    x = 20
    offset = int.from_bytes(data[HEADER + 8 * x:HEADER + 8 * x + 4], "little")
    first = data[HEADER + 8 * x + 5]
    at = HEADER + 8 * size + 2 * offset
    # move the run's first value onto its second: the sum holds, the run starts with 0
    a = int.from_bytes(data[at:at + 2], "little")
    b = int.from_bytes(data[at + 2:at + 4], "little")
    _u16(data, at, 0)
    _u16(data, at + 2, a + b)
    with pytest.raises(BearoffFileError, match=rf"position 20 .*stores 0 for roll {first}, an end of the run"):
        bearoff.read_gnubg(_write(tmp_path, data))
    db = bearoff.read_gnubg(_write(tmp_path, data), verify=False)  # unchecked: opens
    assert_probabilities(db)


@pytest.mark.parametrize("kind", ["ts33", "ts33-cubeless"])
def test_two_sided_finished_games(tmp_path, kind):
    base = bytearray(encoded(kind))
    db = database(kind)
    k = 4 if db.cubeful else 1
    data = bytearray(base)
    _u16(data, HEADER + 2 * (0 * db.size * k + 7 * k), 65000)  # pair (0, 7): the side on roll is off
    with pytest.raises(BearoffFileError, match=r"bad\.bd.*pair \(0, 7\).*65000 is stored where every gnubg file holds 65535"):
        bearoff.read_gnubg(_write(tmp_path, data))
    data = bytearray(base)
    _u16(data, HEADER + 2 * (5 * db.size * k + 0 * k + (k - 1)), 3)  # pair (5, 0): the opponent is off
    with pytest.raises(BearoffFileError, match=r"pair \(5, 0\).*3 is stored where every gnubg file holds 0"):
        bearoff.read_gnubg(_write(tmp_path, data))
    assert_probabilities(bearoff.read_gnubg(_write(tmp_path, data), verify=False))


def test_good_files_pass_and_verify_false_gives_the_same_numbers(tmp_path):
    for kind in ("os3", "os3-nogammon", "os4", "ts33", "ts33-cubeless"):
        for compress in (True, False):
            path = _write(tmp_path, encoded(kind, compress), f"{kind}-{compress}.bd")
            checked, unchecked = bearoff.read_gnubg(path), bearoff.read_gnubg(path, verify=False)
            boards = all_pairs_boards(database(kind), 3000)
            want = bearoff.evaluate(boards, database(kind))
            assert np.array_equal(bearoff.evaluate(boards, checked), want)
            assert np.array_equal(bearoff.evaluate(boards, unchecked), want)


def test_evaluations_of_a_good_file_reach_but_never_pass_one():
    db = database("os3")
    out = bearoff.evaluate(all_pairs_boards(db), db)
    assert out.max() == 1.0 and out.min() == 0.0  # a side already off wins outright


# ---------------------------------------------------------------------------- fuzzing

KINDS = [("os3", True), ("os3", False), ("os3-nogammon", True), ("ts33", True), ("ts33-cubeless", True)]


@given(st.data())
def test_fuzz_flipped_bytes(tmp_path_factory, data):
    kind, compress = data.draw(st.sampled_from(KINDS), label="layout")
    raw = bytearray(encoded(kind, compress))
    flips = data.draw(st.lists(st.tuples(st.integers(0, len(raw) - 1), st.integers(1, 255)), min_size=1, max_size=6),
                      label="flips")
    for at, mask in flips:
        raw[at] ^= mask
    if data.draw(st.booleans(), label="truncate"):
        raw = raw[: data.draw(st.integers(0, len(raw)), label="length")]
    path = tmp_path_factory.mktemp("fuzz") / "fuzz.bd"
    path.write_bytes(bytes(raw))
    for verify in (True, False):
        try:
            db = bearoff.read_gnubg(path, verify=verify)
        except BearoffFileError as exc:
            assert "fuzz.bd" in str(exc)
            continue
        assert_probabilities(db, limit=1500)


# ------------------------------------------------------------ files replaced, FIFOs


CHILD = textwrap.dedent(
    """
    import subprocess, sys
    import numpy as np
    from fastgen import bearoff
    path = sys.argv[1]
    db = bearoff.read_gnubg(path)
    board = np.zeros((1, 2, 25), np.int8); board[0, 1, :4] = [2, 1, 0, 3]; board[0, 0, :4] = [1, 0, 4, 1]
    before = bearoff.evaluate(board, db)
    done = subprocess.run([sys.executable, "-m", "fastgen", "bearoff", "build", "-o", "3", "-f", path, "--no-progress"], capture_output=True)
    assert done.returncode == 0
    after = bearoff.evaluate(board, db)
    print(before[0, 0], after[0, 0], bearoff.read_gnubg(path).points)
    """
)


def test_rewriting_a_file_in_use_leaves_the_reader_the_old_one(tmp_path):
    path = tmp_path / "live.bd"
    bearoff.write_gnubg(path, database("os4"))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(INSTALLED)] + sys.path))
    done = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, env=env, timeout=300,
                          cwd=tmp_path)  # not the repository root: python -c puts the working directory first on sys.path
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])  # -7: SIGBUS
    before, after, points = done.stdout.split()
    assert before == after and points == "3"


def test_a_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "pipe.bd"
    os.mkfifo(fifo)
    code = "import sys; from fastgen import bearoff\ntry:\n bearoff.read_gnubg(sys.argv[1])\nexcept Exception as e: print(type(e).__name__, e)"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(INSTALLED)] + sys.path))
    done = subprocess.run([sys.executable, "-c", code, str(fifo)], capture_output=True, text=True, env=env, timeout=60, cwd=tmp_path)
    assert done.stdout.startswith("BearoffFileError") and "pipe.bd" in done.stdout and "not a regular file" in done.stdout
    done = subprocess.run([sys.executable, "-m", "fastgen", "bearoff", "dump", str(fifo), "0"],
                          capture_output=True, text=True, env=env, timeout=60, cwd=tmp_path)
    assert done.returncode != 0 and "not a regular file" in done.stderr
    with pytest.raises(BearoffFileError, match="pipe.bd.*not a regular file"):
        bearoff.read_gnubg(fifo)  # in process too, now that it cannot hang
    with pytest.raises(BearoffFileError, match="not a regular file"):
        bearoff.read_gnubg(tmp_path)


# ------------------------------------------------------------------------ atomic_write


def test_atomic_write_replaces_whole_or_not_at_all(tmp_path):
    path = tmp_path / "out.bin"
    path.write_bytes(b"old")
    os.chmod(path, 0o640)
    with open(path, "rb") as held:
        with atomic_write(path, "wb") as f:
            f.write(b"new")
            assert path.read_bytes() == b"old"  # nothing seen before the rename
        assert held.read() == b"old"  # an open reader keeps the old file
    assert path.read_bytes() == b"new" and stat.S_IMODE(path.stat().st_mode) == 0o640
    with pytest.raises(RuntimeError):
        with atomic_write(path, "wb") as f:
            f.write(b"half")
            raise RuntimeError("interrupted")
    assert path.read_bytes() == b"new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.bin"]  # no temporary left


def test_atomic_write_keeps_links_and_devices(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("a")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    with atomic_write(link, "w", encoding="utf-8") as f:
        f.write("b")
    assert link.is_symlink() and real.read_text() == "b"
    with atomic_write(os.devnull, "wb") as f:  # not a regular file: written in place
        f.write(b"x")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    fresh = tmp_path / "fresh.bin"
    with atomic_write(fresh) as f:
        f.write(b"1")
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~umask
    with pytest.raises(InvalidArgumentError, match="'ab'"):
        with atomic_write(fresh, "ab"):
            pass
