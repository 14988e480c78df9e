"""GNU Backgammon's nets compiled (fastgen.nets.gnubg) against the gnubg program itself.

With Debian's weights (``/usr/lib/gnubg/gnubg.wd``, version 1.00) and bear-off database
(``/usr/share/gnubg/gnubg_os0.bd``), fastgen's 0-ply evaluation must be within 1e-4 of
what the installed gnubg 1.07 prints for ``eval`` (5 decimals, 0 ply, money, cube
centred) on at least 99% of the positions of every class (bear-off, race, crashed,
contact): at least 500 of each, drawn from games of mixed strength
(tests/_gnubg_positions.py). gnubg builds differ among themselves by about 2e-5, hence
the 1e-4 bar rather than gnubg-nn's 1e-6 (tests/test_gnubg_nets.py); the largest
difference is also bounded (MAX_TOL). The distribution of the differences (quantiles,
maximum per class) is printed, with every position above 1e-4.

gnubg 1.07 finds no two-sided bear-off file on Debian and makes one in memory (6 points,
6 checkers; its ``eval`` names the net ``Bearoff2``): fastgen is given the same
database, built by fastgen.bearoff and written in gnubg's format, where no
``gnubg_ts0.bd`` is found (with the one-sided database alone, 12 of 600 bear-offs
differed by up to 6e-3).

Until fastgen applies gnubg's corrections after the net (impossible gammons and
backgammons zeroed, certain wins and losses at exactly 1, the race backgammon estimate),
races, crashed and contact positions miss the bar; the comparison then ends in an
expected failure (xfail) saying so, detected by behaviour (a race the side on roll cannot
win gammon must give P(wg) exactly 0), and is strict once the corrections are in. Every
position above 1e-4 is printed with the outputs gnubg prints as exactly 0 or 1 (a
correction) and the largest difference of the others.

gnubg is driven as tests/_gnubg_cube_cases.py does it (``set gnubgid``, ``show board``,
``eval``, in batches, two processes, timeouts), and its answer is only used when the
board it shows back (Position ID, Match ID and the diagram) is the one meant, with the
side on roll drawn at random as gnubg's player 0 or 1. Skipped, with the reason shown,
when the gnubg program or the weights file is absent.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import numpy as np
import pytest

from fastgen.bearoff import build_two_sided
from fastgen.bearoff.files import write_gnubg
from fastgen.core.ids import position_id
from fastgen.nets import gnubg

from _gnubg_positions import mixed

GNUBG = os.environ.get("FASTGEN_GNUBG", "/usr/games/gnubg")
WEIGHTS = os.environ.get("FASTGEN_GNUBG_WEIGHTS", "/usr/lib/gnubg/gnubg.wd")

if not os.path.exists(GNUBG):
    pytest.skip(f"GNU Backgammon is not installed ({GNUBG} not found; apt-get install gnubg)",
                allow_module_level=True)
if not os.path.isfile(WEIGHTS):
    pytest.skip(f"gnubg's weights file {WEIGHTS} not found (set FASTGEN_GNUBG_WEIGHTS)",
                allow_module_level=True)

import _gnubg_cube_cases as cc  # noqa: E402  (after the skips: it finds gnubg itself)

#: Positions asked of gnubg per class (bear-off, race, crashed, contact).
PER_CLASS = 600
#: The bar: a difference within TOL on at least SHARE of each class's positions.
TOL = 1e-4
SHARE = 0.99
#: No difference at all above this. Measured before the corrections, leaving out the
#: outputs gnubg prints as exactly 0 or 1: bear-off 5e-6 (rounding), contact 2.2e-4,
#: crashed 9.4e-4 (a P(lbg) with 13 checkers off, likely a correction too); above 1e-3
#: is more than the builds' noise.
MAX_TOL = 1e-3
SEED = 20261204
OUTPUTS = ("P(win)", "P(wg)", "P(wbg)", "P(lg)", "P(lbg)")
#: gnubg's name of the net (``Evaluator:`` line) per fastgen class.
EVALUATOR = {1: "Bearoff", 2: "Race", 3: "Crashed", 4: "Contact"}


def eval_commands(case):
    n = case["case"]
    return (f"@@C{n}_SET\n"
            f"set gnubgid {case['position_id']}:{case['sent_match_id']}\n"
            f"@@C{n}_BOARD\n"
            "show board\n"
            f"@@C{n}_EVAL\n"
            "eval\n"
            f"@@C{n}_END\n")


@pytest.fixture(scope="module")
def nets(tmp_path_factory):
    """The weights and Debian's one-sided database, with the two-sided one (6 points, 6
    checkers) that gnubg makes in memory when it finds no ``gnubg_ts0.bd`` (it names the
    net ``Bearoff2`` there): fastgen builds it and writes gnubg's file."""
    one, two = gnubg.find_bearoff(WEIGHTS)
    if two is None:
        two = str(tmp_path_factory.mktemp("bearoff") / "gnubg_ts0.bd")
        write_gnubg(two, build_two_sided(6, 6))
    return gnubg.load(WEIGHTS, bearoff=(one, two))


def corrected(nets):
    """Whether fastgen applies gnubg's corrections after the net: a race the side on roll
    cannot win gammon (the opponent has borne off a checker) must give P(wg) exactly 0."""
    b = np.zeros((1, 2, 25), dtype=np.int8)
    b[0, 1, 5:8] = 5
    b[0, 0, 5], b[0, 0, 6] = 7, 7
    return nets.evaluate(b)[0, 1] == 0


@pytest.fixture(scope="module")
def sample(nets):
    return ask_gnubg(nets)


def ask_gnubg(nets, log=print):
    """PER_CLASS distinct positions of each class, their classes, gnubg's printed
    evaluation of each and the name of the net gnubg used."""
    boards = mixed(SEED, 400, nets)
    classes = gnubg.classify(boards)
    rng = np.random.default_rng(SEED)
    ids = [position_id(b) for b in boards]
    keep = []
    for c in range(1, 5):
        rows, seen = [], set()
        for i in rng.permutation(np.flatnonzero(classes == c)):
            if ids[i] not in seen:
                seen.add(ids[i])
                rows.append(i)
            if len(rows) == PER_CLASS:
                break
        assert len(rows) == PER_CLASS, (gnubg.CLASSES[c], len(rows))
        keep += rows
    rows = np.sort(np.array(keep))
    boards, classes = np.ascontiguousarray(boards[rows]), classes[rows]
    # money, cube centred, the side on roll drawn as gnubg's player 0 or 1
    cases = []
    state = ("money/centred", 0, 0, 0, 1, None, False, False, False)
    for k, b in enumerate(boards):
        pos = {"board": b.astype(np.int64), "category": gnubg.CLASSES[classes[k]], "turn": None,
               "game": None, "styles": None}
        cases.append(cc.make_case(k, pos, state, int(rng.integers(2))))
    home = tempfile.mkdtemp(prefix="gnubg-home-")  # fresh settings: no ~/.gnubg leaks in
    try:
        results, errors = cc.run_all(cases, 2, 400, 300, home, log, commands=eval_commands)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    assert not errors, errors
    theirs = np.full((len(cases), 5), np.nan)
    named, problems = [], []
    for k, case in enumerate(cases):
        sec = results.get(case["case"], {})
        try:
            if not all(s in sec for s in ("SET", "BOARD", "EVAL", "END")):
                raise cc.ParseError(f"missing output sections (got {sorted(sec)})")
            cc.parse_board_section(sec["BOARD"], case)
            e = cc.parse_eval(sec["EVAL"], False)
        except cc.ParseError as exc:
            problems.append((case["position_id"], case["sent_match_id"], str(exc)))
            named.append(None)
            continue
        theirs[k] = e["probs"]
        named.append(e["evaluator"])
    assert not problems, problems[:20]
    return boards, classes, theirs, named


def test_gnubg_names_the_same_class(sample):
    _, classes, _, named = sample
    wrong = [(gnubg.CLASSES[c], n) for c, n in zip(classes, named) if not n.startswith(EVALUATOR[c])]
    assert not wrong, wrong[:20]


def test_every_class_within_1e_4_of_the_gnubg_program(nets, sample):
    boards, classes, theirs, named = sample
    ours = nets.evaluate(boards)
    diff = np.abs(ours - theirs).max(axis=1)
    failures = []
    print(f"\n|fastgen - gnubg {GNUBG}| (largest of the five outputs), weights {WEIGHTS}")
    print("class     n     median   90%      99%      99.9%    max      over 1e-4")
    for c in range(1, 5):
        rows = np.flatnonzero(classes == c)
        d = diff[rows]
        q = np.quantile(d, [0.5, 0.9, 0.99, 0.999])
        over = rows[d > TOL]
        print(f"{gnubg.CLASSES[c]:8s} {len(rows):4d}  " + "  ".join(f"{x:.1e}" for x in q)
              + f"  {d.max():.1e}  {len(over)}")
        for i in over:
            # an output gnubg prints as exactly 0 or 1 where fastgen's is not: a correction
            fixed = [k for k in range(5) if theirs[i, k] in (0.0, 1.0) and ours[i, k] != theirs[i, k]]
            rest = max([abs(ours[i, k] - theirs[i, k]) for k in range(5) if k not in fixed] or [0.0])
            print(f"   {gnubg.CLASSES[c]} ({named[i]}) {position_id(boards[i])} {boards[i].tolist()}\n"
                  f"      fastgen {np.round(ours[i], 6).tolist()}\n      gnubg   {theirs[i].tolist()}\n"
                  f"      outputs exactly 0/1 on gnubg's side only: {[OUTPUTS[k] for k in fixed]}; "
                  f"largest difference of the others {rest:.1e}")
        if len(over) > (1 - SHARE) * len(rows) or d.max() > MAX_TOL:
            i = rows[np.argmax(d)]
            failures.append((gnubg.CLASSES[c], len(over), float(d.max()), boards[i].tolist(),
                             ours[i].tolist(), theirs[i].tolist()))
    if failures and not corrected(nets):
        pytest.xfail("fastgen does not apply gnubg's corrections after the net yet (sanity checks, "
                     f"race backgammon estimate, clamps): {[f[:3] for f in failures]}")
    assert not failures, failures
