"""Rollouts that decide (fastgen.rollout_plays / rollout_position / rollout_dice, issue 18).

Statistical checks use fixed seeds and state their margins: "within 3 combined SE" means
``|a - b| <= 3 * sqrt(se_a**2 + se_b**2)``. The evaluators are cheap numpy functions
(Tesauro's pubeval through a sigmoid, a small random network); the checks with GNU Backgammon's nets
are in test_decide_gnubg.py.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import fastgen
from _pubeval_scores import evaluate as pubeval_scores
from fastgen.players import evaluators as ev
from fastgen.errors import InvalidArgumentError, InvalidBoardError, InvalidDiceError
from fastgen.sim.decide import front as D
from fastgen.players.pubeval import is_race
from fastgen.sim.decide.table import PROBABILITIES_CLIPPED, RolloutTable, build_rows

START = fastgen.STARTING_BOARD


def pub_evaluator(boards: np.ndarray) -> np.ndarray:
    """Tesauro's pubeval turned into probabilities: the score of the position as the
    side that just moved into it (row 0) sees it, through a sigmoid, is that side's
    chance; gammons from the same number. Its greedy player plays pubeval's choices,
    so games have the usual length. Cheap, smooth, float64 row by row."""
    turned = np.ascontiguousarray(boards[:, ::-1])
    score = pubeval_scores(turned, race=is_race(turned))
    theirs = 1.0 / (1.0 + np.exp(-np.clip(score, -60, 60) / 3.0))
    pw = 1.0 - theirs
    return np.stack([pw, 0.2 * pw**2, 0.02 * pw**2, 0.2 * theirs**2, 0.02 * theirs**2], axis=1)


pub_evaluator.__name__ = "pubeval"


def _race(rng, high=12):
    b = np.zeros((2, 25), dtype=np.int8)
    for side in (0, 1):
        n = int(rng.integers(4, 16))
        np.add.at(b[side], rng.integers(0, high, n), 1)
    return b


def _played(rng, depth):
    """A position after *depth* random half-moves from the start."""
    b = START.copy()
    for _ in range(depth):
        plays = fastgen.legal_plays(b, tuple(int(x) for x in rng.integers(1, 7, 2)))
        b = fastgen.swap_sides(plays.boards[int(rng.integers(len(plays)))])
    return b


def positions_20():
    """Twenty positions: 8 contact, 4 with a checker on the bar, 4 races, 4 bear-offs."""
    rng = np.random.default_rng(2024)
    contact, bar = [], []
    while len(contact) < 8 or len(bar) < 4:
        b = _played(rng, int(rng.integers(2, 20)))
        if b.sum(axis=1).min() < 15:
            continue
        (bar if b[1, 24] > 0 else contact).append(b)
    out = contact[:8] + bar[:4] + [_race(rng, 12) for _ in range(4)] + [_race(rng, 6) for _ in range(4)]
    assert len(out) == 20
    return np.stack(out)


# --------------------------------------------------------------------------- dice


def test_quasi_random_dice_are_stratified_exactly():
    dice = fastgen.sim.rollout_dice(7, 2 * 1296, 3)
    rolls = (dice[..., 0].astype(int) - 1) * 6 + (dice[..., 1] - 1)
    for lo in range(0, 2 * 1296, 36):  # every block of 36: each ordered first roll once
        assert sorted(rolls[lo : lo + 36, 0].tolist()) == list(range(36))
    for lo in (0, 1296):  # every block of 1,296: each ordered pair of first two rolls once
        pairs = rolls[lo : lo + 1296, 0] * 36 + rolls[lo : lo + 1296, 1]
        assert sorted(pairs.tolist()) == list(range(1296))
    plain = fastgen.sim.rollout_dice(7, 2 * 1296, 3, quasi_random=False)
    assert np.array_equal(plain[:, 2], dice[:, 2])  # later rolls: the plain hash
    first = (plain[:, 0, 0].astype(int) - 1) * 6 + plain[:, 0, 1] - 1
    assert any(len(set(first[lo : lo + 36].tolist())) < 36 for lo in range(0, 2 * 1296, 36))
    assert dice.min() >= 1 and dice.max() <= 6


def test_rollout_dice_is_a_pure_function_of_seed_trial_turn():
    a = fastgen.sim.rollout_dice(3, 100, 5)
    assert np.array_equal(a, fastgen.sim.rollout_dice(3, 100, 5))
    assert np.array_equal(a[:40, :2], fastgen.sim.rollout_dice(3, 40, 2))
    assert not np.array_equal(a, fastgen.sim.rollout_dice(4, 100, 5))
    with pytest.raises(InvalidArgumentError, match="-1"):
        fastgen.sim.rollout_dice(-1, 3, 3)
    with pytest.raises(InvalidArgumentError, match="'yes'"):
        fastgen.sim.rollout_dice(1, 3, 3, quasi_random="yes")


# --------------------------------------------------------------------------- the engine


def test_same_trials_whatever_block_size_and_threads(monkeypatch):
    # The games are the same trial by trial. The network computes in float32, whose
    # matrix products may round differently with the batch size, so the luck (a sum of
    # evaluations) is compared to 1e-6; with pub_evaluator (float64, row by row) exactly.
    for evaluator, tol in ((ev.random_network(hidden=8, seed=2), 1e-6), (pub_evaluator, 0.0)):
        kw = dict(plays=3, trials=40, seed=5, truncate=8)
        monkeypatch.setattr(D, "POOL_GAMES", 512)
        a = fastgen.rollout_plays(START, (4, 2), evaluator, **kw)
        monkeypatch.setattr(D, "POOL_GAMES", 7)  # blocks of 2 trials
        b = fastgen.rollout_plays(START, (4, 2), evaluator, threads=2, **kw)
        assert [str(r.play) for r in a.rows] == [str(r.play) for r in b.rows]
        for ra, rb in zip(a.rows, b.rows):
            assert np.allclose(ra.samples, rb.samples, rtol=0, atol=tol)
            assert np.allclose(ra.raw_samples, rb.raw_samples, rtol=0, atol=tol)


def _plain_loop(board, dice, play_text, evaluator, trials, seed, quasi_random):
    """An independent rollout: legal_plays and the evaluator, one game at a time, the
    dice from rollout_dice; returns the raw outcome (5 probabilities) of each trial."""
    after = fastgen.parse_play(board, dice, play_text).board_after
    rolls = fastgen.sim.rollout_dice(seed, trials, 400, quasi_random=quasi_random)
    out = []
    for k in range(trials):
        pos, mine = fastgen.swap_sides(after), False  # opponent on roll
        for t in range(400):
            plays = fastgen.legal_plays(pos, tuple(int(x) for x in rolls[k, t]))
            best, best_eq, result = 0, -np.inf, None
            for i, b in enumerate(plays.boards):
                if b[1].sum() == 0:  # this play wins
                    r = fastgen.games.result_type(b)
                    p = np.array([1.0, r >= 2, r == 3, 0.0, 0.0])
                else:
                    q = evaluator(fastgen.swap_sides(b)[None])[0]
                    p = np.array([1 - q[0], q[3], q[4], q[1], q[2]])
                e = 2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4]
                if e > best_eq:
                    best, best_eq, result = i, e, p
            chosen = plays.boards[best]
            if chosen[1].sum() == 0:
                out.append(result if mine else np.array([1 - result[0], result[3], result[4], result[1], result[2]]))
                break
            pos, mine = fastgen.swap_sides(chosen), not mine
        else:
            raise AssertionError("a plain-loop game did not end")
    return np.array(out)


@pytest.mark.parametrize("vr,qr", [(True, True), (False, False)])
def test_raw_outcomes_equal_a_plain_loop_trial_by_trial(vr, qr):
    # pub_evaluator computes each row on its own in float64, so one board at a time and
    # a batch give the same floats (a float32 network may not: see above).
    net = pub_evaluator
    board = _played(np.random.default_rng(11), 30)
    dice = (5, 2)
    text = str(fastgen.legal_plays(board, dice)[0])
    table = fastgen.rollout_plays(board, dice, net, plays=[text], trials=12, seed=9,
                                  variance_reduction=vr, quasi_random=qr)
    expected = _plain_loop(board, dice, text, net, 12, 9, qr)
    assert np.array_equal(table.rows[0].raw_samples, expected)


def test_variance_reduction_and_quasi_random_dice_are_unbiased_on_20_positions():
    # Each configuration runs with its own seed (independent samples); the equities of
    # the four agree within 3 combined SE with the reference (VR + quasi-random).
    boards = positions_20()
    trials = np.arange(108, dtype=np.int64)
    got = {}
    for seed, (vr, qr) in enumerate([(True, True), (True, False), (False, True), (False, False)]):
        raw, est = D.simulate(boards, True, pub_evaluator, trials, seed=100 + seed, variance_reduction=vr,
                              quasi_random=qr, truncate=None)
        e = ev.equity(est)
        got[vr, qr] = (e.mean(axis=1), e.std(axis=1, ddof=1) / np.sqrt(trials.size))
    ref, ref_se = got[True, True]
    for key, (e, se) in got.items():
        z = np.abs(e - ref) / np.hypot(se, ref_se)
        assert (z <= 3).all() or key == (True, True), (key, z.round(2).tolist())


def test_truncate_zero_is_the_0_ply_value():
    net = ev.random_network(hidden=8, seed=4)
    t = fastgen.rollout_plays(START, (6, 2), net, trials=40, truncate=0)
    legal = fastgen.legal_plays(START, (6, 2))
    assert len(t.rows) == len(legal)
    direct = ev.afterstate_probs(net, legal.boards)
    by_text = {str(p): ev.equity(direct[i]) for i, p in enumerate(legal)}
    for row in t.rows:
        assert row.equity == pytest.approx(by_text[str(row.play)], abs=1e-12)
        assert row.equity_se == 0.0 and row.trials == 40
    assert [r.equity for r in t.rows] == sorted((r.equity for r in t.rows), reverse=True)


def test_plays_as_k_best_texts_and_play_values():
    net = ev.random_network(hidden=8, seed=4)
    legal = fastgen.legal_plays(START, (6, 2))
    order = np.argsort(-ev.equity(ev.afterstate_probs(net, legal.boards)), kind="stable")
    t = fastgen.rollout_plays(START, (6, 2), net, plays=3, trials=4, truncate=0)
    assert {str(r.play) for r in t.rows} == {str(legal[int(i)]) for i in order[:3]}
    t2 = fastgen.rollout_plays(START, (6, 2), net, plays=[legal[1], str(legal[2])], trials=4, truncate=0)
    assert {str(r.play) for r in t2.rows} == {str(legal[1]), str(legal[2])}
    with pytest.raises(InvalidArgumentError, match="twice"):
        fastgen.rollout_plays(START, (6, 2), net, plays=[legal[1], str(legal[1])], trials=4)
    other = fastgen.legal_plays(START, (3, 1))[0]
    with pytest.raises(InvalidArgumentError, match="not a legal play"):
        fastgen.rollout_plays(START, (6, 2), net, plays=[other], trials=4)


def test_a_play_that_wins_scores_exactly():
    b = np.zeros((2, 25), dtype=np.int8)
    b[1, 0], b[1, 1] = 1, 1  # two checkers on my 1 and 2 points: 2-1 bears both off
    b[0, 5] = 15  # the opponent has borne off none, none in my home board: a gammon
    t = fastgen.rollout_plays(b, (2, 1), pub_evaluator, trials=36)
    assert len(t.rows) == 2 and str(t.rows[0].play) == "2/off 1/off"
    assert t.rows[0].probabilities == (1.0, 1.0, 0.0, 0.0, 0.0)
    assert t.rows[0].equity == 2.0 and t.rows[0].equity_se == 0.0 and t.rows[0].trials == 36
    assert t.rows[1].trials == 36 and t.rows[1].equity < 2.0


def test_stop_rules():
    net = ev.random_network(hidden=8, seed=1)
    t = fastgen.rollout_plays(START, (3, 1), net, plays=2, trials=1296, truncate=2, stop_se=1.0, min_trials=36)
    assert t.stopped == "stop_se" and t.rows[0].trials < 1296
    t = fastgen.rollout_plays(START, (3, 1), net, trials=144, truncate=1, stop_z=2.0, min_trials=36)
    counts = [r.trials for r in t.rows]
    assert counts[0] == 144 and min(counts) < 144  # clearly worse plays were dropped early
    for r in t.rows:
        if r.trials < 144:
            assert -r.diff > 2.0 * r.diff_se


def test_ctrl_c_returns_the_table_so_far(monkeypatch):
    monkeypatch.setattr(D, "POOL_GAMES", 36)
    calls = [0]
    net = ev.random_network(hidden=4, seed=1)

    def flaky(boards):
        calls[0] += 1
        if calls[0] == 40:
            raise KeyboardInterrupt
        return net(boards)

    t = fastgen.rollout_plays(START, (3, 1), flaky, plays=["8/5 6/5"], trials=1296, truncate=3)
    assert t.interrupted and t.stopped == "interrupted"
    assert 0 < t.rows[0].trials < 1296 and t.rows[0].trials % 36 == 0
    assert "INTERRUPTED" in str(t)


def test_rollout_position_is_one_row_from_the_side_on_roll():
    net = ev.random_network(hidden=8, seed=1)
    t = fastgen.rollout_position(START, net, trials=36, truncate=0)
    assert len(t.rows) == 1 and t.rows[0].play is None
    assert t.rows[0].equity == pytest.approx(float(ev.equity(net(START[None]))[0]))


def test_table_text_and_json():
    t = fastgen.rollout_plays(START, (3, 1), pub_evaluator, plays=2, trials=36, truncate=4)
    d = json.loads(json.dumps(t.to_dict()))
    assert d["dice"] == [3, 1] and len(d["rows"]) == 2 and d["rows"][0]["diff"] == 0.0
    assert set(d["rows"][0]) >= {"play", "probabilities", "equity", "equity_se", "raw_equity", "diff", "diff_se", "p_best"}
    text = str(t)
    assert "equity" in text and str(t.rows[0].play) in text
    assert abs(sum(r.p_best for r in t.rows) - 1) < 1e-9


def _shown_probabilities(text: str, row: int) -> list[float]:
    """The five probability columns of row *row* (1 = best) of a printed table."""
    line = next(ln for ln in text.splitlines() if ln.startswith(f"{row:>2} "))
    return [float(line[25 + 7 * k: 32 + 7 * k]) for k in range(5)]


def test_the_printed_table_shows_probabilities_within_0_and_1():
    # Variance-reduced per-trial estimates can fall outside [0, 1]; so can their mean.
    plays = list(fastgen.legal_plays(START, (3, 1)))[:3]
    over = np.array([[1.02, 0.30, -0.01, 0.02, -0.004], [0.99, 0.28, -0.02, 0.0, -0.002]])
    inside = np.array([[0.4, 0.1, 0.01, 0.1, 0.01], [0.5, 0.1, 0.01, 0.1, 0.01]])
    none = np.zeros((0, 5))  # a row without trials: NaN, listed last as not rolled out
    table = RolloutTable(build_rows(plays, [over, inside, none], [over, inside, none]), START, (3, 1),
                         "test", 2, 0, True, True, None)
    raw = table.to_dict()["rows"][0]["probabilities"]
    assert raw["win"] == pytest.approx(1.005) and raw["win_backgammon"] == pytest.approx(-0.015)
    assert raw["lose_backgammon"] == pytest.approx(-0.003)  # to_dict keeps the estimates
    text = str(table)
    assert _shown_probabilities(text, 1) == [1.0, 0.29, 0.0, 0.01, 0.0]
    assert _shown_probabilities(text, 2) == [0.45, 0.1, 0.01, 0.1, 0.01]
    assert text.splitlines()[-2].endswith("not rolled out") and text.splitlines()[-1] == PROBABILITIES_CLIPPED
    assert table.rows[0].equity == pytest.approx(float(np.mean(over @ ev.EQUITY_WEIGHTS - 1)))
    # Within [0, 1] everywhere: no footnote.
    plain = RolloutTable(build_rows(plays[1:], [inside, none], [inside, none]), START, (3, 1),
                         "test", 2, 0, True, True, None)
    assert PROBABILITIES_CLIPPED not in str(plain) and str(plain).splitlines()[-1].startswith(" - ")


def test_cli_rollout_plays_prints_probabilities_within_0_and_1(capsys):
    # A random network over a short race: variance reduction puts the mean estimates of
    # the only candidate outside [0, 1] (win 1.002, the backgammons and lose gammon -0.004
    # to -0.010 with seed 0 and 36 trials).
    from fastgen.cli.main import main

    args = ["rollout-plays", "--position", "27YwGAB3tw0AAA", "--dice", "31", "--evaluator", "network:8",
            "--trials", "36", "--plays", "1", "--seed", "0"]
    assert main(args + ["--json"]) == 0
    raw = list(json.loads(capsys.readouterr().out)["rows"][0]["probabilities"].values())
    assert min(raw) < 0 and max(raw) > 1
    assert main(args) == 0
    text = capsys.readouterr().out
    shown = _shown_probabilities(text, 1)
    assert all(0 <= p <= 1 for p in shown) and shown == [min(max(round(p, 3), 0.0), 1.0) for p in raw]
    assert text.splitlines()[-1] == PROBABILITIES_CLIPPED


def test_build_rows_paired_difference_uses_common_trials():
    rng = np.random.default_rng(0)
    luck = rng.normal(size=(200, 1)) * np.array([[0.5, 0, 0, 0, 0]])
    a = 0.5 + luck
    b = 0.45 + luck + rng.normal(scale=0.01, size=(200, 5)) * np.array([1, 0, 0, 0, 0])
    rows = build_rows(["a", "b"], [a, b], [a, b])
    assert rows[0].play == "a" and rows[1].diff == pytest.approx(-0.1, abs=0.01)
    assert rows[1].diff_se < 0.1 * np.hypot(rows[0].equity_se, rows[1].equity_se)
    assert rows[0].p_best > 0.99


# --------------------------------------------------------------------------- evaluators


def test_greedy_is_a_rollout_policy_and_picks_the_best_equity():
    net = ev.random_network(hidden=8, seed=5)
    r = fastgen.rollout(games=8, policy=ev.greedy(net), seed=2)
    assert r.games == 8
    batch = fastgen.plays_batch(np.stack([START] * 3), [(3, 1), (6, 6), (5, 2)])
    picks = ev.greedy(net)(batch.boards, batch.offsets)
    for i, plays in enumerate(batch):
        values = ev.equity(ev.afterstate_probs(net, plays.boards))
        assert picks[i] == int(np.argmax(values))


def test_chain_uses_the_covering_evaluator_where_it_applies():
    class Exact:
        __name__ = "exact"

        def covers(self, boards):
            return boards[:, 1].sum(axis=1) <= 3

        def __call__(self, boards):
            assert self.covers(boards).all()
            return np.tile([0.9, 0.0, 0.0, 0.0, 0.0], (boards.shape[0], 1))

    c = ev.chain(Exact(), pub_evaluator)
    boards = np.stack([START, np.array([[0] * 5 + [15] + [0] * 19, [2] + [0] * 24], dtype=np.int8)])
    p = c(boards)
    assert p[1].tolist() == [0.9, 0, 0, 0, 0] and np.allclose(p[0], pub_evaluator(boards[:1])[0])
    with pytest.raises(InvalidArgumentError, match="covers"):
        ev.chain(pub_evaluator, pub_evaluator)


def test_bad_input_raises_specific_errors():
    net = ev.random_network(hidden=4)
    with pytest.raises(InvalidArgumentError, match="'net'"):
        fastgen.rollout_plays(START, (3, 1), "net")
    with pytest.raises(InvalidDiceError):
        fastgen.rollout_plays(START, (7, 1), net)
    with pytest.raises(InvalidBoardError):
        fastgen.rollout_plays(np.zeros((2, 25), dtype=np.int8), (3, 1), net)
    for bad in ({"trials": 0}, {"truncate": -1}, {"stop_se": -0.1}, {"stop_z": float("nan")},
                {"variance_reduction": 1}, {"plays": "8/5 6/5"}, {"progress": 3}, {"seed": 2**64}):
        with pytest.raises(InvalidArgumentError):
            fastgen.rollout_plays(START, (3, 1), net, trials=bad.pop("trials", 4), **bad)
    with pytest.raises(InvalidArgumentError, match=r"\(3, 5\)|must return"):
        fastgen.rollout_plays(START, (3, 1), lambda b: np.zeros((3, 4)), trials=4, truncate=0)
    with pytest.raises(InvalidArgumentError, match="finite"):
        fastgen.rollout_plays(START, (3, 1), lambda b: np.full((b.shape[0], 5), np.nan), trials=4, truncate=0)


# --------------------------------------------------------------------------- command line


def test_cli_rollout_plays(capsys):
    from fastgen.cli.main import main

    args = ["rollout-plays", "--position", "4HPwATDgc/ABMA", "--dice", "31", "--evaluator", "network:1",
            "--trials", "36", "--truncate", "2", "--plays", "2"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "dice 31" in text and "equity" in text
    assert main(args + ["--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["rows"]) == 2 and data["trials"] == 36 and data["truncate"] == 2
    with pytest.raises(SystemExit) as exc:
        main(["rollout-plays", "--position", "4HPwATDgc/ABMA", "--dice", "71"])
    assert exc.value.code == 2 and "'71'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["rollout-plays", "--position", "4HPwATDgc/ABMA", "--dice", "31", "--evaluator", "gnubg:9"])


def test_progress_reports_every_trial(monkeypatch):
    monkeypatch.setattr(D, "POOL_GAMES", 72)
    seen = []
    t = fastgen.rollout_plays(START, (3, 1), pub_evaluator, plays=2, trials=100, truncate=1, progress=seen.append)
    assert sum(seen) == 100 == t.rows[0].trials and len(seen) == 3  # blocks of 36, 36, 28
    fastgen.rollout_plays(START, (3, 1), pub_evaluator, plays=1, trials=8, truncate=1, progress=True)  # a tqdm bar


def test_bearoff_evaluator_in_a_chain():
    from fastgen import bearoff

    db = bearoff.build_two_sided(6, 3)
    exact = ev.bearoff(db)
    b = np.zeros((2, 2, 25), dtype=np.int8)
    b[0, 1, :3] = 1
    b[0, 0, 2:4] = 1  # both sides inside 6 points with 3 checkers or fewer: in the database
    b[1] = START
    assert exact.covers(b).tolist() == [True, False]
    p = ev.chain(exact, pub_evaluator)(b)
    assert np.array_equal(p[0], bearoff.evaluate(b[:1], db)[0]) and np.allclose(p[1], pub_evaluator(b[1:])[0])
    t = fastgen.rollout_position(b[0], ev.chain(exact, pub_evaluator), trials=36, variance_reduction=False)
    assert t.rows[0].equity == pytest.approx(2 * bearoff.evaluate(b[:1], db)[0, 0] - 1, abs=4 * t.rows[0].equity_se + 1e-9)


# --------------------------------------------------------------------------- truncate_bearoff


def _bearoff_chain():
    from fastgen import bearoff

    db = bearoff.build_two_sided(6, 4)  # both sides with at most 4 checkers on their 6 home points
    return db, ev.chain(ev.bearoff(db), pub_evaluator)


def test_truncate_bearoff_scores_a_bearoff_position_exactly():
    from fastgen import bearoff

    db, net = _bearoff_chain()
    b = np.zeros((2, 25), dtype=np.int8)
    b[1, [0, 2, 4]] = 1
    b[0, [1, 3]] = 1
    assert net.covers(b[None]).tolist() == [True]
    exact = 2 * bearoff.evaluate(b[None], db)[0, 0] - 1  # no gammons with a checker off each side
    t = fastgen.rollout_position(b, net, trials=72, truncate_bearoff=True)
    assert t.rows[0].equity == exact and t.rows[0].equity_se == 0.0 and t.rows[0].trials == 72
    assert t.truncate_bearoff and t.to_dict()["truncate_bearoff"] and "bear-off" in str(t)
    assert t.stats["bearoff_stops"] == 72
    # rollout_plays: each candidate's trials stop at once, at the database's value for the opponent
    tp = fastgen.rollout_plays(b, (2, 1), net, trials=36, truncate_bearoff=True)
    for row in tp.rows:
        after = fastgen.swap_sides(row.play.board_after)
        assert row.equity == pytest.approx(1 - 2 * bearoff.evaluate(after[None], db)[0, 0], abs=1e-12)
        assert row.equity_se < 1e-12  # a constant column: zero up to the rounding of its mean


def test_truncate_bearoff_agrees_with_the_full_rollout_on_a_race():
    # A race that enters the database after a few moves: truncated and played-out
    # equities agree within 3 combined SE (seed 3, 432 trials, variance reduction on;
    # here +0.7034 and +0.7034, SE 0.070 each),
    # and the truncated run stopped trials in the database.
    _, net = _bearoff_chain()
    b = np.zeros((2, 25), dtype=np.int8)
    b[1, [0, 1, 3, 5, 7, 8]] = 1
    b[0, [0, 2, 4, 6, 7, 9]] = 1
    assert net.covers(b[None]).tolist() == [False]
    full = fastgen.rollout_position(b, net, trials=432, seed=3)
    cut = fastgen.rollout_position(b, net, trials=432, seed=3, truncate_bearoff=True)
    a, c = full.rows[0], cut.rows[0]
    assert cut.stats["bearoff_stops"] > 0 and "bearoff_stops" not in full.stats
    assert abs(a.equity - c.equity) <= 3 * np.hypot(a.equity_se, c.equity_se), (a.equity, c.equity)
    # Sharper, as the same seed pairs the trials: the per-trial differences (the
    # database's value against playing on from there) average zero within 3 of their SE
    # plus the database's rounding (values stored in units of 1/65535, as gnubg's; the
    # equity 2 P(win) - 1 doubles it; seen: -7.7e-6, SE 1.1e-6).
    d = ev.equity(c.samples) - ev.equity(a.samples)
    assert abs(d.mean()) <= 3 * d.std(ddof=1) / np.sqrt(d.size) + 2 / 65535, (d.mean(), d.std(ddof=1))


def test_truncate_bearoff_needs_an_evaluator_that_covers():
    with pytest.raises(InvalidArgumentError, match="covers.*pubeval|pubeval.*covers|function pub_evaluator"):
        fastgen.rollout_plays(START, (3, 1), pub_evaluator, trials=4, truncate_bearoff=True)
    with pytest.raises(InvalidArgumentError, match="truncate_bearoff"):
        fastgen.rollout_position(START, pub_evaluator, trials=4, truncate_bearoff=1)

    class Bad:
        __name__ = "bad"

        def covers(self, boards):
            return np.zeros(3, dtype=bool)

        def __call__(self, boards):
            return pub_evaluator(boards)

    with pytest.raises(InvalidArgumentError, match="covers must return"):
        fastgen.rollout_position(START, Bad(), trials=4, truncate_bearoff=True)


# --------------------------------------------------------------------------- out=DIR


def test_out_dir_resumes_to_the_uninterrupted_table(tmp_path, monkeypatch):
    from fastgen.errors import RolloutStoreError
    from fastgen.sim.decide import chunks as decide_chunks

    kw = dict(plays=2, trials=100, seed=6, truncate=6, chunk_size=36, key="pubeval-probabilities")  # chunks 0-36, 36-72, 72-100
    ref = fastgen.rollout_plays(START, (5, 2), pub_evaluator, **kw)
    out = tmp_path / "run"
    # Ctrl-C during the second chunk: the first is saved, the table holds its 36 trials
    real, calls = decide_chunks.play_range, [0]

    def flaky(*a, **k):
        calls[0] += 1
        if calls[0] == 2:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(decide_chunks, "play_range", flaky)
    cut = fastgen.rollout_plays(START, (5, 2), pub_evaluator, out=out, **kw)
    assert cut.interrupted and cut.rows[0].trials == 36
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json", "part-000000000000-000000000036.npz"]
    monkeypatch.setattr(decide_chunks, "play_range", real)
    again = fastgen.rollout_plays(START, (5, 2), pub_evaluator, out=out, **kw)
    assert again.stats["chunks_loaded"] == 1 and again.stats["chunks_played"] == 2
    assert [str(r.play) for r in again.rows] == [str(r.play) for r in ref.rows]
    for ra, rb in zip(again.rows, ref.rows):
        assert np.array_equal(ra.samples, rb.samples) and np.array_equal(ra.raw_samples, rb.raw_samples)
        assert (ra.equity, ra.equity_se, ra.diff_se, ra.p_best) == (rb.equity, rb.equity_se, rb.diff_se, rb.p_best)
    done = fastgen.rollout_plays(START, (5, 2), pub_evaluator, out=out, **kw)  # all loaded, nothing played
    assert done.stats["chunks_loaded"] == 3 and "chunks_played" not in done.stats
    assert done.rows[0].equity == ref.rows[0].equity
    with pytest.raises(RolloutStoreError, match="seed"):
        fastgen.rollout_plays(START, (5, 2), pub_evaluator, out=out, **{**kw, "seed": 7})
    with pytest.raises(InvalidArgumentError, match="stop_se"):
        fastgen.rollout_plays(START, (5, 2), pub_evaluator, out=tmp_path / "b", stop_se=0.1, trials=36, key="pub")
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "manifest.json").write_text("{}")
    with pytest.raises(RolloutStoreError, match="not a manifest"):
        fastgen.rollout_position(START, pub_evaluator, trials=36, out=tmp_path / "junk", key="pub")
