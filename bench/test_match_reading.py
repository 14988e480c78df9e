"""Reading text match files: fastgen against GNU Backgammon's ``import mat``, timed in the
same run.

Run with ``pytest bench/test_match_reading.py`` (never part of the tests). The workload is
the corpus of ``tests/data/matches`` (1,777 matches people played, Backgammon Galaxy and
Studio exports, 6.3 MB), read from the page cache (every file is read once before the
timings, so no timing waits for the disk):

- ``read_corpus_gnubg``: one ``gnubg -t -q`` process (``set display off``, ``set confirm
  new off``, then ``import mat FILE`` for each file), its start included: how GNU
  Backgammon reads a folder. It is given every corpus file it can read, 1,766: it dies
  on a file where a player's name is empty (11 of them), so those are left out. The
  files are copied first to short names without spaces (gnubg's command line splits
  paths at spaces); the copy is set-up, only the gnubg process is timed;
- ``read_corpus_fastgen``: :func:`fastgen.formats.matbatch.read_mat_files` on all 1,777
  paths, in one thread and in two: the compiled scanner on the files it reads, the Python
  reader (:func:`fastgen.formats.read_mat`) on the others; ``errors="skip"`` (4 files are refused
  by the reader: a ``Wins`` line that the replay contradicts; their messages are kept);
- ``read_corpus_read_mat``: ``read_mat`` on each file in a loop, the Python reader alone
  (one round: it takes seconds).

The summary line of each fastgen benchmark gives gnubg's time over its own (median of
the rounds), and its time a file.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from fastgen.errors import MatFileError
from fastgen.formats.matbatch import read_mat_files
from fastgen.formats.matfile import read_mat

GNUBG = os.environ.get("FASTGEN_GNUBG", "/usr/games/gnubg")
CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "matches"
FILES = sorted(p for folder in ("galaxy", "studio") for p in (CORPUS / folder).iterdir())
#: A game header line with an empty player name (gnubg 1.07 dies on it).
NAMELESS = re.compile(r"(?m)^ *: *[0-9]+ |^ *\S.*? : [0-9]+ +: *[0-9]+ *$|^ *: ")
GROUP = "read the corpus's 1,777 text match files"

_medians: dict[str, float] = {}


@pytest.fixture(scope="module", autouse=True)
def warm_page_cache():
    for path in FILES:
        path.read_bytes()


@pytest.fixture(scope="module")
def gnubg_folder(tmp_path_factory):
    """A folder with the files gnubg can read, copied to short names, and its commands."""
    if not (os.path.isfile(GNUBG) and os.access(GNUBG, os.X_OK)):
        pytest.skip(f"GNU Backgammon is not installed at {GNUBG} (apt-get install gnubg, or set FASTGEN_GNUBG)")
    work = tmp_path_factory.mktemp("gnubg-import")
    (work / "in").mkdir()
    lines = ["set display off", "set confirm new off"]
    for i, path in enumerate(FILES):
        if NAMELESS.search(path.read_text("utf-8", errors="replace")):
            continue
        shutil.copyfile(path, work / "in" / f"{i:05d}.mat")
        lines.append(f"import mat in/{i:05d}.mat")
    (work / "home").mkdir()
    return work, "\n".join(lines) + "\n", len(lines) - 2


def _report(capsys, benchmark, name: str, files: int = len(FILES)) -> None:
    """gnubg's median over this benchmark's, printed at once and kept in its extra_info."""
    median = benchmark.stats.stats.median
    _medians[name] = median
    line = f"[{GROUP}] {name}: {median * 1e3:.1f} ms, {median / files * 1e6:.1f} us a file"
    gnubg = _medians.get("gnubg")
    if gnubg is not None and name != "gnubg":
        ratio = gnubg / median
        benchmark.extra_info["gnubg_over_fastgen"] = ratio
        shown = f"{ratio:.1f}x GNU Backgammon" if ratio >= 1 else f"{1 / ratio:.1f}x GNU Backgammon's time"
        line += f"; {shown} ({gnubg * 1e3:.0f} ms, median of its rounds)"
    with capsys.disabled():
        print("\n" + line)


def test_read_corpus_gnubg(benchmark, capsys, gnubg_folder):
    work, commands, count = gnubg_folder
    benchmark.group = GROUP
    benchmark.extra_info["files"] = count

    def run():
        return subprocess.run([GNUBG, "-t", "-q"], input=commands, cwd=work, text=True, capture_output=True,
                              timeout=600, env={**os.environ, "HOME": str(work / "home")})

    done = benchmark.pedantic(run, rounds=5, iterations=1, warmup_rounds=1)
    assert done.returncode == 0, done.stderr[-2000:]
    _report(capsys, benchmark, "gnubg", count)


@pytest.mark.parametrize("threads", [1, 2])
def test_read_corpus_fastgen(benchmark, capsys, threads):
    benchmark.group = GROUP
    benchmark.extra_info["files"] = len(FILES)
    benchmark.extra_info["threads"] = threads
    batch = benchmark.pedantic(read_mat_files, args=(FILES,), kwargs={"errors": "skip", "threads": threads},
                               rounds=15, iterations=1, warmup_rounds=2)
    assert len(batch) + len(batch.errors) == len(FILES) and batch.fast >= 0.99 * len(FILES)
    benchmark.extra_info["fast_path"] = batch.fast
    _report(capsys, benchmark, f"fastgen, {threads} thread{'s' if threads > 1 else ''}")


def test_read_corpus_read_mat(benchmark, capsys):
    benchmark.group = GROUP
    benchmark.extra_info["files"] = len(FILES)

    def run():
        read = 0
        for path in FILES:
            try:
                read_mat(path)
                read += 1
            except MatFileError:
                pass
        return read

    assert benchmark.pedantic(run, rounds=1, iterations=1) == len(FILES) - 4
    _report(capsys, benchmark, "read_mat in a loop")
