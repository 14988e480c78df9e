"""Mutation fuzzing of the match readers: damaged text matches, ``.sgf`` and ``.xg`` files.

Each input is a valid file (real matches from ``tests/data/matches``, and ``.sgf`` and
``.xg`` files written from them) damaged the ways files get damaged: cut short, bytes
overwritten, inserted, deleted or repeated, digits changed, lines swapped or dropped,
and for ``.xg`` the compressed stream cut or its unpacked records changed and packed
again. :func:`fastgen.read_match` may only return a match or raise a
:class:`fastgen.MatFileError` (of any format); any other exception, or a file taking
longer than ``--timeout`` seconds, is a failure, printed with the seed that remakes it.
A match that is read is used: it is written as ``.mat`` and read back to the same games.

    python -m tests.fuzz.match_files --count 100000 --jobs 2     # the full run (minutes)
    python -m tests.fuzz.match_files --count 200 --seed 7        # a short one

``tests/test_fuzz_match_files.py`` runs 5,000 of them (seed 20261204) in CI.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
import traceback
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

CORPUS = Path(__file__).resolve().parent.parent / "data" / "matches"
N_SEEDS = 24  # real matches taken as seeds, spread over the corpus


class Timeout(Exception):
    pass


def seed_files() -> list[tuple[str, bytes]]:
    """(format, bytes) of every seed: text matches, and the same matches as .sgf and .xg."""
    import fastgen  # lazy: the command line parses its arguments before loading fastgen

    files = sorted(CORPUS.glob("*/*.txt"))
    picked = [files[int(i)] for i in np.linspace(0, len(files) - 1, N_SEEDS)]
    # each seed is a match's first three games (a whole match is slower to read and
    # adds little: its games are alike)
    texts = [p.read_bytes().split(b"\n Game 4\n")[0] for p in picked]
    seeds = [("mat", t) for t in texts]
    matches = [fastgen.formats.read_mat(t, errors="warn") for t in texts[:8]]
    from fastgen.formats.sgf import write_sgf  # lazy: as above

    seeds += [("sgf", write_sgf(m).encode("utf-8")) for m in matches]
    sys.path.insert(0, str(CORPUS.parent.parent))
    from _xg_writer import write_xg  # lazy: the test suite's own writer, from the tests folder

    for m in matches:  # the sites' header lines (ratings "5,00/0", site names) do not fit XG's fields
        m.info = {}
    seeds += [("xg", write_xg(m)) for m in matches]
    return seeds


def mutate(data: bytes, kind: str, rng: np.random.Generator) -> bytes:
    """*data* damaged one to three times (module docstring)."""
    buf = bytearray(data)
    for _ in range(int(rng.integers(1, 4))):
        n = len(buf)
        op = int(rng.integers(0, 9 if kind != "xg" else 8))
        at = int(rng.integers(0, n + 1)) if n else 0
        if op == 0 and n:  # cut short
            del buf[at:]
        elif op == 1 and n:  # bytes overwritten
            for _ in range(int(rng.integers(1, 9))):
                buf[int(rng.integers(0, n))] = int(rng.integers(0, 256))
        elif op == 2:  # bytes inserted
            buf[at:at] = rng.integers(0, 256, int(rng.integers(1, 17)), dtype=np.uint8).tobytes()
        elif op == 3 and n:  # a slice deleted
            del buf[at:at + int(rng.integers(1, 65))]
        elif op == 4 and n:  # a slice repeated
            buf[at:at] = buf[at:at + int(rng.integers(1, 257))]
        elif op == 5 and n:  # a digit changed (dice, points, scores, lengths)
            digits = [i for i in range(max(0, at - 400), min(n, at + 400)) if 48 <= buf[i] <= 57]
            if digits:
                buf[digits[int(rng.integers(0, len(digits)))]] = int(rng.integers(48, 58))
        elif op == 6 and n:  # lines dropped or swapped
            lines = bytes(buf).split(b"\n")
            i, j = (int(x) for x in rng.integers(0, len(lines), 2))
            if rng.random() < 0.5:
                del lines[i]
            else:
                lines[i], lines[j] = lines[j], lines[i]
            buf = bytearray(b"\n".join(lines))
        elif op == 7 and n:  # a common word of the format put somewhere
            words = {"mat": [b"Doubles => 2", b"Takes", b"Drops", b"Wins 1 point", b"Losses 2 point", b"bar/", b"/off",
                             b"*", b"(2)", b" 3 point match", b" Game 2", b"????", b"\r\n", b"; [Crawford \"Off\"]"],
                     "sgf": [b";B[double]", b";W[take]", b";B[drop]", b")", b"(;", b"[", b"]", b"\\", b"MI[length:0]",
                             b"RE[W+3R]", b";W[52zzzz]", b"RU[Crawford:CrawfordGame]"],
                     "xg": [b"RGMH", b"\xff\xff\xff\x7f", b"\x00" * 8]}[kind]
            buf[at:at] = words[int(rng.integers(0, len(words)))]
        elif op == 8 and n:  # Latin-1 and UTF-8 letters in names
            buf[at:at] = ["é".encode("utf-8"), "é".encode("latin-1"), "名".encode("utf-8")][int(rng.integers(0, 3))]
    return bytes(buf)


def _alarm(signum, frame):
    raise Timeout()


def check_one(data: bytes, timeout: float) -> str | None:
    """None when the reader did what it may with *data*, else what went wrong."""
    import fastgen  # lazy: as above

    if hasattr(signal, "SIGALRM"):
        signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, timeout)
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            match = fastgen.read_match(data)
            try:
                text = fastgen.write_mat(match)
            except fastgen.MatFileError:
                return None  # e.g. a name a .mat file cannot hold
            again = fastgen.formats.read_mat(text)
        if [g.record for g in again.games] != [g.record for g in match.games]:
            return "the match read does not write and read back to the same games"
    except fastgen.MatFileError:
        return None
    except Timeout:
        return f"took more than {timeout} s"
    except Exception:  # noqa: BLE001 - any other exception is what the fuzz looks for
        return traceback.format_exc(limit=6)
    finally:
        if hasattr(signal, "SIGALRM"):
            signal.setitimer(signal.ITIMER_REAL, 0)
    if time.perf_counter() - start > timeout:
        return f"took more than {timeout} s"
    return None


def run(seed: int, start: int, count: int, timeout: float) -> tuple[int, list[tuple[int, str]]]:
    """Inputs *start* .. *start*+*count* of the run with *seed*: (inputs read, failures)."""
    seeds = seed_files()
    failures = []
    for k in range(start, start + count):
        rng = np.random.default_rng([seed, k])
        kind, data = seeds[int(rng.integers(0, len(seeds)))]
        problem = check_one(mutate(data, kind, rng), timeout)
        if problem:
            failures.append((k, f"{kind}: {problem}"))
    return count, failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=20261204)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds one file may take")
    args = parser.parse_args(argv)
    chunk = 1000
    parts = [(args.seed, s, min(chunk, args.count - s), args.timeout) for s in range(0, args.count, chunk)]
    done, failures = 0, []
    t0 = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        for n, found in pool.map(run, *zip(*parts)):
            done += n
            failures += found
            print(f"\r{done:,} files, {len(failures)} failures, {time.perf_counter() - t0:.0f} s", end="", file=sys.stderr)
    print(file=sys.stderr)
    for k, problem in failures[:20]:
        print(f"input {k} (--seed {args.seed}): {problem}")
    print(f"{done} mutated match files read: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
