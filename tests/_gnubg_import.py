"""GNU Backgammon's reading of text match files: ``import mat`` then ``export match mat``.

:func:`gnubg_readings` has the real gnubg (Debian's 1.07, ``/usr/games/gnubg`` or
``$FASTGEN_GNUBG``) import each file and export what it read in its own ``.mat`` layout,
which fastgen's reader reads like any other file: comparing fastgen's reading of the
original with its reading of gnubg's export compares the two programs' readings game by
game (rolls, plays, cube actions, winners and points). A file gnubg cannot read at all
exports an empty match (a header with no game), reported as None; a file that stops gnubg
itself (1.07 dies on an empty player name) has no export, reported as None too.

One gnubg process imports a chunk of files in turn (about 10 ms a file once started);
the chunks run on two processes at once. Each file is copied first to a short name
without spaces (gnubg's command line splits paths at spaces). Used by
``tests/test_match_corpus.py`` and by ``python -m tests._gnubg_import FOLDER...``,
which prints how many files each program reads and every disagreement.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

GNUBG = os.environ.get("FASTGEN_GNUBG", "/usr/games/gnubg")
CHUNK = 100


def available() -> str | None:
    """None when gnubg can run, else why not."""
    if not (os.path.isfile(GNUBG) and os.access(GNUBG, os.X_OK)):
        return f"GNU Backgammon is not installed at {GNUBG} (apt-get install gnubg, or set FASTGEN_GNUBG)"
    return None


def _run_chunk(work: Path, names: list[str]) -> None:
    lines = ["set display off", "set confirm new off"]
    for name in names:
        lines += [f"import mat in/{name}", f"export match mat out/{name}"]
    subprocess.run(
        [GNUBG, "-t", "-q"], input="\n".join(lines) + "\n", cwd=work, text=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60 + 5 * len(names),
        env={**os.environ, "HOME": str(work)},  # no saved settings of the user's
    )


def gnubg_readings(paths: list[Path], jobs: int = 2) -> list[str | None]:
    """gnubg's export of each file in *paths* (None where it read no game)."""
    with tempfile.TemporaryDirectory(prefix="fastgen-gnubg-import-") as tmp:
        work = Path(tmp)
        (work / "in").mkdir()
        (work / "out").mkdir()
        names = []
        for i, path in enumerate(paths):
            name = f"{i:06d}.mat"
            shutil.copyfile(path, work / "in" / name)
            names.append(name)
        chunks = [names[k:k + CHUNK] for k in range(0, len(names), CHUNK)]
        with ThreadPoolExecutor(jobs) as pool:
            list(pool.map(lambda c: _run_chunk(work, c), chunks))
            # gnubg dies on some files (an empty player name overflows a buffer), taking
            # the rest of its chunk with it: every file left without an export runs alone
            missing = [name for name in names if not (work / "out" / name).exists()]
            list(pool.map(lambda name: _run_chunk(work, [name]), missing))
        out: list[str | None] = []
        for name in names:
            exported = work / "out" / name
            text = exported.read_text("utf-8", errors="replace") if exported.exists() else ""
            out.append(text if " Game 1" in text else None)
        return out


def summary(games) -> list[tuple]:
    """What two readings of a match must share, game by game: the record (every action,
    its player and its dice or board), the winner and the points.

    A roll nobody played just before a game's closing resignation is left out: when a
    file writes a line gnubg does not know (``Losses 1 point``) after a roll, gnubg
    gives the other player a roll of the same dice, which the file does not hold."""
    out = []
    for game in games:
        record = [(kind, player, data) for kind, player, data in game.record]
        if len(record) >= 3 and record[-3][0] == "roll" and [k for k, _, _ in record[-2:]] == ["resign", "accept"]:
            del record[-3]
        out.append((record, game.winner, game.points))
    return out


_NAMELESS = re.compile(r"^( \S.*? : [0-9]+ +): ([0-9]+) : ([0-9]+) *$", re.M)


def _gnubg_names(text: str) -> str:
    """gnubg's export with a nameless player (which it writes as ``: 0 : 1``, its name
    ``: 0`` then the score) given the name ``Player 2`` as fastgen's reader does."""
    return _NAMELESS.sub(lambda m: f"{m.group(1)}Player 2 : {m.group(3)}", text)


def exporter(path: Path) -> str:
    """The program or site that wrote the text match *path*, told from its content."""
    text = path.read_bytes()[:20000].decode("utf-8", "replace")
    m = re.search(r'\[Site "([^"]*)"\]', text)
    site = m.group(1) if m else ""
    if "galaxy" in site.lower():
        return "Backgammon Galaxy"
    if "studio" in site.lower():
        return "Backgammon Studio"
    if "playok" in text.lower():
        return "PlayOK"
    if re.search(r"[0-9]/Off|Bar/", text):  # XG writes Bar and Off capitalised
        return "eXtreme Gammon (text export)"
    if re.search(r"[0-9]/0[ *]|25/[0-9]", text):  # gnubg writes 25 and 0 for bar and off
        return "GNU Backgammon (export match mat)"
    return "other"


def compare(paths: list[Path]) -> dict:
    """Read every file with fastgen and with gnubg; returns counts (in all and by
    exporter) and the disagreements."""
    import fastgen  # lazy: the command-line use imports the installed package only when run

    exports = gnubg_readings(paths)
    result: dict = {"files": len(paths), "gnubg": 0, "fastgen": 0, "both_equal": 0, "problems": [], "by": {}}
    for path, exported in zip(paths, exports):
        by = result["by"].setdefault(exporter(path), {"files": 0, "gnubg": 0, "fastgen": 0, "both_equal": 0})
        counts = [result, by]
        try:
            ours = fastgen.formats.read_mat(path)
        except fastgen.MatFileError as exc:
            ours, why = None, str(exc)
        else:
            for c in counts:
                c["fastgen"] += 1
        by["files"] += 1
        if exported is None:
            if ours is not None:
                result["problems"].append((str(path), "gnubg reads no game; fastgen reads the file"))
            else:
                result["problems"].append((str(path), f"neither reads it: {why}"))
            continue
        for c in counts:
            c["gnubg"] += 1
        if ours is None:
            result["problems"].append((str(path), f"gnubg reads it, fastgen does not: {why}"))
            continue
        try:
            theirs = fastgen.formats.read_mat(_gnubg_names(exported))
        except fastgen.MatFileError as exc:
            result["problems"].append((str(path), f"fastgen cannot read gnubg's export: {exc}"))
            continue
        a, b = summary(ours.games), summary(theirs.games)
        if a == b:
            for c in counts:
                c["both_equal"] += 1
        else:
            k = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            result["problems"].append((str(path), f"the readings differ from game {k + 1} "
                                       f"({len(a)} games in fastgen's, {len(b)} in gnubg's)"))
    return result


def main(argv: list[str]) -> int:
    why = available()
    if why:
        print(why, file=sys.stderr)
        return 2
    paths = sorted(p for a in argv for p in (Path(a).iterdir() if Path(a).is_dir() else [Path(a)])
                   if p.is_file() and p.suffix.lower() in (".mat", ".txt"))
    r = compare(paths)
    for path, problem in r["problems"]:
        print(f"{path}: {problem}")
    for name, c in sorted(r["by"].items(), key=lambda kv: -kv[1]["files"]):
        print(f"{name}: {c['files']} files; gnubg reads {c['gnubg']}; fastgen reads {c['fastgen']}; "
              f"read alike: {c['both_equal']}")
    print(f"{r['files']} files; gnubg reads {r['gnubg']}; fastgen reads {r['fastgen']}; "
          f"read alike by both: {r['both_equal']} ({100 * r['both_equal'] / max(r['gnubg'], 1):.2f}% of gnubg's)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
