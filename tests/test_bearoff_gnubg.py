"""fastgen's bear-off files are GNU Backgammon's, byte for byte.

Each size and option combination is built by fastgen and by Debian's makebearoff (gnubg
1.07, ``/usr/games/makebearoff``; another with ``FASTGEN_MAKEBEAROFF=/path``) and the
two files must be identical:

- one-sided, 1 to 6 points, each with and without compression (-c) and gammons (-g),
  with and without the header (-H) on a few; 6 points compressed with gammons is also
  compared with Debian's shipped /usr/share/gnubg/gnubg_os0.bd;
- two-sided, every P x C with P, C <= 6 and P x C <= 20, and 5x5, with cubeful values,
  and the smaller ones and 6x3, 3x6 without (-C); the largest (5x6, 6x5, 6x6) take
  makebearoff from seconds to a minute, so 6x6 is compared here with the MD5 of
  makebearoff -t 6x6's output recorded from gnubg 1.07, and bench/test_bearoff.py
  compares 5x6, 6x5 and 6x6 with live runs while timing both.

Skipped with a visible reason when makebearoff is absent. About 30 s on a quiet machine.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess

import numpy as np
import pytest

from fastgen import bearoff
from fastgen.cli.main import main

MAKEBEAROFF = os.environ.get("FASTGEN_MAKEBEAROFF") or shutil.which("makebearoff") or "/usr/games/makebearoff"
HAVE = os.path.isfile(MAKEBEAROFF) and os.access(MAKEBEAROFF, os.X_OK)
needs_makebearoff = pytest.mark.skipif(
    not HAVE, reason=f"GNU Backgammon's makebearoff not found at {MAKEBEAROFF!r} (apt-get install gnubg)"
)

#: makebearoff -t 6x6 of gnubg 1.07 (Debian): 6,830,248 bytes.
TS_6X6_MD5 = "44b6040b49b46cb9dd2ce8caa947044d"
#: Debian's /usr/share/gnubg/gnubg_os0.bd, which makebearoff -o 6 writes: 1,465,788 bytes.
OS_6_MD5 = "3dc7b833c4670849cee00479a9e21b49"
SHIPPED_OS = "/usr/share/gnubg/gnubg_os0.bd"
#: Debian's gnubg package writes the 6x6 two-sided database here when it is installed.
SHIPPED_TS = "/var/lib/gnubg/gnubg_ts0.bd"


def makebearoff(tmp_path, *args: str) -> bytes:
    out = tmp_path / "gnubg.bd"
    done = subprocess.run([MAKEBEAROFF, *args, "-f", str(out)], capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return out.read_bytes()


ONE_SIDED_CACHE: dict = {}


def one_sided(points: int, gammons: bool, compress: bool = True) -> bearoff.OneSidedDatabase:
    # compress: built in the compressed layout (written as it is), else as full tables
    key = (points, gammons, compress)
    if key not in ONE_SIDED_CACHE:
        ONE_SIDED_CACHE[key] = bearoff.build_one_sided(points, gammons=gammons, compress=compress)
    return ONE_SIDED_CACHE[key]


@needs_makebearoff
@pytest.mark.parametrize("points", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("compress", [True, False])
@pytest.mark.parametrize("gammons", [True, False])
def test_one_sided_matches_makebearoff(tmp_path, points, compress, gammons):
    if points == 6 and compress and gammons:
        pytest.skip("compared with the shipped gnubg_os0.bd and its MD5 below (makebearoff -o 6 takes seconds)")
    flags = ["-o", str(points)] + ([] if compress else ["-c"]) + ([] if gammons else ["-g"])
    want = makebearoff(tmp_path, *flags)
    got = bearoff.files.encode_gnubg(one_sided(points, gammons, compress), compress=compress)
    assert got == want, flags
    # the other build written the same way: the full tables packed by the writer, or the
    # compressed layout decoded
    assert bearoff.files.encode_gnubg(one_sided(points, gammons, not compress), compress=compress) == want, flags


@needs_makebearoff
@pytest.mark.parametrize("flags", [("-o", "3", "-H"), ("-o", "2", "-c", "-H"), ("-t", "3x4", "-H"), ("-t", "4x2", "-C", "-H")])
def test_headerless_files_match_makebearoff(tmp_path, flags):
    want = makebearoff(tmp_path, *flags)
    if flags[0] == "-o":
        db = one_sided(int(flags[1]), True, "-c" not in flags)
        got = bearoff.files.encode_gnubg(db, compress="-c" not in flags, header=False)
    else:
        p, c = map(int, flags[1].split("x"))
        got = bearoff.files.encode_gnubg(bearoff.build_two_sided(p, c, cubeful="-C" not in flags), header=False)
    assert got == want


def test_six_points_is_the_shipped_file():
    got = bearoff.files.encode_gnubg(one_sided(6, True))
    assert len(got) == 1_465_788 and hashlib.md5(got).hexdigest() == OS_6_MD5
    assert bearoff.files.encode_gnubg(one_sided(6, True, False)) == got
    if not os.path.exists(SHIPPED_OS):
        pytest.skip(f"{SHIPPED_OS} not installed (apt-get install gnubg-data): MD5 compared only")
    with open(SHIPPED_OS, "rb") as f:
        assert got == f.read()


def _pairs(db, count: int) -> np.ndarray:
    """(count, 2, 25) boards of position pairs spread over *db*'s table."""
    pick = np.linspace(0, db.size * db.size - 1, count).astype(np.int64)
    me, opp = np.divmod(pick, db.size)
    boards = np.zeros((count, 2, 25), np.int8)
    boards[:, 1, : db.points] = bearoff.index_position(me, db.points, db.checkers)
    boards[:, 0, : db.points] = bearoff.index_position(opp, db.points, db.checkers)
    return boards


@pytest.mark.parametrize("path, build", [(SHIPPED_OS, lambda: one_sided(6, True)),
                                         (SHIPPED_TS, lambda: bearoff.build_two_sided(6, 6))])
def test_debians_files_pass_the_checks_and_evaluate_as_built(path, build):
    """The files gnubg installs hold what read_gnubg checks (distributions summing to
    65535, finished games won or lost, the compressed index) and evaluate exactly as
    fastgen's own build of the same database, checked or not."""
    if not os.path.exists(path):
        pytest.skip(f"{path} not installed (apt-get install gnubg)")
    checked, unchecked, built = bearoff.read_gnubg(path), bearoff.read_gnubg(path, verify=False), build()
    boards = _pairs(built, 20_000)
    want = bearoff.evaluate(boards, built)
    assert np.array_equal(bearoff.evaluate(boards, checked), want)
    assert np.array_equal(bearoff.evaluate(boards, unchecked), want)
    assert ((want >= 0) & (want <= 1)).all()


SMALL_TWO_SIDED = [(p, c) for p in range(1, 7) for c in range(1, 7) if p * c <= 20]


@needs_makebearoff
@pytest.mark.parametrize("points,checkers", SMALL_TWO_SIDED + [(5, 5)])
def test_two_sided_matches_makebearoff(tmp_path, points, checkers):
    # 5x5 is where the cubeful rule's rare ties first show (2 of 254,016 values)
    want = makebearoff(tmp_path, "-t", f"{points}x{checkers}")
    assert bearoff.files.encode_gnubg(bearoff.build_two_sided(points, checkers)) == want


@needs_makebearoff
@pytest.mark.parametrize("points,checkers", [(p, c) for p, c in SMALL_TWO_SIDED if p * c <= 12] + [(6, 3), (3, 6)])
def test_two_sided_cubeless_only_matches_makebearoff(tmp_path, points, checkers):
    want = makebearoff(tmp_path, "-t", f"{points}x{checkers}", "-C")
    assert bearoff.files.encode_gnubg(bearoff.build_two_sided(points, checkers, cubeful=False)) == want


def test_six_by_six_is_makebearoffs_file():
    got = bearoff.files.encode_gnubg(bearoff.build_two_sided(6, 6))
    assert len(got) == 6_830_248 and hashlib.md5(got).hexdigest() == TS_6X6_MD5
    got = bearoff.files.encode_gnubg(bearoff.build_two_sided(6, 6, threads=2))
    assert hashlib.md5(got).hexdigest() == TS_6X6_MD5


@needs_makebearoff
def test_the_command_line_writes_makebearoffs_bytes(tmp_path):
    for flags in (["-o", "4", "-c"], ["-o", "4"], ["-t", "4x4"], ["-t", "3x5", "-C"], ["-o", "3", "-g"]):
        out = tmp_path / "fastgen.bd"
        assert main(["bearoff", "build", *flags, "-f", str(out), "--no-progress"]) == 0
        assert out.read_bytes() == makebearoff(tmp_path, *flags), flags
