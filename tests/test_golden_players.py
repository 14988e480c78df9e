"""Golden outputs of the players on fixed seeds: rollouts with every kind of policy, duels
(cubeless, with the cube, matches), decision and position rollouts (cubeless and
cubeful), cube decisions, the analysis of two matches, a short training run and the
evaluators, recorded from the code before its modules were moved into subpackages. The
companion of test_golden.py (the generator's plays and counts).

Each case digests what a public call returns with SHA-256 (its first 16 hex digits), and
compares it with the digest the code gave when this file was written: a refactoring must
leave every digest as it is. The calls use the public names as they were then; the old
names keep working for a release with a DeprecationWarning, which is ignored here.

Integer outputs (winners, result types, turns, cubes, scores, chosen plays, boards) are
digested exactly. Float outputs are digested after ``np.round(x, 10)`` (and -0.0 made
0.0): they are held to 10 decimals so that float64 arithmetic that differs only in its
last bits (another summation order in numpy's SIMD loops or in BLAS on another CPU) does
not trip them, while any change of behaviour does.

That rounding does not absorb the compiled networks' own float32 loops: fastgen picks
its AVX-512F, AVX2 or plain C loops by the CPU at import, and their answers differ by a
few units in the last float32 place (about 6e-8), far above 1e-10; such a difference can
also turn a near tie between two plays the other way (with the AVX2 loops, one game of
the 400 of the pubeval-baseline duel below goes another way). Every digest here was
recorded with the AVX-512F loops, so a test whose outputs come from a network (its
floats, or the games and choices it plays) uses the ``recorded_kernels`` fixture: on a
CPU that runs the AVX2 or the plain loops (recognised by the baseline network's exact
answer for the 16 positions after the opening 3-1, :data:`KERNEL_FINGERPRINTS`) it skips
and says why. The rest (random and pubeval games, pubeval's plays, cube decisions from
given probabilities) is checked on every CPU. The numpy networks (``"network:3"``, td40)
are multiplied by numpy's BLAS, whose loops depend on the CPU too; their cases are among
the fixture's.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import warnings

import numpy as np
import pytest

import fastgen

with warnings.catch_warnings():  # an old name may warn when imported, before pytestmark applies
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastgen import evaluators, policies
    from fastgen.analysis import analyse
    from fastgen.cube import cube_action, cube_decisions
    from fastgen.nets import Network
    from fastgen.train import TDConfig, td

from _child import run_python

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

HERE = os.path.dirname(os.path.abspath(__file__))
#: A trained three-output numpy network (40 hidden units), named by its path as a spec: a
#: file of the old one hidden layer layout, still read (as a ReferenceNetwork, the same
#: games) with a DeprecationWarning.
TD40 = os.path.join(HERE, "data", "td40.npz")
OLD_LAYOUT = "old one hidden layer layout"
#: Two short real matches with doubles, takes and drops: a 5-point match of 2 games and
#: a 3-point match of 2 games.
MATCHES = {
    "5pt": os.path.join(HERE, "data", "matches", "galaxy", "match1988527.txt"),
    "3pt": os.path.join(HERE, "data", "matches", "galaxy", "match6686465.txt"),
}
#: Positions of random games, side on roll in row 1: a race of 52 pips each (7 plays for
#: 2-1) and a contact position (71 against 84 pips).
RACE = "/2wwAgD/wgcCAA"
CONTACT = "3xsBBAz/Bo0AQA"


def _digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str(a.dtype).encode())
        h.update(str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def _floats(x) -> np.ndarray:
    """*x* as float64 held to 10 decimals (module docstring), -0.0 made 0.0."""
    return np.round(np.asarray(x, dtype=np.float64), 10) + 0.0


def _text(s: str) -> np.ndarray:
    return np.frombuffer(s.encode(), dtype=np.uint8)


def _walk(n: int, seed: int):
    """*n* positions of random games, each the board of the side about to roll (row 1)
    after the opponent's play, with a roll for each, from a seeded generator."""
    rng = np.random.default_rng(seed)
    boards = []
    b = fastgen.STARTING_BOARD.copy()
    while len(boards) < n:
        d = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        p = fastgen.legal_plays(b, d)
        if len(p) == 0:
            b = fastgen.swap_sides(b)
            continue
        nb = p.boards[int(rng.integers(len(p)))]
        if nb[1].sum() == 0:  # the mover bore off its last checker: a new game
            b = fastgen.STARTING_BOARD.copy()
            continue
        b = fastgen.swap_sides(nb)
        boards.append(b.copy())
    dice = rng.integers(1, 7, size=(n, 2)).astype(np.int8)
    return np.stack(boards).astype(np.int8), dice


@pytest.fixture(scope="module")
def walk():
    return _walk(2000, 8)


# --------------------------------------------------------------------------- kernels

#: The digest of ``evaluators.baseline()``'s exact float32 answer for the 16 positions
#: after the opening 3-1, under each set of compiled loops.
KERNEL_FINGERPRINTS = {
    "a8184b4aca00a5ff": "AVX-512F",
    "a5e384d0bba41186": "AVX2",
    "c731d2bba47c2b69": "plain C",
}
RECORDED_WITH = "AVX-512F"


def _kernel_fingerprint() -> str:
    after = fastgen.legal_plays(fastgen.STARTING_BOARD, (3, 1)).boards
    return _digest(evaluators.baseline()(fastgen.swap_sides(after)))


@pytest.fixture(scope="module")
def recorded_kernels():
    """Skip (saying why) on a CPU whose network loops are not those the digests were
    recorded with; an unknown answer is not skipped: the tests then fail."""
    kernels = KERNEL_FINGERPRINTS.get(_kernel_fingerprint())
    if kernels is not None and kernels != RECORDED_WITH:
        pytest.skip(f"digests recorded with the {RECORDED_WITH} network loops; this CPU runs the "
                    f"{kernels} ones, whose float32 answers differ in the last place")


def test_network_kernels_known():
    """The baseline network's exact answer is one of the recorded loops' answers."""
    assert _kernel_fingerprint() in KERNEL_FINGERPRINTS


# --------------------------------------------------------------------------- policies

@functools.cache
def _baseline():
    return evaluators.baseline()


def greedy_baseline(candidates, offsets):
    """A plain Python batch policy: the play whose position is best for the mover by the
    baseline network (the opponent's cubeless equity, negated); a play that wins scores
    above any other; ties to the first play."""
    value = np.full(len(candidates), 10.0)
    live = candidates[:, 1].sum(axis=1) > 0
    if live.any():
        value[live] = -evaluators.equity(_baseline()(fastgen.swap_sides(candidates[live])))
    return np.array([int(np.argmax(value[offsets[g]:offsets[g + 1]])) for g in range(len(offsets) - 1)],
                    dtype=np.int64)


def _rollout(**kwargs) -> str:
    r = fastgen.rollout(**kwargs)
    return _digest(r.winner, r.result, r.turns, r.points)


# --------------------------------------------------------------------------- rollouts


def test_rollout_random():
    assert _rollout(games=2000, policy="random", seed=11) == "161d459dcb59efd1"


def test_rollout_pubeval():
    assert _rollout(games=2000, policy="pubeval", seed=12) == "471f7e3115b097fd"


@pytest.mark.usefixtures("recorded_kernels")
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("policy", ["spec", "object"])
def test_rollout_baseline(policy, threads):
    """The spec "baseline" and the policy object fastgen.policies.baseline() play the same
    games, whatever the threads."""
    p = "baseline" if policy == "spec" else policies.baseline()
    assert _rollout(games=1000, policy=p, seed=13, threads=threads) == "b3904636a8338b26"


@pytest.mark.usefixtures("recorded_kernels")
def test_rollout_network_spec():
    assert _rollout(games=300, policy="network:3", seed=14) == "30cd9adcc5a367d8"


@pytest.mark.usefixtures("recorded_kernels")
def test_rollout_callable():
    assert _rollout(games=300, policy=greedy_baseline, seed=15) == "e3ca2f6f2c3a3671"


@pytest.mark.parametrize("policy", ["pubeval", "baseline"])
def test_rollout_from_positions(policy, request):
    if policy == "baseline":
        request.getfixturevalue("recorded_kernels")
    start = np.stack([fastgen.parse_position_id(RACE), fastgen.parse_position_id(CONTACT)])
    expected = {"pubeval": "0c4e604de10ed880", "baseline": "e01bf20dc6284670"}
    assert _rollout(games=600, policy=policy, seed=16, start=start) == expected[policy]


# --------------------------------------------------------------------------- duels


@pytest.mark.usefixtures("recorded_kernels")
@pytest.mark.parametrize("engine", ["auto", "python"])
def test_duel_pubeval_baseline(engine):
    """Cubeless money games, mirrored; the compiled and the batched loop play the same."""
    d = fastgen.duel("pubeval", "baseline", 400, seed=21, engine=engine)
    assert _digest(d.winner, d.result, d.turns) == "77085be37c8fe9c4"


@pytest.mark.usefixtures("recorded_kernels")
def test_duel_unmirrored():
    d = fastgen.duel("pubeval", "baseline", 300, seed=22, mirrored=False, threads=2)
    assert _digest(d.winner, d.result, d.turns) == "1862078953624e62"


@pytest.mark.usefixtures("recorded_kernels")
def test_duel_callable():
    d = fastgen.duel(greedy_baseline, "pubeval", 100, seed=23)
    assert _digest(d.winner, d.result, d.turns) == "4a1e60f6ae790722"


@pytest.mark.usefixtures("recorded_kernels")
def test_duel_lookahead():
    d = fastgen.duel(policies.lookahead(evaluators.baseline()), "baseline", 10, seed=24)
    assert _digest(d.winner, d.result, d.turns) == "c7db75c680db71f9"


@pytest.mark.usefixtures("recorded_kernels")
@pytest.mark.parametrize("threads", [1, 2])
def test_duel_with_the_cube(threads):
    """Money games with the cube (cube players: the baseline and the numpy td40 network),
    and the actions of the first four games."""
    with pytest.warns(DeprecationWarning, match=OLD_LAYOUT):
        d = fastgen.duel("baseline", TD40, 200, seed=25, cube=True, records=True, threads=threads)
    games = repr([list(d.game(i).record) for i in range(4)])
    assert _digest(d.winner, d.result, d.turns, d.cube, _text(games)) == "540659738239580a"


@pytest.mark.usefixtures("recorded_kernels")
@pytest.mark.parametrize("threads", [1, 2])
def test_duel_matches(threads):
    """5-point matches, and the first two written as .mat text."""
    with pytest.warns(DeprecationWarning, match=OLD_LAYOUT):
        r = fastgen.duel_matches("baseline", TD40, 40, 5, seed=26, records=True, threads=threads)
    mats = "".join(fastgen.write_mat(r.match(i, names=("baseline", "td40"))) for i in range(2))
    assert _digest(r.winner, r.score, r.games, _text(mats)) == "f98738f59d20f211"


# --------------------------------------------------------------------------- decision rollouts


def _table(t) -> str:
    parts = []
    for row in t.rows:
        parts += [_text(str(row.play)), _floats(row.probabilities), _floats(row.probabilities_se),
                  _floats([row.equity, row.equity_se, row.raw_equity, row.raw_equity_se, row.diff, row.diff_se,
                           row.p_best]),
                  np.int64(row.trials), _floats(row.samples), _floats(row.raw_samples)]
    return _digest(*parts)


def _cube_rollout(c) -> str:
    return _digest(_floats([c.no_double, c.double_take, c.double_pass, c.no_double_se, c.double_take_se,
                            c.difference_se, *c.equities]), _text(c.action.value))


@pytest.mark.usefixtures("recorded_kernels")
@pytest.mark.parametrize("threads", [1, 2])
def test_rollout_plays_race(threads):
    t = fastgen.rollout_plays(fastgen.parse_position_id(RACE), (2, 1), "baseline", plays=4, trials=324,
                              seed=31, variance_reduction=True, threads=threads)
    assert _table(t) == "78158777fbf3c1e9"


@pytest.mark.usefixtures("recorded_kernels")
@pytest.mark.parametrize("threads", [1, 2])
def test_rollout_plays_contact(threads):
    t = fastgen.rollout_plays(fastgen.parse_position_id(CONTACT), (5, 2), "baseline", plays=3, trials=216,
                              seed=32, variance_reduction=True, threads=threads)
    assert _table(t) == "6e2aa8e665b5581c"


@pytest.mark.usefixtures("recorded_kernels")
@pytest.mark.parametrize("threads", [1, 2])
def test_rollout_position_cubeless(threads):
    t = fastgen.rollout_position(fastgen.parse_position_id(CONTACT), "baseline", trials=324, seed=33,
                                 variance_reduction=True, threads=threads)
    assert _table(t) == "df221121e145345f"


@pytest.mark.usefixtures("recorded_kernels")
@pytest.mark.parametrize("threads", [1, 2])
def test_rollout_position_cubeful_money(threads):
    c = fastgen.rollout_cube(fastgen.parse_position_id(RACE), "baseline", trials=324,
                                 seed=34, variance_reduction=True, threads=threads)
    assert _cube_rollout(c) == "17eb7a9c9172c8d6"


@pytest.mark.usefixtures("recorded_kernels")
@pytest.mark.parametrize("threads", [1, 2])
def test_rollout_position_cubeful_match(threads):
    state = fastgen.MatchState(match_length=7, score=(2, 4), on_roll=1)
    c = fastgen.rollout_cube(fastgen.parse_position_id(CONTACT), "baseline", trials=324,
                                 seed=35, variance_reduction=True, threads=threads, state=state)
    assert _cube_rollout(c) == "4731255629181255"


# --------------------------------------------------------------------------- cube decisions

STATES = {
    "money": None,
    "match": fastgen.MatchState(match_length=7, score=(4, 2), on_roll=1),
    "owned": fastgen.MatchState(match_length=5, score=(3, 1), on_roll=1, cube_value=2, cube_owner=1),
}


def _decisions(ds) -> str:
    values = [[d.no_double, d.double_take, d.double_pass, *d.equities, d.cubeless, *d.probs, d.cube_life] for d in ds]
    labels = "|".join(f"{d.action.value},{d.doubles},{d.takes},{d.match},{d.position_class}" for d in ds)
    return _digest(_floats(values), _text(labels))


@pytest.mark.usefixtures("recorded_kernels")
@pytest.mark.parametrize("plies", [0, 1])
@pytest.mark.parametrize("state", list(STATES))
def test_cube_action_baseline(walk, state, plies):
    """20 positions' cube decisions by the baseline at 0 and 1 ply, for money, at a match
    score, and with the cube owned by the side on roll. (At 1 ply each roll's play is
    chosen once, by the cube as it is, as the gnubg program chooses it; double/take at
    1 ply then equals the program's within 1e-4 on every cube decision of the 7-point
    example match: the two 1-ply digests of match play moved with that change. The 1-ply
    digests moved again when the decision's probabilities became the search's own, along
    the plays it chose, as the program prints them: the values and actions the same.)"""
    boards, _ = walk
    ds = [cube_action(b, state=STATES[state], evaluator=evaluators.baseline(), plies=plies) for b in boards[::100]]
    expected = {
        ("money", 0): "1256c69e288202e9", ("money", 1): "3c24c95a0481717a",
        ("match", 0): "ccea36b4f7d432ea", ("match", 1): "872849dfbaa39cf1",
        ("owned", 0): "a820431d77b7a13d", ("owned", 1): "5a9e2c206eb23491",
    }
    assert _decisions(ds) == expected[state, plies]


@pytest.mark.parametrize("state", list(STATES))
def test_cube_decisions_from_probabilities(walk, state):
    """2,000 positions' decisions from seeded probabilities (no network: float64 only)."""
    boards, _ = walk
    rng = np.random.default_rng(41)
    win = rng.uniform(0.02, 0.98, len(boards))
    wg = win * rng.uniform(0, 0.6, len(boards))
    lg = (1 - win) * rng.uniform(0, 0.6, len(boards))
    probs = np.stack([win, wg, wg * rng.uniform(0, 0.2, len(boards)), lg, lg * rng.uniform(0, 0.2, len(boards))], 1)
    out = cube_decisions(boards, probs, STATES[state])
    expected = {"money": "e50f258e43719c6e", "match": "8133a3b33105656b", "owned": "0d28a76ee075ed02"}
    assert _digest(_floats(out.no_double), _floats(out.double_take), _floats(out.double_pass),
                   _floats(out.equities), _floats(out.cubeless), _floats(out.cube_life), out.action, out.takes,
                   out.doubles, _text("|".join(a.value for a in out.actions)),
                   _text("|".join(map(str, out.position_class)))) == expected[state]


# --------------------------------------------------------------------------- match analysis


def _held(obj):
    """The analysis JSON without its time and source fields, floats held to 10 decimals."""
    if isinstance(obj, dict):
        return {k: _held(v) for k, v in obj.items() if k not in ("seconds", "source", "version")}
    if isinstance(obj, list):
        return [_held(v) for v in obj]
    if isinstance(obj, float):
        return round(obj, 10) + 0.0
    return obj


def _json(obj) -> str:
    return _digest(_text(json.dumps(_held(obj), sort_keys=True, allow_nan=False)))


ANALYSIS = {"5pt": "aee4446b4d984781", "3pt": "3ded7f1448f0fa35"}


@pytest.mark.usefixtures("recorded_kernels")
@pytest.mark.parametrize("match", list(MATCHES))
def test_analyse(match):
    assert _json(analyse(MATCHES[match], "baseline").to_dict()) == ANALYSIS[match]


@pytest.mark.usefixtures("recorded_kernels")
@pytest.mark.parametrize("match", list(MATCHES))
def test_analyse_command_json(match):
    """``fastgen analyse FILE --json --evaluator baseline``: the same analysis."""
    proc = run_python("-m", "fastgen", "analyse", MATCHES[match], "--json", "--evaluator", "baseline")
    assert proc.returncode == 0, proc.stderr
    assert _json(json.loads(proc.stdout)) == ANALYSIS[match]


@pytest.mark.usefixtures("recorded_kernels")
def test_analyse_one_ply():
    assert _json(analyse(MATCHES["3pt"], "baseline", plies=1).to_dict()) == "c6dc39e8c4735def"


# --------------------------------------------------------------------------- training


def _network(net) -> str:
    return _digest(*[_floats(w) for w in net.weights], *[_floats(b) for b in net.biases])


def _curve(curve) -> str:
    return _json([{k: v for k, v in point.items() if k != "seconds"} for point in curve])


TRAINED = {1: ("a8b399b892f5c5c0", "0c7770f636800715"), 2: ("415ca71bb34f5342", "8b09a71a9dc94b12")}


@pytest.mark.usefixtures("recorded_kernels")
@pytest.mark.parametrize("threads", [1, 2])
def test_td_run(threads):
    """400 self-play games of a 16-unit network, two curve points; a run is fixed by its
    seed and thread count (two threads give another run)."""
    run = td(TDConfig(hidden=16, games=400, sync=100, eval_every=200, eval_games=100, seed=1, threads=threads))
    assert run.games == 400 and run.network.sizes == (220, 16, 5)
    assert (_network(run.network), _curve(run.curve)) == TRAINED[threads]


@pytest.mark.usefixtures("recorded_kernels")
def test_td_run_without_contact():
    run = td(TDConfig(hidden=16, contact=False, games=300, sync=50, eval_every=300, eval_games=0, seed=2))
    assert run.network.sizes == (198, 16, 5)
    assert _network(run.network) == "741bf363fbfd1c94"


@pytest.mark.usefixtures("recorded_kernels")
def test_train_command(tmp_path):
    """``fastgen train td`` with the settings of the one-thread run: the same weights."""
    out = tmp_path / "bot.npz"
    proc = run_python("-m", "fastgen", "train", "td", "--out", str(out), "--games", "400", "--hidden", "16",
                      "--sync", "100", "--eval-every", "200", "--eval-games", "100", "--seed", "1", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    assert _network(Network.load(str(out))) == TRAINED[1][0]


# --------------------------------------------------------------------------- evaluators


@pytest.mark.usefixtures("recorded_kernels")
def test_baseline_evaluate(walk):
    boards, _ = walk
    probs = evaluators.baseline()(boards)
    assert probs.shape == (2000, 5)
    assert _digest(_floats(probs)) == "f74776198ff8296a"


@pytest.mark.usefixtures("recorded_kernels")
def test_greedy_choices(walk):
    """The 0-ply choices of the baseline and of a random numpy network on every play of
    2,000 positions."""
    boards, dice = walk
    batch = fastgen.plays_batch(boards, dice)
    a = evaluators.greedy(evaluators.baseline())(batch.boards, batch.offsets)
    b = evaluators.greedy(evaluators.random_network(hidden=16, seed=3))(batch.boards, batch.offsets)
    assert _digest(np.asarray(a, np.int64), np.asarray(b, np.int64)) == "70f30023e187bd98"


@pytest.mark.usefixtures("recorded_kernels")
def test_lookahead_choices(walk):
    """The 1-ply choices of the baseline on 300 positions."""
    boards, dice = walk
    batch = fastgen.plays_batch(boards[:300], dice[:300])
    picks = policies.lookahead(evaluators.baseline(), plies=1)(batch.boards, batch.offsets)
    assert _digest(np.asarray(picks, np.int64)) == "e45a06094bad374c"


def test_pubeval_best(walk):
    boards, dice = walk
    assert _digest(fastgen.pubeval_best(boards, dice)) == "35bab50c19e4fd53"
