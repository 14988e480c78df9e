"""Bear-off databases: fastgen against GNU Backgammon's makebearoff, timed in the same run.

Run with ``pytest bench/test_bearoff.py`` (never part of the tests). Each build is one
run (one thread, the same machine, the same file for both): fastgen builds
the database (the one-sided one in the compressed layout of the file, as ``fastgen
bearoff build`` does) and encodes the .bd bytes in memory, makebearoff writes its file to a
temporary directory; the bytes must be identical. The ratios printed at the end are
makebearoff's time over fastgen's (``positions`` is the database's number of positions
per side, the same on both sides, so per-position ratios are time ratios). 5x6 and 6x5
are the two-sided sizes too slow for tests/test_bearoff_gnubg.py.

``evaluate`` is timed on 1,000,000 random bear-off positions (two-sided 6x6 where both
sides have at most 6 checkers, else one-sided 6 points) against gnubg-nn's
``probabilities`` in a Python loop over 2,000 of them.
"""

import hashlib
import os
import shutil
import subprocess

import numpy as np
import pytest

from fastgen import bearoff

MAKEBEAROFF = os.environ.get("FASTGEN_MAKEBEAROFF") or shutil.which("makebearoff") or "/usr/games/makebearoff"

BUILDS = [("-o", "6"), ("-t", "6x6"), ("-t", "5x6"), ("-t", "6x5")]


@pytest.fixture(scope="module")
def made():
    """The bytes each makebearoff run wrote (filled by the makebearoff benchmarks)."""
    return {}


def _fastgen_bytes(kind, size, threads=1):
    if kind == "-o":
        return bearoff.files.encode_gnubg(bearoff.build_one_sided(int(size), compress=True))
    p, c = map(int, size.split("x"))
    return bearoff.files.encode_gnubg(bearoff.build_two_sided(p, c, threads=threads))


def _positions(kind, size):
    if kind == "-o":
        return bearoff.n_positions(int(size), 15)
    p, c = map(int, size.split("x"))
    return bearoff.n_positions(p, c)


@pytest.mark.parametrize("kind,size", BUILDS)
def test_build_makebearoff(benchmark, tmp_path, made, kind, size):
    if not (os.path.isfile(MAKEBEAROFF) and os.access(MAKEBEAROFF, os.X_OK)):
        pytest.skip(f"makebearoff not found at {MAKEBEAROFF!r} (apt-get install gnubg)")
    benchmark.group = f"bearoff {kind} {size}"
    benchmark.extra_info["positions"] = _positions(kind, size)
    out = tmp_path / "gnubg.bd"
    benchmark.pedantic(subprocess.run, args=([MAKEBEAROFF, kind, size, "-f", str(out)],),
                       kwargs={"capture_output": True, "check": True}, rounds=1, iterations=1)
    made[(kind, size)] = hashlib.md5(out.read_bytes()).hexdigest()


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("kind,size", BUILDS)
def test_build_fastgen(benchmark, made, kind, size, threads):
    if kind == "-o" and threads == 2:
        pytest.skip("the one-sided builder runs in one thread")
    benchmark.group = f"bearoff {kind} {size}"
    benchmark.extra_info["positions"] = _positions(kind, size)
    benchmark.extra_info["threads"] = threads
    got = benchmark.pedantic(_fastgen_bytes, args=(kind, size, threads), rounds=1, iterations=1)
    if (kind, size) in made:
        assert hashlib.md5(got).hexdigest() == made[(kind, size)], "not makebearoff's bytes"


def _random_bearoff_boards(n, seed=17):
    rng = np.random.default_rng(seed)
    boards = np.zeros((n, 2, 25), np.int8)
    for side in (0, 1):
        count = rng.integers(1, 16, n)
        for k in range(15):
            live = k < count
            point = rng.integers(0, 6, n)
            np.add.at(boards[:, side, :], (np.nonzero(live)[0], point[live]), 1)
    return boards


@pytest.fixture(scope="module")
def databases():
    return bearoff.build_two_sided(6, 6), bearoff.build_one_sided(6)


@pytest.fixture(scope="module")
def million():
    return _random_bearoff_boards(1_000_000)


def test_evaluate_fastgen(benchmark, databases, million):
    benchmark.group = "bearoff evaluate"
    benchmark.extra_info["positions"] = len(million)
    out = benchmark.pedantic(bearoff.evaluate, args=(million, *databases), rounds=3, iterations=1)
    assert np.isfinite(out).all()


def test_evaluate_gnubg_nn(benchmark, million):
    gnubg = pytest.importorskip("gnubg_nn", reason="gnubg-nn not installed: pip install '.[peers]'")
    sample = [b.tolist() for b in million[:2000]]
    benchmark.group = "bearoff evaluate"
    benchmark.extra_info["positions"] = len(sample)

    def loop():
        for b in sample:
            gnubg.probabilities(b, 0)

    benchmark.pedantic(loop, rounds=3, iterations=1)
