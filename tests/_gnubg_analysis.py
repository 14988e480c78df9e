"""GNU Backgammon's own analysis of whole matches, to compare fastgen's match analysis with.

Two parts:

- :func:`make_corpus` writes a deterministic corpus of ``.mat`` files: matches to 1, 3,
  5, 7 and 9 points played by fastgen (``fastgen.duel_matches(..., 1, length, records=True)``)
  between *noisy* cube players, the baseline net with seeded Gaussian noise added to its
  probabilities (:class:`NoisyEvaluator`), so that the matches hold chequer errors of
  every size, wrong doubles, wrong takes and passes and missed doubles.
- :func:`gnubg_analyse` has GNU Backgammon (Debian's gnubg 1.07, ``/usr/games/gnubg`` or
  ``$FASTGEN_GNUBG``) analyse each file at 0 ply (or 1) and returns, per file, its
  ``show statistics match`` table (per player) and the move-by-move analysis of its
  ``export match text`` files (every chequer play and cube decision, in match order).

How gnubg is driven: one ``gnubg -t -q`` process per file, the commands on its stdin
(one a line, ending with ``quit``), ``HOME`` pointing to an empty temporary folder so
that no saved user settings (``~/.gnubg/gnubgautorc``) change the analysis. The file is
copied there as ``match.mat`` (gnubg's command line splits paths at spaces), then::

    set display off
    set output digits 5              # equities in the move lists with 5 decimals
    set output mwc off               # equities as normalized money equity (EMG), not MWC
    set analysis chequerplay evaluation plies 0    (+ prune on, its default, cubeful on, noise 0; or plies 1, 2)
    set analysis cubedecision evaluation plies 0   (the same)
    set analysis luckanalysis plies 0              (the same, at either plies; luck is "luckanalysis")
    set analysis moves on / cube on / luck on
    set export moves number 2        # the 2 best moves; the move played always follows
    set export moves probabilities off / set export cube probabilities off
    set export moves display ... on / set export cube display ... on  (every decision)
    import mat match.mat
    analyse match
    show statistics match
    export match text export/game.txt
    quit

``show statistics match`` is read from stdout. ``export match text`` writes one file per
game: ``game.txt`` for game 1, then ``game_002.txt``, ``game_003.txt``... 0 ply is the
full net's evaluation (as ``evaluators.gnubg(0)``; the pruning nets, on as by default,
act only inside a search), and at 1 or 2 plies each reply is chosen by it among the
plays the pruning nets keep, cube included, as fastgen's ``gnubg:N`` analysis chooses
it. gnubg's analysis filter (its default, "large": the best 16 within 0.32) picks the
plays looked at deeper, as fastgen's does.
gnubg 1.07 spends about 10 ms per command and works on one core, so several files are
analysed by several processes side by side (*processes*).

What gnubg prints, and so what the dicts hold (all numbers as printed, as floats):

- Equities and errors are *normalized* ("EMG": money-game equity equivalent), negative
  errors for mistakes. Errors in the move lists and cube alerts have 5 decimals (``set
  output digits``); the marks ("Alert: bad move ( -0.123)"), the luck of each roll and
  the statistics' per-kind cube error sums ("3 (-0.294 ( -2.076%))") have 3 whatever
  the digits. Error rates are in milli-EMG ("mEMG", 3 decimals): chequer total over
  unforced moves, cube total over close-or-actual decisions, overall total over the two;
  "Snowie error rate" is the total over the moves of *both* players, and its MWC column
  is always +0.000%. MWC figures are percentages (3 decimals) and can pass 100% over a
  match; the luck MWC total can even have the other sign than the EMG total (seen:
  -2.11669 EMG, +20.402% MWC). The statistics' totals are the sums of the per-move
  errors and luck values of the export (to their rounding).
- The move list shows the played move with its rank and its difference to the best
  move; the best move itself has no difference printed (its ``error`` is 0.0 here).
  For about 2% of the moves gnubg prints ``??`` for the rank (``rank`` None), the
  error still printed. A roll with no legal play is "* X cannot move" (``move`` "").
- A take or pass with no cube analysis printed (it happens) has ``cube`` None.
- Cube decisions are printed in the record of the move that followed them when the
  player did not double ("no double" action), and as records of their own for a double
  ("X on roll, cube decision?" then "X doubles to N" for the take or pass). A cube
  error is printed only as an alert ("Alert: wrong take (-0.17109)!"), for every
  error however small, followed by " [very bad]" / " [bad]" / " [doubtful]" past the
  thresholds; without an alert the decision was right (``error`` 0.0). The table of a
  take or pass is from the side that takes (the doubler's equities negated).
- The statistics' "Luck based FIBS rating diff." has one value (player 0's side); "n/a"
  becomes None; lines gnubg leaves out (e.g. the ratings and results of an unfinished
  match) are None; a count of missed doubles or wrong takes etc. carries its error
  ("3 (-0.294 ( -2.076%))") only when the count is not 0 (None otherwise).
- The text export's own "Match statistics" block is wrong in gnubg 1.07 (all zero but
  the move counts): it is not read; the per-game blocks ("Game statistics for game N")
  are, into ``games[i]["statistics"]``.

Run by hand: ``python tests/_gnubg_analysis.py [N] [--plies 1] [--money]`` builds a
corpus of N files (24 by default; with ``--money``, money sessions of five games from
:func:`make_money_corpus`) in a temporary folder, analyses it (at 0 ply, or 1) and
prints a summary, timings and fastgen's figures beside gnubg's. In a money session's
statistics gnubg prints points where a match has MWC, and ppg lines.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

GNUBG = os.environ.get("FASTGEN_GNUBG", "/usr/games/gnubg")


class GnubgAnalysisError(RuntimeError):
    """gnubg failed, or printed something this module does not expect."""


def available() -> str | None:
    """None when gnubg can run, else why not."""
    if not os.path.exists(GNUBG):
        return f"GNU Backgammon not found at {GNUBG} (set FASTGEN_GNUBG)"
    return None


# ---------------------------------------------------------------- the corpus

#: Match lengths of the corpus, cycled through: 1, 3, 5, 7 and 9 points.
LENGTHS = (1, 3, 5, 7, 9)
#: Noise levels (standard deviation in logit units, see NoisyEvaluator) the players draw from.
NOISE_LEVELS = (0.0, 0.15, 0.3, 0.6, 1.0)


def _mix64(z):
    """splitmix64's finalizer on uint64 arrays (wrapping arithmetic)."""
    import numpy as np

    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


class NoisyEvaluator:
    """An evaluator (``(N, 2, 25)`` int8 boards to ``(N, 5)`` probabilities) that adds
    Gaussian noise to *base*'s probabilities.

    The noise is a fixed function of the board and *seed* (a hash of the board's 50
    cells), so the same position always gets the same distortion, whatever the batch it
    comes in: the player is deterministic. It is added in logit space to the five
    conditional probabilities (win; gammon given a win; backgammon given a gammon; the
    same for a loss), which keeps the result consistent (gammons never above wins) and
    leaves small backgammon chances small. *sigma* is the standard deviation in logit
    units: 0.15 makes a few small errors, 1.0 many blunders and wild cube actions.
    """

    def __init__(self, base, sigma: float, seed: int) -> None:
        import numpy as np

        self.base = base
        self.sigma = float(sigma)
        self.seed = np.uint64(seed & 0xFFFFFFFFFFFFFFFF)
        with np.errstate(over="ignore"):
            self._weights = _mix64(np.arange(1, 51, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15) ^ self.seed)
        self.__name__ = f"noisy({sigma})"

    def _normals(self, boards):
        """(N, 5) standard normals, a function of each board and the seed."""
        import numpy as np

        n = len(boards)
        cells = boards.reshape(n, 50).astype(np.int64).astype(np.uint64) + np.uint64(16)
        with np.errstate(over="ignore"):
            h = _mix64((cells * self._weights).sum(axis=1, dtype=np.uint64) ^ self.seed)
            steps = np.arange(1, 11, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
            bits = _mix64(h[:, None] + steps[None, :])
        u = ((bits >> np.uint64(11)).astype(np.float64) + 0.5) / 2.0 ** 53  # in (0, 1)
        return np.sqrt(-2.0 * np.log(u[:, :5])) * np.cos(2.0 * np.pi * u[:, 5:])

    def __call__(self, boards):
        import numpy as np

        boards = np.ascontiguousarray(boards, dtype=np.int8)
        p = np.asarray(self.base(boards), dtype=np.float64)[:, :5]
        if self.sigma == 0.0 or not len(p):
            return p.astype(np.float32)
        eps = 1e-6

        def cond(num, den):
            return np.clip(np.divide(num, den, out=np.zeros_like(num), where=den > eps), eps, 1 - eps)

        win = np.clip(p[:, 0], eps, 1 - eps)
        c = np.stack([win, cond(p[:, 1], p[:, 0]), cond(p[:, 2], p[:, 1]),
                      cond(p[:, 3], 1 - p[:, 0]), cond(p[:, 4], p[:, 3])], axis=1)
        c = 1.0 / (1.0 + np.exp(-(np.log(c / (1 - c)) + self.sigma * self._normals(boards))))
        w = c[:, 0]
        wg = w * c[:, 1]
        lg = (1 - w) * c[:, 3]
        return np.stack([w, wg, wg * c[:, 2], lg, lg * c[:, 4]], axis=1).astype(np.float32)


def noisy_player(sigma: float, seed: int):
    """A cube player (:class:`fastgen.players.policies.CubePolicy`) on the baseline net distorted
    by :class:`NoisyEvaluator`: its chequer plays and its cube decisions both see the noise."""
    import fastgen
    from fastgen.players.policies import CubePolicy

    return CubePolicy(NoisyEvaluator(fastgen.players.evaluators.baseline(), sigma, seed), name=f"noisy{sigma}")


def _player_name(letter: str, sigma: float) -> str:
    return f"{letter}{round(sigma * 100):03d}"  # "Ann030": sigma 0.30 (no spaces: one word)


def make_corpus(folder, n: int = 24, seed: int = 20261203) -> list[Path]:
    """Write *n* ``.mat`` files into *folder* (created if needed) and return their paths.

    File *i* is a match to ``LENGTHS[i % 5]`` points (1, 3, 5, 7, 9) between two noisy
    cube players (:func:`noisy_player`) with noise levels drawn from ``NOISE_LEVELS``;
    the names, ``Ann<sigma*100>`` and ``Bob<sigma*100>``, record them. Matches longer
    than one point are replayed with the next seed until a double was offered (and, from
    5 points, the match lasted two games or more; at most 20 tries), so they all have
    cube action. The same *seed* gives the same files.
    """
    import fastgen
    import numpy as np

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    paths = []
    for i in range(n):
        length = LENGTHS[i % len(LENGTHS)]
        sa, sb = (float(x) for x in rng.choice(NOISE_LEVELS, size=2))
        if sa == sb == 0.0:  # at least one player makes errors beyond the baseline's own
            sb = NOISE_LEVELS[1 + i % (len(NOISE_LEVELS) - 1)]
        names = (_player_name("Ann", sa), _player_name("Bob", sb))
        base_seed = int(rng.integers(1, 2 ** 31))
        for attempt in range(20):
            s = base_seed + attempt
            a, b = noisy_player(sa, 2 * s), noisy_player(sb, 2 * s + 1)
            result = fastgen.duel_matches(a, b, 1, length, seed=s, records=True, mirrored=False)
            text = fastgen.write_mat(result.match(0, names=names))
            games = text.count("\n Game ")
            if length == 1 or ("Doubles =>" in text and (length < 5 or games >= 2)):
                break
        path = folder / f"m{i:03d}_{length}pt.mat"
        path.write_text(text)
        paths.append(path)
    return paths


def make_money_corpus(folder, n: int = 8, games: int = 5, seed: int = 20261204) -> list[Path]:
    """Write *n* money sessions of *games* games each (``.mat`` files of a "0 point
    match") into *folder* and return their paths: noisy cube players as in
    :func:`make_corpus`, money play with the cube (no Jacoby rule), each session's games
    one seeded duel's (``records=True``). The same *seed* gives the same files."""
    import fastgen
    import numpy as np

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    paths = []
    for i in range(n):
        sa, sb = (float(x) for x in rng.choice(NOISE_LEVELS[1:], size=2))
        s = int(rng.integers(1, 2 ** 31))
        a, b = noisy_player(sa, 2 * s), noisy_player(sb, 2 * s + 1)
        result = fastgen.duel(a, b, games, seed=s, cube=True, records=True, mirrored=False)
        session = fastgen.Match(0, names=(_player_name("Ann", sa), _player_name("Bob", sb)))
        for g in range(games):
            session.new_game().apply(result.game(g).record)
        path = folder / f"s{i:03d}_money.mat"
        path.write_text(fastgen.write_mat(session))
        paths.append(path)
    return paths


# ---------------------------------------------------------------- running gnubg

_EVAL = ("prune on", "cubeful on", "noise 0", "deterministic on")


def commands(mat_name: str = "match.mat", export_name: str = "export/game.txt", plies: int = 0) -> str:
    """The commands :func:`gnubg_analyse` sends to gnubg for one file (module docstring):
    chequer play and cube decisions at *plies* (the luck at 0 ply, gnubg's default)."""
    # no Jacoby rule: fastgen's money sessions are written without it, and gnubg's .mat
    # files carry no Jacoby tag (gnubg applies its own setting, on by default)
    lines = ["set display off", "set output digits 5", "set output mwc off", "set jacoby off"]
    for what, ply in (("chequerplay evaluation", plies), ("cubedecision evaluation", plies), ("luckanalysis", 0)):
        lines += [f"set analysis {what} {setting}" for setting in (f"plies {ply}", *_EVAL)]
    lines += ["set analysis moves on", "set analysis cube on", "set analysis luck on",
              "set export moves number 2",
              "set export moves probabilities off", "set export cube probabilities off"]
    lines += [f"set export moves display {m} on" for m in ("verybad", "bad", "doubtful", "unmarked")]
    lines += [f"set export cube display {m} on"
              for m in ("verybad", "bad", "doubtful", "unmarked", "actual", "missed", "close")]
    lines += [f"import mat {mat_name}", "analyse match", "show statistics match",
              f"export match text {export_name}", "quit"]
    return "\n".join(lines) + "\n"


def _export_number(path: Path) -> int:
    m = re.fullmatch(r"game(?:_(\d+))?\.txt", path.name)
    if not m:
        raise GnubgAnalysisError(f"unexpected file from gnubg's text export: {path}")
    return int(m.group(1) or 1)


def run_gnubg(path, timeout: float = 600, plies: int = 0) -> tuple[str, list[str], float]:
    """Run gnubg's analysis of the ``.mat`` file *path* at *plies*: (stdout, the text
    export of each game in order, wall seconds)."""
    why = available()
    if why:
        raise GnubgAnalysisError(why)
    path = Path(path)
    with tempfile.TemporaryDirectory(prefix="gnubg_analysis_") as tmp:
        work = Path(tmp)
        (work / "home").mkdir()
        (work / "export").mkdir()
        shutil.copyfile(path, work / "match.mat")
        env = dict(os.environ, HOME=str(work / "home"))
        t0 = time.perf_counter()
        try:
            done = subprocess.run([GNUBG, "-t", "-q"], input=commands(plies=plies), capture_output=True, text=True,
                                  cwd=work, env=env, timeout=timeout)
        except subprocess.TimeoutExpired as e:
            raise GnubgAnalysisError(f"gnubg took over {timeout} s on {path}") from e
        seconds = time.perf_counter() - t0
        exports = sorted((work / "export").glob("game*.txt"), key=_export_number)
        # gnubg writes its complaints (an unknown keyword, a file it cannot read) to
        # stderr, which is otherwise empty
        if done.returncode != 0 or done.stderr.strip() or not exports:
            raise GnubgAnalysisError(
                f"gnubg failed on {path} (exit status {done.returncode}, {len(exports)} export files):\n"
                f"stderr:\n{done.stderr[-2000:]}\nstdout ends:\n{done.stdout[-2000:]}")
        numbers = [_export_number(p) for p in exports]
        if numbers != list(range(1, len(numbers) + 1)):
            raise GnubgAnalysisError(f"gnubg's text export of {path} skipped a game: {[p.name for p in exports]}")
        texts = [p.read_text() for p in exports]
    return done.stdout, texts, seconds


# ---------------------------------------------------------------- the statistics table

_NUM = r"[-+]?\d+\.\d+"
# the second figure is MWC in percent at match play, points (no "%") in a money session
_EMG_MWC = re.compile(rf"({_NUM})\s*\(\s*({_NUM})%?\)")
_COUNT_ERR = re.compile(rf"(\d+)(?:\s*\(\s*({_NUM})\s*\(\s*({_NUM})%?\)\))?")
_INTERVAL = re.compile(rf"\[\s*({_NUM}),\s*({_NUM})\]")
_PCT = re.compile(rf"({_NUM})%?")  # points, not percent, in a money game's table

# (section, label as printed, key, kind, required)
_SECTIONS = {"Chequerplay statistics": "chequer", "Luck statistics": "luck",
             "Cube statistics": "cube", "Overall statistics": "overall"}
_ROWS = [
    ("chequer", "Total moves", "total_moves", "int", True),
    ("chequer", "Unforced moves", "unforced_moves", "int", True),
    ("chequer", "Unmarked moves", "unmarked_moves", "int", True),
    ("chequer", "Moves marked doubtful", "moves_doubtful", "int", True),
    ("chequer", "Moves marked bad", "moves_bad", "int", True),
    ("chequer", "Moves marked very bad", "moves_very_bad", "int", True),
    ("chequer", "Error total EMG (MWC)", "chequer_error_total", "emg_mwc", True),
    ("chequer", "Error rate mEMG (MWC)", "chequer_error_rate", "memg_mwc", True),
    ("chequer", "Chequerplay rating", "chequer_rating", "text", True),
    ("luck", "Rolls marked very lucky", "rolls_very_lucky", "int", True),
    ("luck", "Rolls marked lucky", "rolls_lucky", "int", True),
    ("luck", "Rolls unmarked", "rolls_unmarked", "int", True),
    ("luck", "Rolls marked unlucky", "rolls_unlucky", "int", True),
    ("luck", "Rolls marked very unlucky", "rolls_very_unlucky", "int", True),
    ("luck", "Luck total EMG (MWC)", "luck_total", "emg_mwc", True),
    ("luck", "Luck rate mEMG (MWC)", "luck_rate", "memg_mwc", True),
    ("luck", "Luck rating", "luck_rating", "text", True),
    ("cube", "Total cube decisions", "cube_decisions", "int", True),
    ("cube", "Close or actual cube decisions", "cube_decisions_close_or_actual", "int", True),
    ("cube", "Doubles", "doubles", "int", True),
    ("cube", "Takes", "takes", "int", True),
    ("cube", "Passes", "passes", "int", True),
    ("cube", "Missed doubles below CP (EMG (MWC))", "missed_doubles_below_cp", "count_err", True),
    ("cube", "Missed doubles above CP (EMG (MWC))", "missed_doubles_above_cp", "count_err", True),
    ("cube", "Wrong doubles below DP (EMG (MWC))", "wrong_doubles_below_dp", "count_err", True),
    ("cube", "Wrong doubles above TG (EMG (MWC))", "wrong_doubles_above_tg", "count_err", True),
    ("cube", "Wrong takes (EMG (MWC))", "wrong_takes", "count_err", True),
    ("cube", "Wrong passes (EMG (MWC))", "wrong_passes", "count_err", True),
    ("cube", "Error total EMG (MWC)", "cube_error_total", "emg_mwc", True),
    ("cube", "Error rate mEMG (MWC)", "cube_error_rate", "memg_mwc", True),
    ("cube", "Cube decision rating", "cube_rating", "text", True),
    ("overall", "Error total EMG (MWC)", "error_total", "emg_mwc", True),
    ("overall", "Error rate mEMG (MWC)", "error_rate", "memg_mwc", True),
    ("overall", "Snowie error rate", "snowie_error_rate", "memg_mwc", True),
    ("overall", "Overall rating", "overall_rating", "text", False),
    ("overall", "Actual result", "actual_result_pct", "pct", False),
    ("overall", "Luck adjusted result", "luck_adjusted_result_pct", "pct", False),
    ("overall", "Luck based FIBS rating diff.", "luck_based_fibs_rating_diff", "single", False),
    ("overall", "Error based abs. FIBS rating", "error_based_fibs_rating", "float", False),
    ("overall", "Chequerplay errors rating loss", "chequer_errors_rating_loss", "float", "match"),
    ("overall", "Cube errors rating loss", "cube_errors_rating_loss", "float", "match"),
    # money sessions only; the interval line follows each of the two ppg lines:
    # ppg_actual_interval, then ppg_luck_adjusted_interval, each (low, high)
    ("overall", "Advantage (actual) in ppg", "ppg_actual", "float", False),
    ("overall", "Advantage (luck adjusted) in ppg", "ppg_luck_adjusted", "float", False),
    ("overall", "95% confidence interval (ppg)", "ppg_interval", "interval", False),
]
_ROW_INDEX = {(s, label): (key, kind) for s, label, key, kind, _ in _ROWS}


def _label(line: str) -> str:
    """A statistics line with a money session's unit, ``(Points)``, read as the match's ``(MWC)``."""
    return line.replace("(Points)", "(MWC)", 1)


def _two_columns(rest: str, line: str) -> list[str]:
    cols = re.split(r"\s{2,}", rest.strip())
    if len(cols) != 2:
        raise GnubgAnalysisError(f"expected two columns in gnubg's statistics line {line!r}")
    return cols


def _opt_float(s: str, line: str) -> float | None:
    if s == "n/a":
        return None
    try:
        return float(s)
    except ValueError:
        raise GnubgAnalysisError(f"not a number ({s!r}) in gnubg's statistics line {line!r}") from None


def _empty_player() -> dict:
    d: dict = {}
    for _, _, key, kind, _ in _ROWS:
        if kind == "emg_mwc":
            d[key + "_emg"] = d[key + "_mwc_pct"] = None
        elif kind == "memg_mwc":
            d[key + ("_memg" if key != "snowie_error_rate" else "")] = d[key + "_mwc_pct"] = None
        elif kind == "count_err":
            d[key] = d[key + "_emg"] = d[key + "_mwc_pct"] = None
        elif kind == "interval":
            d["ppg_actual_interval"] = d["ppg_luck_adjusted_interval"] = None
        elif kind != "single":
            d[key] = None
    return d


def parse_statistics(lines: list[str]) -> dict:
    """Parse one gnubg statistics table (from its ``Player`` line to its last row):
    ``{"players": [name0, name1], "luck_based_fibs_rating_diff": x or None,
    "per_player": {name: {key: value}}}`` (keys: ``_ROWS``; module docstring). In a
    money session's table (its units are ``(Points)``), the ``_mwc_pct`` keys hold the
    points gnubg prints beside each EMG figure, the ``_result_pct`` keys hold points (a
    game's table), and ``money`` is True."""
    if not lines or not lines[0].startswith("Player "):
        raise GnubgAnalysisError(f"a gnubg statistics table starts with 'Player', got {lines[:1]!r}")
    names = _two_columns(lines[0][len("Player"):], lines[0])
    cols = [_empty_player(), _empty_player()]
    money = any("(Points)" in line for line in lines)
    out: dict[str, Any] = {"players": names, "luck_based_fibs_rating_diff": None, "money": money}
    seen = set()
    section = None
    for line in lines[1:]:
        line = _label(line.rstrip())
        if not line:
            continue
        if line in _SECTIONS:
            section = _SECTIONS[line]
            continue
        for (sec, label), (key, kind) in _ROW_INDEX.items():
            if sec == section and line.startswith(label + " ") and line[len(label):][:2].isspace():
                break
        else:
            raise GnubgAnalysisError(f"unexpected line in gnubg's statistics ({section} section): {line!r}")
        if kind == "interval":
            rest = line[len(label):]
            found = _INTERVAL.findall(rest)
            if len(found) != 2 or _INTERVAL.sub("", rest).strip():
                raise GnubgAnalysisError(f"expected two intervals '[a, b]' in gnubg's statistics line {line!r}")
            which = "luck_adjusted" if (sec, "Advantage (luck adjusted) in ppg") in seen else "actual"
            for c, (lo, hi) in zip(cols, found):
                c[f"ppg_{which}_interval"] = (float(lo), float(hi))
            continue
        if (sec, label) in seen:
            raise GnubgAnalysisError(f"line twice in gnubg's statistics: {line!r}")
        seen.add((sec, label))
        rest = line[len(label):]
        if kind == "int":
            m = re.fullmatch(r"\s*(\d+)\s+(\d+)\s*", rest)
            if not m:
                raise GnubgAnalysisError(f"expected two counts in gnubg's statistics line {line!r}")
            for c, v in zip(cols, m.groups()):
                c[key] = int(v)
        elif kind in ("emg_mwc", "memg_mwc"):
            found = _EMG_MWC.findall(rest)
            if len(found) != 2 or _EMG_MWC.sub("", rest).strip():
                raise GnubgAnalysisError(f"expected two 'x (y%)' values in gnubg's statistics line {line!r}")
            unit = "_emg" if kind == "emg_mwc" else ("_memg" if key != "snowie_error_rate" else "")
            for c, (a, b) in zip(cols, found):
                c[key + unit] = float(a)
                c[key + "_mwc_pct"] = float(b)
        elif kind == "count_err":
            found = _COUNT_ERR.findall(rest)
            if len(found) != 2 or _COUNT_ERR.sub("", rest).strip():
                raise GnubgAnalysisError(f"expected two counts 'n (x (y%))' in gnubg's statistics line {line!r}")
            for c, (n, a, b) in zip(cols, found):
                c[key] = int(n)
                c[key + "_emg"] = float(a) if a else None
                c[key + "_mwc_pct"] = float(b) if b else None
        elif kind == "pct":
            found = _PCT.findall(rest)
            if len(found) != 2 or _PCT.sub("", rest).strip():
                raise GnubgAnalysisError(f"expected two percentages in gnubg's statistics line {line!r}")
            for c, v in zip(cols, found):
                c[key] = float(v)
        elif kind == "float":
            for c, v in zip(cols, _two_columns(rest, line)):
                c[key] = _opt_float(v, line)
        elif kind == "single":
            out[key] = _opt_float(rest.strip(), line)
        else:  # text
            for c, v in zip(cols, _two_columns(rest, line)):
                c[key] = v
    missing = [label for s, label, _, _, required in _ROWS
               if (required is True or (required == "match" and not money)) and (s, label) not in seen]
    if missing:
        raise GnubgAnalysisError(f"gnubg's statistics lack the lines {missing}")
    if names[0] == names[1]:
        raise GnubgAnalysisError(f"both players are called {names[0]!r}: the dict is keyed by name")
    out["per_player"] = {names[0]: cols[0], names[1]: cols[1]}
    return out


def _statistics_lines(lines: list[str], start: int) -> tuple[list[str], int]:
    """The lines of the table whose ``Player`` line is lines[start], and the index after it."""
    end = start + 1
    last = start
    while end < len(lines):
        s = _label(lines[end].rstrip())
        if s:
            if not (s in _SECTIONS or any(s.startswith(label + " ") for _, label, _, _, _ in _ROWS)):
                break
            last = end
        end += 1
    return lines[start:last + 1], last + 1


def parse_show_statistics(stdout: str) -> dict:
    """The ``show statistics match`` table in gnubg's stdout (:func:`parse_statistics`)."""
    lines = stdout.splitlines()
    starts = [i for i, s in enumerate(lines) if s.startswith("Player ")]
    if len(starts) != 1:
        raise GnubgAnalysisError(f"expected one statistics table in gnubg's output, found {len(starts)}:\n"
                                 f"{stdout[-3000:]}")
    table, _ = _statistics_lines(lines, starts[0])
    return parse_statistics(table)


# ---------------------------------------------------------------- the text export

_HEADER = re.compile(r"^Move number (\d+):\s+(.*)$")
# a money session's games have no "(match to N points)"
_SCORE = re.compile(r"^The score \(after (\d+) games?\) is: (.*?)(?: \(match to (\d+) points?\)(?:, (.*))?)?$")
_ROLLED = re.compile(rf"^Rolled (\d)(\d) \(({_NUM})\):$")
# "*   12. Cubeful 0-ply    13/11 8/2      Eq.: -0.17753 (-0.19175)": starred = played
_MOVE_ROW = re.compile(rf"^([* ])\s+(\d+\.|\?\?)\s+(\S+ \S+|Rollout)\s+(.*?)\s+"
                       rf"Eq\.:\s+({_NUM})(?:\s+\(({_NUM})\))?\s*$")
_MOVE_ALERT = re.compile(rf"^Alert: (doubtful|bad|very bad) move \(\s*({_NUM})\)$")
_LUCK_ALERT = re.compile(rf"^Alert: (very lucky|lucky|unlucky|very unlucky) roll! \(\s*({_NUM})\)$")
_CUBE_ALERT = re.compile(rf"^Alert: (wrong double|missed double|wrong take|wrong pass|wrong redouble|"
                         rf"missed redouble) \(({_NUM})\)!$")
_MARK = re.compile(r"^ \[(doubtful|bad|very bad)\]$")
_CUBELESS = re.compile(rf"^(\d+)-ply cubeless equity ({_NUM})(?: \(Money: ({_NUM})\))?$")
_CUBE_ROW = re.compile(rf"^(\d)\. (No double|Double, take|Double, pass)\s+({_NUM})(?:\s+\(({_NUM})\))?$")
_PROPER = re.compile(r"^Proper cube action: (.*?)(?: \((\d+\.\d+)%\))?$")
_BOARD = re.compile(r"^( [+|]|[v^]\||\s+Match ID\s+:| GNU Backgammon\s+Position ID:)")
_WINS = re.compile(r"^(.*) wins (\d+) points?$")


def _starts_with_name(text: str, names: list[str]) -> tuple[str, str] | None:
    """(name, rest) when *text* is ``<name> <rest>`` for one of *names* (longest first)."""
    for name in sorted(names, key=len, reverse=True):
        if text.startswith(name + " "):
            return name, text[len(name) + 1:]
    return None


def _parse_cube(lines: list[str], where: str) -> dict:
    """The "Cube analysis" block (from its first line on)."""
    cube: dict[str, Any] = {"cubeless_equity": None, "money_equity": None, "no_double": None, "double_take": None,
            "double_pass": None, "proper": None, "proper_percent": None}
    it = iter(lines)
    for line in it:
        if line == "Cube analysis":
            continue
        if m := _CUBELESS.match(line):
            cube["cubeless_equity"] = float(m.group(2))
            cube["money_equity"] = float(m.group(3)) if m.group(3) else None
        elif line == "Cubeful equities:":
            pass
        elif m := _CUBE_ROW.match(line):
            cube[{"No double": "no_double", "Double, take": "double_take",
                  "Double, pass": "double_pass"}[m.group(2)]] = float(m.group(3))
        elif m := _PROPER.match(line):
            cube["proper"] = m.group(1)
            cube["proper_percent"] = float(m.group(2)) if m.group(2) else None
        elif line:
            raise GnubgAnalysisError(f"unexpected line in gnubg's cube analysis ({where}): {line!r}")
    if None in (cube["cubeless_equity"], cube["no_double"], cube["double_take"], cube["double_pass"], cube["proper"]):
        raise GnubgAnalysisError(f"incomplete cube analysis in gnubg's export ({where}): {lines!r}")
    return cube


def _parse_record(game: int, number: int, head: str, body: list[str], names: list[str]) -> dict:
    where = f"game {game}, move number {number}"
    split = _starts_with_name(head, names)
    if not split:
        raise GnubgAnalysisError(f"unknown player in gnubg's export ({where}): {head!r}")
    who, what = split
    rec: dict = {"game": game, "move_number": number, "player": who, "type": None, "dice": None,
                 "move": None, "best_move": None, "equity": None, "best_equity": None, "error": None,
                 "rank": None, "mark": None, "mark_error": None, "luck": None, "luck_mark": None,
                 "luck_mark_value": None, "cube": None, "position_id": None, "match_id": None}
    if m := re.fullmatch(r"to play (\d)(\d)", what):
        rec["type"] = "move"
        rec["dice"] = m.group(1) + m.group(2)
    elif what == "on roll, cube decision?":
        rec["type"] = "double"
    elif m := re.fullmatch(r"doubles to (\d+)", what):
        rec["type"] = "take"
        rec["doubler"] = who
        rec["cube_value"] = int(m.group(1))
        rec["player"] = names[1 - names.index(who)]
    else:
        raise GnubgAnalysisError(f"unexpected record in gnubg's export ({where}): {head!r}")

    cube_lines: list[str] | None = None
    cube_alert = cube_error = cube_mark = None
    action = None
    rows = []
    rolled = None
    cannot_move = False
    for line in body:
        if cube_lines is not None:  # inside the cube analysis, which ends at its "Proper" line
            cube_lines.append(line)
            if line.startswith("Proper cube action:"):
                rec["cube"] = _parse_cube(cube_lines, where)
                cube_lines = None
            continue
        if m := re.match(r"^ GNU Backgammon\s+Position ID: (\S+)$", line):
            rec["position_id"] = m.group(1)
        elif m := re.match(r"^\s+Match ID\s+: (\S+)$", line):
            rec["match_id"] = m.group(1)
        elif _BOARD.match(line) or line.startswith("Pip counts:") or not line.strip():
            continue
        elif line.startswith("* ") and action is None:
            split = _starts_with_name(line[2:], names)
            if not split or split[0] != rec["player"]:
                raise GnubgAnalysisError(f"action by the wrong player in gnubg's export ({where}): {line!r}")
            action = split[1]
        elif line == "Cube analysis":
            cube_lines = [line]
        elif m := _CUBE_ALERT.match(line):
            cube_alert, cube_error = m.group(1), float(m.group(2))
        elif m := _MARK.match(line):
            cube_mark = m.group(1)
        elif m := _MOVE_ALERT.match(line):
            rec["mark"], rec["mark_error"] = m.group(1), float(m.group(2))
        elif m := _LUCK_ALERT.match(line):
            rec["luck_mark"], rec["luck_mark_value"] = m.group(1), float(m.group(2))
        elif m := _ROLLED.match(line):
            rolled = m.group(1) + m.group(2)
            rec["luck"] = float(m.group(3))
        elif m := _MOVE_ROW.match(line):
            rows.append(m)
        elif re.fullmatch(r"\*\s+Cannot move", line):
            cannot_move = True
        else:
            raise GnubgAnalysisError(f"unexpected line in gnubg's export ({where}): {line!r}")
    if cube_lines is not None:
        raise GnubgAnalysisError(f"cube analysis without its proper action in gnubg's export ({where})")
    if action is None:
        raise GnubgAnalysisError(f"no action line ('* {rec['player']} ...') in gnubg's export ({where})")

    if rec["type"] == "move":
        if action == "cannot move":
            rec["move"] = ""
        elif action.startswith("moves "):
            rec["move"] = action[len("moves "):]
        else:
            raise GnubgAnalysisError(f"unexpected action for a roll in gnubg's export ({where}): {action!r}")
        if rolled != rec["dice"]:
            raise GnubgAnalysisError(f"no 'Rolled {rec['dice']} (luck):' line in gnubg's export ({where})")
        if cannot_move or not rec["move"]:
            if rows or not cannot_move or rec["move"]:
                raise GnubgAnalysisError(f"a move without a play that has a move list ({where})")
            rec.update(best_move="", error=0.0, rank=1)
        else:
            played = [m for m in rows if m.group(1) == "*"]
            if len(played) != 1 or not rows[0].group(2) == "1.":
                raise GnubgAnalysisError(f"gnubg's move list lacks the best move or the move played ({where})")
            best, mine = rows[0], played[0]
            rec["best_move"] = best.group(4)
            rec["best_equity"] = float(best.group(5))
            rec["equity"] = float(mine.group(5))
            rec["error"] = float(mine.group(6)) if mine.group(6) else 0.0
            if mine is not best and mine.group(6) is None:
                raise GnubgAnalysisError(f"no error printed for the move played ({where})")
            rec["rank"] = None if mine.group(2) == "??" else int(mine.group(2)[:-1])
            rec["evaluation"] = mine.group(3)
            if mine.group(4) != rec["move"]:
                raise GnubgAnalysisError(f"the move played ({rec['move']!r}) is not the starred move in "
                                         f"gnubg's list ({mine.group(4)!r}) ({where})")
        cube_action = "no double"
    else:
        if rows or rolled:
            raise GnubgAnalysisError(f"a move list in a cube record of gnubg's export ({where})")
        expected = {"double": {"doubles": "double"}, "take": {"accepts": "take", "rejects": "pass"}}[rec["type"]]
        if action not in expected:
            raise GnubgAnalysisError(f"unexpected cube action in gnubg's export ({where}): {action!r}")
        cube_action = expected[action]
        rec["action"] = cube_action
    if rec["cube"] is not None:
        rec["cube"].update(action=cube_action, error=cube_error if cube_alert else 0.0,
                           alert=cube_alert, mark=cube_mark)
    elif cube_alert or cube_mark:
        raise GnubgAnalysisError(f"a cube alert without the cube analysis in gnubg's export ({where})")
    return rec


def parse_export(texts: list[str], names: list[str]) -> tuple[list[dict], list[dict]]:
    """Parse gnubg's ``export match text`` files (one per game, in order) of a match
    between *names*: (the records in match order, one dict per game)."""
    moves: list[dict] = []
    games: list[dict] = []
    for g, text in enumerate(texts, 1):
        lines = text.splitlines()
        if not lines or not (m := _SCORE.match(lines[0])):
            raise GnubgAnalysisError(f"gnubg's export of game {g} does not start with the score: {lines[:1]!r}")
        if int(m.group(1)) != g - 1:
            raise GnubgAnalysisError(f"gnubg's export file {g} is of game {int(m.group(1)) + 1}")
        score = []
        rest = m.group(2)
        for name in names:
            sm = re.match(re.escape(name) + r" (\d+)(?:, |$)", rest)
            if not sm:
                raise GnubgAnalysisError(f"cannot read the score of {name!r} in {lines[0]!r}")
            score.append(int(sm.group(1)))
            rest = rest[sm.end():]
        game = {"game": g, "match_length": int(m.group(3) or 0), "score": score, "note": m.group(4),
                "winner": None, "points": None, "statistics": None, "moves": 0}
        i = 1
        head = None
        body: list[str] = []
        number = None

        def flush():
            if head is not None:
                moves.append(_parse_record(g, number, head, body, names))
                game["moves"] += 1

        while i < len(lines):
            line = lines[i].rstrip()
            if hm := _HEADER.match(line):
                flush()
                number, head, body = int(hm.group(1)), hm.group(2), []
            elif line in ("Match statistics", "Session statistics"):  # wrong in gnubg 1.07's export (module docstring)
                break
            elif line.startswith("Player ") and head is None:
                if game["statistics"] is not None:
                    raise GnubgAnalysisError(f"two statistics tables in the export of game {g}")
                table, i = _statistics_lines(lines, i)
                game["statistics"] = parse_statistics(table)["per_player"]
                continue
            elif (wm := _WINS.match(line)) and wm.group(1) in names:
                flush()
                head = None
                game["winner"], game["points"] = wm.group(1), int(wm.group(2))
            elif line.startswith("Game statistics for game "):
                if line != f"Game statistics for game {g}":
                    raise GnubgAnalysisError(f"{line!r} in the export of game {g}")
                flush()
                head = None
            elif line.startswith("Output generated"):
                break
            elif head is not None:
                body.append(line)
            elif line and not (line.startswith(("Match Information:", "Date:", "Event:", "Round:", "Place:",
                                                "Annotator:", "Comment", "Transcriber:", "Rating:",
                                                " by GNU Backgammon"))):
                raise GnubgAnalysisError(f"unexpected line outside the moves in the export of game {g}: {line!r}")
            i += 1
        flush()
        games.append(game)
    return moves, games


# ---------------------------------------------------------------- all together

def analyse_file(path, plies: int = 0) -> dict:
    """gnubg's analysis of one ``.mat`` file at *plies* (see :func:`gnubg_analyse`)."""
    stdout, texts, seconds = run_gnubg(path, plies=plies)
    stats = parse_show_statistics(stdout)
    names = stats["players"]
    moves, games = parse_export(texts, names)
    in_file = len(re.findall(r"^\s*Game \d+\s*$", Path(path).read_text(errors="replace"), re.M))
    if in_file != len(games):
        raise GnubgAnalysisError(f"{path} has {in_file} games, gnubg's export {len(games)}")
    version = re.search(r"GNU Backgammon (\d[\w.]*)", stdout)
    return {
        "path": str(path),
        "players": names,
        "match_length": games[0]["match_length"],
        "statistics": stats["per_player"],
        "luck_based_fibs_rating_diff": stats["luck_based_fibs_rating_diff"],
        "moves": moves,
        "games": games,
        "seconds": seconds,
        "gnubg_version": version.group(1) if version else None,
    }


def gnubg_analyse(paths, processes: int = 2, plies: int = 0) -> list[dict]:
    """gnubg's analysis at *plies* (0, 1 or 2; the luck at 0 ply) of each ``.mat`` file of
    *paths* (in order), run by up to *processes* gnubg processes side by side. Per file::

        {"path", "players": [name0, name1], "match_length",
         "statistics": {name: {...}},          # show statistics match, per player
         "luck_based_fibs_rating_diff",        # printed once (player 0's side), or None
         "moves": [{...}, ...],                # every record of the text export, in match order
         "games": [{"game", "match_length", "score", "note", "winner", "points",
                    "statistics", "moves"}, ...],
         "seconds": wall time of the gnubg process, "gnubg_version"}

    A record of ``moves`` has ``game``, ``move_number`` (gnubg's, from 1 in each game;
    cube actions count), ``player`` (who acts), ``type``: ``"move"`` (a roll: ``dice``
    ``"62"``, ``move`` played as gnubg writes it, "" when none was possible,
    ``best_move``, ``equity`` and ``best_equity``, ``error`` = the difference gnubg
    prints for the move played, 0.0 when it is the best, ``rank`` (None for ``??``),
    ``evaluation`` ("Cubeful 0-ply"),
    ``mark``/``mark_error`` from "Alert: bad move ( -0.071)", ``luck`` from "Rolled 62
    (+0.014)", ``luck_mark``/``luck_mark_value``), ``"double"`` (the player on roll
    doubled: ``action`` "double") or ``"take"`` (``player`` answered ``doubler``'s
    double to ``cube_value``: ``action`` "take" or "pass"); ``position_id``,
    ``match_id``; and ``cube``: None (no cube analysis printed) or ``{"action": "no
    double" | "double" | "take" | "pass", "proper": "No double, take", "proper_percent":
    22.1 or None, "error": from the alert or 0.0, "alert": "wrong take"... or None,
    "mark": "very bad"... or None, "cubeless_equity", "money_equity", "no_double",
    "double_take", "double_pass"}``. See the module docstring for units and signs.
    """
    paths = [Path(p) for p in paths]
    if processes < 1:
        raise ValueError("processes must be 1 or more")
    if processes == 1 or len(paths) < 2:
        return [analyse_file(p, plies) for p in paths]
    with ThreadPoolExecutor(max_workers=min(processes, len(paths))) as pool:
        return list(pool.map(lambda p: analyse_file(p, plies), paths))


# ---------------------------------------------------------------- fastgen beside gnubg

#: The per-player figures compared: (gnubg's statistics key, fastgen's PlayerStats attribute).
FIGURES = (("chequer_error_rate_memg", "chequer_error_rate"), ("luck_rate_memg", "luck_rate"),
           ("cube_error_rate_memg", "cube_error_rate"), ("error_rate_memg", "overall_error_rate"),
           ("snowie_error_rate", "snowie_error_rate"), ("unforced_moves", "unforced_moves"),
           ("cube_decisions", "cube_decisions"), ("cube_decisions_close_or_actual", "close_cube_decisions"),
           ("cube_error_total_emg", "cube_error"), ("luck_total_emg", "luck"),
           ("moves_doubtful", None), ("moves_bad", None), ("moves_very_bad", None))


def compare(results: list[dict], analyses: list) -> dict:
    """fastgen's analyses (:func:`fastgen.analysis.analyse` of the same files, in order)
    beside gnubg's *results*: per unforced checker decision, whether the best plays agree
    and the difference of the errors; per player, gnubg's and fastgen's figures of
    :data:`FIGURES`. Raises when the two do not see the same rolls."""
    plays: list[dict] = []
    players: list[dict] = []
    for r, a in zip(results, analyses):
        gm = [m for m in r["moves"] if m["type"] == "move"]
        fm = a.moves
        if len(gm) != len(fm):
            raise GnubgAnalysisError(f"{r['path']}: gnubg has {len(gm)} rolls, fastgen {len(fm)}")
        for g, f in zip(gm, fm):
            if not f.forced and f.played is not None:
                plays.append({"file": Path(r["path"]).name, "game": f.game, "move": f.move,
                              "same_best": g["best_move"] == f.best_play, "gnubg": g["error"], "fastgen": f.error,
                              "gnubg_luck": g["luck"], "fastgen_luck": f.luck})
        for name, p in zip(a.names, a.players):
            st = r["statistics"][name]
            row = {"file": Path(r["path"]).name, "player": name}
            for key, attr in FIGURES:
                mark = key.replace("moves_", "").replace("_", " ")
                row[key] = (st[key], getattr(p, attr) if attr else p.marked_moves[mark])
            if a.length:  # match play: the results in percent, the error-based rating
                row["actual_result_pct"] = (st["actual_result_pct"], 100 * p.actual_result)
                row["error_based_fibs_rating"] = (st["error_based_fibs_rating"], p.absolute_rating)
            else:  # a money session: the results in points per game
                row["ppg_actual"] = (st["ppg_actual"], p.ppg)
                row["ppg_luck_adjusted"] = (st["ppg_luck_adjusted"], p.luck_adjusted_ppg)
                # gnubg 1.07 centres its intervals on the session's totals: their half widths
                for key, ours in (("ppg_actual_interval", p.ppg_interval),
                                  ("ppg_luck_adjusted_interval", p.luck_adjusted_ppg_interval)):
                    row[key.replace("interval", "half_width")] = tuple(
                        None if b is None else (b[1] - b[0]) / 2 for b in (st[key], ours))
            players.append(row)
    return {"plays": plays, "players": players}


def agreement(comparison: dict) -> dict:
    """The headline figures of :func:`compare`: the share of unforced checker decisions
    with the same best play and with errors within 0.01 (and 0.02 for luck), and, per
    figure of :data:`FIGURES`, the largest relative difference of the rates."""
    plays = comparison["plays"]
    n = len(plays)
    out = {"decisions": n,
           "same_best": sum(p["same_best"] for p in plays) / n,
           "error_within_0.01": sum(abs(p["gnubg"] - p["fastgen"]) <= 0.01 for p in plays) / n,
           "luck_within_0.02": sum(abs(p["gnubg_luck"] - p["fastgen_luck"]) <= 0.02 for p in plays) / n}
    return out


# ---------------------------------------------------------------- by hand

def _summary(results: list[dict], corpus_seconds: float, wall: float) -> str:
    out = []
    by_length: dict[int, list[float]] = {}
    for r in results:
        by_length.setdefault(r["match_length"], []).append(r["seconds"])
        a, b = r["players"]
        sa, sb = r["statistics"][a], r["statistics"][b]
        n_cube = sum(1 for m in r["moves"] if m["cube"] is not None)
        n_cube_err = sum(1 for m in r["moves"] if m["cube"] is not None and m["cube"]["error"] < 0)
        out.append(f"{Path(r['path']).name:16s} {r['match_length']}pt {len(r['games'])} games "
                   f"{len(r['moves']):4d} records, {n_cube:3d} cube ({n_cube_err:2d} errors)  "
                   f"{a}: {sa['error_rate_memg']:8.3f} mEMG {sa['overall_rating'] or '-':14s} "
                   f"{b}: {sb['error_rate_memg']:8.3f} mEMG {sb['overall_rating'] or '-':14s} "
                   f"{r['seconds']:5.2f} s")
    out.append("")
    for length in sorted(by_length):
        s = by_length[length]
        out.append(f"{length}-point matches: {len(s)}, gnubg {sum(s) / len(s):.2f} s a match on average "
                   f"(import, analyse, statistics, export), {max(s):.2f} s at most")
    out.append(f"corpus written in {corpus_seconds:.1f} s; analysed in {wall:.1f} s of wall time")
    return "\n".join(out)


def _beside(results: list[dict], paths: list[Path], plies: int = 0) -> str:
    """The corpus's figures by gnubg, by fastgen with gnubg's net and with the baseline, at *plies*."""
    from fastgen.analysis import analyse

    out = ["", f"at {plies} ply; per player (error rate, luck rate in mEMG): gnubg | fastgen gnubg:0 | fastgen baseline"]
    by = {spec: analyse(paths, spec, plies=plies) for spec in ("gnubg:0", "baseline")}
    for spec, analyses in by.items():
        agree = agreement(compare(results, analyses))
        out.append(f"fastgen with {spec}: {agree['decisions']} unforced checker decisions, same best play "
                   f"{agree['same_best']:.1%}, error within 0.01 {agree['error_within_0.01']:.1%}, luck within "
                   f"0.02 {agree['luck_within_0.02']:.1%}")
    for k, r in enumerate(results):
        for j, name in enumerate(r["players"]):
            st = r["statistics"][name]
            g0 = by["gnubg:0"][k].players[j]
            b = by["baseline"][k].players[j]
            out.append(f"{Path(r['path']).name:16s} {name:8s} error {st['error_rate_memg']:7.1f} | "
                       f"{g0.overall_error_rate:7.1f} | {b.overall_error_rate:7.1f}   luck {st['luck_rate_memg']:7.1f} | "
                       f"{g0.luck_rate:7.1f} | {b.luck_rate:7.1f}   {st['overall_rating'] or '-':14s} "
                       f"{g0.overall_rating or '-':14s} {b.overall_rating or '-'}")
    return "\n".join(out)


def main(argv: list[str]) -> int:
    plies = 0
    money = "--money" in argv
    argv = [a for a in argv if a != "--money"]
    if "--plies" in argv:
        i = argv.index("--plies")
        plies = int(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    n = int(argv[0]) if argv else 24
    why = available()
    if why:
        print(why)
        return 1
    with tempfile.TemporaryDirectory(prefix="gnubg_corpus_") as tmp:
        t0 = time.perf_counter()
        paths = make_money_corpus(tmp, n=n) if money else make_corpus(tmp, n=n)
        t1 = time.perf_counter()
        results = gnubg_analyse(paths, processes=2, plies=plies)
        t2 = time.perf_counter()
        print(_summary(results, t1 - t0, t2 - t1))
        print(_beside(results, paths, plies))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
