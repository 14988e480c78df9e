"""``fastgen rollout-plays`` answers in the time a user waits at a prompt, its progress
moves from the start, and an interrupted rollout says what it holds (no benchmarks here:
the defaults are checked as settings, the progress and Ctrl-C with cheap evaluators)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import fastgen
from fastgen.players import evaluators as ev
from fastgen.players import specs
from fastgen.cli import decide as cli_decide
from fastgen.cli.main import build_parser, main
from fastgen.sim.decide import front as D
from fastgen.sim.decide.table import NO_RESULT
from fastgen.sim.decide.trials import block_size, simulate

START = fastgen.STARTING_BOARD
OPENING = ["rollout-plays", "--position", "4HPwATDgc/ABMA", "--dice", "31"]


def _args(*extra):
    return build_parser("rollout-plays").parse_args([*OPENING, *extra])


def test_the_defaults_are_gnubg_s_nets_or_the_shipped_network_4_plays_and_216_trials():
    args = _args()
    assert args.evaluator is None  # gnubg:0 where its weights are found, else baseline (test_default_evaluator.py)
    assert (args.plays, args.trials) == (4, 216) == (cli_decide.DEFAULT_PLAYS, cli_decide.DEFAULT_TRIALS)
    assert _args("--plays", "all").plays is None and _args("--plays", "7").plays == 7
    for bad in ("0", "x", "ALL", "-1"):
        with pytest.raises(SystemExit):
            _args("--plays", bad)


def test_the_default_command_reports_progress_many_times():
    # Progress comes once per block; with the default plays a block is a small share of
    # the default trials, so the bar shows a rate and an estimate after its first block.
    per_block = block_size(D.POOL_GAMES, cli_decide.DEFAULT_PLAYS)
    assert per_block * 6 <= cli_decide.DEFAULT_TRIALS


def test_progress_is_reported_before_a_large_block_would_have_finished():
    # 4 candidates x 108 trials fit in one block of the 512 games a block used to hold,
    # reported only at its end; now a small run reports several times, each trial once.
    seen: list = []
    net = ev.random_network(hidden=4, seed=1)
    t = fastgen.rollout_plays(START, (3, 1), net, plays=4, trials=108, truncate=2, progress=seen.append)
    assert len(seen) >= 3 and max(seen) <= 36 and sum(seen) == 108
    assert [r.trials for r in t.rows] == [108] * 4


def _interrupting(net, at_call):
    """*net*, raising KeyboardInterrupt (Ctrl-C) at its call number *at_call*."""
    calls = [0]

    def evaluator(boards):
        calls[0] += 1
        if calls[0] == at_call:
            raise KeyboardInterrupt
        return net(boards)

    return evaluator


def test_ctrl_c_before_any_trial_finished_gives_no_result(monkeypatch, capsys):
    net = ev.random_network(hidden=4, seed=1)
    # Call 1 picks the 4 best plays at 0 ply; call 2 is the first half-move of the first
    # block: no game has ended.
    t = fastgen.rollout_plays(START, (3, 1), _interrupting(net, 2), plays=4, trials=72)
    assert t.interrupted and t.stopped == "interrupted"
    assert [r.trials for r in t.rows] == [0] * 4
    assert all(math.isnan(r.equity) and math.isnan(r.diff) and math.isnan(r.p_best) for r in t.rows)
    text = str(t)
    assert text.splitlines()[-1] == NO_RESULT == "interrupted before the first trial finished: no result"
    assert "p_best" not in text and "nan" not in text and len(text.splitlines()) == 2
    rows = t.to_dict()["rows"]
    assert [(r["trials"], r["p_best"], r["diff"]) for r in rows] == [(0, None, None)] * 4
    # The command: the message, no table, exit status 130.
    real = specs.evaluator
    monkeypatch.setattr(specs, "evaluator", lambda spec: _interrupting(net, 2) if spec == "baseline" else real(spec))
    for extra in ([], ["--json"]):
        assert main([*OPENING, "--evaluator", "baseline", *extra]) == 130
        out, err = capsys.readouterr()
        assert out == "" and err == f"fastgen rollout-plays: {NO_RESULT}\n"


def test_ctrl_c_after_some_trials_ranks_the_rows_that_have_them(monkeypatch, capsys):
    net = "network:1"
    kw = dict(plays=2, trials=200, truncate=2)
    per_block = block_size(D.POOL_GAMES, 2)
    blocks = []

    def progress(n):  # Ctrl-C as the second block is reported: both kept
        blocks.append(n)
        if len(blocks) == 2:
            raise KeyboardInterrupt

    t = fastgen.rollout_plays(START, (3, 1), net, progress=progress, **kw)
    assert t.interrupted and blocks == [per_block] * 2
    assert [r.trials for r in t.rows] == [2 * per_block] * 2
    whole = fastgen.rollout_plays(START, (3, 1), net, **{**kw, "trials": 2 * per_block})
    assert [str(r.play) for r in t.rows] == [str(r.play) for r in whole.rows]
    assert [r.equity for r in t.rows] == [r.equity for r in whole.rows]  # the same trials
    assert sum(r.p_best for r in t.rows) == pytest.approx(1.0) and t.rows[0].diff == 0.0
    lines = str(t).splitlines()
    assert lines[1] == f"INTERRUPTED after {2 * per_block} of 200 trials: the rows hold those"
    assert [ln[:2] for ln in lines[3:]] == [" 1", " 2"] and "nan" not in str(t)
    # The command prints that table and exits with 130.
    monkeypatch.setattr(D, "_progress_bar", lambda bar, total: (progress, lambda: None))
    blocks.clear()
    argv = [*OPENING, "--evaluator", "network:1", "--plays", "2", "--trials", "200", "--truncate", "2"]
    assert main(argv) == 130
    out = capsys.readouterr().out
    assert out.strip() == str(t)
    blocks.clear()
    assert main(argv + ["--json"]) == 130
    data = json.loads(capsys.readouterr().out)
    assert data["interrupted"] and [r["trials"] for r in data["rows"]] == [2 * per_block] * 2


def _race_evaluator(boards):
    """The pip count through a sigmoid: the side on roll's chance (float64, no gammons)."""
    pips = (boards.astype(np.int64) * np.arange(1, 26)).sum(axis=2)
    p = 1.0 / (1.0 + np.exp(-(pips[:, 0] - pips[:, 1] + 8) / 12.0))
    z = np.zeros_like(p)
    return np.stack([p, z, z, z, z], axis=1)


def test_ctrl_c_inside_a_block_keeps_the_trials_finished_in_order():
    # A bear-off race: games end after different numbers of half-moves. Ctrl-C in the
    # middle of the block keeps the trials finished from the first one on: their values
    # are those of the uninterrupted block; a later trial that had finished is left out.
    board = np.zeros((2, 25), dtype=np.int8)
    board[0, :6] = (0, 1, 1, 0, 1, 2)
    board[1, :6] = (1, 0, 1, 1, 0, 2)
    starts = np.stack([board, board[::-1]])
    trials = np.arange(64, dtype=np.int64)
    opts = dict(seed=3, variance_reduction=True, quasi_random=True, truncate=None)
    full_raw, full_est = simulate(starts, True, _race_evaluator, trials, **opts)
    kept, left_out = [], []
    for at_call in range(1, 9):  # one evaluator call per half-move: Ctrl-C in half-move at_call - 1
        with pytest.raises(KeyboardInterrupt) as exc:
            simulate(starts, True, _interrupting(_race_evaluator, at_call), trials, **opts)
        raw, est = exc.value.finished_trials
        k = raw.shape[1]
        assert raw.shape == est.shape == (2, k, 5)
        assert np.array_equal(raw, full_raw[:, :k]) and np.array_equal(est, full_est[:, :k])
        # The trials finished by then: their games' outcomes are exact (0 or 1), not scored
        # by the evaluator at the truncation.
        cut, _ = simulate(starts, True, _race_evaluator, trials, **{**opts, "truncate": at_call - 1})
        done = np.isin(cut[:, :, 0], (0.0, 1.0)).all(axis=0)
        assert done[:k].all() and (k == 64 or not done[k])
        kept.append(k)
        left_out.append(int(done[k:].sum()))
    assert kept[0] == 0 and kept == sorted(kept) and any(0 < k < 64 for k in kept), kept
    assert max(left_out) > 0, left_out
